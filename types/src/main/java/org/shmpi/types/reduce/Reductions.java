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
 *
 * <p>The loops themselves, {@code ScalarKernels} and {@code ArrayKernels}, are written at build
 * time by {@code types/src/build/java/org/shmpi/types/build/KernelGenerator.java}, which holds
 * that table; this class puts them together.
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
            ScalarKernels.register(KERNELS);
            final Loop[][] loops = new Loop[COUNT][BasicKind.COUNT];
            ArrayKernels.register(loops);
            for (int op = 0; op < COUNT; op++)
            {
                for (int kind = 1; kind < BasicKind.COUNT; kind++)
                {
                    if (loops[op][kind] != null)
                    {
                        stage(op, kind, BasicKind.primitiveArray(kind), 1, loops[op][kind]);
                    }
                }
            }
            // A complex SUM adds real and imaginary parts alike: the float or double loop over 2n numbers.
            stage(SUM, BasicKind.FLOAT_COMPLEX, float[].class, 2, loops[SUM][BasicKind.FLOAT]);
            stage(SUM, BasicKind.DOUBLE_COMPLEX, double[].class, 2, loops[SUM][BasicKind.DOUBLE]);
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

    /**
     * The element-by-element kernel of {@code op} on {@code kind}, without staging: what the staged ones must
     * equal.
     */
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

    /** Replaces the scalar kernel of {@code op} on {@code kind} by a staged one that runs {@code loop}. */
    private static void stage(final int op, final int kind, final Class<?> arrayClass, final int numbersPerElement,
        final Loop loop)
    {
        Table.KERNELS[op][kind] = new Staged(Table.KERNELS[op][kind], loop, arrayClass, numbersPerElement);
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
}
