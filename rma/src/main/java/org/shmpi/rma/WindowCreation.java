package org.shmpi.rma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.SharedHeap;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * The collective making of a window: the members agree on every member's size and displacement
 * unit, member 0 makes the window segment ({@link WindowDescriptor}) and the others map it, and
 * each member learns where every member's memory is ({@link WindowMemory}): in the window
 * segment ({@code MPI_Win_allocate}, {@code MPI_Win_allocate_shared}), in the members' shared
 * heaps or served by their owners ({@code MPI_Win_create}), or attached later
 * ({@code MPI_Win_create_dynamic}). Each returns once every member has its window.
 */
final class WindowCreation
{
    /** Heap id of window memory that lies outside the member's shared heap: its owner serves it. */
    private static final long SERVED = -2;
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    /** How long a member waits for member 0's window segment to appear. */
    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private WindowCreation()
    {
    }

    /** {@link ShmWindow#allocate}. */
    static ShmWindow allocate(final RankContext ctx, final WindowMembers members, final long bytes,
        final int dispUnit, final int flavor, final boolean contiguous)
    {
        WindowArguments.checkSizes(bytes, dispUnit);
        if (flavor != ShmWindow.FLAVOR_ALLOCATE && flavor != ShmWindow.FLAVOR_SHARED)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "allocate: not an allocating flavor: " + flavor);
        }
        final int n = members.world().length;
        final int me = members.rank();
        if (!members.sharesMemory() && flavor == ShmWindow.FLAVOR_SHARED)
        {
            // Every member finds the same before anything is made.
            throw new ShmpiException(ErrorClass.ERR_RMA_SHARED, "a shared window (MPI_Win_allocate_shared) needs " +
                "members that share memory; these run on more than one machine (make it on Comm.TYPE_SHARED's " +
                "communicator)");
        }
        final long[] info = members.allgather(new long[] {bytes, dispUnit});
        final long[] sizes = new long[n];
        final int[] units = new int[n];
        for (int r = 0; r < n; r++)
        {
            sizes[r] = info[2 * r];
            units[r] = (int)info[2 * r + 1];
        }
        if (!members.sharesMemory())
        {
            return acrossMachines(ctx, members, flavor, sizes, units, null, 0, null);
        }
        final long[] offsets = WindowDescriptor.regionOffsets(sizes, contiguous);
        final long dataOffset = WindowDescriptor.dataOffset(n);
        final long length = dataOffset + offsets[n];
        final Segment segment = makeSegment(ctx, members, flavor, contiguous, length);
        final long[] base = new long[n];
        for (int r = 0; r < n; r++)
        {
            base[r] = segment.address() + dataOffset + offsets[r];
        }
        final ShmWindow w = new ShmWindow(ctx, members, new WindowMemory(flavor, me, segment, base, sizes, units,
            new Segment[n], new boolean[n], null, null, null));
        // The owner writes its region first, so its pages come from its own NUMA node.
        UnsafeApi.setMemory(null, base[me], sizes[me], (byte)0);
        members.barrier();
        return w;
    }

    /** {@link ShmWindow#create}. */
    static ShmWindow create(final RankContext ctx, final WindowMembers members, final Object memory,
        final long offset, final long bytes, final int dispUnit)
    {
        WindowArguments.checkSizes(bytes, dispUnit);
        if (!members.sharesMemory())
        {
            final long[] info = members.allgather(new long[] {bytes, dispUnit});
            final int n = members.world().length;
            final long[] sizes = new long[n];
            final int[] units = new int[n];
            for (int r = 0; r < n; r++)
            {
                sizes[r] = info[2 * r];
                units[r] = (int)info[2 * r + 1];
            }
            return acrossMachines(ctx, members, ShmWindow.FLAVOR_CREATE, sizes, units, memory, offset, null);
        }
        final SharedHeap heap = ctx.heap();
        long heapId = -1;
        long inSegment = 0;
        if (bytes > 0)
        {
            final SharedHeap.Segment s = memory == null ? heap.find(offset, bytes) : null;
            if (s != null)
            {
                heapId = s.id();
                inSegment = offset - s.address();
            }
            else
            {
                heapId = SERVED;
            }
        }
        final int n = members.world().length;
        final int me = members.rank();
        final long[] info = members.allgather(new long[] {bytes, dispUnit, heapId, inSegment});
        final int[] world = members.world();
        final Segment segment = makeSegment(ctx, members, ShmWindow.FLAVOR_CREATE, false,
            WindowDescriptor.dataOffset(n));
        final long[] base = new long[n];
        final long[] sizes = new long[n];
        final int[] units = new int[n];
        final boolean[] served = new boolean[n];
        final Segment[] heaps = new Segment[n];
        try
        {
            for (int r = 0; r < n; r++)
            {
                sizes[r] = info[4 * r];
                units[r] = (int)info[4 * r + 1];
                served[r] = info[4 * r + 2] == SERVED;
                if (served[r])
                {
                    base[r] = r == me ? offset : 0;
                }
                else if (sizes[r] > 0)
                {
                    // This member's own heap segment too: the manager hands back the one it made.
                    heaps[r] = heap.openPeer(world[r], info[4 * r + 2]);
                    base[r] = heaps[r].address() + info[4 * r + 3];
                }
            }
        }
        catch (final RuntimeException ex)
        {
            for (final Segment s : heaps)
            {
                if (s != null)
                {
                    heap.releasePeer(s);
                }
            }
            throw ex;
        }
        final ShmWindow w = new ShmWindow(ctx, members, new WindowMemory(ShmWindow.FLAVOR_CREATE, me, segment, base,
            sizes, units, heaps, served, served[me] ? memory : null, null, null));
        members.barrier();
        return w;
    }

    /** {@link ShmWindow#createDynamic}. */
    static ShmWindow createDynamic(final RankContext ctx, final WindowMembers members)
    {
        final int n = members.world().length;
        if (!members.sharesMemory())
        {
            final int[] units = new int[n];
            Arrays.fill(units, 1);
            return acrossMachines(ctx, members, ShmWindow.FLAVOR_DYNAMIC, new long[n], units, null, 0,
                AttachTable.unshared(n, members.rank(), ctx.heap(), members.world()));
        }
        final Segment segment = makeSegment(ctx, members, ShmWindow.FLAVOR_DYNAMIC, false,
            AttachTable.tableOffset(n) + (long)n * AttachTable.TABLE_STRIDE);
        final int[] units = new int[n];
        Arrays.fill(units, 1);
        final AttachTable table = new AttachTable(segment.buffer(), n, members.rank(), ctx.heap(), members.world());
        final ShmWindow w = new ShmWindow(ctx, members, new WindowMemory(ShmWindow.FLAVOR_DYNAMIC, members.rank(),
            segment, new long[n], new long[n], units, new Segment[n], new boolean[n], null, table, null));
        members.barrier();
        return w;
    }

    /**
     * A window whose members run on more than one machine: no segment; every member serves its
     * own memory ({@code memory}/{@code offset} for a created window, a zeroed direct buffer of
     * its own for an allocated one, the attachments of a dynamic one), and synchronisation goes
     * by messages ({@link MessageControl}).
     */
    private static ShmWindow acrossMachines(final RankContext ctx, final WindowMembers members, final int flavor,
        final long[] sizes, final int[] units, final Object memory, final long offset, final AttachTable table)
    {
        final int n = sizes.length;
        final int me = members.rank();
        final long[] base = new long[n];
        final boolean[] served = new boolean[n];
        Arrays.fill(served, true);
        ByteBuffer own = null;
        Object local = memory;
        if (flavor == ShmWindow.FLAVOR_ALLOCATE)
        {
            if (sizes[me] > Integer.MAX_VALUE)
            {
                throw new ShmpiException(ErrorClass.ERR_NO_MEM, "a window across machines allocates at most 2 GiB " +
                    "per member, not " + sizes[me]);
            }
            own = ByteBuffer.allocateDirect((int)Math.max(sizes[me], 1));
            base[me] = org.agrona.BufferUtil.address(own);
            local = null;
        }
        else if (flavor == ShmWindow.FLAVOR_CREATE)
        {
            base[me] = offset;
        }
        final ShmWindow w = new ShmWindow(ctx, members, new WindowMemory(flavor, me, null, base, sizes, units,
            new Segment[n], served, local, table, own));
        members.barrier();
        return w;
    }

    /**
     * Member 0 makes the window segment ({@code length} bytes of payload) and everyone learns its
     * id in one allgather (-1: it could not be made; every member then fails alike); the others
     * map it.
     */
    private static Segment makeSegment(final RankContext ctx, final WindowMembers members, final int flavor,
        final boolean contiguous, final long length)
    {
        final int[] world = members.world();
        final int n = world.length;
        final int me = members.rank();
        final SegmentManager manager = ctx.segments();
        Segment segment = null;
        long id = 0;
        String failure = "";
        if (me == 0)
        {
            id = NEXT_ID.getAndIncrement();
            if (length > Integer.MAX_VALUE - 4096)
            {
                failure = "window of " + length + " bytes in all is larger than one segment can map (2 GiB)";
                id = -1;
            }
            else
            {
                try
                {
                    segment = manager.create(SegmentKind.WINDOW, SegmentNames.window(id, world[0]), length, 0, b ->
                    {
                        b.putInt(WindowDescriptor.RANKS_OFFSET, n);
                        b.putInt(WindowDescriptor.FLAVOR_OFFSET, flavor);
                        b.putInt(WindowDescriptor.CONTIGUOUS_OFFSET, contiguous ? 1 : 0);
                        b.putInt(WindowDescriptor.CONTROL_STRIDE_OFFSET, WindowDescriptor.controlStride(n));
                        b.putLong(WindowDescriptor.CONTROL_OFFSET_OFFSET, WindowDescriptor.controlOffset());
                        b.putLong(WindowDescriptor.DATA_OFFSET_OFFSET, WindowDescriptor.dataOffset(n));
                    });
                }
                catch (final IOException ex)
                {
                    failure = ex.getMessage();
                    id = -1;
                }
            }
        }
        for (final int w : world)
        {
            ctx.wakeups().prepareWake(w);
        }
        final long agreed = members.allgather(new long[] {id})[0];
        if (agreed < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_NO_MEM, "cannot make the window segment" +
                (me == 0 ? ": " + failure : " (member 0 could not)"));
        }
        if (me != 0)
        {
            try
            {
                segment = manager.open(SegmentKind.WINDOW, SegmentNames.window(agreed, world[0]), world[0],
                    System.nanoTime() + OPEN_TIMEOUT_NS);
            }
            catch (final IOException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the window segment " +
                    SegmentNames.window(agreed, world[0]) + ": " + ex.getMessage(), ex);
            }
            final AtomicBuffer b = segment.buffer();
            if (b.getInt(WindowDescriptor.RANKS_OFFSET) != n || b.getInt(WindowDescriptor.FLAVOR_OFFSET) != flavor)
            {
                manager.release(segment);
                throw new ShmpiException(ErrorClass.ERR_INTERN, "window segment describes " +
                    b.getInt(WindowDescriptor.RANKS_OFFSET) + " members of flavor " +
                    b.getInt(WindowDescriptor.FLAVOR_OFFSET) + ", not " + n + " of flavor " + flavor);
            }
        }
        return segment;
    }
}
