package org.shmpi.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * What open, close and delete do to a file's path in this process: create it or check that it
 * is there ({@code MODE_CREATE}, {@code MODE_EXCL}, the {@code file_perm} hint), open its channel,
 * delete it, and count which files this process has open (delete refuses those). A failure is
 * the MPI error class the file system's answer means ({@link #fileError}).
 */
final class FilePaths
{
    /** Files this process has open, by real path: delete refuses them (ERR_FILE_IN_USE). */
    private static final Map<Path, Integer> OPEN = new ConcurrentHashMap<>();

    private FilePaths()
    {
    }

    /** Counts one more open of {@code realPath} in this process. */
    static void opened(final Path realPath)
    {
        OPEN.merge(realPath, 1, Integer::sum);
    }

    /** Counts one open of {@code realPath} fewer. */
    static void closed(final Path realPath)
    {
        OPEN.computeIfPresent(realPath, (k, v) -> v > 1 ? v - 1 : null);
    }

    /** {@code MPI_File_delete}: refuses a file this process has open (ERR_FILE_IN_USE). */
    static void delete(final String name)
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
            throw FileErrors.fileError(ex, path);
        }
    }

    /** Deletes {@code path} if it is there ({@code MODE_DELETE_ON_CLOSE}). */
    static void deleteIfExists(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw FileErrors.fileError(ex, path);
        }
    }

    /**
     * Creates {@code path} as {@code amode} asks ({@code filePerm}: the {@code file_perm} hint,
     * null for the default), or checks that it is there.
     */
    static void createOrCheck(final Path path, final int amode, final String filePerm)
    {
        final boolean create = (amode & ShmFile.MODE_CREATE) != 0;
        final boolean excl = (amode & ShmFile.MODE_EXCL) != 0;
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
            throw FileErrors.fileError(ex, path);
        }
    }

    /** {@code file_perm} (octal, e.g. "640") as the attribute of a new file; null: the default. */
    private static FileAttribute<?>[] permissions(final String filePerm)
    {
        if (filePerm == null)
        {
            return new FileAttribute<?>[0];
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
        final Set<PosixFilePermission> perms = EnumSet.noneOf(PosixFilePermission.class);
        final PosixFilePermission[] order = PosixFilePermission.values();
        // values() runs OWNER_READ, OWNER_WRITE, OWNER_EXECUTE, GROUP_..., OTHERS_...: bit 8 down to 0.
        for (int i = 0; i < 9; i++)
        {
            if ((mode & (1 << (8 - i))) != 0)
            {
                perms.add(order[i]);
            }
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)};
    }

    /** Opens {@code path}'s channel for reading, and writing too when {@code writable}. */
    static FileChannel openChannel(final Path path, final boolean writable)
    {
        final Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.READ);
        if (writable)
        {
            options.add(StandardOpenOption.WRITE);
        }
        try
        {
            return FileChannel.open(path, options);
        }
        catch (final IOException ex)
        {
            throw FileErrors.fileError(ex, path);
        }
    }
}
