package org.shmpi.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Reserving the space of a shared-memory file before it is mapped. A mapped file on a full
 * tmpfs gets no page when one is first written, and the process gets SIGBUS (in Java an
 * {@code InternalError} from some unrelated store, or a crash): so a segment whose pages its
 * creator touches is allocated with {@code posix_fallocate(3)} first, which fails cleanly with
 * {@code ENOSPC}, and one whose pages are left to their first writer (NUMA first touch) has the
 * free space checked; the caller then reports {@code MPI_ERR_NO_MEM} naming the directory, the
 * space needed and free, and the setting that moves it. Where libc cannot be bound, the usable
 * space is checked instead.
 */
public final class Space
{
    private static final int O_RDWR = 2;
    private static final int ENOSPC = 28;
    private static final boolean NATIVE = bind();

    private Space()
    {
    }

    private static boolean bind()
    {
        if (!"Linux".equals(System.getProperty("os.name")))
        {
            return false;
        }
        try
        {
            return Libc.bound();
        }
        catch (final LinkageError | RuntimeException ex)
        {
            return false;
        }
    }

    /** Bound to libc on first use. */
    private static final class Libc
    {
        static
        {
            Native.register(Libc.class, NativeLibrary.getInstance("c"));
        }

        static native int open(String path, int flags);

        static native int posix_fallocate(int fd, long offset, long length);

        static native int close(int fd);

        static boolean bound()
        {
            return true;
        }

        private Libc()
        {
        }
    }

    /**
     * Allocates the first {@code length} bytes of the existing file {@code path} ({@code what}
     * says what it is for the message).
     *
     * @throws NoRoom when the file system has no room for it
     */
    public static void reserve(final Path path, final long length, final String what) throws IOException
    {
        if (NATIVE)
        {
            final int fd = Libc.open(path.toString(), O_RDWR);
            if (fd < 0)
            {
                throw new IOException("cannot open " + path + " to reserve its space");
            }
            final int errno;
            try
            {
                errno = Libc.posix_fallocate(fd, 0, length);
            }
            finally
            {
                Libc.close(fd);
            }
            if (errno == ENOSPC)
            {
                throw noRoom(path, length, what);
            }
            if (errno != 0)
            {
                // EOPNOTSUPP and the like: a file system without fallocate; check what is free instead.
                checkUsable(path, length, what);
            }
            return;
        }
        checkUsable(path, length, what);
    }

    /**
     * Checks that the file system of {@code path} has {@code length} bytes free, without
     * allocating them (pages a later first write places: racy against other creators, but a
     * segment that plainly does not fit is an error before anything is mapped).
     */
    public static void check(final Path path, final long length, final String what) throws IOException
    {
        checkUsable(path, length, what);
    }

    private static void checkUsable(final Path path, final long length, final String what) throws IOException
    {
        if (usable(path) < length)
        {
            throw noRoom(path, length, what);
        }
    }

    /**
     * The bytes free to this user on the file system of {@code path}, which exists. Through
     * statvfs, which opens no file: {@code Files.getFileStore} reads the mount table, and at the
     * open-file limit that failed as "Mount point not found" and hid the limit from the error.
     */
    private static long usable(final Path path) throws IOException
    {
        final long free = path.toFile().getUsableSpace();
        if (free == 0 && !Files.exists(path))
        {
            throw new NoSuchFileException(path.toString());
        }
        return free;
    }

    /**
     * No room for a shared-memory file: an {@link IOException}, so that every caller that
     * already agrees with its peers on a failed creation (and falls back, or fails on every
     * member) treats it so; its message names the space, what is free and the setting.
     * {@code MPI_ERR_NO_MEM} where it reaches the program.
     */
    public static final class NoRoom extends IOException
    {
        private static final long serialVersionUID = 1L;

        NoRoom(final String message)
        {
            super(message);
        }
    }

    private static NoRoom noRoom(final Path path, final long length, final String what)
    {
        long free = -1;
        try
        {
            free = usable(path);
        }
        catch (final IOException ignore)
        {
            // said as unknown
        }
        return new NoRoom("no room for " + what + " (" + length + " bytes) in " +
            path.getParent() + ", " + (free < 0 ? "free space unknown" : free + " bytes free") + ": enlarge that " +
            "file system or set shmpi.shm.dir");
    }
}
