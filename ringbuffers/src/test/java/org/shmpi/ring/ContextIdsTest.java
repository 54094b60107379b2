package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Context ids (no constant anywhere: every rank allocating in the same order agrees) and
 * per-context matching queues.
 */
class ContextIdsTest
{
    @Test
    void ranksAllocatingInTheSameOrderGetTheSameIdsAndReleasedIdsAreReused()
    {
        final ContextIds a = new ContextIds();
        final ContextIds b = new ContextIds();
        for (int i = 0; i < 4; i++)
        {
            assertEquals(a.allocate(), b.allocate());
        }
        a.release(1);
        assertFalse(a.isUsed(1));
        assertEquals(1, a.allocate(), "the lowest free id is taken first");
        assertThrows(ShmpiException.class, () -> a.release(40), "releasing an unused id is a bug");
    }

    @Test
    void freeMasksAndedAcrossRanksGiveAnIdFreeOnAllOfThem()
    {
        final ContextIds a = new ContextIds();
        final ContextIds b = new ContextIds();
        a.allocate();
        a.allocate();
        b.allocate();
        b.reserve(2);
        final long agreed = a.freeMask(1)[0] & b.freeMask(1)[0];
        final int id = Long.numberOfTrailingZeros(agreed);
        assertEquals(3, id, "0 and 1 are used on a, 0 and 2 on b");
        a.reserve(id);
        b.reserve(id);
        assertTrue(a.isUsed(3) && b.isUsed(3));
        final ShmpiException used = assertThrows(ShmpiException.class, () -> a.reserve(3));
        assertEquals(ErrorClass.ERR_INTERN, used.errorClass());
        assertEquals(ErrorClass.ERR_ARG, assertThrows(ShmpiException.class, () -> a.reserve(-1)).errorClass());
    }

    @Test
    void messagesOfOneContextNeverMatchAnotherAndAReleasedContextLosesItsQueues()
    {
        final MatchingEngine matching = new MatchingEngine();
        final RecvRequest onOne = new RecvRequest(1, RecvRequest.ANY_SOURCE, RecvRequest.ANY_TAG, new byte[8],
            org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), 8);
        matching.post(onOne);
        final java.nio.ByteBuffer payload = java.nio.ByteBuffer.allocateDirect(8);
        matching.onWhole(2, 0, 5, org.agrona.BufferUtil.address(payload), 8);
        assertFalse(onOne.isComplete(), "a message on context 2 does not match a receive on context 1");
        assertEquals(1, matching.unexpectedCount());
        assertNull(matching.probe(1, RecvRequest.ANY_SOURCE, RecvRequest.ANY_TAG));
        assertEquals(5, matching.probe(2, 0, RecvRequest.ANY_TAG).tag());
        assertEquals(ErrorClass.ERR_PENDING,
            assertThrows(ShmpiException.class, () -> matching.releaseContext(2)).errorClass(),
            "a context with a waiting message cannot be released");
        assertEquals(5, matching.take(2, 0, 5).tag());
        matching.releaseContext(2);
        assertTrue(matching.cancel(onOne));
        matching.releaseContext(1);
        assertEquals(0, matching.contextCount());
    }
}
