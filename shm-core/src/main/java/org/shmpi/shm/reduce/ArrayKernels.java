package org.shmpi.shm.reduce;

/**
 * The reductions that vector hardware can run, as plain counted loops over Java arrays of the
 * element type: the only form C2 vectorises (JDK 17 and 25 alike; an {@code Unsafe} loop over an
 * array or over shared memory stays scalar). Each computes {@code inout[inoutAt + i] = in[inAt + i]
 * op inout[inoutAt + i]} for {@code n} elements with the expression of the matching scalar kernel
 * in {@link Reductions}, so both give the same bits. {@link Reductions} calls them directly when
 * both operands are such arrays and stages other memory through a small array otherwise.
 */
final class ArrayKernels
{
    private ArrayKernels()
    {
    }

    static void maxByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(Math.max(x, y));
        }
    }

    static void minByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(Math.min(x, y));
        }
    }

    static void sumByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(x + y);
        }
    }

    static void prodByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(x * y);
        }
    }

    static void bandByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(x & y);
        }
    }

    static void borByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(x | y);
        }
    }

    static void bxorByte(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final byte[] in = (byte[])inArray;
        final byte[] inout = (byte[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final byte x = in[inAt + i];
            final byte y = inout[inoutAt + i];
            inout[inoutAt + i] = (byte)(x ^ y);
        }
    }

    static void maxChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(Math.max(x, y));
        }
    }

    static void minChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(Math.min(x, y));
        }
    }

    static void sumChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(x + y);
        }
    }

    static void prodChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(x * y);
        }
    }

    static void bandChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(x & y);
        }
    }

    static void borChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(x | y);
        }
    }

    static void bxorChar(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final char[] in = (char[])inArray;
        final char[] inout = (char[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final char x = in[inAt + i];
            final char y = inout[inoutAt + i];
            inout[inoutAt + i] = (char)(x ^ y);
        }
    }

    static void maxShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(Math.max(x, y));
        }
    }

    static void minShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(Math.min(x, y));
        }
    }

    static void sumShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(x + y);
        }
    }

    static void prodShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(x * y);
        }
    }

    static void bandShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(x & y);
        }
    }

    static void borShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(x | y);
        }
    }

    static void bxorShort(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final short[] in = (short[])inArray;
        final short[] inout = (short[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final short x = in[inAt + i];
            final short y = inout[inoutAt + i];
            inout[inoutAt + i] = (short)(x ^ y);
        }
    }

    static void maxInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.max(x, y);
        }
    }

    static void minInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.min(x, y);
        }
    }

    static void sumInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = x + y;
        }
    }

    static void prodInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = x * y;
        }
    }

    static void bandInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = x & y;
        }
    }

    static void borInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = x | y;
        }
    }

    static void bxorInt(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final int[] in = (int[])inArray;
        final int[] inout = (int[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final int x = in[inAt + i];
            final int y = inout[inoutAt + i];
            inout[inoutAt + i] = x ^ y;
        }
    }

    static void maxLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.max(x, y);
        }
    }

    static void minLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.min(x, y);
        }
    }

    static void sumLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = x + y;
        }
    }

    static void prodLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = x * y;
        }
    }

    static void bandLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = x & y;
        }
    }

    static void borLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = x | y;
        }
    }

    static void bxorLong(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final long[] in = (long[])inArray;
        final long[] inout = (long[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final long x = in[inAt + i];
            final long y = inout[inoutAt + i];
            inout[inoutAt + i] = x ^ y;
        }
    }

    static void maxFloat(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final float x = in[inAt + i];
            final float y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.max(x, y);
        }
    }

    static void minFloat(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final float x = in[inAt + i];
            final float y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.min(x, y);
        }
    }

    static void sumFloat(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final float x = in[inAt + i];
            final float y = inout[inoutAt + i];
            inout[inoutAt + i] = x + y;
        }
    }

    static void prodFloat(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final float[] in = (float[])inArray;
        final float[] inout = (float[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final float x = in[inAt + i];
            final float y = inout[inoutAt + i];
            inout[inoutAt + i] = x * y;
        }
    }

    static void maxDouble(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final double x = in[inAt + i];
            final double y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.max(x, y);
        }
    }

    static void minDouble(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final double x = in[inAt + i];
            final double y = inout[inoutAt + i];
            inout[inoutAt + i] = Math.min(x, y);
        }
    }

    static void sumDouble(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final double x = in[inAt + i];
            final double y = inout[inoutAt + i];
            inout[inoutAt + i] = x + y;
        }
    }

    static void prodDouble(final Object inArray, final int inAt, final Object inoutArray, final int inoutAt, final int n)
    {
        final double[] in = (double[])inArray;
        final double[] inout = (double[])inoutArray;
        for (int i = 0; i < n; i++)
        {
            final double x = in[inAt + i];
            final double y = inout[inoutAt + i];
            inout[inoutAt + i] = x * y;
        }
    }
}
