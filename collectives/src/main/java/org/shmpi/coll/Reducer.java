package org.shmpi.coll;

import org.agrona.UnsafeApi;

/**
 * A reduction over packed items, as an MPI user function sees it:
 * {@code inout[i] = in[i] op inout[i]} for {@code items} items. The algorithms always pass the
 * partial result of the lower ranks as {@code in} ({@link ReductionOrder}), so a
 * non-commutative op is applied in rank order.
 */
@FunctionalInterface
public interface Reducer
{
    long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    void apply(byte[] in, int inOffset, byte[] inout, int inoutOffset, int items);

    /**
     * The Java array class in which {@link #applyAt} runs a vectorised loop when both operands
     * are such arrays at the same index ({@code double[]} for a predefined op on doubles), or
     * null when it has no such loop. {@link ScratchFold} then folds in arrays of this class.
     */
    default Class<?> elementArray()
    {
        return null;
    }

    /**
     * {@link #apply} on operands given in {@code Unsafe} addressing (a base object and an offset that
     * includes its base offset, or null and an absolute address, e.g. in shared memory),
     * {@code bytes} bytes each. The shared-memory algorithms reduce in place in the shared
     * slots through this form. This default copies both operands into byte arrays, applies
     * {@link #apply} and copies the result back; predefined ops run their kernel on the
     * operands directly, and user ops hand them to their function as they are or copy each
     * once into the form it takes.
     */
    default void applyAt(final Object inBase, final long inOffset, final Object inoutBase, final long inoutOffset,
        final int items, final int bytes)
    {
        final byte[] a = new byte[bytes];
        final byte[] b = new byte[bytes];
        UnsafeApi.copyMemory(inBase, inOffset, a, BYTES, bytes);
        UnsafeApi.copyMemory(inoutBase, inoutOffset, b, BYTES, bytes);
        apply(a, 0, b, 0, items);
        UnsafeApi.copyMemory(b, BYTES, inoutBase, inoutOffset, bytes);
    }
}
