package org.shmpi.io;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.Limits;
import org.shmpi.shm.ShmpiException;

/**
 * The MPI error class of a failed file operation, as {@link ShmpiException}s that say what failed
 * and where: from an {@link IOException} of the file system (opening, creating, deleting, reading,
 * writing) or from the errno of a native call (reserving blocks, {@code pwrite}). A full device
 * is {@code ERR_NO_SPACE}, a quota met {@code ERR_QUOTA}, the rest {@code ERR_IO} unless the
 * message says more.
 */
final class FileErrors
{
    private FileErrors()
    {
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
        if (Limits.isTooManyFiles(ex))
        {
            return new ShmpiException(ErrorClass.ERR_IO, Limits.explain("cannot open " + path, ex), ex);
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

    /** A failed reservation ({@code fallocate}) of bytes {@code [start, end)}. */
    static ShmpiException spaceError(final int errno, final long start, final long end)
    {
        return errnoError(errno, "cannot reserve bytes " + start + " to " + end + " of the file");
    }

    /** A failed {@code pwrite} of bytes {@code [start, end)}. */
    static ShmpiException writeError(final int errno, final long start, final long end)
    {
        return errnoError(errno, "write of bytes " + start + " to " + end);
    }

    /** The MPI error class of a failed call's errno: a full device or quota, else an I/O error. */
    private static ShmpiException errnoError(final int errno, final String what)
    {
        switch (errno)
        {
            case NativeFile.ENOSPC:
            case NativeFile.EFBIG:
                return new ShmpiException(ErrorClass.ERR_NO_SPACE, what + ": no space left on the device");
            case NativeFile.EDQUOT:
                return new ShmpiException(ErrorClass.ERR_QUOTA, what + ": disk quota exceeded");
            default:
                return new ShmpiException(ErrorClass.ERR_IO, what + ": errno " + errno);
        }
    }

    /** The MPI error class of an {@link IOException} from {@code what} (a read, a write, a size, a sync). */
    static ShmpiException ioError(final IOException ex, final String what)
    {
        final String m = String.valueOf(ex.getMessage());
        if (m.contains("No space left"))
        {
            return new ShmpiException(ErrorClass.ERR_NO_SPACE, what + ": " + m, ex);
        }
        if (m.contains("quota"))
        {
            return new ShmpiException(ErrorClass.ERR_QUOTA, what + ": " + m, ex);
        }
        return new ShmpiException(ErrorClass.ERR_IO, what + ": " + m, ex);
    }
}
