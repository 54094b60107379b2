package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The wake word protocol across threads, with the Linux futex and with the polling fallback,
 * on one mapping and on two mappings of the same file (as two processes see it).
 */
class WakeWordTest
{
    private static final int DATA_OFFSET = 0;
    private static final int WORD_OFFSET = 128;
    private static final int ACK_OFFSET = 192;
    private static final int LENGTH = 256;

    @TempDir
    Path tmp;

    private final List<MappedByteBuffer> mappings = new ArrayList<>();

    @AfterEach
    void unmap() throws IOException
    {
        for (final MappedByteBuffer m : mappings)
        {
            IoUtil.unmap(m);
        }
        Files.deleteIfExists(tmp.resolve("words"));
        assertFalse(Files.exists(tmp.resolve("words")));
    }

    static Stream<Arguments> futexes()
    {
        return Stream.of(Arguments.of("linux", Futex.open(true)), Arguments.of("polling", Futex.open(false)));
    }

    static Stream<Arguments> futexesAndMappings()
    {
        return futexes().flatMap(a -> Stream.of(
            Arguments.of(a.get()[0], a.get()[1], false), Arguments.of(a.get()[0], a.get()[1], true)));
    }

    /** Two buffers over the same memory: one direct buffer twice, or two mappings of one file. */
    private UnsafeBuffer[] sharedBuffers(final boolean twoMappings) throws IOException
    {
        if (!twoMappings)
        {
            final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
            return new UnsafeBuffer[] {b, b};
        }
        final Path file = tmp.resolve("words");
        Files.write(file, new byte[LENGTH]);
        final UnsafeBuffer[] buffers = new UnsafeBuffer[2];
        for (int i = 0; i < 2; i++)
        {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
                mappings.add(m);
                buffers[i] = new UnsafeBuffer(m);
            }
        }
        assertTrue(buffers[0].addressOffset() != buffers[1].addressOffset(), "two distinct mappings");
        return buffers;
    }

    @Test
    void linuxFutexIsAvailableOnLinux()
    {
        final String arch = System.getProperty("os.arch");
        final boolean supported = "Linux".equals(System.getProperty("os.name")) &&
            ("amd64".equals(arch) || "x86_64".equals(arch) || "aarch64".equals(arch));
        assertEquals(supported, Futex.open(true).wakesSleepers(), "futex through JNA on " + arch);
        assertFalse(Futex.open(false).wakesSleepers(), "disabled means the polling fallback");
    }

    @Test
    void misalignedWordIsRejected()
    {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new WakeWord(b, 130, Futex.open(false)));
        assertTrue(ex.getMessage().contains("offset=130"), ex.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("futexes")
    void statesFollowTheProtocol(final String name, final Futex futex)
    {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final WakeWord w = new WakeWord(b, WORD_OFFSET, futex);
        assertFalse(w.isSleeping());
        w.wakeIfSleeping();
        assertEquals(WakeWord.AWAKE, b.getIntVolatile(WORD_OFFSET), "waking an awake word leaves it awake");
        w.prepareSleep();
        assertTrue(w.isSleeping());
        assertEquals(WakeWord.SLEEPING, b.getIntVolatile(WORD_OFFSET));
        w.wakeIfSleeping();
        assertFalse(w.isSleeping(), "a producer's wake flips the word to AWAKE");
        w.prepareSleep();
        w.awake();
        assertFalse(w.isSleeping());
        assertEquals(0, b.getLong(DATA_OFFSET), "nothing else in the buffer is written");
        assertEquals(0, b.getLong(ACK_OFFSET));
    }

    /**
     * A sleep on a word that is not SLEEPING returns: the sleeper asks for an hour, so if it
     * slept on an AWAKE word it would still be asleep when the 30 s hang guard gives up.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("futexes")
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sleepOnAnAwakeWordReturns(final String name, final Futex futex) throws InterruptedException
    {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final WakeWord w = new WakeWord(b, WORD_OFFSET, futex);
        final Thread sleeper = daemon("sleeper", () -> w.sleep(FOREVER_NS));
        sleeper.join(HANG_GUARD_MS);
        final boolean stuck = sleeper.isAlive();
        release(b, WORD_OFFSET, futex, sleeper);
        assertFalse(stuck, "slept on an AWAKE word");
    }

    /** A short timeout bounds the sleep when nobody wakes the sleeper. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("futexes")
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sleepWithoutAWakeEndsAtItsTimeout(final String name, final Futex futex)
    {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final WakeWord w = new WakeWord(b, WORD_OFFSET, futex);
        w.prepareSleep();
        w.sleep(TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(w.isSleeping(), "no one woke it; the word is still SLEEPING");
        w.awake();
    }

    /**
     * A consumer sleeping with an hour's timeout is woken by the producer: it returns, which it
     * would not before the hang guard if the wake were lost.
     */
    @ParameterizedTest(name = "{0}, two mappings={2}")
    @MethodSource("futexesAndMappings")
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sleeperIsWokenByTheProducer(final String name, final Futex futex, final boolean twoMappings) throws Exception
    {
        final UnsafeBuffer[] bufs = sharedBuffers(twoMappings);
        final UnsafeBuffer consumerBuf = bufs[0];
        final UnsafeBuffer producerBuf = bufs[1];
        final WakeWord consumerWord = new WakeWord(consumerBuf, WORD_OFFSET, futex);
        final WakeWord producerWord = new WakeWord(producerBuf, WORD_OFFSET, futex);
        final AtomicLong sleeps = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        final Thread consumer = daemon("consumer", () ->
        {
            while (true)
            {
                consumerWord.prepareSleep();
                if (consumerBuf.getLongAcquire(DATA_OFFSET) != 0)
                {
                    consumerWord.awake();
                    return;
                }
                sleeps.incrementAndGet();
                consumerWord.sleep(FOREVER_NS);
                consumerWord.awake();
            }
        });
        consumer.setUncaughtExceptionHandler((t, e) -> failure.set(e));

        while (!producerWord.isSleeping())
        {
            Thread.onSpinWait();
        }
        Thread.sleep(100);  // let the consumer get into the kernel (or into its naps): not needed to pass
        producerBuf.putLongRelease(DATA_OFFSET, 42);
        producerWord.wakeIfSleeping();

        consumer.join(HANG_GUARD_MS);
        final boolean stuck = consumer.isAlive();
        release(consumerBuf, WORD_OFFSET, futex, consumer);
        assertFalse(stuck, "FORBIDDEN: consumer not woken, still asleep after the publish");
        assertNull(failure.get());
        assertTrue(sleeps.get() >= 1, "consumer never slept, the wake path was not exercised");
    }

    /**
     * Lost wake-up stress, jcstress style. Each round the producer publishes round number i
     * (release) then calls wakeIfSleeping; the consumer waits for i with prepareSleep, re-check,
     * and a sleep of an hour. FORBIDDEN: a consumer that stays asleep although its round was
     * published (a lost wake-up), seen as no progress for the 30 s hang guard; slow progress on
     * a loaded machine is not a failure. Random delays on both sides vary which of "re-check
     * sees it", "woken from sleep" and "never slept" happens.
     */
    @ParameterizedTest(name = "{0}, two mappings={2}")
    @MethodSource("futexesAndMappings")
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void noWakeUpIsLost(final String name, final Futex futex, final boolean twoMappings) throws Exception
    {
        final int rounds = futex.wakesSleepers() ? 10_000 : 3_000;
        final UnsafeBuffer[] bufs = sharedBuffers(twoMappings);
        final UnsafeBuffer c = bufs[0];
        final UnsafeBuffer p = bufs[1];
        final WakeWord consumerWord = new WakeWord(c, WORD_OFFSET, futex);
        final WakeWord producerWord = new WakeWord(p, WORD_OFFSET, futex);
        final AtomicLong woken = new AtomicLong();
        final AtomicLong recheck = new AtomicLong();
        final AtomicLong early = new AtomicLong();
        final AtomicLong consumerRound = new AtomicLong();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        final Thread producer = daemon("producer", () ->
        {
            final SplittableRandom rnd = new SplittableRandom(1);
            for (long i = 1; i <= rounds; i++)
            {
                delay(rnd);
                // Release: the round number is the whole message.
                p.putLongRelease(DATA_OFFSET, i);
                producerWord.wakeIfSleeping();
                while (p.getLongAcquire(ACK_OFFSET) != i)
                {
                    if (stop.get())
                    {
                        return;
                    }
                    Thread.yield();
                }
            }
        });
        final Thread consumer = daemon("consumer", () ->
        {
            final SplittableRandom rnd = new SplittableRandom(2);
            for (long i = 1; i <= rounds && !stop.get(); i++)
            {
                consumerRound.set(i);
                delay(rnd);
                while (!stop.get())
                {
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        early.incrementAndGet();
                        break;
                    }
                    consumerWord.prepareSleep();
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        consumerWord.awake();
                        recheck.incrementAndGet();
                        break;
                    }
                    consumerWord.sleep(FOREVER_NS);
                    consumerWord.awake();
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        woken.incrementAndGet();
                        break;
                    }
                }
                // Release: acknowledges round i to the producer.
                c.putLongRelease(ACK_OFFSET, i);
            }
        });
        producer.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, e));
        consumer.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, e));

        // Hang guard on progress, not on speed: fail only when a whole guard passes without a round.
        boolean stuck = false;
        while (consumer.isAlive() && !stuck)
        {
            final long before = consumerRound.get();
            consumer.join(HANG_GUARD_MS);
            stuck = consumer.isAlive() && consumerRound.get() == before;
        }
        final String summary = name + ": round=" + consumerRound.get() + " published=" + p.getLongAcquire(DATA_OFFSET) +
            " woken=" + woken + " recheck=" + recheck + " early=" + early;
        stop.set(true);
        release(c, WORD_OFFSET, futex, consumer);
        producer.join(HANG_GUARD_MS);
        assertFalse(stuck, "FORBIDDEN outcome (lost wake-up: the consumer sleeps on a published round): " + summary);
        assertFalse(producer.isAlive(), "producer still running: " + summary);
        assertNull(failure.get(), summary);
        assertEquals(rounds, woken.get() + recheck.get() + early.get(), summary);
        assertTrue(woken.get() > 0, "the sleeping path never ran: " + summary);
    }

    /** How long a sleeper asks to sleep when only a wake should end it. */
    private static final long FOREVER_NS = TimeUnit.HOURS.toNanos(1);

    /** How long a test waits for a sleeper that should return: a hang guard, not a measurement. */
    private static final long HANG_GUARD_MS = TimeUnit.SECONDS.toMillis(30);

    private static Thread daemon(final String name, final Runnable body)
    {
        final Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Frees a sleeper the test gave up on, so that it does not sleep on into later tests: AWAKE
     * (volatile) and a futex wake of its own, not through the WakeWord code under test.
     */
    static void release(final UnsafeBuffer buffer, final int offset, final Futex futex, final Thread sleeper)
        throws InterruptedException
    {
        for (int attempt = 0; sleeper.isAlive() && attempt < 100; attempt++)
        {
            buffer.putIntVolatile(offset, WakeWord.AWAKE);
            futex.wake(buffer.addressOffset() + offset, Integer.MAX_VALUE);
            sleeper.join(10);
        }
    }

    /** Mostly nothing, sometimes a spin, a yield or a park of up to 100 us. */
    private static void delay(final SplittableRandom rnd)
    {
        final int kind = rnd.nextInt(8);
        if (kind == 4 || kind == 5)
        {
            for (int s = rnd.nextInt(200); s > 0; s--)
            {
                Thread.onSpinWait();
            }
        }
        else if (kind == 6)
        {
            Thread.yield();
        }
        else if (kind == 7)
        {
            LockSupport.parkNanos(rnd.nextLong(1_000, 100_000));
        }
    }
}
