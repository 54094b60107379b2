package mpi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;
import org.shmpi.io.ShmFile;
import org.shmpi.rma.ShmWindow;
import org.shmpi.shm.ErrorClass;

/**
 * The MPI environment: initialization, finalization, constants and predefined handles. Static,
 * because the API it implements is static; the rank's state from Init to Finalize, and starting,
 * stopping and aborting it, are {@code Lifecycle}'s.
 */
public final class MPI
{
    static
    {
        // Before any Agrona buffer class loads: the engines check the bounds of every frame they
        // claim, so Agrona's per-access checks only cost time (most of all in a cold JVM). A
        // user's own -Dagrona.disable.bounds.checks=false keeps them on.
        if (System.getProperty("agrona.disable.bounds.checks") == null)
        {
            System.setProperty("agrona.disable.bounds.checks", "true");
        }
    }

    public static final int THREAD_SINGLE = 0;
    public static final int THREAD_FUNNELED = 1;
    public static final int THREAD_SERIALIZED = 2;
    public static final int THREAD_MULTIPLE = 3;

    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    /** Distributions of {@link Datatype#createDarray}; Open MPI's values. */
    public static final int DISTRIBUTE_BLOCK = org.shmpi.types.TypeMap.DISTRIBUTE_BLOCK;
    public static final int DISTRIBUTE_CYCLIC = org.shmpi.types.TypeMap.DISTRIBUTE_CYCLIC;
    public static final int DISTRIBUTE_NONE = org.shmpi.types.TypeMap.DISTRIBUTE_NONE;
    public static final int DISTRIBUTE_DFLT_DARG = org.shmpi.types.TypeMap.DISTRIBUTE_DFLT_DARG;

    /** How a datatype was made ({@link Datatype#getEnvelope}); Open MPI's values. */
    public static final int COMBINER_NAMED = 0;
    public static final int COMBINER_DUP = 1;
    public static final int COMBINER_CONTIGUOUS = 2;
    public static final int COMBINER_VECTOR = 3;
    public static final int COMBINER_HVECTOR = 5;
    public static final int COMBINER_INDEXED = 6;
    public static final int COMBINER_HINDEXED = 8;
    public static final int COMBINER_INDEXED_BLOCK = 9;
    public static final int COMBINER_STRUCT = 11;
    public static final int COMBINER_SUBARRAY = 12;
    public static final int COMBINER_DARRAY = 13;
    public static final int COMBINER_RESIZED = 17;
    public static final int COMBINER_HINDEXED_BLOCK = 18;
    /** Row-major order of {@link Datatype#createSubarray} (the last dimension varies fastest); Open MPI's value. */
    public static final int ORDER_C = 56;
    /** Column-major order of {@link Datatype#createSubarray} (the first dimension varies fastest); Open MPI's value. */
    public static final int ORDER_FORTRAN = 57;
    public static final int PROC_NULL = -2;
    public static final int ROOT = -4;
    public static final int UNDEFINED = -32766;
    public static final int KEYVAL_INVALID = -1;

    /** {@code MPI_MAX_OBJECT_NAME}, as in Open MPI: a name keeps at most this less one characters. */
    public static final int MAX_OBJECT_NAME = 64;

