package org.shmpi.shm;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a rank waits when its progress loop found nothing to do: spin (cheapest wake-up, burns a
 * core), then yield (lets another rank on this core run), then sleep on a {@link WakeWord}
 * until a producer wakes it. With more ranks than cores the sleep is what keeps the machine
 * usable: a spinning waiter would take the core from the very rank it waits for. One instance
 * per waiting thread; not thread-safe.
 */
public final class BackoffIdler
{
    private static final long PARK_MIN_NS = 1_000;
    private static final long PARK_MAX_NS = 200_000;
    /**
     * Yields before parking when nobody will wake us. A park costs at least the kernel's timer
     * slack (50 µs by default) even when asked for 1 µs, while a peer freeing ring space takes
     * microseconds; yielding lets any other runnable rank use the core meanwhile.
     */
    private static final int UNWOKEN_YIELDS = 5_000;

    private final int spins;
    private final int yields;
    private final long maxSleepNs;
    private int count;
    private long parkNs = PARK_MIN_NS;
    /** Whether idle steps are counted (the job report is on). */
    private boolean counting;
    private long spun;
    private long yielded;
    private long slept;

    public BackoffIdler(final int spins, final int yields, final long maxSleepNs)
    {
        this.spins = spins;
        this.yields = yields;
        this.maxSleepNs = maxSleepNs;
    }

    public static BackoffIdler from(final ShmpiConfig config)
    {
        return new BackoffIdler(config.idleSpins(), config.idleYields(), config.idleSleepMaxUs() * 1_000L);
    }

    /** Counts idle steps from now on (for the job report). */
    public void count()
    {
        counting = true;
    }

    /** Adds this idler's spins, yields and sleeps (futex sleeps and parks) to {@code into[0..2]}. */
    public void addCounts(final long[] into)
    {
        into[0] += spun;
        into[1] += yielded;
        into[2] += slept;
    }

    /** Work was done: start the next wait from the spinning phase. */
    public void reset()
    {
        count = 0;
        parkNs = PARK_MIN_NS;
    }

    /**
     * One idle step. In the last phase it sleeps on {@code word} unless {@code hasWork} says work
     * arrived after the sleep was announced.
     */
    public void idle(final WakeWord word, final BooleanSupplier hasWork)
    {
        if (count < spins)
        {
            count++;
            if (counting)
            {
                spun++;
            }
            Thread.onSpinWait();
        }
        else if (count < spins + yields)
        {
            count++;
            if (counting)
            {
                yielded++;
            }
            Thread.yield();
        }
        else
        {
            word.prepareSleep();
            if (!hasWork.getAsBoolean())
            {
                if (counting)
                {
                    slept++;
                }
                word.sleep(maxSleepNs);
            }
            word.awake();
        }
    }

    /**
     * One idle step when no one will wake us (e.g. waiting for space in a peer's ring): spin,
     * yield (longer than in the wakeable case), then park for exponentially longer naps up to
     * 200 µs.
     */
    public void idle()
    {
        if (count < spins)
        {
            count++;
            if (counting)
            {
                spun++;
            }
            Thread.onSpinWait();
        }
        else if (count < spins + yields + UNWOKEN_YIELDS)
        {
            count++;
            if (counting)
            {
                yielded++;
            }
            Thread.yield();
        }
        else
        {
            if (counting)
            {
                slept++;
            }
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(PARK_MAX_NS, parkNs * 2);
        }
    }
}
