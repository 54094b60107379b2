package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.shmpi.shm.BlockedCall.*;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.RankState;
import org.shmpi.shm.WaitRecord;

/** The verdict lines of the status report, exactly, for the shapes of waits it distinguishes. */
class WaitGraphTest
{
    private static final int I = RankState.INITIALIZED;
    private static final Map<Integer, String> NAMES = Map.of(
        0, "MPI_COMM_WORLD", 1, "MPI_COMM_WORLD (collectives)", 2, "MPI_COMM_SELF", 3, "MPI_COMM_SELF (collectives)");

    private static WaitRecord recv(final int peer, final int tag)
    {
        return new WaitRecord(2, RECV, ON_RECV, peer, tag, 0, 4, 0);
    }

    private static WaitRecord call(final int call, final int on, final int peer, final int tag, final int context)
    {
        return new WaitRecord(2, call, on, peer, tag, context, 0, 0);
    }

    private static String verdict(final int[] states, final WaitRecord... waits)
    {
        return new WaitGraph(states, waits, NAMES).verdict();
    }

    @Test
    void headToHeadReceivesAreADeadlockCycle()
    {
        assertEquals("deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)",
            verdict(new int[] {I, I}, recv(1, 7), recv(0, 7)));
    }

    @Test
    void aCycleIsPrintedFromItsLowestRankAlongTheWaits()
    {
        // 3 waits for 1 is outside the cycle 0 -> 2 -> 1 -> 0.
        assertEquals("deadlock: rank 0 ssend to 2 (tag 4) <- rank 2 recv from 1 (any tag) " +
            "<- rank 1 recv from 0 (tag 1)",
            verdict(new int[] {I, I, I, I}, call(SSEND, ON_SEND, 2, 4, 0), recv(0, 1), recv(1, ANY_TAG), recv(1, 9)));
    }

    @Test
    void aMissingSendMeetsFinalize()
    {
        assertEquals("deadlock: rank 0 recv from 1 (tag 5) <- rank 1 finalize (waits for 0)",
            verdict(new int[] {I, I}, recv(1, 5), call(FINALIZE, ON_RECV, 0, 0, 1)));
    }

    @Test
    void aSkippedBarrierShowsTheBarrierAndTheReceiveInsteadOfIt()
    {
        assertEquals("deadlock: rank 0 barrier (waits for 2) <- rank 2 recv from 0 (tag 1)",
            verdict(new int[] {I, I, I}, call(BARRIER, ON_RECV, 2, 0, 1), call(BARRIER, ON_RECV, 2, 1, 1), recv(0, 1)));
    }

    @Test
    void waitsOnRequestsNameTheOperationAndItsCommunicator()
    {
        assertEquals("deadlock: rank 0 waitall (send to 1, tag 3) <- rank 1 wait (recv from 0, tag 8) on MPI_COMM_SELF",
            verdict(new int[] {I, I}, call(WAITALL, ON_SEND, 1, 3, 0), call(WAIT, ON_RECV, 0, 8, 2)));
        assertEquals("deadlock: rank 0 probe from 1 (tag 2) on context 9 <- rank 1 sendrecv (recv from 0, any tag)",
            verdict(new int[] {I, I}, call(PROBE, ON_MESSAGE, 1, 2, 9), call(SENDRECV, ON_RECV, 0, ANY_TAG, 0)));
    }

    @Test
    void waitingOnAFinishedRankIsStuck()
    {
        assertEquals("stuck: rank 1 recv from 2 (tag 5) <- rank 2 has finalized",
            verdict(new int[] {RankState.FINALIZED, I, RankState.FINALIZED}, null, recv(2, 5), null));
        assertEquals("stuck: rank 0 recv from 1 (tag 5) <- rank 1 has failed",
            verdict(new int[] {I, RankState.FAILED}, recv(1, 5), null));
    }

    @Test
    void everyRankBlockedWithoutANamedCycleIsADeadlock()
    {
        assertEquals("deadlock: every rank is blocked: rank 0 recv from any (tag 3), rank 1 recv from any (tag 3)",
            verdict(new int[] {I, I}, recv(ANY_PEER, 3), recv(ANY_PEER, 3)));
        assertEquals("deadlock: every rank is blocked: rank 0 buffer detach, rank 1 recv from any (any tag)",
            verdict(new int[] {I, I}, call(BUFFER_DETACH, ON_OTHER, NO_PEER, 0, -1), recv(ANY_PEER, ANY_TAG)));
    }

    @Test
    void aRankBusyOutsideMpiIsNoDeadlock()
    {
        assertEquals("no deadlock found: rank 0 recv from 1 (tag 2) <- rank 1 is running outside MPI",
            verdict(new int[] {I, I}, recv(1, 2), null));
        assertEquals("no deadlock found: ranks 0, 1 are not blocked in MPI",
            verdict(new int[] {I, I, I}, null, null, recv(ANY_PEER, 2)));
        assertEquals("no deadlock: no rank is blocked in MPI", verdict(new int[] {I, I}, null, null));
    }
}
