package org.shmpi.types.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.shmpi.types.BasicKind;

/**
 * The staged kernels (array loops, run directly on arrays of the element type or through the
 * staging arrays otherwise) give bitwise the result of the element-by-element kernels, which
 * {@link ReductionsTest} checks against a reference: for every staged op and kind, at lengths
 * around the staging threshold and across several staging chunks, with each operand in an array
 * of the element type (at the same index as the other operand or another one), in a
 * {@code byte[]} at an odd byte offset, or off the heap.
 */
class StagedKernelsTest
{
    private static final int[] OPS = {Reductions.MAX, Reductions.MIN, Reductions.SUM, Reductions.PROD,
        Reductions.BAND, Reductions.BOR, Reductions.BXOR};
    private static final int[] KINDS = {BasicKind.BYTE, BasicKind.CHAR, BasicKind.SHORT, BasicKind.INT,
        BasicKind.LONG, BasicKind.FLOAT, BasicKind.DOUBLE, BasicKind.FLOAT_COMPLEX, BasicKind.DOUBLE_COMPLEX};
    /** Element counts: below, at and above the threshold, one chunk and a remainder, several chunks. */
    private static final int[] LENGTHS = {1, Reductions.STAGE_MIN_NUMBERS - 1, Reductions.STAGE_MIN_NUMBERS, 333,
        Reductions.STAGE_BYTES + 5, 3 * Reductions.STAGE_BYTES + 17};

    private final Random random = new Random(7);
    private final List<ByteBuffer> direct = new ArrayList<>();

    /** Where an operand lives. */
    private enum Place
    {
        /** At element 3 of an array of the element type: both operands there run the array loop directly. */
        TYPED_ARRAY,
        /** At element 5: with the other operand at 3, staged. */
        TYPED_ARRAY_AT_5,
        BYTE_ARRAY_ODD,
        OFF_HEAP
    }

    @Test
    void everyStagedKernelMatchesTheScalarOneBitForBit()
    {
        int staged = 0;
        for (final int kind : KINDS)
        {
            for (final int op : OPS)
            {
                final Reductions.Kernel kernel = Reductions.kernel(op, kind);
                if (!(kernel instanceof Reductions.Staged))
                {
                    continue;
                }
                staged++;
                final Reductions.Kernel scalar = Reductions.scalarKernel(op, kind);
                assertNotSame(kernel, scalar);
                for (final int n : LENGTHS)
                {
                    final int bytes = n * BasicKind.size(kind);
                    final byte[] in = randomBytes(bytes, kind);
                    final byte[] inout = randomBytes(bytes, kind);
                    final byte[] expected = inout.clone();
                    scalar.apply(in, UnsafeApi.arrayBaseOffset(byte[].class), expected,
                        UnsafeApi.arrayBaseOffset(byte[].class), n);
                    for (final Place inPlace : Place.values())
                    {
                        for (final Place inoutPlace : Place.values())
                        {
                            final Operand a = place(in, kind, inPlace);
                            final Operand b = place(inout, kind, inoutPlace);
                            kernel.apply(a.base, a.offset, b.base, b.offset, n);
                            final String what = Reductions.name(op) + " kind " + kind + " n " + n + " in " + inPlace +
                                " inout " + inoutPlace;
                            assertEquals(bytes, compare(expected, b, bytes), what);
                            assertEquals(bytes, compare(in, a, bytes), what + ": the input changed");
                        }
                    }
                }
            }
        }
        // MAX, MIN, SUM, PROD and the three bitwise ops on five integer kinds, four on two
        // floating-point kinds, SUM on two complex kinds.
        assertEquals(5 * 7 + 2 * 4 + 2, staged);
        direct.clear();
    }

    @Test
    void aMisalignedTypedArrayOffsetIsStagedNotIndexedWrongly()
    {
        final Reductions.Kernel kernel = Reductions.kernel(Reductions.SUM, BasicKind.DOUBLE);
        final int n = 200;
        final double[] a = new double[n + 1];
        final double[] b = new double[n + 1];
        for (int i = 0; i <= n; i++)
        {
            a[i] = random.nextDouble();
            b[i] = random.nextDouble();
        }
        final byte[] expected = new byte[n * 8];
        final byte[] in = new byte[n * 8];
        final long base = UnsafeApi.arrayBaseOffset(double[].class);
        final long bytesBase = UnsafeApi.arrayBaseOffset(byte[].class);
        // Both operands start 4 bytes into a double[]: legal Unsafe addressing, not an element index.
        UnsafeApi.copyMemory(b, base + 4, expected, bytesBase, n * 8L);
        UnsafeApi.copyMemory(a, base + 4, in, bytesBase, n * 8L);
        Reductions.scalarKernel(Reductions.SUM, BasicKind.DOUBLE).apply(in, bytesBase, expected, bytesBase, n);
        kernel.apply(a, base + 4, b, base + 4, n);
        final byte[] actual = new byte[n * 8];
        UnsafeApi.copyMemory(b, base + 4, actual, bytesBase, n * 8L);
        for (int i = 0; i < actual.length; i++)
        {
            assertEquals(expected[i], actual[i], "byte " + i);
        }
    }

