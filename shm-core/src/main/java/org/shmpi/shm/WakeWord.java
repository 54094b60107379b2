package org.shmpi.shm;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A 32-bit word in shared memory on which a consumer sleeps and producers wake it. The
 * protocol is Dekker-style, with a full fence on each side:
 * <ol>
 * <li>consumer: {@link #prepareSleep()} stores SLEEPING (volatile), then re-checks its queue;
 *     only if it is still empty does it call {@link #sleep(long)}, then {@link #awake()};</li>
 * <li>producer: publishes its data (release), then {@link #wakeIfSleeping()}: full fence, load
 *     the word, and if SLEEPING, CAS it to AWAKE and issue a futex wake.</li>
 * </ol>
 * Either the consumer's re-check sees the data, or the producer's load sees SLEEPING. With
 * several threads sleeping on one word a wake-up can be missed; the sleep timeout bounds it.
 */
public final class WakeWord
{
    /**
     * Wake-ups this process sent to sleeping consumers (futex wake calls), for the job report;
     * counted next to the system call, so it costs nothing measurable. Racy under threads.
     */
    private static long wakeups;

    public static final int AWAKE = 0;
    public static final int SLEEPING = 1;

    private final AtomicBuffer buffer;
    private final int offset;
    private final long address;
    private final Futex futex;

    public WakeWord(final AtomicBuffer buffer, final int offset, final Futex futex)
    {
        if ((offset & 3) != 0)
        {
            throw new IllegalArgumentException("wake word must be 4-byte aligned: offset=" + offset);
        }
        this.buffer = buffer;
        this.offset = offset;
        this.address = buffer.addressOffset() + offset;
        this.futex = futex;
    }

    /** Consumer: announce the intent to sleep (volatile store, ordered before later loads). */
    public void prepareSleep()
    {
        buffer.putIntVolatile(offset, SLEEPING);
    }

    /** Consumer: sleep while the word is SLEEPING, for at most {@code timeoutNs}. */
    public void sleep(final long timeoutNs)
    {
        futex.await(address, SLEEPING, timeoutNs);
    }

    /** Consumer: back to AWAKE after sleeping or after deciding not to (release). */
    public void awake()
    {
        buffer.putIntRelease(offset, AWAKE);
    }

    /** Producer: after publishing, wake the consumer if it sleeps. */
    public void wakeIfSleeping()
    {
        // StoreLoad: the producer's release of its data must be ordered before this load.
        UnsafeApi.fullFence();
        if (buffer.getIntVolatile(offset) == SLEEPING && buffer.compareAndSetInt(offset, SLEEPING, AWAKE))
        {
            futex.wake(address, Integer.MAX_VALUE);
            wakeups++;
        }
    }

    /**
     * Producer: as {@link #wakeIfSleeping()}, for a producer whose publication began with a
     * volatile read-modify-write of the very word the consumer re-checks after announcing sleep
     * (a ring's tail, CAS'd by the claim). That CAS and the volatile load of this word are both
     * in the synchronization order, as are the consumer's volatile store of SLEEPING and its
     * volatile load of the tail: either the consumer sees the tail moved and does not sleep, or
     * this load sees SLEEPING. No extra fence is needed.
     */
    public void wakeIfSleepingAfterClaim()
    {
        if (buffer.getIntVolatile(offset) == SLEEPING && buffer.compareAndSetInt(offset, SLEEPING, AWAKE))
        {
            futex.wake(address, Integer.MAX_VALUE);
            wakeups++;
        }
    }

    /**
     * Producer: as {@link #wakeIfSleeping()} for a producer that has just issued a full fence
     * itself after publishing (one fence for several words to wake).
     */
    public void wakeIfSleepingAfterFence()
    {
        if (buffer.getIntVolatile(offset) == SLEEPING && buffer.compareAndSetInt(offset, SLEEPING, AWAKE))
        {
            futex.wake(address, Integer.MAX_VALUE);
            wakeups++;
        }
    }

    /** Whether the consumer announced it sleeps (volatile load; for tests and diagnostics). */
    public boolean isSleeping()
    {
        return buffer.getIntVolatile(offset) == SLEEPING;
    }

    /** Wake-ups this process sent to sleeping consumers so far. */
    public static long wakeupsSent()
    {
        return wakeups;
    }
}
