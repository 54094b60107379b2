package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.FrameDescriptor.*;
import static org.shmpi.ring.RecvRequest.ANY_SOURCE;
import static org.shmpi.ring.RecvRequest.ANY_TAG;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/** The matching rules, fed frames by hand (no rings, no threads). */
class MatchingEngineTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int FRAME_INDEX = 64;
    private static final byte GUARD = (byte)0x5A;

    private final MatchingEngine engine = new MatchingEngine();
    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));

    private static byte[] message(final int length, final int seed)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = (byte)(i * 31 + seed * 7 + 1);
        }
        return b;
    }

    /** Writes one frame the way a sender does and hands it to the engine. */
    private void frame(final int context, final int source, final int tag, final int sequence, final byte[] msg,
        final int from, final int length)
    {
        ring.putInt(FRAME_INDEX + CONTEXT_OFFSET, context);
        ring.putInt(FRAME_INDEX + SOURCE_OFFSET, source);
        ring.putInt(FRAME_INDEX + TAG_OFFSET, tag);
        ring.putInt(FRAME_INDEX + SEQUENCE_OFFSET, sequence);
        ring.putLong(FRAME_INDEX + MESSAGE_LENGTH_OFFSET, msg.length);
        ring.putLong(FRAME_INDEX + FRAGMENT_OFFSET_OFFSET, from);
        ring.putBytes(FRAME_INDEX + HEADER_LENGTH, msg, from, length);
        engine.onData(ring, FRAME_INDEX, HEADER_LENGTH + length);
    }

    private void whole(final int context, final int source, final int tag, final int sequence, final byte[] msg)
    {
        frame(context, source, tag, sequence, msg, 0, msg.length);
    }

    private static RecvRequest recv(final int context, final int source, final int tag, final byte[] into)
    {
        return new RecvRequest(context, source, tag, into, BYTES, into.length);
    }

    @Test
    void postedReceiveTakesTheArrival()
    {
        final byte[] msg = message(100, 1);
        final byte[] into = new byte[100];
        final RecvRequest r = recv(0, 1, 5, into);
        engine.post(r);
        assertEquals(1, engine.postedCount());
        assertFalse(r.isComplete());
        whole(0, 1, 5, 0, msg);
        assertTrue(r.isComplete());
        assertEquals(0, engine.postedCount());
        assertEquals(0, engine.unexpectedCount());
        assertEquals(1, r.source());
        assertEquals(5, r.tag());
        assertEquals(100, r.messageLength());
        assertEquals(100, r.storedLength());
        assertFalse(r.isTruncated());
        assertArrayEquals(msg, into);
    }

    @Test
    void arrivalWithoutReceiveWaitsInTheUnexpectedQueue()
    {
        final byte[] msg = message(100, 2);
        whole(0, 1, 5, 0, msg);
        ring.setMemory(0, ring.capacity(), (byte)0);  // the ring slot is reused: the engine kept a copy
        assertEquals(1, engine.unexpectedCount());
        final byte[] into = new byte[100];
        final RecvRequest r = recv(0, ANY_SOURCE, ANY_TAG, into);
        engine.post(r);
        assertTrue(r.isComplete(), "completed at post time");
        assertEquals(0, engine.unexpectedCount());
        assertEquals(0, engine.postedCount());
        assertEquals(1, r.source());
        assertEquals(5, r.tag());
        assertArrayEquals(msg, into);
    }

    @Test
    void wildcardsMatchAnySourceAndTagButNeverAnotherContext()
    {
        final RecvRequest otherContext = recv(1, ANY_SOURCE, ANY_TAG, new byte[8]);
        final RecvRequest otherTag = recv(0, 2, 6, new byte[8]);
        final RecvRequest otherSource = recv(0, 3, ANY_TAG, new byte[8]);
        final RecvRequest anyTag = recv(0, 2, ANY_TAG, new byte[8]);
        engine.post(otherContext);
        engine.post(otherTag);
        engine.post(otherSource);
        engine.post(anyTag);
        whole(0, 2, 5, 0, message(8, 3));
        assertTrue(anyTag.isComplete());
        assertFalse(otherContext.isComplete());
        assertFalse(otherTag.isComplete());
        assertFalse(otherSource.isComplete());
        assertEquals(3, engine.postedCount());
    }

    @Test
    void theFirstPostedMatchingReceiveWins()
    {
        final RecvRequest first = recv(0, ANY_SOURCE, 7, new byte[8]);
        final RecvRequest second = recv(0, 4, 7, new byte[8]);
        engine.post(first);
        engine.post(second);
        whole(0, 4, 7, 0, message(8, 1));
        assertTrue(first.isComplete());
        assertFalse(second.isComplete());
        whole(0, 4, 7, 1, message(8, 2));
        assertTrue(second.isComplete());
    }

    @Test
    void aReceiveTakesTheOldestMatchingUnexpectedMessage()
    {
        whole(0, 1, 1, 0, message(8, 10));
        whole(0, 1, 2, 1, message(8, 11));
        whole(0, 1, 1, 2, message(8, 12));
        whole(9, 1, 1, 0, message(8, 13));
        assertEquals(4, engine.unexpectedCount());

        final byte[] a = new byte[8];
        engine.post(recv(0, 1, 2, a));
        assertArrayEquals(message(8, 11), a, "tag 2 skips the older tag-1 message");
        final byte[] b = new byte[8];
        engine.post(recv(0, ANY_SOURCE, ANY_TAG, b));
        assertArrayEquals(message(8, 10), b, "oldest first");
        final byte[] c = new byte[8];
        engine.post(recv(0, 1, ANY_TAG, c));
        assertArrayEquals(message(8, 12), c);
        final RecvRequest none = recv(0, ANY_SOURCE, ANY_TAG, new byte[8]);
        engine.post(none);
        assertFalse(none.isComplete(), "the context-9 message is not for context 0");
        assertEquals(1, engine.unexpectedCount());
        assertEquals(1, engine.postedCount());
    }

    @Test
    void fragmentsCompleteAPostedReceiveOnlyWhenAllHaveArrived()
    {
        final byte[] msg = message(1000, 5);
        final byte[] into = new byte[1000];
        final RecvRequest r = recv(0, 1, 0, into);
        engine.post(r);
        frame(0, 1, 0, 3, msg, 0, 400);
        assertFalse(r.isComplete());
        frame(0, 1, 0, 3, msg, 400, 400);
        assertFalse(r.isComplete());
        frame(0, 1, 0, 3, msg, 800, 200);
        assertTrue(r.isComplete());
        assertArrayEquals(msg, into);
    }

    @Test
    void receivePostedWhileAnUnexpectedMessageIsStillArrivingCompletesWithIt()
    {
        final byte[] msg = message(1000, 6);
        frame(0, 1, 0, 0, msg, 0, 400);
        assertEquals(1, engine.unexpectedCount());
        final byte[] into = new byte[1000];
        final RecvRequest r = recv(0, 1, 0, into);
        engine.post(r);
        assertFalse(r.isComplete(), "claimed, but fragments are missing");
        assertEquals(0, engine.unexpectedCount(), "a claimed message is no longer unexpected");
        assertEquals(1000, r.messageLength());
        frame(0, 1, 0, 0, msg, 400, 400);
        assertFalse(r.isComplete());
        frame(0, 1, 0, 0, msg, 800, 200);
        assertTrue(r.isComplete());
        assertArrayEquals(msg, into);
    }

    @Test
    void interleavedFragmentsOfTwoSendersWithTheSameSequenceStayApart()
    {
        final byte[] m1 = message(900, 1);
        final byte[] m2 = message(900, 2);
        final byte[] into1 = new byte[900];
        final byte[] into2 = new byte[900];
        final RecvRequest r1 = recv(0, 1, 0, into1);
        engine.post(r1);
        frame(0, 1, 0, 0, m1, 0, 300);
        frame(0, 2, 0, 0, m2, 0, 300);  // unexpected: no receive for source 2 yet
        frame(0, 2, 0, 0, m2, 300, 300);
        frame(0, 1, 0, 0, m1, 300, 300);
        final RecvRequest r2 = recv(0, 2, 0, into2);
        engine.post(r2);
        frame(0, 1, 0, 0, m1, 600, 300);
        assertTrue(r1.isComplete());
        assertFalse(r2.isComplete());
        frame(0, 2, 0, 0, m2, 600, 300);
        assertTrue(r2.isComplete());
        assertArrayEquals(m1, into1);
        assertArrayEquals(m2, into2);
    }

    /** Receive buffer: guards, then the region, then guards. */
    private static byte[] guarded(final int region)
    {
        final byte[] b = new byte[16 + region + 16];
        Arrays.fill(b, GUARD);
        return b;
    }

    private static void assertTruncatedInto(final byte[] msg, final byte[] buf, final int region)
    {
        for (int i = 0; i < 16; i++)
        {
            assertEquals(GUARD, buf[i], "guard before the region, byte " + i);
            assertEquals(GUARD, buf[16 + region + i], "guard after the region, byte " + i);
        }
        assertArrayEquals(Arrays.copyOf(msg, region), Arrays.copyOfRange(buf, 16, 16 + region));
    }

    @Test
    void truncatedPostedReceiveKeepsExactlyItsCapacity()
    {
        final byte[] msg = message(1000, 7);
        final byte[] buf = guarded(500);
        final RecvRequest r = new RecvRequest(0, 1, 0, buf, BYTES + 16, 500);
        engine.post(r);
        frame(0, 1, 0, 0, msg, 0, 400);
        frame(0, 1, 0, 0, msg, 400, 400);  // crosses the end of the region
        frame(0, 1, 0, 0, msg, 800, 200);  // entirely past it
        assertTrue(r.isComplete());
        assertTrue(r.isTruncated());
        assertEquals(1000, r.messageLength());
        assertEquals(500, r.storedLength());
        assertTruncatedInto(msg, buf, 500);
    }

    @Test
    void truncatedUnexpectedMessageKeepsExactlyItsCapacity()
    {
        final byte[] msg = message(1000, 8);
        frame(0, 1, 0, 0, msg, 0, 600);
        frame(0, 1, 0, 0, msg, 600, 400);
        final byte[] buf = guarded(333);
        final RecvRequest r = new RecvRequest(0, 1, 0, buf, BYTES + 16, 333);
        engine.post(r);
        assertTrue(r.isComplete());
        assertTrue(r.isTruncated());
        assertEquals(333, r.storedLength());
        assertTruncatedInto(msg, buf, 333);
    }

    @Test
    void truncatedReceiveClaimingAMessageStillArrivingKeepsExactlyItsCapacity()
    {
        final byte[] msg = message(1000, 9);
        frame(0, 1, 0, 0, msg, 0, 300);
        final byte[] buf = guarded(450);
        final RecvRequest r = new RecvRequest(0, 1, 0, buf, BYTES + 16, 450);
        engine.post(r);
        assertFalse(r.isComplete());
        frame(0, 1, 0, 0, msg, 300, 300);
        frame(0, 1, 0, 0, msg, 600, 400);
        assertTrue(r.isComplete());
        assertTrue(r.isTruncated());
        assertEquals(1000, r.messageLength());
        assertEquals(450, r.storedLength());
        assertTruncatedInto(msg, buf, 450);
    }

    @Test
    void zeroLengthMessagesCompleteOnBothPaths()
    {
        final RecvRequest posted = recv(0, 1, 0, new byte[0]);
        engine.post(posted);
        whole(0, 1, 0, 0, new byte[0]);
        assertTrue(posted.isComplete());
        assertEquals(0, posted.messageLength());

        whole(0, 1, 0, 1, new byte[0]);
        final RecvRequest late = recv(0, 1, 0, new byte[4]);
        engine.post(late);
        assertTrue(late.isComplete());
        assertEquals(0, late.storedLength());
        assertFalse(late.isTruncated());
    }

    @Test
    void receiveIntoOffHeapMemory()
    {
        final UnsafeBuffer target = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final byte[] msg = message(200, 9);
        final RecvRequest r = new RecvRequest(0, 1, 0, null, target.addressOffset() + 8, 200);
        engine.post(r);
        frame(0, 1, 0, 0, msg, 0, 120);
        frame(0, 1, 0, 0, msg, 120, 80);
        assertTrue(r.isComplete());
        final byte[] got = new byte[200];
        target.getBytes(8, got);
        assertArrayEquals(msg, got);
        assertEquals(0, target.getLong(0));
        assertEquals(0, target.getLong(208));
    }

    @Test
    void fragmentOfAnUnknownMessageIsAnInternalError()
    {
        final byte[] msg = message(1000, 1);
        final ShmpiException ex = assertThrows(ShmpiException.class, () -> frame(0, 1, 0, 9, msg, 400, 400));
        assertEquals(ErrorClass.ERR_INTERN, ex.errorClass());
        assertTrue(ex.getMessage().contains("source=1, sequence=9, offset=400"), ex.getMessage());
    }
}
