package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.PointToPointEngine;
import org.shmpi.ring.ThreadedJob;

/**
 * The shared-memory collectives with ranks as threads of this JVM (more threads than cores at
 * 5 and 8: waiting must sleep and be woken): a random sequence of barriers, allreduces,
 * reduces and broadcasts, the same on every rank, with data that changes every operation (a
 * slot reused too early shows as a wrong value), sizes inline in the flag line and in the data
 * slot, and a non-commutative op.
 */
@Timeout(180)
class ShmCollectivesTest
{
    private static final int CONTEXT = 9;
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
        job.run(170, engine -> sequence(engine, n, board));
    }

    private static void sequence(final PointToPointEngine engine, final int n, final AtomicIntegerArray board)
    {
        final int me = engine.rank();
        final int[] world = new int[n];
        for (int r = 0; r < n; r++)
        {
            world[r] = r;
        }
        final Members attaching = new Members(engine, world, me, CONTEXT + 1, 1);
        final ShmCollectives shm = ShmCollectives.attach(engine, world, me, CONTEXT, 1024, () ->
            new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
        final Random random = new Random(7);
        final int[] sizes = {1, 3, 63};
        for (int k = 0; k < 400; k++)
        {
            final int op = random.nextInt(8);
            final int root = random.nextInt(n);
            final int items = sizes[random.nextInt(sizes.length)];
            final int bytes = 16 * items;
            switch (op)
            {
                case 0:
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
                case 1:
                {
                    final byte[] out = new byte[bytes];
                    shm.allreduce(matrices(me, items, k), bytes, items, MATRIX, out);
                    assertArrayEquals(product(n, items, k), out, "allreduce op " + k + ", " + bytes + " bytes");
                    break;
                }
                case 2:
                {
                    final byte[] out = new byte[bytes];
                    shm.reduce(root, matrices(me, items, k), bytes, items, MATRIX, out);
                    if (me == root)
                    {
                        assertArrayEquals(product(n, items, k), out, "reduce to " + root + " op " + k);
                    }
                    break;
                }
                case 4:
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
                case 5:
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
                case 6:
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
                case 7:
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
                        assertArrayEquals(block(1000 * r + me, k, b), java.util.Arrays.copyOfRange(got, r * b, r * b + b),
                            "alltoall from " + r + " op " + k);
                    }
                    break;
                }
                default:
                {
                    final byte[] buf = me == root ? matrices(root, items, k) : new byte[bytes];
                    shm.bcast(root, buf, bytes);
                    assertArrayEquals(matrices(root, items, k), buf, "bcast from " + root + " op " + k);
                    break;
                }
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
        job.run(170, engine ->
        {
            final int me = engine.rank();
            final int[] world = new int[n];
            for (int r = 0; r < n; r++)
            {
                world[r] = r;
            }
            final Members attaching = new Members(engine, world, me, CONTEXT + 1, 1);
            final ShmCollectives shm = ShmCollectives.attach(engine, world, me, CONTEXT, 1024, () ->
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
                engine.await(c.request(), 0);
                engine.await(a.request(), 0);
                engine.await(d.request(), 0);
                engine.await(b.request(), 0);
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
        });
    }

    @Test
    void aRankAlone() throws Exception
    {
        job = ThreadedJob.start("shmcoll-1", 1, 64 * 1024);
        job.run(30, engine ->
        {
            final ShmCollectives shm = ShmCollectives.attach(engine, new int[] {0}, 0, CONTEXT, 1024, () -> { });
            shm.barrier();
            final byte[] out = new byte[16];
            shm.allreduce(matrices(0, 1, 3), 16, 1, MATRIX, out);
            assertArrayEquals(matrices(0, 1, 3), out);
            assertEquals(1024, shm.capacity());
            shm.close();
        });
    }
}
