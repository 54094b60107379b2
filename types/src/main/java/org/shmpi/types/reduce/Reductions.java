package org.shmpi.types.reduce;

import org.agrona.UnsafeApi;
import org.shmpi.types.BasicKind;

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

    /** The ops that have array loops, in the order {@link #stage} takes them. */
    private static final int[] STAGED_OPS = {MAX, MIN, SUM, PROD, BAND, BOR, BXOR};

    /**
     * The kernel table, built when a kernel is first asked for (not when the class is first used:
     * {@link #name} serves {@code mpi.Op} constants before {@code MPI.Init} has checked that the
     * JVM may use {@code Unsafe}, which building the staged kernels needs).
     */
    private static final class Table
    {
        static final Kernel[][] KERNELS = new Kernel[COUNT][BasicKind.COUNT];

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
            stage(BasicKind.BYTE, byte[].class, 1, new Loop[] {ArrayKernels::maxByte, ArrayKernels::minByte,
                ArrayKernels::sumByte, ArrayKernels::prodByte, ArrayKernels::bandByte, ArrayKernels::borByte,
                ArrayKernels::bxorByte});
            stage(BasicKind.CHAR, char[].class, 1, new Loop[] {ArrayKernels::maxChar, ArrayKernels::minChar,
                ArrayKernels::sumChar, ArrayKernels::prodChar, ArrayKernels::bandChar, ArrayKernels::borChar,
                ArrayKernels::bxorChar});
            stage(BasicKind.SHORT, short[].class, 1, new Loop[] {ArrayKernels::maxShort, ArrayKernels::minShort,
                ArrayKernels::sumShort, ArrayKernels::prodShort, ArrayKernels::bandShort, ArrayKernels::borShort,
                ArrayKernels::bxorShort});
            stage(BasicKind.INT, int[].class, 1, new Loop[] {ArrayKernels::maxInt, ArrayKernels::minInt,
                ArrayKernels::sumInt, ArrayKernels::prodInt, ArrayKernels::bandInt, ArrayKernels::borInt,
                ArrayKernels::bxorInt});
            stage(BasicKind.LONG, long[].class, 1, new Loop[] {ArrayKernels::maxLong, ArrayKernels::minLong,
                ArrayKernels::sumLong, ArrayKernels::prodLong, ArrayKernels::bandLong, ArrayKernels::borLong,
                ArrayKernels::bxorLong});
            stage(BasicKind.FLOAT, float[].class, 1, new Loop[] {ArrayKernels::maxFloat, ArrayKernels::minFloat,
                ArrayKernels::sumFloat, ArrayKernels::prodFloat});
            stage(BasicKind.DOUBLE, double[].class, 1, new Loop[] {ArrayKernels::maxDouble, ArrayKernels::minDouble,
                ArrayKernels::sumDouble, ArrayKernels::prodDouble});
            // A complex SUM adds real and imaginary parts alike: the float or double loop over 2n numbers.
            stage(BasicKind.FLOAT_COMPLEX, float[].class, 2, new Loop[] {null, null, ArrayKernels::sumFloat});
            stage(BasicKind.DOUBLE_COMPLEX, double[].class, 2, new Loop[] {null, null, ArrayKernels::sumDouble});
            for (int kind = 1; kind < BasicKind.COUNT; kind++)
            {
                final int size = BasicKind.size(kind);
                Table.KERNELS[REPLACE][kind] = (a, ao, b, bo, n) -> UnsafeApi.copyMemory(a, ao, b, bo, n * size);
                Table.KERNELS[NO_OP][kind] = (a, ao, b, bo, n) ->
                {
                };
            }
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
        return Table.KERNELS[op][kind];
    }

    /** The element-by-element kernel of {@code op} on {@code kind}, without staging: what the staged ones must equal. */
    static Kernel scalarKernel(final int op, final int kind)
    {
        final Kernel k = kernel(op, kind);
        return k instanceof Staged ? ((Staged)k).scalar : k;
    }

    /**
     * The Java array class on which {@code kernel} runs a vectorised loop when both operands are
     * such arrays at the same index (e.g. {@code double[]}), or null when it has none.
     */
    public static Class<?> arrayClass(final Kernel kernel)
    {
        return kernel instanceof Staged ? ((Staged)kernel).arrayClass : null;
    }

    /** The MPI name of {@code op}, e.g. {@code MPI_SUM}. */
    public static String name(final int op)
    {
        return op >= 0 && op < COUNT ? NAMES[op] : "op " + op;
    }

    private static void put(final int op, final int kind, final Kernel k)
    {
        Table.KERNELS[op][kind] = k;
    }

    /**
     * Replaces the scalar kernels of {@code kind} by staged ones for the ops {@code loops} covers,
     * in the order of {@link #STAGED_OPS} (a null entry keeps the scalar kernel).
     */
    private static void stage(final int kind, final Class<?> arrayClass, final int numbersPerElement,
        final Loop[] loops)
    {
        for (int op = 0; op < loops.length; op++)
        {
            if (loops[op] != null)
            {
                final int code = STAGED_OPS[op];
                Table.KERNELS[code][kind] =
                    new Staged(Table.KERNELS[code][kind], loops[op], arrayClass, numbersPerElement);
            }
        }
    }

    /** One of {@link ArrayKernels}' loops: {@code inout[i] = in[i] op inout[i]} for {@code from <= i < to}. */
    @FunctionalInterface
    interface Loop
    {
        void apply(Object in, Object inout, int from, int to);
    }

    /**
     * A kernel that runs a vectorisable array loop: directly when both operands are arrays of the
     * element type at the same index (a program's own arrays), else through two per-thread staging
     * arrays of {@link #STAGE_BYTES} bytes, the operands copied in and the result back out in
     * chunks. Copying such a chunk costs
     * a small share of a scalar loop over it (see docs/PERFORMANCE.md, "Reduction kernels"). Below
     * {@link #STAGE_MIN_NUMBERS} numbers the scalar kernel runs: staging would cost more than it saves.
     */
    static final class Staged implements Kernel
    {
        private final Kernel scalar;
        private final Loop loop;
        private final Class<?> arrayClass;
        private final long arrayBase;
        private final int shift;
        private final int numbersPerElement;
        private final int slot;

        Staged(final Kernel scalar, final Loop loop, final Class<?> arrayClass, final int numbersPerElement)
        {
            this.scalar = scalar;
            this.loop = loop;
            this.arrayClass = arrayClass;
            this.arrayBase = UnsafeApi.arrayBaseOffset(arrayClass);
            this.shift = Integer.numberOfTrailingZeros(UnsafeApi.arrayIndexScale(arrayClass));
            this.numbersPerElement = numbersPerElement;
            this.slot = Staging.slot(arrayClass);
        }

        @Override
        public void apply(final Object a, final long ao, final Object b, final long bo, final long n)
        {
            final long numbers = n * numbersPerElement;
            if (numbers < STAGE_MIN_NUMBERS)
            {
                scalar.apply(a, ao, b, bo, n);
                return;
            }
            if (ao == bo && isElementArray(a, ao) && isElementArray(b, bo))
            {
                final int from = index(ao);
                loop.apply(a, b, from, from + (int)numbers);
                return;
            }
            final Staging staging = Staging.PER_THREAD.get();
            final Object in = staging.in(slot, arrayClass);
            final Object inout = staging.inout(slot, arrayClass);
            final int chunk = STAGE_BYTES >> shift;
            for (long done = 0; done < numbers; done += chunk)
            {
                final int m = (int)Math.min(chunk, numbers - done);
                final long bytes = (long)m << shift;
                final long at = done << shift;
                UnsafeApi.copyMemory(a, ao + at, in, arrayBase, bytes);
                UnsafeApi.copyMemory(b, bo + at, inout, arrayBase, bytes);
                loop.apply(in, inout, 0, m);
                UnsafeApi.copyMemory(inout, arrayBase, b, bo + at, bytes);
            }
        }

        private boolean isElementArray(final Object base, final long offset)
        {
            return base != null && base.getClass() == arrayClass && ((offset - arrayBase) & ((1L << shift) - 1)) == 0;
        }

        private int index(final long offset)
        {
            return (int)((offset - arrayBase) >> shift);
        }
    }

    /** Bytes of each staging array: two of them stay in a 32 KiB level-1 cache with room to spare. */
    static final int STAGE_BYTES = 4096;
    /** Fewer numbers than this go through the scalar kernel. */
    static final int STAGE_MIN_NUMBERS = 64;

    /** A thread's staging arrays, one pair per element class, made when first used. */
    private static final class Staging
    {
        static final ThreadLocal<Staging> PER_THREAD = ThreadLocal.withInitial(Staging::new);
        private static final Class<?>[] CLASSES = {byte[].class, char[].class, short[].class, int[].class,
            long[].class, float[].class, double[].class};

        private final Object[] in = new Object[CLASSES.length];
        private final Object[] inout = new Object[CLASSES.length];

        static int slot(final Class<?> arrayClass)
        {
            for (int i = 0; i < CLASSES.length; i++)
            {
                if (CLASSES[i] == arrayClass)
                {
                    return i;
                }
            }
            throw new IllegalArgumentException("no staging for " + arrayClass);
        }

        Object in(final int slot, final Class<?> arrayClass)
        {
            Object array = in[slot];
            if (array == null)
            {
                array = in[slot] = newArray(arrayClass);
            }
            return array;
        }

        Object inout(final int slot, final Class<?> arrayClass)
        {
            Object array = inout[slot];
            if (array == null)
            {
                array = inout[slot] = newArray(arrayClass);
            }
            return array;
        }

        private static Object newArray(final Class<?> arrayClass)
        {
            return java.lang.reflect.Array.newInstance(arrayClass.getComponentType(),
                STAGE_BYTES / UnsafeApi.arrayIndexScale(arrayClass));
        }
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
