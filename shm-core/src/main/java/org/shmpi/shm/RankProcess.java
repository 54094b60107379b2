package org.shmpi.shm;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * This process's membership in a job: it attaches to the job file named by the environment
 * that {@code shmrun} sets ({@link #JOB_DIR_ENV}, {@link #RANK_ENV}), publishes its pid and
 * state, heartbeats, and watches the job. Without that environment the process is a singleton:
 * it creates a private job of size 1 and removes it when it finalizes or exits.
 *
 * <p>The watchdog thread is what guarantees that no rank waits forever: when the job's abort
 * word is set, or the launcher's heartbeat stops, it ends this process within one interval.
 */
public final class RankProcess implements AutoCloseable
{
    public static final String JOB_DIR_ENV = "SHMPI_JOB_DIR";
    public static final String RANK_ENV = "SHMPI_RANK";
    public static final String WORLD_SIZE_ENV = "SHMPI_WORLD_SIZE";

    /** Exit status of a rank ended because another rank or the launcher failed. */
    public static final int ABORTED_EXIT_CODE = 1;

    /** How a process stands to its job's directory and to whoever watches the job. */
    public enum Role
    {
        /** Started by {@code shmrun}, which watches the job and removes its directory. */
        RANK,
        /** Alone: its own launcher; removes its directory when it ends. */
        SINGLETON,
        /**
         * The first rank of a node of a multi-node job: created the node's directory and job file,
         * keeps the launcher heartbeat, removes the directory when it ends.
         */
        NODE_LEADER,
        /** Another rank of a node of a multi-node job: watches its node leader as its launcher. */
        NODE_MEMBER
    }

    /** How long the watchdog waits for the engines' owner to describe them. */
    static final long STATUS_ANSWER_TIMEOUT_MS = 300;

    private final ShmpiConfig config;
    private final JobDirectory directory;
    private final JobFile job;
    private final int rank;
    private final boolean singleton;
    private final Role role;
    private final java.util.List<Runnable> beforeHalt = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final long launcherPid;
    private final long launcherStartMillis;
    private volatile boolean watchdogRunning;
    private Thread watchdog;
    private volatile boolean closed;
    private volatile StatusSource statusSource;
    private int statusAnswered;

    private RankProcess(
        final ShmpiConfig config,
        final JobDirectory directory,
        final JobFile job,
        final int rank,
        final Role role)
    {
        this.config = config;
        this.directory = directory;
        this.job = job;
        this.rank = rank;
        this.role = role;
        this.singleton = role == Role.SINGLETON;
        this.launcherPid = job.launcherPid();
        this.launcherStartMillis = job.launcherStartMillis();
    }

    /**
     * Joins the job named by {@code env}, or starts a singleton job when {@code env} names none.
     * Publishes STARTED in this rank's slot.
     */
    public static RankProcess attach(final ShmpiConfig config, final Map<String, String> env) throws IOException
    {
        final String dir = env.get(JOB_DIR_ENV);
        // Read now: an error at the open-file limit names it, and then it cannot be read.
        Limits.openFiles();
        final long pid = ProcessHandle.current().pid();
        final long startMillis = Processes.selfStartMillis();
        if (dir == null || dir.isEmpty())
        {
            final JobDirectory directory = JobDirectory.create(config.shmDir(), pid, startMillis);
            try
            {
                final JobFile job = JobFile.create(directory.jobFile(), 1, pid, startMillis, config.ringCapacity());
                job.publishStarted(0, pid, startMillis);
                return new RankProcess(config, directory, job, 0, Role.SINGLETON);
            }
            catch (final IOException | RuntimeException | LinkageError ex)
            {
                // A singleton is its own launcher: nobody else would remove what it just created.
                deleteQuietly(directory);
                throw ex;
            }
        }
        final String rankText = env.get(RANK_ENV);
        final int rank;
        try
        {
            rank = Integer.parseInt(rankText == null ? "" : rankText.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IOException("bad or missing " + RANK_ENV + ": " + RANK_ENV + "=" + rankText, ex);
        }
        final JobDirectory directory = new JobDirectory(java.nio.file.Path.of(dir));
        final JobFile job = JobFile.attach(directory.jobFile(), config.initTimeoutMs());
        if (rank < 0 || rank >= job.worldSize())
        {
            job.close();
            throw new IOException("rank out of range: " + RANK_ENV + "=" + rank + ", worldSize=" + job.worldSize());
        }
        job.publishStarted(rank, pid, startMillis);
        return new RankProcess(config, directory, job, rank, Role.RANK);
    }

    /**
     * A rank of one node of a multi-node job, on a job file its node leader made (the leader
     * itself when {@code role} is {@link Role#NODE_LEADER}). Publishes STARTED.
     */
    public static RankProcess inNode(
        final ShmpiConfig config, final JobDirectory directory, final JobFile job, final int rank, final Role role)
    {
        if (role != Role.NODE_LEADER && role != Role.NODE_MEMBER)
        {
            throw new IllegalArgumentException("not a node role: " + role);
        }
        job.publishStarted(rank, ProcessHandle.current().pid(), Processes.selfStartMillis());
        return new RankProcess(config, directory, job, rank, role);
    }

    /** How this process stands to its job. */
    public Role role()
    {
        return role;
    }

    /**
     * Runs {@code hook} when this process ends itself (the job aborted, its launcher gone), before
     * the directory of a process that owns it is removed: a node leader tells the other nodes, the
     * job report writes the rank's last record. Hooks run in the order they were added.
     */
    public void beforeHalt(final Runnable hook)
    {
        beforeHalt.add(hook);
    }

    public int rank()
    {
        return rank;
    }

    public int worldSize()
    {
        return job.worldSize();
    }

    public JobFile job()
    {
        return job;
    }

    public JobDirectory directory()
    {
        return directory;
    }

    public ShmpiConfig config()
    {
        return config;
    }

    public boolean isSingleton()
    {
        return singleton;
    }

    /** Starts the heartbeat/watchdog daemon thread. */
    public synchronized void startWatchdog()
    {
        if (watchdog != null)
        {
            return;
        }
        watchdogRunning = true;
        watchdog = new Thread(this::watch, "shmpi-watchdog-" + rank);
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private volatile java.util.function.Supplier<String> alsoWatch;
    private volatile Runnable everyBeat;

    private void watch()
    {
        final long intervalMs = config.heartbeatIntervalMs();
        final long launcherTimeoutNs = config.launcherTimeoutMs() * 1_000_000L;
        while (watchdogRunning)
        {
            final long now = System.nanoTime();
            job.heartbeat(rank, now);
            if (role == Role.NODE_LEADER)
            {
                job.launcherHeartbeat(now);
            }
            if (job.isAborted())
            {
                onJobAborted();
            }
            final java.util.function.Supplier<String> extra = alsoWatch;
            final String failed = extra == null ? null : extra.get();
            if (failed != null && watchdogRunning)
            {
                System.err.println("shmpi: rank " + rank + ": " + failed);
                abortJob(AbortKind.RANK_FAILED, ABORTED_EXIT_CODE, "rank " + rank + ": " + failed);
            }
            final Runnable beat = everyBeat;
            if (beat != null)
            {
                beat.run();
            }
            final int request = job.statusRequest();
            if (request != statusAnswered)
            {
                answerStatus(request);
            }
            if (role == Role.RANK || role == Role.NODE_MEMBER)
            {
                final long sinceLauncher = now - job.launcherHeartbeat();
                if (sinceLauncher > launcherTimeoutNs || !Processes.isAlive(launcherPid, launcherStartMillis))
                {
                    if (!watchdogRunning)
                    {
                        return;
                    }
                    if (role == Role.NODE_MEMBER)
                    {
                        // Nobody else is left to remove this node's files.
                        deleteQuietly();
                        halt(ABORTED_EXIT_CODE, "shmpi: rank " + rank + ": the node's first rank (pid " + launcherPid +
                            ") is gone; exiting");
                    }
                    halt(ABORTED_EXIT_CODE, "shmpi: rank " + rank + ": launcher (pid " + launcherPid +
                        ") is gone; exiting");
                }
            }
            try
            {
                Thread.sleep(intervalMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    /** A task the watchdog runs every heartbeat interval (the job report's flush); one at a time. */
    public void everyHeartbeat(final Runnable task)
    {
        everyBeat = task;
    }

    /**
     * A further check of the watchdog, every heartbeat interval: a reason when the job must end
     * (e.g. a process of another job this rank is connected to died), else null.
     */
    public void alsoWatch(final java.util.function.Supplier<String> check)
    {
        alsoWatch = check;
    }

    /** The runtime that describes this rank's engines in status files (MPI sets it in Init). */
    public void statusSource(final StatusSource source)
    {
        statusSource = source;
    }

    /** Path of rank {@code rank}'s status file in job directory {@code dir}. */
    public static Path statusFile(final Path dir, final int rank)
    {
        return dir.resolve("status-" + rank + ".txt");
    }

    /**
     * Writes this rank's status file for request {@code request} (to a temporary name, then
     * moved into place) and publishes the request as answered. A failure to write is answered
     * too (the report then says the file is missing) so that the requester never waits on it.
     */
    private void answerStatus(final int request)
    {
        final boolean threads = (job.statusFlags() & JobFileDescriptor.STATUS_FLAG_THREADS) != 0;
        final StringBuilder out = new StringBuilder(1024);
        out.append("rank ").append(rank).append(" pid ").append(ProcessHandle.current().pid()).append('\n');
        final StatusSource source = statusSource;
        String engines = null;
        if (source != null)
        {
            try
            {
                engines = source.describe(STATUS_ANSWER_TIMEOUT_MS);
            }
            catch (final RuntimeException ex)
            {
                engines = "engines: not described: " + ex + "\n";
            }
        }
        out.append(engines != null ? engines : source == null ?
            "engines: not started (before MPI_Init or after MPI_Finalize)\n" :
            "engines: not sampled (no thread of this rank is inside an MPI call)\n");
        appendThreads(out, threads);
        final Path file = statusFile(directory.path(), rank);
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try
        {
            Files.writeString(tmp, out);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            System.err.println("shmpi: rank " + rank + ": cannot write status file " + file + ": " + ex);
        }
        statusAnswered = request;
        job.statusAnswered(rank, request);
    }

    private static void appendThreads(final StringBuilder out, final boolean all)
    {
        for (final Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet())
        {
            final Thread t = e.getKey();
            final boolean interesting = !t.isDaemon() && !"DestroyJavaVM".equals(t.getName()) &&
                !"Reference Handler".equals(t.getName());
            if (!all && !interesting)
            {
                continue;
            }
            out.append("thread \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
            final StackTraceElement[] stack = e.getValue();
            int from = 0;
            if (!all)
            {
                // The program's frames are what tell where it is: skip shmpi's own on top.
                while (from < stack.length - 1 && isRuntimeFrame(stack[from]))
                {
                    from++;
                }
                if (from > 0)
                {
                    out.append("    (").append(from).append(" frames inside shmpi)\n");
                }
            }
            final int frames = all ? stack.length : Math.min(stack.length, from + 20);
            for (int i = from; i < frames; i++)
            {
                out.append("    at ").append(stack[i]).append('\n');
            }
            if (frames < stack.length)
            {
                out.append("    ... ").append(stack.length - frames).append(" more\n");
            }
        }
    }

    private static boolean isRuntimeFrame(final StackTraceElement frame)
    {
        final String c = frame.getClassName();
        return c.startsWith("org.shmpi.shm.") || c.startsWith("org.shmpi.ring.") || c.startsWith("mpi.") ||
            c.startsWith("com.sun.jna.") || c.startsWith("java.") || c.startsWith("jdk.");
    }

    private void onJobAborted()
    {
        if (!watchdogRunning)
        {
            return;
        }
        // Wait briefly for the abort's fields to be published, to report the right code.
        final long deadline = System.nanoTime() + 100_000_000L;
        while (!job.isAbortPublished() && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        final int code = job.abortRank() == rank && job.abortKind() == AbortKind.MPI_ABORT ?
            job.abortCode() : ABORTED_EXIT_CODE;
        halt(code, null);
    }

    /**
     * Ends this process because the job was aborted (another rank or the launcher ended it), as
     * its watchdog would: the node leader's hook runs and an owned directory is removed.
     */
    public void exitAborted()
    {
        halt(ABORTED_EXIT_CODE, null);
    }

    /** Ends this process at once (no shutdown hooks: they could block on shared state). */
    private void halt(final int code, final String message)
    {
        final PrintStream err = System.err;
        if (message != null)
        {
            err.println(message);
        }
        System.out.flush();
        err.flush();
        for (final Runnable hook : beforeHalt)
        {
            try
            {
                hook.run();
            }
            catch (final RuntimeException ex)
            {
                err.println("shmpi: rank " + rank + ": " + ex);
            }
        }
        if (singleton || role == Role.NODE_LEADER)
        {
            deleteQuietly();
        }
        Runtime.getRuntime().halt(code);
    }

    /**
     * Waits until every rank has published INITIALIZED (or later). Fails, after recording an
     * abort, when a rank failed or when the init deadline passes: the error names the ranks that
     * never came.
     */
    public void awaitAllInitialized() throws IOException
    {
        final long deadline = System.nanoTime() + config.initTimeoutMs() * 1_000_000L;
        final int size = job.worldSize();
        int next = 0;
        long napNs = 10_000;
        while (next < size)
        {
            final int state = job.state(next);
            if (state >= RankState.INITIALIZED && state != RankState.FAILED)
            {
                next++;
                continue;
            }
            if (state == RankState.FAILED || job.isAborted())
            {
                throw new IOException("job aborted while waiting in MPI_Init: rank " + next + " state=" +
                    RankState.name(state));
            }
            if (System.nanoTime() - deadline > 0)
            {
                final List<Integer> missing = new ArrayList<>();
                for (int r = 0; r < size; r++)
                {
                    final int s = job.state(r);
                    if (s < RankState.INITIALIZED)
                    {
                        missing.add(r);
                    }
                }
                final String reason = "MPI_Init timed out after " + config.initTimeoutMs() +
                    " ms: ranks never attached: " + missing;
                job.tryAbort(AbortKind.INIT_TIMEOUT, rank, 1, reason);
                throw new IOException(reason);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(napNs);
            napNs = Math.min(1_000_000, napNs * 2);
        }
    }

    /** Publishes INITIALIZED: this rank's inbox is ready for peers. */
    public void initialized()
    {
        job.state(rank, RankState.INITIALIZED);
    }

    /** Publishes FINALIZED and stops the watchdog. */
    public void finalized()
    {
        job.state(rank, RankState.FINALIZED);
        stopWatchdog();
    }

    /**
     * Aborts the job: records the reason (first aborter wins), marks this rank FAILED, and ends
     * the process with {@code exitCode}. The launcher stops the other ranks.
     */
    public void abortJob(final int kind, final int exitCode, final String reason)
    {
        job.tryAbort(kind, rank, exitCode, reason);
        job.failed(rank, exitCode);
        stopWatchdog();
        halt(exitCode, null);
    }

    /** Whether this job has been aborted (by anyone). */
    public boolean isJobAborted()
    {
        return job.isAborted();
    }

    private void stopWatchdog()
    {
        final Thread t;
        synchronized (this)
        {
            watchdogRunning = false;
            t = watchdog;
            watchdog = null;
        }
        if (t != null && t != Thread.currentThread())
        {
            t.interrupt();
            try
            {
                t.join(5_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void deleteQuietly()
    {
        deleteQuietly(directory);
    }

    private static void deleteQuietly(final JobDirectory directory)
    {
        try
        {
            directory.delete();
        }
        catch (final IOException ignore)
        {
            // A singleton's leftover directory is found as stale by shmrun --cleanup.
        }
    }

    /** Stops the watchdog, unmaps the job file; a singleton also removes its job directory. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        stopWatchdog();
        job.close();
        if (singleton)
        {
            deleteQuietly();
        }
    }
}
