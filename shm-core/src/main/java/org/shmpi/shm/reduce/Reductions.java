package org.shmpi.shm.reduce;

import org.agrona.UnsafeApi;
import org.shmpi.shm.datatype.BasicKind;

/**
 * The predefined reduction operations as kernels over elements of one {@link BasicKind}, in
 * {@code Unsafe} addressing (an array with a byte offset that includes its base offset, or null
 * with an absolute address), so the same kernel serves Java arrays, packed byte arrays and
 * shared memory. Every kernel computes {@code inout[i] = in[i] op inout[i]} for {@code n}
 * elements, as an MPI user function does. Integer arithmetic wraps as Java's does;
 * {@code CHAR} is unsigned; {@code MAX}/{@code MIN} of floating-point numbers follow
 * {@code Math.max}/{@code Math.min}; {@code MAXLOC}/{@code MINLOC} keep the smaller index on
 * ties.
 *
 * <p>Which op applies to which kind is the MPI table: {@code MAX, MIN, SUM, PROD} on integers
 * ({@code BYTE, CHAR, SHORT, INT, LONG}) and floating point, {@code SUM, PROD} also on the
 * complex kinds; the bitwise ops on integers; the logical ops on integers and {@code BOOLEAN};
 * {@code MINLOC, MAXLOC} on the pair kinds; {@code REPLACE} and {@code NO_OP} on every kind
 * (they serve one-sided accumulates). {@link #kernel} answers null for any other pair.
 */
public final class Reductions
{
    /** A reduction over {@code n} elements of one kind: {@code inout[i] = in[i] op inout[i]}. */
    @FunctionalInterface
    public interface Kernel
    {
        void apply(Object inBase, long inOffset, Object inoutBase, long inoutOffset, long n);
    }

    public static final int MAX = 0;
    public static final int MIN = 1;
    public static final int SUM = 2;
    public static final int PROD = 3;
    public static final int LAND = 4;
    public static final int BAND = 5;
    public static final int LOR = 6;
    public static final int BOR = 7;
    public static final int LXOR = 8;
    public static final int BXOR = 9;
    public static final int MINLOC = 10;
    public static final int MAXLOC = 11;
    public static final int REPLACE = 12;
    public static final int NO_OP = 13;
    /** One above the highest op. */
    public static final int COUNT = 14;

