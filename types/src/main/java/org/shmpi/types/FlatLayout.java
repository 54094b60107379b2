package org.shmpi.types;

import org.agrona.UnsafeApi;

/**
 * The copy program of a derived type: items of a {@link TypeMap} one extent apart, each item's
 * blocks copied in type-map order. Packed offset {@code k} is byte {@code k % size} of item
 * {@code k / size}; a binary search over the blocks' packed starts finds where a fragment
 * begins, then blocks are copied in turn, so any fragment is packed or unpacked on its own.
 *
 * <p>The block arrays are read into locals before the loops: an {@code Unsafe} store may alias
 * any field as far as the JIT knows, so fields would be reloaded after every block.
 */
final class FlatLayout extends CopyProgram
{
    private final TypeMap map;
    private final long size;
    private final long extent;
    private final long[] disp;
    private final long[] len;

    FlatLayout(final TypeMap map)
    {
        this.map = map;
        this.size = map.size();
        this.extent = map.extent();
        this.disp = map.displacements();
        this.len = map.lengths();
    }

    @Override
    void copy(final Object user, final long userOffset, final long from, final Object packed,
        final long packedOffset, final long length, final boolean toPacked)
    {
        if (length <= 0)
        {
            return;
        }
        final long[] d = disp;
        final long[] l = len;
        final long ext = extent;
        long item = from / size;
        final long within = from - item * size;
        final int first = map.blockAt(within);
        final long inFirst = within - map.packedStart(first);
        // The first block may be entered part way; the rest start at their beginning.
        long n = Math.min(l[first] - inFirst, length);
        long base = userOffset + item * ext;
        if (toPacked)
        {
            move(user, base + d[first] + inFirst, packed, packedOffset, n);
        }
        else
        {
            move(packed, packedOffset, user, base + d[first] + inFirst, n);
        }
        long done = n;
        int b = first + 1;
        if (b == d.length)
        {
            b = 0;
            base += ext;
        }
        if (toPacked)
        {
            while (done < length)
            {
                n = Math.min(l[b], length - done);
                move(user, base + d[b], packed, packedOffset + done, n);
                done += n;
                if (++b == d.length)
                {
                    b = 0;
                    base += ext;
                }
            }
        }
        else
        {
            while (done < length)
            {
                n = Math.min(l[b], length - done);
                move(packed, packedOffset + done, user, base + d[b], n);
                done += n;
                if (++b == d.length)
                {
                    b = 0;
                    base += ext;
                }
            }
        }
    }

    /** Bytes at or below which a block is moved by word loads and stores: a copyMemory call costs more. */
    private static final long SMALL = 64;

    /**
     * Moves one block between two different memories. {@code copyMemory} has a fixed cost that
     * dominates blocks of a few words (a matrix column of doubles is 8-byte blocks); those go by
     * 8-byte words, the last word overlapping the one before when the length is not a multiple
     * of 8 (the same bytes written twice, never one outside the block), and blocks under 8 bytes
     * by an int, a short and a byte.
     */
    static void move(final Object src, final long srcOffset, final Object dst, final long dstOffset,
        final long n)
    {
        if (n >= 8)
        {
            if (n > SMALL)
            {
                UnsafeApi.copyMemory(src, srcOffset, dst, dstOffset, n);
                return;
            }
            long i = 0;
            for (; i + 8 <= n; i += 8)
            {
                UnsafeApi.putLong(dst, dstOffset + i, UnsafeApi.getLong(src, srcOffset + i));
            }
            if (i < n)
            {
                UnsafeApi.putLong(dst, dstOffset + n - 8, UnsafeApi.getLong(src, srcOffset + n - 8));
            }
            return;
        }
        long i = 0;
        if ((n & 4) != 0)
        {
            UnsafeApi.putInt(dst, dstOffset, UnsafeApi.getInt(src, srcOffset));
            i = 4;
        }
        if ((n & 2) != 0)
        {
            UnsafeApi.putShort(dst, dstOffset + i, UnsafeApi.getShort(src, srcOffset + i));
            i += 2;
        }
        if ((n & 1) != 0)
        {
            UnsafeApi.putByte(dst, dstOffset + i, UnsafeApi.getByte(src, srcOffset + i));
        }
    }

    @Override
    public String toString()
    {
        return "FlatLayout" + map;
    }
}
