package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.shmpi.shm.settings.SettingsRegistry;
import org.shmpi.affinity.Binding;
import org.shmpi.affinity.CpuSet;
import org.shmpi.affinity.MappingPolicy;
import org.shmpi.affinity.Topology;
import org.shmpi.shm.AbortKind;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.RankState;
import org.shmpi.shm.ShmpiConfig;

/**
 * One run of {@code shmrun}: creates the job in shared memory, starts one JVM per rank, relays
 * their output, watches them, and ends the job. The first rank that fails decides the exit
 * status and the one-line reason; the launcher then records an abort in the job file (every
 * rank's watchdog ends its process within one heartbeat interval) and kills whatever is still
 * running after the grace period. The job directory is removed at the end, whatever happened,
 * unless {@code --keep-shm}.
 */
final class Job
{
    /** Exit status when {@code --timeout} expires (as timeout(1)). */
    static final int TIMEOUT_EXIT_CODE = 124;
    private static final long POLL_MS = 5;
    /** {@code parent}: the job is named after, and watched through, the parent process (the script). */
    static final String IDENTITY_PROP = SettingsRegistry.LAUNCHER_IDENTITY.name();

    private final LaunchOptions options;
    private final ShmpiConfig config;
    private final List<String> shmpiClasspath;
    private final List<String> rankJvmFlags;
    private final List<String> defaultJvmFlags;
    private final ClassDataArchive archive;
    private boolean buildArchive;
    private final PrintStream err;
    private final Object outputLock = new Object();

    private JobDirectory directory;
    private JobFile job;
    private Spawner spawner;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private volatile int signal;
    /** Set by SIGUSR1 (the shmrun script turns SIGQUIT into it): print a status report. */
    private volatile boolean statusWanted;
    private volatile boolean finished;
    private boolean aborting;
    private long killDeadlineNs;
    private int status;
    private String reason;

    Job(final LaunchOptions options, final ShmpiConfig config, final List<String> shmpiClasspath,
        final List<String> rankJvmFlags, final List<String> defaultJvmFlags, final ClassDataArchive archive,
        final PrintStream err)
    {
        this.defaultJvmFlags = defaultJvmFlags;
        this.archive = archive;
        this.options = options;
        this.config = config;
        this.shmpiClasspath = shmpiClasspath;
        this.rankJvmFlags = rankJvmFlags;
        this.err = err;
    }

