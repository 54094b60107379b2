package org.shmpi.coll;

import java.lang.reflect.Array;

import org.agrona.UnsafeApi;

/**
 * Local scratch where n contributions, in rank order, are combined in the one order of
 * {@link ReductionOrder}, in place. When the reducer has a vectorised loop over arrays
 * ({@link Reducer#elementArray}) and a contribution holds at least {@link #TYPED_MIN_NUMBERS}
 * numbers, each contribution is first copied into an array of its own of that class, so that
 * every combination runs the loop directly on two arrays at index 0, and the result is copied
 * back; otherwise the reducer runs on the byte scratch. Grown as needed, never shrunk; not for
 * concurrent use.
 */
final class ScratchFold
{
    /** Numbers per contribution from which the contributions are folded in typed arrays. */
    static final int TYPED_MIN_NUMBERS = 64;

    private byte[] acc = new byte[64];
    private Reducer reducer;
    private int bytes;
    private int items;
    /** The typed arrays, one per contribution (null until used), and their class. */
    private Object[] typed = new Object[0];
    private Class<?> typedClass;
    private long typedBase;
    private boolean folding;
    private final ReductionOrder.Combiner combine = this::combine;

    /** The scratch, at least {@code need} bytes: contribution r goes at {@code r * bytes}. */
    byte[] scratch(final int need)
    {
        if (acc.length < need)
        {
            acc = new byte[need];
        }
        return acc;
    }

    /**
     * Combines the {@code n} contributions of {@code bytes} bytes ({@code items} items) in
     * {@link #scratch} with {@code reducer}; returns the offset in the scratch of the result.
     */
    int fold(final int n, final int bytes, final int items, final Reducer reducer)
    {
        this.reducer = reducer;
        this.bytes = bytes;
        this.items = items;
        final Class<?> arrayClass = reducer.elementArray();
        final int scale = arrayClass == null ? 0 : UnsafeApi.arrayIndexScale(arrayClass);
        folding = arrayClass != null && n > 1 && bytes % scale == 0 && bytes / scale >= TYPED_MIN_NUMBERS;
        if (folding)
        {
            prepareTyped(n, arrayClass, bytes / scale);
            for (int r = 0; r < n; r++)
            {
                UnsafeApi.copyMemory(acc, Reducer.BYTES + (long)r * bytes, typed[r], typedBase, bytes);
            }
        }
        final int result = ReductionOrder.fold(n, combine);
        if (folding)
        {
            UnsafeApi.copyMemory(typed[result], typedBase, acc, Reducer.BYTES + (long)result * bytes, bytes);
        }
        this.reducer = null;
        return result * bytes;
    }

    private void prepareTyped(final int n, final Class<?> arrayClass, final int numbers)
    {
        if (typedClass != arrayClass)
        {
            typed = new Object[n];
            typedClass = arrayClass;
            typedBase = UnsafeApi.arrayBaseOffset(arrayClass);
        }
        else if (typed.length < n)
        {
            typed = java.util.Arrays.copyOf(typed, n);
        }
        for (int r = 0; r < n; r++)
        {
            if (typed[r] == null || Array.getLength(typed[r]) < numbers)
            {
                typed[r] = Array.newInstance(arrayClass.getComponentType(), numbers);
            }
        }
    }

    private void combine(final int in, final int inout)
    {
        if (folding)
        {
            reducer.applyAt(typed[in], typedBase, typed[inout], typedBase, items, bytes);
        }
        else
        {
            reducer.apply(acc, in * bytes, acc, inout * bytes, items);
        }
    }
}
