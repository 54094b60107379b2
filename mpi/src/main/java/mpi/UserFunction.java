package mpi;

import java.nio.ByteBuffer;

/**
 * A user-defined reduction for {@code new Op(function, commute)}: subclasses override the form
 * for the buffers they reduce. shmpi calls {@link #call(Object, Object, int, Datatype)} with
 * primitive arrays of the datatype's base type when the collective was given Java arrays, and
 * {@link #call(ByteBuffer, ByteBuffer, int, Datatype)} with native-order views otherwise (direct
 * buffers, and the pair types); if the function does not override the form chosen, the other is
 * tried. Either way it must compute {@code inOutVec[i] = inVec[i] op inOutVec[i]} for
 * {@code count} items of {@code datatype}; the items are packed (a derived type's gaps removed).
 */
public abstract class UserFunction
{
    /** For subclasses. */
    public UserFunction()
    {
    }

    /**
     * Reduces arrays: {@code inVec} and {@code inOutVec} are primitive arrays of the datatype's
     * base type holding {@code count} items each. Not overridden: throws
     * {@code UnsupportedOperationException}.
     */
    public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
    {
        throw new UnsupportedOperationException("UserFunction.call(Object, Object, int, Datatype) is not implemented");
    }

    /**
     * Reduces buffers: {@code in} and {@code inOut} are native-order byte buffers of {@code count}
     * items each. Not overridden: throws {@code UnsupportedOperationException}.
     */
    public void call(final ByteBuffer in, final ByteBuffer inOut, final int count, final Datatype datatype)
    {
        throw new UnsupportedOperationException(
            "UserFunction.call(ByteBuffer, ByteBuffer, int, Datatype) is not implemented");
    }
}
