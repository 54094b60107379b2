package org.shmpi.rma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.PointToPointEngine;
import org.shmpi.ring.SharedHeap;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

/**
 * One member's side of an RMA window whose memory every member maps: a put is a copy into the
 * target's mapped region, a get a copy out of it, an accumulate an atomic read-modify-write of
 * each element there. Nothing waits for the target: passive-target epochs progress whatever the
 * target is doing. The synchronisation words live in the window segment
 * ({@link WindowDescriptor}): a lock word per member (shared count and an exclusive bit, changed
 * by atomic instructions), and single-writer post and complete counters for PSCW.
 *
 * <p>Where the memory is: {@link #allocate} puts every member's region in the window segment
 * (page-aligned each, or without gaps for a contiguous shared window); {@link #create} uses
 * memory each member has in its shared heap, which the others map.
 *
 * <p>Not thread-safe: one thread per member uses a window at a time (as one MPI call at a time).
 * Errors are {@link ShmpiException}s with the MPI error class, raised before any byte moves.
 */
public final class ShmWindow implements AutoCloseable
{
    /** MPI's window flavors (values of {@code MPI_WIN_CREATE_FLAVOR}). */
    public static final int FLAVOR_CREATE = 1;
    public static final int FLAVOR_ALLOCATE = 2;
    public static final int FLAVOR_DYNAMIC = 3;
    public static final int FLAVOR_SHARED = 4;

    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;

    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOPRECEDE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOSTORE = 8;
    public static final int MODE_NOSUCCEED = 16;

    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    /** Heap id of window memory that lies outside the member's shared heap: its owner serves it. */
    private static final long SERVED = -2;
    /** Accumulates of this many elements or more run as one plain loop under the exclusive accumulate word. */
    static final int BULK_ELEMENTS = 16;
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    /** How long a member waits for member 0's window segment to appear. */
    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private final PointToPointEngine engine;
    private final WindowMembers members;
    private final int[] world;
    private final int me;
    private final int n;
    private final int flavor;
    private final Segment segment;
    private final AtomicBuffer control;
    private final int controlStride;
    private final int completesOffset;
    /** Peer heap segments mapped for a window made over shared-heap memory (null entries otherwise). */
    private final Segment[] peerHeaps;
    private final ByteBuffer[] views;

    /**
     * Address here of each member's region (for this member's memory served by itself, the
     * Unsafe offset into {@link #localMemory}; for a peer's served memory, 0), its bytes and its
     * displacement unit.
     */
    private final long[] base;
    /** Members whose memory the others cannot map: their progress engines serve it. */
    private final boolean[] served;
    /** Unsafe base object of this member's memory (an array), or null for mapped or direct memory. */
    private final Object localMemory;
    private WindowService service;
    private WindowService.Origin origin;
    /** A dynamic window's attached memory (null for the other flavors). */
    private final AttachTable attachments;
    /** Where the last checked access goes: Unsafe base object, and whether the target serves it. */
    private Object resolvedObject;
    private boolean resolvedRemote;
    private final long[] size;
    private final int[] dispUnit;

    // Epochs of this member (origin side: fence, start, locks; target side: post).
    private boolean fenceEpoch;
    /** Start/complete access epoch: open, and which targets it names (reused from epoch to epoch). */
    private boolean accessOpen;
    private final boolean[] accessGroup;
    /** Post/wait exposure epoch: the origins it names in {@code exposureGroup}; -1 when none is open. */
    private int exposureCount = -1;
    private final int[] exposureGroup;
    /** World ranks to wake after a post or complete (reused: the epoch calls allocate nothing). */
    private final int[] wakeList;
    /** Per target: 0, or the lock type held (ORed with LOCK_NOCHECK when taken without the lock word). */
    private final int[] locks;
    private int lockedTargets;
    private boolean lockAll;
    /** Whether lockAll took the lock words (not under MODE_NOCHECK). */
    private boolean lockAllChecked;
    private static final int LOCK_NOCHECK = 1 << 8;
    /** Posts from each target and completes from each origin consumed so far. */
    private final int[] postsSeen;
    private final int[] completesSeen;
    private boolean freed;

    private final byte[] scratch = new byte[16];
    private byte[] staging = new byte[0];
    private byte[] results = new byte[0];

