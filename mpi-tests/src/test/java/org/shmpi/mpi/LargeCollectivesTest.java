package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.coll.ReductionOrder;
import org.shmpi.junit.MpiTest;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.UserFunction;

/**
 * Collectives of messages larger than the small-message data slot (8 KiB), which by default take
 * the pipelined shared-memory algorithms: run here with chunks of 4 KiB so that every message
 * takes several rounds and both slot parities, with counts that do not divide evenly, every
 * root, in place or not, arrays and direct buffers, a derived datatype and a non-commutative
 * user op. Floating-point sums are checked bit for bit against the one reduction order of
 * {@link ReductionOrder} evaluated here; {@link LargeCollectivesP2pTest} checks the point-to-point
 * algorithms against the same bits.
 */
@MpiTest(np = {1, 2, 3, 5, 8}, shmrunArgs = {"-Dshmpi.coll.shm.chunk.bytes=4096"})
class LargeCollectivesTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** Rank r's double i, of very different magnitudes so that the order of a sum shows in its bits. */
    private static double x(final int r, final int i)
    {
        return Math.sin(r * 7.1 + i * 0.37) * Math.pow(10, (r + i) % 7);
    }

    private static double[] contribution(final int r, final int count)
    {
        final double[] d = new double[count];
        Arrays.setAll(d, i -> x(r, i));
        return d;
    }

    /** The sum in the order every algorithm uses. */
    private static double[] treeSum(final int n, final int count)
    {
        final double[][] slots = new double[n][];
        for (int r = 0; r < n; r++)
        {
            slots[r] = contribution(r, count);
        }
        final int result = ReductionOrder.fold(n, (in, inout) ->
        {
            for (int i = 0; i < count; i++)
            {
                slots[inout][i] = slots[in][i] + slots[inout][i];
            }
        });
        return slots[result];
    }

    private static void assertBitwise(final double[] expected, final double[] actual, final String what)
    {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++)
        {
            if (Double.doubleToRawLongBits(expected[i]) != Double.doubleToRawLongBits(actual[i]))
            {
                throw new AssertionError(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }

    private static void onWorldAndReversed(final java.util.function.Consumer<Intracomm> body)
    {
        body.accept(MPI.COMM_WORLD);
        final int n = MPI.COMM_WORLD.getSize();
        final Intracomm reversed = MPI.COMM_WORLD.split(0, n - 1 - MPI.COMM_WORLD.getRank());
        body.accept(reversed);
        reversed.free();
    }

    @Test
    void sumsAreTheSameBitsOnEveryRankAndByEveryAlgorithm()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            for (final int count : new int[] {1025, 3001})
            {
                final double[] expected = treeSum(n, count);
                final double[] out = new double[count];
                c.allReduce(contribution(me, count), out, count, MPI.DOUBLE, MPI.SUM);
                assertBitwise(expected, out, "allReduce of " + count);

                final double[] inPlace = contribution(me, count);
                c.allReduce(inPlace, count, MPI.DOUBLE, MPI.SUM);
                assertBitwise(expected, inPlace, "allReduce in place of " + count);

                final DoubleBuffer send = MPI.newDoubleBuffer(count).put(contribution(me, count));
                final DoubleBuffer recv = MPI.newDoubleBuffer(count);
                c.allReduce(send, recv, count, MPI.DOUBLE, MPI.SUM);
                final double[] fromBuffer = new double[count];
                recv.get(0, fromBuffer);
                assertBitwise(expected, fromBuffer, "allReduce of direct buffers");

                // Reduce-scatter: rank r keeps its block of the sum of n blocks.
                final double[] whole = treeSum(n, n * count);
                final double[] block = new double[count];
                c.reduceScatterBlock(contribution(me, n * count), block, count, MPI.DOUBLE, MPI.SUM);
                assertBitwise(Arrays.copyOfRange(whole, me * count, (me + 1) * count), block, "reduceScatterBlock");
                final int[] counts = new int[n];
                int total = 0;
                for (int r = 0; r < n; r++)
                {
                    counts[r] = count / 2 + 37 * r;
                    total += counts[r];
                }
                int first = 0;
                for (int r = 0; r < me; r++)
                {
                    first += counts[r];
                }
                final double[] uneven = treeSum(n, total);
                final double[] inPlaceRs = contribution(me, total);
                c.reduceScatter(inPlaceRs, counts, MPI.DOUBLE, MPI.SUM);
                assertBitwise(Arrays.copyOfRange(uneven, first, first + counts[me]),
                    Arrays.copyOfRange(inPlaceRs, 0, counts[me]), "reduceScatter in place, uneven blocks");

                for (int root = 0; root < n; root++)
                {
                    final double[] red = new double[count];
                    c.reduce(contribution(me, count), red, count, MPI.DOUBLE, MPI.SUM, root);
                    final double[] redInPlace = contribution(me, count);
                    if (me == root)
                    {
                        c.reduce(redInPlace, count, MPI.DOUBLE, MPI.SUM, root);
                        assertBitwise(expected, red, "reduce to " + root);
                        assertBitwise(expected, redInPlace, "reduce in place to " + root);
                    }
                    else
                    {
                        c.reduce(redInPlace, null, count, MPI.DOUBLE, MPI.SUM, root);
                    }
                }
            }
        });
    }

    /** 2 x 2 int matrices, inout = in x inout: not commutative. */
    private static final class MatrixProduct extends UserFunction
    {
        @Override
        public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        {
            final int[] a = (int[])inVec;
            final int[] b = (int[])inOutVec;
            for (int k = 0; k < count; k++)
            {
                final int p = 4 * k;
                final int b0 = b[p];
                final int b1 = b[p + 1];
                final int b2 = b[p + 2];
                final int b3 = b[p + 3];
                b[p] = a[p] * b0 + a[p + 1] * b2;
                b[p + 1] = a[p] * b1 + a[p + 1] * b3;
                b[p + 2] = a[p + 2] * b0 + a[p + 3] * b2;
                b[p + 3] = a[p + 2] * b1 + a[p + 3] * b3;
            }
        }
    }

    private static int[] matrices(final int r, final int count)
    {
        final int[] m = new int[4 * count];
        for (int k = 0; k < count; k++)
        {
            m[4 * k] = 1 + (r + k) % 3;
            m[4 * k + 1] = k % 5;
            m[4 * k + 2] = r % 2;
            m[4 * k + 3] = 1;
        }
        return m;
    }

    @Test
    void nonCommutativeUserOpAndDerivedTypes()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final Datatype mat = Datatype.createContiguous(4, MPI.INT);
            mat.commit();
            final int count = 700; // 700 matrices: 11,200 bytes
            int[] expected = matrices(0, count);
            for (int r = 1; r < n; r++)
            {
                final int[] next = matrices(r, count);
                new MatrixProduct().call(expected, next, count, mat);
                expected = next;
            }
            final Op op = new Op(new MatrixProduct(), false);
            final int[] out = new int[4 * count];
            c.allReduce(matrices(me, count), out, count, mat, op);
            assertArrayEquals(expected, out, "allReduce with a non-commutative op");
            final int[] red = new int[4 * count];
            c.reduce(matrices(me, count), red, count, mat, op, n - 1);
            if (me == n - 1)
            {
                assertArrayEquals(expected, red, "reduce with a non-commutative op");
            }
            op.free();
            mat.free();

            // Every other int of a strided buffer: the gaps are never written.
            final int items = 3000;
            final Datatype everyOther = Datatype.createVector(items, 1, 2, MPI.INT);
            everyOther.commit();
            final int[] buf = new int[2 * items];
            Arrays.fill(buf, -1);
            if (me == n / 2)
            {
                for (int i = 0; i < items; i++)
                {
                    buf[2 * i] = 7 * i;
                }
            }
            c.bcast(buf, 1, everyOther, n / 2);
            for (int i = 0; i < items; i++)
            {
                assertEquals(7 * i, buf[2 * i], "bcast of a vector, item " + i);
                assertEquals(-1, buf[2 * i + 1], "bcast of a vector, gap " + i);
            }
            final int[] mine = new int[2 * items];
            for (int i = 0; i < items; i++)
            {
                mine[2 * i] = me + i;
                mine[2 * i + 1] = -7;
            }
            final int[] sum = new int[2 * items];
            c.allReduce(mine, sum, 1, everyOther, MPI.SUM);
            for (int i = 0; i < items; i++)
            {
                assertEquals(n * (n - 1) / 2 + n * i, sum[2 * i], "sum of a vector, item " + i);
                assertEquals(0, sum[2 * i + 1], "sum of a vector, gap " + i);
            }
            everyOther.free();
        });
    }

    private static int v(final int r, final int i)
    {
        return 100000 * r + i;
    }

    @Test
    void bcastGatherScatterAllGatherAllToAll()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final int block = 2501; // ints per rank: 10,004 bytes, not a multiple of anything
            for (int root = 0; root < n; root++)
            {
                final int r0 = root;
                final int[] b = new int[block];
                if (me == root)
                {
                    Arrays.setAll(b, i -> v(r0, i));
                }
                c.bcast(b, block, MPI.INT, root);
                final int[] expectB = new int[block];
                Arrays.setAll(expectB, i -> v(r0, i));
                assertArrayEquals(expectB, b, "bcast from " + root);

                final int[] mine = new int[block];
                Arrays.setAll(mine, i -> v(me, i));
                final int[] all = new int[n * block];
                Arrays.setAll(all, i -> v(i / block, i % block));
                final int[] gathered = new int[n * block];
                c.gather(mine, block, MPI.INT, gathered, block, MPI.INT, root);
                if (me == root)
                {
                    assertArrayEquals(all, gathered, "gather to " + root);
                    final int[] inPlace = new int[n * block];
                    System.arraycopy(mine, 0, inPlace, me * block, block);
                    c.gather(inPlace, block, MPI.INT, root);
                    assertArrayEquals(all, inPlace, "gather in place to " + root);
                }
                else
                {
                    c.gather(mine, block, MPI.INT, null, block, MPI.INT, root);
                }

                final int[] part = new int[block];
                c.scatter(me == root ? all : null, block, MPI.INT, part, block, MPI.INT, root);
                assertArrayEquals(mine, part, "scatter from " + root);
                if (me == root)
                {
                    final int[] inPlace = all.clone();
                    c.scatter(inPlace, block, MPI.INT, root);
                    assertArrayEquals(all, inPlace, "scatter in place leaves the root's buffer");
                }
                else
                {
                    final int[] got = new int[block];
                    c.scatter(null, block, MPI.INT, got, block, MPI.INT, root);
                    assertArrayEquals(mine, got, "scatter (root in place) from " + root);
                }
            }

            final int[] mine = new int[block];
            Arrays.setAll(mine, i -> v(me, i));
            final int[] all = new int[n * block];
            Arrays.setAll(all, i -> v(i / block, i % block));
            final int[] gathered = new int[n * block];
            c.allGather(mine, block, MPI.INT, gathered, block, MPI.INT);
            assertArrayEquals(all, gathered, "allGather");
            final int[] inPlace = new int[n * block];
            System.arraycopy(mine, 0, inPlace, me * block, block);
            c.allGather(inPlace, block, MPI.INT);
            assertArrayEquals(all, inPlace, "allGather in place");
            final IntBuffer sendB = MPI.newIntBuffer(block).put(mine);
            final IntBuffer recvB = MPI.newIntBuffer(n * block);
            c.allGather(sendB, block, MPI.INT, recvB, block, MPI.INT);
            final int[] fromBuffer = new int[n * block];
            recvB.get(0, fromBuffer);
            assertArrayEquals(all, fromBuffer, "allGather of direct buffers");

            // Direct buffers in the shared-memory heap: read in place by the other ranks.
            for (int root = 0; root < n; root++)
            {
                final int r0 = root;
                final IntBuffer b = MPI.newIntBuffer(block);
                if (me == root)
                {
                    for (int i = 0; i < block; i++)
                    {
                        b.put(i, v(r0, i));
                    }
                }
                c.bcast(b, block, MPI.INT, root);
                final int[] got = new int[block];
                b.get(0, got);
                final int[] expectB = new int[block];
                Arrays.setAll(expectB, i -> v(r0, i));
                assertArrayEquals(expectB, got, "bcast of a direct buffer from " + root);

                final IntBuffer gatheredB = MPI.newIntBuffer(n * block);
                c.gather(sendB, block, MPI.INT, gatheredB, block, MPI.INT, root);
                if (me == root)
                {
                    final int[] g = new int[n * block];
                    gatheredB.get(0, g);
                    assertArrayEquals(all, g, "gather of direct buffers to " + root);
                }
                final IntBuffer allB = MPI.newIntBuffer(n * block).put(all);
                final IntBuffer part = MPI.newIntBuffer(block);
                c.scatter(allB, block, MPI.INT, part, block, MPI.INT, root);
                final int[] p = new int[block];
                part.get(0, p);
                assertArrayEquals(mine, p, "scatter of a direct buffer from " + root);
            }

            // All-to-all: block r of rank s holds (s, r, i).
            final int each = 1300;
            final int[] send = new int[n * each];
            Arrays.setAll(send, i -> 1_000_000 * me + 1000 * (i / each) + i % each % 1000);
            final int[] recv = new int[n * each];
            c.allToAll(send, each, MPI.INT, recv, each, MPI.INT);
            final int[] expected = new int[n * each];
            Arrays.setAll(expected, i -> 1_000_000 * (i / each) + 1000 * me + i % each % 1000);
            assertArrayEquals(expected, recv, "allToAll");
            final IntBuffer sendD = MPI.newIntBuffer(n * each).put(send);
            final IntBuffer recvD = MPI.newIntBuffer(n * each);
            c.allToAll(sendD, each, MPI.INT, recvD, each, MPI.INT);
            final int[] fromD = new int[n * each];
            recvD.get(0, fromD);
            assertArrayEquals(expected, fromD, "allToAll of direct buffers");
        });
    }
}