    @Test
    void kernelsRunConcurrentlyOnTheirOwnStaging() throws InterruptedException
    {
        final Reductions.Kernel kernel = Reductions.kernel(Reductions.SUM, BasicKind.LONG);
        final int n = 3 * Reductions.STAGE_BYTES / 8 + 3;
        final Thread[] threads = new Thread[4];
        final Throwable[] failure = new Throwable[1];
        for (int t = 0; t < threads.length; t++)
        {
            final long value = t + 1;
            threads[t] = new Thread(() ->
            {
                final ByteBuffer in = BufferUtil.allocateDirectAligned(n * 8, 64);
                final ByteBuffer inout = BufferUtil.allocateDirectAligned(n * 8, 64);
                final long ia = BufferUtil.address(in);
                final long oa = BufferUtil.address(inout);
                for (int i = 0; i < n; i++)
                {
                    UnsafeApi.putLong(ia + 8L * i, value);
                }
                for (int round = 1; round <= 2000; round++)
                {
                    kernel.apply(null, ia, null, oa, n);
                    for (int i = 0; i < n; i += 97)
                    {
                        if (UnsafeApi.getLong(oa + 8L * i) != value * round)
                        {
                            synchronized (failure)
                            {
                                failure[0] = new AssertionError("thread " + value + " round " + round + " element " +
                                    i + ": " + UnsafeApi.getLong(oa + 8L * i));
                            }
                            return;
                        }
                    }
                }
            });
            threads[t].start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertTrue(failure[0] == null, () -> failure[0].toString());
    }

    /** An operand's memory: base object and offset, as the kernels take it. */
    private static final class Operand
    {
        final Object base;
        final long offset;

        Operand(final Object base, final long offset)
        {
            this.base = base;
            this.offset = offset;
        }
    }

    private Operand place(final byte[] data, final int kind, final Place place)
    {
        final long bytesBase = UnsafeApi.arrayBaseOffset(byte[].class);
        switch (place)
        {
            case TYPED_ARRAY:
            case TYPED_ARRAY_AT_5:
            {
                final Class<?> arrayClass = elementArray(kind);
                final int scale = UnsafeApi.arrayIndexScale(arrayClass);
                final int skip = place == Place.TYPED_ARRAY ? 3 : 5;
                final Object array = java.lang.reflect.Array.newInstance(arrayClass.getComponentType(),
                    data.length / scale + skip + 2);
                final long offset = UnsafeApi.arrayBaseOffset(arrayClass) + (long)skip * scale;
                UnsafeApi.copyMemory(data, bytesBase, array, offset, data.length);
                return new Operand(array, offset);
            }
            case BYTE_ARRAY_ODD:
            {
                final byte[] array = new byte[data.length + 8];
                UnsafeApi.copyMemory(data, bytesBase, array, bytesBase + 3, data.length);
                return new Operand(array, bytesBase + 3);
            }
            default:
            {
                final ByteBuffer buffer = BufferUtil.allocateDirectAligned(Math.max(64, data.length + 64), 64);
                direct.add(buffer);
                final long address = BufferUtil.address(buffer) + 8;
                UnsafeApi.copyMemory(data, bytesBase, null, address, data.length);
                return new Operand(null, address);
            }
        }
    }

    /** How many leading bytes of {@code operand} equal {@code expected}. */
    private static int compare(final byte[] expected, final Operand operand, final int bytes)
    {
        for (int i = 0; i < bytes; i++)
        {
            if (UnsafeApi.getByte(operand.base, operand.offset + i) != expected[i])
            {
                return i;
            }
        }
        return bytes;
    }

    private static Class<?> elementArray(final int kind)
    {
        if (kind == BasicKind.FLOAT_COMPLEX || kind == BasicKind.DOUBLE_COMPLEX)
        {
            return kind == BasicKind.FLOAT_COMPLEX ? float[].class : double[].class;
        }
        return BasicKind.primitiveArray(kind);
    }

    /**
     * Random elements; floating-point ones include NaN, infinities and both zeros, which MAX and MIN treat
     * specially.
     */
    private byte[] randomBytes(final int bytes, final int kind)
    {
        final byte[] data = new byte[bytes];
        random.nextBytes(data);
        final long base = UnsafeApi.arrayBaseOffset(byte[].class);
        final boolean floats = kind == BasicKind.FLOAT || kind == BasicKind.FLOAT_COMPLEX;
        final boolean doubles = kind == BasicKind.DOUBLE || kind == BasicKind.DOUBLE_COMPLEX;
        final double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0, 1.0, -1.0};
        if (floats)
        {
            for (int at = 0; at + 4 <= bytes; at += 4)
            {
                final int pick = random.nextInt(20);
                UnsafeApi.putFloat(data, base + at, pick < special.length ? (float)special[pick] :
                    (float)(random.nextGaussian() * 1e3));
            }
        }
        else if (doubles)
        {
            for (int at = 0; at + 8 <= bytes; at += 8)
            {
                final int pick = random.nextInt(20);
                UnsafeApi.putDouble(data, base + at,
                    pick < special.length ? special[pick] : random.nextGaussian() * 1e3);
            }
        }
        return data;
    }
}