    private static final String[] NAMES = {"MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
        "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};

    private static final Kernel[][] KERNELS = new Kernel[COUNT][BasicKind.COUNT];

    static
    {
        put(MAX, BasicKind.BYTE, Kernels::maxByte);
        put(MIN, BasicKind.BYTE, Kernels::minByte);
        put(SUM, BasicKind.BYTE, Kernels::sumByte);
        put(PROD, BasicKind.BYTE, Kernels::prodByte);
        put(BAND, BasicKind.BYTE, Kernels::bandByte);
        put(BOR, BasicKind.BYTE, Kernels::borByte);
        put(BXOR, BasicKind.BYTE, Kernels::bxorByte);
        put(LAND, BasicKind.BYTE, Kernels::landByte);
        put(LOR, BasicKind.BYTE, Kernels::lorByte);
        put(LXOR, BasicKind.BYTE, Kernels::lxorByte);
        put(MAX, BasicKind.CHAR, Kernels::maxChar);
        put(MIN, BasicKind.CHAR, Kernels::minChar);
        put(SUM, BasicKind.CHAR, Kernels::sumChar);
        put(PROD, BasicKind.CHAR, Kernels::prodChar);
        put(BAND, BasicKind.CHAR, Kernels::bandChar);
        put(BOR, BasicKind.CHAR, Kernels::borChar);
        put(BXOR, BasicKind.CHAR, Kernels::bxorChar);
        put(LAND, BasicKind.CHAR, Kernels::landChar);
        put(LOR, BasicKind.CHAR, Kernels::lorChar);
        put(LXOR, BasicKind.CHAR, Kernels::lxorChar);
        put(MAX, BasicKind.SHORT, Kernels::maxShort);
        put(MIN, BasicKind.SHORT, Kernels::minShort);
        put(SUM, BasicKind.SHORT, Kernels::sumShort);
        put(PROD, BasicKind.SHORT, Kernels::prodShort);
        put(BAND, BasicKind.SHORT, Kernels::bandShort);
        put(BOR, BasicKind.SHORT, Kernels::borShort);
        put(BXOR, BasicKind.SHORT, Kernels::bxorShort);
        put(LAND, BasicKind.SHORT, Kernels::landShort);
        put(LOR, BasicKind.SHORT, Kernels::lorShort);
        put(LXOR, BasicKind.SHORT, Kernels::lxorShort);
        put(MAX, BasicKind.INT, Kernels::maxInt);
        put(MIN, BasicKind.INT, Kernels::minInt);
        put(SUM, BasicKind.INT, Kernels::sumInt);
        put(PROD, BasicKind.INT, Kernels::prodInt);
        put(BAND, BasicKind.INT, Kernels::bandInt);
        put(BOR, BasicKind.INT, Kernels::borInt);
        put(BXOR, BasicKind.INT, Kernels::bxorInt);
        put(LAND, BasicKind.INT, Kernels::landInt);
        put(LOR, BasicKind.INT, Kernels::lorInt);
        put(LXOR, BasicKind.INT, Kernels::lxorInt);
        put(MAX, BasicKind.LONG, Kernels::maxLong);
        put(MIN, BasicKind.LONG, Kernels::minLong);
        put(SUM, BasicKind.LONG, Kernels::sumLong);
        put(PROD, BasicKind.LONG, Kernels::prodLong);
        put(BAND, BasicKind.LONG, Kernels::bandLong);
        put(BOR, BasicKind.LONG, Kernels::borLong);
        put(BXOR, BasicKind.LONG, Kernels::bxorLong);
        put(LAND, BasicKind.LONG, Kernels::landLong);
        put(LOR, BasicKind.LONG, Kernels::lorLong);
        put(LXOR, BasicKind.LONG, Kernels::lxorLong);
        put(MAX, BasicKind.FLOAT, Kernels::maxFloat);
        put(MIN, BasicKind.FLOAT, Kernels::minFloat);
        put(SUM, BasicKind.FLOAT, Kernels::sumFloat);
        put(PROD, BasicKind.FLOAT, Kernels::prodFloat);
        put(MAX, BasicKind.DOUBLE, Kernels::maxDouble);
        put(MIN, BasicKind.DOUBLE, Kernels::minDouble);
        put(SUM, BasicKind.DOUBLE, Kernels::sumDouble);
        put(PROD, BasicKind.DOUBLE, Kernels::prodDouble);
        put(LAND, BasicKind.BOOLEAN, Kernels::landBoolean);
        put(LOR, BasicKind.BOOLEAN, Kernels::lorBoolean);
        put(LXOR, BasicKind.BOOLEAN, Kernels::lxorBoolean);
        put(MAXLOC, BasicKind.INT2, Kernels::maxlocInt2);
        put(MINLOC, BasicKind.INT2, Kernels::minlocInt2);
        put(MAXLOC, BasicKind.SHORT_INT, Kernels::maxlocShortInt);
        put(MINLOC, BasicKind.SHORT_INT, Kernels::minlocShortInt);
        put(MAXLOC, BasicKind.LONG_INT, Kernels::maxlocLongInt);
        put(MINLOC, BasicKind.LONG_INT, Kernels::minlocLongInt);
        put(MAXLOC, BasicKind.FLOAT_INT, Kernels::maxlocFloatInt);
        put(MINLOC, BasicKind.FLOAT_INT, Kernels::minlocFloatInt);
        put(MAXLOC, BasicKind.DOUBLE_INT, Kernels::maxlocDoubleInt);
        put(MINLOC, BasicKind.DOUBLE_INT, Kernels::minlocDoubleInt);
        put(SUM, BasicKind.FLOAT_COMPLEX, Kernels::sumFloatComplex);
        put(PROD, BasicKind.FLOAT_COMPLEX, Kernels::prodFloatComplex);
        put(SUM, BasicKind.DOUBLE_COMPLEX, Kernels::sumDoubleComplex);
        put(PROD, BasicKind.DOUBLE_COMPLEX, Kernels::prodDoubleComplex);
        for (int kind = 1; kind < BasicKind.COUNT; kind++)
        {
            final int size = BasicKind.size(kind);
            KERNELS[REPLACE][kind] = (a, ao, b, bo, n) -> UnsafeApi.copyMemory(a, ao, b, bo, n * size);
            KERNELS[NO_OP][kind] = (a, ao, b, bo, n) ->
            {
            };
        }
    }

    private Reductions()
    {
    }

    /** The kernel of {@code op} on elements of {@code kind}, or null when MPI does not define that pair. */
    public static Kernel kernel(final int op, final int kind)
    {
        if (op < 0 || op >= COUNT || kind < 0 || kind >= BasicKind.COUNT)
        {
            return null;
        }
        return KERNELS[op][kind];
    }

    /** The MPI name of {@code op}, e.g. {@code MPI_SUM}. */
    public static String name(final int op)
    {
        return op >= 0 && op < COUNT ? NAMES[op] : "op " + op;
    }

    private static void put(final int op, final int kind, final Kernel k)
    {
        KERNELS[op][kind] = k;
    }

    /** The loops, one per op and kind, so that each is a simple counted loop the JIT compiles on its own. */
    private static final class Kernels
    {
        private Kernels()
        {
        }

        private static void maxByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x > y ? x : y);
            }
        }

        private static void minByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x < y ? x : y);
            }
        }

        private static void sumByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (byte)(x + y));
            }
        }

        private static void prodByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (byte)(x * y));
            }
        }

        private static void bandByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (byte)(x & y));
            }
        }

        private static void borByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (byte)(x | y));
            }
        }

        private static void bxorByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (byte)(x ^ y));
            }
        }

        private static void landByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x != 0 && y != 0 ? (byte)1 : (byte)0);
            }
        }

        private static void lorByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x != 0 || y != 0 ? (byte)1 : (byte)0);
            }
        }

        private static void lxorByte(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 1; off < end; off += 1)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (x != 0) != (y != 0) ? (byte)1 : (byte)0);
            }
        }

        private static void maxChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, x > y ? x : y);
            }
        }

        private static void minChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, x < y ? x : y);
            }
        }

        private static void sumChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (char)(x + y));
            }
        }

        private static void prodChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (char)(x * y));
            }
        }

        private static void bandChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (char)(x & y));
            }
        }

        private static void borChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (char)(x | y));
            }
        }

        private static void bxorChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (char)(x ^ y));
            }
        }

        private static void landChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, x != 0 && y != 0 ? (char)1 : (char)0);
            }
        }

        private static void lorChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, x != 0 || y != 0 ? (char)1 : (char)0);
            }
        }

        private static void lxorChar(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final char x = UnsafeApi.getChar(a, ao + off);
                final char y = UnsafeApi.getChar(b, bo + off);
                UnsafeApi.putChar(b, bo + off, (x != 0) != (y != 0) ? (char)1 : (char)0);
            }
        }

        private static void maxShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, x > y ? x : y);
            }
        }

        private static void minShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, x < y ? x : y);
            }
        }

        private static void sumShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (short)(x + y));
            }
        }

        private static void prodShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (short)(x * y));
            }
        }

        private static void bandShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (short)(x & y));
            }
        }

        private static void borShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (short)(x | y));
            }
        }

        private static void bxorShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (short)(x ^ y));
            }
        }

        private static void landShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, x != 0 && y != 0 ? (short)1 : (short)0);
            }
        }

        private static void lorShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, x != 0 || y != 0 ? (short)1 : (short)0);
            }
        }

        private static void lxorShort(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 2; off < end; off += 2)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                UnsafeApi.putShort(b, bo + off, (x != 0) != (y != 0) ? (short)1 : (short)0);
            }
        }

        private static void maxInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, Math.max(x, y));
            }
        }

        private static void minInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, Math.min(x, y));
            }
        }

        private static void sumInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x + y);
            }
        }

        private static void prodInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x * y);
            }
        }

        private static void bandInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x & y);
            }
        }

        private static void borInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x | y);
            }
        }

        private static void bxorInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x ^ y);
            }
        }

        private static void landInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x != 0 && y != 0 ? 1 : 0);
            }
        }

        private static void lorInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, x != 0 || y != 0 ? 1 : 0);
            }
        }

        private static void lxorInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                UnsafeApi.putInt(b, bo + off, (x != 0) != (y != 0) ? 1 : 0);
            }
        }

        private static void maxLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, Math.max(x, y));
            }
        }

        private static void minLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, Math.min(x, y));
            }
        }

        private static void sumLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x + y);
            }
        }

        private static void prodLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x * y);
            }
        }

        private static void bandLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x & y);
            }
        }

        private static void borLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x | y);
            }
        }

        private static void bxorLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x ^ y);
            }
        }

        private static void landLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x != 0 && y != 0 ? 1L : 0L);
            }
        }

        private static void lorLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, x != 0 || y != 0 ? 1L : 0L);
            }
        }

        private static void lxorLong(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                UnsafeApi.putLong(b, bo + off, (x != 0) != (y != 0) ? 1L : 0L);
            }
        }

        private static void maxFloat(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                UnsafeApi.putFloat(b, bo + off, Math.max(x, y));
            }
        }

        private static void minFloat(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                UnsafeApi.putFloat(b, bo + off, Math.min(x, y));
            }
        }

        private static void sumFloat(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                UnsafeApi.putFloat(b, bo + off, x + y);
            }
        }

        private static void prodFloat(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 4; off < end; off += 4)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                UnsafeApi.putFloat(b, bo + off, x * y);
            }
        }

        private static void maxDouble(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                UnsafeApi.putDouble(b, bo + off, Math.max(x, y));
            }
        }

        private static void minDouble(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                UnsafeApi.putDouble(b, bo + off, Math.min(x, y));
            }
        }

        private static void sumDouble(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                UnsafeApi.putDouble(b, bo + off, x + y);
            }
        }

        private static void prodDouble(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                UnsafeApi.putDouble(b, bo + off, x * y);
            }
        }

        private static void landBoolean(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0; off < n; off++)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x != 0 && y != 0 ? (byte)1 : (byte)0);
            }
        }

        private static void lorBoolean(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0; off < n; off++)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, x != 0 || y != 0 ? (byte)1 : (byte)0);
            }
        }

        private static void lxorBoolean(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0; off < n; off++)
            {
                final byte x = UnsafeApi.getByte(a, ao + off);
                final byte y = UnsafeApi.getByte(b, bo + off);
                UnsafeApi.putByte(b, bo + off, (x != 0) != (y != 0) ? (byte)1 : (byte)0);
            }
        }

        private static void maxlocInt2(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                if (x > y)
                {
                    UnsafeApi.putInt(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void minlocInt2(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final int x = UnsafeApi.getInt(a, ao + off);
                final int y = UnsafeApi.getInt(b, bo + off);
                if (x < y)
                {
                    UnsafeApi.putInt(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void maxlocShortInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                if (x > y)
                {
                    UnsafeApi.putShort(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void minlocShortInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final short x = UnsafeApi.getShort(a, ao + off);
                final short y = UnsafeApi.getShort(b, bo + off);
                if (x < y)
                {
                    UnsafeApi.putShort(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void maxlocLongInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 16)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                if (x > y)
                {
                    UnsafeApi.putLong(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 8, UnsafeApi.getInt(a, ao + off + 8));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 8, Math.min(UnsafeApi.getInt(a, ao + off + 8), UnsafeApi.getInt(b, bo + off + 8)));
                }
            }
        }

        private static void minlocLongInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 16)
            {
                final long x = UnsafeApi.getLong(a, ao + off);
                final long y = UnsafeApi.getLong(b, bo + off);
                if (x < y)
                {
                    UnsafeApi.putLong(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 8, UnsafeApi.getInt(a, ao + off + 8));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 8, Math.min(UnsafeApi.getInt(a, ao + off + 8), UnsafeApi.getInt(b, bo + off + 8)));
                }
            }
        }

        private static void maxlocFloatInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                if (x > y)
                {
                    UnsafeApi.putFloat(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void minlocFloatInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final float x = UnsafeApi.getFloat(a, ao + off);
                final float y = UnsafeApi.getFloat(b, bo + off);
                if (x < y)
                {
                    UnsafeApi.putFloat(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 4, UnsafeApi.getInt(a, ao + off + 4));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 4, Math.min(UnsafeApi.getInt(a, ao + off + 4), UnsafeApi.getInt(b, bo + off + 4)));
                }
            }
        }

        private static void maxlocDoubleInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 16)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                if (x > y)
                {
                    UnsafeApi.putDouble(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 8, UnsafeApi.getInt(a, ao + off + 8));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 8, Math.min(UnsafeApi.getInt(a, ao + off + 8), UnsafeApi.getInt(b, bo + off + 8)));
                }
            }
        }

        private static void minlocDoubleInt(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 16)
            {
                final double x = UnsafeApi.getDouble(a, ao + off);
                final double y = UnsafeApi.getDouble(b, bo + off);
                if (x < y)
                {
                    UnsafeApi.putDouble(b, bo + off, x);
                    UnsafeApi.putInt(b, bo + off + 8, UnsafeApi.getInt(a, ao + off + 8));
                }
                else if (x == y)
                {
                    UnsafeApi.putInt(b, bo + off + 8, Math.min(UnsafeApi.getInt(a, ao + off + 8), UnsafeApi.getInt(b, bo + off + 8)));
                }
            }
        }

        /** Real and imaginary parts add alike: one float loop over both, 2n floats. */
        private static void sumFloatComplex(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 4)
            {
                UnsafeApi.putFloat(b, bo + off, UnsafeApi.getFloat(a, ao + off) + UnsafeApi.getFloat(b, bo + off));
            }
        }

        private static void prodFloatComplex(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 8; off < end; off += 8)
            {
                final float ar = UnsafeApi.getFloat(a, ao + off);
                final float ai = UnsafeApi.getFloat(a, ao + off + 4);
                final float br = UnsafeApi.getFloat(b, bo + off);
                final float bi = UnsafeApi.getFloat(b, bo + off + 4);
                UnsafeApi.putFloat(b, bo + off, ar * br - ai * bi);
                UnsafeApi.putFloat(b, bo + off + 4, ar * bi + ai * br);
            }
        }

        /** Real and imaginary parts add alike: one double loop over both, 2n doubles. */
        private static void sumDoubleComplex(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 8)
            {
                UnsafeApi.putDouble(b, bo + off, UnsafeApi.getDouble(a, ao + off) + UnsafeApi.getDouble(b, bo + off));
            }
        }

        private static void prodDoubleComplex(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            for (long off = 0, end = n * 16; off < end; off += 16)
            {
                final double ar = UnsafeApi.getDouble(a, ao + off);
                final double ai = UnsafeApi.getDouble(a, ao + off + 8);
                final double br = UnsafeApi.getDouble(b, bo + off);
                final double bi = UnsafeApi.getDouble(b, bo + off + 8);
                UnsafeApi.putDouble(b, bo + off, ar * br - ai * bi);
                UnsafeApi.putDouble(b, bo + off + 8, ar * bi + ai * br);
            }
        }
    }
}
