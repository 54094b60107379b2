package org.shmpi.coll;

import org.shmpi.shm.datatype.DataLayout;

/**
 * A message in the user's memory seen as its packed bytes: a datatype layout over a base
 * ({@code Unsafe} addressing), from packed byte {@code start} on. The large-message algorithms
 * pack pieces straight into shared slots and unpack straight out of them, so a message is never
 * staged in a private array, whatever its datatype.
 */
public final class PackedData
{
    private final DataLayout layout;
    private final Object base;
    private final long offset;
    private final long start;

    public PackedData(final DataLayout layout, final Object base, final long offset, final long start)
    {
        this.layout = layout;
        this.base = base;
        this.offset = offset;
        this.start = start;
    }

    /** Plain bytes of a byte array. */
    public static PackedData of(final byte[] bytes)
    {
        return new PackedData(DataLayout.CONTIGUOUS, bytes, Reducer.BYTES, 0);
    }

    /** The same message from packed byte {@code from} on. */
    public PackedData from(final long from)
    {
        return new PackedData(layout, base, offset, start + from);
    }

    /** Copies packed bytes {@code [from, from + length)} to {@code dstBase}/{@code dstOffset}. */
    public void packTo(final long from, final Object dstBase, final long dstOffset, final long length)
    {
        if (length > 0)
        {
            layout.pack(base, offset, start + from, dstBase, dstOffset, length);
        }
    }

    /** Copies {@code length} bytes at {@code srcBase}/{@code srcOffset} in as packed bytes from {@code from} on. */
    public void unpackFrom(final Object srcBase, final long srcOffset, final long length, final long from)
    {
        if (length > 0)
        {
            layout.unpack(srcBase, srcOffset, length, base, offset, start + from);
        }
    }
}
