package org.shmpi.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.agrona.UnsafeApi;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * An MPI file open on a group of processes ({@code MPI_File}): every member maps the file itself
 * ({@link MappedFile}), so a collective access is each member's own loads and stores into the one
 * page cache, with no data sent between members. What the members share are a few words
 * ({@link SharedWords}): the shared file pointer, the atomic-mode lock and the end of the blocks
 * reserved for appends; in a small shared-memory segment when the members share memory
 * ({@link SegmentWords}), else kept by member 0 and reached by messages ({@link ServedWords}),
 * which member 0 serves while it is inside MPI calls.
 *
 * <p>Positions are in etypes of the current view; memory is given as the datatype engine's
 * {@code (base, offset, layout, bytes)}. Errors are {@link ShmpiException}s with the MPI error
 * class, raised before anything is written. Data accesses hold a monitor of the open's
 * ({@link FileAccess}), so threads may share a file handle (MPI_THREAD_MULTIPLE); collective calls
 * must not overlap on one handle.
 *
 * <p>The face the {@code mpi} layer uses: each call checks the file's state and access mode and
 * hands the work to the class of its concern: {@link FileOpenProtocol} (open, close),
 * {@link FilePaths} (the file system), {@link FileAccess} (views, explicit offsets, individual
 * pointers, collective reads and writes), {@link SharedFilePointer} (shared and ordered accesses).
 */
public final class ShmFile implements AutoCloseable
{
    public static final int MODE_CREATE = 1;
    public static final int MODE_RDONLY = 2;
    public static final int MODE_WRONLY = 4;
    public static final int MODE_RDWR = 8;
    public static final int MODE_DELETE_ON_CLOSE = 16;
    public static final int MODE_UNIQUE_OPEN = 32;
    public static final int MODE_EXCL = 64;
    public static final int MODE_APPEND = 128;
    public static final int MODE_SEQUENTIAL = 256;

    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;

    /**
     * {@code MPI_DISPLACEMENT_CURRENT}: a view displacement meaning "the shared pointer's byte"
     * (sequential files).
     */
    public static final long DISPLACEMENT_CURRENT = -54278278;

    /**
     * Hints that change what shmpi does; every other one is kept, reported by {@link #ignoredHints},
     * and has no effect.
     */
    public static final Set<String> HONOURED_HINTS = Set.of("file_perm");

    /** The info key under which a file's info lists the hints it ignores. */
    public static final String IGNORED_KEY = "shmpi_ignored_hints";

    private final FileMembers members;
    private final Path path;
    private final Path realPath;
    private final int amode;
    private final SharedWords words;
    private final MappedFile file;
    private final FileAccess access;
    private final SharedFilePointer sharedPointer;
    private final Map<String, String> hints;
    private boolean closed;

    ShmFile(final FileMembers members, final Path path, final Path realPath, final int amode, final SharedWords words,
        final MappedFile file, final Map<String, String> hints)
    {
        this.members = members;
        this.path = path;
        this.realPath = realPath;
        this.amode = amode;
        this.words = words;
        this.file = file;
        this.access = new FileAccess(members, path, file, words);
        this.sharedPointer = new SharedFilePointer(members, words, file, access);
        this.hints = hints;
    }

    // ------------------------------------------------------------------------------------------
    // Open, close, delete

    /**
     * {@code MPI_File_open}, collective over {@code members}: every member opens {@code name} with
     * {@code amode}; if it fails anywhere it fails everywhere, with the class of the lowest member
     * that failed. {@code hints}: the info's keys (copied; unknown keys are kept and ignored).
     */
    public static ShmFile open(final RankContext ctx, final FileMembers members, final String name,
        final int amode, final Map<String, String> hints)
    {
        return FileOpenProtocol.open(ctx, members, name, amode, hints);
    }

    /** At an open with {@code MODE_APPEND}, collective: both pointers start at the end of the file. */
    void startAtEnd()
    {
        final long end = access.size();
        access.position(end);
        sharedPointer.startAt(end);
    }

    /** {@code MPI_File_delete}: refuses a file this process has open (ERR_FILE_IN_USE). */
    public static void delete(final String name)
    {
        FilePaths.delete(name);
    }

    /** {@code MPI_File_close}, collective: waits for every member, unmaps; member 0 removes what it made. */
    @Override
    public void close()
    {
        checkOpen();
        members.barrier();
        closed = true;
        FileOpenProtocol.close(members, path, realPath, amode, words, file);
    }

