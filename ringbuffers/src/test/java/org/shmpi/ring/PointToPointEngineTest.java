package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.RecvRequest.ANY_SOURCE;
import static org.shmpi.ring.RecvRequest.ANY_TAG;

import java.io.IOException;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Point-to-point semantics with every rank a thread of this JVM over one job directory in
 * /dev/shm. Each test body runs in several configurations (STYLE rule 7): world sizes 1, 2
 * and 4 (more rank threads than the two cores here, so ranks really sleep and wake), and rings
 * of 64 KiB (every large message is fragmented and meets back-pressure) and 1 MiB. Bodies that
 * need two distinct ranks run on pairs (0,1), (2,3): at world size 4 both pairs run at once.
 */
class PointToPointEngineTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int[] SIZES = {0, 1, 7, 4096, 65536, MIB, 8 * MIB};
    private static final long RUN_SECONDS = 60;
    private static final byte GUARD = (byte)0xA5;

    private ThreadedJob job;

    @AfterEach
    void removeJob() throws IOException
    {
        ThreadedJob.closeAndCheckRemoved(job);
    }

    static Stream<Arguments> configs()
    {
        return IntStream.of(1, 2, 4).boxed()
            .flatMap(n -> IntStream.of(64 * KIB, MIB).mapToObj(cap -> Arguments.of(n, cap)));
    }

    static Stream<Arguments> pairConfigs()
    {
        return configs().filter(a -> (Integer)a.get()[0] >= 2);
    }

    private ThreadedJob start(final TestInfo info, final int worldSize, final int capacity) throws IOException
    {
        job = ThreadedJob.start(info.getTestMethod().orElseThrow().getName() + "-n" + worldSize + "-c" + capacity,
            worldSize, capacity);
        return job;
    }

    /** Largest payload of one frame in a ring of {@code capacity}, as the engine computes it. */
    private static int maxPayload(final int capacity)
    {
        return (capacity / 8 - FrameDescriptor.HEADER_LENGTH) & ~7;
    }

    // ---- payloads -------------------------------------------------------------------------

    /** Deterministic bytes for a message, different for every seed. */
    static byte[] pattern(final int length, final long seed)
    {
        final byte[] b = new byte[length];
        long x = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        for (int i = 0; i < length; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte)x;
        }
        return b;
    }

    private static long seed(final int source, final int dest, final int tag, final int index)
    {
        return ((long)source << 48) ^ ((long)dest << 32) ^ ((long)tag << 16) ^ index;
    }

    private static void send(final PointToPointEngine e, final int ctx, final int dest, final int tag, final byte[] msg)
    {
        e.send(ctx, dest, tag, msg, BYTES, msg.length);
    }

    /** A standard-mode send that does not wait: large messages are sent only once matched. */
    private static SendRequest isend(
        final PointToPointEngine e, final int ctx, final int dest, final int tag, final byte[] msg)
    {
        return e.isend(ctx, dest, tag, msg, BYTES, msg.length, SendRequest.MODE_STANDARD);
    }

    /** Fails unless {@code got[offset, offset + expected.length)} equals {@code expected}. */
    private static void assertBytes(final byte[] expected, final byte[] got, final int offset, final String what)
    {
        final int at = Arrays.mismatch(expected, 0, expected.length, got, offset, offset + expected.length);
        if (at >= 0)
        {
            throw new AssertionError(what + ": first differing byte at " + at + " of " + expected.length);
        }
    }

    private static void assertGuards(final byte[] buf, final int from, final int to, final String what)
    {
        for (int i = from; i < to; i++)
        {
            if (buf[i] != GUARD)
            {
                throw new AssertionError(what + ": guard byte " + i + " overwritten");
            }
        }
    }

    private static byte[] guarded(final int length)
    {
        final byte[] b = new byte[length];
        Arrays.fill(b, GUARD);
        return b;
    }

    private static void assertMatched(final RecvRequest r, final int source, final int tag, final long length)
    {
        assertTrue(r.isComplete());
        assertEquals(source, r.source(), "source");
        assertEquals(tag, r.tag(), "tag");
        assertEquals(length, r.messageLength(), "length");
    }

    private static long getLong(final byte[] b, final int index)
    {
        return new UnsafeBuffer(b).getLong(index);
    }

    private static byte[] longMessage(final long value, final int length)
    {
        final byte[] b = new byte[length];
        new UnsafeBuffer(b).putLong(0, value);
        return b;
    }

    // ---- tests ----------------------------------------------------------------------------

    /** A token goes round the ring of ranks; each adds one. */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("configs")
    @Timeout(90)
    void tokenPassesRoundTheRing(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final int laps = 50;
        start(info, n, capacity).runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int next = (rank + 1) % n;
            final int prev = (rank + n - 1) % n;
            final byte[] in = new byte[8];
            long token = 0;
            for (int lap = 0; lap < laps; lap++)
            {
                if (rank == 0)
                {
                    send(e, 0, next, lap, longMessage(token + 1, 8));
                }
                final RecvRequest r = e.recv(0, prev, lap, in, BYTES, 8);
                assertMatched(r, prev, lap, 8);
                token = getLong(in, 0);
                if (rank != 0)
                {
                    send(e, 0, next, lap, longMessage(token + 1, 8));
                }
            }
            if (rank == 0)
            {
                assertEquals((long)laps * n, token, "every rank added one on every lap");
            }
            else
            {
                assertEquals((long)(laps - 1) * n + rank, token);
            }
        });
    }

    /**
     * Every size from empty to 8 MiB arrives intact at an offset inside a larger array, with
     * nothing written past it; each rank sends to the next and receives from the previous.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("configs")
    @Timeout(90)
    void everySizeArrivesByteForByte(final int n, final int capacity, final TestInfo info) throws Exception
    {
        start(info, n, capacity).runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int next = (rank + 1) % n;
            final int prev = (rank + n - 1) % n;
            for (int i = 0; i < SIZES.length; i++)
            {
                final int size = SIZES[i];
                // Everyone sends first: a blocking send of a large message would wait for a match.
                final SendRequest s = isend(e, 0, next, i, pattern(size, seed(rank, next, i, size)));
                final byte[] in = guarded(8 + size + 64);
                final RecvRequest r = e.recv(0, prev, i, in, BYTES + 8, size);
                e.await(s);
                assertMatched(r, prev, i, size);
                assertFalse(r.isTruncated());
                assertEquals(size, r.storedLength());
                assertBytes(pattern(size, seed(prev, rank, i, size)), in, 8, "size " + size);
                assertGuards(in, 0, 8, "size " + size);
                assertGuards(in, 8 + size, in.length, "size " + size);
            }
        });
    }

    /**
     * Non-overtaking: 1000 messages of one sender, mixed small and multi-fragment sizes and
     * several tags, received with ANY_TAG, come in send order.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("configs")
    @Timeout(90)
    void messagesOfOneSenderDoNotOvertake(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final int count = 1000;
        final int big = 2 * maxPayload(capacity) + 13;  // three fragments
        final int sender = n - 1;
        final int receiver = 0;
        start(info, n, capacity).runEngines(RUN_SECONDS, e ->
        {
            final java.util.List<SendRequest> sends = new java.util.ArrayList<>();
            if (e.rank() == sender)
            {
                for (int i = 0; i < count; i++)
                {
                    final int size = i % 50 == 7 ? big : 4 + (i * 37) % 200;
                    final byte[] msg = pattern(size, i);
                    new UnsafeBuffer(msg).putInt(0, i);
                    sends.add(isend(e, 0, receiver, i % 5, msg));
                }
            }
            if (e.rank() == receiver)
            {
                final byte[] in = new byte[big];
                for (int i = 0; i < count; i++)
                {
                    final RecvRequest r = e.recv(0, sender, ANY_TAG, in, BYTES, in.length);
                    final int seq = new UnsafeBuffer(in).getInt(0);
                    assertEquals(i, seq, "message overtaken");
                    final int size = i % 50 == 7 ? big : 4 + (i * 37) % 200;
                    assertMatched(r, sender, i % 5, size);
                    final byte[] expected = pattern(size, i);
                    new UnsafeBuffer(expected).putInt(0, i);
                    assertBytes(expected, in, 0, "message " + i);
                }
            }
            e.awaitUntil(() -> sends.stream().allMatch(SendRequest::isComplete));
        });
    }

    /**
     * ANY_SOURCE from every other rank (three senders at world size 4; the rank itself when
     * alone): every message arrives exactly once, each sender's in its send order.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("configs")
    @Timeout(90)
    void anySourceReceivesEverythingOnceInPerSenderOrder(final int n, final int capacity, final TestInfo info)
        throws Exception
    {
        final int perSender = 300;
        final int big = maxPayload(capacity) + 100;  // two fragments
        final int[] senders = n == 1 ? new int[] {0} : IntStream.range(1, n).toArray();
        start(info, n, capacity).runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final java.util.List<SendRequest> sends = new java.util.ArrayList<>();
            if (Arrays.stream(senders).anyMatch(s -> s == rank))
            {
                for (int i = 0; i < perSender; i++)
                {
                    final byte[] msg = pattern(anySourceSize(i, big), seed(rank, 0, 0, i));
                    final UnsafeBuffer b = new UnsafeBuffer(msg);
                    b.putInt(0, rank);
                    b.putInt(4, i);
                    sends.add(isend(e, 0, 0, i % 3, msg));
                }
            }
            if (rank == 0)
            {
                final int[] next = new int[n];
                final byte[] in = new byte[big];
                final UnsafeBuffer view = new UnsafeBuffer(in);
                for (int k = 0; k < perSender * senders.length; k++)
                {
                    final RecvRequest r = e.recv(0, ANY_SOURCE, ANY_TAG, in, BYTES, in.length);
                    final int source = view.getInt(0);
                    final int i = view.getInt(4);
                    assertEquals(r.source(), source, "matched source vs payload");
                    assertEquals(next[source], i, "order from source " + source);
                    next[source]++;
                    assertMatched(r, source, i % 3, anySourceSize(i, big));
                    final byte[] expected = pattern(anySourceSize(i, big), seed(source, 0, 0, i));
                    final UnsafeBuffer x = new UnsafeBuffer(expected);
                    x.putInt(0, source);
                    x.putInt(4, i);
                    assertBytes(expected, in, 0, "message " + i + " of " + source);
                }
                for (final int s : senders)
                {
                    assertEquals(perSender, next[s], "all from " + s);
                }
            }
            e.awaitUntil(() -> sends.stream().allMatch(SendRequest::isComplete));
        });
        if (n == 4)
        {
            assertEquals(3, senders.length);
        }
    }

    private static int anySourceSize(final int i, final int big)
    {
        return i % 37 == 5 ? big : 8 + (i * 13) % 120;
    }

    /**
     * Both orders of arrival and receive: posted before arrival (small and multi-fragment),
     * arrival before posted (the unexpected queue), and a multi-fragment message whose receive
     * is posted while its fragments are still arriving.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("pairConfigs")
    @Timeout(90)
    void postedAndUnexpectedReceivesBothWork(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final int small = 100;
        final int multi = 3 * maxPayload(capacity) + 5;
        // More fragments than one duty cycle reads (64): it cannot be complete when first seen.
        final int huge = 128 * maxPayload(capacity) + 1;
        final ThreadedJob j = start(info, n, capacity);
        j.runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int peer = rank ^ 1;
            if (rank % 2 == 0)
            {
                // Sender.
                j.awaitSignal(e, peer, 1);
                send(e, 0, peer, 1, pattern(small, seed(rank, peer, 1, 0)));
                j.awaitSignal(e, peer, 2);
                send(e, 0, peer, 2, pattern(multi, seed(rank, peer, 2, 0)));
                send(e, 0, peer, 3, pattern(small, seed(rank, peer, 3, 0)));
                j.signal(rank, 3);
                j.awaitSignal(e, peer, 4);
                send(e, 0, peer, 4, pattern(huge, seed(rank, peer, 4, 0)));
                send(e, 0, peer, 5, pattern(small, seed(rank, peer, 5, 0)));
                return;
            }
            final MatchingEngine m = e.matching();

            // 1. Posted before arrival, one frame.
            final byte[] in1 = new byte[small];
            final RecvRequest r1 = new RecvRequest(0, peer, 1, in1, BYTES, small);
            e.post(r1);
            assertFalse(r1.isComplete());
            assertEquals(1, m.postedCount());
            j.signal(rank, 1);
            e.await(r1);
            assertMatched(r1, peer, 1, small);
            assertBytes(pattern(small, seed(peer, rank, 1, 0)), in1, 0, "posted small");

            // 2. Posted before arrival, several fragments.
            final byte[] in2 = new byte[multi];
            final RecvRequest r2 = new RecvRequest(0, peer, 2, in2, BYTES, multi);
            e.post(r2);
            j.signal(rank, 2);
            e.await(r2);
            assertMatched(r2, peer, 2, multi);
            assertBytes(pattern(multi, seed(peer, rank, 2, 0)), in2, 0, "posted multi-fragment");

            // 3. Arrival before posted.
            j.awaitSignal(e, peer, 3);
            j.progressUntil(e, () -> m.unexpectedCount() == 1);
            assertEquals(0, m.postedCount());
            final byte[] in3 = new byte[small];
            final RecvRequest r3 = new RecvRequest(0, peer, 3, in3, BYTES, small);
            e.post(r3);
            assertTrue(r3.isComplete(), "an unexpected message completes the receive at post time");
            assertEquals(0, m.unexpectedCount());
            assertMatched(r3, peer, 3, small);
            assertBytes(pattern(small, seed(peer, rank, 3, 0)), in3, 0, "unexpected small");

            // 4. Posted while the fragments are still arriving.
            j.signal(rank, 4);
            j.progressUntil(e, () -> m.unexpectedCount() == 1);
            final byte[] in4 = new byte[huge];
            final RecvRequest r4 = new RecvRequest(0, peer, 4, in4, BYTES, huge);
            e.post(r4);
            assertFalse(r4.isComplete(), "the receive was posted after the first fragment, before the last");
            assertEquals(0, m.unexpectedCount(), "claimed by the receive");
            assertEquals(0, m.postedCount());
            e.await(r4);
            assertMatched(r4, peer, 4, huge);
            assertBytes(pattern(huge, seed(peer, rank, 4, 0)), in4, 0, "claimed while arriving");

            // 5. The channel is still in order afterwards.
            final byte[] in5 = new byte[small];
            assertMatched(e.recv(0, peer, ANY_TAG, in5, BYTES, small), peer, 5, small);
            assertBytes(pattern(small, seed(peer, rank, 5, 0)), in5, 0, "after");
        });
    }

    /**
     * A message larger than the receive stores exactly the receive's capacity, writes nothing
     * past it, reports truncation, and the next message on the same channel is intact. Both for
     * a receive posted before the (multi-fragment) message arrives and for an unexpected one.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("pairConfigs")
    @Timeout(90)
    void truncationStoresExactlyTheCapacity(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final int big = 3 * maxPayload(capacity) + 5;
        final int room = 1000;
        final int next = 500;
        final ThreadedJob j = start(info, n, capacity);
        j.runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int peer = rank ^ 1;
            if (rank % 2 == 0)
            {
                j.awaitSignal(e, peer, 1);
                send(e, 0, peer, 1, pattern(big, seed(rank, peer, 1, 0)));
                send(e, 0, peer, 1, pattern(next, seed(rank, peer, 1, 1)));
                // Unmatched yet: a large message waits for its receive, so do not block on it.
                final SendRequest[] later = {
                    isend(e, 0, peer, 2, pattern(big, seed(rank, peer, 2, 0))),
                    isend(e, 0, peer, 2, pattern(next, seed(rank, peer, 2, 1))),
                    isend(e, 0, peer, 3, pattern(100, seed(rank, peer, 3, 0)))};
                j.signal(rank, 2);
                for (final SendRequest s : later)
                {
                    e.await(s);
                }
                return;
            }
            // Posted first: fragments past the capacity must be dropped, not written.
            final byte[] in = guarded(16 + room + 256);
            final RecvRequest posted = new RecvRequest(0, peer, 1, in, BYTES + 16, room);
            e.post(posted);
            j.signal(rank, 1);
            e.await(posted);
            checkTruncated(posted, in, room, big, pattern(big, seed(peer, rank, 1, 0)), "posted");
            final byte[] after = guarded(next);
            final RecvRequest r = e.recv(0, peer, 1, after, BYTES, next);
            assertMatched(r, peer, 1, next);
            assertFalse(r.isTruncated());
            assertBytes(pattern(next, seed(peer, rank, 1, 1)), after, 0, "after posted truncation");

            // Unexpected first: the buffered copy is cut the same way.
            j.awaitSignal(e, peer, 2);
            j.progressUntil(e, () -> e.matching().unexpectedCount() == 3);
            final byte[] in2 = guarded(16 + room + 256);
            final RecvRequest late = new RecvRequest(0, peer, 2, in2, BYTES + 16, room);
            e.post(late);
            e.await(late);
            checkTruncated(late, in2, room, big, pattern(big, seed(peer, rank, 2, 0)), "unexpected");
            final byte[] after2 = new byte[next];
            assertMatched(e.recv(0, peer, 2, after2, BYTES, next), peer, 2, next);
            assertBytes(pattern(next, seed(peer, rank, 2, 1)), after2, 0, "after unexpected truncation");

            // A receive of capacity zero takes a message and stores nothing.
            final byte[] none = guarded(8);
            final RecvRequest zero = e.recv(0, peer, 3, none, BYTES + 4, 0);
            assertMatched(zero, peer, 3, 100);
            assertTrue(zero.isTruncated());
            assertEquals(0, zero.storedLength());
            assertGuards(none, 0, none.length, "capacity zero");
        });
    }

    private static void checkTruncated(final RecvRequest r, final byte[] in, final int room, final int length,
        final byte[] sent, final String what)
    {
        assertTrue(r.isComplete());
        assertTrue(r.isTruncated(), what);
        assertEquals(length, r.messageLength(), what);
        assertEquals(room, r.storedLength(), what);
        assertBytes(Arrays.copyOf(sent, room), in, 16, what);
        assertGuards(in, 0, 16, what + " (before)");
        assertGuards(in, 16 + room, in.length, what + " (after)");
    }

    /**
     * Both ranks of a pair start an 8 MiB send to each other, then receive, then wait for the
     * send: the exchange can only finish because a waiting rank keeps draining its own inbox
     * and answering CTS frames. Must not deadlock.
     */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("pairConfigs")
    @Timeout(90)
    void simultaneousLargeSendsDoNotDeadlock(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final int size = 8 * MIB;
        start(info, n, capacity).runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int peer = rank ^ 1;
            for (int round = 0; round < 2; round++)
            {
                final SendRequest s = isend(e, 0, peer, round, pattern(size, seed(rank, peer, round, 0)));
                final byte[] in = new byte[size];
                final RecvRequest r = e.recv(0, peer, round, in, BYTES, size);
                e.await(s);
                assertMatched(r, peer, round, size);
                assertBytes(pattern(size, seed(peer, rank, round, 0)), in, 0, "round " + round);
            }
        });
    }

    /** Context ids separate messages with the same source and tag, on both matching paths. */
    @ParameterizedTest(name = "worldSize={0}, ring={1}")
    @MethodSource("pairConfigs")
    @Timeout(90)
    void contextIdsKeepMessagesApart(final int n, final int capacity, final TestInfo info) throws Exception
    {
        final ThreadedJob j = start(info, n, capacity);
        j.runEngines(RUN_SECONDS, e ->
        {
            final int rank = e.rank();
            final int peer = rank ^ 1;
            if (rank % 2 == 0)
            {
                send(e, 1, peer, 5, longMessage('A', 8));
                send(e, 2, peer, 5, longMessage('B', 8));
                send(e, 1, peer, 5, longMessage('C', 8));
                j.signal(rank, 1);
                j.awaitSignal(e, peer, 2);
                send(e, 1, peer, 5, longMessage('D', 8));
                send(e, 3, peer, 5, longMessage('E', 8));
                return;
            }
            // Unexpected path: all three are queued; context 2 first.
            j.awaitSignal(e, peer, 1);
            j.progressUntil(e, () -> e.matching().unexpectedCount() == 3);
            final byte[] in = new byte[8];
            assertMatched(e.recv(2, ANY_SOURCE, ANY_TAG, in, BYTES, 8), peer, 5, 8);
            assertEquals('B', getLong(in, 0), "context 2 takes the context-2 message");
            e.recv(1, peer, 5, in, BYTES, 8);
            assertEquals('A', getLong(in, 0), "first of context 1");
            e.recv(1, peer, 5, in, BYTES, 8);
            assertEquals('C', getLong(in, 0), "second of context 1");

            // Posted path: a wildcard receive in context 3 posted first does not take context 1.
            final byte[] in3 = new byte[8];
            final byte[] in1 = new byte[8];
            final RecvRequest ctx3 = new RecvRequest(3, ANY_SOURCE, ANY_TAG, in3, BYTES, 8);
            final RecvRequest ctx1 = new RecvRequest(1, peer, 5, in1, BYTES, 8);
            e.post(ctx3);
            e.post(ctx1);
            j.signal(rank, 2);
            e.await(ctx1);
            assertEquals('D', getLong(in1, 0), "the context-1 receive posted second");
            e.await(ctx3);
            assertEquals('E', getLong(in3, 0), "the context-3 wildcard receive posted first");
            assertMatched(ctx3, peer, 5, 8);
        });
    }
}
