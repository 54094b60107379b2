package org.shmpi.types.reduce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.shmpi.types.BasicKind;

/** Every kernel against a reference computed element by element here, on arrays and on direct memory. */
class ReductionsTest
{
    private static final long INTS = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONGS = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long DOUBLES = UnsafeApi.arrayBaseOffset(double[].class);
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long CHARS = UnsafeApi.arrayBaseOffset(char[].class);
    private static final long SHORTS = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long FLOATS = UnsafeApi.arrayBaseOffset(float[].class);

    private final Random random = new Random(42);

    private static long reference(final int op, final long x, final long y)
    {
        switch (op)
        {
            case Reductions.MAX: return Math.max(x, y);
            case Reductions.MIN: return Math.min(x, y);
            case Reductions.SUM: return x + y;
            case Reductions.PROD: return x * y;
            case Reductions.BAND: return x & y;
            case Reductions.BOR: return x | y;
            case Reductions.BXOR: return x ^ y;
            case Reductions.LAND: return x != 0 && y != 0 ? 1 : 0;
            case Reductions.LOR: return x != 0 || y != 0 ? 1 : 0;
            case Reductions.LXOR: return (x != 0) != (y != 0) ? 1 : 0;
            default: throw new AssertionError(op);
        }
    }

    private static final int[] INTEGER_OPS = {Reductions.MAX, Reductions.MIN, Reductions.SUM, Reductions.PROD,
        Reductions.BAND, Reductions.BOR, Reductions.BXOR, Reductions.LAND, Reductions.LOR, Reductions.LXOR};

    @Test
    void integerKernelsWrapAsJavaDoes()
    {
        final int n = 37;
        for (final int op : INTEGER_OPS)
        {
            final int[] a = new int[n];
            final int[] b = new int[n];
            final long[] la = new long[n];
            final long[] lb = new long[n];
            final byte[] ba = new byte[n];
            final byte[] bb = new byte[n];
            final char[] ca = new char[n];
            final char[] cb = new char[n];
            final short[] sa = new short[n];
            final short[] sb = new short[n];
            for (int i = 0; i < n; i++)
            {
                // Small values and zeros, so the logical ops see both truths.
                a[i] = i % 5 == 0 ? 0 : random.nextInt();
                b[i] = i % 7 == 0 ? 0 : random.nextInt();
                la[i] = i % 5 == 0 ? 0 : random.nextLong();
                lb[i] = i % 3 == 0 ? 0 : random.nextLong();
                ba[i] = (byte)a[i];
                bb[i] = (byte)b[i];
                ca[i] = (char)a[i];
                cb[i] = (char)b[i];
                sa[i] = (short)a[i];
                sb[i] = (short)b[i];
            }
            final int[] ei = new int[n];
            final long[] el = new long[n];
            final byte[] eb = new byte[n];
            final char[] ec = new char[n];
            final short[] es = new short[n];
            for (int i = 0; i < n; i++)
            {
                ei[i] = (int)reference(op, a[i], b[i]);
                el[i] = op == Reductions.SUM ? la[i] + lb[i] : op == Reductions.PROD ? la[i] * lb[i] :
                    reference(op, la[i], lb[i]);
                eb[i] = (byte)reference(op, ba[i], bb[i]);
                ec[i] = (char)reference(op, ca[i], cb[i]);
                es[i] = (short)reference(op, sa[i], sb[i]);
            }
            Reductions.kernel(op, BasicKind.INT).apply(a, INTS, b, INTS, n);
            Reductions.kernel(op, BasicKind.LONG).apply(la, LONGS, lb, LONGS, n);
            Reductions.kernel(op, BasicKind.BYTE).apply(ba, BYTES, bb, BYTES, n);
            Reductions.kernel(op, BasicKind.CHAR).apply(ca, CHARS, cb, CHARS, n);
            Reductions.kernel(op, BasicKind.SHORT).apply(sa, SHORTS, sb, SHORTS, n);
            final String what = Reductions.name(op);
            assertArrayEquals(ei, b, what + " INT");
            assertArrayEquals(el, lb, what + " LONG");
            assertArrayEquals(eb, bb, what + " BYTE");
            assertArrayEquals(ec, cb, what + " CHAR (unsigned)");
            assertArrayEquals(es, sb, what + " SHORT");
        }
    }