    /**
     * Predefined attribute keys, for {@link Comm#getAttr}: {@code getAttr(MPI.TAG_UB)} is the
     * largest tag (as in Open MPI, {@code TAG_UB} is the key, not the bound).
     */
    public static final int TAG_UB = 0;
    public static final int HOST = 1;
    public static final int IO = 2;
    public static final int WTIME_IS_GLOBAL = 3;
    public static final int APPNUM = 4;
    public static final int LASTUSEDCODE = 5;
    public static final int UNIVERSE_SIZE = 6;
    /** Predefined window attribute keys, for {@link Win#getAttr}. */
    public static final int WIN_BASE = 7;
    public static final int WIN_SIZE = 8;
    public static final int WIN_DISP_UNIT = 9;
    /** + {@code MPI_WIN_CREATE_FLAVOR}: one of the {@code WIN_FLAVOR_*} values. */
    public static final int WIN_CREATE_FLAVOR = 10;
    /** + {@code MPI_WIN_MODEL}: {@link #WIN_UNIFIED} for every window of shmpi. */
    public static final int WIN_MODEL = 11;
    /** + Memory models: every window here is unified (public and private copies are one memory). */
    public static final int WIN_UNIFIED = 0;
    public static final int WIN_SEPARATE = 1;
    /** + How a window was made. */
    public static final int WIN_FLAVOR_CREATE = ShmWindow.FLAVOR_CREATE;
    public static final int WIN_FLAVOR_ALLOCATE = ShmWindow.FLAVOR_ALLOCATE;
    public static final int WIN_FLAVOR_DYNAMIC = ShmWindow.FLAVOR_DYNAMIC;
    public static final int WIN_FLAVOR_SHARED = ShmWindow.FLAVOR_SHARED;
    /** Assertions of window synchronisation calls. */
    public static final int MODE_NOCHECK = ShmWindow.MODE_NOCHECK;
    public static final int MODE_NOPRECEDE = ShmWindow.MODE_NOPRECEDE;
    public static final int MODE_NOPUT = ShmWindow.MODE_NOPUT;
    public static final int MODE_NOSTORE = ShmWindow.MODE_NOSTORE;
    public static final int MODE_NOSUCCEED = ShmWindow.MODE_NOSUCCEED;
    /** Lock types of {@link Win#lock}. */
    public static final int LOCK_EXCLUSIVE = ShmWindow.LOCK_EXCLUSIVE;
    public static final int LOCK_SHARED = ShmWindow.LOCK_SHARED;

    /** File access modes ({@link File}), Open MPI's values. */
    public static final int MODE_CREATE = ShmFile.MODE_CREATE;
    public static final int MODE_RDONLY = ShmFile.MODE_RDONLY;
    public static final int MODE_WRONLY = ShmFile.MODE_WRONLY;
    public static final int MODE_RDWR = ShmFile.MODE_RDWR;
    public static final int MODE_DELETE_ON_CLOSE = ShmFile.MODE_DELETE_ON_CLOSE;
    public static final int MODE_UNIQUE_OPEN = ShmFile.MODE_UNIQUE_OPEN;
    public static final int MODE_EXCL = ShmFile.MODE_EXCL;
    public static final int MODE_APPEND = ShmFile.MODE_APPEND;
    public static final int MODE_SEQUENTIAL = ShmFile.MODE_SEQUENTIAL;
    /** {@code whence} of {@link File#seek} and {@link File#seekShared}. */
    public static final int SEEK_SET = ShmFile.SEEK_SET;
    public static final int SEEK_CUR = ShmFile.SEEK_CUR;
    public static final int SEEK_END = ShmFile.SEEK_END;
    /** A view displacement: where the shared file pointer is (files opened {@code MODE_SEQUENTIAL}). */
    public static final int DISPLACEMENT_CURRENT = (int)ShmFile.DISPLACEMENT_CURRENT;
    public static final int MAX_DATAREP_STRING = 128;
    public static final int MAX_PORT_NAME = 1024;
    /**
     * + {@code MPI_FILE_NULL}: its error handler ({@link File#setErrhandler}) is that of opens, deletes and new files.
     */
    public static final File FILE_NULL = File.nullFile();

    /** Bytes of accounting each buffered-mode message takes in the attached buffer. */
    public static final int BSEND_OVERHEAD = 128;

    public static final int IDENT = 0;
    public static final int CONGRUENT = 1;
    public static final int SIMILAR = 2;
    public static final int UNEQUAL = 3;

    /** MPI standard version implemented by this API. */
    public static final int VERSION = 3;
    public static final int SUBVERSION = 1;

