package org.shmpi.coll;

/**
 * Layout of a communicator's slots for large messages, file {@code coll-<context>-<rank>-large}
 * (kind {@link org.shmpi.shm.segment.SegmentKind#COLLECTIVE COLLECTIVE}, made by the
 * communicator's rank 0 at the first large collective, beside the small-message state of
 * {@link ShmCollectiveDescriptor}). After the common segment header:
 * <pre>
 *   payload offset                        written by            read by
 *   0      ranks (int), chunk bytes (int)  creator, before the version word
 *   128    block of rank 0:
 *            +0    arrived (long)          rank 0                every member
 *            +8    source, parity 0 (long): 0, or 1 + the id of rank 0's shared-heap segment holding its data
 *            +16   position, parity 0 (long): where in that segment its first packed byte lies
 *            +24   source, parity 1; +32 position, parity 1
 *            +128  reduced (long)          rank 0                every member
 *            +256  done (long)             rank 0                every member
 *            +384  slot, parity 0 (chunk bytes)   see below
 *            +384 + chunk   slot, parity 1
 *   128 + stride      block of rank 1 ...
 * </pre>
 * A large message moves in rounds of at most one chunk per member, counted from 1 alike by
 * every member over all large collectives of the communicator; round g uses the slots of parity
 * {@code g & 1}, so a member fills its next slot while the others still read its last.
 * A member whose data lies contiguous in its shared-memory heap ({@code MPI.newXxxBuffer})
 * packs nothing: it names the heap segment and position in the source and position words
 * (written before {@code arrived}) and the others copy straight out of its buffer (one copy in
 * all), and it leaves the operation only when every member's {@code done} has reached the
 * operation's last round. In
 * round g a member packs its piece into its slot, then stores {@code arrived = g} (release). An
 * allreduce or reduce then has member j combine segment j of every member's slot in place (the
 * tree of {@link ReductionOrder}, each combination writing into the slot of the higher partial,
 * so segment j of every slot is written by member j only, while nobody else reads it) and store
 * {@code reduced = g}; the result of the whole round is then in the last member's slot. When a
 * member has read everything it needs of round g it stores {@code done = g}. Before packing into
 * its slot for round g a member waits until every {@code done >= g - 2}. The three words are 128
 * bytes apart (no shared adjacent-line prefetch pair); slots start 128-byte aligned.
 */
public final class ShmLargeDescriptor
{
    public static final int LINE = ShmCollectiveDescriptor.LINE;
    /** Payload offset of the member count (int). */
    public static final int RANKS_OFFSET = 0;
    /** Payload offset of the chunk size (int). */
    public static final int CHUNK_BYTES_OFFSET = 4;
    /** Payload offset of rank 0's block. */
    public static final int BLOCKS_OFFSET = LINE;
    /** Offset in a block of the arrived word. */
    public static final int ARRIVED_OFFSET = 0;
    /** Offset in a block of the source word of parity 0: 0 (the slot) or 1 + a shared-heap segment id. */
    public static final int SOURCE_OFFSET = 8;
    /** Offset in a block of the position word of parity 0: the data's offset in that heap segment. */
    public static final int POSITION_OFFSET = 16;

    /** Offset in a block of the source word of {@code parity} (a round reads its own parity's). */
    public static int sourceOffset(final long parity)
    {
        return SOURCE_OFFSET + (int)(parity & 1) * 16;
    }

    /** Offset in a block of the position word of {@code parity}. */
    public static int positionOffset(final long parity)
    {
        return POSITION_OFFSET + (int)(parity & 1) * 16;
    }
    /** Offset in a block of the reduced word. */
    public static final int REDUCED_OFFSET = LINE;
    /** Offset in a block of the done word. */
    public static final int DONE_OFFSET = 2 * LINE;
    /** Offset in a block of the slot of parity 0; parity 1's follows it. */
    public static final int SLOT_OFFSET = 3 * LINE;

    /** Smallest default chunk (the bytes one member moves per round), for many members. */
    public static final int CHUNK_BYTES_DEFAULT = 64 * 1024;
    /** Largest default chunk, for few members. */
    public static final int CHUNK_BYTES_DEFAULT_MAX = 256 * 1024;
    /** What the default chunk keeps a communicator's slots within (two per member): 8 MiB. */
    public static final long SLOTS_BUDGET_DEFAULT = 8L << 20;

    /**
     * The default chunk for {@code ranks} members: {@link #CHUNK_BYTES_DEFAULT_MAX} up to 16
     * members, then what keeps their 2 slots each within {@link #SLOTS_BUDGET_DEFAULT}, never
     * below {@link #CHUNK_BYTES_DEFAULT}; a multiple of {@link #LINE}. Measured: 1 MiB
     * collectives at np 4 and 8 ran up to 2.6x faster with 256 KiB chunks than with 64 KiB
     * (scatter at np 8 alike), and no slower at np 2 (docs/PERFORMANCE.md).
     */
    public static int defaultChunkBytes(final int ranks)
    {
        final long fit = SLOTS_BUDGET_DEFAULT / (2L * Math.max(1, ranks));
        final long c = Math.max(CHUNK_BYTES_DEFAULT, Math.min(CHUNK_BYTES_DEFAULT_MAX, fit));
        return (int)(c / LINE * LINE);
    }

    private ShmLargeDescriptor()
    {
    }

    /** Bytes of one member's block with chunks of {@code chunkBytes}. */
    public static long stride(final int chunkBytes)
    {
        checkChunkBytes(chunkBytes);
        return SLOT_OFFSET + 2L * chunkBytes;
    }

    /** Payload length for {@code ranks} members with chunks of {@code chunkBytes}. */
    public static long payloadLength(final int ranks, final int chunkBytes)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("a collective segment needs at least one member: ranks=" + ranks);
        }
        return BLOCKS_OFFSET + ranks * stride(chunkBytes);
    }

    /** Payload offset of member {@code rank}'s block. */
    public static long blockOffset(final int rank, final int chunkBytes)
    {
        return BLOCKS_OFFSET + rank * stride(chunkBytes);
    }

    /** Offset in a block of the slot of {@code parity}. */
    public static long slotOffset(final long parity, final int chunkBytes)
    {
        return SLOT_OFFSET + (parity & 1) * chunkBytes;
    }

    public static void checkChunkBytes(final int chunkBytes)
    {
        if (chunkBytes < 4096 || chunkBytes % LINE != 0 || chunkBytes > 1 << 26)
        {
            throw new IllegalArgumentException("chunk bytes must be a multiple of " + LINE + " in [4096, 2^26]: " +
                "chunkBytes=" + chunkBytes);
        }
    }
}
