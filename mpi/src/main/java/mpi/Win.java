package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

import org.shmpi.rma.ShmWindow;
import org.shmpi.rma.WindowMembers;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.BasicKind;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

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

    /** A private duplicate of the communicator: the window's barriers and set-up never meet the user's traffic. */
    private Intracomm comm;
    private ShmWindow window;
    private int[] world;
    /** Window rank of each world rank ({@code -1}: not a member), for groups of start and post. */
    private int[] rankOfWorld;
    /** The last group {@link #windowRanks} translated (its member array) and its window ranks. */
    private int[] lastMembers;
    private int[] lastRanks;
    private String name = "";
    private Info info;
    private Errhandler errhandler = MPI.ERRORS_ARE_FATAL;
    /** The caller's memory of a window made over it (what {@code WIN_BASE} gives), else null. */
    private Object userBase;
    /** The size in bytes a window over the caller's memory was made with (its {@code WIN_SIZE}), else -1. */
    private long declaredBytes = -1;
    /** Info {@code no_locks} was {@code "true"} at creation: the window is never locked (MPI-3.1 section 11.2.1). */
    private boolean noLocks;

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
        final int element = elementSize(base, comm);
        final long bytes = checkedBytes(size, element, comm);
        final int unit = checkedUnit(dispUnit, element, comm);
        final long capacity = base instanceof Buffer ? (long)((Buffer)base).capacity() * element :
            (long)java.lang.reflect.Array.getLength(base) * element;
        // Open MPI takes the size on trust, so programs declare windows larger than their buffers
        // and access only what exists. shmpi accepts the size too, but exposes only the memory
        // that exists: an access past it is MPI.ERR_RMA_RANGE at the origin, never a write
        // outside the buffer. WIN_SIZE reports the size given.
        final long exposed = Math.min(bytes, capacity);
        if (base instanceof Buffer && ((Buffer)base).isReadOnly())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_BASE, "window memory must be writable: a read-only " +
                "buffer cannot take the others' puts"));
        }
        final Object memory = Buffers.base(base);
        final long offset = Buffers.offset(base);
        open(comm, info, m -> ShmWindow.create(MPI.context(), m, memory, offset, exposed, unit));
        this.userBase = base;
        this.declaredBytes = bytes;
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
        final int element = elementSize(base, comm);
        final long bytes = checkedBytes(size, element, comm);
        final int unit = checkedUnit(dispUnit, element, comm);
        if (flavor != FLAVOR_PRIVATE && flavor != FLAVOR_SHARED)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_ARG, "not a window flavor: " + flavor +
                " (Win.FLAVOR_PRIVATE or Win.FLAVOR_SHARED)"));
        }
        final boolean contiguous = flavor == FLAVOR_SHARED &&
            !(info != null && !info.isNull() && "true".equalsIgnoreCase(info.get("alloc_shared_noncontig")));
        open(comm, info, m -> ShmWindow.allocate(MPI.context(), m, bytes, unit,
            flavor == FLAVOR_SHARED ? ShmWindow.FLAVOR_SHARED : ShmWindow.FLAVOR_ALLOCATE, contiguous));
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
        open(comm, info, m -> ShmWindow.createDynamic(MPI.context(), m));
    }

    private interface Maker
    {
        ShmWindow make(WindowMembers members);
    }

    private void open(final Comm comm, final Info info, final Maker maker)
    {
        comm.check();
        if (comm.isInter())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_COMM, "windows are made on intra-communicators"));
        }
        final Intracomm dup = (Intracomm)comm.dup();
        dup.setName("window on " + comm.getName());
        dup.setErrhandler(MPI.ERRORS_RETURN);
        try
        {
            this.window = maker.make(new CommMembers(dup));
        }
        catch (final RuntimeException ex)
        {
            dup.free();
            throw comm.handle(ex);
        }
        this.comm = dup;
        this.world = dup.members.clone();
        int largest = 0;
        for (final int w : world)
        {
            largest = Math.max(largest, w);
        }
        this.rankOfWorld = new int[largest + 1];
        java.util.Arrays.fill(rankOfWorld, -1);
        for (int r = 0; r < world.length; r++)
        {
            rankOfWorld[world[r]] = r;
        }
        this.info = info == null || info.isNull() ? new Info() : info.dup();
        this.noLocks = isTrue(this.info.get("no_locks"));
    }

    /** An info value read as a boolean, as Open MPI reads one: "true", "yes" or a nonzero integer. */
    private static boolean isTrue(final String value)
    {
        if (value == null)
        {
            return false;
        }
        final String v = value.trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("yes"))
        {
            return true;
        }
        try
        {
            return Integer.parseInt(v) != 0;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    private static int elementSize(final Object base, final Comm comm)
    {
        if (base == null)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_BUFFER, "null base buffer"));
        }
        if (base instanceof ByteBuffer || base instanceof byte[] || base instanceof boolean[])
        {
            return 1;
        }
        if (base instanceof CharBuffer || base instanceof ShortBuffer || base instanceof char[] ||
            base instanceof short[])
        {
            return 2;
        }
        if (base instanceof IntBuffer || base instanceof FloatBuffer || base instanceof int[] ||
            base instanceof float[])
        {
            return 4;
        }
        if (base instanceof LongBuffer || base instanceof DoubleBuffer || base instanceof long[] ||
            base instanceof double[])
        {
            return 8;
        }
        throw comm.handle(new MPIException(ErrorClass.ERR_BUFFER, "window memory must be a java.nio buffer or a " +
            "primitive array, not " + base.getClass().getName()));
    }

    private static long checkedBytes(final int size, final int element, final Comm comm)
    {
        if (size < 0)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_SIZE, "negative window size: " + size));
        }
        return (long)size * element;
    }

    private static int checkedUnit(final int dispUnit, final int element, final Comm comm)
    {
        if (dispUnit <= 0 || (long)dispUnit * element > Integer.MAX_VALUE)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_DISP, "displacement unit must be positive: " + dispUnit));
        }
        return dispUnit * element;
    }

    // ------------------------------------------------------------------------------------------

    private ShmWindow live()
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
    private MPIException handle(final RuntimeException ex)
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

    /** The members of {@code group} as window ranks ({@code MPI.ERR_GROUP} for a process outside the window). */
    private int[] windowRanks(final Group group, final String call)
    {
        final int[] members = Group.of(group, call);
        if (members == lastMembers)
        {
            return lastRanks;
        }
        final int[] out = new int[members.length];
        for (int i = 0; i < members.length; i++)
        {
            final int w = members[i];
            out[i] = w >= 0 && w < rankOfWorld.length ? rankOfWorld[w] : -1;
            if (out[i] < 0)
            {
                throw new MPIException(ErrorClass.ERR_GROUP, call + ": the group has a process that is not in the " +
                    "window: world rank " + members[i]);
            }
        }
        // An epoch loop names the same group again and again (a group's members never change).
        lastMembers = members;
        lastRanks = out;
        return out;
    }

    /**
     * Java binding of {@code MPI_WIN_ATTACH}: {@code size} elements of {@code base} join this
     * dynamic window. Buffers of {@code MPI.newXxxBuffer} of 64 KiB or more are mapped by the
     * others; other memory is served by this process's progress engine.
     */
    public void attach(final Buffer base, final int size)
    {
        final ShmWindow w = live();
        try
        {
            final int element = elementSize(base, comm);
            if (base.isReadOnly())
            {
                throw new MPIException(ErrorClass.ERR_BASE, "attached memory must be writable: a read-only buffer " +
                    "cannot take the others' puts");
            }
            if (size < 0 || (long)size > base.capacity())
            {
                throw new MPIException(ErrorClass.ERR_SIZE, "attach of " + size + " elements of a buffer of " +
                    base.capacity());
            }
            w.attach(base, Buffers.base(base), Buffers.offset(base), (long)size * element);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
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
        return new Group(world.clone());
    }

    // ------------------------------------------------------------------------------------------
    // Communication

    private static TypeMap targetMap(final Datatype type)
    {
        return type.derived ? type.map : null;
    }

    /** Checks the target type and that it carries as many bytes as the origin. */
    private static void checkTarget(final long originBytes, final int targetCount, final Datatype targetType)
    {
        if (targetCount < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative target count: " + targetCount);
        }
        MPI.checkDatatype(targetType);
        if (!targetType.usable())
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "target datatype not committed: " + targetType.getName());
        }
        if ((long)targetCount * targetType.size != originBytes)
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "origin data has " + originBytes + " bytes, target data " +
                (long)targetCount * targetType.size + ": the type signatures differ");
        }
    }

    /**
     * Java binding of {@code MPI_PUT}: {@code orgCount} items of {@code orgType} from
     * {@code origin} into {@code targetCount} items of {@code targetType} at displacement
     * {@code targetDisp} of member {@code targetRank}'s window.
     */
    public void put(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        move(true, origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
    }

    /** Java binding of {@code MPI_GET}: the reverse of {@link #put}. */
    public void get(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType)
    {
        move(false, origin, orgCount, orgType, targetRank, targetDisp, targetCount, targetType);
    }

    /** A put ({@code put}) or a get, checked, through this window's error handler. */
    private void move(final boolean put, final Buffer origin, final int orgCount, final Datatype orgType,
        final int targetRank, final int targetDisp, final int targetCount, final Datatype targetType)
    {
        final ShmWindow w = live();
        try
        {
            final long bytes = Buffers.bytes(origin, orgCount, orgType);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(bytes, targetCount, targetType);
            if (put)
            {
                w.put(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                    targetMap(targetType), targetCount);
            }
            else
            {
                w.get(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                    targetMap(targetType), targetCount);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * The kernel of a predefined {@code op} on the elements of {@code type} (which must all be of
     * one basic kind, the same as {@code other}'s); REPLACE and NO_OP included, user ops refused.
     */
    private static Reductions.Kernel accumulateKernel(final Op op, final Datatype type, final Datatype other)
    {
        if (op == null || op.isNull())
        {
            throw new MPIException(ErrorClass.ERR_OP, "null or freed operation");
        }
        if (op.function != null)
        {
            throw new MPIException(ErrorClass.ERR_OP, "one-sided accumulates take predefined operations only");
        }
        MPI.checkDatatype(type);
        final int kind = type.uniformKind();
        if (other != null)
        {
            MPI.checkDatatype(other);
            if (other.uniformKind() != kind)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "origin and target datatypes must be made of the same " +
                    "predefined datatype: " + type.getName() + ", " + other.getName());
            }
        }
        final Reductions.Kernel kernel = kind < 0 ? null : Reductions.kernel(op.code, kind);
        if (kernel == null)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is not defined on " +
                type.getName() + (kind < 0 ? " (elements of several kinds)" : ""));
        }
        return kernel;
    }

    /** Java binding of {@code MPI_ACCUMULATE}: target = origin {@code op} target, element by element, atomically. */
    public void accumulate(final Buffer origin, final int orgCount, final Datatype orgType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
    {
        final ShmWindow w = live();
        try
        {
            final long bytes = Buffers.bytes(origin, orgCount, orgType);
            accumulateKernel(op, orgType, targetType);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(bytes, targetCount, targetType);
            w.accumulate(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                targetMap(targetType), targetCount, op.code, orgType.uniformKind(), null, 0, null);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
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
        final ShmWindow w = live();
        try
        {
            final long resultBytes = Buffers.bytes(result, resultCount, resultType);
            accumulateKernel(op, resultType, targetType);
            // With NO_OP the origin buffer is not read (MPI lets it be anything).
            final boolean noOp = op.code == Reductions.NO_OP && op.function == null;
            final long bytes = noOp ? resultBytes : Buffers.bytes(origin, orgCount, orgType);
            if (!noOp)
            {
                accumulateKernel(op, orgType, targetType);
            }
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(resultBytes, targetCount, targetType);
            if (bytes != resultBytes)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "origin has " + bytes + " bytes, result " + resultBytes);
            }
            final Object base = noOp ? Buffers.base(result) : Buffers.base(origin);
            final long offset = noOp ? Buffers.offset(result) : Buffers.offset(origin);
            final Datatype inType = noOp ? resultType : orgType;
            if (noOp && !resultType.layout().isContiguous())
            {
                // The kernel reads nothing of the origin; any contiguous bytes of the right length will do.
                final byte[] ignored = new byte[(int)bytes];
                w.accumulate(ignored, Buffers.BYTE_ARRAY_BASE, org.shmpi.types.DataLayout.CONTIGUOUS, bytes,
                    targetRank, targetDisp, targetMap(targetType), targetCount, op.code, resultType.uniformKind(),
                    Buffers.base(result), Buffers.offset(result),
                    resultType.layout());
                return;
            }
            w.accumulate(base, offset, inType.layout(), bytes, targetRank, targetDisp, targetMap(targetType),
                targetCount, op.code, resultType.uniformKind(), Buffers.base(result),
                Buffers.offset(result), resultType.layout());
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_FETCH_AND_OP}: one element of {@code type} (a predefined type):
     * the target's value lands in {@code result}, then becomes origin {@code op} target, atomically.
     */
    public void fetchAndOp(final Buffer origin, final Buffer result, final Datatype type, final int targetRank,
        final int targetDisp, final Op op)
    {
        final ShmWindow w = live();
        try
        {
            accumulateKernel(op, type, null);
            if (type.derived)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "fetchAndOp takes a predefined datatype, not " +
                    type.getName());
            }
            final boolean noOp = op.code == Reductions.NO_OP;
            Buffers.bytes(result, 1, type);
            if (!noOp)
            {
                Buffers.bytes(origin, 1, type);
            }
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            final int kind = type.uniformKind();
            final Object inBase = noOp ? Buffers.base(result) : Buffers.base(origin);
            final long inOffset = noOp ? Buffers.offset(result) : Buffers.offset(origin);
            w.fetchAndOp(inBase, inOffset, Buffers.base(result), Buffers.offset(result), op.code, kind, targetRank,
                targetDisp);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
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
        final ShmWindow w = live();
        try
        {
            MPI.checkDatatype(type);
            final int kind = type.uniformKind();
            if (type.derived || !(kind == BasicKind.BYTE || kind == BasicKind.CHAR || kind == BasicKind.SHORT ||
                kind == BasicKind.BOOLEAN || kind == BasicKind.INT || kind == BasicKind.LONG))
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "compareAndSwap takes an integer, boolean or byte " +
                    "datatype, not " + type.getName());
            }
            Buffers.bytes(origin, 1, type);
            Buffers.bytes(compare, 1, type);
            Buffers.bytes(result, 1, type);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            w.compareAndSwap(Buffers.base(origin), Buffers.offset(origin), Buffers.base(compare),
                Buffers.offset(compare), Buffers.base(result), Buffers.offset(result), BasicKind.size(kind), targetRank,
                targetDisp);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
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
            op.run(w, windowRanks(group, name), assertion);
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
        call((w, a) -> w.fence(a), assertion);
    }

    /** Java binding of {@code MPI_WIN_START}: an access epoch to the members of {@code group}. */
    public void start(final Group group, final int assertion)
    {
        call((w, ranks, a) -> w.start(ranks, a), group, assertion, "start");
    }

    /** Java binding of {@code MPI_WIN_COMPLETE}. */
    public void complete()
    {
        call(w -> w.complete());
    }

    /** Java binding of {@code MPI_WIN_POST}: an exposure epoch to the members of {@code group}. */
    public void post(final Group group, final int assertion)
    {
        call((w, ranks, a) -> w.post(ranks, a), group, assertion, "post");
    }

    /** Java binding of {@code MPI_WIN_WAIT}. */
    public void waitFor()
    {
        call(w -> w.waitFor());
    }

    /** Java binding of {@code MPI_WIN_TEST}. */
    public boolean test()
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
        call(w -> w.unlockAll());
    }

    /**
     * Java binding of {@code MPI_WIN_SYNC}: orders this process's loads and stores on window memory with the others'.
     */
    public void sync()
    {
        call(w -> w.sync());
    }

    /** Java binding of {@code MPI_WIN_FLUSH}: this process's operations on {@code targetRank} are complete there. */
    public void flush(final int targetRank)
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
        call(w -> w.flushAll());
    }

    /**
     * Java binding of {@code MPI_WIN_FLUSH_LOCAL}: the origin buffers of this process's
     * operations on {@code targetRank} may be reused. Every operation has copied its origin data
     * when it returns, so this is {@link #flush}.
     */
    public void flushLocal(final int targetRank)
    {
        flush(targetRank);
    }

    /** Java binding of {@code MPI_WIN_FLUSH_LOCAL_ALL}: as {@link #flushAll}. */
    public void flushLocalAll()
    {
        flushAll();
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
     * acts on {@code alloc_shared_noncontig} (at allocation); the others are kept and reported
     * but change nothing: every window here is mapped by every member, so hints such as
     * {@code no_locks} have no slower path to avoid.
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
        comm.free();
    }

    /** Whether this window was freed ({@code MPI_WIN_NULL}). */
    public boolean isNull()
    {
        return window == null;
    }

    @Override
    public String toString()
    {
        return window == null ? "MPI_WIN_NULL" : "window " + (name.isEmpty() ? "" : name + " ") + "of " + world.length +
            " processes";
    }
}
