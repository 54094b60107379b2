package org.shmpi.types;

/**
 * A derived type's copy program: packing and unpacking are the same walk over the user's
 * memory in opposite directions, so a program implements the walk once.
 */
abstract class CopyProgram implements DataLayout
{
    @Override
    public final void pack(final Object base, final long offset, final long from, final Object dstBase,
        final long dstOffset, final long length)
    {
        copy(base, offset, from, dstBase, dstOffset, length, true);
    }

    @Override
    public final void unpack(final Object srcBase, final long srcOffset, final long length, final Object base,
        final long offset, final long from)
    {
        copy(base, offset, from, srcBase, srcOffset, length, false);
    }

    @Override
    public final boolean isContiguous()
    {
        return false;
    }

    /** Moves packed bytes {@code [from, from + length)} between the user's memory and {@code packed}. */
    abstract void copy(Object user, long userOffset, long from, Object packed, long packedOffset, long length,
        boolean toPacked);
}