    public static final int SUCCESS = ErrorClass.SUCCESS;
    public static final int ERR_BUFFER = ErrorClass.ERR_BUFFER;
    public static final int ERR_COUNT = ErrorClass.ERR_COUNT;
    public static final int ERR_TYPE = ErrorClass.ERR_TYPE;
    public static final int ERR_TAG = ErrorClass.ERR_TAG;
    public static final int ERR_COMM = ErrorClass.ERR_COMM;
    public static final int ERR_RANK = ErrorClass.ERR_RANK;
    public static final int ERR_REQUEST = ErrorClass.ERR_REQUEST;
    public static final int ERR_ROOT = ErrorClass.ERR_ROOT;
    public static final int ERR_GROUP = ErrorClass.ERR_GROUP;
    public static final int ERR_OP = ErrorClass.ERR_OP;
    public static final int ERR_TOPOLOGY = ErrorClass.ERR_TOPOLOGY;
    public static final int ERR_DIMS = ErrorClass.ERR_DIMS;
    public static final int ERR_ARG = ErrorClass.ERR_ARG;
    public static final int ERR_UNKNOWN = ErrorClass.ERR_UNKNOWN;
    public static final int ERR_TRUNCATE = ErrorClass.ERR_TRUNCATE;
    public static final int ERR_OTHER = ErrorClass.ERR_OTHER;
    public static final int ERR_INTERN = ErrorClass.ERR_INTERN;
    public static final int ERR_IN_STATUS = ErrorClass.ERR_IN_STATUS;
    public static final int ERR_PENDING = ErrorClass.ERR_PENDING;
    public static final int ERR_ACCESS = ErrorClass.ERR_ACCESS;
    public static final int ERR_AMODE = ErrorClass.ERR_AMODE;
    public static final int ERR_ASSERT = ErrorClass.ERR_ASSERT;
    public static final int ERR_BAD_FILE = ErrorClass.ERR_BAD_FILE;
    public static final int ERR_BASE = ErrorClass.ERR_BASE;
    public static final int ERR_CONVERSION = ErrorClass.ERR_CONVERSION;
    public static final int ERR_DISP = ErrorClass.ERR_DISP;
    public static final int ERR_DUP_DATAREP = ErrorClass.ERR_DUP_DATAREP;
    public static final int ERR_FILE_EXISTS = ErrorClass.ERR_FILE_EXISTS;
    public static final int ERR_FILE_IN_USE = ErrorClass.ERR_FILE_IN_USE;
    public static final int ERR_FILE = ErrorClass.ERR_FILE;
    public static final int ERR_INFO_KEY = ErrorClass.ERR_INFO_KEY;
    public static final int ERR_INFO_NOKEY = ErrorClass.ERR_INFO_NOKEY;
    public static final int ERR_INFO_VALUE = ErrorClass.ERR_INFO_VALUE;
    public static final int ERR_INFO = ErrorClass.ERR_INFO;
    public static final int ERR_IO = ErrorClass.ERR_IO;
    public static final int ERR_KEYVAL = ErrorClass.ERR_KEYVAL;
    public static final int ERR_LOCKTYPE = ErrorClass.ERR_LOCKTYPE;
    public static final int ERR_NAME = ErrorClass.ERR_NAME;
    public static final int ERR_NO_MEM = ErrorClass.ERR_NO_MEM;
    public static final int ERR_NOT_SAME = ErrorClass.ERR_NOT_SAME;
    public static final int ERR_NO_SPACE = ErrorClass.ERR_NO_SPACE;
    public static final int ERR_NO_SUCH_FILE = ErrorClass.ERR_NO_SUCH_FILE;
    public static final int ERR_PORT = ErrorClass.ERR_PORT;
    public static final int ERR_QUOTA = ErrorClass.ERR_QUOTA;
    public static final int ERR_READ_ONLY = ErrorClass.ERR_READ_ONLY;
    public static final int ERR_RMA_CONFLICT = ErrorClass.ERR_RMA_CONFLICT;
    public static final int ERR_RMA_SYNC = ErrorClass.ERR_RMA_SYNC;
    public static final int ERR_SERVICE = ErrorClass.ERR_SERVICE;
    public static final int ERR_SIZE = ErrorClass.ERR_SIZE;
    public static final int ERR_SPAWN = ErrorClass.ERR_SPAWN;
    public static final int ERR_UNSUPPORTED_DATAREP = ErrorClass.ERR_UNSUPPORTED_DATAREP;
    public static final int ERR_UNSUPPORTED_OPERATION = ErrorClass.ERR_UNSUPPORTED_OPERATION;
    public static final int ERR_WIN = ErrorClass.ERR_WIN;
    /** + MPI-3 error classes of one-sided communication that Open MPI's bindings lack. */
    public static final int ERR_RMA_RANGE = ErrorClass.ERR_RMA_RANGE;
    public static final int ERR_RMA_ATTACH = ErrorClass.ERR_RMA_ATTACH;
    public static final int ERR_RMA_SHARED = ErrorClass.ERR_RMA_SHARED;
    public static final int ERR_RMA_FLAVOR = ErrorClass.ERR_RMA_FLAVOR;
    public static final int ERR_LASTCODE = ErrorClass.ERR_LASTCODE;
    public static final int ERR_SYSRESOURCE = ErrorClass.ERR_SYSRESOURCE;
    public static final int ERR_PROC_ABORTED = ErrorClass.ERR_PROC_ABORTED;

