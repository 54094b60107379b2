package org.shmpi.shm;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where a job lives in shared memory: {@code <shmDir>/shmpi-<user>/<launcherPid>-<startMillis>/}
 * (directories 0700, files 0600), holding the {@code job} file and one {@code inbox-<rank>}
 * file per rank. The directory name identifies the launcher process exactly (pid plus start
 * time), so a directory whose launcher is gone is stale and can be removed, and a live job's
 * directory is never touched.
 *
 * <p>The per-user root {@code shmpi-<user>} is shared by every job of the user, and jobs start
 * and end at the same moments. It is created on first use and never removed: removing it when
 * it looks empty races with a job that has just created it and is about to create its own
 * directory in it (rmdir between the creator's two mkdirs). An empty 0700 directory costs
 * nothing; it can be removed by hand when no job runs, and creators and listers cope with that
 * too.
 */
public final class JobDirectory
{
    /** The file that marks a job directory kept on purpose (see {@link #markKept}). */
    public static final String KEPT_MARK = "kept";

    public static final String JOB_FILE_NAME = "job";
    public static final String INBOX_FILE_PREFIX = "inbox-";

    /**
     * Bound on re-creating a vanished user root. Each retry needs someone to remove the root
     * while it is empty, which no shmpi of this version does; the bound only stops a file system
     * that keeps answering ENOENT from looping forever.
     */
    private static final int CREATE_ATTEMPTS = 1_000;

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
     * Creates the directory of a new job for the given launcher process, and the user root when
     * it does not exist yet. When the root vanishes between the two steps (removed by hand, or by
     * an older shmpi that removed an empty root), it is created again.
     *
     * @throws NoSuchFileException when {@code shmDir} itself does not exist.
     */
    public static JobDirectory create(final String shmDir, final long launcherPid, final long startMillis)
        throws IOException
    {
        final Path root = userRoot(shmDir);
        final Path dir = root.resolve(launcherPid + "-" + startMillis);
        Limits.reserve();
        for (int attempt = 1; ; attempt++)
        {
            createUserRoot(shmDir, root);
            try
            {
                Files.createDirectory(dir, privateDirectory());
                return new JobDirectory(dir);
            }
            catch (final NoSuchFileException ex)
            {
                if (attempt >= CREATE_ATTEMPTS)
                {
                    throw new IOException("user root keeps vanishing: root=" + root + ", attempts=" + attempt, ex);
                }
            }
        }
    }

    private static void createUserRoot(final String shmDir, final Path root) throws IOException
    {
        try
        {
            Files.createDirectory(root, privateDirectory());
        }
        catch (final FileAlreadyExistsException ignore)
        {
            // Shared by all jobs of this user: fine, once it is checked below.
        }
        catch (final NoSuchFileException ex)
        {
            final NoSuchFileException named = new NoSuchFileException(shmDir, null,
                "the shared-memory directory does not exist: " + ShmpiConfig.SHM_DIR_PROP + "=" + shmDir);
            named.initCause(ex);
            throw named;
        }
        try
        {
            checkPrivate(root);
        }
        catch (final NoSuchFileException gone)
        {
            // Removed again right now (an empty root is removed by its last job): the caller
            // finds that when it makes its job directory, and starts over.
        }
    }

    /**
     * The user root must be this user's own directory that nobody else can enter: /dev/shm is
     * writable by everyone, so another user could have made the name first, as a symbolic link
     * to a directory of theirs or as a directory they own. Then no job starts (nothing of it is
     * written there), with an error that says what to remove.
     */
    static void checkPrivate(final Path root) throws IOException
    {
        final java.nio.file.attribute.PosixFileAttributes a = Files.readAttributes(root,
            java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        // Numeric owners (stat(2) only): a name lookup reads /etc/passwd, which needs a descriptor.
        final int owner = (Integer)Files.getAttribute(root, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        final int me = (Integer)Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        final String why = a.isSymbolicLink() ? "it is a symbolic link" : !a.isDirectory() ? "it is not a directory" :
            owner != me ? "it belongs to uid " + owner + ", not to this user (uid " + me + ")" :
            !a.permissions().equals(PosixFilePermissions.fromString("rwx------")) ?
                "its mode is " + PosixFilePermissions.toString(a.permissions()) + ", not rwx------" : null;
        if (why != null)
        {
            throw new IOException("refusing shmpi's directory " + root + ": " + why + " (someone else may have made " +
                "it); remove it and start again");
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> privateDirectory()
    {
        return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
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

    /**
     * Removes the directory and everything in it; a missing directory is not an error. The user
     * root stays (see the class comment).
     */
    public void delete() throws IOException
    {
        try
        {
            deleteRecursively(path);
        }
        catch (final IOException ex)
        {
            // At the open-file limit, listing the directory needs the descriptor held in reserve.
            if (!Limits.isTooManyFiles(ex) || !Limits.releaseReserve())
            {
                throw Limits.explain(ex);
            }
            deleteRecursively(path);
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
                if (exc != null && !(exc instanceof NoSuchFileException))
                {
                    throw exc;
                }
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

    /** Job directories under the user root whose launcher is gone; none when there is no root. */
    public static List<Path> findStale(final String shmDir) throws IOException
    {
        return findStale(shmDir, true);
    }

    /**
     * The directories of dead jobs; {@code kept} false leaves out those kept on purpose
     * ({@link #markKept}), which only an explicit cleanup removes.
     */
    public static List<Path> findStale(final String shmDir, final boolean kept) throws IOException
    {
        final Path root = userRoot(shmDir);
        final List<Path> stale = new ArrayList<>();
        // No exists-then-list: the root may be removed in between (by hand, or an older shmpi).
        try
        {
            checkPrivate(root);
        }
        catch (final NoSuchFileException ex)
        {
            return stale;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root))
        {
            for (final Path dir : dirs)
            {
                if (launcherPidOf(dir) > 0 && Files.isDirectory(dir) && !isLive(dir) &&
                    (kept || !Files.exists(dir.resolve(KEPT_MARK))))
                {
                    stale.add(dir);
                }
            }
        }
        catch (final NoSuchFileException ex)
        {
            return stale;
        }
        return stale;
    }

    /**
     * Removes every stale job directory; returns the ones removed. Live jobs are untouched. A
     * stale directory that cannot be removed now is left for the next cleanup: a rank of a
     * killed launcher may still write into it for a moment, and another cleanup may be removing
     * it at the same time; neither is a reason to fail the caller (a launcher starting a job).
     */
    public static List<Path> cleanupStale(final String shmDir) throws IOException
    {
        return cleanupStale(shmDir, true);
    }

    /** As {@link #cleanupStale(String)}; {@code kept} false leaves the directories kept on purpose. */
    public static List<Path> cleanupStale(final String shmDir, final boolean kept) throws IOException
    {
        final List<Path> removed = new ArrayList<>();
        for (final Path dir : findStale(shmDir, kept))
        {
            // Check again right before removing: never remove a directory whose launcher lives.
            if (!isLive(dir))
            {
                try
                {
                    deleteRecursively(dir);
                    removed.add(dir);
                }
                catch (final DirectoryNotEmptyException ignore)
                {
                    // Written to while we removed it: left for the next cleanup.
                }
            }
        }
        return removed;
    }

    /**
     * Marks this directory as kept on purpose ({@code shmrun --keep-shm}): the cleanup every job
     * does at its start leaves it; {@code shmrun --cleanup} removes it.
     */
    public void markKept() throws IOException
    {
        Files.write(path.resolve(KEPT_MARK), new byte[0]);
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
