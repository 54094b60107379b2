package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;

import org.shmpi.rma.ShmWindow;
import org.shmpi.shm.ErrorClass;

/**
 * Java binding of {@code MPI_Win}: a window of memory that the other members of its
 * communicator read and write with one-sided calls. Every member maps every other member's
 * window memory, so a put is a copy into the target's memory, a get a copy out of it and an
 * accumulate an atomic update there: no call waits for the target (docs/rma.md).
 *
 * <p>Where the memory is:
 * <ul>
 * <li>{@link #Win(int, int, Info, Comm, Buffer, int)} ({@code MPI_Win_allocate} with
 *     {@link #FLAVOR_PRIVATE}, {@code MPI_Win_allocate_shared} with {@link #FLAVOR_SHARED})
 *     allocates it in the window's shared segment. As in Open MPI's bindings, {@code base} only
 *     gives the element type of {@code size} and {@code dispUnit}; the memory is reached
 *     through {@code getAttr(MPI.WIN_BASE)} (a {@code ByteBuffer}) and, for any member,
 *     {@link #sharedQuery(int)}.</li>
 * <li>{@link #Win(Buffer, int, int, Info, Comm)} ({@code MPI_Win_create}) uses the caller's
 *     buffer. Memory of {@code MPI.newXxxBuffer} of 64 KiB or more lies in the shared heap and
 *     the others map it; any other memory (a smaller or an ordinary direct buffer, and + a Java
 *     array with {@link #Win(Object, int, int, Info, Comm)}) is served by its owner's progress
 *     engine: operations on it travel as messages and take effect when the owner is inside an
 *     MPI call (as with Open MPI's point-to-point one-sided component).</li>
 * </ul>
 *
 * <p>Like Open MPI's bindings, {@code size} and {@code dispUnit} of the constructors count
 * elements of {@code base}'s type; displacements count the target's displacement unit.
 * A window's default error handler is {@code MPI.ERRORS_ARE_FATAL}.
 */
public final class Win implements Freeable
{
    /** Windows made by this rank so far: each window's number in the job report (made collectively, so alike). */
    private static int made;
    /** The name the job report gives this window. */
    private final String reportName = "window " + made++;

    /** The name the job report gives this window: its number, and its name when it has one. */
    final String reportName()
    {
        final String n = name;
        return n == null || n.isEmpty() ? reportName : reportName + " (" + n + ")";
    }

    /** The value a freed window's handle compares to (Open MPI's bindings keep it as an int). */
    public static final int WIN_NULL = 0;
    /** {@code MPI_Win_allocate}: each member's memory on pages of its own. */
    public static final int FLAVOR_PRIVATE = 0;
    /**
     * {@code MPI_Win_allocate_shared}: the members' memory one contiguous segment unless info {@code
     * alloc_shared_noncontig} is true.
     */
    public static final int FLAVOR_SHARED = 1;

    private static final Attributes ATTRIBUTES = new Attributes("window");
    private final Attributes.Cache attributes = ATTRIBUTES.new Cache();

    // Package-private state is set up by WinCreation; WinAccess runs through live() and handle().
    /** A private duplicate of the communicator: the window's barriers and set-up never meet the user's traffic. */
    Intracomm comm;
    ShmWindow window;
    /** The members' world ranks, and the window ranks of groups. */
    WinRanks ranks;
    private String name = "";
    Info info;
    private Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    /** The caller's memory of a window made over it (what {@code WIN_BASE} gives), else null. */
    Object userBase;
    /** The size in bytes a window over the caller's memory was made with (its {@code WIN_SIZE}), else -1. */
    long declaredBytes = -1;
    /** Info {@code no_locks} was {@code "true"} at creation: the window is never locked (MPI-3.1 section 11.2.1). */
    boolean noLocks;

    /**
     * Java binding of {@code MPI_WIN_CREATE}: a window over {@code size} elements of
     * {@code base}, displacement unit {@code dispUnit} elements. Collective over {@code comm}.
     */
    public Win(final Buffer base, final int size, final int dispUnit, final Info info, final Comm comm)
    {
        this((Object)base, size, dispUnit, info, comm);
    }