    int run() throws IOException
    {
        for (final Path stale : JobDirectory.cleanupStale(config.shmDir(), false))
        {
            err.println("shmrun: removed stale job directory " + stale);
        }
        // The bin/shmrun script stays between the caller and this JVM (to turn SIGQUIT into a
        // status report) and asks it to take the script's identity: the pid the caller knows.
        final boolean asParent = "parent".equals(System.getProperty(IDENTITY_PROP));
        final long pid = asParent ? Processes.parentPid() : ProcessHandle.current().pid();
        final long startMillis = asParent ? Processes.startMillis(pid) : Processes.selfStartMillis();
        directory = JobDirectory.create(config.shmDir(), pid, startMillis);
        final Thread cleanupHook = new Thread(this::emergencyCleanup, "shmrun-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
        try
        {
            job = JobFile.create(directory.jobFile(), options.np, pid, startMillis, config.ringCapacity());
            final Map<String, String> childEnv = new HashMap<>(System.getenv());
            childEnv.putAll(options.env);
            spawner = new Spawner(directory.path(), config, childEnv, outputLock, options.tagOutput, options.keepShm,
                universeSize(), pumps, this::failFromSpawn);
            final Thread heartbeat = new Thread(this::heartbeat, "shmrun-heartbeat");
            heartbeat.setDaemon(true);
            heartbeat.start();
            Signals.handle(sig -> signal = sig, "INT", "TERM");
            Signals.handle(sig -> statusWanted = true, "USR1");
            startRanks();
            monitor();
        }
        finally
        {
            finished = true;
            for (final Thread pump : pumps)
            {
                try
                {
                    pump.join(2_000);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
            if (options.keepShm)
            {
                directory.markKept();
                err.println("shmrun: job directory kept: " + directory.path() + " (until shmrun --cleanup)");
            }
            else
            {
                directory.delete();
            }
            try
            {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            }
            catch (final IllegalStateException ignore)
            {
                // Already shutting down.
            }
        }
        if (reason != null)
        {
            err.println(reason);
        }
        if (buildArchive)
        {
            // After the job, so that it does not compete with the ranks for CPU.
            archive.startBuild(javaCommand(), rankJvmFlags);
        }
        return status;
    }

    private void heartbeat()
    {
        while (!finished)
        {
            job.launcherHeartbeat(System.nanoTime());
            spawner.heartbeat(System.nanoTime());
            try
            {
                Thread.sleep(config.heartbeatIntervalMs());
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    private void startRanks() throws IOException
    {
        final RankPlacement placement = placement();
        final String java = javaCommand();
        // shmpi's jars first: its class-data archive holds them, and the JVM uses an archive only
        // when the class path it was made with is a prefix of the rank's.
        // Each entry once: a user's -cp that names shmpi's jars again keeps that prefix intact.
        final Set<String> cp = new LinkedHashSet<>(shmpiClasspath);
        if (options.classpath.isEmpty())
        {
            final String envCp = System.getenv("CLASSPATH");
            cp.add(envCp != null && !envCp.isEmpty() ? envCp : ".");
        }
        cp.addAll(options.classpath);
        final String classpath = String.join(File.pathSeparator, cp);
        final String dump = System.getProperty(ClassDataArchive.DUMP_PROP);
        final Map<String, String> rankEnv = new HashMap<>(System.getenv());
        rankEnv.putAll(options.env);
        final List<String> defaultFlags = new ArrayList<>(
            RankJvmDefaults.notOverridden(defaultJvmFlags, options.jvmArgs, rankEnv));
        if (archive != null &&
            RankJvmDefaults.notOverridden(archive.rankFlags(), options.jvmArgs, rankEnv).equals(archive.rankFlags()))
        {
            if (archive.exists())
            {
                defaultFlags.addAll(archive.rankFlags());
            }
            else
            {
                buildArchive = true;
            }
        }

        // More ranks than the CPUs the job may use: waiting ranks should not spin.
        final boolean oversubscribed = options.np > Runtime.getRuntime().availableProcessors();
        for (int rank = 0; rank < options.np; rank++)
        {
            final List<String> cmd = new ArrayList<>();
            if (placement.bindsForReal())
            {
                cmd.addAll(Binding.taskset(placement.cpusOf(rank)));
            }
            cmd.add(java);
            cmd.addAll(rankJvmFlags);
            cmd.addAll(defaultFlags);
            final CpuSet placed = placement.placedCpus(rank);
            if (placed != null && options.rankProperty(Binding.RANK_CPUS_PROP_NAME) == null)
            {
                cmd.add("-D" + Binding.RANK_CPUS_PROP_NAME + "=" + placed);
            }
            if (oversubscribed && options.rankProperty(ShmpiConfig.OVERSUBSCRIBED_PROP) == null)
            {
                cmd.add("-D" + ShmpiConfig.OVERSUBSCRIBED_PROP + "=true");
            }
            if (rank == 0 && dump != null)
            {
                cmd.add("-XX:ArchiveClassesAtExit=" + dump);
            }
            cmd.addAll(options.jvmArgs);
            cmd.add("-cp");
            cmd.add(classpath);
            cmd.add(options.mainClass);
            cmd.addAll(options.programArgs);

            final ProcessBuilder pb = new ProcessBuilder(cmd);
            final Map<String, String> env = pb.environment();
            env.putAll(options.env);
            env.put(RankProcess.JOB_DIR_ENV, directory.path().toString());
            env.put(RankProcess.RANK_ENV, Integer.toString(rank));
            env.put(RankProcess.WORLD_SIZE_ENV, Integer.toString(options.np));
            // This launcher takes spawn requests; MPI.UNIVERSE_SIZE.
            env.put("SHMPI_SPAWN", "1");
            env.put("SHMPI_UNIVERSE_SIZE", Integer.toString(universeSize()));
            if (options.keepShm)
            {
                // The ranks keep their segment files too, so the kept directory shows them.
                env.put(ShmpiConfig.envName(ShmpiConfig.SHM_KEEP_PROP), "true");
            }
            // Programs written for Open MPI sometimes read these.
            env.put("OMPI_COMM_WORLD_RANK", Integer.toString(rank));
            env.put("OMPI_COMM_WORLD_SIZE", Integer.toString(options.np));
            env.put("OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(rank));
            env.put("OMPI_COMM_WORLD_LOCAL_SIZE", Integer.toString(options.np));
            pb.redirectInput(rank == 0 ? ProcessBuilder.Redirect.INHERIT :
                ProcessBuilder.Redirect.from(new File("/dev/null")));
            final Process process;
            try
            {
                process = pb.start();
            }
            catch (final IOException ex)
            {
                fail(AbortKind.RANK_EXITED, rank, 127, org.shmpi.shm.Limits.explain("shmrun: cannot start rank " +
                    rank + ": " + ex.getMessage(), ex));
                return;
            }
            processes.add(process);
            final String outTag = options.tagOutput ? "[1," + rank + "]<stdout>:" : null;
            final String errTag = options.tagOutput ? "[1," + rank + "]<stderr>:" : null;
            final OutputPump out = new OutputPump("shmrun-out-" + rank, process.getInputStream(), System.out,
                outputLock, outTag);
            final OutputPump errPump = new OutputPump("shmrun-err-" + rank, process.getErrorStream(), System.err,
                outputLock, errTag);
            out.start();
            errPump.start();
            pumps.add(out);
            pumps.add(errPump);
            if (options.reportBindings)
            {
                synchronized (outputLock)
                {
                    err.println("shmrun: rank " + rank + " (pid " + process.pid() + ") " + placement.describe(rank));
                }
            }
        }
    }

    private RankPlacement placement()
    {
        // A topology file given to the ranks (shmrun -Dshmpi.topology.file=F) is the launcher's too,
        // so that both see the same machine.
        final Properties settings = new Properties();
        settings.putAll(System.getProperties());
        final String topologyFile = options.rankProperty(Topology.TOPOLOGY_FILE_PROP_NAME);
        if (topologyFile != null)
        {
            settings.setProperty(Topology.TOPOLOGY_FILE_PROP_NAME, topologyFile);
        }
        final Topology topology;
        try
        {
            topology = Topology.detect(settings);
        }
        catch (final RuntimeException ex)
        {
            if (options.bindTo != null && options.bindTo != MappingPolicy.NONE)
            {
                throw ex;
            }
            // Only binding needs the topology: without one, bind nothing and tell the ranks nothing.
            return RankPlacement.unbound(options.bindTo == MappingPolicy.NONE ? "--bind-to none" :
                "default: topology unknown: " + ex.getMessage());
        }
        return RankPlacement.decide(options.bindTo, topology, options.np);
    }

    /**
     * {@code MPI.UNIVERSE_SIZE}: {@code --universe-size}, else the CPUs of the machine (at least
     * the job's size). Spawning more is allowed (oversubscribed).
     */
    private int universeSize()
    {
        return options.universeSize > 0 ? options.universeSize :
            Math.max(options.np, Runtime.getRuntime().availableProcessors());
    }

    /** @return the JVM of the ranks: the launcher's own. */
    static String javaCommand()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private void monitor()
    {
        final boolean[] exited = new boolean[processes.size()];
        int running = processes.size();
        final long startNs = System.nanoTime();
        final long timeoutNs = options.timeoutSeconds * 1_000_000_000L;
        while (running > 0 || spawner.hasRunning())
        {
            spawner.poll(aborting);
            for (int r = 0; r < processes.size(); r++)
            {
                if (!exited[r] && !processes.get(r).isAlive())
                {
                    exited[r] = true;
                    running--;
                    onExit(r, processes.get(r));
                }
            }
            final long now = System.nanoTime();
            if (!aborting)
            {
                checkHeartbeats(exited, now);
            }
            final int sig = signal;
            if (sig != 0 && !aborting)
            {
                fail(AbortKind.LAUNCHER_SIGNALLED, -1, 128 + sig,
                    "shmrun: got " + Signals.name(sig) + "; terminated all ranks");
                for (final Process p : processes)
                {
                    p.destroy();
                }
            }
            if (statusWanted && !aborting)
            {
                statusWanted = false;
                final Thread report = new Thread(() -> printStatus("SIGQUIT"), "shmrun-status");
                report.setDaemon(true);
                report.start();
            }
            if (timeoutNs > 0 && now - startNs > timeoutNs && !aborting)
            {
                printStatus("--timeout " + options.timeoutSeconds + " s expired");
                fail(AbortKind.TIMEOUT, -1, TIMEOUT_EXIT_CODE,
                    "shmrun: job timed out after " + options.timeoutSeconds + " s; terminated all ranks");
            }
            if (aborting && now - killDeadlineNs > 0)
            {
                for (final Process p : processes)
                {
                    if (p.isAlive())
                    {
                        p.destroyForcibly();
                    }
                }
                spawner.killAll();
            }
            if (running > 0 || spawner.hasRunning())
            {
                try
                {
                    Thread.sleep(POLL_MS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        if (processes.size() < options.np && !aborting)
        {
            fail(AbortKind.RANK_EXITED, -1, 1, "shmrun: not every rank could be started");
        }
    }

    /**
     * A rank whose heartbeat is older than {@code shmpi.rank.timeout.ms} (its watchdog writes it
     * every heartbeat interval while the process runs) is unresponsive: stopped (SIGSTOP), or
     * starved that long. The job ends, naming it; it cannot end itself, so it is killed after the
     * grace period with the rest.
     */
    private void checkHeartbeats(final boolean[] exited, final long now)
    {
        final long timeoutNs = config.rankTimeoutMs() * 1_000_000L;
        if (timeoutNs <= 0)
        {
            return;
        }
        for (int r = 0; r < exited.length; r++)
        {
            final int state = job.state(r);
            if (exited[r] || (state != RankState.STARTED && state != RankState.INITIALIZED))
            {
                continue;
            }
            final long silentNs = now - job.heartbeat(r);
            if (silentNs > timeoutNs)
            {
                fail(AbortKind.RANK_FAILED, r, 1, "shmrun: rank " + r + " (pid " + processes.get(r).pid() +
                    ") is unresponsive: no heartbeat for " + silentNs / 1_000_000 + " ms (stopped, e.g. by " +
                    "SIGSTOP, or starved of CPU; shmpi.rank.timeout.ms=" + config.rankTimeoutMs() + ")");
                for (final Process p : processes)
                {
                    if (p.isAlive())
                    {
                        // A stopped process cannot take the abort: it goes now, and the others with the grace.
                        if (p.pid() == processes.get(r).pid())
                        {
                            p.destroyForcibly();
                        }
                    }
                }
                return;
            }
        }
    }

    /** Prints the job's status report (who waits on whom) to stderr, as one block. */
    private void printStatus(final String why)
    {
        final String report;
        try
        {
            report = StatusReport.collect(directory.path(), job, options.threads, StatusReport.ANSWER_TIMEOUT_MS);
        }
        catch (final RuntimeException ex)
        {
            synchronized (outputLock)
            {
                err.println("shmrun: status report failed: " + ex);
            }
            return;
        }
        synchronized (outputLock)
        {
            err.print("shmrun: " + why + "\n" + report);
            err.flush();
        }
    }

    private void onExit(final int rank, final Process process)
    {
        final int code = process.exitValue();
        final int state = job.state(rank);
        final boolean withoutFinalize = state == RankState.STARTED || state == RankState.INITIALIZED;
        if (aborting || (code == 0 && !withoutFinalize))
        {
            return;
        }
        if (code == 130 || code == 143)
        {
            // The terminal's Ctrl-C reaches the ranks too; let our own signal handler win the race.
            sleepQuietly(100);
            if (signal != 0)
            {
                return;
            }
        }
        if (failAsRecorded(code))
        {
            return;
        }
        final String what;
        final int exitStatus;
        if (code == 0)
        {
            what = "exited without calling MPI_Finalize";
            exitStatus = 1;
        }
        else if (code > 128 && code < 128 + 65 && state != RankState.FAILED)
        {
            what = "killed by signal " + (code - 128) + " (" + Signals.name(code - 128) + ")";
            exitStatus = code;
        }
        else
        {
            what = "exited with code " + code;
            exitStatus = code;
        }
        fail(AbortKind.RANK_EXITED, rank, exitStatus, "shmrun: rank " + rank + " (pid " + process.pid() + ") " + what);
    }

    /**
     * When a rank of this job has recorded why the job ends (MPI_Abort, a failure), fails the job
     * with that record (the first cause) rather than with what a process that then ended says;
     * whether it did. {@code code}: the exit code of the process that ended.
     */
    private boolean failAsRecorded(final int code)
    {
        if (!job.isAborted())
        {
            return false;
        }
        awaitAbortPublished();
        final int abortRank = job.abortRank();
        if (abortRank < 0)
        {
            return false;
        }
        final int kind = job.abortKind();
        final String recorded = job.abortReason();
        if (kind == AbortKind.MPI_ABORT)
        {
            fail(kind, abortRank, job.abortCode(), "shmrun: " + recorded);
        }
        else if (kind == AbortKind.RANK_FAILED)
        {
            fail(kind, abortRank, job.abortCode(), "shmrun: rank " + abortRank + " (pid " + job.pid(abortRank) +
                ") failed: " + stripRankPrefix(recorded, abortRank));
        }
        else
        {
            fail(kind, abortRank, code == 0 ? 1 : code, "shmrun: " + recorded);
        }
        return true;
    }

    /**
     * A spawned process failed or ended: when it did because a rank of this job aborted first (its
     * children see the parent end), the job ends as that abort says.
     */
    private void failFromSpawn(final int kind, final int rank, final int exitStatus, final String message)
    {
        if (aborting)
        {
            return;
        }
        if (job.isAborted())
        {
            awaitAbortPublished();
        }
        // Not when this job's record is itself a rank seeing a connected process end (that may be the spawned one).
        final boolean firstCause = job.isAborted() && (job.abortKind() == AbortKind.MPI_ABORT ||
            job.abortKind() == AbortKind.RANK_FAILED && !String.valueOf(job.abortReason()).contains("connected to"));
        if (!firstCause || !failAsRecorded(exitStatus))
        {
            fail(kind, rank, exitStatus, message);
        }
    }

    static String stripRankPrefix(final String recorded, final int rank)
    {
        final String prefix = "rank " + rank + " ";
        final String prefixColon = "rank " + rank + ": ";
        if (recorded.startsWith(prefixColon))
        {
            return recorded.substring(prefixColon.length());
        }
        return recorded.startsWith(prefix) ? recorded.substring(prefix.length()) : recorded;
    }

    private void awaitAbortPublished()
    {
        final long deadline = System.nanoTime() + 200_000_000L;
        while (!job.isAbortPublished() && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
    }

    /** Records the job's failure (first one wins) and starts the grace period before killing. */
    private void fail(final int kind, final int rank, final int exitStatus, final String message)
    {
        if (aborting)
        {
            return;
        }
        aborting = true;
        status = exitStatus;
        reason = message;
        job.tryAbort(kind, rank, exitStatus, message.startsWith("shmrun: ") ? message.substring(8) : message);
        spawner.abortAll(kind, message.startsWith("shmrun: ") ? message.substring(8) : message);
        killDeadlineNs = System.nanoTime() + config.abortGraceMs() * 1_000_000L;
    }

    /** JVM shutting down without finishing (e.g. SIGHUP): kill the ranks, remove the directory. */
    private void emergencyCleanup()
    {
        if (finished)
        {
            return;
        }
        if (job != null)
        {
            job.tryAbort(AbortKind.LAUNCHER_SIGNALLED, -1, 1, "launcher is shutting down");
        }
        for (final Process p : processes)
        {
            p.destroyForcibly();
        }
        if (spawner != null)
        {
            spawner.killAll();
        }
        if (!options.keepShm && directory != null)
        {
            try
            {
                directory.delete();
            }
            catch (final IOException ignore)
            {
                // Found as stale by the next shmrun.
            }
        }
    }

    private static void sleepQuietly(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
