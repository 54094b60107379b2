package org.shmpi.junit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.shmpi.shm.ShmpiConfig;

/**
 * The directory of a test job in shared memory, found by its launcher's pid: named in failure
 * messages when it is kept ({@link Settings#KEEP}), and removed when a launcher that had to be
 * killed hard left it behind.
 */
final class TestJobDirectory
{
    private final ShmrunProcess launcher;
    private final boolean keep;

    TestJobDirectory(final ShmrunProcess launcher, final boolean keep)
    {
        this.launcher = launcher;
        this.keep = keep;
    }

    /** The job's directory in shared memory, found by the launcher's pid; null if none. */
    Path find()
    {
        final Path root = Path.of(ShmpiConfig.fromSystem().shmDir(),
            "shmpi-" + System.getProperty("user.name", "unknown"));
        if (!Files.isDirectory(root))
        {
            return null;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, launcher.pid() + "-*"))
        {
            for (final Path d : dirs)
            {
                return d;
            }
        }
        catch (final IOException ex)
        {
            return null;
        }
        return null;
    }

    /** When the directory is kept, says where it is at the end of {@code msg}. */
    void appendKept(final StringBuilder msg)
    {
        if (keep)
        {
            final Path dir = find();
            msg.append("\njob directory kept (").append(Settings.KEEP).append("): ")
                .append(dir == null ? "(not found; shmrun pid " + launcher.pid() + ")" : dir.toString());
        }
    }

    /** When the launcher had to be killed hard its directory stays: remove it (unless kept). */
    void removeLeftovers()
    {
        if (keep || launcher.isAlive())
        {
            return;
        }
        final Path dir = find();
        if (dir != null)
        {
            try (Stream<Path> walk = Files.walk(dir))
            {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            catch (final IOException ex)
            {
                // Best effort: shmrun --cleanup removes what a dead job left.
            }
        }
    }
}
