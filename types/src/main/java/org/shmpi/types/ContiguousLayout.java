package org.shmpi.types;

import org.agrona.UnsafeApi;

/** {@link DataLayout#CONTIGUOUS}: the user's bytes are the packed bytes. */
final class ContiguousLayout implements DataLayout
{
    static final ContiguousLayout INSTANCE = new ContiguousLayout();

    private ContiguousLayout()
    {
    }

    @Override
    public void pack(
        final Object base, final long offset, final long from, final Object dstBase, final long dstOffset,
        final long length)
    {
        UnsafeApi.copyMemory(base, offset + from, dstBase, dstOffset, length);
    }

    @Override
    public void unpack(
        final Object srcBase, final long srcOffset, final long length, final Object base, final long offset,
        final long from)
    {
        UnsafeApi.copyMemory(srcBase, srcOffset, base, offset + from, length);
    }

    @Override
    public boolean isContiguous()
    {
        return true;
    }

    @Override
    public String toString()
    {
        return "CONTIGUOUS";
    }
}
