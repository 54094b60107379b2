package org.shmpi.junit.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiAssert;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/** Passing, failing and skipped multi-rank tests, run by {@code MpiExtensionTest} through the JUnit testkit. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
public class BasicsSample
{
    private int rank;
    private int size;

    @BeforeEach
    void setUp()
    {
        rank = MPI.COMM_WORLD.getRank();
        size = MPI.COMM_WORLD.getSize();
    }

    @AfterEach
    void tearDown()
    {
        // Runs on the ranks, after the body: a rank left with a message in flight would fail here.
        assertEquals(null, MPI.COMM_WORLD.iProbe(MPI.ANY_SOURCE, 77), "message left on tag 77");
    }

    /** Every rank sends its rank to the next; runs at 1, 2 and 3 ranks. */
    @MpiTest(np = {1, 2, 3})
    void ring()
    {
        final int[] got = new int[1];
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        MPI.COMM_WORLD.sendRecv(new int[] {rank}, 1, MPI.INT, next, 77, got, 1, MPI.INT, prev, 77);
        MpiAssert.assertEqualsByRank(r -> (r + size - 1) % size, got[0]);
    }

    @MpiTest(np = 3)
    void failsOnRankOne()
    {
        System.out.println("rank " + rank + " says hello");
        if (rank == 1)
        {
            assertEquals(1, 2, "rank one's own check");
        }
    }

    @MpiTest(np = 2)
    void failsOnEveryRank()
    {
        fail("boom on rank " + rank);
    }

    /** The check fails on rank 2 only; every rank leaves it, none waits for rank 2. */
    @MpiTest(np = 3)
    void collectiveAssertFailsOnOneRank()
    {
        MpiAssert.assertEquals(0, rank == 2 ? 5 : 0, "value on this rank");
        MPI.COMM_WORLD.barrier();
    }

    /** Rank 1 fails while rank 0 waits for a message from it: rank 0 is stopped after the grace time. */
    @MpiTest(np = 2)
    void failsWhileTheOtherWaits()
    {
        if (rank == 1)
        {
            throw new IllegalStateException("rank one gives up");
        }
        MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, 1, 5);
    }

    @MpiTest(np = 2)
    void assumptionFails()
    {
        assumeTrue(false, "not on this machine");
    }

    /** Skipped at np=64 when the cap is lower. */
    @MpiTest(np = {1, 64})
    void capped()
    {
        MPI.COMM_WORLD.barrier();
    }
}
