package org.shmpi.junit.samples;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiAssert;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/** The collective checks of MpiAssert, holding and failing. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
public class MpiAssertSample
{
    @MpiTest(np = {1, 3})
    void holdEverywhere()
    {
        final int rank = MPI.COMM_WORLD.getRank();
        MpiAssert.assertSameOnAllRanks(new int[] {MPI.COMM_WORLD.getSize(), 7});
        MpiAssert.assertEqualsByRank(r -> r * 2, rank * 2);
        MpiAssert.assertTrue(MpiAssert.rank() == rank, "rank()");
        MpiAssert.onRank(0, () -> MpiAssert.class.getName().length());
        MpiAssert.assertEquals(MPI.COMM_WORLD.getSize(), MpiAssert.size(), "size()");
    }

    @MpiTest(np = 3)
    void notTheSameOnRankOne()
    {
        MpiAssert.assertSameOnAllRanks(MPI.COMM_WORLD.getRank() == 1 ? "x" : "y");
    }

    @MpiTest(np = 3)
    void onRankFailsThere()
    {
        MpiAssert.onRank(1, () -> fail("only on rank one"));
        // Not reached on any rank: every rank left the check with a failure.
        MPI.COMM_WORLD.barrier();
    }

    @MpiTest(np = 3)
    void byRankFailsOnTheLastRank()
    {
        final int rank = MPI.COMM_WORLD.getRank();
        MpiAssert.assertEqualsByRank(r -> r, rank == 2 ? 9 : rank);
    }
}
