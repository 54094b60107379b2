package mpi;

import java.nio.ByteBuffer;

/**
 * A user-defined reduction for {@code new Op(function, commute)}: subclasses override the form
 * for the buffers they reduce. shmpi calls {@link #call(Object, Object, int, Datatype)} with
 * primitive arrays of the datatype's base type when the operation was given Java arrays, and
 * {@link #call(ByteBuffer, ByteBuffer, int, Datatype)} with native-order byte buffers otherwise
 * (direct buffers, and the pair and complex types); if the function does not override the form
 * chosen, the other is tried, and the op calls that one first from then on. Either way it must
 * compute {@code inOutVec[i] = inVec[i] op inOutVec[i]} for {@code count} items of
 * {@code datatype}; the items are packed (a derived type's gaps removed).
 * <p>
 * The arrays start at index 0 and hold exactly the {@code count} items ({@code length} is
 * {@code count} times the base elements per item). {@code Comm.reduceLocal} on arrays of the base
 * type that long, with a basic datatype or a contiguous one of it, passes the caller's own arrays:
 * the function writes the result straight into {@code inOutBuf}. Otherwise (the packed data of a
 * collective, slices, longer arrays, direct buffers, types with gaps) it gets arrays of its own,
 * copied in and, for {@code inOutVec}, back. The byte buffers start at position 0 with limit and
 * capacity the items' bytes; where the items lie as packed bytes in memory (direct buffers, shared
 * memory, byte arrays) they are views of that memory, not copies. Neither may be kept after the
 * call returns, and a form that is not overridden must throw before it writes (the default does).
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
