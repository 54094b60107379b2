package org.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.shmpi.junit.MpiAssert;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

class RingTest
{
    /** Each rank passes its number to the next; every rank checks what came from the previous one. */
    @MpiTest(np = {1, 2, 4})
    void ring()
    {
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int[] got = new int[1];
        MPI.COMM_WORLD.sendRecv(new int[] {rank}, 1, MPI.INT, (rank + 1) % size, 0,
            got, 1, MPI.INT, (rank + size - 1) % size, 0);
        assertEquals((rank + size - 1) % size, got[0]);
    }

    /** A collective check: if it fails on one rank, it fails on all, and no rank is left waiting. */
    @MpiTest(np = 4, timeout = 30)
    void everyRankSeesTheSameWorld()
    {
        MpiAssert.assertSameOnAllRanks(MPI.COMM_WORLD.getSize());
        MpiAssert.assertEqualsByRank(r -> r, MPI.COMM_WORLD.getRank());
    }
}
