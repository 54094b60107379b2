package org.shmpi.rma;

import java.nio.ByteBuffer;

import org.agrona.UnsafeApi;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

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
 * <p>This class is the window's face; the work is done by one part per concern, as Open MPI's
 * {@code osc/sm} divides it: {@link WindowCreation} (the collective set-up and the window
 * segment), {@link WindowMemory} (where each member's memory is), {@link WindowAccess} (put, get,
 * accumulate, atomics), {@link ActiveTarget} (fence and PSCW) and {@link PassiveTarget} (locks
 * and flushes), the last three over a {@link WindowControl} (the words in the segment,
 * {@link ControlBlocks}, or messages between machines, {@link MessageControl}) and
 * {@link Epochs} (which epochs this member has open).
 *
 * <p>A window whose members run on more than one machine has no segment: every member's memory
 * is served by its owner and every synchronisation is a message ({@link WindowCreation}).
 *
 * <p>Not thread-safe: one thread per member uses a window at a time (as one MPI call at a time).
 * Errors are {@link ShmpiException}s with the MPI error class, raised before any byte moves.
 */
public final class ShmWindow implements AutoCloseable
{
    /** {@code MPI_WIN_FLAVOR_CREATE}: a window over memory the members already have. */
    public static final int FLAVOR_CREATE = 1;
    /** {@code MPI_WIN_FLAVOR_ALLOCATE}: a window over memory it allocates. */
    public static final int FLAVOR_ALLOCATE = 2;
    /** {@code MPI_WIN_FLAVOR_DYNAMIC}: a window whose members attach memory later. */
    public static final int FLAVOR_DYNAMIC = 3;
    /** {@code MPI_WIN_FLAVOR_SHARED}: an allocated window whose regions follow each other. */
    public static final int FLAVOR_SHARED = 4;

    /** {@code MPI_LOCK_EXCLUSIVE}. */
    public static final int LOCK_EXCLUSIVE = 1;
    /** {@code MPI_LOCK_SHARED}. */
    public static final int LOCK_SHARED = 2;

    /** {@code MPI_MODE_NOCHECK}: the caller knows the epoch needs no checking (no lock word, no post count). */
    public static final int MODE_NOCHECK = 1;
    /** {@code MPI_MODE_NOPRECEDE}: the fence ends no epoch. */
    public static final int MODE_NOPRECEDE = 2;
    /** {@code MPI_MODE_NOPUT}: nobody puts into this member's memory until the next synchronisation. */
    public static final int MODE_NOPUT = 4;
    /** {@code MPI_MODE_NOSTORE}: this member stored nothing into its memory since the last synchronisation. */
    public static final int MODE_NOSTORE = 8;
    /** {@code MPI_MODE_NOSUCCEED}: the fence starts no epoch. */
    public static final int MODE_NOSUCCEED = 16;

    private final RankContext ctx;
    private final WindowMembers members;
    private final int me;
    private final int n;
    private final WindowMemory memory;
    private final Epochs epochs;
    /** This member's messages to served targets; null when no target serves its memory. */
    private final WindowService.Origin origin;
    private final WindowAccess access;
    private final ActiveTarget active;
    private final PassiveTarget passive;
    /** Serves this member's memory when the others cannot map it (null until there is such memory). */
    private WindowService service;
    private boolean freed;

