package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;

/**
 * The shared-memory collectives with ranks as threads of this JVM (more threads than cores at
 * 5 and 8: waiting must sleep and be woken): a random sequence of barriers, allreduces,
 * reduces and broadcasts, the same on every rank, with data that changes every operation (a
 * slot reused too early shows as a wrong value), sizes inline in the flag line and in the data
 * slot, and a non-commutative op. The same body runs flat and hierarchical, the latter over
 * made-up groupings of 2, 4 and 8 groups (uneven, members of a group not contiguous), where the
 * flat gather, scatter, allgather and alltoall interleave with the hierarchical operations on
 * the same segment; and a double sum must give the same bits flat, hierarchical and as
 * {@link ReductionOrder} evaluated here.
 */
@Timeout(180)
class ShmCollectivesTest
{
    private static final int CONTEXT = 9;
    // Operations of a sequence step.
    private static final int BARRIER = 0;
    private static final int ALLREDUCE = 1;
    private static final int REDUCE = 2;
    private static final int BCAST = 3;
    private static final int ALLGATHER = 4;
    private static final int GATHER = 5;
    private static final int SCATTER = 6;
    private static final int ALLTOALL = 7;
    /** Items (16 bytes each) of a step: 16 and 48 bytes ride in the flag line, 1008 in the data slot. */
    private static final int[] SIZES = {1, 3, 63};
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    /** Items are 2 x 2 int matrices: inout = in x inout. */
    private static final Reducer MATRIX = (in, io, inout, ioo, items) ->
    {
        final ByteBuffer a = ByteBuffer.wrap(in).order(ByteOrder.nativeOrder());
        final ByteBuffer b = ByteBuffer.wrap(inout).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            final int p = io + 16 * i;
            final int q = ioo + 16 * i;
            final int x0 = a.getInt(p);
            final int x1 = a.getInt(p + 4);
            final int x2 = a.getInt(p + 8);
            final int x3 = a.getInt(p + 12);
            final int y0 = b.getInt(q);
            final int y1 = b.getInt(q + 4);
            final int y2 = b.getInt(q + 8);
            final int y3 = b.getInt(q + 12);
            b.putInt(q, x0 * y0 + x1 * y2).putInt(q + 4, x0 * y1 + x1 * y3);
            b.putInt(q + 8, x2 * y0 + x3 * y2).putInt(q + 12, x2 * y1 + x3 * y3);
        }
    };

    /** Rank r's matrix i in operation k. */
    private static int[] matrix(final int r, final int i, final int k)
    {
        return new int[] {1 + (r + k) % 3, i + k, r % 2, 1};
    }

    private static byte[] matrices(final int r, final int items, final int k)
    {
        final ByteBuffer b = ByteBuffer.allocate(16 * items).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            for (final int v : matrix(r, i, k))
            {
                b.putInt(v);
            }
        }
        return b.array();
    }

    /** {@code bytes} bytes that depend on the owner and the operation. */
    private static byte[] block(final int owner, final int k, final int bytes)
    {
        final byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++)
        {
            b[i] = (byte)(owner * 31 + k * 7 + i);
        }
        return b;
    }

    private static byte[] product(final int n, final int items, final int k)
    {
        final byte[] acc = matrices(0, items, k);
        for (int r = 1; r < n; r++)
        {
            final byte[] next = matrices(r, items, k);
            MATRIX.apply(acc, 0, next, 0, items);
            System.arraycopy(next, 0, acc, 0, acc.length);
        }
        return acc;
    }

    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {2, 3, 4, 5, 8})
    void randomSequencesOfOperations(final int n) throws Exception
    {
        job = ThreadedJob.start("shmcoll-" + n, n, 64 * 1024);
        final AtomicIntegerArray board = new AtomicIntegerArray(n);
        job.run(170, ctx -> sequence(ctx, n, null, board, randomSteps(n), ShmCollectivesTest::straggle));
    }

    /**
     * The same with the barrier as member 0's release (the default when ranks outnumber cores):
     * nobody may leave a barrier before everybody has arrived, and the finished word member 0
     * passes on must let no slot be reused early.
     */
    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {2, 3, 5, 8})
    void randomSequencesWithTheReleaseBarrier(final int n) throws Exception
    {
        job = ThreadedJob.start("shmcoll-rel-" + n, n, 64 * 1024);
        final AtomicIntegerArray board = new AtomicIntegerArray(n);
        job.run(170, ctx -> sequence(ctx, n, null, true, board, randomSteps(n), ShmCollectivesTest::straggle));
    }

    /** 400 random steps {operation, root, items}, the same on every rank. */
    private static int[][] randomSteps(final int n)
    {
        final Random random = new Random(7);
        final int[][] steps = new int[400][];
        for (int k = 0; k < steps.length; k++)
        {
            steps[k] = new int[] {random.nextInt(8), random.nextInt(n), SIZES[random.nextInt(SIZES.length)]};
        }
        return steps;
    }

    /** What a rank does before each step of a sequence. */
    @FunctionalInterface
    private interface BeforeStep
    {
        void before(int rank, int step);
    }

    /**
     * Stragglers: a rank that arrives late is still reading an operation while others, which did
     * not wait for it, go on writing; a slot reused too early then shows. Rank r pauses before
     * about one step in 8, up to 0.3 ms.
     */
    private static void straggle(final int rank, final int step)
    {
        final Random late = new Random(rank * 1_000_003L + step);
        if (late.nextInt(8) == 0)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(late.nextInt(300_000));
        }
    }

    /** Group labels by rank (a NUMA node id each, say): groups in order of their lowest rank. */
    static Stream<Arguments> groupings()
    {
        return Stream.of(
            Arguments.of("2 ranks, 2 groups of 1", new int[] {0, 1}),
            Arguments.of("3 ranks, 2 groups: {0} {1,2}", new int[] {1, 0, 0}),
            Arguments.of("5 ranks, 2 groups: {0,2,3} {1,4}", new int[] {4, 9, 4, 4, 9}),
            Arguments.of("8 ranks, 4 groups: {0,4} {1,2,7} {3,6} {5}", new int[] {7, 3, 3, 5, 7, 1, 5, 3}),
            Arguments.of("10 ranks, 8 groups: {0} {1,4} {2} {3,9} {5} {6} {7} {8}",
                new int[] {5, 2, 7, 0, 2, 1, 6, 3, 4, 0}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("groupings")
    void hierarchicalRandomSequences(final String name, final int[] labels) throws Exception
    {
        final int n = labels.length;
        job = ThreadedJob.start("shmhier-" + n, n, 64 * 1024);
        final AtomicIntegerArray board = new AtomicIntegerArray(n);
        job.run(170, ctx -> sequence(ctx, n, labels, board, randomSteps(n), ShmCollectivesTest::straggle));
    }

    /**
     * Each rule by which a hierarchical writer waits before reusing a slot, with the reader it
     * protects late on purpose, inline and in the data slot: the late reader starts a scenario
     * only once the writer has entered the scenario's last step (where it would overwrite what
     * the reader has yet to read), and 5 ms later. Groups {0,1} and {2,3}; each scenario starts
     * after a barrier.
     */
    @Test
    void hierarchicalWritersWaitForLateReaders() throws Exception
    {
        final int[] labels = {0, 0, 1, 1};
        final int n = labels.length;
        // {{late reader, writer}, steps...}
        final int[][][] scenarios = {
            // A late leader (2) has not copied its member's payload of the first reduce when the
            // member (3), with no reason to wait in reduces, writes the allreduce: members wait
            // for their leader.
            {{2, 3}, {REDUCE, 0}, {REDUCE, 0}, {ALLREDUCE, 0}},
            // A late root leader (0) has not read leader 2's gather area of the first reduce:
            // leaders wait for the leaders before writing it again.
            {{0, 2}, {REDUCE, 0}, {REDUCE, 0}, {ALLREDUCE, 0}},
            // A late member (3) has not read its leader's release payload of a broadcast:
            // leaders wait for their group before writing it again.
            {{3, 2}, {BCAST, 0}, {BCAST, 0}, {BCAST, 0}},
            // A late leader (2) has not copied the root's payload: the root waits for the leaders.
            {{2, 0}, {BCAST, 0}, {BCAST, 0}, {BCAST, 0}},
            // A late root (3) of a flat gather has not read the others' blocks: after a flat
            // operation, hierarchical writers wait for every member.
            {{3, 1}, {GATHER, 3}, {REDUCE, 0}, {ALLREDUCE, 0}},
        };
        final java.util.List<int[]> steps = new java.util.ArrayList<>();
        // By first step of a scenario: {late reader, writer, the scenario's last step}.
        final java.util.Map<Integer, int[]> late = new java.util.HashMap<>();
        for (final int items : new int[] {1, 63})
        {
            for (final int[][] scenario : scenarios)
            {
                steps.add(new int[] {BARRIER, 0, 1});
                late.put(steps.size(), new int[] {scenario[0][0], scenario[0][1], steps.size() + scenario.length - 2});
                for (int i = 1; i < scenario.length; i++)
                {
                    steps.add(new int[] {scenario[i][0], scenario[i][1], items});
                }
            }
        }
        job = ThreadedJob.start("shmhier-late", n, 64 * 1024);
        final AtomicIntegerArray board = new AtomicIntegerArray(n);
        final AtomicIntegerArray entered = new AtomicIntegerArray(n);
        job.run(170, ctx -> sequence(ctx, n, labels, board, steps.toArray(new int[0][]), (rank, k) ->
        {
            entered.set(rank, k);
            final int[] l = late.get(k);
            if (l != null && l[0] == rank)
            {
                final long deadline = System.nanoTime() + 5_000_000_000L;
                while (entered.get(l[1]) < l[2] && System.nanoTime() - deadline < 0)
                {
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
                assertTrue(entered.get(l[1]) >= l[2], "rank " + l[1] + " never reached step " + l[2]);
                java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
            }
        }));
    }

    private static ShmCollectives attach(final RankContext ctx, final int n, final int context,
        final int[] labels)
    {
        final int me = ctx.rank();
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        final Members attaching = new Members(ctx, world, me, context + 1, 1);
        final ShmCollectives shm = ShmCollectives.attach(ctx, world, me, context, 1024, labels, () ->
            new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
        assertEquals(labels == null ? 0 : Arrays.stream(labels).distinct().count(), shm.groups(), "groups");
        assertEquals(shm.groups() > 0, shm.hierarchical(), "hierarchical");
        return shm;
    }

    /**
     * Runs {@code steps} ({operation, root, items} each) on this rank, checking every result
     * against one computed here; {@code before} runs before each step.
     */
    private static void sequence(final RankContext ctx, final int n, final int[] labels,
        final AtomicIntegerArray board, final int[][] steps, final BeforeStep before)
    {
        sequence(ctx, n, labels, false, board, steps, before);
    }

    /** As above, the flat barrier being member 0's release when {@code release}. */
    private static void sequence(final RankContext ctx, final int n, final int[] labels,
        final boolean release, final AtomicIntegerArray board, final int[][] steps, final BeforeStep before)
    {
        final int me = ctx.rank();
        final ShmCollectives shm = attach(ctx, n, CONTEXT, labels);
        shm.releaseBarrier(release);
        for (int k = 0; k < steps.length; k++)
        {
            before.before(me, k);
            final int op = steps[k][0];
            final int root = steps[k][1];
            final int items = steps[k][2];
            final int bytes = 16 * items;
            switch (op)
            {
                case BARRIER:
                {
                    // Barrier: nobody passes before everybody has posted this round on the board.
                    board.set(me, k + 1);
                    shm.barrier();
                    for (int r = 0; r < n; r++)
                    {
                        assertTrue(board.get(r) >= k + 1, "rank " + r + " had not arrived at op " + k);
                    }
                    break;
                }
                case ALLREDUCE:
                {
                    final byte[] out = new byte[bytes];
                    shm.allreduce(matrices(me, items, k), bytes, items, MATRIX, out);
                    assertArrayEquals(product(n, items, k), out, "allreduce op " + k + ", " + bytes + " bytes");
                    break;
                }
                case REDUCE:
                {
                    final byte[] out = new byte[bytes];
                    shm.reduce(root, matrices(me, items, k), bytes, items, MATRIX, out);
                    if (me == root)
                    {
                        assertArrayEquals(product(n, items, k), out, "reduce to " + root + " op " + k);
                    }
                    break;
                }
                case ALLGATHER:
                {
                    final int b = bytes / 16;
                    final byte[] all = new byte[n * b];
                    shm.allgather(block(me, k, b), b, all);
                    for (int r = 0; r < n; r++)
                    {
                        assertArrayEquals(block(r, k, b), java.util.Arrays.copyOfRange(all, r * b, r * b + b),
                            "allgather block " + r + " op " + k);
                    }
                    break;
                }
                case GATHER:
                {
                    final int b = bytes / 16;
                    final byte[] all = new byte[n * b];
                    shm.gather(root, block(me, k, b), b, all);
                    if (me == root)
                    {
                        for (int r = 0; r < n; r++)
                        {
                            assertArrayEquals(block(r, k, b), java.util.Arrays.copyOfRange(all, r * b, r * b + b),
                                "gather block " + r + " op " + k);
                        }
                    }
                    break;
                }
                case SCATTER:
                {
                    final int b = bytes / 16;
                    final byte[] all = new byte[n * b];
                    if (me == root)
                    {
                        for (int r = 0; r < n; r++)
                        {
                            System.arraycopy(block(r + 100, k, b), 0, all, r * b, b);
                        }
                    }
                    final byte[] mine = new byte[b];
                    shm.scatter(root, all, b, mine);
                    assertArrayEquals(block(me + 100, k, b), mine, "scatter from " + root + " op " + k);
                    break;
                }
                case ALLTOALL:
                {
                    final int b = bytes / 16;
                    final byte[] send = new byte[n * b];
                    for (int r = 0; r < n; r++)
                    {
                        System.arraycopy(block(1000 * me + r, k, b), 0, send, r * b, b);
                    }
                    final byte[] got = new byte[n * b];
                    shm.alltoall(send, b, got);
                    for (int r = 0; r < n; r++)
                    {
                        assertArrayEquals(block(1000 * r + me, k, b),
                            java.util.Arrays.copyOfRange(got, r * b, r * b + b), "alltoall from " + r + " op " + k);
                    }
                    break;
                }
                case BCAST:
                {
                    final byte[] buf = me == root ? matrices(root, items, k) : new byte[bytes];
                    shm.bcast(root, buf, bytes);
                    assertArrayEquals(matrices(root, items, k), buf, "bcast from " + root + " op " + k);
                    break;
                }
                default:
                    throw new IllegalArgumentException("no such operation: " + op);
            }
        }
        shm.close();
    }

    /**
     * The nonblocking forms: several outstanding at once, started between blocking ones,
     * completed in another order than started; the steps advance only through progress (the
     * waits here, and the blocking operations' waits).
     */
    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {2, 3, 5})
    void nonblockingOperationsOverlapEachOtherAndBlockingOnes(final int n) throws Exception
    {
        job = ThreadedJob.start("shmcoll-nb-" + n, n, 64 * 1024);
        job.run(170, ctx ->
        {
            final int me = ctx.rank();
            final int[] world = new int[n];
            for (int r = 0; r < n; r++)
            {
                world[r] = r;
            }
            final Members attaching = new Members(ctx, world, me, CONTEXT + 1, 1);
            final FinishedWordCheck[] check = new FinishedWordCheck[1];
            final ShmCollectives shm = ShmCollectives.attach(ctx, world, me, CONTEXT, 1024, null, segment ->
                check[0] = new FinishedWordCheck(segment, me, 1024), () ->
                new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
            final Random random = new Random(5);
            for (int k = 0; k < 150; k++)
            {
                final int items = 1 + random.nextInt(40);
                final int bytes = 16 * items;
                final int root = random.nextInt(n);
                final byte[] reduced = new byte[bytes];
                final Schedule a = shm.allreduceSteps(matrices(me, items, k), bytes, items, MATRIX, reduced)
                    .schedule(attaching, "iallreduce");
                a.start();
                final byte[] cast = me == root ? matrices(root, items, k + 1) : new byte[bytes];
                final Schedule b = shm.bcastSteps(root, cast, bytes).schedule(attaching, "ibcast");
                b.start();
                final int g = 1 + random.nextInt(50);
                final byte[] gathered = new byte[n * g];
                final Schedule c = shm.allgatherSteps(block(me, k, g), g, gathered).schedule(attaching, "iallgather");
                c.start();
                // A blocking one while three are outstanding, and a nonblocking barrier.
                final byte[] blocking = new byte[bytes];
                shm.allreduce(matrices(me, items, k + 2), bytes, items, MATRIX, blocking);
                final Schedule d = shm.barrierSteps().schedule(attaching, "ibarrier");
                d.start();
                ctx.progress().await(c.request(), 0);
                ctx.progress().await(a.request(), 0);
                ctx.progress().await(d.request(), 0);
                ctx.progress().await(b.request(), 0);
                assertArrayEquals(product(n, items, k), reduced, "iallreduce " + k);
                assertArrayEquals(matrices(root, items, k + 1), cast, "ibcast " + k);
                assertArrayEquals(product(n, items, k + 2), blocking, "allreduce " + k);
                for (int r = 0; r < n; r++)
                {
                    assertArrayEquals(block(r, k, g), java.util.Arrays.copyOfRange(gathered, r * g, r * g + g),
                        "iallgather block " + r + " op " + k);
                }
            }
            shm.close();
            assertEquals(null, check[0].violation, "a finished word claimed an unfinished operation");
            assertTrue(check[0].published > 150, "finished words published: " + check[0].published);
        });
    }

    /**
     * A member's view of the segment that checks every finished word it publishes in a flag line
     * against the done words it has stored: {@code finished = j} must come after operations 1..j
     * all stored done (with nonblocking operations finishing out of order, the largest finished
     * operation is not enough).
     */
    private static final class FinishedWordCheck extends org.agrona.concurrent.UnsafeBuffer
    {
        private final int block;
        private final java.util.BitSet done = new java.util.BitSet();
        volatile String violation;
        int published;

        FinishedWordCheck(final org.agrona.concurrent.AtomicBuffer segment, final int me, final int dataBytes)
        {
            super(segment.addressOffset(), segment.capacity());
            this.block = (int)ShmCollectiveDescriptor.blockOffset(me, dataBytes);
        }

        @Override
        public synchronized void putLongRelease(final int index, final long value)
        {
            if (index == block + ShmCollectiveDescriptor.doneOffset(0) ||
                index == block + ShmCollectiveDescriptor.doneOffset(1))
            {
                done.set((int)value);
            }
            super.putLongRelease(index, value);
        }

        @Override
        public synchronized void putLong(final int index, final long value)
        {
            if (index == block + ShmCollectiveDescriptor.flagOffset(0) + ShmCollectiveDescriptor.FINISHED_OFFSET ||
                index == block + ShmCollectiveDescriptor.flagOffset(1) + ShmCollectiveDescriptor.FINISHED_OFFSET)
            {
                published++;
                final int firstUndone = done.nextClearBit(1);
                if (value >= firstUndone && violation == null)
                {
                    violation = "finished=" + value + " published while operation " + firstUndone +
                        " had not stored done";
                }
            }
            super.putLong(index, value);
        }
    }

    /** Items are doubles: inout = in + inout. */
    private static final Reducer DOUBLE_SUM = (in, io, inout, ioo, items) ->
    {
        final ByteBuffer a = ByteBuffer.wrap(in).order(ByteOrder.nativeOrder());
        final ByteBuffer b = ByteBuffer.wrap(inout).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            b.putDouble(ioo + 8 * i, a.getDouble(io + 8 * i) + b.getDouble(ioo + 8 * i));
        }
    };

    /** Rank r's doubles in round k: magnitudes from 2^-30 to 2^30, so the association shows in the bits. */
    private static byte[] doubles(final int r, final int k, final int items)
    {
        final Random random = new Random(1000L * k + r);
        final ByteBuffer b = ByteBuffer.allocate(8 * items).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            b.putDouble(Math.scalb(random.nextDouble() - 0.5, random.nextInt(61) - 30));
        }
        return b.array();
    }

    /** The sum of every rank's doubles of round k in the order of {@link ReductionOrder}, here. */
    private static byte[] treeSum(final int n, final int k, final int items)
    {
        final byte[][] slots = new byte[n][];
        for (int r = 0; r < n; r++)
        {
            slots[r] = doubles(r, k, items);
        }
        return slots[ReductionOrder.fold(n, (in, inout) -> DOUBLE_SUM.apply(slots[in], 0, slots[inout], 0, items))];
    }

    /** The same sum left to right: x0 + x1 + ... (a different association). */
    private static byte[] sequentialSum(final int n, final int k, final int items)
    {
        final byte[] acc = doubles(0, k, items);
        for (int r = 1; r < n; r++)
        {
            final byte[] next = doubles(r, k, items);
            DOUBLE_SUM.apply(acc, 0, next, 0, items);
            System.arraycopy(next, 0, acc, 0, acc.length);
        }
        return acc;
    }

    /**
     * A double sum by allreduce and by reduce (every root), inline and in the data slot, gives
     * the same bits flat, hierarchical (4 uneven groups) and evaluated here in the order of
     * {@link ReductionOrder}; and the data is such that another association would differ.
     */
    @Test
    void doubleSumsAreTheSameBitsFlatAndHierarchical() throws Exception
    {
        final int[] labels = {7, 3, 3, 5, 7, 1, 5, 3};
        final int n = labels.length;
        final int rounds = 40;
        int differs = 0;
        for (int k = 0; k < rounds; k++)
        {
            differs += Arrays.equals(treeSum(n, k, 20), sequentialSum(n, k, 20)) ? 0 : 1;
        }
        assertTrue(differs > rounds / 2, "the data must tell associations apart: " + differs + " of " + rounds);
        job = ThreadedJob.start("shmhier-sum", n, 64 * 1024);
        job.run(170, ctx ->
        {
            final int me = ctx.rank();
            final ShmCollectives flat = attach(ctx, n, CONTEXT, null);
            final ShmCollectives hier = attach(ctx, n, CONTEXT + 2, labels);
            for (int k = 0; k < rounds; k++)
            {
                // 3 doubles ride in the flag line, 20 in the data slot.
                final int items = k % 2 == 0 ? 3 : 20;
                final int bytes = 8 * items;
                final byte[] expected = treeSum(n, k, items);
                final byte[] a = new byte[bytes];
                final byte[] b = new byte[bytes];
                flat.allreduce(doubles(me, k, items), bytes, items, DOUBLE_SUM, a);
                hier.allreduce(doubles(me, k, items), bytes, items, DOUBLE_SUM, b);
                assertArrayEquals(expected, a, "flat allreduce, round " + k);
                assertArrayEquals(expected, b, "hierarchical allreduce, round " + k);
                final int root = k % n;
                final byte[] c = new byte[bytes];
                hier.reduce(root, doubles(me, k, items), bytes, items, DOUBLE_SUM, c);
                if (me == root)
                {
                    assertArrayEquals(expected, c, "hierarchical reduce to " + root + ", round " + k);
                }
            }
            hier.close();
            flat.close();
        });
    }

    /**
     * A hierarchical segment makes no nonblocking forms (its communicator runs them
     * point-to-point): every {@code *Steps} factory refuses without taking an operation number,
     * so the blocking operations after them still agree on every member.
     */
    @Test
    void hierarchicalSegmentsRefuseNonblockingForms() throws Exception
    {
        final int[] labels = {0, 1, 0, 1};
        final int n = labels.length;
        job = ThreadedJob.start("shmhier-nb", n, 64 * 1024);
        job.run(60, ctx ->
        {
            final int me = ctx.rank();
            final ShmCollectives flat = attach(ctx, n, CONTEXT, null);
            final ShmCollectives hier = attach(ctx, n, CONTEXT + 2, labels);
            assertFalse(flat.hierarchical());
            assertTrue(hier.hierarchical());
            final byte[] b = new byte[16];
            final byte[] all = new byte[16 * n];
            for (int k = 0; k < 3; k++)
            {
                assertThrows(IllegalStateException.class, hier::barrierSteps);
                assertThrows(IllegalStateException.class, () -> hier.allreduceSteps(b, 16, 1, MATRIX, b));
                assertThrows(IllegalStateException.class, () -> hier.reduceSteps(0, b, 16, 1, MATRIX, b));
                assertThrows(IllegalStateException.class, () -> hier.bcastSteps(0, b, 16));
                assertThrows(IllegalStateException.class, () -> hier.allgatherSteps(b, 16, all));
                assertThrows(IllegalStateException.class, () -> hier.gatherSteps(0, b, 16, all));
                assertThrows(IllegalStateException.class, () -> hier.scatterSteps(0, all, 16, b));
                assertThrows(IllegalStateException.class, () -> hier.alltoallSteps(all, 16, all));
                final byte[] out = new byte[16];
                hier.allreduce(matrices(me, 1, k), 16, 1, MATRIX, out);
                assertArrayEquals(product(n, 1, k), out, "allreduce after refused steps, round " + k);
                hier.barrier();
            }
            hier.close();
            flat.close();
        });
    }

    @Test
    void aRankAlone() throws Exception
    {
        job = ThreadedJob.start("shmcoll-1", 1, 64 * 1024);
        job.run(30, ctx ->
        {
            final ShmCollectives shm = ShmCollectives.attach(ctx, new int[] {0}, 0, CONTEXT, 1024, () -> { });
            shm.barrier();
            final byte[] out = new byte[16];
            shm.allreduce(matrices(0, 1, 3), 16, 1, MATRIX, out);
            assertArrayEquals(matrices(0, 1, 3), out);
            assertEquals(1024, shm.capacity());
            shm.close();
        });
    }
}
