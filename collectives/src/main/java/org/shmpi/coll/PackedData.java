package org.shmpi.coll;

import org.shmpi.types.DataLayout;

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

    /**
     * The absolute address of the first packed byte when the message lies contiguous in native
     * memory (a direct buffer and a contiguous datatype), so that a peer could read it in place;
     * -1 otherwise.
     */
    public long contiguousAddress()
    {
        return base == null && layout.isContiguous() ? offset + start : -1;
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
