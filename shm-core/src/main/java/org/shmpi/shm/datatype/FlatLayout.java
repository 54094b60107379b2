package org.shmpi.shm.datatype;

import org.agrona.UnsafeApi;

/**
 * The copy program of a derived type: items of a {@link TypeMap} one extent apart, each item's
 * blocks copied in type-map order. Packed offset {@code k} is byte {@code k % size} of item
 * {@code k / size}; a binary search over the blocks' packed starts finds where a fragment
 * begins, then blocks are copied in turn, so any fragment is packed or unpacked on its own.
 */
final class FlatLayout extends CopyProgram
{
    private final TypeMap map;
    private final long size;
    private final long extent;
    private final int blocks;

    FlatLayout(final TypeMap map)
    {
        this.map = map;
        this.size = map.size();
        this.extent = map.extent();
        this.blocks = map.blocks();
    }

    @Override
    void copy(final Object user, final long userOffset, final long from, final Object packed,
        final long packedOffset, final long length, final boolean toPacked)
    {
        if (length <= 0)
        {
            return;
        }
        long item = from / size;
        long within = from - item * size;
        int b = map.blockAt(within);
        long inBlock = within - map.packedStart(b);
        long done = 0;
        while (done < length)
        {
            final long n = Math.min(map.blockLength(b) - inBlock, length - done);
            final long at = userOffset + item * extent + map.blockDisplacement(b) + inBlock;
            if (toPacked)
            {
                move(user, at, packed, packedOffset + done, n);
            }
            else
            {
                move(packed, packedOffset + done, user, at, n);
            }
            done += n;
            inBlock = 0;
            if (++b == blocks)
            {
                b = 0;
                item++;
            }
        }
    }

    /** Bytes at or below which a block is moved by word loads and stores: a copyMemory call costs more. */
    private static final long SMALL = 64;

    /**
     * Moves one block. {@code copyMemory} has a fixed cost that dominates blocks of a few words
     * (a matrix column of doubles is 8-byte blocks); those go word by word.
     */
    static void move(final Object src, final long srcOffset, final Object dst, final long dstOffset,
        final long n)
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
        for (; i < n; i++)
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
