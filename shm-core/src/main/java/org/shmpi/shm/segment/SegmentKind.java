package org.shmpi.shm.segment;

/**
 * What a segment holds, as written in its header ({@link SegmentHeaderDescriptor#KIND_OFFSET}),
 * with the defaults the {@link SegmentManager} applies to it. A peer opening a segment names the
 * kind it expects; a file of another kind is refused.
 */
public enum SegmentKind
{
    /**
     * A rank's inbox ring ({@code inbox-<rank>}). Every peer writes into it; the creator touches
     * every page so that, on a NUMA machine, the ring lives on the receiver's node.
     */
    INBOX(SegmentHeaderDescriptor.KIND_INBOX, true, true),

    /**
     * Shared-heap memory of {@code MPI.newByteBuffer} ({@code heap-<rank>-<id>}). Peers map it to
     * copy large messages out of it, and read-write when it is the memory of an RMA window
     * ({@code new Win(buffer, ...)}), whose puts and accumulates are peers' stores. Pages are left
     * for the user's first write to place.
     */
    HEAP(SegmentHeaderDescriptor.KIND_HEAP, true, false),

    /** Reserved: scratch of collective algorithms ({@code coll-<context>-<rank>}). */
    COLLECTIVE(SegmentHeaderDescriptor.KIND_COLLECTIVE, true, true),

    /** Reserved: memory of an RMA window ({@code win-<id>-<rank>}). */
    WINDOW(SegmentHeaderDescriptor.KIND_WINDOW, true, true),

    /** Reserved: shared state of an open MPI file, e.g. its shared file pointer ({@code file-<id>}). */
    FILE(SegmentHeaderDescriptor.KIND_FILE, true, false);

    private final int code;
    private final boolean peerWritable;
    private final boolean touchByDefault;

    SegmentKind(final int code, final boolean peerWritable, final boolean touchByDefault)
    {
        this.code = code;
        this.peerWritable = peerWritable;
        this.touchByDefault = touchByDefault;
    }

    /** The code in the segment header. */
    public int code()
    {
        return code;
    }

    /** Whether peers map it read-write (otherwise read-only: a stray write faults, never corrupts). */
    public boolean peerWritable()
    {
        return peerWritable;
    }

    /** Whether its creator touches every page by default (NUMA first touch). */
    public boolean touchByDefault()
    {
        return touchByDefault;
    }

    /** The kind of a header code, or null when the code is not one. */
    public static SegmentKind ofCode(final int code)
    {
        for (final SegmentKind kind : values())
        {
            if (kind.code == code)
            {
                return kind;
            }
        }
        return null;
    }
}
