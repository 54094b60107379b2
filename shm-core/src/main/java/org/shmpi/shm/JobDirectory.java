package org.shmpi.shm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a job lives in shared memory: {@code <shmDir>/shmpi-<user>/<launcherPid>-<startMillis>/}
 * (directories 0700, files 0600), holding the {@code job} file and one {@code inbox-<rank>}
 * file per rank. The directory name identifies the launcher process exactly (pid plus start
 * time), so a directory whose launcher is gone is stale and can be removed, and a live job's
 * directory is never touched.
 */
public final class JobDirectory
{
    public static final String JOB_FILE_NAME = "job";
    public static final String INBOX_FILE_PREFIX = "inbox-";

    private final Path path;

    public JobDirectory(final Path path)
    {
        this.path = path;
    }

    /** The per-user root under the shared-memory directory. */
    public static Path userRoot(final String shmDir)
    {
        return Path.of(shmDir, "shmpi-" + System.getProperty("user.name", "unknown"));
    }

    /**
     * Creates the directory of a new job for the given launcher process. Retries when a
     * concurrent job removes the (then empty) user root between our two steps.
     */
    public static JobDirectory create(final String shmDir, final long launcherPid, final long startMillis)
        throws IOException
    {
        final Path root = userRoot(shmDir);
        final Path dir = root.resolve(launcherPid + "-" + startMillis);
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Files.createDirectory(root, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            }
            catch (final java.nio.file.FileAlreadyExistsException ignore)
            {
                // Shared by all jobs of this user: fine.
            }
            try
            {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
                return new JobDirectory(dir);
            }
            catch (final NoSuchFileException ex)
            {
                if (attempt >= 10)
                {
                    throw ex;
                }
            }
        }
    }

    public Path path()
    {
        return path;
    }

    public Path jobFile()
    {
        return path.resolve(JOB_FILE_NAME);
    }

    public Path inboxFile(final int rank)
    {
        return path.resolve(INBOX_FILE_PREFIX + rank);
    }

    /** Removes the directory and everything in it; a missing directory is not an error. */
    public void delete() throws IOException
    {
        deleteRecursively(path);
        removeIfEmpty(path.getParent());
    }

    /** Removes the per-user root when no job is left in it (rmdir fails on a non-empty one). */
    static void removeIfEmpty(final Path root)
    {
        try
        {
            Files.deleteIfExists(root);
        }
        catch (final IOException ignore)
        {
            // Not empty: another job lives there.
        }
    }

    static void deleteRecursively(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException
            {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(final Path file, final IOException exc) throws IOException
            {
                if (exc instanceof NoSuchFileException)
                {
                    return FileVisitResult.CONTINUE;
                }
                throw exc;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path d, final IOException exc) throws IOException
            {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Launcher pid encoded in a job directory name, or -1 when the name is not one of ours. */
    public static long launcherPidOf(final Path dir)
    {
        final String[] parts = dir.getFileName().toString().split("-");
        if (parts.length != 2)
        {
            return -1;
        }
        try
        {
            return Long.parseLong(parts[0]);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /** Launcher start time (epoch ms) encoded in a job directory name, or -1. */
    public static long launcherStartOf(final Path dir)
    {
        final String[] parts = dir.getFileName().toString().split("-");
        if (parts.length != 2)
        {
            return -1;
        }
        try
        {
            return Long.parseLong(parts[1]);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * Whether a job directory belongs to a live launcher: a process with that pid exists, is
     * not a zombie, and started at that time (pids are reused; start times are not).
     */
    public static boolean isLive(final Path dir)
    {
        final long pid = launcherPidOf(dir);
        final long start = launcherStartOf(dir);
        if (pid <= 0 || start < 0)
        {
            return false;
        }
        return Processes.isAlive(pid, start);
    }

    /** Job directories under the user root whose launcher is gone. */
    public static List<Path> findStale(final String shmDir) throws IOException
    {
        final Path root = userRoot(shmDir);
        final List<Path> stale = new ArrayList<>();
        if (!Files.isDirectory(root))
        {
            return stale;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root))
        {
            for (final Path dir : dirs)
            {
                if (Files.isDirectory(dir) && launcherPidOf(dir) > 0 && !isLive(dir))
                {
                    stale.add(dir);
                }
            }
        }
        return stale;
    }

    /** Removes every stale job directory; returns the ones removed. Live jobs are untouched. */
    public static List<Path> cleanupStale(final String shmDir) throws IOException
    {
        final List<Path> removed = new ArrayList<>();
        for (final Path dir : findStale(shmDir))
        {
            // Check again right before removing: never remove a directory whose launcher lives.
            if (!isLive(dir))
            {
                deleteRecursively(dir);
                removed.add(dir);
            }
        }
        removeIfEmpty(userRoot(shmDir));
        return removed;
    }

    /** Opens the job directory named by a path string, if it exists. */
    public static Optional<JobDirectory> existing(final String dir)
    {
        final Path p = Path.of(dir);
        return Files.isDirectory(p) ? Optional.of(new JobDirectory(p)) : Optional.empty();
    }

    @Override
    public String toString()
    {
        return path.toString();
    }
}