    @Test
    void floatingPointKernelsOnArraysAndDirectMemory()
    {
        final int n = 29;
        for (final int op : new int[] {Reductions.MAX, Reductions.MIN, Reductions.SUM, Reductions.PROD})
        {
            final double[] a = new double[n];
            final double[] b = new double[n];
            final float[] fa = new float[n];
            final float[] fb = new float[n];
            final double[] e = new double[n];
            final float[] fe = new float[n];
            for (int i = 0; i < n; i++)
            {
                a[i] = random.nextGaussian();
                b[i] = random.nextGaussian();
                fa[i] = (float)a[i];
                fb[i] = (float)b[i];
                e[i] = op == Reductions.MAX ? Math.max(a[i], b[i]) : op == Reductions.MIN ? Math.min(a[i], b[i]) :
                    op == Reductions.SUM ? a[i] + b[i] : a[i] * b[i];
                fe[i] = op == Reductions.MAX ? Math.max(fa[i], fb[i]) : op == Reductions.MIN ? Math.min(fa[i], fb[i]) :
                    op == Reductions.SUM ? fa[i] + fb[i] : fa[i] * fb[i];
            }
            // The double case through direct memory: the kernels take absolute addresses too.
            final ByteBuffer da = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
            final ByteBuffer db = ByteBuffer.allocateDirect(8 * n).order(ByteOrder.nativeOrder());
            da.asDoubleBuffer().put(a);
            db.asDoubleBuffer().put(b);
            Reductions.kernel(op, BasicKind.DOUBLE)
                .apply(null, BufferUtil.address(da), null, BufferUtil.address(db), n);
            final double[] got = new double[n];
            db.asDoubleBuffer().get(got);
            assertArrayEquals(e, got, Reductions.name(op) + " DOUBLE");
            Reductions.kernel(op, BasicKind.FLOAT).apply(fa, FLOATS, fb, FLOATS, n);
            assertArrayEquals(fe, fb, Reductions.name(op) + " FLOAT");
        }
    }

