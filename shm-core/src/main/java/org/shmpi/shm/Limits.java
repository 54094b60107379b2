package org.shmpi.shm;

import java.io.IOException;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The process limits a failure may be owed to, named in its message. The open-file limit is read
 * with {@code getrlimit(2)}, which needs no descriptor: it can be told when the descriptors have
 * run out.
 */
public final class Limits
{
    private static final int RLIMIT_NOFILE = 7;
    private static final String TOO_MANY_FILES = "Too many open files";

    /** Descriptors held back for cleaning up after the others have run out (a directory walk takes two). */
    private static final int RESERVED = 4;
    private static java.io.FileInputStream[] reserve;
    private static long knownLimit = -1;

    private Limits()
    {
    }

    /**
     * Holds a few descriptors in reserve (once per process): a cleanup that finds the limit
     * reached gives them back with {@link #releaseReserve} and can then walk a directory to remove it.
     */
    public static synchronized void reserve()
    {
        if (reserve != null)
        {
            return;
        }
        reserve = new java.io.FileInputStream[RESERVED];
        openFiles();
        try
        {
            for (int i = 0; i < RESERVED; i++)
            {
                reserve[i] = new java.io.FileInputStream("/dev/null");
            }
        }
        catch (final IOException ex)
        {
            // Fewer in reserve: a cleanup at the limit may then fail, with the limit named.
        }
    }

    /** Gives the reserved descriptors back; whether there were any. */
    public static synchronized boolean releaseReserve()
    {
        if (reserve == null || reserve[0] == null)
        {
            return false;
        }
        for (final java.io.FileInputStream f : reserve)
        {
            try
            {
                if (f != null)
                {
                    f.close();
                }
            }
            catch (final IOException ex)
            {
                // Closed either way.
            }
        }
        reserve = new java.io.FileInputStream[RESERVED];
        return true;
    }

    /** Bound to libc on first use. */
    private static final class Libc
    {
        static
        {
            Native.register(Libc.class, NativeLibrary.getInstance("c"));
        }

        static native int getrlimit(int resource, long[] limit);

        private Libc()
        {
        }
    }

    /**
     * The soft limit of open files of this process, or -1 when it cannot be told; the value read
     * when the reserve was taken when it cannot be read now (loading the native library needs
     * descriptors).
     */
    public static synchronized long openFiles()
    {
        try
        {
            final long[] limit = new long[2];
            if (Libc.getrlimit(RLIMIT_NOFILE, limit) == 0)
            {
                knownLimit = limit[0];
            }
        }
        catch (final LinkageError | RuntimeException ex)
        {
            // The last value known.
        }
        return knownLimit;
    }

    /** Whether {@code ex} says this process has as many files open as its limit allows (EMFILE). */
    public static boolean isTooManyFiles(final Throwable ex)
    {
        return ex != null && ex.getMessage() != null && ex.getMessage().contains(TOO_MANY_FILES);
    }

    /**
     * Whether {@code ex} says no process or thread could be made (fork's EAGAIN, the JVM's
     * "unable to create native thread").
     */
    public static boolean isProcessLimit(final Throwable ex)
    {
        final String m = ex == null ? null : ex.getMessage();
        return m != null && (m.contains("unable to create native thread") || m.contains("error=11,") ||
            m.contains("Resource temporarily unavailable"));
    }

    /** {@code message}, with the open-file or process limit named when {@code ex} is owed to one. */
    public static String explain(final String message, final Throwable ex)
    {
        if (isProcessLimit(ex) && !message.contains("ulimit -u"))
        {
            return message + " (a limit of processes and threads was reached: ulimit -u, or the pids limit of " +
                "the job's control group)";
        }
        if (!isTooManyFiles(ex) || message.contains("ulimit -n"))
        {
            return message;
        }
        final long limit = openFiles();
        return message + " (this process has as many files open as its limit allows: ulimit -n " +
            (limit < 0 ? "?" : Long.toString(limit)) + "; raise it or close files)";
    }

    /** {@code ex} itself, or when it is EMFILE an IOException whose message names the open-file limit. */
    public static IOException explain(final IOException ex)
    {
        return isTooManyFiles(ex) ? new IOException(explain(ex.getMessage(), ex), ex) : ex;
    }
}
