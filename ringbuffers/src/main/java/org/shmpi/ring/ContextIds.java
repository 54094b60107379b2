package org.shmpi.ring;

import java.util.BitSet;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * The context ids in use on this rank. A communicator takes two (one for point-to-point, one for
 * its collectives), so traffic of different communicators, and a communicator's collectives and
 * its user messages, never match each other. Nothing hard-codes an id: the predefined
 * communicators take theirs from here at start-up, in the same order on every rank, which gives
 * every rank the same ids; communicators made later agree on an id that is free on all their
 * members ({@link #freeMask}, {@link #reserve}). Thread-safe.
 */
public final class ContextIds
{
    /** Context ids are carried in a 32-bit frame field; this bounds the bitmap's growth. */
    public static final int MAX_ID = (1 << 24) - 1;

    private final BitSet used = new BitSet();

    /** Takes the lowest free id. Ranks that allocate in the same order get the same ids. */
    public synchronized int allocate()
    {
        final int id = used.nextClearBit(0);
        if (id > MAX_ID)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "out of context ids: max=" + MAX_ID);
        }
        used.set(id);
        return id;
    }

    /** Takes a specific id (one the members of a new communicator agreed on). */
    public synchronized void reserve(final int id)
    {
        if (id < 0 || id > MAX_ID)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "context id out of range: id=" + id + ", max=" + MAX_ID);
        }
        if (used.get(id))
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "context id already in use: id=" + id);
        }
        used.set(id);
    }

    /** Gives an id back. */
    public synchronized void release(final int id)
    {
        if (!used.get(id))
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "context id not in use: id=" + id);
        }
        used.clear(id);
    }

    public synchronized boolean isUsed(final int id)
    {
        return used.get(id);
    }

    /**
     * Which of the ids {@code [0, 64 * words)} are free here, one bit per id: ranks AND their
     * masks (an allreduce) to find ids free on all of them.
     */
    public synchronized long[] freeMask(final int words)
    {
        final long[] mask = new long[words];
        final long[] u = used.toLongArray();
        for (int i = 0; i < words; i++)
        {
            mask[i] = ~(i < u.length ? u[i] : 0L);
        }
        return mask;
    }
}
