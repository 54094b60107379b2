package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.DoubleBuffer;

import mpi.Intracomm;
import mpi.MPI;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

/**
 * The steady state of a small blocking collective allocates nothing in the calling thread:
 * barrier, and bcast, reduce and allReduce of 8 bytes, on arrays and on direct buffers, through
 * the public API on real rank JVMs (np 3 is more ranks than cores here: the waits sleep). The
 * forbidden outcome is allocation per call — one object per call is at least 16 bytes times
 * 4 x 4,000 calls; what may remain is a one-time lazy allocation (the first futex sleep of a
 * thread makes its timespec buffer; reading the counter itself costs 816 bytes), hence a bound of
 * 2,000 bytes rather than 0. The warm-up is long because the tiers arrive late: counted in windows
 * of 3,000 rounds, the second window allocates ~750 KB (interpreted and C1 code), the third up to
 * 4 KB, every later one nothing beyond the counter read (np 2 and 3, 2 cores). As the
 * point-to-point {@code AllocationTest}, with HotSpot's exact per-thread allocation counter.
 */
@MpiTest(np = {2, 3})
class CollectiveAllocationTest
{
    private static final int WARM_UP = 12_000;
    private static final int MEASURED = 4_000;
    private static final long ONE_TIME_BYTES = 2_000;

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void smallBlockingCollectivesAllocateNothing()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int me = world.getRank();
        final int n = world.getSize();
        final double[] one = new double[1];
        final double[] sum = new double[1];
        final long[] token = new long[1];
        final DoubleBuffer direct = MPI.newDoubleBuffer(1);
        final DoubleBuffer directSum = MPI.newDoubleBuffer(1);
        long before = 0;
        for (int i = 0; i < WARM_UP + MEASURED; i++)
        {
            if (i == WARM_UP)
            {
                before = allocatedBytes();
            }
            world.barrier();
            one[0] = me + i;
            world.allReduce(one, sum, 1, MPI.DOUBLE, MPI.SUM);
            if (sum[0] != n * (double)i + n * (n - 1) / 2.0)
            {
                throw new AssertionError("allReduce at " + i + ": " + sum[0]);
            }
            direct.put(0, me);
            world.allReduce(direct, directSum, 1, MPI.DOUBLE, MPI.MAX);
            token[0] = me == i % n ? i : -1;
            world.bcast(token, 1, MPI.LONG, i % n);
            if (token[0] != i)
            {
                throw new AssertionError("bcast at " + i + ": " + token[0]);
            }
            world.reduce(one, sum, 1, MPI.DOUBLE, MPI.MIN, 0);
        }
        final long allocated = allocatedBytes() - before;
        assertEquals(n - 1, directSum.get(0), 0.0);
        assertTrue(allocated < ONE_TIME_BYTES, "rank " + me + " allocated " + allocated + " bytes over " + MEASURED +
            " rounds of barrier, allReduce (array and direct), bcast and reduce");
    }
}
