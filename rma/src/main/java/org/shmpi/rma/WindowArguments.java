package org.shmpi.rma;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Checks of the arguments of window calls, each raising the MPI error class that names the
 * mistake, before any byte moves or any word of the window changes.
 */
final class WindowArguments
{
    private WindowArguments()
    {
    }

    /** {@code MPI_ERR_SIZE} for a negative size, {@code MPI_ERR_DISP} for a displacement unit below 1. */
    static void checkSizes(final long bytes, final int dispUnit)
    {
        if (bytes < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_SIZE, "negative window size: " + bytes + " bytes");
        }
        if (dispUnit <= 0)
        {
            throw new ShmpiException(ErrorClass.ERR_DISP, "displacement unit must be positive: " + dispUnit);
        }
    }

    /** {@code MPI_ERR_RANK} unless {@code rank} is a rank of a window of {@code n} members. */
    static void checkRank(final int rank, final int n)
    {
        if (rank < 0 || rank >= n)
        {
            throw new ShmpiException(ErrorClass.ERR_RANK, "not a rank of the window: " + rank + " (size " + n + ")");
        }
    }

    /** {@code MPI_ERR_GROUP} unless {@code ranks} are at most {@code n} ranks of the window. */
    static void checkGroup(final int[] ranks, final int n)
    {
        if (ranks.length > n)
        {
            throw new ShmpiException(ErrorClass.ERR_GROUP, "group of " + ranks.length + " in a window of " + n);
        }
        for (final int r : ranks)
        {
            if (r < 0 || r >= n)
            {
                throw new ShmpiException(ErrorClass.ERR_GROUP, "group has a process outside the window: rank " + r);
            }
        }
    }

    /** {@code MPI_ERR_ASSERT} when {@code assertion} has a bit outside {@code allowed}. */
    static void checkAssertion(final int assertion, final int allowed, final String call)
    {
        if ((assertion & ~allowed) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ASSERT, call + ": assertion " + assertion + " has bits that " +
                call + " does not take (allowed: " + allowed + ")");
        }
    }
}
