package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class BackoffIdlerTest
{
    private static final long MINUTE_NS = TimeUnit.MINUTES.toNanos(1);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final Futex futex = Futex.open(true);
    private final WakeWord word = new WakeWord(buffer, 0, futex);
    private final AtomicInteger checks = new AtomicInteger();

    private BooleanSupplier work(final boolean answer)
    {
        return () ->
        {
            checks.incrementAndGet();
            assertTrue(word.isSleeping(), "work is re-checked only after the sleep is announced");
            return answer;
        };
    }

    @Test
    @Timeout(10)
    void spinsAndYieldsComeBeforeTheSleepPhase()
    {
        final BackoffIdler idler = new BackoffIdler(3, 2, MINUTE_NS);
        for (int i = 0; i < 5; i++)
        {
            idler.idle(word, work(true));
            assertEquals(0, checks.get(), "call " + i + " is a spin or a yield");
            assertFalse(word.isSleeping());
        }
        // Sleep phase: announces, re-checks, finds work and does not sleep (else: a minute).
        idler.idle(word, work(true));
        assertEquals(1, checks.get());
        assertFalse(word.isSleeping(), "back to AWAKE after deciding not to sleep");
        idler.idle(word, work(true));
        assertEquals(2, checks.get(), "stays in the sleep phase until reset");

        idler.reset();
        for (int i = 0; i < 5; i++)
        {
            idler.idle(word, work(true));
        }
        assertEquals(2, checks.get(), "reset starts again with spinning");
    }

    @Test
    @Timeout(10)
    void fromConfigUsesTheConfiguredPhases()
    {
        final Properties p = new Properties();
        p.setProperty(ShmpiConfig.IDLE_SPINS_PROP, "2");
        p.setProperty(ShmpiConfig.IDLE_YIELDS_PROP, "1");
        p.setProperty(ShmpiConfig.IDLE_SLEEP_MAX_US_PROP, "10000000");
        final BackoffIdler idler = BackoffIdler.from(ShmpiConfig.from(p, Map.of()));
        for (int i = 0; i < 3; i++)
        {
            idler.idle(word, work(true));
        }
        assertEquals(0, checks.get());
        idler.idle(word, work(true));
        assertEquals(1, checks.get());
    }

    @Test
    @Timeout(10)
    void sleepIsBoundedByTheMaximumWhenNobodyWakes()
    {
        final BackoffIdler idler = new BackoffIdler(0, 0, TimeUnit.MILLISECONDS.toNanos(20));
        idler.idle(word, work(false));
        assertEquals(1, checks.get());
        assertFalse(word.isSleeping(), "AWAKE again after the sleep");
    }

    /**
     * The waiter sleeps up to an hour per idle call; woken, it returns. A lost wake-up would keep
     * it asleep past the 30 s hang guard (a guard, not a measurement of how fast it woke).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sleeperIsWokenByAProducer() throws Exception
    {
        final BackoffIdler idler = new BackoffIdler(0, 0, TimeUnit.HOURS.toNanos(1));
        final AtomicBoolean arrived = new AtomicBoolean();
        final Thread waiter = new Thread(() ->
        {
            while (!arrived.get())
            {
                idler.idle(word, arrived::get);
            }
        }, "waiter");
        waiter.setDaemon(true);
        waiter.start();
        while (!word.isSleeping())
        {
            Thread.onSpinWait();
        }
        arrived.set(true);
        word.wakeIfSleeping();
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        final boolean stuck = waiter.isAlive();
        WakeWordTest.release(buffer, 0, futex, waiter);
        assertFalse(stuck, "FORBIDDEN: the waiter slept on after the producer's wake");
    }

    @Test
    @Timeout(10)
    void idleWithoutAWordParksAndReturns()
    {
        final BackoffIdler idler = new BackoffIdler(1, 1, MINUTE_NS);
        for (int i = 0; i < 50; i++)
        {
            idler.idle();
        }
        assertFalse(word.isSleeping(), "the word-less idle never announces a sleep");
    }
}
