package org.shmpi.bench.jmh;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.shmpi.types.BasicKind;
import org.shmpi.types.reduce.Reductions;

/**
 * The predefined reduction kernels ({@link Reductions#kernel}) over two operands of
 * {@code bytes} bytes each: one op is one {@code inout[i] = in[i] op inout[i]} over the whole
 * operand, as a collective's fold does per member. Next to them, anchors of the same bytes: a
 * plain {@code double[]} loop {@code b[i] += a[i]} (what C2 vectorises best), the same sum
 * through {@code Unsafe} with an {@code int} index (heap and off-heap), and a copy
 * ({@code System.arraycopy}, or {@code Unsafe.copyMemory} off-heap).
 *
 * <p>{@code memory}: both operands in {@code byte[]}s ({@code heap}, what the collectives pass
 * having packed or copied out of shared memory), both off-heap in 64-byte-aligned direct buffers
 * addressed as null + absolute address ({@code offheap}, as a shared-memory segment is), or both in
 * arrays of the element type ({@code array}: {@code double[]} for DOUBLE, as a program holds its
 * data; the pair kinds, which have no such array, stay in {@code byte[]}). The staged kernels run
 * their array loop directly in the last case and stage the operands through small arrays in the
 * other two.
 *
 * <p>JMH prints ns/op; {@code bench/reduction-gbps} turns its CSV into GB/s of bytes touched (a
 * reduction or an add loop reads both operands and writes one: 3 x {@code bytes}; a copy reads
 * one and writes one: 2 x {@code bytes}).
 *
 * <p>The operands are not reset between ops, so values must stay normal numbers for ever:
 * floating-point {@code PROD} multiplies by +-1 and {@code SUM} adds numbers in [0, 1). After the
 * first op {@code MAX}, {@code MIN} and {@code MAXLOC} meet operands where {@code inout} already
 * holds the result (a steady, data-dependent pattern: half the {@code MAXLOC} pairs tie).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class ReductionBenchmark
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long DOUBLES = UnsafeApi.arrayBaseOffset(double[].class);
    private static final int ALIGNMENT = 64;

    /** Two operands of one kernel's kind, on the heap or off it. */
    @State(Scope.Thread)
    public static class Operands
    {
        /** {@code OP/KIND} with the names of the constants of {@link Reductions} and {@link BasicKind}. */
        @Param({"SUM/DOUBLE", "SUM/FLOAT", "SUM/INT", "SUM/LONG", "MAX/DOUBLE", "MIN/INT", "BXOR/LONG",
            "PROD/DOUBLE", "MAXLOC/DOUBLE_INT", "SUM/DOUBLE_COMPLEX"})
        public String reduction;

        /** Bytes of each operand. */
        @Param({"4096", "65536", "1048576"})
        public int bytes;

        @Param({"heap", "offheap", "array"})
        public String memory;

        Reductions.Kernel kernel;
        long n;
        Object inBase;
        long inOffset;
        Object inoutBase;
        long inoutOffset;
        /** Keeps the direct buffers reachable: the kernels see only their addresses. */
        private ByteBuffer[] direct;

        @Setup(Level.Trial)
        public void setup() throws ReflectiveOperationException
        {
            final String[] parts = reduction.split("/");
            if (parts.length != 2)
            {
                throw new IllegalArgumentException("reduction=" + reduction + ": expected OP/KIND, e.g. SUM/DOUBLE");
            }
            final int op = Reductions.class.getField(parts[0]).getInt(null);
            final int kind = BasicKind.class.getField(parts[1]).getInt(null);
            kernel = Reductions.kernel(op, kind);
            if (kernel == null)
            {
                throw new IllegalArgumentException("reduction=" + reduction + ": MPI defines no such kernel");
            }
            final int size = BasicKind.size(kind);
            if (bytes % size != 0)
            {
                throw new IllegalArgumentException("bytes=" + bytes + " is not a multiple of size=" + size);
            }
            n = bytes / size;
            if ("heap".equals(memory))
            {
                inBase = new byte[bytes];
                inOffset = BYTES;
                inoutBase = new byte[bytes];
                inoutOffset = BYTES;
            }
            else if ("offheap".equals(memory))
            {
                direct = new ByteBuffer[] {BufferUtil.allocateDirectAligned(bytes, ALIGNMENT),
                    BufferUtil.allocateDirectAligned(bytes, ALIGNMENT)};
                inOffset = BufferUtil.address(direct[0]);
                inoutOffset = BufferUtil.address(direct[1]);
            }
            else if ("array".equals(memory))
            {
                final Class<?> arrayClass = elementArray(kind);
                final int scale = UnsafeApi.arrayIndexScale(arrayClass);
                inBase = java.lang.reflect.Array.newInstance(arrayClass.getComponentType(), bytes / scale);
                inOffset = UnsafeApi.arrayBaseOffset(arrayClass);
                inoutBase = java.lang.reflect.Array.newInstance(arrayClass.getComponentType(), bytes / scale);
                inoutOffset = inOffset;
            }
            else
            {
                throw new IllegalArgumentException("memory=" + memory + ": expected heap, offheap or array");
            }
            final Random random = new Random(11);
            fill(inBase, inOffset, kind, op == Reductions.PROD, random);
            fill(inoutBase, inoutOffset, kind, false, random);
        }

        /**
         * The Java array a program would hold {@code kind} in: its primitive array, the component's
         * for the complex kinds; the pair kinds have none, so they stay in {@code byte[]}.
         */
        private static Class<?> elementArray(final int kind)
        {
            if (kind == BasicKind.FLOAT_COMPLEX || kind == BasicKind.DOUBLE_COMPLEX)
            {
                return kind == BasicKind.FLOAT_COMPLEX ? float[].class : double[].class;
            }
            final Class<?> array = BasicKind.primitiveArray(kind);
            return array != null ? array : byte[].class;
        }

        /** Fills n elements of {@code kind} with values that stay normal numbers under repeated ops. */
        private void fill(final Object base, final long offset, final int kind, final boolean unit, final Random r)
        {
            for (long i = 0, at = offset; i < n; i++, at += BasicKind.size(kind))
            {
                switch (kind)
                {
                    case BasicKind.BYTE:
                    case BasicKind.BOOLEAN:
                        UnsafeApi.putByte(base, at, (byte)(unit ? 1 : r.nextInt(2)));
                        break;
                    case BasicKind.CHAR:
                    case BasicKind.SHORT:
                        UnsafeApi.putShort(base, at, (short)(unit ? 1 : r.nextInt()));
                        break;
                    case BasicKind.INT:
                        UnsafeApi.putInt(base, at, unit ? 1 : r.nextInt());
                        break;
                    case BasicKind.LONG:
                        UnsafeApi.putLong(base, at, unit ? 1 : r.nextLong());
                        break;
                    case BasicKind.FLOAT:
                        UnsafeApi.putFloat(base, at, (float)value(unit, r));
                        break;
                    case BasicKind.DOUBLE:
                        UnsafeApi.putDouble(base, at, value(unit, r));
                        break;
                    case BasicKind.FLOAT_COMPLEX:
                        UnsafeApi.putFloat(base, at, (float)value(unit, r));
                        UnsafeApi.putFloat(base, at + 4, unit ? 0f : (float)value(false, r));
                        break;
                    case BasicKind.DOUBLE_COMPLEX:
                        UnsafeApi.putDouble(base, at, value(unit, r));
                        UnsafeApi.putDouble(base, at + 8, unit ? 0.0 : value(false, r));
                        break;
                    case BasicKind.INT2:
                    case BasicKind.SHORT_INT:
                    case BasicKind.LONG_INT:
                    case BasicKind.FLOAT_INT:
                    case BasicKind.DOUBLE_INT:
                        fillPair(base, at, kind, r);
                        break;
                    default:
                        throw new IllegalArgumentException("kind=" + kind + ": no filler");
                }
            }
        }

        private static double value(final boolean unit, final Random r)
        {
            return unit ? (r.nextBoolean() ? 1.0 : -1.0) : r.nextDouble();
        }

        private static void fillPair(final Object base, final long at, final int kind, final Random r)
        {
            final int index = r.nextInt(1 << 20);
            switch (kind)
            {
                case BasicKind.INT2:
                    UnsafeApi.putInt(base, at, r.nextInt(1000));
                    break;
                case BasicKind.SHORT_INT:
                    UnsafeApi.putShort(base, at, (short)r.nextInt(1000));
                    break;
                case BasicKind.LONG_INT:
                    UnsafeApi.putLong(base, at, r.nextInt(1000));
                    break;
                case BasicKind.FLOAT_INT:
                    UnsafeApi.putFloat(base, at, r.nextInt(1000));
                    break;
                default:
                    UnsafeApi.putDouble(base, at, r.nextInt(1000));
                    break;
            }
            UnsafeApi.putInt(base, at + BasicKind.indexOffset(kind), index);
        }
    }

    /** Two {@code double[]}s of {@code bytes} bytes each, for the plain-loop anchors. */
    @State(Scope.Thread)
    public static class Doubles
    {
        @Param({"4096", "65536", "1048576"})
        public int bytes;

        double[] a;
        double[] b;

        @Setup(Level.Trial)
        public void setup()
        {
            final Random random = new Random(11);
            a = new double[bytes / 8];
            b = new double[bytes / 8];
            for (int i = 0; i < a.length; i++)
            {
                a[i] = random.nextDouble();
                b[i] = random.nextDouble();
            }
        }
    }

    /** Two operands of {@code bytes} bytes of doubles, on the heap ({@code double[]}) or off it. */
    @State(Scope.Thread)
    public static class RawDoubles
    {
        @Param({"4096", "65536", "1048576"})
        public int bytes;

        @Param({"heap", "offheap"})
        public String memory;

        int n;
        Object aBase;
        long aOffset;
        Object bBase;
        long bOffset;
        private ByteBuffer[] direct;

        @Setup(Level.Trial)
        public void setup()
        {
            n = bytes / 8;
            if ("heap".equals(memory))
            {
                aBase = new double[n];
                bBase = new double[n];
                aOffset = DOUBLES;
                bOffset = DOUBLES;
            }
            else if ("offheap".equals(memory))
            {
                direct = new ByteBuffer[] {BufferUtil.allocateDirectAligned(bytes, ALIGNMENT),
                    BufferUtil.allocateDirectAligned(bytes, ALIGNMENT)};
                aOffset = BufferUtil.address(direct[0]);
                bOffset = BufferUtil.address(direct[1]);
            }
            else
            {
                throw new IllegalArgumentException("memory=" + memory + ": expected heap or offheap");
            }
            final Random random = new Random(11);
            for (int i = 0; i < n; i++)
            {
                UnsafeApi.putDouble(aBase, aOffset + 8L * i, random.nextDouble());
                UnsafeApi.putDouble(bBase, bOffset + 8L * i, random.nextDouble());
            }
        }
    }

    /** A source and a destination of {@code bytes} bytes, on the heap or off it, for the copy anchor. */
    @State(Scope.Thread)
    public static class CopyOperands
    {
        @Param({"4096", "65536", "1048576"})
        public int bytes;

        @Param({"heap", "offheap"})
        public String memory;

        boolean heap;
        byte[] from;
        byte[] to;
        long fromAddress;
        long toAddress;
        private ByteBuffer[] direct;

        @Setup(Level.Trial)
        public void setup()
        {
            heap = "heap".equals(memory);
            if (!heap && !"offheap".equals(memory))
            {
                throw new IllegalArgumentException("memory=" + memory + ": expected heap or offheap");
            }
            from = new byte[bytes];
            to = new byte[bytes];
            new Random(11).nextBytes(from);
            direct = new ByteBuffer[] {BufferUtil.allocateDirectAligned(bytes, ALIGNMENT),
                BufferUtil.allocateDirectAligned(bytes, ALIGNMENT)};
            fromAddress = BufferUtil.address(direct[0]);
            toAddress = BufferUtil.address(direct[1]);
            UnsafeApi.copyMemory(from, BYTES, null, fromAddress, bytes);
        }
    }

    /** One kernel over the whole operand: {@code inout[i] = in[i] op inout[i]}. */
    @Benchmark
    public Object reduce(final Operands s)
    {
        s.kernel.apply(s.inBase, s.inOffset, s.inoutBase, s.inoutOffset, s.n);
        return s.inoutBase;
    }

    /** Anchor: the plain Java loop C2 vectorises, {@code b[i] += a[i]} over {@code double[]}s. */
    @Benchmark
    public double[] baselineDoubleArrayAdd(final Doubles s)
    {
        final double[] a = s.a;
        final double[] b = s.b;
        for (int i = 0; i < b.length; i++)
        {
            b[i] += a[i];
        }
        return b;
    }

    /**
     * Anchor: {@code SUM/DOUBLE}'s loop body ({@code Unsafe} get, get, put) with an {@code int}
     * element index where the kernel counts a {@code long} byte offset: shows what the loop's
     * shape costs, on the same memory as the kernel.
     */
    @Benchmark
    public Object baselineUnsafeIntIndexAdd(final RawDoubles s)
    {
        final Object a = s.aBase;
        final long ao = s.aOffset;
        final Object b = s.bBase;
        final long bo = s.bOffset;
        final int n = s.n;
        for (int i = 0; i < n; i++)
        {
            final long off = 8L * i;
            UnsafeApi.putDouble(b, bo + off, UnsafeApi.getDouble(a, ao + off) + UnsafeApi.getDouble(b, bo + off));
        }
        return b;
    }

    /** Anchor: a copy of the operand's bytes ({@code System.arraycopy}, or {@code Unsafe.copyMemory} off-heap). */
    @Benchmark
    public Object baselineCopy(final CopyOperands s)
    {
        if (s.heap)
        {
            System.arraycopy(s.from, 0, s.to, 0, s.bytes);
            return s.to;
        }
        UnsafeApi.copyMemory(null, s.fromAddress, null, s.toAddress, s.bytes);
        return s;
    }
}
