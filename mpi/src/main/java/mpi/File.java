package mpi;

import java.nio.Buffer;
import java.util.LinkedHashMap;
import java.util.Map;

import org.shmpi.io.ShmFile;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.DataLayout;

/**
 * {@code MPI_File}: a file opened by the processes of a communicator, each of which maps it
 * ({@code org.shmpi.io.ShmFile}). Offsets count etypes of the current view; buffers are arrays
 * or {@code java.nio} buffers (direct ones for the nonblocking calls, as in Open MPI). Errors go
 * to the file's error handler, {@code MPI.ERRORS_RETURN} unless changed: a file opened later
 * takes the handler set on {@link MPI#FILE_NULL}, which also handles failed opens and deletes.
 * Nonblocking and split-collective calls do their transfer when they start; their requests and
 * end calls return its status. The communicator's ranks may run on several nodes, the file on a
 * file system they all see: its shared file pointer and atomic-mode lock are then kept by rank 0
 * and reached by messages, which rank 0 answers while it is inside MPI calls.
 */
public final class File
{
    /**
     * The handler of {@code MPI.FILE_NULL}: for opens, deletes, and files opened from now on (null:
     * {@code MPI.ERRORS_RETURN}, which does not exist yet while {@code MPI} makes {@code FILE_NULL}).
     */
    private static volatile Errhandler nullHandlerSet;

    private final ShmFile file;
    /** The name the job report gives this file (its path as opened). */
    String reportName = "";
    private final Intracomm comm;
    private Errhandler errhandler;
    private FileView view;
    private Status splitStatus;
    private String splitCall;

    /** {@code MPI.FILE_NULL}. */
    private File()
    {
        this.file = null;
        this.comm = null;
    }

    private static Errhandler nullHandler()
    {
        final Errhandler h = nullHandlerSet;
        return h == null ? MPI.ERRORS_RETURN : h;
    }

    static File nullFile()
    {
        return new File();
    }

    /** Java binding of {@code MPI_FILE_OPEN} with no hints. */
    public File(final Comm comm, final String filename, final int amode)
    {
        this(comm, filename, amode, MPI.INFO_NULL);
    }

    /**
     * Java binding of {@code MPI_FILE_OPEN}, collective over {@code comm}: fails on every process
     * alike when it fails on any (the class of the lowest rank that failed).
     */
    public File(final Comm comm, final String filename, final int amode, final Info info)
    {
        MPI.check();
        final Recorder r = Profile.begin(Calls.FILE_OPEN);
        reportName = String.valueOf(filename);
        if (comm == null || comm.isNull())
        {
            throw raise(nullHandler(), MPI.COMM_WORLD, new MPIException(ErrorClass.ERR_COMM,
                "open: invalid communicator"));
        }
        if (comm.isInter())
        {
            throw raise(nullHandler(), comm, new MPIException(ErrorClass.ERR_COMM,
                "files are opened on intra-communicators"));
        }
        final Intracomm dup = CommConstruction.duplicate(comm, new Intracomm(""));
        dup.setName("file " + filename + " on " + comm.getName());
        dup.setErrhandler(MPI.ERRORS_RETURN);
        try
        {
            this.file = ShmFile.open(MPI.context(), new CommMembers(dup), filename, amode, hints(info));
        }
        catch (final RuntimeException ex)
        {
            CommConstruction.free(dup);
            throw raise(nullHandler(), comm, ex);
        }
        this.comm = dup;
        this.errhandler = nullHandler();
        this.view = new FileView(0, MPI.BYTE, MPI.BYTE, "native");
        Profile.endFile(r, Calls.FILE_OPEN, this);
    }

