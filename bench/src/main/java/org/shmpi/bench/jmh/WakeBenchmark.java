package org.shmpi.bench.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;
import org.shmpi.shm.Futex;
import org.shmpi.shm.WakeWord;

/**
 * The idle/wake path. {@code wakeNobodySleeping}: what every sender pays per message when the
 * receiver is awake (a full fence and a volatile load). {@code pingPong}: two threads that each
 * go to sleep on their own wake word (futex, or spinning for comparison) as soon as they have
 * nothing to do; the {@code ping} score is one round trip (two wake-ups with {@code futex}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class WakeBenchmark
{
    /** A sleeper re-checks at least this often, so a thread never hangs once the iteration ends. */
    static final long SLEEP_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(1);

    static Futex linuxFutex()
    {
        final Futex futex = Futex.open(true);
        if (!futex.wakesSleepers())
        {
            throw new IllegalStateException("the Linux futex could not be loaded: " + futex);
        }
        return futex;
    }

    @State(Scope.Thread)
    public static class Awake
    {
        WakeWord word;

        @Setup
        public void setup()
        {
            word = new WakeWord(new UnsafeBuffer(ByteBuffer.allocateDirect(64)), 0, linuxFutex());
        }
    }

    /** Nobody sleeps: the sender's per-message cost. */
    @Benchmark
    public void wakeNobodySleeping(final Awake s)
    {
        s.word.wakeIfSleeping();
    }

    /**
     * Shared by the two threads of a group: each thread's wake word and mailbox on its own
     * cache line. A mailbox holds the last sequence number sent to its owner.
     */
    @State(Scope.Group)
    public static class Pair
    {
        private static final int PING_WORD = 0;
        private static final int PONG_WORD = 128;
        private static final int PING_MAILBOX = 256;
        private static final int PONG_MAILBOX = 384;

        @Param({"futex", "spin"})
        public String wait;

        UnsafeBuffer buffer;
        WakeWord pingWord;
        WakeWord pongWord;
        boolean sleep;
        /** Ping thread only: the last sequence number sent. */
        int sent;
        /** Pong thread only: the last sequence number echoed. */
        int echoed;

        @Setup
        public void setup()
        {
            buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
            final Futex futex = linuxFutex();
            pingWord = new WakeWord(buffer, PING_WORD, futex);
            pongWord = new WakeWord(buffer, PONG_WORD, futex);
            sleep = "futex".equals(wait);
        }

        /**
         * Waits until the mailbox differs from {@code notThis} and returns it, or returns
         * {@code notThis} when the iteration ends first. Sleeps at once when told to, as an idle
         * rank does after its back-off.
         */
        int await(final int mailbox, final int notThis, final WakeWord own, final Control control)
        {
            int v;
            while ((v = buffer.getIntVolatile(mailbox)) == notThis)
            {
                if (control.stopMeasurement)
                {
                    return notThis;
                }
                if (sleep)
                {
                    own.prepareSleep();
                    if (buffer.getIntVolatile(mailbox) == notThis)
                    {
                        own.sleep(SLEEP_TIMEOUT_NS);
                    }
                    own.awake();
                }
                else
                {
                    Thread.onSpinWait();
                }
            }
            return v;
        }
    }

    /** Sends the next number to pong, wakes it, waits for the echo. */
    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public int ping(final Pair p, final Control control)
    {
        final int seq = ++p.sent;
        p.buffer.putIntRelease(Pair.PONG_MAILBOX, seq);
        p.pongWord.wakeIfSleeping();
        int v = p.buffer.getIntVolatile(Pair.PING_MAILBOX);
        while (v != seq && !control.stopMeasurement)
        {
            v = p.await(Pair.PING_MAILBOX, v, p.pingWord, control);
        }
        return v;
    }

    /** Waits for a new number, echoes it back to ping and wakes it. */
    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public int pong(final Pair p, final Control control)
    {
        final int v = p.await(Pair.PONG_MAILBOX, p.echoed, p.pongWord, control);
        if (v != p.echoed)
        {
            p.echoed = v;
            p.buffer.putIntRelease(Pair.PING_MAILBOX, v);
            p.pingWord.wakeIfSleeping();
        }
        return v;
    }
}