    private ShmWindow(final PointToPointEngine engine, final WindowMembers members, final int flavor,
        final Segment segment, final long[] base, final long[] size, final int[] dispUnit, final Segment[] peerHeaps,
        final boolean[] served, final Object localMemory, final AttachTable attachments)
    {
        this.engine = engine;
        this.members = members;
        this.world = members.world();
        this.me = members.rank();
        this.n = world.length;
        this.flavor = flavor;
        this.segment = segment;
        this.control = segment.buffer();
        this.controlStride = WindowDescriptor.controlStride(n);
        this.completesOffset = WindowDescriptor.completesOffset(n);
        this.base = base;
        this.size = size;
        this.dispUnit = dispUnit;
        this.peerHeaps = peerHeaps;
        this.views = new ByteBuffer[n];
        this.locks = new int[n];
        this.postsSeen = new int[n];
        this.completesSeen = new int[n];
        this.accessGroup = new boolean[n];
        this.exposureGroup = new int[n];
        this.wakeList = new int[n];
        this.served = served;
        this.localMemory = localMemory;
        boolean anyServed = false;
        for (int r = 0; r < n; r++)
        {
            anyServed |= served[r] && r != me;
        }
        this.attachments = attachments;
        // A dynamic window learns at each access whether the target serves the memory.
        this.origin = (anyServed || attachments != null) && n > 1 ?
            new WindowService.Origin(engine, members.context(), world, me) : null;
        if (served[me] && n > 1)
        {
            service = new WindowService(engine, members.context(), WindowService.region(localMemory, base[me]));
            service.start();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Creation

    /**
     * {@code MPI_Win_allocate} ({@link #FLAVOR_ALLOCATE}) and {@code MPI_Win_allocate_shared}
     * ({@link #FLAVOR_SHARED}): {@code bytes} of zeroed memory per member in the window segment;
     * {@code contiguous} puts the regions one after the other, else each starts on a page.
     * Collective over {@code members}.
     */
    public static ShmWindow allocate(final PointToPointEngine engine, final WindowMembers members, final long bytes,
        final int dispUnit, final int flavor, final boolean contiguous)
    {
        checkSizes(bytes, dispUnit);
        if (flavor != FLAVOR_ALLOCATE && flavor != FLAVOR_SHARED)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "allocate: not an allocating flavor: " + flavor);
        }
        final int n = members.world().length;
        final long[] info = members.allgather(new long[] {bytes, dispUnit});
        final long[] sizes = new long[n];
        final int[] units = new int[n];
        for (int r = 0; r < n; r++)
        {
            sizes[r] = info[2 * r];
            units[r] = (int)info[2 * r + 1];
        }
        final long[] offsets = WindowDescriptor.regionOffsets(sizes, contiguous);
        final long dataOffset = WindowDescriptor.dataOffset(n);
        final long length = dataOffset + offsets[n];
        final Segment segment = makeSegment(engine, members, flavor, contiguous, length);
        final long[] base = new long[n];
        for (int r = 0; r < n; r++)
        {
            base[r] = segment.address() + dataOffset + offsets[r];
        }
        final ShmWindow w = new ShmWindow(engine, members, flavor, segment, base, sizes, units, new Segment[n],
            new boolean[n], null, null);
        // The owner writes its region first, so its pages come from its own NUMA node.
        UnsafeApi.setMemory(null, base[w.me], sizes[w.me], (byte)0);
        members.barrier();
        return w;
    }

    /**
     * {@code MPI_Win_create} over {@code bytes} of this member's memory at
     * {@code memory}/{@code offset} (Unsafe addressing: an array and an offset into it, or null
     * and an address). Memory in the member's shared heap (a buffer of {@code MPI.newXxxBuffer})
     * is mapped by the others; any other memory is served by this member's progress engine
     * ({@link WindowService}). Collective over {@code members}.
     */
    public static ShmWindow create(final PointToPointEngine engine, final WindowMembers members, final Object memory,
        final long offset, final long bytes, final int dispUnit)
    {
        checkSizes(bytes, dispUnit);
        final SharedHeap heap = engine.heap();
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
        final Segment segment = makeSegment(engine, members, FLAVOR_CREATE, false, WindowDescriptor.dataOffset(n));
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
        final ShmWindow w = new ShmWindow(engine, members, FLAVOR_CREATE, segment, base, sizes, units, heaps, served,
            served[me] ? memory : null, null);
        members.barrier();
        return w;
    }

    /**
     * {@code MPI_Win_create_dynamic}: a window without memory; each member attaches and detaches
     * regions of its own ({@link #attach}). Collective over {@code members}.
     */
    public static ShmWindow createDynamic(final PointToPointEngine engine, final WindowMembers members)
    {
        final int n = members.world().length;
        final Segment segment = makeSegment(engine, members, FLAVOR_DYNAMIC, false,
            AttachTable.tableOffset(n) + (long)n * AttachTable.TABLE_STRIDE);
        final int[] units = new int[n];
        java.util.Arrays.fill(units, 1);
        final AttachTable table = new AttachTable(segment.buffer(), n, members.rank(), engine.heap(), members.world());
        final ShmWindow w = new ShmWindow(engine, members, FLAVOR_DYNAMIC, segment, new long[n], new long[n], units,
            new Segment[n], new boolean[n], null, table);
        members.barrier();
        return w;
    }

