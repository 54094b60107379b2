package org.shmpi.types.reduce;

/**
 * The reductions that vector hardware can run, as plain counted loops over Java arrays of the
 * element type, both indexed by the one loop variable: the only form C2 vectorises (JDK 17 and 25
 * alike: an {@code Unsafe} loop over an array or over shared memory stays scalar, and so does a
 * loop that indexes its two arrays at different offsets, since they may be one array). Each
 * computes {@code inout[i] = in[i] op inout[i]} for {@code from <= i < to} with the expression of
 * the matching scalar kernel in {@link Reductions}, so both give the same bits. {@link Reductions}
 * calls them directly when both operands are such arrays at the same index and stages the operands
 * through two small arrays otherwise.
 */
final class ArrayKernels
{
    private ArrayKernels()
    {
    }

    static void maxByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(Math.max(x, y));
        }
    }

    static void minByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(Math.min(x, y));
        }
    }

    static void sumByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(x + y);
        }
    }

    static void prodByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(x * y);
        }
    }

    static void bandByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(x & y);
        }
    }

    static void borByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(x | y);
        }
    }

    static void bxorByte(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final byte x = in[i];
            final byte y = inout[i];
            inout[i] = (byte)(x ^ y);
        }
    }

    static void maxChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(Math.max(x, y));
        }
    }

    static void minChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(Math.min(x, y));
        }
    }

    static void sumChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(x + y);
        }
    }

    static void prodChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(x * y);
        }
    }

    static void bandChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(x & y);
        }
    }

    static void borChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(x | y);
        }
    }

    static void bxorChar(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final char x = in[i];
            final char y = inout[i];
            inout[i] = (char)(x ^ y);
        }
    }

    static void maxShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(Math.max(x, y));
        }
    }

    static void minShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(Math.min(x, y));
        }
    }

    static void sumShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(x + y);
        }
    }

    static void prodShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(x * y);
        }
    }

    static void bandShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(x & y);
        }
    }

    static void borShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(x | y);
        }
    }

    static void bxorShort(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final short x = in[i];
            final short y = inout[i];
            inout[i] = (short)(x ^ y);
        }
    }

    static void maxInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = Math.max(x, y);
        }
    }

    static void minInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = Math.min(x, y);
        }
    }

    static void sumInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = x + y;
        }
    }

    static void prodInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = x * y;
        }
    }

    static void bandInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = x & y;
        }
    }

    static void borInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = x | y;
        }
    }

    static void bxorInt(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final int x = in[i];
            final int y = inout[i];
            inout[i] = x ^ y;
        }
    }

    static void maxLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = Math.max(x, y);
        }
    }

    static void minLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = Math.min(x, y);
        }
    }

    static void sumLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = x + y;
        }
    }

    static void prodLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = x * y;
        }
    }

    static void bandLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = x & y;
        }
    }

    static void borLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = x | y;
        }
    }

    static void bxorLong(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final long x = in[i];
            final long y = inout[i];
            inout[i] = x ^ y;
        }
    }

    static void maxFloat(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final float x = in[i];
            final float y = inout[i];
            inout[i] = Math.max(x, y);
        }
    }

    static void minFloat(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final float x = in[i];
            final float y = inout[i];
            inout[i] = Math.min(x, y);
        }
    }

    static void sumFloat(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final float x = in[i];
            final float y = inout[i];
            inout[i] = x + y;
        }
    }

    static void prodFloat(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final float x = in[i];
            final float y = inout[i];
            inout[i] = x * y;
        }
    }

    static void maxDouble(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final double x = in[i];
            final double y = inout[i];
            inout[i] = Math.max(x, y);
        }
    }

    static void minDouble(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final double x = in[i];
            final double y = inout[i];
            inout[i] = Math.min(x, y);
        }
    }

    static void sumDouble(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final double x = in[i];
            final double y = inout[i];
            inout[i] = x + y;
        }
    }

    static void prodDouble(final Object inArray, final Object inoutArray, final int from, final int to)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = from; i < to; i++)
        {
            final double x = in[i];
            final double y = inout[i];
            inout[i] = x * y;
        }
    }
}