    /** The keys of {@code hints} that have no effect here, comma-separated (empty: none). */
    public static String ignoredHints(final Map<String, String> hints)
    {
        final StringBuilder b = new StringBuilder();
        for (final String k : new TreeSet<>(hints.keySet()))
        {
            if (!HONOURED_HINTS.contains(k) && !k.equals(IGNORED_KEY))
            {
                b.append(b.length() == 0 ? "" : ",").append(k);
            }
        }
        return b.toString();
    }

    // ------------------------------------------------------------------------------------------
    // What the file is

    public int amode()
    {
        return amode;
    }

    public Map<String, String> hints()
    {
        return hints;
    }

    /** {@code MPI_File_get_size}: bytes. */
    public long fileSize()
    {
        checkOpen();
        return access.size();
    }

    /** {@code MPI_File_set_size}, collective: every member passes the same size. */
    public void setSize(final long size)
    {
        checkOpen();
        checkWritable("setSize");
        if (size < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative file size: " + size);
        }
        final long[] all = members.allgather(new long[] {size});
        for (final long s : all)
        {
            if (s != size)
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "setSize: the members pass different sizes");
            }
        }
        // Nobody may still touch the part that goes away: drop it everywhere, then cut once.
        file.dropFrom(size);
        members.barrier();
        ShmpiException failure = null;
        if (members.rank() == 0)
        {
            try
            {
                file.setSize(size);
                sharedPointer.forgetReserved();
            }
            catch (final IOException ex)
            {
                failure = FileErrors.ioError(ex, "setSize(" + size + ")");
            }
        }
        final long[] result = members.allgather(new long[] {failure == null ? 0 : failure.errorClass()});
        if (result[0] != 0)
        {
            throw failure != null ? failure : new ShmpiException((int)result[0], "setSize failed on member 0");
        }
        access.size();
    }

    /**
     * {@code MPI_File_preallocate}, collective: blocks for the first {@code size} bytes; the file
     * grows to at least that.
     */
    public void preallocate(final long size)
    {
        checkOpen();
        checkWritable("preallocate");
        if (size < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative size: " + size);
        }
        if ((amode & MODE_SEQUENTIAL) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "preallocate on a MODE_SEQUENTIAL file");
        }
        ShmpiException failure = null;
        if (members.rank() == 0)
        {
            try
            {
                file.reserve(0, size);
            }
            catch (final ShmpiException ex)
            {
                failure = ex;
            }
            catch (final IOException ex)
            {
                failure = FileErrors.ioError(ex, "preallocate(" + size + ")");
            }
        }
        final long[] result = members.allgather(new long[] {failure == null ? 0 : failure.errorClass()});
        if (result[0] != 0)
        {
            throw failure != null ? failure : new ShmpiException((int)result[0], "preallocate failed on member 0");
        }
        access.size();
    }

    // ------------------------------------------------------------------------------------------
    // Views

    /**
     * {@code MPI_File_set_view}, collective: the view starts {@code disp} bytes into the file
     * ({@link #DISPLACEMENT_CURRENT}: at the shared pointer, sequential files), data in
     * {@code etype}s laid out by {@code filetype}; resets both file pointers to 0.
     */
    public void setView(final long disp, final TypeMap etype, final TypeMap filetype, final String datarep)
    {
        checkOpen();
        final String rep = datarep == null ? "" : datarep;
        if (!rep.equals("native") && !rep.equals("internal") && !rep.equals("external32"))
        {
            throw new ShmpiException(ErrorClass.ERR_UNSUPPORTED_DATAREP, "data representation \"" + rep +
                "\" is not one of native, internal, external32");
        }
        long d = disp;
        if (disp == DISPLACEMENT_CURRENT)
        {
            if ((amode & MODE_SEQUENTIAL) == 0)
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "MPI_DISPLACEMENT_CURRENT is for MODE_SEQUENTIAL files");
            }
            d = sharedPointer.fileByte();
        }
        final FileViewMap next = new FileViewMap(d, etype, filetype, rep);
        final long[] all = members.allgather(new long[] {etype.size(), rep.hashCode()});
        for (int r = 0; r < all.length / 2; r++)
        {
            if (all[2 * r] != etype.size() || all[2 * r + 1] != rep.hashCode())
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "setView: the members pass different etypes or data " +
                    "representations (member " + r + ")");
            }
        }
        access.useView(next);
        sharedPointer.moveTo(0);
    }

    public long viewDisp()
    {
        return access.view().disp;
    }

    /** {@code MPI_File_get_byte_offset}: the file byte of {@code offset} etypes into the view. */
    public long byteOffset(final long offset)
    {
        checkOpen();
        return access.byteOffset(offset);
    }

    /** {@code MPI_File_get_type_extent}: the extent of {@code type} in the file's data representation. */
    public long typeExtent(final TypeMap type)
    {
        checkOpen();
        return type.extent();
    }

    /** Whether the view's data representation is external32. */
    public boolean external32()
    {
        return access.external32();
    }

    /** Checks that data of {@code signature} has an external32 form here ({@code ERR_CONVERSION} if not). */
    public static void checkExternal32(final long[][] signature)
    {
        External32Order.check(signature);
    }

    // ------------------------------------------------------------------------------------------
    // Data access: explicit offsets and the individual file pointer

    /** {@code MPI_File_read_at} (and {@code _all}: the same on each member): bytes read. */
    public long readAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        checkExplicit("readAt");
        checkReadable();
        return access.readAt(offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_at} (and {@code _all}): bytes written. */
    public long writeAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        checkExplicit("writeAt");
        checkWritable("writeAt");
        return access.writeAt(offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_read} at the individual pointer, which moves past what was read. */
    public long read(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkExplicit("read");
        checkReadable();
        return access.read(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write} at the individual pointer, which moves past what was written. */
    public long write(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkExplicit("write");
        checkWritable("write");
        return access.write(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_seek}: {@code whence} one of {@link #SEEK_SET}, {@link #SEEK_CUR}, {@link #SEEK_END}. */
    public void seek(final long offset, final int whence)
    {
        checkOpen();
        if ((amode & MODE_SEQUENTIAL) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "seek on a MODE_SEQUENTIAL file");
        }
        access.seek(offset, whence);
    }

    /** {@code MPI_File_get_position}: the individual pointer, in etypes. */
    public long position()
    {
        checkOpen();
        return access.position();
    }

    // ------------------------------------------------------------------------------------------
    // Data access: the shared file pointer

    /** {@code MPI_File_read_shared}: at the shared pointer, moved atomically past what this member takes. */
    public long readShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkReadable();
        return sharedPointer.readShared(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_shared}. */
    public long writeShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkWritable("writeShared");
        return sharedPointer.writeShared(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_read_ordered}, collective: member after member from the shared pointer. */
    public long readOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkReadable();
        return sharedPointer.readOrdered(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_ordered}, collective. */
    public long writeOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkWritable("writeOrdered");
        return sharedPointer.writeOrdered(base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_seek_shared}, collective: every member passes the same offset and whence. */
    public void seekShared(final long offset, final int whence)
    {
        checkOpen();
        sharedPointer.seek(offset, whence);
    }

    /** {@code MPI_File_get_position_shared}: the shared pointer, in etypes. */
    public long positionShared()
    {
        checkOpen();
        return sharedPointer.position();
    }

    // ------------------------------------------------------------------------------------------
    // Consistency

    /**
     * {@code MPI_File_set_atomicity}, collective: in atomic mode each access holds the file's
     * lock word, so overlapping accesses from different members happen one after the other.
     */
    public void setAtomicity(final boolean on)
    {
        checkOpen();
        final long[] all = members.allgather(new long[] {on ? 1 : 0});
        for (final long a : all)
        {
            if (a != (on ? 1 : 0))
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "setAtomicity: the members pass different flags");
            }
        }
        access.atomic(on);
    }

    public boolean atomicity()
    {
        checkOpen();
        return access.atomic();
    }

    /** {@code MPI_File_sync}, collective: this member's writes reach the device (msync, then fsync). */
    public void sync()
    {
        checkOpen();
        if ((amode & MODE_RDONLY) == 0)
        {
            try
            {
                file.sync();
            }
            catch (final IOException ex)
            {
                throw FileErrors.ioError(ex, "sync");
            }
        }
        UnsafeApi.fullFence();
        members.barrier();
    }

    // ------------------------------------------------------------------------------------------
    // Checks

    private void checkOpen()
    {
        if (closed)
        {
            throw new ShmpiException(ErrorClass.ERR_FILE, "the file is closed");
        }
    }

    private void checkExplicit(final String call)
    {
        checkOpen();
        if ((amode & MODE_SEQUENTIAL) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_UNSUPPORTED_OPERATION, call + " on a MODE_SEQUENTIAL file (only " +
                "the shared file pointer may be used)");
        }
    }

    private void checkReadable()
    {
        if ((amode & MODE_WRONLY) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ACCESS, "read from a file opened MODE_WRONLY");
        }
    }

    private void checkWritable(final String call)
    {
        if ((amode & MODE_RDONLY) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_READ_ONLY, call + " on a file opened MODE_RDONLY");
        }
    }
}
