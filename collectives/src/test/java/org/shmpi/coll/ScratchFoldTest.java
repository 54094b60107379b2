package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Arrays;
import java.util.Random;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.shmpi.types.BasicKind;
import org.shmpi.types.reduce.Reductions;

/**
 * The fold gives the same bits whether it combines in the byte scratch or in typed arrays (the
 * vectorised loops), and both follow {@link ReductionOrder}: checked with double sums of values
 * of very different magnitudes, where any other order or grouping changes the bits.
 */
class ScratchFoldTest
{
    /** A predefined kernel as a reducer; {@code typed}: whether it offers its array loop. */
    private static Reducer kernelReducer(final int op, final int kind, final boolean typed)
    {
        final Reductions.Kernel kernel = Reductions.kernel(op, kind);
        assertNotNull(kernel);
        return new Reducer()
        {
            @Override
            public void apply(final byte[] in, final int inOffset, final byte[] inout, final int inoutOffset,
                final int items)
            {
                kernel.apply(in, BYTES + inOffset, inout, BYTES + inoutOffset, items);
            }

            @Override
            public void applyAt(final Object inBase, final long inOffset, final Object inoutBase,
                final long inoutOffset, final int items, final int bytes)
            {
                kernel.apply(inBase, inOffset, inoutBase, inoutOffset, items);
            }

            @Override
            public Class<?> elementArray()
            {
                return typed ? Reductions.arrayClass(kernel) : null;
            }
        };
    }

    @Test
    void typedAndByteFoldsAgreeBitForBitAndFollowTheReductionOrder()
    {
        final Random random = new Random(3);
        final ScratchFold typedFold = new ScratchFold();
        final ScratchFold byteFold = new ScratchFold();
        final Reducer typed = kernelReducer(Reductions.SUM, BasicKind.DOUBLE, true);
        final Reducer plain = kernelReducer(Reductions.SUM, BasicKind.DOUBLE, false);
        assertEquals(double[].class, typed.elementArray());
        for (final int items : new int[] {1, 63, 64, 1000})
        {
            for (int n = 1; n <= 8; n++)
            {
                final double[][] contributions = new double[n][items];
                for (final double[] c : contributions)
                {
                    for (int i = 0; i < items; i++)
                    {
                        c[i] = random.nextGaussian() * Math.pow(10, random.nextInt(32) - 16);
                    }
                }
                final int bytes = items * 8;
                final double[] viaTyped = fold(typedFold, typed, contributions, bytes, items);
                final double[] viaBytes = fold(byteFold, plain, contributions, bytes, items);
                final double[] expected = referenceOrder(contributions, items);
                for (int i = 0; i < items; i++)
                {
                    assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(viaBytes[i]),
                        "bytes n " + n + " items " + items + " element " + i);
                    assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(viaTyped[i]),
                        "typed n " + n + " items " + items + " element " + i);
                }
            }
        }
    }

    @Test
    void theTypedArraysFollowTheOperandsClass()
    {
        // A long fold after a double fold of more members: fresh long[] arrays, nothing left over.
        final ScratchFold fold = new ScratchFold();
        final double[][] doubles = new double[5][100];
        for (final double[] d : doubles)
        {
            Arrays.fill(d, 0.5);
        }
        fold(fold, kernelReducer(Reductions.SUM, BasicKind.DOUBLE, true), doubles, 800, 100);
        final int n = 3;
        final byte[] acc = fold.scratch(n * 800);
        for (int r = 0; r < n; r++)
        {
            for (int i = 0; i < 100; i++)
            {
                UnsafeApi.putLong(acc, Reducer.BYTES + r * 800L + 8L * i, (long)(r + 1) << i % 60);
            }
        }
        final int at = fold.fold(n, 800, 100, kernelReducer(Reductions.BXOR, BasicKind.LONG, true));
        for (int i = 0; i < 100; i++)
        {
            final long expected = (1L << i % 60) ^ (2L << i % 60) ^ (3L << i % 60);
            assertEquals(expected, UnsafeApi.getLong(acc, Reducer.BYTES + at + 8L * i), "element " + i);
        }
    }

    private static double[] fold(final ScratchFold fold, final Reducer reducer, final double[][] contributions,
        final int bytes, final int items)
    {
        final int n = contributions.length;
        final byte[] acc = fold.scratch(n * bytes);
        for (int r = 0; r < n; r++)
        {
            UnsafeApi.copyMemory(contributions[r], UnsafeApi.arrayBaseOffset(double[].class), acc,
                Reducer.BYTES + (long)r * bytes, bytes);
        }
        final int at = fold.fold(n, bytes, items, reducer);
        final double[] out = new double[items];
        UnsafeApi.copyMemory(fold.scratch(0), Reducer.BYTES + at, out, UnsafeApi.arrayBaseOffset(double[].class),
            bytes);
        return out;
    }

    /** The sum in {@link ReductionOrder}'s order, evaluated here on plain doubles. */
    private static double[] referenceOrder(final double[][] contributions, final int items)
    {
        final int n = contributions.length;
        final double[][] work = new double[n][];
        for (int r = 0; r < n; r++)
        {
            work[r] = contributions[r].clone();
        }
        final int result = ReductionOrder.fold(n, (in, inout) ->
        {
            for (int i = 0; i < items; i++)
            {
                work[inout][i] = work[in][i] + work[inout][i];
            }
        });
        return work[result];
    }
}
