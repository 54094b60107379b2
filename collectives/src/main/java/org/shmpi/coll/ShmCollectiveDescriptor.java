package org.shmpi.coll;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * Layout of a communicator's shared collective state, file {@code coll-<context>-<rank>}
 * (kind {@link org.shmpi.shm.segment.SegmentKind#COLLECTIVE COLLECTIVE}, made by the
 * communicator's rank 0, world rank {@code <rank>}, on its collective context id). After the
 * common segment header, the payload holds a small header, then one block per member. Every
 * word of a member's block has one writer, that member; everybody reads it.
 * <pre>
 *   payload offset                            written by      read by
 *   0      ranks (int), data bytes (int)      creator, before the version word
 *   128    block of rank 0:
 *            +0    flag line, parity 0: seq (long) | 56 bytes of payload
 *            +128  flag line, parity 1: seq (long) | 56 bytes of payload
 *            +256  done, parity 0 (long)       rank 0         writers of the next
 *            +264  done, parity 1 (long)                        operation with this parity
 *            +384  data slot, parity 0 (data bytes)
 *            +384 + data   data slot, parity 1
 *   128 + stride          block of rank 1 ...
 * </pre>
 * Operation k (counted from 1 by every member alike) uses the lines and slots of parity
 * {@code k & 1}. A member writes its payload (in the flag line up to
 * {@link #INLINE_PAYLOAD} bytes, else in its data slot), then the seq word with a release store
 * ({@code seq = k}): a reader that sees {@code seq >= k} with an acquire load sees the payload.
 * When a member has read everything it needs of operation k it stores {@code done = k} in the
 * done word of parity {@code k & 1} (release). Before writing its parity-p space for operation
 * k, a member waits until every member's done word of parity p is {@code >= k - 2}: the previous operation of that parity is then finished
 * everywhere, so nobody still reads what it overwrites. Lines are 128 bytes apart so that the
 * adjacent-line prefetcher never pairs two writers' lines.
 */
public final class ShmCollectiveDescriptor
{
    /** Spacing of lines written by different members, or by one member at different times. */
    public static final int LINE = 2 * CACHE_LINE_LENGTH;
    /** Payload offset of the member count (int). */
    public static final int RANKS_OFFSET = 0;
    /** Payload offset of the size of each data slot (int). */
    public static final int DATA_BYTES_OFFSET = 4;
    /** Payload offset of rank 0's block. */
    public static final int BLOCKS_OFFSET = LINE;

    /** Offset in a block of the flag line of parity 0; parity 1's is {@link #LINE} further. */
    public static final int FLAG_OFFSET = 0;
    /** Offset of the payload within a flag line, after the seq word. */
    public static final int INLINE_OFFSET = 8;
    /** Bytes of payload a flag line carries. */
    public static final int INLINE_PAYLOAD = CACHE_LINE_LENGTH - INLINE_OFFSET;
    /** Offset in a block of the done word of parity 0; parity 1's is 8 bytes further. */
    public static final int DONE_OFFSET = 2 * LINE;
    /** Offset in a block of the data slot of parity 0; parity 1's follows it. */
    public static final int DATA_OFFSET = 3 * LINE;

    /** Default bytes per data slot: the largest message the shared-memory algorithms carry. */
    public static final int DATA_BYTES_DEFAULT = 8192;

    private ShmCollectiveDescriptor()
    {
    }

    /** Bytes of one member's block with data slots of {@code dataBytes}. */
    public static int stride(final int dataBytes)
    {
        checkDataBytes(dataBytes);
        return DATA_OFFSET + 2 * dataBytes;
    }

    /** Payload length for {@code ranks} members with data slots of {@code dataBytes}. */
    public static long payloadLength(final int ranks, final int dataBytes)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("a collective segment needs at least one member: ranks=" + ranks);
        }
        return BLOCKS_OFFSET + (long)ranks * stride(dataBytes);
    }

    /** Payload offset of member {@code rank}'s block. */
    public static long blockOffset(final int rank, final int dataBytes)
    {
        return BLOCKS_OFFSET + (long)rank * stride(dataBytes);
    }

    /** Offset in a block of the flag line of {@code parity}. */
    public static int flagOffset(final int parity)
    {
        return FLAG_OFFSET + (parity & 1) * LINE;
    }

    /**
     * Offset in a block of the done word of {@code parity}: one per parity, because a
     * nonblocking operation may finish after a later one of the other parity.
     */
    public static int doneOffset(final long parity)
    {
        return DONE_OFFSET + (int)(parity & 1) * 8;
    }

    /** Offset in a block of the data slot of {@code parity}. */
    public static int dataOffset(final int parity, final int dataBytes)
    {
        return DATA_OFFSET + (parity & 1) * dataBytes;
    }

    public static void checkDataBytes(final int dataBytes)
    {
        if (dataBytes < LINE || dataBytes % LINE != 0 || dataBytes > 1 << 24)
        {
            throw new IllegalArgumentException("data slot bytes must be a multiple of " + LINE + " in [" + LINE +
                ", 2^24]: dataBytes=" + dataBytes);
        }
    }
}
