package org.shmpi.io;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.TypeMap;

/**
 * A file view's arithmetic: which file bytes the view's data bytes are. The view starts
 * {@code disp} bytes into the file and tiles the filetype from there, one copy per filetype
 * extent; the data bytes of tile {@code t} are the filetype's blocks, in order, shifted by
 * {@code disp + t * extent}. A position in the view ("logical byte") counts data bytes only.
 */
final class FileViewMap
{
    /**
     * Receives one contiguous piece of an access: file bytes {@code [file, file + length)},
     * packed at {@code packed}.
     */
    interface Piece
    {
        void run(long file, long length, long packed);
    }

    final long disp;
    final TypeMap etype;
    final TypeMap filetype;
    final String datarep;
    /** Whether {@link #datarep} is {@code "external32"} (asked on every access: no string compare then). */
    final boolean external32;
    final long etypeSize;
    private final long tileBytes;
    private final long extent;
    private final long[] blockAt;
    private final long[] blockLength;
    /** Data bytes of the tile before block b. */
    private final long[] before;
    private final boolean contiguous;

    FileViewMap(final long disp, final TypeMap etype, final TypeMap filetype, final String datarep)
    {
        if (disp < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative view displacement: " + disp);
        }
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
        this.external32 = "external32".equals(datarep);
        this.etypeSize = etype.size();
        this.tileBytes = filetype.size();
        this.extent = filetype.extent();
        if (etypeSize <= 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "the etype has no data");
        }
        if (tileBytes <= 0 || tileBytes % etypeSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "the filetype's size (" + tileBytes +
                " bytes) is not a positive multiple of the etype's (" + etypeSize + ")");
        }
        if (extent <= 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "the filetype's extent must be positive: " + extent);
        }
        final long[][] blocks = mergedBlocks(filetype, extent);
        this.blockAt = blocks[0];
        this.blockLength = blocks[1];
        this.before = blocks[2];
        this.contiguous = blockAt.length == 1 && blockAt[0] == 0 && blockLength[0] == extent;
    }

    /**
     * The filetype's non-empty blocks, adjacent ones merged: their displacements, lengths and the
     * data bytes of the tile before each; {@code ERR_TYPE} when displacements decrease or the data
     * reach past {@code extent} (tiles would overlap).
     */
    private static long[][] mergedBlocks(final TypeMap filetype, final long extent)
    {
        final int n = filetype.blocks();
        final long[] at = new long[n];
        final long[] len = new long[n];
        final long[] pre = new long[n];
        int m = 0;
        long sum = 0;
        long last = Long.MIN_VALUE;
        for (int b = 0; b < n; b++)
        {
            final long d = filetype.blockDisplacement(b);
            final long l = filetype.blockLength(b);
            if (l == 0)
            {
                continue;
            }
            if (d < 0 || d < last)
            {
                throw new ShmpiException(ErrorClass.ERR_TYPE, "a filetype's displacements must be non-negative and " +
                    "non-decreasing (MPI-IO views): block at " + d + " after one ending at " + last);
            }
            if (m > 0 && at[m - 1] + len[m - 1] == d)
            {
                len[m - 1] += l;
            }
            else
            {
                at[m] = d;
                len[m] = l;
                pre[m] = sum;
                m++;
            }
            sum += l;
            last = d + l;
        }
        if (m > 0 && at[0] + extent < last)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "the filetype's data reach past its extent, so tiles would " +
                "overlap: data end at " + last + ", extent " + extent);
        }
        return new long[][] {
            java.util.Arrays.copyOf(at, m), java.util.Arrays.copyOf(len, m), java.util.Arrays.copyOf(pre, m)};
    }

    /** The file byte of the view's logical data byte {@code logical}. */
    long fileByte(final long logical)
    {
        return contiguous ? disp + logical : tiledByte(logical);
    }

    private long tiledByte(final long logical)
    {
        final long tile = logical / tileBytes;
        final long within = logical - tile * tileBytes;
        final int b = blockOf(within);
        return disp + tile * extent + blockAt[b] + (within - before[b]);
    }

    /** Visits the file pieces of {@code bytes} data bytes from logical byte {@code logical}, in order. */
    void pieces(final long logical, final long bytes, final Piece piece)
    {
        if (bytes <= 0)
        {
            return;
        }
        if (contiguous)
        {
            piece.run(disp + logical, bytes, 0);
            return;
        }
        long tile = logical / tileBytes;
        long within = logical - tile * tileBytes;
        int b = blockOf(within);
        long packed = 0;
        while (packed < bytes)
        {
            final long offsetInBlock = within - before[b];
            final long m = Math.min(bytes - packed, blockLength[b] - offsetInBlock);
            piece.run(disp + tile * extent + blockAt[b] + offsetInBlock, m, packed);
            packed += m;
            within += m;
            if (++b == blockAt.length)
            {
                b = 0;
                tile++;
                within = 0;
            }
        }
    }

    /**
     * The view's logical data bytes that lie before file byte {@code fileEnd}: for the end of the
     * file in etypes ({@code MPI_SEEK_END}).
     */
    long logicalBefore(final long fileEnd)
    {
        if (fileEnd <= disp)
        {
            return 0;
        }
        final long rel = fileEnd - disp;
        if (contiguous)
        {
            return rel;
        }
        final long tile = rel / extent;
        final long in = rel - tile * extent;
        long data = tile * tileBytes;
        for (int b = 0; b < blockAt.length; b++)
        {
            if (in >= blockAt[b] + blockLength[b])
            {
                data += blockLength[b];
            }
            else if (in > blockAt[b])
            {
                data += in - blockAt[b];
            }
        }
        return data;
    }

    boolean contiguous()
    {
        return contiguous;
    }

    private int blockOf(final long within)
    {
        int lo = 0;
        int hi = before.length - 1;
        while (lo < hi)
        {
            final int mid = (lo + hi + 1) >>> 1;
            if (before[mid] <= within)
            {
                lo = mid;
            }
            else
            {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
