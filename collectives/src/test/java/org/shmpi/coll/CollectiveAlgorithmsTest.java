package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.shm.BlockedCall;

/**
 * Every algorithm with ranks as threads of this JVM, at 1, 2, 3, 4, 5 and 8 ranks, blocking
 * (driven inline) and nonblocking (through the progress engine, several at once), against
 * results computed here. A non-commutative op (2 x 2 integer matrix products) checks that
 * reductions keep rank order.
 */
@Timeout(120)
class CollectiveAlgorithmsTest
{
    private static final int CONTEXT = 7;
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    /** Sum of ints. */
    private static final Reducer SUM = (in, io, inout, ioo, items) ->
    {
        final ByteBuffer a = ByteBuffer.wrap(in).order(ByteOrder.nativeOrder());
        final ByteBuffer b = ByteBuffer.wrap(inout).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            b.putInt(ioo + 4 * i, a.getInt(io + 4 * i) + b.getInt(ioo + 4 * i));
        }
    };

    /** Items are 2 x 2 int matrices, row-major: inout = in x inout. */
    private static final Reducer MATRIX = (in, io, inout, ioo, items) ->
    {
        final ByteBuffer a = ByteBuffer.wrap(in).order(ByteOrder.nativeOrder());
        final ByteBuffer b = ByteBuffer.wrap(inout).order(ByteOrder.nativeOrder());
        for (int i = 0; i < items; i++)
        {
            final int[] x = new int[4];
            final int[] y = new int[4];
            for (int k = 0; k < 4; k++)
            {
                x[k] = a.getInt(io + 16 * i + 4 * k);
                y[k] = b.getInt(ioo + 16 * i + 4 * k);
            }
            final int[] z = multiply(x, y);
            for (int k = 0; k < 4; k++)
            {
                b.putInt(ioo + 16 * i + 4 * k, z[k]);
            }
        }
    };

    private static int[] multiply(final int[] x, final int[] y)
    {
        return new int[] {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
            x[2] * y[1] + x[3] * y[3]};
    }

    /** Rank r's matrix for item i: not commuting with the others. */
    private static int[] matrix(final int r, final int i)
    {
        return new int[] {1 + r, 2 + i, r % 3, 1};
    }

    private static byte[] ints(final int... values)
    {
        final ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.nativeOrder());
        for (final int v : values)
        {
            b.putInt(v);
        }
        return b.array();
    }

    private static int[] ints(final byte[] bytes, final int offset, final int count)
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        final int[] out = new int[count];
        for (int i = 0; i < count; i++)
        {
            out[i] = b.getInt(offset + 4 * i);
        }
        return out;
    }

    private static void run(final Collective c, final Members m, final boolean blocking)
    {
        final Schedule s = c.schedule(m, "test");
        if (blocking)
        {
            s.runToCompletion(BlockedCall.BARRIER);
        }
        else
        {
            s.start();
            m.rankContext().progress().await(s.request());
            assertEquals(0, s.request().errorClass());
        }
    }

    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void everyAlgorithmBlockingAndNonblocking(final int n) throws Exception
    {
        job = ThreadedJob.start("coll-" + n, n, 64 * 1024);
        job.run(100, ctx -> everyAlgorithm(ctx, n));
    }

    private static void everyAlgorithm(final RankContext ctx, final int n)
    {
        final int me = ctx.rank();
        final int[] world = new int[n];
        for (int r = 0; r < n; r++)
        {
            world[r] = r;
        }
        int tag = 1000;
        for (final boolean blocking : new boolean[] {true, false})
        {
            final Members barrier = new Members(ctx, world, me, CONTEXT, tag++);
            run(new Barrier(barrier), barrier, blocking);
            for (int root = 0; root < n; root++)
            {
                // Broadcast of 3 ints, and of 100 KB (through the rendezvous path).
                final byte[] b = me == root ? ints(root, 7, -root) : new byte[12];
                final Members mb = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Bcast(mb, root, b, 0, 12), mb, blocking);
                assertArrayEquals(new int[] {root, 7, -root}, ints(b, 0, 3), "bcast from " + root);
                final byte[] big = new byte[100_000];
                if (me == root)
                {
                    for (int i = 0; i < big.length; i++)
                    {
                        big[i] = (byte)(i * 31 + root);
                    }
                }
                final Members mbig = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Bcast(mbig, root, big, 0, big.length), mbig, blocking);
                for (int i = 0; i < big.length; i += 997)
                {
                    assertEquals((byte)(i * 31 + root), big[i], "big bcast from " + root + " at " + i);
                }
                // Reduce of a sum and of matrix products (rank order).
                final byte[] out = new byte[8];
                final Members mr = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Reduce(mr, root, ints(me, 1), 8, 2, SUM, out, 0), mr, blocking);
                if (me == root)
                {
                    assertArrayEquals(new int[] {n * (n - 1) / 2, n}, ints(out, 0, 2), "reduce to " + root);
                }
                final byte[] mats = new byte[32];
                final ByteBuffer mb2 = ByteBuffer.wrap(mats).order(ByteOrder.nativeOrder());
                for (int i = 0; i < 2; i++)
                {
                    for (final int v : matrix(me, i))
                    {
                        mb2.putInt(v);
                    }
                }
                final byte[] product = new byte[32];
                final Members mm = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Reduce(mm, root, mats, 32, 2, MATRIX, product, 0), mm, blocking);
                if (me == root)
                {
                    for (int i = 0; i < 2; i++)
                    {
                        int[] expected = matrix(0, i);
                        for (int r = 1; r < n; r++)
                        {
                            expected = multiply(expected, matrix(r, i));
                        }
                        assertArrayEquals(expected, ints(product, 16 * i, 4),
                            "matrix product in rank order, item " + i);
                    }
                }
                // Gatherv of rank r's r + 1 ints, scatterv back.
                final int[] lengths = new int[n];
                final int[] offsets = new int[n];
                int total = 0;
                for (int r = 0; r < n; r++)
                {
                    lengths[r] = 4 * (r + 1);
                    offsets[r] = total + 4;
                    total += lengths[r] + 4;
                }
                final int[] myInts = new int[me + 1];
                java.util.Arrays.fill(myInts, me * 10 + root);
                final byte[] gathered = new byte[total];
                final Members mg = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Gatherv(mg, root, ints(myInts), 4 * (me + 1), gathered, offsets, lengths), mg, blocking);
                if (me == root)
                {
                    for (int r = 0; r < n; r++)
                    {
                        final int[] expected = new int[r + 1];
                        java.util.Arrays.fill(expected, r * 10 + root);
                        assertArrayEquals(expected, ints(gathered, offsets[r], r + 1), "gathered block " + r);
                    }
                }
                final byte[] back = new byte[4 * (me + 1) + 8];
                final Members ms = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Scatterv(ms, root, gathered, offsets, lengths, back, 8, 4 * (me + 1)), ms, blocking);
                assertArrayEquals(myInts, ints(back, 8, me + 1), "scattered back from " + root);
            }
            // Allreduce = reduce to 0 then broadcast, in one schedule.
            final byte[] result = new byte[8];
            final Members mar = new Members(ctx, world, me, CONTEXT, tag++);
            final Collective allreduce = new Reduce(mar, 0, ints(me, 2 * me), 8, 2, SUM, result, 0)
                .then(new Bcast(mar, 0, result, 0, 8));
            run(allreduce, mar, blocking);
            assertArrayEquals(new int[] {n * (n - 1) / 2, n * (n - 1)}, ints(result, 0, 2), "allreduce");
            // Allgatherv: rank r contributes r + 1 ints.
            final int[] lengths = new int[n];
            final int[] offsets = new int[n];
            int total = 0;
            for (int r = 0; r < n; r++)
            {
                lengths[r] = 4 * (r + 1);
                offsets[r] = total;
                total += lengths[r];
            }
            final byte[] all = new byte[total];
            final int[] mine = new int[me + 1];
            java.util.Arrays.fill(mine, me + 100);
            System.arraycopy(ints(mine), 0, all, offsets[me], lengths[me]);
            final Members mag = new Members(ctx, world, me, CONTEXT, tag++);
            run(new Allgatherv(mag, all, offsets, lengths), mag, blocking);
            for (int r = 0; r < n; r++)
            {
                final int[] expected = new int[r + 1];
                java.util.Arrays.fill(expected, r + 100);
                assertArrayEquals(expected, ints(all, offsets[r], r + 1), "allgathered block " + r);
            }
            // Alltoall: to rank r, the int me * 100 + r.
            final int[] sendOffsets = new int[n];
            final int[] four = new int[n];
            final int[] sendInts = new int[n];
            for (int r = 0; r < n; r++)
            {
                sendOffsets[r] = 4 * r;
                four[r] = 4;
                sendInts[r] = me * 100 + r;
            }
            final byte[] received = new byte[4 * n];
            final Members mat = new Members(ctx, world, me, CONTEXT, tag++);
            run(new Alltoallv(mat, ints(sendInts), sendOffsets, four, received, sendOffsets, four), mat, blocking);
            for (int r = 0; r < n; r++)
            {
                assertEquals(r * 100 + me, ints(received, 4 * r, 1)[0], "alltoall from " + r);
            }
            // Scans of matrices: inclusive and exclusive.
            for (final boolean exclusive : new boolean[] {false, true})
            {
                final byte[] data = ints(matrix(me, 0));
                final byte[] prefix = ints(-1, -1, -1, -1);
                final Members msc = new Members(ctx, world, me, CONTEXT, tag++);
                run(new Scan(msc, exclusive, data, 16, 1, MATRIX, prefix, 0), msc, blocking);
                final int upTo = exclusive ? me - 1 : me;
                if (upTo < 0)
                {
                    assertArrayEquals(new int[] {-1, -1, -1, -1}, ints(prefix, 0, 4), "exscan leaves rank 0's alone");
                }
                else
                {
                    int[] expected = matrix(0, 0);
                    for (int r = 1; r <= upTo; r++)
                    {
                        expected = multiply(expected, matrix(r, 0));
                    }
                    assertArrayEquals(expected, ints(prefix, 0, 4), (exclusive ? "exscan" : "scan") + " at " + me);
                }
            }
        }
        // Many nonblocking at once: one allgather per root, completed in reverse order.
        final List<Schedule> schedules = new ArrayList<>();
        final List<byte[]> buffers = new ArrayList<>();
        for (int k = 0; k < 6; k++)
        {
            final byte[] b = new byte[4 * n];
            final int[] offsets = new int[n];
            final int[] lengths = new int[n];
            for (int r = 0; r < n; r++)
            {
                offsets[r] = 4 * r;
                lengths[r] = 4;
            }
            System.arraycopy(ints(me * 7 + k), 0, b, 4 * me, 4);
            final Members mk = new Members(ctx, world, me, CONTEXT, tag++);
            final Schedule s = new Allgatherv(mk, b, offsets, lengths).schedule(mk, "allgather " + k);
            s.start();
            schedules.add(s);
            buffers.add(b);
        }
        for (int k = schedules.size() - 1; k >= 0; k--)
        {
            ctx.progress().await(schedules.get(k).request());
            for (int r = 0; r < n; r++)
            {
                assertEquals(r * 7 + k, ints(buffers.get(k), 4 * r, 1)[0], "outstanding allgather " + k);
            }
        }
        assertTrue(tag > 1000);
    }
}
