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

/**
 * How a {@link Win} is made and given memory, behind its constructors and {@link Win#attach}:
 * the arguments checked (memory, size, displacement unit, flavor), the communicator duplicated
 * into the window's private one, the {@link ShmWindow} made on it, and the ranks and info the
 * window keeps. A constructor's failures go through the error handler of the communicator the
 * window is made on, attach's through the window's.
 */
final class WinCreation
{
    private WinCreation()
    {
    }

    /** Makes the window's {@link ShmWindow} on the members of its private communicator. */
    private interface Maker
    {
        ShmWindow make(WindowMembers members);
    }

    /** {@code MPI_WIN_CREATE} (see {@link Win#Win(Object, int, int, Info, Comm)}) into {@code win}. */
    static void create(final Win win, final Object base, final int size, final int dispUnit, final Info info,
        final Comm comm)
    {
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
        open(win, comm, info, m -> ShmWindow.create(MPI.context(), m, memory, offset, exposed, unit));
        win.userBase = base;
        win.declaredBytes = bytes;
    }

    /**
     * {@code MPI_WIN_ALLOCATE} and {@code MPI_WIN_ALLOCATE_SHARED} (see
     * {@link Win#Win(int, int, Info, Comm, Buffer, int)}) into {@code win}.
     */
    static void allocate(final Win win, final int size, final int dispUnit, final Info info, final Comm comm,
        final Buffer base, final int flavor)
    {
        final int element = elementSize(base, comm);
        final long bytes = checkedBytes(size, element, comm);
        final int unit = checkedUnit(dispUnit, element, comm);
        if (flavor != Win.FLAVOR_PRIVATE && flavor != Win.FLAVOR_SHARED)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_ARG, "not a window flavor: " + flavor +
                " (Win.FLAVOR_PRIVATE or Win.FLAVOR_SHARED)"));
        }
        final boolean contiguous = flavor == Win.FLAVOR_SHARED &&
            !(info != null && !info.isNull() && "true".equalsIgnoreCase(info.get("alloc_shared_noncontig")));
        open(win, comm, info, m -> ShmWindow.allocate(MPI.context(), m, bytes, unit,
            flavor == Win.FLAVOR_SHARED ? ShmWindow.FLAVOR_SHARED : ShmWindow.FLAVOR_ALLOCATE, contiguous));
    }

    /** {@code MPI_WIN_CREATE_DYNAMIC} (see {@link Win#Win(Info, Comm)}) into {@code win}. */
    static void createDynamic(final Win win, final Info info, final Comm comm)
    {
        open(win, comm, info, m -> ShmWindow.createDynamic(MPI.context(), m));
    }

    private static void open(final Win win, final Comm comm, final Info info, final Maker maker)
    {
        comm.check();
        if (comm.isInter())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_COMM, "windows are made on intra-communicators"));
        }
        final Intracomm dup = CommConstruction.duplicate(comm, new Intracomm(""));
        dup.setName("window on " + comm.getName());
        dup.setErrhandler(MPI.ERRORS_RETURN);
        try
        {
            win.window = maker.make(new CommMembers(dup));
        }
        catch (final RuntimeException ex)
        {
            CommConstruction.free(dup);
            throw comm.handle(ex);
        }
        win.comm = dup;
        win.ranks = new WinRanks(dup.members.clone());
        win.info = info == null || info.isNull() ? new Info() : info.dup();
        win.noLocks = isTrue(win.info.get("no_locks"));
    }

    /** {@link Win#attach}: {@code size} elements of {@code base} join {@code win}, a dynamic window. */
    static void attach(final Win win, final Buffer base, final int size)
    {
        final ShmWindow w = win.live();
        try
        {
            final int element = elementSize(base, win.comm);
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
            throw win.handle(ex);
        }
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

    /**
     * Bytes of an element of {@code base} (a {@code java.nio} buffer or a primitive array),
     * else {@code MPI.ERR_BUFFER} through {@code comm}'s error handler.
     */
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
}
