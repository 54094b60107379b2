package org.shmpi.rma;

/**
 * Layout of a window segment ({@code win-<id>-<rank>}, kind WINDOW, made by the window's member 0).
 * All offsets are from the start of the segment's payload.
 *
 * <pre>
 * header, one cache line (written by member 0 before the segment is published; read-only after)
 *   0  int  RANKS            members of the window
 *   4  int  FLAVOR           MPI_WIN_FLAVOR_* of the window
 *   8  int  CONTIGUOUS       1: the members' regions follow each other without gaps
 *  12  int  CONTROL_STRIDE   bytes of one member's control block
 *  16  long CONTROL_OFFSET   where member 0's control block starts
 *  24  long DATA_OFFSET      where the data regions start (page aligned; = length when none)
 *
 * control block of member r, at CONTROL_OFFSET + r * CONTROL_STRIDE (cache-line aligned)
 *   +0    long LOCK          the passive-target lock of r's window: shared holders in the low
 *                            32 bits, EXCLUSIVE set while one member holds it exclusively;
 *                            changed by any member with an atomic instruction
 *   +64   long ACC_LOCK      r's accumulate word, as LOCK: shared while origins update elements
 *                            of r one atomic instruction each, exclusive while one runs a plain
 *                            loop of read-modify-writes; changed by any member atomically
 *   +128  int  WAITERS       members waiting for a word of this block to change; added to by any
 *                            member, read by a member that changes LOCK or ACC_LOCK before it wakes
 *   +192  int  POSTS[n]      POSTS[t]: exposure epochs member t opened to r as an origin; written
 *                            by t only (single writer), read by r in start
 *   +192 + align64(4n)
 *         int  COMPLETES[n]  COMPLETES[o]: access epochs member o closed on r as a target;
 *                            written by o only, read by r in wait and test
 *
 * data regions (allocate and allocate-shared windows), from DATA_OFFSET
 *   contiguous: member r's region starts where member r - 1's ends (MPI_Win_allocate_shared)
 *   otherwise:  every region starts on a page of its own
 * </pre>
 *
 * Windows made over memory the members already have ({@code MPI_Win_create} on the shared heap)
 * have no data regions: each member maps the others' heap segments instead.
 */
public final class WindowDescriptor
{
    public static final int CACHE_LINE = 64;
    public static final int PAGE = 4096;

    public static final int RANKS_OFFSET = 0;
    public static final int FLAVOR_OFFSET = 4;
    public static final int CONTIGUOUS_OFFSET = 8;
    public static final int CONTROL_STRIDE_OFFSET = 12;
    public static final int CONTROL_OFFSET_OFFSET = 16;
    public static final int DATA_OFFSET_OFFSET = 24;
    public static final int HEADER_LENGTH = CACHE_LINE;

    /** Offsets within a control block. */
    public static final int LOCK_OFFSET = 0;
    public static final int ACC_LOCK_OFFSET = CACHE_LINE;
    public static final int WAITERS_OFFSET = 2 * CACHE_LINE;
    public static final int POSTS_OFFSET = 3 * CACHE_LINE;

    /** The LOCK bit of an exclusive holder; shared holders count in the low 32 bits. */
    public static final long EXCLUSIVE = 1L << 32;

    private WindowDescriptor()
    {
    }

    public static long align(final long value, final long to)
    {
        return (value + to - 1) / to * to;
    }

    /** Where COMPLETES starts in a control block of a window of {@code n} members. */
    public static int completesOffset(final int n)
    {
        return POSTS_OFFSET + (int)align(4L * n, CACHE_LINE);
    }

    /** Bytes of one member's control block. */
    public static int controlStride(final int n)
    {
        return completesOffset(n) + (int)align(4L * n, CACHE_LINE);
    }

    public static long controlOffset()
    {
        return HEADER_LENGTH;
    }

    /** Where the data regions start: after all control blocks, on a page. */
    public static long dataOffset(final int n)
    {
        return align(controlOffset() + (long)n * controlStride(n), PAGE);
    }

    /**
     * Offsets of each member's data region from {@link #dataOffset}, and the total data length as
     * the last element ({@code sizes.length + 1} values): without gaps when {@code contiguous}, else
     * each region on a page of its own.
     */
    public static long[] regionOffsets(final long[] sizes, final boolean contiguous)
    {
        final long[] out = new long[sizes.length + 1];
        long at = 0;
        for (int r = 0; r < sizes.length; r++)
        {
            out[r] = at;
            at += contiguous ? sizes[r] : align(sizes[r], PAGE);
        }
        out[sizes.length] = at;
        return out;
    }
}
