package org.shmpi.io;

import java.io.IOException;
import java.nio.file.Path;

import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * One open's data access through its view: reads and writes at explicit offsets and at the
 * individual file pointer (the same call on each member is the collective {@code _all} form:
 * members share no data, each moves its own bytes through the one page cache), and the moves
 * that the shared file pointer's accesses make once it has given them a position. Memory is the
 * datatype engine's {@code (base, offset, layout, bytes)}; non-contiguous memory, non-contiguous
 * views and external32 go through a staging array of this open's. In atomic mode every access
 * holds the file's atomic-mode lock ({@link SharedWords#lock}).
 *
 * <p>Data accesses hold this object's monitor (one per open), so threads may share a file handle.
 * Argument and access-mode checks are the caller's ({@link ShmFile}).
 */
final class FileAccess
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private final FileMembers members;
    private final Path path;
    private final MappedFile file;
    /** The open's shared words; only the atomic-mode lock is used here. */
    private final SharedWords shared;
    private final Copier copier = new Copier();
    private FileViewMap view;
    /** Individual file pointer, in etypes of the view. */
    private long pointer;
    private boolean atomic;
    private byte[] staging = new byte[0];

    FileAccess(final FileMembers members, final Path path, final MappedFile file, final SharedWords shared)
    {
        this.members = members;
        this.path = path;
        this.file = file;
        this.shared = shared;
        this.view = new FileViewMap(0, TypeMap.basic(BasicKind.BYTE, 1), TypeMap.basic(BasicKind.BYTE, 1), "native");
    }

    // ------------------------------------------------------------------------------------------
    // The view and the individual file pointer

    /** The current view. */
    FileViewMap view()
    {
        return view;
    }

    /** Accesses go through {@code next} from now on; the individual pointer is back at 0. */
    void useView(final FileViewMap next)
    {
        view = next;
        pointer = 0;
    }

    /** Whether the view's data representation is external32. */
    boolean external32()
    {
        return view.external32;
    }

    /** {@code MPI_File_get_byte_offset}: the file byte of {@code offset} etypes into the view. */
    long byteOffset(final long offset)
    {
        if (offset < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative offset: " + offset);
        }
        return view.fileByte(offset * view.etypeSize);
    }

    /** {@code ERR_TYPE} unless {@code bytes} is a whole number of the view's etypes. */
    void checkEtypes(final long bytes)
    {
        if (bytes % view.etypeSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "an access of " + bytes + " bytes is not a whole number " +
                "of the view's " + view.etypeSize + "-byte etypes");
        }
    }

    /** The individual pointer, in etypes. */
    long position()
    {
        return pointer;
    }

    /** Puts the individual pointer at {@code etypes}. */
    void position(final long etypes)
    {
        pointer = etypes;
    }

    /** {@code MPI_File_seek}: {@code whence} one of SEEK_SET, SEEK_CUR, SEEK_END. */
    void seek(final long offset, final int whence)
    {
        pointer = seekTarget(pointer, offset, whence);
    }

    /** Where a seek from {@code current} etypes goes; {@code ERR_ARG} for a bad whence or a negative target. */
    long seekTarget(final long current, final long offset, final int whence)
    {
        final long target;
        switch (whence)
        {
            case ShmFile.SEEK_SET:
                target = offset;
                break;
            case ShmFile.SEEK_CUR:
                target = current + offset;
                break;
            case ShmFile.SEEK_END:
                target = view.logicalBefore(size()) / view.etypeSize + offset;
                break;
            default:
                throw new ShmpiException(ErrorClass.ERR_ARG, "whence must be SEEK_SET, SEEK_CUR or SEEK_END: " +
                    whence);
        }
        if (target < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "seek to a negative position: " + target);
        }
        return target;
    }

    /** The file's size in bytes (asks the file system). */
    long size()
    {
        try
        {
            return file.size();
        }
        catch (final IOException ex)
        {
            throw FileErrors.ioError(ex, "size of " + path);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Reads and writes

    /** {@code MPI_File_read_at} (and {@code _all}): bytes read. */
    long readAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        return plain(offset, layout, bytes, kinds) ? readPlain(offset, base, memOffset, bytes) :
            access(false, offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_at} (and {@code _all}): bytes written. */
    long writeAt(final long offset, final Object base, final long memOffset, final DataLayout layout,
        final long bytes, final long[][] kinds)
    {
        return plain(offset, layout, bytes, kinds) ? writePlain(offset, base, memOffset, bytes, false) :
            access(true, offset, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_read} at the individual pointer, which moves past what was read. */
    long read(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        final long n = plain(pointer, layout, bytes, kinds) ? readPlain(pointer, base, memOffset, bytes) :
            access(false, pointer, base, memOffset, layout, bytes, kinds);
        pointer += n / view.etypeSize;
        return n;
    }

    /** {@code MPI_File_write} at the individual pointer, which moves past what was written. */
    long write(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        final long n = plain(pointer, layout, bytes, kinds) ? writePlain(pointer, base, memOffset, bytes, false) :
            access(true, pointer, base, memOffset, layout, bytes, kinds);
        pointer += n / view.etypeSize;
        return n;
    }

    /**
     * Whether an access is the common kind: whole etypes of contiguous memory through a
     * contiguous view, native bytes, not atomic. Those go through {@link #readPlain} and
     * {@link #writePlain}, a few small methods: a short job runs its first thousand calls in the
     * interpreter and then waits for the JIT to compile what they call, so the fewer and smaller
     * the methods on the way, the sooner its calls run at full speed. Everything else (and every
     * error) goes through {@link #access}.
     */
    boolean plain(final long offset, final DataLayout layout, final long bytes, final long[][] kinds)
    {
        return !atomic && bytes > 0 && offset >= 0 && view.contiguous() && layout.isContiguous() &&
            bytes % view.etypeSize == 0 && (kinds == null || !external32());
    }

    /** {@link #access} of a {@link #plain} read. */
    synchronized long readPlain(final long offset, final Object base, final long memOffset, final long bytes)
    {
        final long first = view.fileByte(offset * view.etypeSize);
        try
        {
            final long n = file.read(first, base, memOffset, bytes);
            return n - n % view.etypeSize;
        }
        catch (final IOException ex)
        {
            throw FileErrors.ioError(ex, "read at " + offset);
        }
    }

    /** {@link #access} of a {@link #plain} write; {@code append}: at the shared pointer. */
    synchronized long writePlain(final long offset, final Object base, final long memOffset, final long bytes,
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
            throw FileErrors.ioError(ex, "write at " + offset);
        }
    }

    /**
     * Reads ({@code write} false) or writes {@code bytes} packed bytes of memory at
     * {@code offset} etypes of the view; returns the bytes moved (a read stops at the end of
     * the file). {@code kinds}: the memory datatype's signature, for external32 (null otherwise).
     */
    synchronized long access(final boolean write, final long offset, final Object base, final long memOffset,
        final DataLayout layout, final long bytes, final long[][] kinds)
    {
        if (bytes == 0)
        {
            return 0;
        }
        checkEtypes(bytes);
        if (offset < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "negative offset: " + offset);
        }
        final boolean external = kinds != null && external32();
        final long logical = offset * view.etypeSize;
        final boolean direct = layout.isContiguous() && !external;
        final Object src = direct ? base : staging(bytes);
        final long srcOffset = direct ? memOffset : BYTES;
        if (atomic)
        {
            lockAtomic();
        }
        try
        {
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
                return store(logical, src, srcOffset, bytes);
            }
            final long whole = load(logical, src, srcOffset, bytes);
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
            throw FileErrors.ioError(ex, (write ? "write" : "read") + " at " + offset);
        }
        finally
        {
            if (atomic)
            {
                unlockAtomic();
            }
        }
    }

    /** Writes {@code bytes} packed bytes of {@code src} at {@code logical} bytes of the view. */
    private long store(final long logical, final Object src, final long srcOffset, final long bytes)
        throws IOException
    {
        final long first = view.fileByte(logical);
        final long end = view.fileByte(logical + bytes - 1) + 1;
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

    /** Reads up to {@code bytes} at {@code logical} bytes of the view into {@code src}; the whole etypes read. */
    private long load(final long logical, final Object src, final long srcOffset, final long bytes)
        throws IOException
    {
        final long first = view.fileByte(logical);
        final long end = view.fileByte(logical + bytes - 1) + 1;
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
        return whole;
    }

    /** Copies each piece of a view between the file and packed memory (one per open: nothing allocated per call). */
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
                writePiece(file, memory, memoryOffset + packed, length);
            }
            else
            {
                readPiece(file, memory, memoryOffset + packed, length);
            }
        }
    }

    private void writePiece(final long at, final Object src, final long offset, final long length)
    {
        try
        {
            file.write(at, src, offset, length);
        }
        catch (final IOException ex)
        {
            throw FileErrors.ioError(ex, "write at byte " + at);
        }
    }

    private void readPiece(final long at, final Object dst, final long offset, final long length)
    {
        try
        {
            file.read(at, dst, offset, length);
        }
        catch (final IOException ex)
        {
            throw FileErrors.ioError(ex, "read at byte " + at);
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

    // ------------------------------------------------------------------------------------------
    // Atomic mode

    /** {@code MPI_File_set_atomicity} on this member (the caller checks that every member agrees). */
    void atomic(final boolean on)
    {
        atomic = on;
    }

    boolean atomic()
    {
        return atomic;
    }

    /** Takes the file's atomic-mode lock for this member (its world rank + 1), waiting for it. */
    private void lockAtomic()
    {
        shared.lock(members.world()[members.rank()] + 1L);
    }

    /** Releases the atomic-mode lock: this access's stores become visible to the next holder. */
    private void unlockAtomic()
    {
        shared.unlock();
    }
}
