package org.shmpi.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.PointToPointEngine;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * An MPI file open on a group of processes ({@code MPI_File}): every member maps the file itself
 * ({@link MappedFile}), so a collective access is each member's own loads and stores into the one
 * page cache, with no data sent between members. What the members share lives in a small
 * segment ({@link FileStateDescriptor}): the shared file pointer and the atomic-mode lock.
 *
 * <p>Positions are in etypes of the current view; memory is given as the datatype engine's
 * {@code (base, offset, layout, bytes)}. Errors are {@link ShmpiException}s with the MPI error
 * class, raised before anything is written. Data accesses hold the file's monitor, so threads may
 * share a file handle (MPI_THREAD_MULTIPLE); collective calls must not overlap on one handle.
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
    private static final int ALL_MODES = 511;

    public static final int SEEK_SET = 600;
    public static final int SEEK_CUR = 602;
    public static final int SEEK_END = 604;

    /** {@code MPI_DISPLACEMENT_CURRENT}: a view displacement meaning "the shared pointer's byte" (sequential files). */
    public static final long DISPLACEMENT_CURRENT = -54278278;

    /**
     * Bytes of each mapped window of a file: {@code shmpi.io.chunk} (or {@code SHMPI_IO_CHUNK}),
     * a power of two from 4 KiB to 1 GiB, 64 MiB by default.
     */
    public static long chunkBytes()
    {
        return setting("shmpi.io.chunk", 64L << 20, 4096, 1L << 30, true);
    }

    /** Windows mapped at once per file: {@code shmpi.io.mapped} (or {@code SHMPI_IO_MAPPED}), 2 or more, 64 by default. */
    public static int maxMapped()
    {
        return (int)setting("shmpi.io.mapped", 64, 2, 1 << 20, false);
    }

    /** A setting as every shmpi setting is given: a system property, else its environment variable. */
    private static long setting(final String name, final long fallback, final long min, final long max,
        final boolean powerOfTwo)
    {
        String v = System.getProperty(name);
        if (v == null)
        {
            v = System.getenv(name.toUpperCase(java.util.Locale.ROOT).replace('.', '_'));
        }
        if (v == null || v.isBlank())
        {
            return fallback;
        }
        final long n;
        try
        {
            n = Long.parseLong(v.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "setting " + name + " is not a number: " + v);
        }
        if (n < min || n > max || powerOfTwo && Long.bitCount(n) != 1)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "setting " + name + " must be " +
                (powerOfTwo ? "a power of two " : "") + "from " + min + " to " + max + ": " + v);
        }
        return n;
    }

    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    private static final long OPEN_TIMEOUT_NS = 30_000_000_000L;
    /** Files this process has open, by real path: delete refuses them (ERR_FILE_IN_USE). */
    private static final Map<Path, Integer> OPEN = new ConcurrentHashMap<>();

    private final PointToPointEngine engine;
    private final FileMembers members;
    private final Path path;
    private final Path realPath;
    private final int amode;
    private final Segment state;
    private final AtomicBuffer shared;
    private final MappedFile file;
    private FileViewMap view;
    /** Individual file pointer, in etypes of the view. */
    private long pointer;
    private boolean atomic;
    /**
     * Whether shared-pointer appends reserve blocks ahead: while this open's presence is visible
     * to other opens (its lock), until a reservation fails.
     */
    private boolean reserving;
    private boolean closed;
    private byte[] staging = new byte[0];
    private final Map<String, String> hints;

    private ShmFile(final PointToPointEngine engine, final FileMembers members, final Path path, final Path realPath,
        final int amode, final Segment state, final MappedFile file, final Map<String, String> hints)
    {
        this.engine = engine;
        this.members = members;
        this.path = path;
        this.realPath = realPath;
        this.amode = amode;
        this.state = state;
        this.shared = state.buffer();
        this.file = file;
        this.reserving = file.present();
        this.hints = hints;
        this.view = new FileViewMap(0, TypeMap.basic(BasicKind.BYTE, 1), TypeMap.basic(BasicKind.BYTE, 1), "native");
    }

    // ------------------------------------------------------------------------------------------
    // Open, close, delete

    /** Checks an access mode as MPI defines it; the error class when it is not valid, else 0. */
    static String amodeError(final int amode)
    {
        if ((amode & ~ALL_MODES) != 0)
        {
            return "unknown bits in the access mode: " + amode;
        }
        final int rw = Integer.bitCount(amode & (MODE_RDONLY | MODE_WRONLY | MODE_RDWR));
        if (rw != 1)
        {
            return "the access mode needs exactly one of MODE_RDONLY, MODE_WRONLY, MODE_RDWR: " + amode;
        }
        if ((amode & MODE_RDONLY) != 0 && (amode & (MODE_CREATE | MODE_EXCL)) != 0)
        {
            return "MODE_RDONLY with MODE_CREATE or MODE_EXCL: " + amode;
        }
        if ((amode & MODE_RDWR) != 0 && (amode & MODE_SEQUENTIAL) != 0)
        {
            return "MODE_RDWR with MODE_SEQUENTIAL: " + amode;
        }
        return null;
    }

    /**
     * {@code MPI_File_open}, collective over {@code members}: every member opens {@code name} with
     * {@code amode}; if it fails anywhere it fails everywhere, with the class of the lowest member
     * that failed. {@code hints}: the info's keys (copied; unknown keys are kept and ignored).
     */
    public static ShmFile open(final PointToPointEngine engine, final FileMembers members, final String name,
        final int amode, final Map<String, String> hints)
    {
        final int me = members.rank();
        final int[] world = members.world();
        // 1. The arguments, everywhere alike.
        int error = 0;
        String why = null;
        final String amodeWhy = amodeError(amode);
        long chunk = 0;
        int mappedMax = 0;
        if (amodeWhy != null)
        {
            error = ErrorClass.ERR_AMODE;
            why = amodeWhy;
        }
        else if (name == null || name.isEmpty())
        {
            error = ErrorClass.ERR_BAD_FILE;
            why = "no file name";
        }
        else
        {
            try
            {
                chunk = chunkBytes();
                mappedMax = maxMapped();
            }
            catch (final ShmpiException ex)
            {
                // A bad shmpi.io.* setting: ERR_ARG, everywhere alike like a bad argument.
                error = ex.errorClass();
                why = ex.getMessage();
            }
        }
        final long nameHash = name == null ? 0 : name.hashCode();
        long[] all = members.allgather(new long[] {error, amode, nameHash});
        agree(all, 3, me, error, why, "open");
        for (int r = 1; r < world.length; r++)
        {
            if (all[3 * r + 1] != all[1])
            {
                throw new ShmpiException(ErrorClass.ERR_AMODE, "open: member " + r + " passed access mode " +
                    all[3 * r + 1] + ", member 0 " + all[1] + " (it must be the same everywhere)");
            }
            if (all[3 * r + 2] != all[2])
            {
                throw new ShmpiException(ErrorClass.ERR_FILE, "open: the members name different files");
            }
        }
        final Path path = Path.of(name);
        final SegmentManager segments = engine.segments();
        // 2. Member 0 creates or checks the file and makes the shared state.
        Segment state = null;
        long id = 0;
        error = 0;
        why = null;
        if (me == 0)
        {
            try
            {
                createOrCheck(path, amode, hints == null ? null : hints.get("file_perm"));
                id = ((long)world[0] << 32) | NEXT_ID.getAndIncrement();
                state = segments.create(SegmentKind.FILE, SegmentNames.file(id), FileStateDescriptor.LENGTH);
            }
            catch (final ShmpiException ex)
            {
                error = ex.errorClass();
                why = ex.getMessage();
            }
            catch (final IOException ex)
            {
                error = ErrorClass.ERR_IO;
                why = "cannot make the file's shared state: " + ex.getMessage();
            }
        }
        all = members.allgather(new long[] {error, id});
        if (all[0] != 0)
        {
            throw new ShmpiException((int)all[0], me == 0 ? why : "open of " + name + " failed on member 0" +
                " (class " + ErrorClass.name((int)all[0]) + ")");
        }
        id = all[1];
        // 3. Every member opens it.
        MappedFile mapped = null;
        Path real = null;
        error = 0;
        why = null;
        try
        {
            if (me != 0)
            {
                state = segments.open(SegmentKind.FILE, SegmentNames.file(id), world[0], System.nanoTime() +
                    OPEN_TIMEOUT_NS);
            }
            final Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.READ);
            final boolean writable = (amode & MODE_RDONLY) == 0;
            if (writable)
            {
                options.add(StandardOpenOption.WRITE);
            }
            final FileChannel channel = openChannel(path, options);
            real = path.toRealPath();
            mapped = new MappedFile(channel, real.toString(), writable, chunk, mappedMax);
        }
        catch (final ShmpiException ex)
        {
            error = ex.errorClass();
            why = ex.getMessage();
        }
        catch (final IOException ex)
        {
            error = ErrorClass.ERR_IO;
            why = ex.getMessage();
        }
        all = members.allgather(new long[] {error});
        try
        {
            agree(all, 1, me, error, why, "open of " + name);
        }
        catch (final ShmpiException ex)
        {
            closeQuietly(mapped);
            if (state != null)
            {
                if (me == 0)
                {
                    segments.remove(state);
                }
                else
                {
                    segments.release(state);
                }
            }
            throw ex;
        }
        final ShmFile f = new ShmFile(engine, members, path, real, amode, state, mapped,
            hints == null ? new HashMap<>() : new HashMap<>(hints));
        OPEN.merge(real, 1, Integer::sum);
        if ((amode & MODE_APPEND) != 0)
        {
            // Both pointers start at the end of the file.
            final long end = f.sizeChecked();
            f.pointer = end;
            if (me == 0)
            {
                f.shared.putLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET, end);
            }
            members.barrier();
        }
        return f;
    }

    /** Throws, on every member alike, the first error of {@code all} (stride {@code stride}, class first). */
    private static void agree(final long[] all, final int stride, final int me, final int error, final String why,
        final String call)
    {
        for (int r = 0; r < all.length / stride; r++)
        {
            if (all[r * stride] != 0)
            {
                throw new ShmpiException((int)all[r * stride], r == me ? call + ": " + why : call + " failed on member " + r +
                    " (class " + ErrorClass.name((int)all[r * stride]) + ")" + (error != 0 ? "; here: " + why : ""));
            }
        }
    }

    /** Hints that change what shmpi does; every other one is kept, reported by {@link #ignoredHints}, and has no effect. */
    public static final Set<String> HONOURED_HINTS = Set.of("file_perm");

    /** The keys of {@code hints} that have no effect here, comma-separated (empty: none). */
    public static String ignoredHints(final Map<String, String> hints)
    {
        final StringBuilder b = new StringBuilder();
        for (final String k : new java.util.TreeSet<>(hints.keySet()))
        {
            if (!HONOURED_HINTS.contains(k) && !k.equals(IGNORED_KEY))
            {
                b.append(b.length() == 0 ? "" : ",").append(k);
            }
        }
        return b.toString();
    }

    /** The info key under which a file's info lists the hints it ignores. */
    public static final String IGNORED_KEY = "shmpi_ignored_hints";

    /** {@code file_perm} (octal, e.g. "640") as the attribute of a new file; null: the default. */
    private static java.nio.file.attribute.FileAttribute<?>[] permissions(final String filePerm)
    {
        if (filePerm == null)
        {
            return new java.nio.file.attribute.FileAttribute<?>[0];
        }
        final int mode;
        try
        {
            mode = Integer.parseInt(filePerm.trim(), 8);
        }
        catch (final NumberFormatException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "file_perm is not an octal mode: " + filePerm);
        }
        final Set<java.nio.file.attribute.PosixFilePermission> perms =
            EnumSet.noneOf(java.nio.file.attribute.PosixFilePermission.class);
        final java.nio.file.attribute.PosixFilePermission[] order = java.nio.file.attribute.PosixFilePermission.values();
        // values() runs OWNER_READ, OWNER_WRITE, OWNER_EXECUTE, GROUP_..., OTHERS_...: bit 8 down to 0.
        for (int i = 0; i < 9; i++)
        {
            if ((mode & (1 << (8 - i))) != 0)
            {
                perms.add(order[i]);
            }
        }
        return new java.nio.file.attribute.FileAttribute<?>[] {
            java.nio.file.attribute.PosixFilePermissions.asFileAttribute(perms)};
    }

    private static void createOrCheck(final Path path, final int amode, final String filePerm)
    {
        final boolean create = (amode & MODE_CREATE) != 0;
        final boolean excl = (amode & MODE_EXCL) != 0;
        if (Files.isDirectory(path))
        {
            throw new ShmpiException(ErrorClass.ERR_BAD_FILE, path + " is a directory");
        }
        try
        {
            if (excl)
            {
                Files.createFile(path, permissions(filePerm));
            }
            else if (create && !Files.exists(path))
            {
                try
                {
                    Files.createFile(path, permissions(filePerm));
                }
                catch (final FileAlreadyExistsException raced)
                {
                    // Made by someone else in the meantime: as if it had been there.
                }
            }
            else if (!Files.exists(path))
            {
                throw new ShmpiException(ErrorClass.ERR_NO_SUCH_FILE, "no such file: " + path);
            }
        }
        catch (final IOException ex)
        {
            throw fileError(ex, path);
        }
    }

    private static FileChannel openChannel(final Path path, final Set<StandardOpenOption> options)
    {
        try
        {
            return FileChannel.open(path, options);
        }
        catch (final IOException ex)
        {
            throw fileError(ex, path);
        }
    }

    /** The MPI class of a failure to create, open or delete {@code path}. */
    static ShmpiException fileError(final IOException ex, final Path path)
    {
        if (ex instanceof NoSuchFileException)
        {
            final Path parent = path.toAbsolutePath().getParent();
            return new ShmpiException(parent != null && !Files.isDirectory(parent) ? ErrorClass.ERR_BAD_FILE :
                ErrorClass.ERR_NO_SUCH_FILE, "no such file: " + path, ex);
        }
        if (ex instanceof FileAlreadyExistsException)
        {
            return new ShmpiException(ErrorClass.ERR_FILE_EXISTS, "the file exists (MODE_EXCL): " + path, ex);
        }
        if (ex instanceof AccessDeniedException)
        {
            return new ShmpiException(ErrorClass.ERR_ACCESS, "permission denied: " + path, ex);
        }
        final String m = String.valueOf(ex.getMessage());
        if (m.contains("Read-only file system"))
        {
            return new ShmpiException(ErrorClass.ERR_READ_ONLY, "read-only file system: " + path, ex);
        }
        if (m.contains("No space left"))
        {
            return new ShmpiException(ErrorClass.ERR_NO_SPACE, "no space left: " + path, ex);
        }
        if (m.contains("quota"))
        {
            return new ShmpiException(ErrorClass.ERR_QUOTA, "quota exceeded: " + path, ex);
        }
        if (m.contains("Is a directory") || m.contains("Not a directory") || m.contains("File name too long"))
        {
            return new ShmpiException(ErrorClass.ERR_BAD_FILE, m + ": " + path, ex);
        }
        if (ex instanceof FileSystemException)
        {
            return new ShmpiException(ErrorClass.ERR_FILE, m + ": " + path, ex);
        }
        return new ShmpiException(ErrorClass.ERR_IO, m + ": " + path, ex);
    }

    /** {@code MPI_File_delete}: refuses a file this process has open (ERR_FILE_IN_USE). */
    public static void delete(final String name)
    {
        if (name == null || name.isEmpty())
        {
            throw new ShmpiException(ErrorClass.ERR_BAD_FILE, "no file name");
        }
        final Path path = Path.of(name);
        try
        {
            if (Files.isDirectory(path))
            {
                throw new ShmpiException(ErrorClass.ERR_BAD_FILE, path + " is a directory");
            }
            if (Files.exists(path) && OPEN.containsKey(path.toRealPath()))
            {
                throw new ShmpiException(ErrorClass.ERR_FILE_IN_USE, "the file is open here: " + path);
            }
            Files.delete(path);
        }
        catch (final IOException ex)
        {
            throw fileError(ex, path);
        }
    }

    /** {@code MPI_File_close}, collective: waits for every member, unmaps; member 0 removes what it made. */
    @Override
    public void close()
    {
        checkOpen();
        members.barrier();
        closed = true;
        OPEN.computeIfPresent(realPath, (k, v) -> v > 1 ? v - 1 : null);
        // Blocks reserved past the end are given back by member 0, once the other members'
        // descriptors (and their presence locks) are closed, and only when no other open of the
        // file anywhere is left that could be appending into them.
        ShmpiException failure = null;
        if (members.rank() != 0)
        {
            closeQuietly(file);
        }
        members.barrier();
        if (members.rank() == 0)
        {
            if ((amode & MODE_DELETE_ON_CLOSE) == 0 && file.lastWriter())
            {
                try
                {
                    file.releaseBeyond(shared.getLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET));
                }
                catch (final IOException ex)
                {
                    failure = MappedFile.ioError(ex, "close");
                }
            }
            closeQuietly(file);
        }
        final SegmentManager segments = engine.segments();
        if (members.rank() == 0)
        {
            segments.remove(state);
        }
        else
        {
            segments.release(state);
        }
        if ((amode & MODE_DELETE_ON_CLOSE) != 0)
        {
            // Everyone has unmapped it after the barrier... member 0 deletes it after one more.
            members.barrier();
            if (members.rank() == 0)
            {
                try
                {
                    Files.deleteIfExists(path);
                }
                catch (final IOException ex)
                {
                    throw fileError(ex, path);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private static void closeQuietly(final MappedFile f)
    {
        if (f != null)
        {
            try
            {
                f.close();
            }
            catch (final IOException ignored)
            {
                // Closing: nothing left to report to.
            }
        }
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
        return sizeChecked();
    }

    private long sizeChecked()
    {
        try
        {
            return file.size();
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, "size of " + path);
        }
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
                // A shorter file lost its blocks past the new end, those reserved ahead with them.
                shared.putLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET, 0);
            }
            catch (final IOException ex)
            {
                failure = MappedFile.ioError(ex, "setSize(" + size + ")");
            }
        }
        final long[] result = members.allgather(new long[] {failure == null ? 0 : failure.errorClass()});
        if (result[0] != 0)
        {
            throw failure != null ? failure : new ShmpiException((int)result[0], "setSize failed on member 0");
        }
        sizeChecked();
    }

    /** {@code MPI_File_preallocate}, collective: blocks for the first {@code size} bytes; the file grows to at least that. */
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
                failure = MappedFile.ioError(ex, "preallocate(" + size + ")");
            }
        }
        final long[] result = members.allgather(new long[] {failure == null ? 0 : failure.errorClass()});
        if (result[0] != 0)
        {
            throw failure != null ? failure : new ShmpiException((int)result[0], "preallocate failed on member 0");
        }
        sizeChecked();
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
            d = view.fileByte(shared.getLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET) * view.etypeSize);
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
        view = next;
        pointer = 0;
        members.barrier();
        if (members.rank() == 0)
        {
            shared.putLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET, 0);
        }
        members.barrier();
    }

    public long viewDisp()
    {
        return view.disp;
    }

    public String viewDatarep()
    {
        return view.datarep;
    }

    /** {@code MPI_File_get_byte_offset}: the file byte of {@code offset} etypes into the view. */
    public long byteOffset(final long offset)
    {
        checkOpen();
        if (offset < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative offset: " + offset);
        }
        return view.fileByte(offset * view.etypeSize);
    }

    /** {@code MPI_File_get_type_extent}: the extent of {@code type} in the file's data representation. */
    public long typeExtent(final TypeMap type)
    {
        checkOpen();
        return type.extent();
    }

    // ------------------------------------------------------------------------------------------
    // Data access

    /** Checks that data of {@code signature} has an external32 form here ({@code ERR_CONVERSION} if not). */
    public static void checkExternal32(final long[][] signature)
    {
        External32Order.check(signature);
    }

    /**
     * Reads ({@code write} false) or writes {@code bytes} packed bytes of memory at
     * {@code offset} etypes of the view; returns the bytes moved (a read stops at the end of
     * the file). {@code kinds}: the memory datatype's signature, for external32 (null otherwise).
     */
    private synchronized long access(final boolean write, final long offset, final Object base, final long memOffset,
        final DataLayout layout, final long bytes, final long[][] kinds)
    {
        if (bytes == 0)
        {
            return 0;
        }
        if (bytes % view.etypeSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "an access of " + bytes + " bytes is not a whole number " +
                "of the view's " + view.etypeSize + "-byte etypes");
        }
        if (offset < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative offset: " + offset);
        }
        final boolean external = kinds != null && external32();
        final long logical = offset * view.etypeSize;
        final boolean direct = layout.isContiguous() && !external;
        final Object src;
        final long srcOffset;
        if (direct)
        {
            src = base;
            srcOffset = memOffset;
        }
        else
        {
            src = staging(bytes);
            srcOffset = BYTES;
        }
        if (atomic)
        {
            lockAtomic();
        }
        try
        {
            final long first = view.fileByte(logical);
            final long end = view.fileByte(logical + bytes - 1) + 1;
            if (write)
            {
                if (!direct)
                {
                    layout.pack(base, memOffset, 0, src, srcOffset, bytes);
                    if (external)
                    {
                        External32Order.swap((byte[])src, bytes, kinds);
                    }
                }
                // A range written for the first time: a pwrite fills new pages once, where
                // reserving and storing would zero them first (shared_append of 4 MiB: 0.5 -> 2.7
                // GB/s on tmpfs); rewrites go through the mapping.
                if (view.contiguous() && file.writeFresh(first, src, srcOffset, bytes, true))
                {
                    return bytes;
                }
                file.reserve(first, end);
                if (view.contiguous())
                {
                    file.write(first, src, srcOffset, bytes);
                }
                else
                {
                    copier.start(true, src, srcOffset);
                    view.pieces(logical, bytes, copier);
                    copier.finish();
                }
                file.populated();
                return bytes;
            }
            final long size = file.sizeFor(end);
            final long available = Math.max(0, Math.min(bytes, view.logicalBefore(size) - logical));
            final long whole = available - available % view.etypeSize;
            if (view.contiguous())
            {
                file.read(first, src, srcOffset, whole);
            }
            else
            {
                copier.start(false, src, srcOffset);
                view.pieces(logical, whole, copier);
                copier.finish();
            }
            if (!direct && whole > 0)
            {
                if (external)
                {
                    External32Order.swap((byte[])src, whole, kinds);
                }
                layout.unpack(src, srcOffset, whole, base, memOffset, 0);
            }
            return whole;
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, (write ? "write" : "read") + " at " + offset);
        }
        finally
        {
            if (atomic)
            {
                unlockAtomic();
            }
        }
    }

    /**
     * Whether an access is the common kind: whole etypes of contiguous memory through a
     * contiguous view, native bytes, not atomic. Those go through {@link #readPlain} and
     * {@link #writePlain}, a few small methods: a short job runs its first thousand calls in the
     * interpreter and then waits for the JIT to compile what they call, so the fewer and smaller
     * the methods on the way, the sooner its calls run at full speed. Everything else (and every
     * error) goes through {@link #access}.
     */
    private boolean plain(final long offset, final DataLayout layout, final long bytes, final long[][] kinds)
    {
        return !atomic && bytes > 0 && offset >= 0 && view.contiguous() && layout.isContiguous() &&
            bytes % view.etypeSize == 0 && (kinds == null || !external32());
    }

    /** {@link #access} of a {@link #plain} read. */
    private synchronized long readPlain(final long offset, final Object base, final long memOffset, final long bytes)
    {
        final long first = view.fileByte(offset * view.etypeSize);
        try
        {
            final long n = file.read(first, base, memOffset, bytes);
            return n - n % view.etypeSize;
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, "read at " + offset);
        }
    }

    /** {@link #access} of a {@link #plain} write; {@code append}: at the shared pointer. */
    private synchronized long writePlain(final long offset, final Object base, final long memOffset, final long bytes,
        final boolean append)
    {
        final long first = view.fileByte(offset * view.etypeSize);
        try
        {
            if (!file.writeFresh(first, base, memOffset, bytes, !append))
            {
                file.reserve(first, first + bytes);
                file.write(first, base, memOffset, bytes);
                file.populated();
            }
            return bytes;
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, "write at " + offset);
        }
    }

    /** Whether the view's data representation is external32. */
    public boolean external32()
    {
        return view.external32;
    }

    /** Copies each piece of a view between the file and packed memory (one per file: nothing allocated per call). */
    private final class Copier implements FileViewMap.Piece
    {
        private boolean write;
        private Object memory;
        private long memoryOffset;

        void start(final boolean write, final Object memory, final long memoryOffset)
        {
            this.write = write;
            this.memory = memory;
            this.memoryOffset = memoryOffset;
        }

        void finish()
        {
            memory = null;
        }

        @Override
        public void run(final long file, final long length, final long packed)
        {
            if (write)
            {
                ShmFile.this.write(file, memory, memoryOffset + packed, length);
            }
            else
            {
                ShmFile.this.read(file, memory, memoryOffset + packed, length);
            }
        }
    }

    private final Copier copier = new Copier();

    private void write(final long at, final Object src, final long offset, final long length)
    {
        try
        {
            file.write(at, src, offset, length);
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, "write at byte " + at);
        }
    }

    private void read(final long at, final Object dst, final long offset, final long length)
    {
        try
        {
            file.read(at, dst, offset, length);
        }
        catch (final IOException ex)
        {
            throw MappedFile.ioError(ex, "read at byte " + at);
        }
    }

    private byte[] staging(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 64)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "a non-contiguous access of " + bytes + " bytes");
        }
        if (staging.length < bytes)
        {
            staging = new byte[(int)bytes];
        }
        return staging;
    }

    /** {@code MPI_File_read_at} (and {@code _all}: the same on each member): bytes read. */
    public long readAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        checkExplicit("readAt");
        checkReadable();
        return plain(offset, layout, bytes, kinds) ? readPlain(offset, base, memOffset, bytes) :
            access(false, offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_at} (and {@code _all}): bytes written. */
    public long writeAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        checkExplicit("writeAt");
        checkWritable("writeAt");
        return plain(offset, layout, bytes, kinds) ? writePlain(offset, base, memOffset, bytes, false) :
            access(true, offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_read} at the individual pointer, which moves past what was read. */
    public long read(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkExplicit("read");
        checkReadable();
        final long n = plain(pointer, layout, bytes, kinds) ? readPlain(pointer, base, memOffset, bytes) :
            access(false, pointer, base, memOffset, layout, bytes, kinds);
        pointer += n / view.etypeSize;
        return n;
    }

    /** {@code MPI_File_write} at the individual pointer, which moves past what was written. */
    public long write(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkExplicit("write");
        checkWritable("write");
        final long n = plain(pointer, layout, bytes, kinds) ? writePlain(pointer, base, memOffset, bytes, false) :
            access(true, pointer, base, memOffset, layout, bytes, kinds);
        pointer += n / view.etypeSize;
        return n;
    }

    /** {@code MPI_File_seek}: {@code whence} one of {@link #SEEK_SET}, {@link #SEEK_CUR}, {@link #SEEK_END}. */
    public void seek(final long offset, final int whence)
    {
        checkOpen();
        if ((amode & MODE_SEQUENTIAL) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_UNSUPPORTED_OPERATION, "seek on a MODE_SEQUENTIAL file");
        }
        pointer = seekTarget(pointer, offset, whence);
    }

    private long seekTarget(final long current, final long offset, final int whence)
    {
        final long target;
        switch (whence)
        {
            case SEEK_SET:
                target = offset;
                break;
            case SEEK_CUR:
                target = current + offset;
                break;
            case SEEK_END:
                target = view.logicalBefore(sizeChecked()) / view.etypeSize + offset;
                break;
            default:
                throw new ShmpiException(ErrorClass.ERR_ARG, "whence must be SEEK_SET, SEEK_CUR or SEEK_END: " + whence);
        }
        if (target < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "seek to a negative position: " + target);
        }
        return target;
    }

    /** {@code MPI_File_get_position}: the individual pointer, in etypes. */
    public long position()
    {
        checkOpen();
        return pointer;
    }

    // ------------------------------------------------------------------------------------------
    // The shared file pointer

    /** {@code MPI_File_read_shared}: at the shared pointer, moved atomically past what this member takes. */
    public long readShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkReadable();
        checkEtypes(bytes);
        final long at = shared.getAndAddLong(FileStateDescriptor.SHARED_POINTER_OFFSET, bytes / view.etypeSize);
        return access(false, at, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_shared}. */
    public long writeShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkWritable("writeShared");
        checkEtypes(bytes);
        final long at = shared.getAndAddLong(FileStateDescriptor.SHARED_POINTER_OFFSET, bytes / view.etypeSize);
        reserveAhead(at, bytes);
        return plain(at, layout, bytes, kinds) ? writePlain(at, base, memOffset, bytes, true) :
            access(true, at, base, memOffset, layout, bytes, kinds);
    }

    /** The least a shared-pointer append reserves ahead of itself. */
    static final long AHEAD_MIN = 4L << 20;
    /** The most. */
    static final long AHEAD_MAX = 64L << 20;

    /**
     * Before an append at the shared pointer ({@code bytes} at etype {@code at}): when it ends
     * past what appends have reserved so far, the member that raises the reserved end reserves
     * blocks from there to well past its own end (16 appends of this size, 4 to 64 MiB) without
     * growing the file. Appends from several processes into one file otherwise allocate blocks
     * one write at a time under the inode's lock; on ext4, 4 MiB appends were slow (7-13 ms
     * instead of 0.5) in more runs without it (A/B pairs in docs/io.md). The last writable open
     * gives back at close what no append used ({@link MappedFile#lastWriter}).
     */
    private void reserveAhead(final long at, final long bytes)
    {
        if (bytes <= 0 || !reserving)
        {
            return;
        }
        final long logical = at * view.etypeSize;
        final long start = view.fileByte(logical);
        final long end = view.fileByte(logical + bytes - 1) + 1;
        if (end > shared.getLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET))
        {
            raiseReserved(start, end);
        }
    }

    /** One append in 16 or so: raises the reserved end past {@code end}, unless another member does. */
    private void raiseReserved(final long start, final long end)
    {
        long have;
        while (end > (have = shared.getLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET)))
        {
            final long ahead = Math.min(AHEAD_MAX, Math.max(AHEAD_MIN, 16 * (end - start)));
            final long want = (end + ahead + 4095) & ~4095L;
            if (shared.compareAndSetLong(FileStateDescriptor.RESERVED_END_OFFSET, have, want))
            {
                // Not from the old end when the pointer jumped past it (seekShared): no gap is filled.
                reserving = file.reserveAhead(Math.max(have, start & ~4095L), want);
                return;
            }
        }
    }

    /** {@code MPI_File_read_ordered}, collective: member after member from the shared pointer. */
    public long readOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkReadable();
        final long at = orderedStart(bytes);
        return access(false, at, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_ordered}, collective. */
    public long writeOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        checkOpen();
        checkWritable("writeOrdered");
        final long at = orderedStart(bytes);
        reserveAhead(at, bytes);
        return plain(at, layout, bytes, kinds) ? writePlain(at, base, memOffset, bytes, true) :
            access(true, at, base, memOffset, layout, bytes, kinds);
    }

    /** Where this member's part of an ordered access starts; the shared pointer moves past every part. */
    private long orderedStart(final long bytes)
    {
        checkEtypes(bytes);
        final long mine = bytes / view.etypeSize;
        final long[] counts = members.allgather(new long[] {mine});
        long before = 0;
        long total = 0;
        for (int r = 0; r < counts.length; r++)
        {
            if (r < members.rank())
            {
                before += counts[r];
            }
            total += counts[r];
        }
        long start = 0;
        if (members.rank() == 0)
        {
            start = shared.getAndAddLong(FileStateDescriptor.SHARED_POINTER_OFFSET, total);
        }
        start = members.allgather(new long[] {start})[0];
        return start + before;
    }

    /** {@code MPI_File_seek_shared}, collective: every member passes the same offset and whence. */
    public void seekShared(final long offset, final int whence)
    {
        checkOpen();
        final long[] all = members.allgather(new long[] {offset, whence});
        for (int r = 0; r < all.length / 2; r++)
        {
            if (all[2 * r] != offset || all[2 * r + 1] != whence)
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "seekShared: the members pass different positions");
            }
        }
        final long current = shared.getLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET);
        final long target = seekTarget(current, offset, whence);
        members.barrier();
        if (members.rank() == 0)
        {
            shared.putLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET, target);
        }
        members.barrier();
    }

    /** {@code MPI_File_get_position_shared}: the shared pointer, in etypes. */
    public long positionShared()
    {
        checkOpen();
        return shared.getLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET);
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
        atomic = on;
    }

    public boolean atomicity()
    {
        checkOpen();
        return atomic;
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
                throw MappedFile.ioError(ex, "sync");
            }
        }
        UnsafeApi.fullFence();
        members.barrier();
    }

    private void lockAtomic()
    {
        final long me = members.world()[members.rank()] + 1L;
        int spins = 0;
        while (!shared.compareAndSetLong(FileStateDescriptor.ATOMIC_LOCK_OFFSET, 0, me))
        {
            if (++spins < 200)
            {
                Thread.onSpinWait();
            }
            else if (spins < 400)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    private void unlockAtomic()
    {
        shared.putLongRelease(FileStateDescriptor.ATOMIC_LOCK_OFFSET, 0);
    }

    // ------------------------------------------------------------------------------------------

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

    private void checkEtypes(final long bytes)
    {
        if (bytes % view.etypeSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "an access of " + bytes + " bytes is not a whole number " +
                "of the view's " + view.etypeSize + "-byte etypes");
        }
    }
}
