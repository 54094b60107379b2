package org.shmpi.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/** Facts about processes by pid, from {@link ProcessHandle} and {@code /proc}. */
public final class Processes
{
    private Processes()
    {
    }

    /** Start time of a process in epoch milliseconds, or -1 when it is gone. */
    public static long startMillis(final long pid)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty())
        {
            return -1;
        }
        final Optional<Instant> start = handle.get().info().startInstant();
        return start.map(Instant::toEpochMilli).orElse(-1L);
    }

    /** Start time of this process in epoch milliseconds. */
    public static long selfStartMillis()
    {
        return ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli)
            .orElseGet(System::currentTimeMillis);
    }

    /**
     * Whether the process {@code pid}, started at {@code startMillis}, is still running. A
     * zombie (exited, not yet reaped) counts as gone. When this process cannot read the other's
     * facts (e.g. it has every file descriptor its limit allows open) but {@code /proc/<pid>}
     * exists, the process counts as running: only a process known to be gone is gone.
     */
    public static boolean isAlive(final long pid, final long startMillis)
    {
        final Path proc = Path.of("/proc", Long.toString(pid));
        final long actual = startMillis(pid);
        if (actual < 0)
        {
            // stat(2) needs no descriptor: the directory tells gone from unreadable.
            return Files.isDirectory(proc) && !isZombie(pid);
        }
        if (Math.abs(actual - startMillis) > 20)
        {
            return false;
        }
        return !isZombie(pid);
    }

    /** Whether {@code /proc/<pid>/stat} shows the process stopped (state T or t: SIGSTOP, a tracer). */
    public static boolean isStopped(final long pid)
    {
        try
        {
            final String stat = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat")),
                StandardCharsets.US_ASCII);
            final int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() &&
                (stat.charAt(close + 2) == 'T' || stat.charAt(close + 2) == 't');
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * Whether {@code /proc/<pid>/stat} shows state Z (or the process is gone); false when the
     * file exists but cannot be read now.
     */
    public static boolean isZombie(final long pid)
    {
        try
        {
            final String stat = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat")),
                StandardCharsets.US_ASCII);
            final int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) == 'Z' ||
                stat.charAt(close + 2) == 'X';
        }
        catch (final java.nio.file.NoSuchFileException ex)
        {
            return true;
        }
        catch (final IOException ex)
        {
            return !Files.isDirectory(Path.of("/proc", Long.toString(pid)));
        }
    }

    /** Parent pid of this process, read fresh each call (it changes when the parent dies). */
    public static long parentPid()
    {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    }
}