    /** Called by {@link WindowCreation} once every member has its {@code memory}, before their barrier. */
    ShmWindow(final RankContext ctx, final WindowMembers members, final WindowMemory memory)
    {
        this.ctx = ctx;
        this.members = members;
        this.memory = memory;
        final int[] world = members.world();
        this.me = members.rank();
        this.n = world.length;
        this.epochs = new Epochs(n);
        final boolean acrossMachines = memory.segment() == null;
        final WindowControl control = acrossMachines ? new MessageControl(ctx, members.context(), world, me) :
            new ControlBlocks(ctx, memory.segment().buffer(), world, me);
        // A dynamic window learns at each access whether the target serves the memory.
        this.origin = (memory.anyPeerServed() || memory.attachments() != null) && n > 1 ?
            new WindowService.Origin(ctx, members.context(), world, me) : null;
        this.access = new WindowAccess(me, memory, epochs, control, origin);
        this.active = new ActiveTarget(members, n, control, epochs, origin);
        this.passive = new PassiveTarget(n, control, epochs, origin);
        if (n > 1 && (acrossMachines || memory.isServed(me)))
        {
            // Across machines the service also keeps this member's lock, whatever memory it has.
            service = new WindowService(ctx, members.context(), memory.attachments() != null ?
                memory.attachments().localMemory() : WindowService.region(memory.localMemory(), memory.address(me)));
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
    public static ShmWindow allocate(final RankContext ctx, final WindowMembers members, final long bytes,
        final int dispUnit, final int flavor, final boolean contiguous)
    {
        return WindowCreation.allocate(ctx, members, bytes, dispUnit, flavor, contiguous);
    }

    /**
     * {@code MPI_Win_create} over {@code bytes} of this member's memory at
     * {@code memory}/{@code offset} (Unsafe addressing: an array and an offset into it, or null
     * and an address). Memory in the member's shared heap (a buffer of {@code MPI.newXxxBuffer})
     * is mapped by the others; any other memory is served by this member's progress engine
     * ({@link WindowService}). Collective over {@code members}.
     */
    public static ShmWindow create(final RankContext ctx, final WindowMembers members, final Object memory,
        final long offset, final long bytes, final int dispUnit)
    {
        return WindowCreation.create(ctx, members, memory, offset, bytes, dispUnit);
    }

    /**
     * {@code MPI_Win_create_dynamic}: a window without memory; each member attaches and detaches
     * regions of its own ({@link #attach}). Collective over {@code members}.
     */
    public static ShmWindow createDynamic(final RankContext ctx, final WindowMembers members)
    {
        return WindowCreation.createDynamic(ctx, members);
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
        final AttachTable attachments = this.memory.attachments();
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
            service = new WindowService(ctx, members.context(), attachments.localMemory());
            service.start();
        }
    }

    /** {@code MPI_Win_detach} of the memory attached as {@code key}. */
    public void detach(final Object key)
    {
        checkUsable();
        final AttachTable attachments = memory.attachments();
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
        final AttachTable attachments = memory.attachments();
        if (attachments == null)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_FLAVOR, "displacements of attached memory are for dynamic " +
                "windows only");
        }
        return attachments.displacementOf(key);
    }

    // ------------------------------------------------------------------------------------------
    // What the window is

    /** This member's rank in the window. */
    public int rank()
    {
        return me;
    }

    /** The window's flavor ({@code MPI_WIN_CREATE_FLAVOR}): one of the {@code FLAVOR_} values. */
    public int flavor()
    {
        return memory.flavor();
    }

    /** Bytes of member {@code rank}'s region. */
    public long regionSize(final int rank)
    {
        memory.checkRank(rank);
        return memory.regionSize(rank);
    }

    /** Displacement unit of member {@code rank}. */
    public int dispUnit(final int rank)
    {
        memory.checkRank(rank);
        return memory.dispUnit(rank);
    }

    /** Address of member {@code rank}'s region in this process. */
    public long address(final int rank)
    {
        memory.checkRank(rank);
        return memory.address(rank);
    }

    /**
     * A direct buffer (native byte order) over member {@code rank}'s region as mapped here, for
     * loads and stores ({@code MPI_Win_shared_query}).
     */
    public ByteBuffer region(final int rank)
    {
        return memory.region(rank);
    }

    /** Whether member {@code rank}'s memory is served by its owner (the others cannot map it). */
    public boolean isServed(final int rank)
    {
        memory.checkRank(rank);
        return memory.isServed(rank);
    }

    // ------------------------------------------------------------------------------------------
    // Communication (WindowAccess)

    /**
     * {@code MPI_Put}: {@code bytes} packed bytes of origin data ({@code layout} over
     * {@code originBase}/{@code originOffset}) into {@code targetCount} items of
     * {@code targetMap} (null: {@code bytes} contiguous bytes) at displacement
     * {@code targetDisp} of member {@code target}'s region.
     */
    public void put(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        checkUsable();
        access.put(originBase, originOffset, layout, bytes, target, targetDisp, targetMap, targetCount);
    }

    /** {@code MPI_Get}: the reverse of {@link #put}. */
    public void get(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        checkUsable();
        access.get(originBase, originOffset, layout, bytes, target, targetDisp, targetMap, targetCount);
    }

    /**
     * {@code MPI_Accumulate} and, with a result buffer, {@code MPI_Get_accumulate}: each element
     * of the target (of basic kind {@code kind}) becomes {@code origin op target}, atomically with
     * respect to every other accumulate on it; the target's values before are unpacked into the
     * result ({@code resultLayout} over {@code resultBase}/{@code resultOffset}) when
     * {@code resultLayout} is not null. How each element changes: {@link WindowAccess#accumulate}.
     */
    public void accumulate(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount,
        final int reduction, final int kind, final Object resultBase, final long resultOffset,
        final DataLayout resultLayout)
    {
        checkUsable();
        access.accumulate(originBase, originOffset, layout, bytes, target, targetDisp, targetMap, targetCount,
            reduction, kind, resultBase, resultOffset, resultLayout);
    }

    /**
     * {@code MPI_Fetch_and_op}: one element of {@code kind}; sums of 4- and 8-byte integers,
     * replace and no-op are one atomic instruction, the rest a compare-and-set loop.
     */
    public void fetchAndOp(final Object originBase, final long originOffset, final Object resultBase,
        final long resultOffset, final int reduction, final int kind, final int target, final long targetDisp)
    {
        checkUsable();
        access.fetchAndOp(originBase, originOffset, resultBase, resultOffset, reduction, kind, target, targetDisp);
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
        checkUsable();
        access.compareAndSwap(originBase, originOffset, compareBase, compareOffset, resultBase, resultOffset,
            elementSize, target, targetDisp);
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

    // ------------------------------------------------------------------------------------------
    // Active-target synchronisation (ActiveTarget)

    /**
     * {@code MPI_Win_fence}: completes this member's operations (a full fence), then waits for
     * every member, unless {@code MODE_NOPRECEDE} and {@code MODE_NOSUCCEED} say that the fence
     * neither ends nor starts an epoch. An access epoch is open after it unless
     * {@code MODE_NOSUCCEED}.
     */
    public void fence(final int assertion)
    {
        checkUsable();
        active.fence(assertion);
    }

    /**
     * {@code MPI_Win_post}: opens an exposure epoch to the members {@code origins} (window ranks;
     * the array is read, not kept).
     */
    public void post(final int[] origins, final int assertion)
    {
        checkUsable();
        active.post(origins, assertion);
    }

    /** {@code MPI_Win_start}: opens an access epoch to {@code targets}, once each has posted; blocks until then. */
    public void start(final int[] targets, final int assertion)
    {
        checkUsable();
        active.start(targets, assertion);
    }

    /** {@code MPI_Win_complete}: ends the access epoch; each target learns it. */
    public void complete()
    {
        checkUsable();
        active.complete();
    }

    /** {@code MPI_Win_wait}: ends the exposure epoch once every origin of it has completed; blocks until then. */
    public void waitFor()
    {
        checkUsable();
        active.waitFor();
    }

    /** {@code MPI_Win_test}: {@link #waitFor} if every origin has completed, else false at once. */
    public boolean test()
    {
        checkUsable();
        return active.test();
    }

    // ------------------------------------------------------------------------------------------
    // Passive-target synchronisation (PassiveTarget)

    /** {@code MPI_Win_lock} on member {@code target}; blocks until the lock is granted. */
    public void lock(final int lockType, final int target, final int assertion)
    {
        checkUsable();
        passive.lock(lockType, target, assertion);
    }

    /** {@code MPI_Win_unlock}: completes the operations on {@code target} and releases its lock. */
    public void unlock(final int target)
    {
        checkUsable();
        passive.unlock(target);
    }

    /** {@code MPI_Win_lock_all}: a shared lock on every member; blocks until every one is granted. */
    public void lockAll(final int assertion)
    {
        checkUsable();
        passive.lockAll(assertion);
    }

    /** {@code MPI_Win_unlock_all}. */
    public void unlockAll()
    {
        checkUsable();
        passive.unlockAll();
    }

    /**
     * {@code MPI_Win_flush} and {@code MPI_Win_flush_local}: every operation of this member on
     * {@code target} is complete in the target's memory when it returns.
     */
    public void flush(final int target)
    {
        checkUsable();
        passive.flush(target);
    }

    /** {@code MPI_Win_flush_all} and {@code MPI_Win_flush_local_all}. */
    public void flushAll()
    {
        checkUsable();
        passive.flushAll();
    }

    /** {@code MPI_Win_sync}: a full memory fence between this member's loads and stores and the window's. */
    public void sync()
    {
        checkUsable();
        passive.sync();
    }

    // ------------------------------------------------------------------------------------------
    // Freeing

    /**
     * {@code MPI_Win_free}: collective; every epoch of this member must be closed. Waits for every
     * member, then unmaps; member 0 removes the segment.
     */
    public void free()
    {
        checkUsable();
        if (epochs.anyOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "free inside a " + epochs.describeOpen() + " epoch");
        }
        if (origin != null)
        {
            origin.flush(-1);
        }
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
        memory.release(ctx);
    }

    private void checkUsable()
    {
        if (freed)
        {
            throw new ShmpiException(ErrorClass.ERR_WIN, "window already freed");
        }
    }
}
