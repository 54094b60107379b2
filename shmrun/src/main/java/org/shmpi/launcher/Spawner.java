package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import org.shmpi.shm.AbortKind;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.RankState;
import org.shmpi.shm.ShmpiConfig;

/**
 * The launcher's part of {@code MPI_Comm_spawn}: takes the requests ranks write into their job's
 * {@code spawn} folder, starts each request's processes as a job of their own (a directory
 * {@code spawn-<n>} inside the launcher's job directory, so it goes with it), relays their output,
 * and watches them. Until the spawning root acknowledges the connection a child that cannot start
 * or exits fails the spawn only (a reply file tells the root; the other children are ended); after
 * it the children are ranks of the job like any other: one that fails ends the whole job, and the
 * job ends when they have ended too. Spawned processes may spawn in turn. Monitor thread only,
 * but for {@link #heartbeat} and {@link #abortAll}.
 */
final class Spawner
{
    /** How {@link Job} records a failure that ends the job. */
    interface Failure
    {
        void fail(int kind, int rank, int exitStatus, String message);
    }

    private static final String FOLDER = "spawn";
    private static final int STARTING = 0;
    private static final int JOINED = 1;
    private static final int DONE = 2;

    private final Path top;
    private final ShmpiConfig config;
    private final Map<String, String> baseEnv;
    private final Object outputLock;
    private final boolean tagOutput;
    private final boolean keepShm;
    private final int universeSize;
    private final Failure failure;
    private final List<Child> children = new CopyOnWriteArrayList<>();
    private final List<Thread> pumps;
    private int next = 1;

    /** One spawn's processes: their job, and where the spawn is. */
    private final class Child
    {
        final int id;
        final JobDirectory dir;
        final JobFile job;
        final Path request;
        final Path reply;
        final Path ack;
        final List<Process> processes = new ArrayList<>();
        final String[] what;
        boolean[] exited;
        /** When each process was first seen stopped (SIGSTOP) before it had a heartbeat; 0: not. */
        long[] stoppedSince;
        int state = STARTING;
        long deadlineNs;

        Child(final int id, final JobDirectory dir, final JobFile job, final Path request, final int n)
        {
            this.id = id;
            this.dir = dir;
            this.job = job;
            this.request = request;
            final String base = request.getFileName().toString().replace(".taken", "");
            this.reply = request.resolveSibling(base + ".rep");
            this.ack = request.resolveSibling(base + ".ack");
            this.what = new String[n];
        }
    }

    Spawner(final Path top, final ShmpiConfig config, final Map<String, String> baseEnv, final Object outputLock,
        final boolean tagOutput, final boolean keepShm, final int universeSize, final List<Thread> pumps,
        final Failure failure)
    {
        this.top = top;
        this.config = config;
        this.baseEnv = baseEnv;
        this.outputLock = outputLock;
        this.tagOutput = tagOutput;
        this.keepShm = keepShm;
        this.universeSize = universeSize;
        this.pumps = pumps;
        this.failure = failure;
    }

    /** Whether spawned processes still run. */
    boolean hasRunning()
    {
        for (final Child c : children)
        {
            if (c.state != DONE)
            {
                return true;
            }
        }
        return false;
    }

    /** One look: new requests, children that joined, exited or never connected. */
    void poll(final boolean aborting)
    {
        if (!aborting)
        {
            takeRequests(top);
            for (final Child c : children)
            {
                if (c.state != DONE)
                {
                    takeRequests(c.dir.path());
                }
            }
        }
        for (final Child c : children)
        {
            if (c.state != DONE)
            {
                watch(c, aborting);
            }
        }
    }

    /** Heartbeat thread: the launcher is alive, for every spawned job too. */
    void heartbeat(final long nanoTime)
    {
        for (final Child c : children)
        {
            if (c.state != DONE)
            {
                c.job.launcherHeartbeat(nanoTime);
            }
        }
    }

    /** The job ends: every spawned job records the abort (their ranks end within a heartbeat). */
    void abortAll(final int kind, final String reason)
    {
        for (final Child c : children)
        {
            if (c.state != DONE)
            {
                c.job.tryAbort(kind, -1, 1, reason);
            }
        }
    }

    /** Kills every spawned process still running. */
    void killAll()
    {
        for (final Child c : children)
        {
            for (final Process p : c.processes)
            {
                if (p.isAlive())
                {
                    p.destroyForcibly();
                }
            }
        }
    }

