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
    private static final int PUBLISHED_AT_OFFSET = 64;
    private static final int WORD_OFFSET = 128;
    private static final int ACK_OFFSET = 192;
    private static final int LENGTH = 256;

    private static final long LONG_SLEEP_NS = TimeUnit.SECONDS.toNanos(10);

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

    /** A sleep on a word that is not SLEEPING must return at once (liveness: within 5 s of 10). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("futexes")
    @Timeout(30)
    void sleepOnAnAwakeWordReturns(final String name, final Futex futex)
    {
        final UnsafeBuffer b = new UnsafeBuffer(ByteBuffer.allocateDirect(LENGTH));
        final WakeWord w = new WakeWord(b, WORD_OFFSET, futex);
        final long t0 = System.nanoTime();
        w.sleep(LONG_SLEEP_NS);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "slept on an AWAKE word");
    }

    /** A short timeout bounds the sleep when nobody wakes the sleeper. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("futexes")
    @Timeout(30)
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
     * A consumer sleeping with a 10 s timeout is woken by the producer well before it (within
     * 5 s of the publish: a liveness check, not a speed test).
     */
    @ParameterizedTest(name = "{0}, two mappings={2}")
    @MethodSource("futexesAndMappings")
    @Timeout(60)
    void sleeperIsWokenByTheProducer(final String name, final Futex futex, final boolean twoMappings) throws Exception
    {
        final UnsafeBuffer[] bufs = sharedBuffers(twoMappings);
        final UnsafeBuffer consumerBuf = bufs[0];
        final UnsafeBuffer producerBuf = bufs[1];
        final WakeWord consumerWord = new WakeWord(consumerBuf, WORD_OFFSET, futex);
        final WakeWord producerWord = new WakeWord(producerBuf, WORD_OFFSET, futex);
        final long[] seenAt = new long[1];
        final int[] sleeps = new int[1];
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        final Thread consumer = new Thread(() ->
        {
            final long deadline = System.nanoTime() + LONG_SLEEP_NS;
            while (true)
            {
                consumerWord.prepareSleep();
                if (consumerBuf.getLongAcquire(DATA_OFFSET) != 0)
                {
                    consumerWord.awake();
                    seenAt[0] = System.nanoTime();
                    return;
                }
                sleeps[0]++;
                consumerWord.sleep(LONG_SLEEP_NS);
                consumerWord.awake();
                if (System.nanoTime() - deadline > 0)
                {
                    return;
                }
            }
        }, "consumer");
        consumer.setUncaughtExceptionHandler((t, e) -> failure.set(e));
        consumer.start();

        while (!producerWord.isSleeping())
        {
            Thread.onSpinWait();
        }
        Thread.sleep(100);  // let the consumer get into the kernel (or into its naps)
        final long publishedAt = System.nanoTime();
        producerBuf.putLongRelease(DATA_OFFSET, 42);
        producerWord.wakeIfSleeping();

        consumer.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(consumer.isAlive());
        assertNull(failure.get());
        assertTrue(seenAt[0] != 0, "consumer not woken: it slept its whole 10 s without seeing the value");
        assertTrue(sleeps[0] >= 1, "consumer never slept, the wake path was not exercised");
        assertTrue(seenAt[0] - publishedAt < TimeUnit.SECONDS.toNanos(5),
            "woken " + TimeUnit.NANOSECONDS.toMillis(seenAt[0] - publishedAt) + " ms after the publish");
    }

    /**
     * Lost wake-up stress, jcstress style. Each round the producer publishes round number i
     * (release) then calls wakeIfSleeping; the consumer waits for i with prepareSleep, re-check,
     * sleep (3 s). FORBIDDEN: a sleep that ends more than 1 s after i was published while the
     * consumer still slept on it (a lost wake-up). Random delays on both sides vary which of
     * "re-check sees it", "woken from sleep" and "never slept" happens.
     */
    @ParameterizedTest(name = "{0}, two mappings={2}")
    @MethodSource("futexesAndMappings")
    @Timeout(120)
    void noWakeUpIsLost(final String name, final Futex futex, final boolean twoMappings) throws Exception
    {
        final int rounds = futex.wakesSleepers() ? 10_000 : 3_000;
        final long sleepTimeoutNs = TimeUnit.SECONDS.toNanos(3);
        final long lostThresholdNs = TimeUnit.SECONDS.toNanos(1);
        final UnsafeBuffer[] bufs = sharedBuffers(twoMappings);
        final UnsafeBuffer c = bufs[0];
        final UnsafeBuffer p = bufs[1];
        final WakeWord consumerWord = new WakeWord(c, WORD_OFFSET, futex);
        final WakeWord producerWord = new WakeWord(p, WORD_OFFSET, futex);
        final long[] counts = new long[4];  // lost, woken, seen on re-check, seen before announcing
        final int lost = 0;
        final int woken = 1;
        final int recheck = 2;
        final int early = 3;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);

        final Thread producer = new Thread(() ->
        {
            final SplittableRandom rnd = new SplittableRandom(1);
            for (long i = 1; i <= rounds; i++)
            {
                delay(rnd);
                p.putLong(PUBLISHED_AT_OFFSET, System.nanoTime());
                // Release: publishes the timestamp above with the round number.
                p.putLongRelease(DATA_OFFSET, i);
                producerWord.wakeIfSleeping();
                while (p.getLongAcquire(ACK_OFFSET) != i)
                {
                    if (failure.get() != null || System.nanoTime() - giveUp > 0)
                    {
                        return;
                    }
                    Thread.yield();
                }
            }
        }, "producer");

        final Thread consumer = new Thread(() ->
        {
            final SplittableRandom rnd = new SplittableRandom(2);
            for (long i = 1; i <= rounds; i++)
            {
                delay(rnd);
                while (true)
                {
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        counts[early]++;
                        break;
                    }
                    consumerWord.prepareSleep();
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        consumerWord.awake();
                        counts[recheck]++;
                        break;
                    }
                    consumerWord.sleep(sleepTimeoutNs);
                    final long end = System.nanoTime();
                    consumerWord.awake();
                    if (c.getLongAcquire(DATA_OFFSET) >= i)
                    {
                        if (end - c.getLong(PUBLISHED_AT_OFFSET) > lostThresholdNs)
                        {
                            counts[lost]++;
                        }
                        else
                        {
                            counts[woken]++;
                        }
                        break;
                    }
                    if (System.nanoTime() - giveUp > 0)
                    {
                        throw new AssertionError("round " + i + " never published");
                    }
                }
                c.putLongRelease(ACK_OFFSET, i);
                if (counts[lost] >= 3)
                {
                    throw new AssertionError("lost wake-ups in rounds up to " + i);
                }
            }
        }, "consumer");

        producer.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, e));
        consumer.setUncaughtExceptionHandler((t, e) -> failure.compareAndSet(null, e));
        consumer.start();
        producer.start();
        consumer.join(TimeUnit.SECONDS.toMillis(100));
        producer.join(TimeUnit.SECONDS.toMillis(5));
        final String summary = name + ": lost=" + counts[lost] + " woken=" + counts[woken] +
            " recheck=" + counts[recheck] + " early=" + counts[early];
        assertFalse(consumer.isAlive() || producer.isAlive(), "threads still running: " + summary);
        assertEquals(0, counts[lost], "FORBIDDEN outcome (lost wake-up): " + summary);
        assertNull(failure.get(), summary);
        assertEquals(rounds, counts[woken] + counts[recheck] + counts[early], summary);
        assertTrue(counts[woken] > 0, "the sleeping path never ran: " + summary);
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
