package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Prequest;
import mpi.Request;
import mpi.UserFunction;

/**
 * Every collective against results computed here: every root, in place or not, arrays and
 * direct buffers, basic and derived datatypes, blocking, nonblocking and persistent; on
 * {@code COMM_WORLD} and on a split that reverses the rank order; at 1, 2, 3, 4, 5 and 8 ranks
 * (oversubscribed on this machine).
 * <p>One file, longer than the house's ~700 lines, because the methods of a class share one job
 * per rank count ({@link MpiTest}): split in two, the suite would start a second set of rank
 * JVMs at 1, 2, 3, 4, 5 and 8 ranks for the same checks.
 */
@MpiTest(np = {1, 2, 3, 4, 5, 8})
class CollectivesTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    private static void onWorldAndReversed(final Consumer<Intracomm> body)
    {
        body.accept(MPI.COMM_WORLD);
        final int n = MPI.COMM_WORLD.getSize();
        final Intracomm reversed = MPI.COMM_WORLD.split(0, n - 1 - MPI.COMM_WORLD.getRank());
        body.accept(reversed);
        reversed.free();
    }

    /** Rank r's value i: distinct across ranks and positions. */
    private static int v(final int r, final int i)
    {
        return 1000 * r + i;
    }

    @Test
    void bcastGatherScatterFromEveryRoot()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            for (int root = 0; root < n; root++)
            {
                final int r0 = root;
                final int[] b = new int[5];
                if (me == root)
                {
                    Arrays.setAll(b, i -> v(r0, i));
                }
                c.bcast(b, 5, MPI.INT, root);
                final int[] expectB = new int[5];
                Arrays.setAll(expectB, i -> v(r0, i));
                assertArrayEquals(expectB, b, "bcast from " + root);

                // Gather 3 ints per rank, then in place.
                final int[] mine = {v(me, 0), v(me, 1), v(me, 2)};
                final int[] all = new int[3 * n];
                c.gather(mine, 3, MPI.INT, all, 3, MPI.INT, root);
                final int[] expect = new int[3 * n];
                Arrays.setAll(expect, k -> v(k / 3, k % 3));
                if (me == root)
                {
                    assertArrayEquals(expect, all, "gather to " + root);
                }
                final int[] inPlace = me == root ? new int[3 * n] : mine.clone();
                if (me == root)
                {
                    System.arraycopy(mine, 0, inPlace, 3 * me, 3);
                }
                c.gather(inPlace, 3, MPI.INT, root);
                if (me == root)
                {
                    assertArrayEquals(expect, inPlace, "in-place gather to " + root);
                }
                // Scatter back, and in place.
                final int[] got = new int[3];
                c.scatter(expect, 3, MPI.INT, got, 3, MPI.INT, root);
                assertArrayEquals(mine, got, "scatter from " + root);
                final int[] scatterIn = me == root ? expect.clone() : new int[3];
                c.scatter(scatterIn, 3, MPI.INT, root);
                if (me != root)
                {
                    assertArrayEquals(mine, scatterIn, "in-place scatter from " + root);
                }
                // Gatherv: rank r sends r + 1 doubles, placed in reverse order of ranks with gaps.
                final int[] counts = new int[n];
                final int[] displs = new int[n];
                int at = 0;
                for (int r = n - 1; r >= 0; r--)
                {
                    counts[r] = r + 1;
                    displs[r] = at + 1;
                    at += r + 2;
                }
                final double[] vmine = new double[me + 1];
                Arrays.setAll(vmine, i -> v(me, i) + 0.5);
                final double[] vall = new double[at];
                Arrays.fill(vall, -1);
                if (me == root)
                {
                    c.gatherv(vmine, me + 1, MPI.DOUBLE, vall, counts, displs, MPI.DOUBLE, root);
                    for (int r = 0; r < n; r++)
                    {
                        for (int i = 0; i <= r; i++)
                        {
                            assertEquals(v(r, i) + 0.5, vall[displs[r] + i], "gatherv block " + r);
                        }
                        assertEquals(-1, vall[displs[r] - 1], "gap before block " + r + " untouched");
                    }
                }
                else
                {
                    c.gatherv(vmine, me + 1, MPI.DOUBLE, root);
                }
                // Scatterv of the same layout back.
                final double[] vback = new double[me + 1];
                if (me == root)
                {
                    c.scatterv(vall, counts, displs, MPI.DOUBLE, vback, me + 1, MPI.DOUBLE, root);
                }
                else
                {
                    c.scatterv(vback, me + 1, MPI.DOUBLE, root);
                }
                assertArrayEquals(vmine, vback, "scatterv from " + root);
            }
        });
    }

    @Test
    void allGatherAndAllToAllAndTheirVariants()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final long[] mine = {v(me, 0), v(me, 1)};
            final long[] all = new long[2 * n];
            c.allGather(mine, 2, MPI.LONG, all, 2, MPI.LONG);
            final long[] expect = new long[2 * n];
            Arrays.setAll(expect, k -> v(k / 2, k % 2));
            assertArrayEquals(expect, all, "allGather");
            final long[] inPlace = new long[2 * n];
            System.arraycopy(mine, 0, inPlace, 2 * me, 2);
            c.allGather(inPlace, 2, MPI.LONG);
            assertArrayEquals(expect, inPlace, "in-place allGather");
            // allGatherv: rank r gives r + 1 shorts.
            final int[] counts = new int[n];
            final int[] displs = new int[n];
            int at = 0;
            for (int r = 0; r < n; r++)
            {
                counts[r] = r + 1;
                displs[r] = at;
                at += r + 1;
            }
            final short[] smine = new short[me + 1];
            Arrays.fill(smine, (short)(me + 7));
            final short[] sall = new short[at];
            c.allGatherv(smine, me + 1, MPI.SHORT, sall, counts, displs, MPI.SHORT);
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i <= r; i++)
                {
                    assertEquals(r + 7, sall[displs[r] + i]);
                }
            }
            // allToAll: to rank r the pair (me, r).
            final int[] send = new int[2 * n];
            for (int r = 0; r < n; r++)
            {
                send[2 * r] = me;
                send[2 * r + 1] = r;
            }
            final int[] recv = new int[2 * n];
            c.allToAll(send, 2, MPI.INT, recv, 2, MPI.INT);
            for (int r = 0; r < n; r++)
            {
                assertEquals(r, recv[2 * r], "allToAll from " + r);
                assertEquals(me, recv[2 * r + 1]);
            }
            // allToAllv: to rank r, r + 1 ints of value me * 100 + r, received packed.
            final int[] sc = new int[n];
            final int[] sd = new int[n];
            final int[] rc = new int[n];
            final int[] rd = new int[n];
            int sAt = 0;
            int rAt = 0;
            for (int r = 0; r < n; r++)
            {
                sc[r] = r + 1;
                sd[r] = sAt;
                sAt += r + 1;
                rc[r] = me + 1;
                rd[r] = rAt;
                rAt += me + 1;
            }
            final int[] vs = new int[sAt];
            for (int r = 0; r < n; r++)
            {
                Arrays.fill(vs, sd[r], sd[r] + sc[r], me * 100 + r);
            }
            final int[] vr = new int[rAt];
            c.allToAllv(vs, sc, sd, MPI.INT, vr, rc, rd, MPI.INT);
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i <= me; i++)
                {
                    assertEquals(r * 100 + me, vr[rd[r] + i], "allToAllv from " + r);
                }
            }
            // allToAllw with byte displacements and a type per peer (ints to even ranks, a vector to odd).
            final Datatype pair = Datatype.createContiguous(2, MPI.INT);
            pair.commit();
            final Datatype[] types = new Datatype[n];
            final int[] wc = new int[n];
            final int[] wd = new int[n];
            for (int r = 0; r < n; r++)
            {
                types[r] = pair;
                wc[r] = 1;
                wd[r] = 8 * r;
            }
            final int[] wsend = new int[2 * n];
            for (int r = 0; r < n; r++)
            {
                wsend[2 * r] = me;
                wsend[2 * r + 1] = -r;
            }
            final int[] wrecv = new int[2 * n];
            c.allToAllw(wsend, wc, wd, types, wrecv, wc, wd, types);
            for (int r = 0; r < n; r++)
            {
                assertEquals(r, wrecv[2 * r]);
                assertEquals(-me, wrecv[2 * r + 1]);
            }
            pair.free();
        });
    }

    @Test
    void reductionsOnEveryRootInPlaceOrNot()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final int[] mine = {me + 1, -me, me * me, 3};
            final int[] sum = new int[4];
            for (int r = 0; r < n; r++)
            {
                sum[0] += r + 1;
                sum[1] += -r;
                sum[2] += r * r;
                sum[3] += 3;
            }
            for (int root = 0; root < n; root++)
            {
                final int[] out = new int[4];
                c.reduce(mine, out, 4, MPI.INT, MPI.SUM, root);
                if (me == root)
                {
                    assertArrayEquals(sum, out, "reduce to " + root);
                }
                final int[] inPlace = mine.clone();
                c.reduce(inPlace, 4, MPI.INT, MPI.SUM, root);
                if (me == root)
                {
                    assertArrayEquals(sum, inPlace, "in-place reduce to " + root);
                }
            }
            final int[] all = new int[4];
            c.allReduce(mine, all, 4, MPI.INT, MPI.SUM);
            assertArrayEquals(sum, all, "allReduce");
            final int[] allIn = mine.clone();
            c.allReduce(allIn, 4, MPI.INT, MPI.SUM);
            assertArrayEquals(sum, allIn, "in-place allReduce");
            // Max and min of doubles on direct buffers.
            final DoubleBuffer d = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asDoubleBuffer();
            d.put(0, me * 1.5).put(1, -me * 1.5);
            final DoubleBuffer dmax = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asDoubleBuffer();
            c.allReduce(d, dmax, 2, MPI.DOUBLE, MPI.MAX);
            assertEquals((n - 1) * 1.5, dmax.get(0));
            assertEquals(0.0, dmax.get(1));
            // reduceScatterBlock: 2 ints per rank; reduceScatter: rank r gets r + 1 ints.
            final int[] block = new int[2 * n];
            Arrays.setAll(block, k -> k + me);
            final int[] mineBlock = new int[2];
            c.reduceScatterBlock(block, mineBlock, 2, MPI.INT, MPI.SUM);
            for (int i = 0; i < 2; i++)
            {
                final int k = 2 * me + i;
                assertEquals(n * k + n * (n - 1) / 2, mineBlock[i], "reduceScatterBlock " + i);
            }
            final int[] counts = new int[n];
            int total = 0;
            for (int r = 0; r < n; r++)
            {
                counts[r] = r + 1;
                total += r + 1;
            }
            final int[] contrib = new int[total];
            Arrays.setAll(contrib, k -> k * (me + 1));
            final int[] part = new int[me + 1];
            c.reduceScatter(contrib, part, counts, MPI.INT, MPI.SUM);
            int start = 0;
            for (int r = 0; r < me; r++)
            {
                start += r + 1;
            }
            for (int i = 0; i <= me; i++)
            {
                assertEquals((start + i) * n * (n + 1) / 2, part[i], "reduceScatter " + i);
            }
            final int[] inPlaceRs = contrib.clone();
            c.reduceScatter(inPlaceRs, counts, MPI.INT, MPI.SUM);
            assertArrayEquals(part, Arrays.copyOf(inPlaceRs, me + 1), "in-place reduceScatter");
            // Scans.
            final long[] s = {me + 1L};
            final long[] scan = new long[1];
            c.scan(s, scan, 1, MPI.LONG, MPI.SUM);
            assertEquals((me + 1L) * (me + 2L) / 2, scan[0], "scan");
            final long[] ex = {-5};
            c.exScan(s, ex, 1, MPI.LONG, MPI.PROD);
            long fact = 1;
            for (int r = 1; r <= me; r++)
            {
                fact *= r;
            }
            assertEquals(me == 0 ? -5 : fact, ex[0], "exScan of products leaves rank 0 alone");
            final long[] scanIn = {me + 1L};
            c.scan(scanIn, 1, MPI.LONG, MPI.SUM);
            assertEquals(scan[0], scanIn[0], "in-place scan");
        });
    }

    /** Every op on every basic type MPI allows it for, against a reduction computed here; every other pair ERR_OP. */
    @Test
    void everyPredefinedOpOnEveryTypeItAllows()
    {
        final Intracomm c = MPI.COMM_WORLD;
        final int n = c.getSize();
        final int me = c.getRank();
        final Op[] ops =
            {MPI.MAX, MPI.MIN, MPI.SUM, MPI.PROD, MPI.LAND, MPI.BAND, MPI.LOR, MPI.BOR, MPI.LXOR, MPI.BXOR};
        for (int o = 0; o < ops.length; o++)
        {
            final Op op = ops[o];
            final boolean arithmetic = o < 4;
            // Integers: every one of them.
            final long[] lin = {me + 2, me % 2, -me - 1, 0x5555L << me};
            final long[] lout = new long[4];
            c.allReduce(lin, lout, 4, MPI.LONG, op);
            final int[] iin = new int[4];
            final short[] sin = new short[4];
            final byte[] bin = new byte[4];
            final char[] cin = new char[4];
            for (int i = 0; i < 4; i++)
            {
                iin[i] = (int)lin[i];
                sin[i] = (short)lin[i];
                bin[i] = (byte)lin[i];
                cin[i] = (char)lin[i];
            }
            final int[] iout = new int[4];
            final short[] sout = new short[4];
            final byte[] bout = new byte[4];
            final char[] cout = new char[4];
            c.allReduce(iin, iout, 4, MPI.INT, op);
            c.allReduce(sin, sout, 4, MPI.SHORT, op);
            c.allReduce(bin, bout, 4, MPI.BYTE, op);
            c.allReduce(cin, cout, 4, MPI.CHAR, op);
            for (int i = 0; i < 4; i++)
            {
                long e = 0;
                int ei = 0;
                for (int r = 0; r < n; r++)
                {
                    final long[] theirs = {r + 2, r % 2, -r - 1, 0x5555L << r};
                    e = r == 0 ? theirs[i] : combine(o, e, theirs[i]);
                    ei = r == 0 ? (int)theirs[i] : (int)combine(o, ei, (int)theirs[i]);
                }
                assertEquals(e, lout[i], op + " LONG " + i);
                assertEquals(ei, iout[i], op + " INT " + i);
            }
            if (arithmetic)
            {
                // Values whose sums and products are exact in float, whatever the order of combining.
                final double[] din = {1 + me % 2, -(me % 3) - 0.5};
                final double[] dout = new double[2];
                c.allReduce(din, dout, 2, MPI.DOUBLE, op);
                final float[] fin = {1 + me % 2, -(me % 3) - 0.5f};
                final float[] fout = new float[2];
                c.allReduce(fin, fout, 2, MPI.FLOAT, op);
                for (int i = 0; i < 2; i++)
                {
                    double e = 0;
                    float ef = 0;
                    for (int r = 0; r < n; r++)
                    {
                        final double[] theirs = {1 + r % 2, -(r % 3) - 0.5};
                        e = r == 0 ? theirs[i] : combineDouble(o, e, theirs[i]);
                        ef = r == 0 ? (float)theirs[i] : (float)combineDouble(o, ef, (float)theirs[i]);
                    }
                    assertEquals(e, dout[i], op + " DOUBLE " + i);
                    assertEquals(ef, fout[i], op + " FLOAT " + i);
                }
                assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
                    () -> c.allReduce(new boolean[1], new boolean[1], 1, MPI.BOOLEAN, op)).getErrorClass());
            }
            else
            {
                assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
                    () -> c.allReduce(new double[1], new double[1], 1, MPI.DOUBLE, op)).getErrorClass());
            }
        }
        // The logical ops on booleans.
        final boolean[] b = {me % 2 == 0, true, false};
        final boolean[] land = new boolean[3];
        final boolean[] lor = new boolean[3];
        c.allReduce(b, land, 3, MPI.BOOLEAN, MPI.LAND);
        c.allReduce(b, lor, 3, MPI.BOOLEAN, MPI.LOR);
        assertArrayEquals(new boolean[] {n == 1, true, false}, land);
        assertArrayEquals(new boolean[] {true, true, false}, lor);
        // MAXLOC / MINLOC on pairs: values tie across ranks, the smaller index wins.
        final ByteBuffer pairs = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        pairs.putInt(0, me % 3).putInt(4, me).putInt(8, -(me % 2)).putInt(12, me);
        final ByteBuffer loc = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        c.allReduce(pairs, loc, 2, MPI.INT2, MPI.MAXLOC);
        final int maxValue = Math.min(n - 1, 2);
        assertEquals(maxValue, loc.getInt(0));
        assertEquals(maxValue, loc.getInt(4), "first rank holding the maximum");
        c.allReduce(pairs, loc, 2, MPI.INT2, MPI.MINLOC);
        assertEquals(0, loc.getInt(0));
        assertEquals(0, loc.getInt(4));
        assertEquals(n > 1 ? -1 : 0, loc.getInt(8));
        assertEquals(n > 1 ? 1 : 0, loc.getInt(12), "first rank holding the minimum");
        assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
            () -> c.allReduce(new int[1], new int[1], 1, MPI.INT, MPI.MAXLOC)).getErrorClass());
        assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
            () -> c.allReduce(new int[1], new int[1], 1, MPI.INT, MPI.REPLACE)).getErrorClass());
    }

    private static long combine(final int op, final long x, final long y)
    {
        switch (op)
        {
            case 0: return Math.max(x, y);
            case 1: return Math.min(x, y);
            case 2: return x + y;
            case 3: return x * y;
            case 4: return x != 0 && y != 0 ? 1 : 0;
            case 5: return x & y;
            case 6: return x != 0 || y != 0 ? 1 : 0;
            case 7: return x | y;
            case 8: return (x != 0) != (y != 0) ? 1 : 0;
            case 9: return x ^ y;
            default: throw new AssertionError(op);
        }
    }

    private static double combineDouble(final int op, final double x, final double y)
    {
        switch (op)
        {
            case 0: return Math.max(x, y);
            case 1: return Math.min(x, y);
            case 2: return x + y;
            case 3: return x * y;
            default: throw new AssertionError(op);
        }
    }

    /** 2 x 2 int matrices, row-major, multiplied in rank order; through arrays and through buffers. */
    private static final class MatrixProduct extends UserFunction
    {
        private final boolean arrays;

        MatrixProduct(final boolean arrays)
        {
            this.arrays = arrays;
        }

        @Override
        public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        {
            if (!arrays)
            {
                throw new UnsupportedOperationException();
            }
            final int[] a = (int[])inVec;
            final int[] b = (int[])inOutVec;
            for (int i = 0; i < count; i++)
            {
                final int[] z =
                    multiply(Arrays.copyOfRange(a, 4 * i, 4 * i + 4), Arrays.copyOfRange(b, 4 * i, 4 * i + 4));
                System.arraycopy(z, 0, b, 4 * i, 4);
            }
        }

        @Override
        public void call(final ByteBuffer in, final ByteBuffer inOut, final int count, final Datatype datatype)
        {
            if (arrays)
            {
                throw new UnsupportedOperationException();
            }
            final IntBuffer a = in.asIntBuffer();
            final IntBuffer b = inOut.asIntBuffer();
            for (int i = 0; i < count; i++)
            {
                final int[] x = new int[4];
                final int[] y = new int[4];
                a.get(4 * i, x);
                b.get(4 * i, y);
                b.put(4 * i, multiply(x, y));
            }
        }
    }

    private static int[] multiply(final int[] x, final int[] y)
    {
        return new int[] {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
            x[2] * y[1] + x[3] * y[3]};
    }

    private static int[] matrix(final int r)
    {
        return new int[] {1 + r, 2, r % 3, 1};
    }

    @Test
    void userOpsAreAppliedInRankOrder()
    {
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final Datatype mat = Datatype.createContiguous(4, MPI.INT);
            mat.commit();
            int[] expected = matrix(0);
            for (int r = 1; r < n; r++)
            {
                expected = multiply(expected, matrix(r));
            }
            for (final boolean arrays : new boolean[] {true, false})
            {
                final Op op = new Op(new MatrixProduct(arrays), false);
                assertFalse(op.isCommutative());
                // Both forms are tried whichever buffers are given: arrays here.
                final int[] out = new int[4];
                c.allReduce(matrix(me), out, 1, mat, op);
                assertArrayEquals(expected, out, "allReduce, arrays=" + arrays);
                final int[] red = new int[4];
                c.reduce(matrix(me), red, 1, mat, op, n - 1);
                if (me == n - 1)
                {
                    assertArrayEquals(expected, red, "reduce to the last rank");
                }
                // Scan: the product of ranks 0..me.
                int[] prefix = matrix(0);
                for (int r = 1; r <= me; r++)
                {
                    prefix = multiply(prefix, matrix(r));
                }
                final int[] scan = new int[4];
                c.scan(matrix(me), scan, 1, mat, op);
                assertArrayEquals(prefix, scan, "scan");
                op.free();
                assertTrue(op.isNull());
                assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
                    () -> c.allReduce(matrix(me), new int[4], 1, mat, op)).getErrorClass(), "freed op");
            }
            final int[] local = matrix(5);
            Comm.reduceLocal(matrix(2), local, 1, mat, new Op(new MatrixProduct(true), false));
            assertArrayEquals(multiply(matrix(2), matrix(5)), local, "reduceLocal: in op inout");
            mat.free();
            assertEquals(MPI.ERR_OP, assertThrows(MPIException.class, MPI.SUM::free).getErrorClass());
        });
    }

    /** A derived type (every other int) through bcast, allGather and a sum. */
    /**
     * reduceLocal with predefined ops: on two arrays (the kernel runs on them in place), an array
     * slice against a direct buffer, a heap-buffer slice, and a strided derived type (packed); long
     * enough to take the vectorised loops, element by element against a loop here.
     */
    @Test
    void reduceLocalWithPredefinedOpsOnEveryKindOfMemory()
    {
        final int len = 1000;
        final double[] in = new double[len + 3];
        final double[] base = new double[len + 3];
        final java.util.Random random = new java.util.Random(5 + MPI.COMM_WORLD.getRank());
        for (int i = 0; i < in.length; i++)
        {
            in[i] = random.nextGaussian();
            base[i] = random.nextGaussian();
        }
        final Op[] ops = {MPI.SUM, MPI.MAX, MPI.MIN, MPI.PROD};
        for (final Op op : ops)
        {
            final double[] expected = base.clone();
            for (int i = 0; i < len; i++)
            {
                final double x = in[i];
                final double y = base[i];
                expected[i] =
                    op == MPI.SUM ? x + y : op == MPI.MAX ? Math.max(x, y) : op == MPI.MIN ? Math.min(x, y) : x * y;
            }
            final double[] arrays = base.clone();
            Comm.reduceLocal(in, arrays, len, MPI.DOUBLE, op);
            assertArrayEquals(expected, arrays, "arrays " + op);

            final java.nio.DoubleBuffer direct = MPI.newDoubleBuffer(len);
            direct.put(0, base, 0, len);
            Comm.reduceLocal(in, direct, len, MPI.DOUBLE, op);
            final double[] back = new double[len];
            direct.get(0, back);
            assertArrayEquals(java.util.Arrays.copyOf(expected, len), back, "array into direct buffer " + op);

            // Slices: in from element 3, inout from element 3 (shifted copies of the same data).
            final double[] shiftedIn = new double[len + 3];
            final double[] shiftedOut = new double[len + 3];
            System.arraycopy(in, 0, shiftedIn, 3, len);
            System.arraycopy(base, 0, shiftedOut, 3, len);
            Comm.reduceLocal(MPI.slice(shiftedIn, 3), MPI.slice(shiftedOut, 3), len, MPI.DOUBLE, op);
            assertArrayEquals(java.util.Arrays.copyOf(expected, len),
                java.util.Arrays.copyOfRange(shiftedOut, 3, len + 3), "slices " + op);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(0.0, shiftedOut[i], "before the slice " + op);
            }

            // Every other element: a derived type, so packed.
            final Datatype everyOther = Datatype.createVector(len / 2, 1, 2, MPI.DOUBLE);
            everyOther.commit();
            final double[] strided = base.clone();
            Comm.reduceLocal(in, strided, 1, everyOther, op);
            for (int i = 0; i < len; i++)
            {
                assertEquals(i % 2 == 0 ? expected[i] : base[i], strided[i], "strided " + op + " element " + i);
            }
            everyOther.free();
        }
        final long[] lin = {5, 6, 7, 8, 9};
        final long[] lout = {1, 2, 3, 4, 5};
        Comm.reduceLocal(lin, lout, 5, MPI.LONG, MPI.BXOR);
        assertArrayEquals(new long[] {5 ^ 1, 6 ^ 2, 7 ^ 3, 8 ^ 4, 9 ^ 5}, lout, "BXOR on long");
        assertEquals(MPI.ERR_OP, assertThrows(MPIException.class,
            () -> Comm.reduceLocal(in, base, len, MPI.DOUBLE, MPI.BXOR)).getErrorClass(), "BXOR on double");
    }

    @Test
    void derivedDatatypes()
    {
        final Intracomm c = MPI.COMM_WORLD;
        final int n = c.getSize();
        final int me = c.getRank();
        final Datatype everyOther = Datatype.createVector(3, 1, 2, MPI.INT);
        everyOther.commit();
        final int[] buf = new int[5];
        Arrays.fill(buf, -1);
        if (me == 0)
        {
            buf[0] = 10;
            buf[2] = 20;
            buf[4] = 30;
        }
        c.bcast(buf, 1, everyOther, 0);
        assertArrayEquals(new int[] {10, -1, 20, -1, 30}, buf, "the gaps are not written");
        final int[] mine = {me, -7, me, -7, me};
        final int[] sum = new int[5];
        c.allReduce(mine, sum, 1, everyOther, MPI.SUM);
        final int s = n * (n - 1) / 2;
        assertArrayEquals(new int[] {s, 0, s, 0, s}, sum);
        everyOther.free();
    }

    @Test
    void nonblockingOverlapWithPointToPointAndEachOther()
    {
        final Intracomm c = MPI.COMM_WORLD;
        final int n = c.getSize();
        final int me = c.getRank();
        final IntBuffer sum = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).asIntBuffer();
        final IntBuffer mine = ByteBuffer.allocateDirect(4).order(ByteOrder.nativeOrder()).asIntBuffer();
        mine.put(0, me + 1);
        final Request r1 = c.iAllReduce(mine, sum, 1, MPI.INT, MPI.SUM);
        final int[] gathered = new int[n];
        final Request r2 = c.iAllGather(new int[] {me * 3}, 1, MPI.INT, gathered, 1, MPI.INT);
        final Request r3 = c.iBarrier();
        final int[] b = new int[1];
        if (me == 0)
        {
            b[0] = 99;
        }
        final Request r4 = c.iBcast(b, 1, MPI.INT, 0);
        // Point-to-point traffic on the same communicator meanwhile.
        final int[] got = new int[1];
        c.sendRecv(new int[] {me}, 1, MPI.INT, (me + 1) % n, 3, got, 1, MPI.INT, (me + n - 1) % n, 3);
        assertEquals((me + n - 1) % n, got[0]);
        Request.waitAll(new Request[] {r4, r3, r2, r1});
        assertEquals(n * (n + 1) / 2, sum.get(0));
        for (int r = 0; r < n; r++)
        {
            assertEquals(r * 3, gathered[r]);
        }
        assertEquals(99, b[0]);
        // Completion callbacks run.
        final int[] seen = new int[1];
        final Request r5 = c.iBarrier();
        r5.onComplete(rq -> seen[0]++);
        r5.waitFor();
        assertEquals(1, seen[0]);
        // Detached: no request; the callbacks run during later MPI calls of this rank.
        final int[] detachedSum = new int[1];
        final int[] calls = new int[2];
        c.iAllReduceDetached(new int[] {me + 1}, detachedSum, 1, MPI.INT, MPI.SUM, st -> calls[0]++);
        c.iBarrierDetached(st -> calls[1]++);
        while (calls[0] + calls[1] < 2)
        {
            MPI.progress();
        }
        assertEquals(n * (n + 1) / 2, detachedSum[0], "detached allreduce");
        assertEquals(1, calls[0]);
        assertEquals(1, calls[1]);
    }

    @Test
    void persistentCollectivesStartedAHundredTimes()
    {
        final Intracomm c = MPI.COMM_WORLD;
        final int n = c.getSize();
        final int me = c.getRank();
        final int[] in = new int[1];
        final int[] out = new int[1];
        final Prequest allReduce = c.allReduceInit(in, out, 1, MPI.INT, MPI.SUM);
        final int[] b = new int[1];
        final Prequest bcast = c.bcastInit(b, 1, MPI.INT, n - 1);
        final Prequest barrier = c.barrierInit();
        for (int k = 0; k < 100; k++)
        {
            in[0] = me * k;
            if (me == n - 1)
            {
                b[0] = k;
            }
            Prequest.startAll(new Prequest[] {allReduce, bcast, barrier});
            Request.waitAll(new Request[] {allReduce, bcast, barrier});
            assertEquals(k * n * (n - 1) / 2, out[0], "allReduce start " + k);
            assertEquals(k, b[0], "bcast start " + k);
        }
        allReduce.free();
        bcast.free();
        barrier.free();
    }

    @Test
    void badArgumentsGetTheirClassesBeforeAnythingMoves()
    {
        final Intracomm c = MPI.COMM_WORLD;
        final int n = c.getSize();
        assertEquals(MPI.ERR_ROOT, assertThrows(MPIException.class, () -> c.bcast(new int[1], 1, MPI.INT, n))
            .getErrorClass());
        assertEquals(MPI.ERR_ROOT, assertThrows(MPIException.class, () -> c.reduce(new int[1], new int[1], 1, MPI.INT,
            MPI.SUM, -1)).getErrorClass());
        assertEquals(MPI.ERR_COUNT, assertThrows(MPIException.class, () -> c.allReduce(new int[1], new int[1], -1,
            MPI.INT, MPI.SUM)).getErrorClass());
        assertEquals(MPI.ERR_BUFFER, assertThrows(MPIException.class, () -> c.allReduce(new int[1], new int[1], 2,
            MPI.INT, MPI.SUM)).getErrorClass());
        assertEquals(MPI.ERR_BUFFER, assertThrows(MPIException.class, () -> c.allGather(new int[1], 1, MPI.INT,
            new int[n - 1], 1, MPI.INT)).getErrorClass(), "a receive buffer without room for every block");
        final Datatype uncommitted = Datatype.createContiguous(2, MPI.INT);
        assertEquals(MPI.ERR_TYPE, assertThrows(MPIException.class, () -> c.bcast(new int[2], 1, uncommitted, 0))
            .getErrorClass());
        assertEquals(MPI.ERR_OP, assertThrows(MPIException.class, () -> c.allReduce(new int[1], new int[1], 1, MPI.INT,
            null)).getErrorClass());
        uncommitted.free();
        // After all the failures, the communicator still works: nothing was half sent.
        final int[] sum = new int[1];
        c.allReduce(new int[] {1}, sum, 1, MPI.INT, MPI.SUM);
        assertEquals(n, sum[0]);
    }
}