    /** The predefined reduction operations ({@link Op}). */
    public static final Op MAX = new Op(org.shmpi.types.reduce.Reductions.MAX);
    public static final Op MIN = new Op(org.shmpi.types.reduce.Reductions.MIN);
    public static final Op SUM = new Op(org.shmpi.types.reduce.Reductions.SUM);
    public static final Op PROD = new Op(org.shmpi.types.reduce.Reductions.PROD);
    public static final Op LAND = new Op(org.shmpi.types.reduce.Reductions.LAND);
    public static final Op BAND = new Op(org.shmpi.types.reduce.Reductions.BAND);
    public static final Op LOR = new Op(org.shmpi.types.reduce.Reductions.LOR);
    public static final Op BOR = new Op(org.shmpi.types.reduce.Reductions.BOR);
    public static final Op LXOR = new Op(org.shmpi.types.reduce.Reductions.LXOR);
    public static final Op BXOR = new Op(org.shmpi.types.reduce.Reductions.BXOR);
    public static final Op MINLOC = new Op(org.shmpi.types.reduce.Reductions.MINLOC);
    public static final Op MAXLOC = new Op(org.shmpi.types.reduce.Reductions.MAXLOC);
    public static final Op REPLACE = new Op(org.shmpi.types.reduce.Reductions.REPLACE);
    public static final Op NO_OP = new Op(org.shmpi.types.reduce.Reductions.NO_OP);

    public static final Datatype DATATYPE_NULL = Datatype.basic(Datatype.NULL_ID);
    public static final Datatype BYTE = Datatype.basic(Datatype.BYTE_ID);
    public static final Datatype CHAR = Datatype.basic(Datatype.CHAR_ID);
    public static final Datatype SHORT = Datatype.basic(Datatype.SHORT_ID);
    public static final Datatype BOOLEAN = Datatype.basic(Datatype.BOOLEAN_ID);
    public static final Datatype INT = Datatype.basic(Datatype.INT_ID);
    public static final Datatype LONG = Datatype.basic(Datatype.LONG_ID);
    public static final Datatype FLOAT = Datatype.basic(Datatype.FLOAT_ID);
    public static final Datatype DOUBLE = Datatype.basic(Datatype.DOUBLE_ID);
    public static final Datatype PACKED = Datatype.basic(Datatype.PACKED_ID);
    public static final Datatype FLOAT_COMPLEX = Datatype.basic(Datatype.FLOAT_COMPLEX_ID);
    public static final Datatype DOUBLE_COMPLEX = Datatype.basic(Datatype.DOUBLE_COMPLEX_ID);
    /** (int value, int index) pairs, for MINLOC/MAXLOC; 8 bytes each in a direct ByteBuffer. */
    public static final Datatype INT2 = Datatype.basic(Datatype.INT2_ID);
    /** (short value, int index) pairs; 8 bytes each (value, 2 bytes padding, index). */
    public static final Datatype SHORT_INT = Datatype.basic(Datatype.SHORT_INT_ID);
    /** (long value, int index) pairs; 16 bytes each. */
    public static final Datatype LONG_INT = Datatype.basic(Datatype.LONG_INT_ID);
    /** (float value, int index) pairs; 8 bytes each. */
    public static final Datatype FLOAT_INT = Datatype.basic(Datatype.FLOAT_INT_ID);
    /** (double value, int index) pairs; 16 bytes each. */
    public static final Datatype DOUBLE_INT = Datatype.basic(Datatype.DOUBLE_INT_ID);

    /** The pair types as user structs, with {@code Data} views of a pair in a buffer. */
    public static final Int2 int2 = new Int2();
    public static final ShortInt shortInt = new ShortInt();
    public static final LongInt longInt = new LongInt();
    public static final FloatInt floatInt = new FloatInt();
    public static final DoubleInt doubleInt = new DoubleInt();

    /** The null request: waiting on it returns at once with an empty status. */
    public static final Request REQUEST_NULL = new Request();