    /**
     * {@code MPI_Win_attach}: {@code bytes} of this member's memory at {@code memory}/{@code offset}
     * (Unsafe addressing; {@code key} names it for {@link #detach}) join a dynamic window, at the
     * displacement {@link #displacementOf} gives. Memory of the shared heap is mapped by the
     * others; any other memory is served by this member's progress engine.
     */
    public void attach(final Object key, final Object memory, final long offset, final long bytes)
    {
        checkUsable();
        if (attachments == null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "attach is for dynamic windows only");
        }
        if (bytes < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_SIZE, "negative size: " + bytes);
        }
        final boolean shared = attachments.attach(key, memory, offset, bytes);
        if (!shared && service == null && n > 1)
        {
            service = new WindowService(engine, members.context(), new WindowService.LocalMemory()
            {
                @Override
                public void resolve(final long start, final long low, final long high)
                {
                    attachments.lookupLocal(start, low, high);
                }

                @Override
                public Object object()
                {
                    return attachments.object;
                }

                @Override
                public long address()
                {
                    return attachments.address;
                }
            });
            service.start();
        }
    }

    /** {@code MPI_Win_detach} of the memory attached as {@code key}. */
    public void detach(final Object key)
    {
        checkUsable();
        if (attachments == null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "detach is for dynamic windows only");
        }
        attachments.detach(key);
    }

    /** The displacement at which the others reach the memory attached as {@code key}. */
    public long displacementOf(final Object key)
    {
        checkUsable();
        if (attachments == null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "displacements of attached memory are for dynamic " +
                "windows only");
        }
        return attachments.displacementOf(key);
    }

    private static void checkSizes(final long bytes, final int dispUnit)
    {
        if (bytes < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_SIZE, "negative window size: " + bytes + " bytes");
        }
        if (dispUnit <= 0)
        {
            throw new ShmpiException(ErrorClass.ERR_DISP, "displacement unit must be positive: " + dispUnit);
        }
    }

    /**
     * Member 0 makes the window segment ({@code length} bytes of payload) and everyone learns its
     * id in one allgather (-1: it could not be made; every member then fails alike); the others
     * map it.
     */
    private static Segment makeSegment(final PointToPointEngine engine, final WindowMembers members, final int flavor,
        final boolean contiguous, final long length)
    {
        final int[] world = members.world();
        final int n = world.length;
        final int me = members.rank();
        final SegmentManager manager = engine.segments();
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
            engine.prepareWake(w);
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

    // ------------------------------------------------------------------------------------------
    // What the window is

    public int size()
    {
        return n;
    }

    public int rank()
    {
        return me;
    }

    public int flavor()
    {
        return flavor;
    }

    /** Bytes of member {@code rank}'s region. */
    public long regionSize(final int rank)
    {
        checkRank(rank);
        return size[rank];
    }

    /** Displacement unit of member {@code rank}. */
    public int dispUnit(final int rank)
    {
        checkRank(rank);
        return dispUnit[rank];
    }

    /** Address of member {@code rank}'s region in this process. */
    public long address(final int rank)
    {
        checkRank(rank);
        return base[rank];
    }

    /**
     * A direct buffer (native byte order) over member {@code rank}'s region as mapped here, for
     * loads and stores ({@code MPI_Win_shared_query}).
     */
    public ByteBuffer region(final int rank)
    {
        checkRank(rank);
        if (attachments != null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "a dynamic window has no memory of its own to query");
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
            final org.shmpi.shm.segment.Segment holder = peerHeaps[rank] != null ? peerHeaps[rank] : segment;
            v = holder.newByteBufferView(base[rank] - holder.address(), (int)size[rank]);
            views[rank] = v;
        }
        return v.duplicate().order(ByteOrder.nativeOrder());
    }

    // ------------------------------------------------------------------------------------------
    // Communication

    /**
     * {@code MPI_Put}: {@code bytes} packed bytes of origin data ({@code layout} over
     * {@code originBase}/{@code originOffset}) into {@code targetCount} items of
     * {@code targetMap} (null: {@code bytes} contiguous bytes) at displacement
     * {@code targetDisp} of member {@code target}'s region.
     */
    public void put(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        if (bytes == 0)
        {
            return;
        }
        if (resolvedRemote)
        {
            origin.put(originBase, originOffset, layout, bytes, target, at, targetMap, targetCount);
            return;
        }
        final Object tb = resolvedObject;
        if (targetMap == null || targetMap.isContiguous())
        {
            layout.pack(originBase, originOffset, 0, tb, at, bytes);
        }
        else if (layout.isContiguous())
        {
            targetMap.layout().unpack(originBase, originOffset, bytes, tb, at, 0);
        }
        else
        {
            final byte[] s = staging(bytes);
            layout.pack(originBase, originOffset, 0, s, BYTES, bytes);
            targetMap.layout().unpack(s, BYTES, bytes, tb, at, 0);
        }
    }

    /** {@code MPI_Get}: the reverse of {@link #put}. */
    public void get(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        if (bytes == 0)
        {
            return;
        }
        if (resolvedRemote)
        {
            origin.get(originBase, originOffset, layout, bytes, target, at, targetMap, targetCount);
            return;
        }
        final Object tb = resolvedObject;
        if (targetMap == null || targetMap.isContiguous())
        {
            layout.unpack(tb, at, bytes, originBase, originOffset, 0);
        }
        else if (layout.isContiguous())
        {
            targetMap.layout().pack(tb, at, 0, originBase, originOffset, bytes);
        }
        else
        {
            final byte[] s = staging(bytes);
            targetMap.layout().pack(tb, at, 0, s, BYTES, bytes);
            layout.unpack(s, BYTES, bytes, originBase, originOffset, 0);
        }
    }

    /**
     * {@code MPI_Accumulate} and, with a result buffer, {@code MPI_Get_accumulate}: each element
     * of the target (of basic kind {@code kind}) becomes {@code origin op target}, atomically with
     * respect to every other accumulate on it; the target's values before are unpacked into the
     * result ({@code resultLayout} over {@code resultBase}/{@code resultOffset}) when
     * {@code resultLayout} is not null. Fewer than {@link #BULK_ELEMENTS} aligned elements of 1, 2,
     * 4 or 8 bytes change by one compare-and-set each, with the target's accumulate word shared;
     * anything else runs as one plain loop with the word exclusive, and without the word while
     * this member holds the target's exclusive lock (nobody else can touch it then).
     */
    public void accumulate(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount,
        final int reduction, final int kind, final Object resultBase, final long resultOffset,
        final DataLayout resultLayout)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        final Reductions.Kernel kernel = kernelOf(reduction, kind);
        final int elementSize = BasicKind.size(kind);
        if (bytes == 0)
        {
            return;
        }
        if (bytes % elementSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "accumulate of " + bytes + " bytes is not a whole number of " +
                elementSize + "-byte elements");
        }
        if (resolvedRemote)
        {
            final byte[] copy = packedCopy(originBase, originOffset, layout, bytes);
            origin.accumulate(copy, bytes, target, at, targetMap, targetCount, reduction, kind, resultBase, resultOffset,
                resultLayout);
            if (resultLayout != null)
            {
                origin.complete();
            }
            return;
        }
        final Object tb = resolvedObject;
        final Object in;
        final long inOffset;
        if (layout.isContiguous())
        {
            in = originBase;
            inOffset = originOffset;
        }
        else
        {
            in = staging(bytes);
            inOffset = BYTES;
            layout.pack(originBase, originOffset, 0, in, BYTES, bytes);
        }
        final byte[] old = resultLayout == null ? null : results(bytes);
        final boolean alone = alone(target);
        final boolean contiguous = targetMap == null || targetMap.isContiguous();
        // One atomic instruction per element for a few aligned elements of 1, 2, 4 or 8 bytes (with
        // the accumulate word shared); else one plain loop with the word exclusive.
        final boolean atomics = !alone && contiguous && bytes / elementSize < BULK_ELEMENTS &&
            (elementSize == 1 || elementSize == 2 || elementSize == 4 || elementSize == 8) &&
            (at & (elementSize - 1)) == 0;
        if (!alone)
        {
            lockAccumulates(target, !atomics);
        }
        try
        {
            if (contiguous)
            {
                apply(kernel, elementSize, in, inOffset, tb, at, bytes, old, 0, !atomics);
            }
            else
            {
                final long extent = targetMap.extent();
                final int blocks = targetMap.blocks();
                long packed = 0;
                for (long item = 0; item < targetCount; item++)
                {
                    for (int b = 0; b < blocks; b++)
                    {
                        final long length = targetMap.blockLength(b);
                        apply(kernel, elementSize, in, inOffset + packed, tb,
                            at + item * extent + targetMap.blockDisplacement(b), length, old, packed, true);
                        packed += length;
                    }
                }
            }
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !atomics);
            }
        }
        if (old != null)
        {
            resultLayout.unpack(old, BYTES, bytes, resultBase, resultOffset, 0);
        }
    }

    /**
     * {@code MPI_Fetch_and_op}: one element of {@code kind}; sums of 4- and 8-byte integers,
     * replace and no-op are one atomic instruction, the rest a compare-and-set loop.
     */
    public void fetchAndOp(final Object originBase, final long originOffset, final Object resultBase,
        final long resultOffset, final int reduction, final int kind, final int target, final long targetDisp)
    {
        final int elementSize = BasicKind.size(kind);
        final long at = targetAddress(target, targetDisp, null, 1, elementSize);
        final Reductions.Kernel kernel = kernelOf(reduction, kind);
        if (resolvedRemote)
        {
            origin.accumulate(packedCopy(originBase, originOffset, DataLayout.CONTIGUOUS, elementSize), elementSize,
                target, at, null, 1, reduction, kind, resultBase, resultOffset, DataLayout.CONTIGUOUS);
            origin.complete();
            return;
        }
        final Object tb = resolvedObject;
        final boolean integerSum = reduction == Reductions.SUM && (kind == BasicKind.INT || kind == BasicKind.LONG);
        final boolean replace = reduction == Reductions.REPLACE;
        final boolean noOp = reduction == Reductions.NO_OP;
        final boolean alone = alone(target);
        if ((elementSize == 8 && (at & 7) == 0 || elementSize == 4 && (at & 3) == 0) && (integerSum || replace || noOp))
        {
            if (!alone)
            {
                lockAccumulates(target, false);
            }
            try
            {
                if (elementSize == 8)
                {
                    final long v = noOp ? UnsafeApi.getLongVolatile(tb, at) : replace ?
                        UnsafeApi.getAndSetLong(tb, at, UnsafeApi.getLong(originBase, originOffset)) :
                        UnsafeApi.getAndAddLong(tb, at, UnsafeApi.getLong(originBase, originOffset));
                    UnsafeApi.putLong(resultBase, resultOffset, v);
                }
                else
                {
                    final int v = noOp ? UnsafeApi.getIntVolatile(tb, at) : replace ?
                        UnsafeApi.getAndSetInt(tb, at, UnsafeApi.getInt(originBase, originOffset)) :
                        UnsafeApi.getAndAddInt(tb, at, UnsafeApi.getInt(originBase, originOffset));
                    UnsafeApi.putInt(resultBase, resultOffset, v);
                }
            }
            finally
            {
                if (!alone)
                {
                    unlockAccumulates(target, false);
                }
            }
            return;
        }
        final byte[] old = results(elementSize);
        final boolean atomic = !alone && (elementSize == 1 || elementSize == 2 || elementSize == 4 || elementSize == 8) &&
            (at & (elementSize - 1)) == 0;
        if (!alone)
        {
            lockAccumulates(target, !atomic);
        }
        try
        {
            apply(kernel, elementSize, originBase, originOffset, tb, at, elementSize, old, 0, !atomic);
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !atomic);
            }
        }
        UnsafeApi.copyMemory(old, BYTES, resultBase, resultOffset, elementSize);
    }

    /**
     * Whether nobody else can update {@code target}'s memory now: this member holds its exclusive
     * lock, or the memory is this member's own and served (the others reach it only through this
     * member's service, on this thread).
     */
    private boolean alone(final int target)
    {
        return (locks[target] & 0xFF) == LOCK_EXCLUSIVE && (locks[target] & LOCK_NOCHECK) == 0 ||
            target == me && served[me];
    }

    /**
     * {@code MPI_Compare_and_swap}: if the target element equals {@code compare}, it becomes the
     * origin's; the element before lands in the result. One instruction for 1, 2, 4 and 8 bytes
     * at aligned addresses, else under the target's accumulate lock.
     */
    public void compareAndSwap(final Object originBase, final long originOffset, final Object compareBase,
        final long compareOffset, final Object resultBase, final long resultOffset, final int elementSize,
        final int target, final long targetDisp)
    {
        final long at = targetAddress(target, targetDisp, null, 1, elementSize);
        if (resolvedRemote)
        {
            final byte[] in = new byte[2 * elementSize];
            UnsafeApi.copyMemory(originBase, originOffset, in, BYTES, elementSize);
            UnsafeApi.copyMemory(compareBase, compareOffset, in, BYTES + elementSize, elementSize);
            origin.compareAndSwap(in, elementSize, target, at, resultBase, resultOffset);
            origin.complete();
            return;
        }
        final Object tb = resolvedObject;
        final boolean alone = alone(target);
        final boolean instruction = elementSize == 8 && (at & 7) == 0 || elementSize == 4 && (at & 3) == 0 ||
            elementSize == 2 && (at & 1) == 0 || elementSize == 1;
        if (!alone)
        {
            lockAccumulates(target, !instruction);
        }
        try
        {
            swap(originBase, originOffset, compareBase, compareOffset, resultBase, resultOffset, elementSize, tb, at);
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !instruction);
            }
        }
    }

    private void swap(final Object originBase, final long originOffset, final Object compareBase,
        final long compareOffset, final Object resultBase, final long resultOffset, final int elementSize,
        final Object tb, final long at)
    {
        if (elementSize == 8 && (at & 7) == 0)
        {
            UnsafeApi.putLong(resultBase, resultOffset, UnsafeApi.compareAndExchangeLong(tb, at,
                UnsafeApi.getLong(compareBase, compareOffset), UnsafeApi.getLong(originBase, originOffset)));
        }
        else if (elementSize == 4 && (at & 3) == 0)
        {
            UnsafeApi.putInt(resultBase, resultOffset, UnsafeApi.compareAndExchangeInt(tb, at,
                UnsafeApi.getInt(compareBase, compareOffset), UnsafeApi.getInt(originBase, originOffset)));
        }
        else if (elementSize == 2 && (at & 1) == 0)
        {
            UnsafeApi.putShort(resultBase, resultOffset, UnsafeApi.compareAndExchangeShort(tb, at,
                UnsafeApi.getShort(compareBase, compareOffset), UnsafeApi.getShort(originBase, originOffset)));
        }
        else if (elementSize == 1)
        {
            UnsafeApi.putByte(resultBase, resultOffset, UnsafeApi.compareAndExchangeByte(tb, at,
                UnsafeApi.getByte(compareBase, compareOffset), UnsafeApi.getByte(originBase, originOffset)));
        }
        else
        {
            // Under the exclusive accumulate word (taken by the caller).
            UnsafeApi.copyMemory(tb, at, scratch, BYTES, elementSize);
            if (sameBytes(scratch, BYTES, compareBase, compareOffset, elementSize))
            {
                UnsafeApi.copyMemory(originBase, originOffset, tb, at, elementSize);
            }
            UnsafeApi.copyMemory(scratch, BYTES, resultBase, resultOffset, elementSize);
        }
    }

    private static boolean sameBytes(final Object a, final long ao, final Object b, final long bo, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (UnsafeApi.getByte(a, ao + i) != UnsafeApi.getByte(b, bo + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code length} bytes of target elements at {@code at} combined with the origin elements at
     * {@code in}/{@code inOffset}; their values before go to {@code old[oldAt...]} when given.
     */
    private void apply(final Reductions.Kernel kernel, final int es, final Object in, final long inOffset, final Object tb,
        final long at, final long length, final byte[] old, final long oldAt, final boolean bulk)
    {
        if (bulk)
        {
            if (old != null)
            {
                UnsafeApi.copyMemory(tb, at, old, BYTES + oldAt, length);
            }
            kernel.apply(in, inOffset, tb, at, length / es);
            return;
        }
        final byte[] s = scratch;
        for (long i = 0; i < length; i += es)
        {
            final long a = at + i;
            switch (es)
            {
                case 8:
                {
                    long before;
                    do
                    {
                        before = UnsafeApi.getLongVolatile(tb, a);
                        UnsafeApi.putLong(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetLong(tb, a, before, UnsafeApi.getLong(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putLong(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                case 4:
                {
                    int before;
                    do
                    {
                        before = UnsafeApi.getIntVolatile(tb, a);
                        UnsafeApi.putInt(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetInt(tb, a, before, UnsafeApi.getInt(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putInt(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                case 2:
                {
                    short before;
                    do
                    {
                        before = UnsafeApi.getShortVolatile(tb, a);
                        UnsafeApi.putShort(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetShort(tb, a, before, UnsafeApi.getShort(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putShort(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                default:
                {
                    byte before;
                    do
                    {
                        before = UnsafeApi.getByteVolatile(tb, a);
                        UnsafeApi.putByte(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetByte(tb, a, before, UnsafeApi.getByte(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putByte(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
            }
        }
    }

    /**
     * Checks an access to {@code targetCount} items of {@code targetMap} (null: {@code bytes}
     * contiguous bytes) at displacement {@code targetDisp} of {@code target}: an epoch that allows
     * it, the displacement, the range and the matching size; returns its address here.
     */
    private long targetAddress(final int target, final long targetDisp, final TypeMap targetMap, final long targetCount,
        final long bytes)
    {
        checkUsable();
        checkRank(target);
        if (!fenceEpoch && locks[target] == 0 && !lockAll && (!accessOpen || !accessGroup[target]))
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "no access epoch to target " + target +
                " is open (fence, start or lock first)");
        }
        if (targetDisp < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_DISP, "negative target displacement: " + targetDisp);
        }
        final long targetBytes = targetMap == null ? bytes : targetMap.size() * targetCount;
        if (targetBytes != bytes)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "origin has " + bytes + " bytes of data, target " +
                targetBytes + ": the type signatures differ");
        }
        final long start = targetDisp * dispUnit[target];
        final long low = start + (targetMap == null ? 0 : targetMap.touchedLow(targetCount));
        final long high = start + (targetMap == null ? bytes : targetMap.touchedHigh(targetCount));
        if (attachments != null)
        {
            if (bytes == 0)
            {
                resolvedRemote = false;
                resolvedObject = null;
                return 0;
            }
            attachments.lookup(target, start, low, high);
            resolvedObject = attachments.object;
            resolvedRemote = attachments.remote;
            return attachments.address;
        }
        resolvedObject = memoryOf(target);
        resolvedRemote = remote(target);
        if (bytes > 0 && (low < 0 || high > size[target]))
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_RANGE, "target " + target + ": bytes [" + low + ", " + high +
                ") lie outside its window of " + size[target] + " bytes");
        }
        return base[target] + start;
    }

    /** Whether {@code target}'s memory is served by its owner (not mapped here). */
    private boolean remote(final int target)
    {
        return served[target] && target != me;
    }

    /** The Unsafe base object of {@code target}'s memory here: this member's array, else null (an address). */
    private Object memoryOf(final int target)
    {
        return target == me ? localMemory : null;
    }

    private static Reductions.Kernel kernelOf(final int reduction, final int kind)
    {
        final Reductions.Kernel k = Reductions.kernel(reduction, kind);
        if (k == null)
        {
            throw new ShmpiException(ErrorClass.ERR_OP, Reductions.name(reduction) + " is not defined on elements of " +
                "kind " + kind);
        }
        return k;
    }

    private static byte[] packedCopy(final Object base, final long offset, final DataLayout layout, final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to send: " + bytes);
        }
        final byte[] copy = new byte[(int)bytes];
        layout.pack(base, offset, 0, copy, BYTES, bytes);
        return copy;
    }

    private byte[] staging(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to stage: " + bytes);
        }
        if (staging.length < bytes)
        {
            staging = new byte[(int)bytes];
        }
        return staging;
    }

    private byte[] results(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to fetch: " + bytes);
        }
        if (results.length < bytes)
        {
            results = new byte[(int)bytes];
        }
        return results;
    }

    // ------------------------------------------------------------------------------------------
    // Synchronisation

    /**
     * {@code MPI_Win_fence}: completes this member's operations (a full fence), then waits for
     * every member, unless {@code MODE_NOPRECEDE} and {@code MODE_NOSUCCEED} say that the fence
     * neither ends nor starts an epoch. An access epoch is open after it unless
     * {@code MODE_NOSUCCEED}.
     */
    public void fence(final int assertion)
    {
        checkUsable();
        checkAssertion(assertion, MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED, "fence");
        if (accessOpen || exposureCount >= 0 || lockedTargets > 0 || lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "fence inside a " + openEpoch() + " epoch");
        }
        flushServed(-1);
        UnsafeApi.fullFence();
        if ((assertion & (MODE_NOPRECEDE | MODE_NOSUCCEED)) != (MODE_NOPRECEDE | MODE_NOSUCCEED))
        {
            members.barrier();
        }
        fenceEpoch = (assertion & MODE_NOSUCCEED) == 0;
    }

    /** {@code MPI_Win_lock} on member {@code target}. */
    public void lock(final int lockType, final int target, final int assertion)
    {
        checkUsable();
        if (lockType != LOCK_EXCLUSIVE && lockType != LOCK_SHARED)
        {
            throw new ShmpiException(ErrorClass.ERR_LOCKTYPE, "not a lock type: " + lockType);
        }
        checkAssertion(assertion, MODE_NOCHECK, "lock");
        checkRank(target);
        if (lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_CONFLICT, "lock of target " + target + " while this member " +
                "holds lockAll: the two passive-target epochs would conflict");
        }
        if (locks[target] != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "target " + target + " is already locked by this member");
        }
        if (accessOpen)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "lock inside a start/complete access epoch");
        }
        if ((assertion & MODE_NOCHECK) != 0)
        {
            locks[target] = lockType | LOCK_NOCHECK;
        }
        else
        {
            acquire(target, lockType == LOCK_EXCLUSIVE);
            locks[target] = lockType;
        }
        lockedTargets++;
    }

    /** {@code MPI_Win_unlock}: completes the operations on {@code target} and releases its lock. */
    public void unlock(final int target)
    {
        checkUsable();
        checkRank(target);
        if (locks[target] == 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "unlock of target " + target + ", which this member " +
                "has not locked");
        }
        flushServed(target);
        final int held = locks[target];
        locks[target] = 0;
        lockedTargets--;
        if ((held & LOCK_NOCHECK) != 0)
        {
            UnsafeApi.fullFence();
            return;
        }
        release(target, (held & 0xFF) == LOCK_EXCLUSIVE);
    }

    /** {@code MPI_Win_lock_all}: a shared lock on every member. */
    public void lockAll(final int assertion)
    {
        checkUsable();
        checkAssertion(assertion, MODE_NOCHECK, "lockAll");
        if (lockAll || lockedTargets > 0 || accessOpen)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "lockAll inside a " + openEpoch() + " epoch");
        }
        if ((assertion & MODE_NOCHECK) == 0)
        {
            for (int t = 0; t < n; t++)
            {
                acquire(t, false);
            }
            lockAllChecked = true;
        }
        else
        {
            lockAllChecked = false;
        }
        lockAll = true;
    }


    /** {@code MPI_Win_unlock_all}. */
    public void unlockAll()
    {
        checkUsable();
        if (!lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "unlockAll without lockAll");
        }
        flushServed(-1);
        lockAll = false;
        if (!lockAllChecked)
        {
            UnsafeApi.fullFence();
            return;
        }
        for (int t = 0; t < n; t++)
        {
            release(t, false);
        }
    }

    /**
     * {@code MPI_Win_flush} and {@code MPI_Win_flush_local}: every operation of this member on
     * {@code target} is already complete in the target's memory when its call returns; the flush
     * is the full fence that orders them before whatever this member does next.
     */
    public void flush(final int target)
    {
        checkUsable();
        checkRank(target);
        if (locks[target] == 0 && !lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "flush of target " + target + " outside a passive-target " +
                "epoch on it");
        }
        flushServed(target);
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_flush_all} and {@code MPI_Win_flush_local_all}. */
    public void flushAll()
    {
        checkUsable();
        if (lockedTargets == 0 && !lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "flushAll outside a passive-target epoch");
        }
        flushServed(-1);
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_sync}: a full memory fence between this member's loads and stores and the window's. */
    public void sync()
    {
        checkUsable();
        UnsafeApi.fullFence();
    }

    /**
     * {@code MPI_Win_post}: opens an exposure epoch to the members {@code origins} (window ranks;
     * the array is read, not kept).
     */
    public void post(final int[] origins, final int assertion)
    {
        checkUsable();
        checkAssertion(assertion, MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT, "post");
        if (exposureCount >= 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "post while an exposure epoch is open");
        }
        checkGroup(origins);
        System.arraycopy(origins, 0, exposureGroup, 0, origins.length);
        exposureCount = origins.length;
        if ((assertion & MODE_NOCHECK) != 0)
        {
            return;
        }
        // The release store of each count orders this member's earlier stores to its memory
        // before any origin's access that follows its start.
        for (int i = 0; i < origins.length; i++)
        {
            final int o = origins[i];
            final int word = control(o) + WindowDescriptor.POSTS_OFFSET + 4 * me;
            control.putIntRelease(word, control.getInt(word) + 1);
            wakeList[i] = world[o];
        }
        engine.wakeRanks(wakeList, origins.length);
    }

    /** {@code MPI_Win_start}: opens an access epoch to {@code targets}, once each has posted. */
    public void start(final int[] targets, final int assertion)
    {
        checkUsable();
        checkAssertion(assertion, MODE_NOCHECK, "start");
        if (accessOpen || lockedTargets > 0 || lockAll)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "start inside a " + openEpoch() + " epoch");
        }
        checkGroup(targets);
        if ((assertion & MODE_NOCHECK) == 0)
        {
            for (final int t : targets)
            {
                final int expected = postsSeen[t] + 1;
                awaitCount(me, control(me) + WindowDescriptor.POSTS_OFFSET + 4 * t, expected);
                postsSeen[t] = expected;
            }
        }
        java.util.Arrays.fill(accessGroup, false);
        for (final int t : targets)
        {
            accessGroup[t] = true;
        }
        accessOpen = true;
    }

    /** {@code MPI_Win_complete}: ends the access epoch; each target learns it. */
    public void complete()
    {
        checkUsable();
        if (!accessOpen)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "complete without start");
        }
        accessOpen = false;
        flushServed(-1);
        // The release store of each count orders this member's puts before the target's wait returns.
        int count = 0;
        for (int t = 0; t < n; t++)
        {
            if (accessGroup[t])
            {
                final int word = control(t) + completesOffset + 4 * me;
                control.putIntRelease(word, control.getInt(word) + 1);
                wakeList[count++] = world[t];
            }
        }
        engine.wakeRanks(wakeList, count);
    }

    /** {@code MPI_Win_wait}: ends the exposure epoch once every origin of it has completed. */
    public void waitFor()
    {
        checkUsable();
        if (exposureCount < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "wait without post");
        }
        for (int i = 0; i < exposureCount; i++)
        {
            final int o = exposureGroup[i];
            final int expected = completesSeen[o] + 1;
            awaitCount(me, control(me) + completesOffset + 4 * o, expected);
            completesSeen[o] = expected;
        }
        exposureCount = -1;
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_test}: {@link #waitFor} if every origin has completed, else false at once. */
    public boolean test()
    {
        checkUsable();
        if (exposureCount < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "test without post");
        }
        for (int i = 0; i < exposureCount; i++)
        {
            final int o = exposureGroup[i];
            if (control.getIntVolatile(control(me) + completesOffset + 4 * o) - (completesSeen[o] + 1) < 0)
            {
                return false;
            }
        }
        waitFor();
        return true;
    }

    /** Completes this member's operations on served memory of {@code target} (every target: -1) there. */
    private void flushServed(final int target)
    {
        if (origin != null)
        {
            origin.flush(target);
        }
    }

    /**
     * Local completion of every operation this member has issued: the values fetched from served
     * targets are in the origin buffers and the data sent to them has left those buffers (what
     * the request of a request-based operation promises). Operations on mapped memory are
     * complete when their call returns; this waits only for served targets' replies.
     */
    public void completeLocal()
    {
        checkUsable();
        if (origin != null)
        {
            origin.complete();
        }
    }

    /** Whether member {@code rank}'s memory is served by its owner (the others cannot map it). */
    public boolean isServed(final int rank)
    {
        checkRank(rank);
        return served[rank];
    }

    /** Whether this member holds a lock on {@code target} (or every member's, by lockAll). */
    public boolean passiveEpochOn(final int target)
    {
        checkRank(target);
        return locks[target] != 0 || lockAll;
    }

    /** Whether an epoch of this member is open (a fence epoch does not count: free and fence end it). */
    public boolean epochOpen()
    {
        return accessOpen || exposureCount >= 0 || lockedTargets > 0 || lockAll;
    }

    private String openEpoch()
    {
        return accessOpen ? "start/complete" : exposureCount >= 0 ? "post/wait" :
            lockAll ? "lockAll" : lockedTargets > 0 ? "lock" : "fence";
    }

    // ------------------------------------------------------------------------------------------
    // Locks

    private int control(final int rank)
    {
        return (int)WindowDescriptor.controlOffset() + rank * controlStride;
    }

    private void acquire(final int target, final boolean exclusive)
    {
        acquire(target, WindowDescriptor.LOCK_OFFSET, exclusive);
    }

    /** Takes the shared/exclusive word at {@code offset} of {@code target}'s block (LOCK or ACC_LOCK). */
    private void acquire(final int target, final int offset, final boolean exclusive)
    {
        final int word = control(target) + offset;
        while (true)
        {
            final long w = control.getLongVolatile(word);
            if (exclusive ? w == 0 : (w & WindowDescriptor.EXCLUSIVE) == 0)
            {
                if (control.compareAndSetLong(word, w, exclusive ? WindowDescriptor.EXCLUSIVE : w + 1))
                {
                    return;
                }
                continue;
            }
            await(target, exclusive ? () -> control.getLongVolatile(word) == 0 :
                () -> (control.getLongVolatile(word) & WindowDescriptor.EXCLUSIVE) == 0);
        }
    }

    private void release(final int target, final boolean exclusive)
    {
        release(target, WindowDescriptor.LOCK_OFFSET, exclusive);
    }

    private void release(final int target, final int offset, final boolean exclusive)
    {
        final long after = control.getAndAddLong(control(target) + offset,
            exclusive ? -WindowDescriptor.EXCLUSIVE : -1) - (exclusive ? WindowDescriptor.EXCLUSIVE : 1);
        // Waiters wait for the exclusive bit to clear or for the word to reach 0.
        if (exclusive || after == 0)
        {
            wakeWaiters(target);
        }
    }

    /**
     * The target's accumulate word taken for updates one element at a time by atomic
     * instructions (shared: any number at once), or for a loop of plain read-modify-writes
     * (exclusive): a plain loop may not run while an atomic update of the same memory is under way.
     */
    private void lockAccumulates(final int target, final boolean exclusive)
    {
        acquire(target, WindowDescriptor.ACC_LOCK_OFFSET, exclusive);
    }

    private void unlockAccumulates(final int target, final boolean exclusive)
    {
        release(target, WindowDescriptor.ACC_LOCK_OFFSET, exclusive);
    }

    /**
     * {@link #await} for the count at {@code word} to reach {@code expected} (wrapping compare),
     * watched without allocating anything until the spin gives up.
     */
    private void awaitCount(final int block, final int word, final int expected)
    {
        for (int i = engine.progressEngine().sharedSpins(); i >= 0; i--)
        {
            if (control.getIntVolatile(word) - expected >= 0)
            {
                return;
            }
            Thread.onSpinWait();
        }
        await(block, () -> control.getIntVolatile(word) - expected >= 0);
    }

    /**
     * Waits until {@code condition} holds, announced in {@code block}'s waiter count so that a
     * member changing a word of that block wakes the members (the count is raised with a full
     * fence before the condition is read; the changer reads it after its atomic change).
     */
    private void await(final int block, final BooleanSupplier condition)
    {
        // The word usually changes within a cache-line transfer or two: watch it alone first,
        // before the (atomic) announcement, when every rank has a core of its own.
        for (int i = engine.progressEngine().sharedSpins(); i >= 0; i--)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            Thread.onSpinWait();
        }
        final int waiters = control(block) + WindowDescriptor.WAITERS_OFFSET;
        control.getAndAddInt(waiters, 1);
        try
        {
            if (!condition.getAsBoolean())
            {
                engine.progressEngine().awaitShared(condition, BlockedCall.OTHER);
            }
        }
        finally
        {
            control.getAndAddInt(waiters, -1);
        }
    }

    private void wakeWaiters(final int block)
    {
        if (control.getIntVolatile(control(block) + WindowDescriptor.WAITERS_OFFSET) > 0)
        {
            engine.wakeRanks(world);
        }
    }

    // ------------------------------------------------------------------------------------------

    private void checkUsable()
    {
        if (freed)
        {
            throw new ShmpiException(ErrorClass.ERR_WIN, "window already freed");
        }
    }

    private void checkRank(final int rank)
    {
        if (rank < 0 || rank >= n)
        {
            throw new ShmpiException(ErrorClass.ERR_RANK, "not a rank of the window: " + rank + " (size " + n + ")");
        }
    }

    private void checkGroup(final int[] ranks)
    {
        if (ranks.length > n)
        {
            throw new ShmpiException(ErrorClass.ERR_GROUP, "group of " + ranks.length + " in a window of " + n);
        }
        for (final int r : ranks)
        {
            if (r < 0 || r >= n)
            {
                throw new ShmpiException(ErrorClass.ERR_GROUP, "group has a process outside the window: rank " + r);
            }
        }
    }

    private static void checkAssertion(final int assertion, final int allowed, final String call)
    {
        if ((assertion & ~allowed) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ASSERT, call + ": assertion " + assertion + " has bits that " +
                call + " does not take (allowed: " + allowed + ")");
        }
    }

    /**
     * {@code MPI_Win_free}: collective; every epoch of this member must be closed. Waits for every
     * member, then unmaps; member 0 removes the segment.
     */
    public void free()
    {
        checkUsable();
        if (epochOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "free inside a " + openEpoch() + " epoch");
        }
        flushServed(-1);
        UnsafeApi.fullFence();
        members.barrier();
        close();
    }

    /** Unmaps this member's mappings (member 0 also removes the segment) without waiting for the others. */
    @Override
    public void close()
    {
        if (freed)
        {
            return;
        }
        freed = true;
        if (service != null)
        {
            service.stop();
        }
        if (attachments != null)
        {
            attachments.close();
        }
        for (final Segment s : peerHeaps)
        {
            if (s != null)
            {
                engine.heap().releasePeer(s);
            }
        }
        if (me == 0)
        {
            engine.segments().remove(segment);
        }
        else
        {
            engine.segments().release(segment);
        }
    }


}