    @Test
    void locKernelsKeepTheValueAndTheSmallerIndexOnTies()
    {
        // DOUBLE_INT: value at 0, index at 8, 16 bytes each.
        final ByteBuffer in = ByteBuffer.allocate(16 * 4).order(ByteOrder.nativeOrder());
        final ByteBuffer io = ByteBuffer.allocate(16 * 4).order(ByteOrder.nativeOrder());
        final double[][] pairs = {{1.0, 5}, {2.0, 3}, {3.0, 9}, {-1.0, 2}};
        final double[][] others = {{1.0, 4}, {1.0, 1}, {4.0, 0}, {-1.0, 7}};
        for (int i = 0; i < 4; i++)
        {
            in.putDouble(16 * i, pairs[i][0]).putInt(16 * i + 8, (int)pairs[i][1]);
            io.putDouble(16 * i, others[i][0]).putInt(16 * i + 8, (int)others[i][1]);
        }
        Reductions.kernel(Reductions.MAXLOC, BasicKind.DOUBLE_INT).apply(in.array(), BYTES, io.array(), BYTES, 4);
        final double[][] expected = {{1.0, 4}, {2.0, 3}, {4.0, 0}, {-1.0, 2}};
        for (int i = 0; i < 4; i++)
        {
            assertEquals(expected[i][0], io.getDouble(16 * i), "value " + i);
            assertEquals((int)expected[i][1], io.getInt(16 * i + 8), "index " + i);
        }
        // INT2 MINLOC.
        final int[] a = {3, 1, 5, 2, 7, 9};
        final int[] b = {3, 0, 6, 8, 1, 4};
        Reductions.kernel(Reductions.MINLOC, BasicKind.INT2).apply(a, INTS, b, INTS, 3);
        assertArrayEquals(new int[] {3, 0, 5, 2, 1, 4}, b);
        // SHORT_INT: the index sits after 2 bytes of padding.
        final ByteBuffer s1 = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
            .putShort(0, (short)-3).putInt(4, 11);
        final ByteBuffer s2 = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder())
            .putShort(0, (short)-3).putInt(4, 10);
        Reductions.kernel(Reductions.MAXLOC, BasicKind.SHORT_INT).apply(s1.array(), BYTES, s2.array(), BYTES, 1);
        assertEquals(-3, s2.getShort(0));
        assertEquals(10, s2.getInt(4));
    }

    @Test
    void complexProductAndTheLogicalOpsOnBoolean()
    {
        final double[] a = {1, 2, 0.5, -1};
        final double[] b = {3, -1, 2, 2};
        Reductions.kernel(Reductions.PROD, BasicKind.DOUBLE_COMPLEX).apply(a, DOUBLES, b, DOUBLES, 2);
        // (1+2i)(3-i) = 5+5i; (0.5-i)(2+2i) = 3-i.
        assertArrayEquals(new double[] {5, 5, 3, -1}, b);
        final byte[] x = {0, 1, 0, 1};
        final byte[] y = {0, 0, 1, 1};
        final byte[] y2 = y.clone();
        final byte[] y3 = y.clone();
        Reductions.kernel(Reductions.LAND, BasicKind.BOOLEAN).apply(x, BYTES, y, BYTES, 4);
        Reductions.kernel(Reductions.LOR, BasicKind.BOOLEAN).apply(x, BYTES, y2, BYTES, 4);
        Reductions.kernel(Reductions.LXOR, BasicKind.BOOLEAN).apply(x, BYTES, y3, BYTES, 4);
        assertArrayEquals(new byte[] {0, 0, 0, 1}, y);
        assertArrayEquals(new byte[] {0, 1, 1, 1}, y2);
        assertArrayEquals(new byte[] {0, 1, 1, 0}, y3);
    }

    @Test
    void complexSumCoversBothPartsOfEveryElement()
    {
        // Two complex numbers each: the sum must reach the imaginary part of the last one.
        final double[] a = {1, 2, 3, 4};
        final double[] b = {10, 20, 30, 40};
        Reductions.kernel(Reductions.SUM, BasicKind.DOUBLE_COMPLEX).apply(a, DOUBLES, b, DOUBLES, 2);
        assertArrayEquals(new double[] {11, 22, 33, 44}, b, "MPI_SUM DOUBLE_COMPLEX");
        final float[] fa = {1, 2, 3, 4};
        final float[] fb = {10, 20, 30, 40};
        Reductions.kernel(Reductions.SUM, BasicKind.FLOAT_COMPLEX).apply(fa, FLOATS, fb, FLOATS, 2);
        assertArrayEquals(new float[] {11, 22, 33, 44}, fb, "MPI_SUM FLOAT_COMPLEX");
    }

    @Test
    void theTableIsMpis()
    {
        assertNull(Reductions.kernel(Reductions.BAND, BasicKind.DOUBLE), "no bitwise op on floating point");
        assertNull(Reductions.kernel(Reductions.LAND, BasicKind.FLOAT));
        assertNull(Reductions.kernel(Reductions.SUM, BasicKind.BOOLEAN), "no arithmetic on logical");
        assertNull(Reductions.kernel(Reductions.BOR, BasicKind.BOOLEAN));
        assertNull(Reductions.kernel(Reductions.MAXLOC, BasicKind.INT), "loc ops on pairs only");
        assertNull(Reductions.kernel(Reductions.SUM, BasicKind.INT2), "no arithmetic on pairs");
        assertNull(Reductions.kernel(Reductions.MAX, BasicKind.DOUBLE_COMPLEX), "complex numbers have no order");
        assertNull(Reductions.kernel(Reductions.SUM, BasicKind.PACKED));
        assertNotNull(Reductions.kernel(Reductions.REPLACE, BasicKind.DOUBLE_INT));
        int defined = 0;
        for (int op = 0; op < Reductions.COUNT; op++)
        {
            for (int kind = 0; kind < BasicKind.COUNT; kind++)
            {
                defined += Reductions.kernel(op, kind) != null ? 1 : 0;
            }
        }
        // 5 integer kinds x 10 ops + 2 floating x 4 + BOOLEAN x 3 + 5 pairs x 2 + 2 complex x 2 + 16 kinds x 2.
        assertEquals(50 + 8 + 3 + 10 + 4 + 32, defined);
    }
}
