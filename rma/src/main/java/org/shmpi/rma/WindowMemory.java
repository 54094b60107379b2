package org.shmpi.rma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;

/**
 * Where each member's window memory is, as this member reaches it: the window segment (the
 * control blocks, and the data regions of an allocated window), the peers' shared-heap segments
 * mapped for a window made over heap memory, which members serve their memory themselves
 * ({@link WindowService}), and a dynamic window's attachments. Made by {@link WindowCreation};
 * fixed for the window's life but for what a dynamic window has attached. A window whose members
 * run on different machines has no segment: every member serves its own memory (for an
 * allocated window, a direct buffer of its own).
 */
final class WindowMemory
{
    private final int flavor;
    private final int me;
    private final int n;
    private final Segment segment;
    /**
     * Address here of each member's region (for this member's memory served by itself, the
     * Unsafe offset into {@link #localMemory}; for a peer's served memory, 0), its bytes and its
     * displacement unit.
     */
    private final long[] base;
    private final long[] size;
    private final int[] dispUnit;
    /** Peer heap segments mapped for a window made over shared-heap memory (null entries otherwise). */
    private final Segment[] peerHeaps;
    /** Members whose memory the others cannot map: their progress engines serve it. */
    private final boolean[] served;
    /** Unsafe base object of this member's memory (an array), or null for mapped or direct memory. */
    private final Object localMemory;
    /** A dynamic window's attached memory (null for the other flavors). */
    private final AttachTable attachments;
    /** This member's memory of an allocated window across machines (null otherwise). */
    private final ByteBuffer own;
    private final ByteBuffer[] views;

    WindowMemory(final int flavor, final int me, final Segment segment, final long[] base, final long[] size,
        final int[] dispUnit, final Segment[] peerHeaps, final boolean[] served, final Object localMemory,
        final AttachTable attachments, final ByteBuffer own)
    {
        this.flavor = flavor;
        this.me = me;
        this.n = base.length;
        this.segment = segment;
        this.base = base;
        this.size = size;
        this.dispUnit = dispUnit;
        this.peerHeaps = peerHeaps;
        this.served = served;
        this.localMemory = localMemory;
        this.attachments = attachments;
        this.own = own;
        this.views = new ByteBuffer[n];
    }

    int flavor()
    {
        return flavor;
    }

    /**
     * The window segment, whose payload starts with the header and the control blocks; null for
     * a window across machines.
     */
    Segment segment()
    {
        return segment;
    }

    /** A dynamic window's attachments, or null. */
    AttachTable attachments()
    {
        return attachments;
    }

    /** The Unsafe base object of this member's memory: an array, or null (an address). */
    Object localMemory()
    {
        return localMemory;
    }

    void checkRank(final int rank)
    {
        WindowArguments.checkRank(rank, n);
    }

    /** Bytes of member {@code rank}'s region (unchecked). */
    long regionSize(final int rank)
    {
        return size[rank];
    }

    /** Displacement unit of member {@code rank} (unchecked). */
    int dispUnit(final int rank)
    {
        return dispUnit[rank];
    }

    /** Address of member {@code rank}'s region here (unchecked; see {@link #base}). */
    long address(final int rank)
    {
        return base[rank];
    }

    /** Whether member {@code rank}'s memory is served by its owner (unchecked). */
    boolean isServed(final int rank)
    {
        return served[rank];
    }

    /** Whether a member other than this one serves its memory. */
    boolean anyPeerServed()
    {
        boolean anyServed = false;
        for (int r = 0; r < n; r++)
        {
            anyServed |= served[r] && r != me;
        }
        return anyServed;
    }

    /** Whether {@code target}'s memory is served by its owner (not mapped here). */
    boolean remote(final int target)
    {
        return served[target] && target != me;
    }

    /** The Unsafe base object of {@code target}'s memory here: this member's array, else null (an address). */
    Object memoryOf(final int target)
    {
        return target == me ? localMemory : null;
    }

    /**
     * A direct buffer (native byte order) over member {@code rank}'s region as mapped here
     * ({@code MPI_Win_shared_query}).
     */
    ByteBuffer region(final int rank)
    {
        checkRank(rank);
        if (attachments != null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "a dynamic window has no memory of its own to query");
        }
        if (rank == me && own != null)
        {
            return own.duplicate().order(ByteOrder.nativeOrder());
        }
        if (served[rank])
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SHARED, "member " + rank + "'s window memory is not shared " +
                "memory (not from MPI.newXxxBuffer of 64 KiB or more): no buffer can reach it");
        }
        ByteBuffer v = views[rank];
        if (v == null)
        {
            if (size[rank] > Integer.MAX_VALUE)
            {
                throw new ShmpiException(ErrorClass.ERR_SIZE, "region of " + size[rank] + " bytes is too large for " +
                    "one buffer");
            }
            // A buffer of the region's own, not a slice of the whole segment: a user's datatype
            // with a negative lower bound over it may reach back within the buffer's allocation
            // (mpi.Buffers), which must not take in the window's control words or another
            // member's region.
            final Segment holder = peerHeaps[rank] != null ? peerHeaps[rank] : segment;
            v = holder.newByteBufferView(base[rank] - holder.address(), (int)size[rank]);
            views[rank] = v;
        }
        return v.duplicate().order(ByteOrder.nativeOrder());
    }

    /** Unmaps this member's mappings; member 0 also removes the window segment. */
    void release(final RankContext ctx)
    {
        if (attachments != null)
        {
            attachments.close();
        }
        for (final Segment s : peerHeaps)
        {
            if (s != null)
            {
                ctx.heap().releasePeer(s);
            }
        }
        if (segment == null)
        {
            return;
        }
        if (me == 0)
        {
            ctx.segments().remove(segment);
        }
        else
        {
            ctx.segments().release(segment);
        }
    }
}
