package org.shmpi.types;

import org.agrona.UnsafeApi;

/**
 * The loop-compressed copy program of a map whose blocks are all {@code blockLength} bytes,
 * {@code stride} bytes apart from {@code first} (a vector, a matrix column): block {@code k} of
 * item {@code i} is at {@code i * extent + first + k * stride}, found by arithmetic instead of a
 * search, and 8-byte blocks move as single words.
 */
final class StridedLayout extends CopyProgram
{
    private final long first;
    private final long blockLength;
    private final long stride;
    private final long blocks;
    private final long size;
    private final long extent;

    StridedLayout(final long first, final long blockLength, final long stride, final long blocks, final long extent)
    {
        this.first = first;
        this.blockLength = blockLength;
        this.stride = stride;
        this.blocks = blocks;
        this.size = blockLength * blocks;
        this.extent = extent;
    }

    @Override
    void copy(final Object user, final long userOffset, final long from, final Object packed,
        final long packedOffset, final long length, final boolean toPacked)
    {
        long item = from / size;
        final long within = from - item * size;
        long k = within / blockLength;
        long inBlock = within - k * blockLength;
        long done = 0;
        if (blockLength == 8 && inBlock == 0)
        {
            // Whole words: the common case of a column of doubles or longs. One counted loop
            // per item's run of blocks, pack and unpack apart, so the JIT unrolls it.
            while (length - done >= 8)
            {
                final long words = Math.min(blocks - k, (length - done) >> 3);
                final long at = userOffset + item * extent + first + k * stride;
                final long p = packedOffset + done;
                if (toPacked)
                {
                    packWords(user, at, stride, packed, p, (int)words);
                }
                else
                {
                    unpackWords(packed, p, user, at, stride, (int)words);
                }
                done += words << 3;
                k += words;
                if (k == blocks)
                {
                    k = 0;
                    item++;
                }
            }
        }
        while (done < length)
        {
            final long n = Math.min(blockLength - inBlock, length - done);
            final long at = userOffset + item * extent + first + k * stride + inBlock;
            if (toPacked)
            {
                FlatLayout.move(user, at, packed, packedOffset + done, n);
            }
            else
            {
                FlatLayout.move(packed, packedOffset + done, user, at, n);
            }
            done += n;
            inBlock = 0;
            if (++k == blocks)
            {
                k = 0;
                item++;
            }
        }
    }

    private static void packWords(final Object user, final long at, final long stride, final Object packed,
        final long p, final int words)
    {
        long u = at;
        for (int i = 0; i < words; i++)
        {
            UnsafeApi.putLong(packed, p + ((long)i << 3), UnsafeApi.getLong(user, u));
            u += stride;
        }
    }

    /** Blocks read ahead of the one stored, when strided stores crowd into few cache sets. */
    private static final int READ_AHEAD = 8;

    /** Where the read-ahead loads go, so that the JIT keeps them. */
    @SuppressWarnings("unused")
    private static long readAheadSink;

    /**
     * Stores the words at their strided places. When the stride is a multiple of 512 bytes (a
     * column of a matrix whose rows are a multiple of 64 doubles), every block is on its own
     * cache line and those lines fall into an eighth of the cache sets or fewer, so each store
     * misses; loading the line {@value #READ_AHEAD} blocks ahead brings it in early (a line
     * read first is owned when the store comes), which halves the time of such an unpack on
     * the machine of docs/PERFORMANCE.md. Other strides store straight away (the read-ahead
     * there costs more than it saves). Loads stay inside this run of blocks.
     */
    private static void unpackWords(final Object packed, final long p, final Object user, final long at,
        final long stride, final int words)
    {
        long u = at;
        int i = 0;
        if (stride % 512 == 0 && words > READ_AHEAD)
        {
            long ahead = at + READ_AHEAD * stride;
            long sink = 0;
            for (; i + READ_AHEAD < words; i++)
            {
                sink ^= UnsafeApi.getLong(user, ahead);
                UnsafeApi.putLong(user, u, UnsafeApi.getLong(packed, p + ((long)i << 3)));
                u += stride;
                ahead += stride;
            }
            readAheadSink = sink;
        }
        for (; i < words; i++)
        {
            UnsafeApi.putLong(user, u, UnsafeApi.getLong(packed, p + ((long)i << 3)));
            u += stride;
        }
    }

    @Override
    public String toString()
    {
        return "StridedLayout{first=" + first + ", blockLength=" + blockLength + ", stride=" + stride + ", blocks=" +
            blocks + ", extent=" + extent + "}";
    }
}