    public static final Errhandler ERRORS_ARE_FATAL = new Errhandler(true, "MPI_ERRORS_ARE_FATAL");
    public static final Errhandler ERRORS_RETURN = new Errhandler(false, "MPI_ERRORS_RETURN");
    /** As ERRORS_ARE_FATAL here: shmpi has one job per launch, so aborting it is the same. */
    public static final Errhandler ERRORS_ABORT = new Errhandler(true, "MPI_ERRORS_ABORT");

    public static final Intracomm COMM_WORLD = new Intracomm("MPI_COMM_WORLD");
    public static final Intracomm COMM_SELF = new Intracomm("MPI_COMM_SELF");

    /**
     * {@code MPI_GRAPH}, {@code MPI_CART}, {@code MPI_DIST_GRAPH}: what {@code Comm.getTopology} answers, as in Open
     * MPI.
     */
    public static final int GRAPH = 1;
    public static final int CART = 2;
    public static final int DIST_GRAPH = 3;

    /** The predefined empty group; it cannot be freed. */
    public static final Group GROUP_EMPTY = Group.empty();

    /** The null info object: an argument meaning "no hints". */
    public static final Info INFO_NULL = Info.nullInfo();

    /**
     * How this job was started (MPI-2.2 section 10.5.1), filled by Init: {@code command} (the
     * main class or jar the JVM runs), {@code argv} (the arguments given to Init, space
     * separated), {@code maxprocs} and {@code soft} (the world size: shmrun starts exactly that
     * many), {@code host}, {@code arch} ({@code os.arch}), {@code wdir} (the working directory)
     * and {@code thread_level} (the level provided, e.g. {@code MPI_THREAD_MULTIPLE}); and Open
     * MPI's {@code ompi_num_apps} (1), {@code ompi_first_rank} (0) and {@code ompi_np} (the world
     * size). Read-only.
     */
    public static final Info INFO_ENV = Info.environment();

    /** {@code MPI_MAX_INFO_KEY}, as in Open MPI: keys have fewer characters. */
    public static final int MAX_INFO_KEY = 36;

    /** {@code MPI_MAX_INFO_VAL}, as in Open MPI: values have fewer characters. */
    public static final int MAX_INFO_VAL = 256;

    private static volatile BsendBuffer attached;

    /** Every member is static; the constructor is public only because Open MPI's class has one. */
    public MPI()
    {
    }

    /**
     * Java binding of {@code MPI_INIT}. Joins the job started by {@code shmrun} (or, run with
     * plain {@code java}, starts a world of one rank) and returns when every rank has joined.
     * A plain {@code java} start needs the JVM flags {@code shmrun} passes,
     * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED};
     * without the first, Init throws an {@link MPIException} ({@code ERR_OTHER}) naming them
     * before it creates anything in shared memory. A failed Init leaves nothing behind.
     *
     * @param args the arguments of {@code main}
     * @return the arguments, unchanged
     */
    public static String[] Init(final String[] args)
    {
        Lifecycle.init(args, THREAD_SINGLE);
        return args;
    }

    /**
     * Java binding of {@code MPI_INIT_THREAD}. Every level is provided as asked, up to
     * {@link #THREAD_MULTIPLE}: then any thread may call MPI at any time.
     *
     * @return the thread level provided
     */
    public static int InitThread(final String[] args, final int required)
    {
        return Lifecycle.init(args, required);
    }

    /** Names a communicator's two context ids in status reports (communicators call it when made). */
    static void nameContexts(final Comm comm, final String name)
    {
        Lifecycle.nameContexts(comm, name);
    }

    /** Forgets a freed communicator's context ids. */
    static void forgetContexts(final Comm comm)
    {
        Lifecycle.forgetContexts(comm);
    }

    /**
     * Java binding of {@code MPI_FINALIZE}. Collective over {@code COMM_WORLD}: returns when
     * every rank has called it, so no rank tears down while a peer still sends to it.
     */
    public static void Finalize()
    {
        Lifecycle.finish();
    }