    private void takeRequests(final Path jobDir)
    {
        final Path folder = jobDir.resolve(FOLDER);
        if (!Files.isDirectory(folder))
        {
            return;
        }
        final List<Path> requests;
        try (Stream<Path> files = Files.list(folder))
        {
            requests = files.filter(f -> f.getFileName().toString().endsWith(".req")).sorted().toList();
        }
        catch (final IOException ex)
        {
            return;
        }
        for (final Path req : requests)
        {
            final Path taken = req.resolveSibling(req.getFileName().toString().replace(".req", ".taken"));
            try
            {
                Files.move(req, taken, StandardCopyOption.ATOMIC_MOVE);
            }
            catch (final IOException ex)
            {
                continue;
            }
            start(taken);
        }
    }

    private void start(final Path taken)
    {
        final Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(taken, StandardCharsets.UTF_8))
        {
            p.load(r);
        }
        catch (final IOException ex)
        {
            answerFailed(taken, 0, "cannot read the spawn request: " + ex.getMessage());
            return;
        }
        final int apps = Integer.parseInt(p.getProperty("apps", "0"));
        int total = 0;
        for (int a = 0; a < apps; a++)
        {
            total += Integer.parseInt(p.getProperty("maxprocs." + a));
        }
        final int id = next++;
        final Child c;
        try
        {
            final Path dirPath = top.resolve("spawn-" + id);
            Files.createDirectory(dirPath, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            final JobDirectory dir = new JobDirectory(dirPath);
            final JobFile jf = JobFile.create(dir.jobFile(), total, ProcessHandle.current().pid(),
                org.shmpi.shm.Processes.selfStartMillis(), config.ringCapacity());
            c = new Child(id, dir, jf, taken, total);
        }
        catch (final IOException ex)
        {
            answerFailed(taken, total, "cannot make the spawned job's directory: " + ex.getMessage());
            return;
        }
        children.add(c);
        c.exited = new boolean[total];
        c.stoppedSince = new long[total];
        c.deadlineNs = System.nanoTime() + (config.connectTimeoutMs() + 30_000L) * 1_000_000L;
        int rank = 0;
        for (int a = 0; a < apps; a++)
        {
            final int n = Integer.parseInt(p.getProperty("maxprocs." + a));
            final List<String> cmd = command(p, a);
            for (int i = 0; i < n; i++, rank++)
            {
                c.what[rank] = described(p, a);
                final ProcessBuilder pb = new ProcessBuilder(cmd);
                final String wdir = p.getProperty("wdir." + a);
                if (wdir != null)
                {
                    pb.directory(new File(wdir));
                }
                final Map<String, String> env = pb.environment();
                env.putAll(baseEnv);
                final String extra = p.getProperty("env." + a);
                if (extra != null)
                {
                    for (final String line : extra.split("\n"))
                    {
                        final int eq = line.indexOf('=');
                        if (eq > 0)
                        {
                            env.put(line.substring(0, eq).trim(), line.substring(eq + 1));
                        }
                    }
                }
                if (!isJava(p.getProperty("command." + a)))
                {
                    env.put("CLASSPATH", p.getProperty("classpath", ""));
                }
                env.put(RankProcess.JOB_DIR_ENV, c.dir.path().toString());
                env.put(RankProcess.RANK_ENV, Integer.toString(rank));
                env.put(RankProcess.WORLD_SIZE_ENV, Integer.toString(total));
                env.put("SHMPI_SPAWN", "1");
                env.put("SHMPI_PARENT_PORT", p.getProperty("port"));
                env.put("SHMPI_APPNUM", Integer.toString(a));
                env.put("SHMPI_UNIVERSE_SIZE", Integer.toString(universeSize));
                env.put("OMPI_COMM_WORLD_RANK", Integer.toString(rank));
                env.put("OMPI_COMM_WORLD_SIZE", Integer.toString(total));
                env.put("OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(rank));
                env.put("OMPI_COMM_WORLD_LOCAL_SIZE", Integer.toString(total));
                if (keepShm)
                {
                    env.put(ShmpiConfig.envName(ShmpiConfig.SHM_KEEP_PROP), "true");
                }
                pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                try
                {
                    final Process process = pb.start();
                    c.processes.add(process);
                    final String tag = "[" + (id + 1) + "," + rank + "]";
                    final OutputPump out = new OutputPump("shmrun-spawn-out-" + id + "-" + rank,
                        process.getInputStream(), System.out, outputLock, tagOutput ? tag + "<stdout>:" : null);
                    final OutputPump err = new OutputPump("shmrun-spawn-err-" + id + "-" + rank,
                        process.getErrorStream(), System.err, outputLock, tagOutput ? tag + "<stderr>:" : null);
                    out.start();
                    pumps.add(out);
                    err.start();
                    pumps.add(err);
                }
                catch (final IOException | OutOfMemoryError ex)
                {
                    // OutOfMemoryError: a thread (the JDK's process reaper, an output pump) could not be made,
                    // e.g. at a process limit. The spawn fails; the launcher and the parents' job go on.
                    end(c, ErrorClass.ERR_SPAWN, org.shmpi.shm.Limits.explain("cannot start spawned process " + rank +
                        " (" + c.what[rank] + "): " + ex.getMessage(), ex));
                    return;
                }
            }
        }
    }

    /** Command {@code a} as the program gave it: the command and its arguments. */
    private static String described(final Properties p, final int a)
    {
        final StringBuilder b = new StringBuilder(p.getProperty("command." + a));
        final int argc = Integer.parseInt(p.getProperty("argc." + a, "0"));
        for (int j = 0; j < argc; j++)
        {
            b.append(' ').append(p.getProperty("arg." + a + "." + j));
        }
        return b.toString();
    }

    private static boolean isJava(final String command)
    {
        return command.equals("java") || command.endsWith("/java");
    }

    /** The command line of command {@code a}: a JVM with the parent's flags and class path, or the command as given. */
    private static List<String> command(final Properties p, final int a)
    {
        final String command = p.getProperty("command." + a);
        final List<String> cmd = new ArrayList<>();
        if (isJava(command))
        {
            cmd.add(Job.javaCommand());
            final int flags = Integer.parseInt(p.getProperty("jvmflags", "0"));
            for (int i = 0; i < flags; i++)
            {
                cmd.add(p.getProperty("jvmflag." + i));
            }
            cmd.add("-cp");
            cmd.add(p.getProperty("classpath", "."));
        }
        else
        {
            cmd.add(command);
        }
        final int argc = Integer.parseInt(p.getProperty("argc." + a, "0"));
        for (int j = 0; j < argc; j++)
        {
            cmd.add(p.getProperty("arg." + a + "." + j));
        }
        return cmd;
    }

    private void watch(final Child c, final boolean aborting)
    {
        if (c.state == STARTING && Files.exists(c.ack))
        {
            c.state = JOINED;
        }
        boolean allExited = true;
        for (int r = 0; r < c.processes.size(); r++)
        {
            final Process p = c.processes.get(r);
            if (!c.exited[r] && !p.isAlive())
            {
                c.exited[r] = true;
                exited(c, r, p, aborting);
                if (c.state == DONE)
                {
                    return;
                }
            }
            allExited &= c.exited[r];
        }
        if (!aborting && unresponsive(c))
        {
            return;
        }
        if (c.state == STARTING && System.nanoTime() - c.deadlineNs > 0)
        {
            end(c, ErrorClass.ERR_SPAWN, "the spawned processes did not connect to their parents within " +
                (config.connectTimeoutMs() / 1000 + 30) + " s");
            return;
        }
        if (allExited && c.processes.size() == c.exited.length && c.state == JOINED)
        {
            finish(c);
        }
    }

    /**
     * As {@link Job}'s own ranks: a spawned rank whose heartbeat is older than {@code
     * shmpi.rank.timeout.ms} (stopped, e.g. by SIGSTOP) is killed; before its spawn joined, the
     * spawn fails; after, the job ends, naming it. Whether it was so.
     */
    private boolean unresponsive(final Child c)
    {
        final long timeoutNs = config.rankTimeoutMs() * 1_000_000L;
        if (timeoutNs <= 0)
        {
            return false;
        }
        final long now = System.nanoTime();
        for (int r = 0; r < c.processes.size(); r++)
        {
            final int state = c.job.state(r);
            final Process p = c.processes.get(r);
            final boolean started = state == RankState.STARTED || state == RankState.INITIALIZED;
            final String message;
            if (!c.exited[r] && !started)
            {
                // Not attached yet, so no heartbeat to miss: a process stopped before it got there
                // is seen in /proc (state T) and counts as unresponsive after the same time.
                if (!Processes.isStopped(p.pid()))
                {
                    c.stoppedSince[r] = 0;
                    continue;
                }
                if (c.stoppedSince[r] == 0)
                {
                    c.stoppedSince[r] = now;
                }
                if (now - c.stoppedSince[r] <= timeoutNs)
                {
                    continue;
                }
                message = "spawned rank " + r + " of spawn " + c.id + " (pid " + p.pid() + ") is unresponsive: " +
                    "stopped (e.g. by SIGSTOP) for " + (now - c.stoppedSince[r]) / 1_000_000 + " ms before it " +
                    "started MPI (shmpi.rank.timeout.ms=" + config.rankTimeoutMs() + ")";
            }
            else
            {
                final long silentNs = now - c.job.heartbeat(r);
                if (c.exited[r] || !started || silentNs <= timeoutNs)
                {
                    continue;
                }
                message = "spawned rank " + r + " of spawn " + c.id + " (pid " + p.pid() + ") is " +
                    "unresponsive: no heartbeat for " + silentNs / 1_000_000 + " ms (stopped, e.g. by SIGSTOP, or " +
                    "starved of CPU; shmpi.rank.timeout.ms=" + config.rankTimeoutMs() + ")";
            }
            if (c.state == STARTING)
            {
                end(c, ErrorClass.ERR_SPAWN, message);
            }
            else
            {
                failure.fail(AbortKind.RANK_FAILED, -1, 1, "shmrun: " + message);
                // A stopped process cannot take the abort: it goes now, the others with the grace period.
                p.destroyForcibly();
            }
            return true;
        }
        return false;
    }

    private void exited(final Child c, final int rank, final Process p, final boolean aborting)
    {
        final int code = p.exitValue();
        final int state = c.job.state(rank);
        if (c.state == STARTING)
        {
            if (!Files.exists(c.ack))
            {
                end(c, ErrorClass.ERR_SPAWN, "spawned process " + rank + " (pid " + p.pid() + ", " + c.what[rank] +
                    ") exited with code " + code + " before it connected to its parents");
                return;
            }
            c.state = JOINED;
        }
        if (aborting || (code == 0 && state == RankState.FINALIZED))
        {
            return;
        }
        final String how = code == 0 ? "exited without calling MPI_Finalize" :
            code > 128 && code < 128 + 65 && state != RankState.FAILED ?
                "killed by signal " + (code - 128) + " (" + Signals.name(code - 128) + ")" : "exited with code " + code;
        final long publishedBy = System.nanoTime() + 200_000_000L;
        while (c.job.isAborted() && !c.job.isAbortPublished() && System.nanoTime() - publishedBy < 0)
        {
            Thread.onSpinWait();
        }
        final String recorded = c.job.isAborted() && c.job.abortReason() != null ? ": " + c.job.abortReason() : "";
        final int failed = c.job.isAbortPublished() && c.job.abortKind() == AbortKind.RANK_FAILED &&
            c.job.abortReason() != null ? c.job.abortRank() : -1;
        if (failed >= 0 && failed != rank && failed < c.exited.length)
        {
            // Another spawned rank failed and its job's abort ended this one: name the one that failed (as Job does).
            failure.fail(AbortKind.RANK_FAILED, -1, code == 0 ? 1 : code, "shmrun: spawned rank " + failed +
                " of spawn " + c.id + " (pid " + c.job.pid(failed) + ") failed: " +
                Job.stripRankPrefix(c.job.abortReason(), failed));
            return;
        }
        failure.fail(AbortKind.RANK_EXITED, -1, code == 0 ? 1 : code, "shmrun: spawned rank " + rank + " of spawn " +
            c.id + " (pid " + p.pid() + ") " + how + recorded);
    }

    /** A spawn that failed before its children joined: the root is told, the children ended, their job removed. */
    private void end(final Child c, final int code, final String message)
    {
        c.job.tryAbort(AbortKind.RANK_EXITED, -1, 1, message);
        answerFailed(c.request, c.exited.length, message);
        for (final Process p : c.processes)
        {
            p.destroyForcibly();
        }
        for (final Process p : c.processes)
        {
            try
            {
                p.waitFor();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        finish(c);
    }

    /** Every process of {@code c} has ended: its job goes, with the spawn's files. */
    private void finish(final Child c)
    {
        c.state = DONE;
        c.job.close();
        try
        {
            // A reply (a failed spawn) is the root's to read and remove.
            Files.deleteIfExists(c.request);
            Files.deleteIfExists(c.ack);
        }
        catch (final IOException ignore)
        {
            // Removed with the job's directory at the end.
        }
        if (!keepShm)
        {
            try
            {
                c.dir.delete();
            }
            catch (final IOException ignore)
            {
                // Removed with the job's directory at the end.
            }
        }
        children.remove(c);
    }

    private static void answerFailed(final Path request, final int n, final String message)
    {
        final Properties p = new Properties();
        p.setProperty("status", "failed");
        p.setProperty("message", message);
        for (int i = 0; i < n; i++)
        {
            p.setProperty("code." + i, Integer.toString(ErrorClass.ERR_SPAWN));
        }
        final String base = request.getFileName().toString().replace(".taken", "");
        final Path tmp = request.resolveSibling(base + ".rtmp");
        try
        {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8))
            {
                p.store(w, null);
            }
            Files.move(tmp, request.resolveSibling(base + ".rep"), StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ignore)
        {
            // The root then waits for its connect timeout.
        }
    }
}