    /**
     * + {@code MPI_WIN_CREATE} over a Java array (or a buffer): {@code size} elements of
     * {@code base}, displacement unit {@code dispUnit} elements. An array's memory is served by
     * this process's progress engine (see the class comment). Collective over {@code comm}.
     */
    public Win(final Object base, final int size, final int dispUnit, final Info info, final Comm comm)
    {
        MPI.check();
        final int kind = Calls.WIN_CREATE;
        final Recorder r = Profile.begin(kind);
        WinCreation.create(this, base, size, dispUnit, info, comm);
        Profile.endWindow(r, kind, this, -1);
    }

    /**
     * Java binding of {@code MPI_WIN_ALLOCATE} ({@code flavor} {@link #FLAVOR_PRIVATE}) and
     * {@code MPI_WIN_ALLOCATE_SHARED} ({@link #FLAVOR_SHARED}): {@code size} elements of
     * {@code base}'s type per member, zeroed, displacement unit {@code dispUnit} elements.
     * Collective over {@code comm}.
     */
    public Win(final int size, final int dispUnit, final Info info, final Comm comm, final Buffer base,
        final int flavor)
    {
        MPI.check();
        final int kind = flavor == FLAVOR_SHARED ? Calls.WIN_ALLOCATE_SHARED : Calls.WIN_ALLOCATE;
        final Recorder r = Profile.begin(kind);
        WinCreation.allocate(this, size, dispUnit, info, comm, base, flavor);
        Profile.endWindow(r, kind, this, -1);
    }

    /**
     * Java binding of {@code MPI_WIN_CREATE_DYNAMIC}: a window without memory, to which each
     * process attaches buffers with {@link #attach}. Java has no addresses, so a target tells
     * its origins where an attached buffer is with + {@link #getDisplacement} (as a C program
     * sends {@code MPI_Get_address}); displacements of a dynamic window count bytes.
     * Collective over {@code comm}.
     */
    public Win(final Info info, final Comm comm)
    {
        MPI.check();
        final int kind = Calls.WIN_CREATE_DYNAMIC;
        final Recorder r = Profile.begin(kind);
        WinCreation.createDynamic(this, info, comm);
        Profile.endWindow(r, kind, this, -1);
    }

    // ------------------------------------------------------------------------------------------