    /**
     * Java binding of {@code MPI_BUFFER_ATTACH}: the buffer buffered-mode sends copy their
     * messages into. Each message takes its size plus {@link #BSEND_OVERHEAD} bytes.
     */
    public static void attachBuffer(final byte[] buffer)
    {
        check();
        if (buffer == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "null buffer to attach");
        }
        synchronized (Lifecycle.LOCK)
        {
            if (attached != null)
            {
                throw new MPIException(ErrorClass.ERR_BUFFER, "a buffer is already attached: size=" +
                    attached.buffer.length);
            }
            attached = new BsendBuffer(buffer);
        }
    }

    /**
     * Java binding of {@code MPI_BUFFER_DETACH}: waits until every buffered message has left the
     * attached buffer, then detaches it and returns it (null when none was attached).
     */
    public static byte[] detachBuffer()
    {
        check();
        final BsendBuffer b = attached;
        if (b == null)
        {
            return null;
        }
        // Once idle it is also marked detached, atomically: a racing bSend cannot slip in after.
        context().progress().awaitUntil(b::detachIfIdle, BlockedCall.BUFFER_DETACH, null);
        synchronized (Lifecycle.LOCK)
        {
            if (attached == b)
            {
                attached = null;
            }
        }
        return b.buffer;
    }

    static BsendBuffer attachedBuffer()
    {
        return attached;
    }

    /**
     * shmpi extension: one duty cycle of this rank's progress engine, which also runs the
     * completion callbacks of finished operations. Useful with detached operations when the
     * program makes no other MPI call for a while.
     *
     * @return the amount of work done (0 when there was nothing to do)
     */
    public static int progress()
    {
        check();
        return context().progress().progress();
    }

    /** Java binding of {@code MPI_INITIALIZED}. */
    public static boolean isInitialized()
    {
        return Lifecycle.isInitialized();
    }

    /** Java binding of {@code MPI_FINALIZED}. */
    public static boolean isFinalized()
    {
        return Lifecycle.isFinalized();
    }

    /** {@code MPI_MAX_ERROR_STRING}, as in Open MPI. */
    public static final int MAX_ERROR_STRING = 256;

    /**
     * + {@code MPI_ADD_ERROR_CLASS}: a new error class, above {@code MPI.ERR_LASTCODE} and every
     * code added before; {@code getAttr(MPI.LASTUSEDCODE)} follows. Local to this process.
     */
    public static int addErrorClass()
    {
        check();
        return ErrorCodes.addClass();
    }

    /** + {@code MPI_ADD_ERROR_CODE}: a new error code of {@code errorClass} (else {@code MPI.ERR_ARG}). */
    public static int addErrorCode(final int errorClass)
    {
        check();
        try
        {
            return ErrorCodes.addCode(errorClass);
        }
        catch (final MPIException ex)
        {
            throw COMM_WORLD.handle(ex);
        }
    }

    /**
     * + {@code MPI_ADD_ERROR_STRING}: the string of an added class or code, at most
     * {@code MAX_ERROR_STRING - 1} characters; predefined ones keep theirs ({@code MPI.ERR_ARG}).
     */
    public static void addErrorString(final int errorCode, final String string)
    {
        check();
        try
        {
            ErrorCodes.setString(errorCode, string);
        }
        catch (final MPIException ex)
        {
            throw COMM_WORLD.handle(ex);
        }
    }

    /**
     * + {@code MPI_ERROR_STRING}: a predefined class's name (e.g. {@code MPI_ERR_RANK}), the
     * string added for an added one (empty if none); not a code is {@code MPI.ERR_ARG}.
     */
    public static String getErrorString(final int errorCode)
    {
        try
        {
            return ErrorCodes.string(errorCode);
        }
        catch (final MPIException ex)
        {
            throw COMM_WORLD.handle(ex);
        }
    }

    /** + {@code MPI_ERROR_CLASS}: the class of an error code (a predefined class is its own). */
    public static int getErrorClass(final int errorCode)
    {
        return ErrorCodes.classOf(errorCode);
    }

    /** Java binding of {@code MPI_GET_VERSION}: {@code MPI.VERSION}.{@code MPI.SUBVERSION}; callable before Init. */
    public static Version getVersion()
    {
        return new Version(VERSION, SUBVERSION);
    }

    /**
     * Java binding of {@code MPI_GET_LIBRARY_VERSION}: names shmpi, its version (from the jar
     * manifest; "development" when run from class directories) and the Java runtime; callable
     * before Init.
     */
    public static String getLibVersion()
    {
        final String v = MPI.class.getPackage().getImplementationVersion();
        return "shmpi " + (v != null ? v : "development") + " (MPI " + VERSION + "." + SUBVERSION + ", Java " +
            Runtime.version() + ")";
    }

    /**
     * Java binding of {@code MPI_PCONTROL}: profiling control, for the job report
     * ({@code shmrun --report}): {@code level} 0 stops recording and 1 resumes it; 1 with a name
     * ({@code obj.toString()}) enters the region of that name and -1 with the name leaves it, and
     * the report shows each region in its own columns. Without the report it has no effect (it
     * still requires an initialized MPI).
     */
    public static void pControl(final int level, final Object obj)
    {
        check();
        Profile.pControl(level, obj);
    }

    /** Java binding of {@code MPI_QUERY_THREAD}: the thread level provided by Init. */
    public static int queryThread()
    {
        return Lifecycle.queryThread();
    }

    /** Java binding of {@code MPI_IS_THREAD_MAIN}: whether the caller is the thread that ran Init. */
    public static boolean isThreadMain()
    {
        return Lifecycle.isThreadMain();
    }

    /**
     * Java binding of {@code MPI_WTIME}: seconds since an arbitrary, fixed point in the past.
     * It reads {@code System.nanoTime()}, which on Linux is the kernel's {@code CLOCK_MONOTONIC}:
     * one clock for every process of the machine, so times read on different ranks compare
     * directly ({@code WTIME_IS_GLOBAL} is true).
     */
    public static double wtime()
    {
        return System.nanoTime() / 1e9;
    }

    /** Java binding of {@code MPI_WTICK}: resolution of {@link #wtime()} in seconds. */
    public static double wtick()
    {
        return 1e-9;
    }

    /** Java binding of {@code MPI_GET_PROCESSOR_NAME}: the host name. */
    public static String getProcessorName()
    {
        check();
        try
        {
            final String name = new String(Files.readAllBytes(Path.of("/proc/sys/kernel/hostname")),
                StandardCharsets.UTF_8).trim();
            if (!name.isEmpty())
            {
                return name;
            }
        }
        catch (final IOException ignore)
        {
            // Fall through to the environment.
        }
        final String env = System.getenv("HOSTNAME");
        return env != null ? env : "localhost";
    }

    /** Buffers at least this large come from the rank's shared-memory heap. */
    static final int SHARED_HEAP_MIN_BYTES = 64 * 1024;

    /**
     * A direct byte buffer in native order. + After {@code Init}, buffers of 64 KiB and more are
     * carved out of the rank's shared-memory heap: a large message sent from one is copied once,
     * by the receiver, straight out of it (instead of twice, through the ring). The memory is
     * released when the buffer (and every view of it) becomes unreachable.
     */
    public static ByteBuffer newByteBuffer(final int capacity)
    {
        if (capacity < 0)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "negative capacity: capacity=" + capacity);
        }
        final RankContext e = context();
        if (capacity >= SHARED_HEAP_MIN_BYTES && e != null && isInitialized() && !isFinalized())
        {
            try
            {
                return e.heap().allocate(capacity);
            }
            catch (final IOException | IllegalArgumentException ex)
            {
                // No room in /dev/shm (Space.NoRoom), or larger than a segment maps: an ordinary
                // direct buffer still works, with two copies.
                return direct(capacity);
            }
        }
        return direct(capacity);
    }

    private static ByteBuffer direct(final int capacity)
    {
        try
        {
            return ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        }
        catch (final OutOfMemoryError ex)
        {
            throw new MPIException(ErrorClass.ERR_NO_MEM, "no memory for a direct buffer of " + capacity + " bytes (" +
                ex.getMessage() + "; -XX:MaxDirectMemorySize sets the limit)");
        }
    }

    /** Bytes of a buffer of {@code capacity} elements of {@code size} bytes; ERR_ARG when negative or too large. */
    private static int bufferBytes(final int capacity, final int size)
    {
        if (capacity < 0 || (long)capacity * size > Integer.MAX_VALUE)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "a buffer of " + capacity + " elements of " + size +
                " bytes: negative, or more than 2 GiB");
        }
        return capacity * size;
    }

    /** A direct char buffer in native order. */
    public static CharBuffer newCharBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 2)).asCharBuffer();
    }

    /** A direct short buffer in native order. */
    public static ShortBuffer newShortBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 2)).asShortBuffer();
    }

    /** A direct int buffer in native order. */
    public static IntBuffer newIntBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 4)).asIntBuffer();
    }

    /** A direct long buffer in native order. */
    public static LongBuffer newLongBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 8)).asLongBuffer();
    }

    /** A direct float buffer in native order. */
    public static FloatBuffer newFloatBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 4)).asFloatBuffer();
    }

    /** A direct double buffer in native order. */
    public static DoubleBuffer newDoubleBuffer(final int capacity)
    {
        return newByteBuffer(bufferBytes(capacity, 8)).asDoubleBuffer();
    }

    // ------------------------------------------------------------------------------------------
    // Slices: a buffer that starts further in, for sending or receiving part of a buffer or array

    /**
     * A view of {@code buf} that starts {@code offset} bytes in and ends at its capacity, in
     * native byte order (as Open MPI's). Sends and receives on it address from its first element.
     * Unlike Open MPI's, the position and limit of {@code buf} are left as they are (and do not
     * bound the view). As in Open MPI, a datatype with a negative lower bound reaches back from
     * the view's first element into {@code buf}; shmpi checks every byte it touches against the
     * whole memory the view is part of (the array, or the direct allocation): {@code MPI.ERR_BUFFER}
     * outside it.
     *
     * @param buf    the buffer (direct or heap)
     * @param offset index of the view's first element in {@code buf}, 0 to its capacity
     * @return the view, sharing {@code buf}'s content
     */
    public static ByteBuffer slice(final ByteBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset).order(ByteOrder.nativeOrder());
    }

    /** A view of {@code buf} that starts {@code offset} chars in (see {@link #slice(ByteBuffer, int)}). */
    public static CharBuffer slice(final CharBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /** A view of {@code buf} that starts {@code offset} shorts in (see {@link #slice(ByteBuffer, int)}). */
    public static ShortBuffer slice(final ShortBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /** A view of {@code buf} that starts {@code offset} ints in (see {@link #slice(ByteBuffer, int)}). */
    public static IntBuffer slice(final IntBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /** A view of {@code buf} that starts {@code offset} longs in (see {@link #slice(ByteBuffer, int)}). */
    public static LongBuffer slice(final LongBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /** A view of {@code buf} that starts {@code offset} floats in (see {@link #slice(ByteBuffer, int)}). */
    public static FloatBuffer slice(final FloatBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /** A view of {@code buf} that starts {@code offset} doubles in (see {@link #slice(ByteBuffer, int)}). */
    public static DoubleBuffer slice(final DoubleBuffer buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.capacity());
        return buf.duplicate().clear().slice(offset, buf.capacity() - offset);
    }

    /**
     * A heap buffer over {@code buf} from element {@code offset} to its end, in native byte
     * order: sends and receives on it address the array from {@code offset}.
     */
    public static ByteBuffer slice(final byte[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return ByteBuffer.wrap(buf, offset, buf.length - offset).slice().order(ByteOrder.nativeOrder());
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static CharBuffer slice(final char[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return CharBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static ShortBuffer slice(final short[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return ShortBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static IntBuffer slice(final int[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return IntBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static LongBuffer slice(final long[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return LongBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static FloatBuffer slice(final float[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return FloatBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    /** A heap buffer over {@code buf} from element {@code offset} to its end. */
    public static DoubleBuffer slice(final double[] buf, final int offset)
    {
        checkSlice(buf, offset, buf == null ? 0 : buf.length);
        return DoubleBuffer.wrap(buf, offset, buf.length - offset).slice();
    }

    private static void checkSlice(final Object buf, final int offset, final int capacity)
    {
        if (buf == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "null buffer to slice: offset=" + offset);
        }
        if (offset < 0 || offset > capacity)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "slice offset out of range: offset=" + offset +
                ", capacity=" + capacity);
        }
    }

    static void check()
    {
        Lifecycle.check();
    }

    static void checkDatatype(final Datatype type)
    {
        if (type == null || type.isNull())
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "invalid datatype: " + type);
        }
    }

    /** This rank's services (null before Init). */
    static RankContext context()
    {
        return Lifecycle.context();
    }

    /** {@code Comm.abort}: record the call in the job file and end this process with the code. */
    static void abortJob(final Comm comm, final int errorcode)
    {
        Lifecycle.abortJob(comm, errorcode);
    }
}