    private static Map<String, String> hints(final Info info)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        if (info != null && !info.isNull())
        {
            for (int i = 0; i < info.size(); i++)
            {
                final String key = info.getKey(i);
                m.put(key, info.get(key));
            }
        }
        return m;
    }

    /** An error of a call on this file (or of {@code MPI.FILE_NULL}), through {@code handler}. */
    private static MPIException raise(final Errhandler handler, final Comm on, final RuntimeException ex)
    {
        final MPIException error = CommErrors.asMpiException(ex);
        CommErrors.apply(handler, on, error);
        return error;
    }

    private MPIException handle(final RuntimeException ex)
    {
        return raise(file == null ? nullHandler() : errhandler, comm == null ? MPI.COMM_WORLD : comm, ex);
    }

    private ShmFile live()
    {
        MPI.check();
        if (file == null)
        {
            throw handle(new MPIException(ErrorClass.ERR_FILE, "MPI.FILE_NULL is not an open file"));
        }
        return file;
    }

    /** Java binding of {@code MPI_FILE_CLOSE}, collective. */
    public void close()
    {
        final Recorder r = Profile.begin(Calls.FILE_CLOSE);
        close0();
        Profile.endFile(r, Calls.FILE_CLOSE, this);
    }

    private void close0()
    {
        final ShmFile f = live();
        try
        {
            f.close();
            CommConstruction.free(comm);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_FILE_DELETE}. */
    public static void delete(final String filename)
    {
        delete(filename, MPI.INFO_NULL);
    }

    /** Java binding of {@code MPI_FILE_DELETE}: {@code MPI.ERR_FILE_IN_USE} while this process has it open. */
    public static void delete(final String filename, final Info info)
    {
        MPI.check();
        try
        {
            ShmFile.delete(filename);
        }
        catch (final RuntimeException ex)
        {
            throw raise(nullHandler(), MPI.COMM_WORLD, ex);
        }
    }

    /** Runs {@code op} on the open file, its failures through this file's error handler. */
    private <T> T call(final java.util.function.Function<ShmFile, T> op)
    {
        final ShmFile f = live();
        try
        {
            return op.apply(f);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private void run(final java.util.function.Consumer<ShmFile> op)
    {
        call(f ->
        {
            op.accept(f);
            return null;
        });
    }

    /** Java binding of {@code MPI_FILE_SET_SIZE}, collective. */
    public void setSize(final long size)
    {
        final Recorder r = Profile.begin(Calls.FILE_SET_SIZE);
        setSize0(size);
        Profile.endFile(r, Calls.FILE_SET_SIZE, this);
    }

    private void setSize0(final long size)
    {
        run(f -> f.setSize(size));
    }

    /** Java binding of {@code MPI_FILE_PREALLOCATE}, collective: disk blocks for the first {@code size} bytes. */
    public void preallocate(final long size)
    {
        final Recorder r = Profile.begin(Calls.FILE_PREALLOCATE);
        preallocate0(size);
        Profile.endFile(r, Calls.FILE_PREALLOCATE, this);
    }

    private void preallocate0(final long size)
    {
        run(f -> f.preallocate(size));
    }

    /** Java binding of {@code MPI_FILE_GET_SIZE}: bytes. */
    public long getSize()
    {
        return call(ShmFile::fileSize);
    }

    /** Java binding of {@code MPI_FILE_GET_GROUP}. */
    public Group getGroup()
    {
        live();
        return comm.getGroup();
    }

    /** Java binding of {@code MPI_FILE_GET_AMODE}. */
    public int getAMode()
    {
        return call(ShmFile::amode);
    }

    /**
     * Java binding of {@code MPI_FILE_SET_INFO}: hints are kept and returned by {@link #getInfo};
     * {@code file_perm} (at open) is honoured, and {@link #getInfo} lists the others, which have
     * no effect here, under {@code shmpi_ignored_hints} (docs/io.md says why).
     */
    public void setInfo(final Info info)
    {
        run(f -> f.hints().putAll(hints(info)));
    }

    /** Java binding of {@code MPI_FILE_GET_INFO}: the hints in use (a new info object). */
    public Info getInfo()
    {
        return call(f ->
        {
            final Info i = new Info();
            for (final Map.Entry<String, String> e : f.hints().entrySet())
            {
                i.set(e.getKey(), e.getValue());
            }
            final String ignored = ShmFile.ignoredHints(f.hints());
            if (!ignored.isEmpty())
            {
                i.set(ShmFile.IGNORED_KEY, ignored);
            }
            return i;
        });
    }

    /** Java binding of {@code MPI_FILE_SET_VIEW} with no hints. */
    public void setView(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
    {
        final Recorder r = Profile.begin(Calls.FILE_SET_VIEW);
        setView0(disp, etype, filetype, datarep);
        Profile.endFile(r, Calls.FILE_SET_VIEW, this);
    }

    private void setView0(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
    {
        setView0(disp, etype, filetype, datarep, MPI.INFO_NULL);
    }

    /**
     * Java binding of {@code MPI_FILE_SET_VIEW}, collective: {@code disp} in bytes; data
     * representations {@code "native"}, {@code "internal"} (the same here) and
     * {@code "external32"} (big-endian); both file pointers go back to 0.
     */
    public void setView(final long disp, final Datatype etype, final Datatype filetype, final String datarep,
        final Info info)
    {
        final Recorder r = Profile.begin(Calls.FILE_SET_VIEW);
        setView0(disp, etype, filetype, datarep, info);
        Profile.endFile(r, Calls.FILE_SET_VIEW, this);
    }

    private void setView0(final long disp, final Datatype etype, final Datatype filetype, final String datarep,
        final Info info)
    {
        run(f ->
        {
            checkType(etype, "etype");
            checkType(filetype, "filetype");
            f.setView(disp, etype.map, filetype.map, datarep);
            if (info != null && !info.isNull())
            {
                f.hints().putAll(hints(info));
            }
            view = new FileView(f.viewDisp(), etype, filetype, datarep);
        });
    }

    private static void checkType(final Datatype type, final String what)
    {
        MPI.checkDatatype(type);
        if (!type.usable() || type.map == null)
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "the " + what + " is not a committed datatype with data");
        }
    }

    /** Java binding of {@code MPI_FILE_GET_VIEW}. */
    public FileView getView()
    {
        live();
        return view;
    }

    /**
     * Java binding of {@code MPI_FILE_GET_TYPE_EXTENT}: in elements of the type's base, as {@link Datatype#getExtent}.
     */
    public int getTypeExtent(final Datatype type)
    {
        return call(f ->
        {
            checkType(type, "datatype");
            return (int)(f.typeExtent(type.map) / type.baseSize);
        });
    }

    /** Java binding of {@code MPI_FILE_GET_BYTE_OFFSET}. */
    public long getByteOffset(final long offset)
    {
        return call(f -> f.byteOffset(offset));
    }

    // ------------------------------------------------------------------------------------------
    // Data access

    /**
     * Which file pointer an access uses, and the call on {@link ShmFile} it becomes: one small
     * method per kind, so that a program compiles only the kinds it calls.
     */
    private enum Access
    {
        AT
        {
            @Override
            long move(final ShmFile f, final boolean write, final long offset, final Object base, final long off,
                final DataLayout layout, final long bytes, final long[][] kinds)
            {
                return write ? f.writeAt(offset, base, off, layout, bytes, kinds) :
                    f.readAt(offset, base, off, layout, bytes, kinds);
            }
        },
        INDIVIDUAL
        {
            @Override
            long move(final ShmFile f, final boolean write, final long offset, final Object base, final long off,
                final DataLayout layout, final long bytes, final long[][] kinds)
            {
                return write ? f.write(base, off, layout, bytes, kinds) : f.read(base, off, layout, bytes, kinds);
            }
        },
        SHARED
        {
            @Override
            long move(final ShmFile f, final boolean write, final long offset, final Object base, final long off,
                final DataLayout layout, final long bytes, final long[][] kinds)
            {
                return write ? f.writeShared(base, off, layout, bytes, kinds) :
                    f.readShared(base, off, layout, bytes, kinds);
            }
        },
        ORDERED
        {
            @Override
            long move(final ShmFile f, final boolean write, final long offset, final Object base, final long off,
                final DataLayout layout, final long bytes, final long[][] kinds)
            {
                return write ? f.writeOrdered(base, off, layout, bytes, kinds) :
                    f.readOrdered(base, off, layout, bytes, kinds);
            }
        };

        /** @return the bytes moved ({@code offset} only for {@link #AT}) */
        abstract long move(ShmFile f, boolean write, long offset, Object base, long off, DataLayout layout,
            long bytes, long[][] kinds);
    }

    /**
     * A read or write of {@code count} items of {@code type} in {@code buf}. Written without
     * lambdas: file calls are few and large, so they run in the interpreter for a long time, and
     * each first lambda costs milliseconds to link.
     */
    private Status transfer(final boolean write, final Access access, final long offset, final Object buf,
        final int count, final Datatype type)
    {
        final ShmFile f = live();
        try
        {
            final long bytes = Buffers.bytes(buf, count, type);
            final Object base = Buffers.base(buf);
            final long off = Buffers.offset(buf);
            final long[][] kinds = type.map != null && f.external32() ? external32Kinds(type) : null;
            final long moved = access.move(f, write, offset, base, off, type.layout(), bytes, kinds);
            return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, moved);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** The type's signature for the external32 conversion, when the view's data representation is that. */
    private static long[][] external32Kinds(final Datatype type)
    {
        final long[][] kinds = type.map.signature();
        ShmFile.checkExternal32(kinds);
        return kinds;
    }

    private Request started(final Status status)
    {
        return Request.completed(comm, status);
    }

    private static Buffer direct(final Buffer buf)
    {
        if (buf != null && !buf.isDirect())
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "nonblocking file calls take direct buffers");
        }
        return buf;
    }

    /** Java binding of {@code MPI_FILE_READ_AT}: {@code offset} etypes into the view. */
    public Status readAt(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_AT);
        final Status result = transfer(false, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_AT, this, 0, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ_AT_ALL}, collective. */
    public Status readAtAll(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_AT_ALL);
        final Status result = transfer(false, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_AT_ALL, this, 2, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_AT}. */
    public Status writeAt(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_AT);
        final Status result = transfer(true, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_AT, this, 1, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_AT_ALL}, collective. */
    public Status writeAtAll(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_AT_ALL);
        final Status result = transfer(true, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_AT_ALL, this, 3, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IREAD_AT}. */
    public Request iReadAt(final long offset, final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_READ_AT);
        final Request result = started(transfer(false, Access.AT, offset, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_READ_AT, this, 0, count, type, true);
        return result;
    }

    /** + {@code MPI_FILE_IREAD_AT_ALL}. */
    public Request iReadAtAll(final long offset, final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_READ_AT_ALL);
        final Request result = started(transfer(false, Access.AT, offset, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_READ_AT_ALL, this, 2, count, type, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IWRITE_AT}. */
    public Request iWriteAt(final long offset, final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_WRITE_AT);
        final Request result = started(transfer(true, Access.AT, offset, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_WRITE_AT, this, 1, count, type, false);
        return result;
    }

    /** + {@code MPI_FILE_IWRITE_AT_ALL}. */
    public Request iWriteAtAll(final long offset, final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_WRITE_AT_ALL);
        final Request result = started(transfer(true, Access.AT, offset, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_WRITE_AT_ALL, this, 3, count, type, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ}: at the individual file pointer. */
    public Status read(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ);
        final Status result = transfer(false, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ, this, 0, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ_ALL}, collective. */
    public Status readAll(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ALL);
        final Status result = transfer(false, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_ALL, this, 2, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE}. */
    public Status write(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE);
        final Status result = transfer(true, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE, this, 1, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_ALL}, collective. */
    public Status writeAll(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ALL);
        final Status result = transfer(true, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_ALL, this, 3, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IREAD}. */
    public Request iRead(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_READ);
        final Request result = started(transfer(false, Access.INDIVIDUAL, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_READ, this, 0, count, type, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IREAD_ALL}. */
    public Request iReadAll(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_READ_ALL);
        final Request result = started(transfer(false, Access.INDIVIDUAL, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_READ_ALL, this, 2, count, type, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IWRITE}. */
    public Request iWrite(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_WRITE);
        final Request result = started(transfer(true, Access.INDIVIDUAL, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_WRITE, this, 1, count, type, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IWRITE_ALL}. */
    public Request iWriteAll(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_WRITE_ALL);
        final Request result = started(transfer(true, Access.INDIVIDUAL, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_WRITE_ALL, this, 3, count, type, false);
        return result;
    }

    /**
     * Java binding of {@code MPI_FILE_SEEK}: {@code whence} {@code MPI.SEEK_SET}, {@code SEEK_CUR} or {@code SEEK_END}.
     */
    public void seek(final long offset, final int whence)
    {
        final Recorder r = Profile.begin(Calls.FILE_SEEK);
        seek0(offset, whence);
        Profile.endFile(r, Calls.FILE_SEEK, this);
    }

    private void seek0(final long offset, final int whence)
    {
        run(f -> f.seek(offset, whence));
    }

    /** Java binding of {@code MPI_FILE_GET_POSITION}: the individual pointer, in etypes. */
    public long getPosition()
    {
        return call(ShmFile::position);
    }

    /** Java binding of {@code MPI_FILE_READ_SHARED}: at the shared file pointer. */
    public Status readShared(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_SHARED);
        final Status result = transfer(false, Access.SHARED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_SHARED, this, 4, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_SHARED}. */
    public Status writeShared(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_SHARED);
        final Status result = transfer(true, Access.SHARED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_SHARED, this, 5, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IREAD_SHARED}. */
    public Request iReadShared(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_READ_SHARED);
        final Request result = started(transfer(false, Access.SHARED, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_READ_SHARED, this, 4, count, type, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_IWRITE_SHARED}. */
    public Request iWriteShared(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_I_WRITE_SHARED);
        final Request result = started(transfer(true, Access.SHARED, 0, direct(buf), count, type));
        Profile.endFileData(r, Calls.FILE_I_WRITE_SHARED, this, 5, count, type, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ_ORDERED}, collective: rank after rank from the shared pointer. */
    public Status readOrdered(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ORDERED);
        final Status result = transfer(false, Access.ORDERED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_ORDERED, this, 4, result, true);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_ORDERED}, collective. */
    public Status writeOrdered(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ORDERED);
        final Status result = transfer(true, Access.ORDERED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_ORDERED, this, 5, result, false);
        return result;
    }

    /** Java binding of {@code MPI_FILE_SEEK_SHARED}, collective. */
    public void seekShared(final long offset, final int whence)
    {
        final Recorder r = Profile.begin(Calls.FILE_SEEK_SHARED);
        seekShared0(offset, whence);
        Profile.endFile(r, Calls.FILE_SEEK_SHARED, this);
    }

    private void seekShared0(final long offset, final int whence)
    {
        run(f -> f.seekShared(offset, whence));
    }

    /** Java binding of {@code MPI_FILE_GET_POSITION_SHARED}. */
    public long getPositionShared()
    {
        return call(ShmFile::positionShared);
    }

    // ------------------------------------------------------------------------------------------
    // Split collectives: the transfer happens at the begin call, the end call returns its status.

    private void begin(final String call, final boolean write, final Access access, final long offset,
        final Object buf, final int count, final Datatype type)
    {
        live();
        if (splitCall != null)
        {
            throw handle(new MPIException(ErrorClass.ERR_IO, call + " while " + splitCall +
                " is not ended: one split collective at a time per file"));
        }
        final Status s = transfer(write, access, offset, buf, count, type);
        splitStatus = s;
        splitCall = call;
    }

    private Status end(final String call, final String begun)
    {
        live();
        if (!begun.equals(splitCall))
        {
            throw handle(new MPIException(ErrorClass.ERR_IO, call + " without " + begun + (splitCall == null ? "" :
                " (" + splitCall + " is the one open)")));
        }
        final Status s = splitStatus;
        splitStatus = null;
        splitCall = null;
        return s;
    }

    /** Java binding of {@code MPI_FILE_READ_AT_ALL_BEGIN}. */
    public void readAtAllBegin(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_AT_ALL_BEGIN);
        begin("readAtAllBegin", false, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_AT_ALL_BEGIN, this, 2, count, type, true);
    }

    /** Java binding of {@code MPI_FILE_READ_AT_ALL_END}. */
    public Status readAtAllEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_AT_ALL_END);
        final Status result = end("readAtAllEnd", "readAtAllBegin");
        Profile.endFile(r, Calls.FILE_READ_AT_ALL_END, this);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_AT_ALL_BEGIN}. */
    public void writeAtAllBegin(final long offset, final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_AT_ALL_BEGIN);
        begin("writeAtAllBegin", true, Access.AT, offset, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_AT_ALL_BEGIN, this, 3, count, type, false);
    }

    /** Java binding of {@code MPI_FILE_WRITE_AT_ALL_END}. */
    public Status writeAtAllEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_AT_ALL_END);
        final Status result = end("writeAtAllEnd", "writeAtAllBegin");
        Profile.endFile(r, Calls.FILE_WRITE_AT_ALL_END, this);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ_ALL_BEGIN}. */
    public void readAllBegin(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ALL_BEGIN);
        begin("readAllBegin", false, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_ALL_BEGIN, this, 2, count, type, true);
    }

    /** Java binding of {@code MPI_FILE_READ_ALL_END}. */
    public Status readAllEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ALL_END);
        final Status result = end("readAllEnd", "readAllBegin");
        Profile.endFile(r, Calls.FILE_READ_ALL_END, this);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_ALL_BEGIN}. */
    public void writeAllBegin(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ALL_BEGIN);
        begin("writeAllBegin", true, Access.INDIVIDUAL, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_ALL_BEGIN, this, 3, count, type, false);
    }

    /** Java binding of {@code MPI_FILE_WRITE_ALL_END}. */
    public Status writeAllEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ALL_END);
        final Status result = end("writeAllEnd", "writeAllBegin");
        Profile.endFile(r, Calls.FILE_WRITE_ALL_END, this);
        return result;
    }

    /** Java binding of {@code MPI_FILE_READ_ORDERED_BEGIN}. */
    public void readOrderedBegin(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ORDERED_BEGIN);
        begin("readOrderedBegin", false, Access.ORDERED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_READ_ORDERED_BEGIN, this, 4, count, type, true);
    }

    /** Java binding of {@code MPI_FILE_READ_ORDERED_END}. */
    public Status readOrderedEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_READ_ORDERED_END);
        final Status result = end("readOrderedEnd", "readOrderedBegin");
        Profile.endFile(r, Calls.FILE_READ_ORDERED_END, this);
        return result;
    }

    /** Java binding of {@code MPI_FILE_WRITE_ORDERED_BEGIN}. */
    public void writeOrderedBegin(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ORDERED_BEGIN);
        begin("writeOrderedBegin", true, Access.ORDERED, 0, buf, count, type);
        Profile.endFileData(r, Calls.FILE_WRITE_ORDERED_BEGIN, this, 5, count, type, false);
    }

    /** Java binding of {@code MPI_FILE_WRITE_ORDERED_END}. */
    public Status writeOrderedEnd(final Object buf)
    {
        final Recorder r = Profile.begin(Calls.FILE_WRITE_ORDERED_END);
        final Status result = end("writeOrderedEnd", "writeOrderedBegin");
        Profile.endFile(r, Calls.FILE_WRITE_ORDERED_END, this);
        return result;
    }

    // ------------------------------------------------------------------------------------------
    // Consistency and errors

    /** Java binding of {@code MPI_FILE_SET_ATOMICITY}, collective. */
    public void setAtomicity(final boolean atomicity)
    {
        run(f -> f.setAtomicity(atomicity));
    }

    /** Java binding of {@code MPI_FILE_GET_ATOMICITY}. */
    public boolean getAtomicity()
    {
        return call(ShmFile::atomicity);
    }

    /** Java binding of {@code MPI_FILE_SYNC}, collective: this process's writes reach the device. */
    public void sync()
    {
        final Recorder r = Profile.begin(Calls.FILE_SYNC);
        sync0();
        Profile.endFile(r, Calls.FILE_SYNC, this);
    }

    private void sync0()
    {
        run(ShmFile::sync);
    }

    /**
     * Java binding of {@code MPI_FILE_SET_ERRHANDLER}; on {@code MPI.FILE_NULL} it sets the
     * handler of opens, deletes and files opened from now on.
     */
    public void setErrhandler(final Errhandler handler)
    {
        MPI.check();
        if (handler == null || handler.winFunction != null)
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "setErrhandler: not a file error handler"));
        }
        if (file == null)
        {
            nullHandlerSet = handler;
        }
        else
        {
            errhandler = handler;
        }
    }

    /** Java binding of {@code MPI_FILE_GET_ERRHANDLER}. */
    public Errhandler getErrhandler()
    {
        MPI.check();
        return file == null ? nullHandler() : errhandler;
    }

    /**
     * Java binding of {@code MPI_FILE_CALL_ERRHANDLER}: runs this file's handler (on
     * {@code MPI.FILE_NULL}, the handler of opens) on {@code errorCode}, as
     * {@link Comm#callErrhandler} does: aborts the job under {@code ERRORS_ARE_FATAL}, calls a
     * user handler with the file's communicator, and returns under {@code ERRORS_RETURN}.
     */
    public void callErrhandler(final int errorCode)
    {
        MPI.check();
        final MPIException error = CommErrors.applicationError(errorCode);
        CommErrors.apply(file == null ? nullHandler() : errhandler, comm == null ? MPI.COMM_WORLD : comm, error);
    }
}