    ShmWindow live()
    {
        MPI.check();
        final ShmWindow w = window;
        if (w == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_WIN, "invalid window (freed)"));
        }
        return w;
    }

    /**
     * This window's error handler applied to a failure (see {@link Comm#handle}); a window
     * handler ({@link #createErrhandler}) is called with this window, then the error is thrown.
     */
    MPIException handle(final RuntimeException ex)
    {
        if (comm == null)
        {
            return MPI.COMM_WORLD.handle(ex);
        }
        final Errhandler h = errhandler;
        if (h.winFunction != null)
        {
            comm.errhandler = MPI.ERRORS_RETURN;
            final MPIException error = comm.handle(ex);
            h.winFunction.call(this, error);
            return error;
        }
        comm.errhandler = h;
        return comm.handle(ex);
    }

    /**
     * + {@code MPI_WIN_CREATE_ERRHANDLER}, which Open MPI's bindings lack: a handler that
     * receives the window and the error when a call on a window fails; when it returns, the
     * failed call throws the error, as under {@code MPI.ERRORS_RETURN}.
     */
    public static Errhandler createErrhandler(final Errhandler.WinFunction function)
    {
        MPI.check();
        if (function == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "createErrhandler: null function"));
        }
        return new Errhandler(function);
    }

    /**
     * Java binding of {@code MPI_WIN_ATTACH}: {@code size} elements of {@code base} join this
     * dynamic window. Buffers of {@code MPI.newXxxBuffer} of 64 KiB or more are mapped by the
     * others; other memory is served by this process's progress engine.
     */
    public void attach(final Buffer base, final int size)
    {
        WinCreation.attach(this, base, size);
    }

    /** Java binding of {@code MPI_WIN_DETACH} of a buffer attached before. */
    public void detach(final Buffer base)
    {
        call(w -> w.detach(base));
    }

    /**
     * + Where the others reach {@code base}, attached to this dynamic window: the
     * {@code targetDisp} (in bytes) of its first element. Send it to the origins.
     */
    public int getDisplacement(final Buffer base)
    {
        final ShmWindow w = live();
        try
        {
            return (int)w.displacementOf(base);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_WIN_GET_GROUP}: the members of the window. */
    public Group getGroup()
    {
        live();
        return new Group(ranks.world());
    }

    // ------------------------------------------------------------------------------------------
    // Communication

    /**
     * Java binding of {@code MPI_PUT}: {@code orgCount} items of {@code orgType} from
     * {@code origin} into {@code targetCount} items of {@code targetType} at displacement
     * {@code targetDisp} of member {@code targetRank}'s window.
     */
    public void put(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        final Recorder r = Profile.begin(Calls.WIN_PUT);
        WinAccess.move(this, true, origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
        if (r != null)
        {
            final long n = Profile.bytes(orgCount, orgType);
            r.endObserved(Calls.WIN_PUT, n);
            Profile.window(r, this, 0, n, -1);
        }
    }

    /** Java binding of {@code MPI_GET}: the reverse of {@link #put}. */
    public void get(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        final Recorder r = Profile.begin(Calls.WIN_GET);
        WinAccess.move(this, false, origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
        if (r != null)
        {
            final long n = Profile.bytes(orgCount, orgType);
            r.endObserved(Calls.WIN_GET, n);
            Profile.window(r, this, 1, n, -1);
        }
    }

    /** Java binding of {@code MPI_ACCUMULATE}: target = origin {@code op} target, element by element, atomically. */
    public void accumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
    {
        final Recorder r = Profile.begin(Calls.WIN_ACCUMULATE);
        WinAccess.accumulate(this, origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType, op);
        if (r != null)
        {
            final long n = Profile.bytes(orgCount, orgType);
            r.endObserved(Calls.WIN_ACCUMULATE, n);
            Profile.window(r, this, 2, n, -1);
        }
    }

    /**
     * Java binding of {@code MPI_GET_ACCUMULATE}: as {@link #accumulate}, and the target's data
     * before lands in {@code result} ({@code resultCount} items of {@code resultType}).
     */
    public void getAccumulate(final Buffer origin, final int orgCount, final Datatype orgType, final Buffer result,
        final int resultCount, final Datatype resultType, final int targetRank, final int targetDisp,
        final int targetCount, final Datatype targetType, final Op op)
    {
        final Recorder r = Profile.begin(Calls.WIN_GET_ACCUMULATE);
        WinAccess.getAccumulate(this, origin, orgCount, orgType, result, resultCount, resultType, targetRank,
            targetDisp, targetCount, targetType, op);
        if (r != null)
        {
            final long n = Profile.bytes(orgCount, orgType);
            r.endObserved(Calls.WIN_GET_ACCUMULATE, n);
            Profile.window(r, this, 3, n, -1);
        }
    }

    /**
     * Java binding of {@code MPI_FETCH_AND_OP}: one element of {@code type} (a predefined type):
     * the target's value lands in {@code result}, then becomes origin {@code op} target, atomically.
     */
    public void fetchAndOp(final Buffer origin, final Buffer result, final Datatype type, final int targetRank,
        final int targetDisp, final Op op)
    {
        final Recorder r = Profile.begin(Calls.WIN_FETCH_AND_OP);
        WinAccess.fetchAndOp(this, origin, result, type, targetRank, targetDisp, op);
        if (r != null)
        {
            final long n = Profile.bytes(1, type);
            r.endObserved(Calls.WIN_FETCH_AND_OP, n);
            Profile.window(r, this, 4, n, -1);
        }
    }

    /**
     * Java binding of {@code MPI_COMPARE_AND_SWAP}: if the target element equals {@code compare},
     * it becomes {@code origin}'s; its value before lands in {@code result}. {@code type} is an
     * integer, boolean or byte type.
     */
    public void compareAndSwap(final Buffer origin, final Buffer compare, final Buffer result, final Datatype type,
        final int targetRank, final int targetDisp)
    {
        final Recorder r = Profile.begin(Calls.WIN_COMPARE_AND_SWAP);
        WinAccess.compareAndSwap(this, origin, compare, result, type, targetRank, targetDisp);
        if (r != null)
        {
            final long n = Profile.bytes(1, type);
            r.endObserved(Calls.WIN_COMPARE_AND_SWAP, n);
            Profile.window(r, this, 5, n, -1);
        }
    }

    /**
     * The request of a request-based operation, issued by the plain call before this. MPI allows
     * them in passive-target epochs only; Open MPI also in fence and start/complete epochs, and
     * programs use them there, so shmpi does too: the operation was checked like its plain form
     * (an access epoch on the target must be open, else {@code MPI.ERR_RMA_SYNC}). It is
     * complete locally before its request is returned (on served memory this waits for the
     * target's reply), so the request comes back complete, whichever epoch it is in.
     */
    private Request requestFor()
    {
        final ShmWindow w = live();
        try
        {
            w.completeLocal();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        return Request.completed(comm, new Status(MPI.PROC_NULL, MPI.ANY_TAG, 0, 0));
    }

    /** Java binding of {@code MPI_RPUT}: {@link #put}, and its request (see {@link #requestFor}). */
    public final Request rPut(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        put(origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
        return requestFor();
    }

    /** Java binding of {@code MPI_RGET}: {@link #get}, and its request (see {@link #requestFor}). */
    public final Request rGet(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        get(origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
        return requestFor();
    }

    /** Java binding of {@code MPI_RACCUMULATE}: {@link #accumulate}, and its request (see {@link #requestFor}). */
    public Request rAccumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
    {
        accumulate(origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType, op);
        return requestFor();
    }

    /**
     * Java binding of {@code MPI_RGET_ACCUMULATE}: {@link #getAccumulate}, and its request (see {@link #requestFor}).
     */
    public Request rGetAccumulate(final Buffer origin, final int orgCount, final Datatype orgType, final Buffer result,
        final int resultCount, final Datatype resultType, final int targetRank, final int targetDisp,
        final int targetCount, final Datatype targetType, final Op op)
    {
        getAccumulate(origin, orgCount, orgType, result, resultCount, resultType, targetRank, targetDisp, targetCount,
            targetType, op);
        return requestFor();
    }

    /** Runs {@code op} on the live window, its failures through this window's error handler. */
    private void call(final java.util.function.Consumer<ShmWindow> op)
    {
        final ShmWindow w = live();
        try
        {
            op.accept(w);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** {@link #call(java.util.function.Consumer)} for a call taking an assertion (no capture, nothing allocated). */
    private void call(final java.util.function.ObjIntConsumer<ShmWindow> op, final int assertion)
    {
        final ShmWindow w = live();
        try
        {
            op.accept(w, assertion);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** A synchronisation call on the window ranks of a group, with an assertion. */
    private interface GroupCall
    {
        void run(ShmWindow w, int[] ranks, int assertion);
    }

    /** {@link #call(java.util.function.Consumer)} for {@code op} on the window ranks of {@code group}. */
    private void call(final GroupCall op, final Group group, final int assertion, final String name)
    {
        final ShmWindow w = live();
        try
        {
            op.run(w, ranks.of(group, name), assertion);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Synchronisation

    /** Java binding of {@code MPI_WIN_FENCE}. */
    public void fence(final int assertion)
    {
        final Recorder r = Profile.begin(Calls.WIN_FENCE);
        call((w, a) -> w.fence(a), assertion);
        Profile.endWindow(r, Calls.WIN_FENCE, this, 0);
    }

    /** Java binding of {@code MPI_WIN_START}: an access epoch to the members of {@code group}. */
    public void start(final Group group, final int assertion)
    {
        final Recorder r = Profile.begin(Calls.WIN_START);
        call((w, ranks, a) -> w.start(ranks, a), group, assertion, "start");
        Profile.endWindow(r, Calls.WIN_START, this, 3);
    }

    /** Java binding of {@code MPI_WIN_COMPLETE}. */
    public void complete()
    {
        final Recorder r = Profile.begin(Calls.WIN_COMPLETE);
        call(w -> w.complete());
        Profile.endWindow(r, Calls.WIN_COMPLETE, this, -1);
    }

    /** Java binding of {@code MPI_WIN_POST}: an exposure epoch to the members of {@code group}. */
    public void post(final Group group, final int assertion)
    {
        final Recorder r = Profile.begin(Calls.WIN_POST);
        call((w, ranks, a) -> w.post(ranks, a), group, assertion, "post");
        Profile.endWindow(r, Calls.WIN_POST, this, 3);
    }

    /** Java binding of {@code MPI_WIN_WAIT}. */
    public void waitFor()
    {
        final Recorder r = Profile.begin(Calls.WIN_WAIT_FOR);
        call(w -> w.waitFor());
        Profile.endWindow(r, Calls.WIN_WAIT_FOR, this, -1);
    }

    /** Java binding of {@code MPI_WIN_TEST}. */
    public boolean test()
    {
        final Recorder r = Profile.begin(Calls.WIN_TEST);
        final boolean result = test0();
        Profile.endWindow(r, Calls.WIN_TEST, this, -1);
        return result;
    }

    private boolean test0()
    {
        final ShmWindow w = live();
        try
        {
            return w.test();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_WIN_LOCK}: {@code MPI.LOCK_EXCLUSIVE} or {@code MPI.LOCK_SHARED} on member {@code
     * rank}.
     */
    public void lock(final int lockType, final int rank, final int assertion)
    {
        final Recorder r = Profile.beginTimed(Calls.WIN_LOCK);
        lock0(lockType, rank, assertion);
        if (r != null)
        {
            r.endObserved(Calls.WIN_LOCK, 0);
            Profile.window(r, this, -2, 0, 1);
        }
    }

    private void lock0(final int lockType, final int rank, final int assertion)
    {
        final ShmWindow w = live();
        try
        {
            if (rank == MPI.PROC_NULL)
            {
                return;
            }
            checkLocksAllowed("lock");
            w.lock(lockType, rank, assertion);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_WIN_UNLOCK}. */
    public void unlock(final int rank)
    {
        final Recorder r = Profile.begin(Calls.WIN_UNLOCK);
        unlock0(rank);
        Profile.endWindow(r, Calls.WIN_UNLOCK, this, -1);
    }

    private void unlock0(final int rank)
    {
        final ShmWindow w = live();
        try
        {
            if (rank == MPI.PROC_NULL)
            {
                return;
            }
            w.unlock(rank);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_WIN_LOCK_ALL}. */
    public void lockAll(final int assertion)
    {
        final Recorder r = Profile.beginTimed(Calls.WIN_LOCK_ALL);
        lockAll0(assertion);
        if (r != null)
        {
            r.endObserved(Calls.WIN_LOCK_ALL, 0);
            Profile.window(r, this, -2, 0, 2);
        }
    }

    private void lockAll0(final int assertion)
    {
        call((w, a) ->
        {
            checkLocksAllowed("lockAll");
            w.lockAll(a);
        }, assertion);
    }

    /** {@code MPI.ERR_RMA_SYNC} when the window was made with info {@code no_locks} {@code "true"}. */
    private void checkLocksAllowed(final String call)
    {
        if (noLocks)
        {
            throw new MPIException(ErrorClass.ERR_RMA_SYNC, call + " on a window made with info no_locks=true");
        }
    }

    /** Java binding of {@code MPI_WIN_UNLOCK_ALL}. */
    public void unlockAll()
    {
        final Recorder r = Profile.begin(Calls.WIN_UNLOCK_ALL);
        unlockAll0();
        Profile.endWindow(r, Calls.WIN_UNLOCK_ALL, this, -1);
    }

    private void unlockAll0()
    {
        call(w -> w.unlockAll());
    }

    /**
     * Java binding of {@code MPI_WIN_SYNC}: orders this process's loads and stores on window memory with the others'.
     */
    public void sync()
    {
        final Recorder r = Profile.begin(Calls.WIN_SYNC);
        sync0();
        Profile.endWindow(r, Calls.WIN_SYNC, this, -1);
    }

    private void sync0()
    {
        call(w -> w.sync());
    }

    /** Java binding of {@code MPI_WIN_FLUSH}: this process's operations on {@code targetRank} are complete there. */
    public void flush(final int targetRank)
    {
        final Recorder r = Profile.begin(Calls.WIN_FLUSH);
        flush0(targetRank);
        Profile.endWindow(r, Calls.WIN_FLUSH, this, -1);
    }

    private void flush0(final int targetRank)
    {
        final ShmWindow w = live();
        try
        {
            if (targetRank != MPI.PROC_NULL)
            {
                w.flush(targetRank);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_WIN_FLUSH_ALL}. */
    public void flushAll()
    {
        final Recorder r = Profile.begin(Calls.WIN_FLUSH_ALL);
        flushAll0();
        Profile.endWindow(r, Calls.WIN_FLUSH_ALL, this, -1);
    }

    private void flushAll0()
    {
        call(w -> w.flushAll());
    }

    /**
     * Java binding of {@code MPI_WIN_FLUSH_LOCAL}: the origin buffers of this process's
     * operations on {@code targetRank} may be reused. Every operation has copied its origin data
     * when it returns, so this is {@link #flush}.
     */
    public void flushLocal(final int targetRank)
    {
        final Recorder r = Profile.begin(Calls.WIN_FLUSH_LOCAL);
        flushLocal0(targetRank);
        Profile.endWindow(r, Calls.WIN_FLUSH_LOCAL, this, -1);
    }

    private void flushLocal0(final int targetRank)
    {
        flush0(targetRank);
    }

    /** Java binding of {@code MPI_WIN_FLUSH_LOCAL_ALL}: as {@link #flushAll}. */
    public void flushLocalAll()
    {
        final Recorder r = Profile.begin(Calls.WIN_FLUSH_LOCAL_ALL);
        flushLocalAll0();
        Profile.endWindow(r, Calls.WIN_FLUSH_LOCAL_ALL, this, -1);
    }

    private void flushLocalAll0()
    {
        flushAll0();
    }

    // ------------------------------------------------------------------------------------------
    // Shared memory

    /**
     * + {@code MPI_WIN_SHARED_QUERY}, which Open MPI's bindings lack: member {@code rank}'s
     * window memory as this process maps it, for direct loads and stores (any flavor: every
     * window's memory is shared here). Order loads and stores with the others' through
     * {@link #sync} and a synchronisation such as a barrier.
     */
    public SharedMemory sharedQuery(final int rank)
    {
        final ShmWindow w = live();
        try
        {
            return new SharedMemory(w.region(rank), w.regionSize(rank), w.dispUnit(rank));
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** + What {@link #sharedQuery} gives: a member's window memory, its size and displacement unit. */
    public static final class SharedMemory
    {
        private final ByteBuffer buffer;
        private final long size;
        private final int dispUnit;

        SharedMemory(final ByteBuffer buffer, final long size, final int dispUnit)
        {
            this.buffer = buffer;
            this.size = size;
            this.dispUnit = dispUnit;
        }

        /** A direct buffer (native byte order) over the member's memory. */
        public ByteBuffer getBuffer()
        {
            return buffer.duplicate().order(buffer.order());
        }

        /** Bytes of the member's memory. */
        public long getSize()
        {
            return size;
        }

        /** The member's displacement unit, in bytes. */
        public int getDispUnit()
        {
            return dispUnit;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Names, info, error handlers, attributes

    /** Java binding of {@code MPI_WIN_GET_NAME} (empty until set). */
    public String getName()
    {
        live();
        return name;
    }

    /** Java binding of {@code MPI_WIN_SET_NAME}. */
    public void setName(final String name)
    {
        live();
        if (name == null)
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "null window name"));
        }
        this.name = name;
        comm.setName("window " + name);
    }

    /**
     * Java binding of {@code MPI_WIN_GET_INFO}: a new info object with the hints in force. shmpi
     * acts on {@code alloc_shared_noncontig} (at allocation) and on {@code no_locks} (then
     * {@code lock} and {@code lockAll} fail with {@code ERR_RMA_SYNC}, as the hint promises they
     * are not called); the others are kept and reported but change nothing: every window here is
     * mapped by every member, so there is no slower path for them to avoid.
     */
    public Info getInfo()
    {
        live();
        return info.dup();
    }

    /** Java binding of {@code MPI_WIN_SET_INFO}: the hints are kept (see {@link #getInfo}). */
    public void setInfo(final Info info)
    {
        live();
        if (info == null || info.isNull())
        {
            throw handle(new MPIException(ErrorClass.ERR_INFO, "null or freed info"));
        }
        for (int i = 0; i < info.size(); i++)
        {
            final String key = info.getKey(i);
            this.info.set(key, info.get(key));
        }
    }

    /** Java binding of {@code MPI_WIN_SET_ERRHANDLER}. */
    public void setErrhandler(final Errhandler handler)
    {
        live();
        if (handler == null || handler.isNull())
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "null or freed error handler"));
        }
        errhandler = handler;
    }

    /** Java binding of {@code MPI_WIN_GET_ERRHANDLER} ({@code MPI.ERRORS_ARE_FATAL} until set). */
    public Errhandler getErrhandler()
    {
        live();
        return errhandler;
    }

    /**
     * Java binding of {@code MPI_WIN_CALL_ERRHANDLER}: runs this window's handler on
     * {@code errorCode}, as {@link Comm#callErrhandler} does: aborts the job under
     * {@code ERRORS_ARE_FATAL}, calls a user handler (a window handler with this window, a
     * communicator handler with the window's communicator), and returns under {@code ERRORS_RETURN}.
     */
    public void callErrhandler(final int errorCode)
    {
        live();
        if (errhandler.winFunction != null)
        {
            errhandler.winFunction.call(this, CommErrors.applicationError(errorCode));
            return;
        }
        comm.errhandler = errhandler;
        comm.callErrhandler(errorCode);
    }

    /** Java binding of {@code MPI_WIN_CREATE_KEYVAL}. */
    public static int createKeyval()
    {
        MPI.check();
        return ATTRIBUTES.createKeyval(Keyval.DUP, Keyval.NO_DELETE);
    }

    /** Java binding of {@code MPI_WIN_FREE_KEYVAL}. */
    public static void freeKeyval(final int keyval)
    {
        MPI.check();
        ATTRIBUTES.freeKeyval(keyval);
    }

    /** Java binding of {@code MPI_WIN_SET_ATTR}. */
    public void setAttr(final int keyval, final Object value)
    {
        live();
        if (keyval >= MPI.WIN_BASE && keyval <= MPI.WIN_MODEL)
        {
            throw handle(new MPIException(ErrorClass.ERR_KEYVAL, "predefined window attributes cannot be set: " +
                keyval));
        }
        try
        {
            attributes.set(this, keyval, value);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_WIN_GET_ATTR}. Predefined: {@code MPI.WIN_BASE} (this process's
     * window memory: the buffer or array it was made over, or for an allocated window a direct
     * {@code ByteBuffer} over it), {@code MPI.WIN_SIZE} (bytes) and
     * {@code MPI.WIN_DISP_UNIT} (bytes) as {@code Integer} (a {@code Long} for sizes past 2 GiB),
     * {@code MPI.WIN_CREATE_FLAVOR} ({@code MPI.WIN_FLAVOR_*}) and {@code MPI.WIN_MODEL}
     * ({@code MPI.WIN_UNIFIED}).
     */
    public Object getAttr(final int keyval)
    {
        final ShmWindow w = live();
        final int me = w.rank();
        switch (keyval)
        {
            case MPI.WIN_BASE:
                return userBase != null ? userBase : w.region(me);
            case MPI.WIN_SIZE:
            {
                final long size = declaredBytes >= 0 ? declaredBytes : w.regionSize(me);
                return size <= Integer.MAX_VALUE ? (Object)(int)size : (Object)size;
            }
            case MPI.WIN_DISP_UNIT:
                return w.dispUnit(me);
            case MPI.WIN_CREATE_FLAVOR:
                return w.flavor();
            case MPI.WIN_MODEL:
                return MPI.WIN_UNIFIED;
            default:
                try
                {
                    return attributes.get(keyval);
                }
                catch (final RuntimeException ex)
                {
                    throw handle(ex);
                }
        }
    }

    /** Java binding of {@code MPI_WIN_DELETE_ATTR}. */
    public void deleteAttr(final int keyval)
    {
        live();
        try
        {
            attributes.delete(this, keyval);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------

    /**
     * Java binding of {@code MPI_WIN_FREE}: collective; every epoch of this process must have
     * ended ({@code MPI.ERR_RMA_SYNC} otherwise). Waits for every member, then releases the
     * memory (an allocated window's memory goes with it: buffers of {@code WIN_BASE} and
     * {@link #sharedQuery} must not be used after).
     */
    @Override
    public void free()
    {
        final Recorder r = Profile.begin(Calls.WIN_FREE);
        free0();
        if (r != null)
        {
            r.endObserved(Calls.WIN_FREE, 0);
        }
    }

    private void free0()
    {
        final ShmWindow w = live();
        try
        {
            w.free();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        attributes.clear(this);
        window = null;
        CommConstruction.free(comm);
    }

    /** Whether this window was freed ({@code MPI_WIN_NULL}). */
    public boolean isNull()
    {
        return window == null;
    }

    @Override
    public String toString()
    {
        return window == null ? "MPI_WIN_NULL" : "window " + (name.isEmpty() ? "" : name + " ") + "of " + ranks.size() +
            " processes";
    }
}
