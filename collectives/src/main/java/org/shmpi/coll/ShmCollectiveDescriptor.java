package org.shmpi.coll;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * Layout of a communicator's shared collective state, file {@code coll-<context>-<rank>}
 * (kind {@link org.shmpi.shm.segment.SegmentKind#COLLECTIVE COLLECTIVE}, made by the
 * communicator's rank 0, world rank {@code <rank>}, on its collective context id). After the
 * common segment header, the payload holds a small header, one block per member and, when the
 * members form two or more groups (NUMA nodes or L3 domains, {@link ShmHierarchy}), one leader
 * block per group and the group map. Every word has one writer.
 * <pre>
 *   payload offset                            written by      read by
 *   0      ranks (int), data bytes (int),     creator, before the version word
 *          groups (int, 0: flat),
 *          gather bytes (int, 0: flat)
 *   128    block of rank 0:
 *            +0    flag line, parity 0: seq (long) | 48 bytes of payload | finished (long)
 *            +128  flag line, parity 1: seq (long) | 48 bytes of payload | finished (long)
 *            +256  done, parity 0 (long)       rank 0         writers of the next
 *            +264  done, parity 1 (long)                        operation with this parity
 *            +384  data slot, parity 0 (data bytes)
 *            +384 + data   data slot, parity 1
 *   128 + stride          block of rank 1 ...
 *   leaders = 128 + ranks * stride:
 *          leader block of group 0 (its leader: the lowest rank in it):
 *            +0    gather line, parity 0: seq (long)   leader    the other leaders
 *            +128  gather line, parity 1
 *            +256  release line, parity 0: seq (long) | 48 bytes of payload
 *                                                    leader    its group's members
 *            +384  release line, parity 1
 *            +512  gather area, parity 0 (gather bytes)   leader    the other leaders
 *            +512 + gather   gather area, parity 1
 *            +512 + 2 gather   result slot, parity 0 (data bytes)
 *                                                    leader    its group's members
 *            +512 + 2 gather + data   result slot, parity 1
 *   leaders + leader stride   leader block of group 1 ...
 *   leaders + groups * leader stride:
 *          group map: the group of each rank (int), ranks of them, padded to 128
 *                                               creator, before the version word
 * </pre>
 * Operation k (counted from 1 by every member alike) uses the lines and slots of parity
 * {@code k & 1}. A member writes its payload (in the flag line up to
 * {@link #INLINE_PAYLOAD} bytes, else in its data slot), then the seq word with a release store
 * ({@code seq = k}): a reader that sees {@code seq >= k} with an acquire load sees the payload.
 * When a member has read everything it needs of operation k it stores {@code done = k} in the
 * done word of parity {@code k & 1} (release). Before writing payload of parity p for operation
 * k, a writer makes sure the readers of what it overwrites have stored {@code done >= k - 2} in
 * their done word of parity p: the flat algorithms wait for every member's, the hierarchical
 * ones only for those that read it (the leaders, its own group or its own leader) unless the
 * writer knows it already. A flag line also carries, in its last word, how far its writer had
 * finished when it stored the seq ({@code finished = j}: every operation up to j finished, so
 * both done words are at least what they would show for j); a member that has read every
 * member's flag line of an operation knows the smallest such j and skips the done words
 * of any later wait that it already answers. A stale finished word is still true, so it needs
 * no ordering beyond the seq's release. The flat barrier, too, waits for every member's before it stores its
 * seq, because a nonblocking operation k - 2 may not have published yet. A hierarchical
 * communicator runs no nonblocking operations here ({@link ShmCollectives#hierarchical}): its
 * operations are blocking and in order, so seq words only grow and storing one needs no wait.
 * Leader blocks follow the same rules: a leader stores its group's gathered payloads (gather
 * area) then {@code gather seq = k}; the result (or a broadcast payload) in the release line or
 * the result slot, then {@code release seq = k}. Lines are 128 bytes apart so that the
 * adjacent-line prefetcher never pairs two writers' lines, or a line polled by the leaders with
 * one polled by a group.
 */
public final class ShmCollectiveDescriptor
{
    /** Spacing of lines written by different members, or by one member at different times. */
    public static final int LINE = 2 * CACHE_LINE_LENGTH;
    /** Payload offset of the member count (int). */
    public static final int RANKS_OFFSET = 0;
    /** Payload offset of the size of each data slot (int). */
    public static final int DATA_BYTES_OFFSET = 4;
    /** Payload offset of the number of groups, that is of leader blocks (int; 0: flat, no leader blocks). */
    public static final int GROUPS_OFFSET = 8;
    /** Payload offset of the size of each gather area (int; 0 when flat). */
    public static final int GATHER_BYTES_OFFSET = 12;
    /** Payload offset of rank 0's block. */
    public static final int BLOCKS_OFFSET = LINE;

    /** Offset in a block of the flag line of parity 0; parity 1's is {@link #LINE} further. */
    public static final int FLAG_OFFSET = 0;
    /** Offset of the payload within a flag line (and a release line), after the seq word. */
    public static final int INLINE_OFFSET = 8;
    /** Bytes of payload a flag line (and a release line) carries. */
    public static final int INLINE_PAYLOAD = CACHE_LINE_LENGTH - INLINE_OFFSET - 8;
    /** Offset within a flag line of its writer's finished word (long), after the payload. */
    public static final int FINISHED_OFFSET = CACHE_LINE_LENGTH - 8;
    /** Offset in a block of the done word of parity 0; parity 1's is 8 bytes further. */
    public static final int DONE_OFFSET = 2 * LINE;
    /** Offset in a block of the data slot of parity 0; parity 1's follows it. */
    public static final int DATA_OFFSET = 3 * LINE;

    /** Offset in a leader block of the gather line of parity 0; parity 1's is {@link #LINE} further. */
    public static final int GATHER_OFFSET = 0;
    /** Offset in a leader block of the release line of parity 0; parity 1's is {@link #LINE} further. */
    public static final int RELEASE_OFFSET = 2 * LINE;
    /** Offset in a leader block of the gather area of parity 0; then parity 1's, then the result slots. */
    public static final int LEADER_DATA_OFFSET = 4 * LINE;

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

    /** Payload length for {@code ranks} members with data slots of {@code dataBytes}, flat (no leader blocks). */
    public static long payloadLength(final int ranks, final int dataBytes)
    {
        return payloadLength(ranks, dataBytes, 0, 0);
    }

    /**
     * Payload length for {@code ranks} members with data slots of {@code dataBytes}, and
     * {@code groups} leader blocks with gather areas of {@code gatherBytes} (both 0: flat).
     */
    public static long payloadLength(final int ranks, final int dataBytes, final int groups, final int gatherBytes)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("a collective segment needs at least one member: ranks=" + ranks);
        }
        checkGroups(ranks, groups, gatherBytes);
        final long blocks = BLOCKS_OFFSET + (long)ranks * stride(dataBytes);
        if (groups == 0)
        {
            return blocks;
        }
        return groupMapOffset(ranks, dataBytes, groups, gatherBytes) + align(4L * ranks);
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

    /** Offset of member {@code rank}'s block, blocks of {@code stride} bytes. */
    public static int blockAt(final int stride, final int rank)
    {
        return BLOCKS_OFFSET + rank * stride;
    }

    /**
     * Offset of the flag line of operation {@code k} in member {@code rank}'s block, blocks of
     * {@code stride} bytes: the seq word, followed by an inline payload.
     */
    public static int flagAt(final int stride, final int rank, final long k)
    {
        return blockAt(stride, rank) + flagOffset((int)k);
    }

    /**
     * Offset of member {@code rank}'s payload of {@code bytes} for operation {@code k}: inline in
     * the flag line up to {@link #INLINE_PAYLOAD} bytes, else the data slot of the parity.
     */
    public static int payloadAt(final int stride, final int dataBytes, final int rank, final long k, final int bytes)
    {
        return bytes <= INLINE_PAYLOAD ? flagAt(stride, rank, k) + INLINE_OFFSET :
            blockAt(stride, rank) + dataOffset((int)k, dataBytes);
    }

    /** Bytes of each gather area for groups of at most {@code maxGroupSize} members: an inline payload each, padded. */
    public static int gatherBytes(final int maxGroupSize)
    {
        if (maxGroupSize < 1)
        {
            throw new IllegalArgumentException("a group has at least one member: maxGroupSize=" + maxGroupSize);
        }
        return (int)align((long)maxGroupSize * INLINE_PAYLOAD);
    }

    /** Bytes of one leader block. */
    public static int leaderStride(final int dataBytes, final int gatherBytes)
    {
        checkDataBytes(dataBytes);
        return LEADER_DATA_OFFSET + 2 * gatherBytes + 2 * dataBytes;
    }

    /** Payload offset of group {@code group}'s leader block. */
    public static long leaderOffset(final int group, final int ranks, final int dataBytes, final int gatherBytes)
    {
        return BLOCKS_OFFSET + (long)ranks * stride(dataBytes) + (long)group * leaderStride(dataBytes, gatherBytes);
    }

    /** Payload offset of the group map (an int per rank). */
    public static long groupMapOffset(final int ranks, final int dataBytes, final int groups, final int gatherBytes)
    {
        return leaderOffset(groups, ranks, dataBytes, gatherBytes);
    }

    /** Offset in a leader block of the gather line of {@code parity}. */
    public static int gatherOffset(final int parity)
    {
        return GATHER_OFFSET + (parity & 1) * LINE;
    }

    /** Offset in a leader block of the release line of {@code parity}. */
    public static int releaseOffset(final int parity)
    {
        return RELEASE_OFFSET + (parity & 1) * LINE;
    }

    /** Offset in a leader block of the gather area of {@code parity}. */
    public static int gatherAreaOffset(final int parity, final int gatherBytes)
    {
        return LEADER_DATA_OFFSET + (parity & 1) * gatherBytes;
    }

    /** Offset in a leader block of the result slot of {@code parity}. */
    public static int resultOffset(final int parity, final int gatherBytes, final int dataBytes)
    {
        return LEADER_DATA_OFFSET + 2 * gatherBytes + (parity & 1) * dataBytes;
    }

    public static void checkDataBytes(final int dataBytes)
    {
        if (dataBytes < LINE || dataBytes % LINE != 0 || dataBytes > 1 << 24)
        {
            throw new IllegalArgumentException("data slot bytes must be a multiple of " + LINE + " in [" + LINE +
                ", 2^24]: dataBytes=" + dataBytes);
        }
    }

    private static void checkGroups(final int ranks, final int groups, final int gatherBytes)
    {
        if (groups == 0 ? gatherBytes != 0 :
            groups < 2 || groups > ranks || gatherBytes < LINE || gatherBytes % LINE != 0)
        {
            throw new IllegalArgumentException("groups must be 0 (flat, with gatherBytes 0) or in [2, ranks] with " +
                "gatherBytes a positive multiple of " + LINE + ": ranks=" + ranks + ", groups=" + groups +
                ", gatherBytes=" + gatherBytes);
        }
    }

    private static long align(final long bytes)
    {
        return (bytes + LINE - 1) / LINE * LINE;
    }
}
