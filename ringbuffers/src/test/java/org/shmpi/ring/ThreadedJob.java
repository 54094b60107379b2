package org.shmpi.ring;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;

import org.shmpi.shm.AbortKind;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.ShmpiConfig;

/**
 * A job whose ranks are threads of this JVM: a job directory under a uniquely named directory
 * in /dev/shm, one job file, one {@link PointToPointEngine} per rank. {@link #run} runs one body
 * per rank with a hard deadline; when a rank fails or the deadline passes, the job's abort word
 * is set so that every other rank leaves its blocking call, and the job directory is copied to
 * {@code target/failed-jobs/} for inspection. {@link #close} removes everything from /dev/shm.
 */
public final class ThreadedJob implements AutoCloseable
{
    /** What one rank does; runs on that rank's thread. */
    public interface RankBody
    {
        void run(RankContext rank) throws Exception;
    }

    /** What one rank of a point-to-point test does, given its engine. */
    public interface EngineBody
    {
        void run(PointToPointEngine engine) throws Exception;
    }

    private static final long SELF = ProcessHandle.current().pid();

    private final String name;
    private final Path root;
    private final JobDirectory directory;
    private final JobFile job;
    private final RankContext[] contexts;
    private final PointToPointEngine[] engines;
    private final AtomicIntegerArray signals;
    /** Set when a rank thread could not be stopped: its mappings must then stay mapped. */
    private boolean stuck;

    private ThreadedJob(
        final String name, final Path root, final JobDirectory directory, final JobFile job, final int worldSize)
    {
        this.name = name;
        this.root = root;
        this.directory = directory;
        this.job = job;
        this.contexts = new RankContext[worldSize];
        this.engines = new PointToPointEngine[worldSize];
        this.signals = new AtomicIntegerArray(worldSize);
    }

    /** Creates the job and every rank's engine (so every inbox exists before any rank sends). */
    public static ThreadedJob start(final String name, final int worldSize, final int ringCapacity) throws IOException
    {
        return start(name, worldSize, ringCapacity, new Properties());
    }

    /** As {@link #start(String, int, int)}, with {@code settings} ({@code shmpi.*} properties) on top. */
    public static ThreadedJob start(
        final String name, final int worldSize, final int ringCapacity, final Properties settings) throws IOException
    {
        final Path root = Files.createDirectory(Path.of("/dev/shm", "shmpi-test-" + UUID.randomUUID()));
        ThreadedJob created = null;
        try
        {
            final Properties p = new Properties();
            p.putAll(settings);
            p.setProperty(ShmpiConfig.SHM_DIR_PROP, root.toString());
            p.setProperty(ShmpiConfig.RING_CAPACITY_PROP, Integer.toString(ringCapacity));
            final ShmpiConfig config = ShmpiConfig.from(p, Map.of());
            final long start = Processes.selfStartMillis();
            final JobDirectory directory = JobDirectory.create(config.shmDir(), SELF, start);
            final JobFile job = JobFile.create(directory.jobFile(), worldSize, SELF, start, config.ringCapacity());
            created = new ThreadedJob(name, root, directory, job, worldSize);
            for (int r = 0; r < worldSize; r++)
            {
                // Every rank is this process: peers find it by pid, as they find a rank process.
                job.publishStarted(r, SELF, start);
                created.contexts[r] =
                    RankContext.open(directory, job, r, config, Futex.open(config.futexEnabled()), false);
                created.engines[r] = (PointToPointEngine) created.contexts[r].transport();
            }
            return created;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (created != null)
            {
                created.close();
            }
            else
            {
                deleteRecursively(root);
            }
            throw ex;
        }
    }

    public int worldSize()
    {
        return engines.length;
    }

    Path root()
    {
        return root;
    }

    JobFile job()
    {
        return job;
    }

    /**
     * Runs {@code body} on one thread per rank and waits for all of them, at most
     * {@code timeoutSeconds}. Throws the first real failure (ranks that only saw the abort it
     * caused are left out), or an AssertionError naming the ranks still running at the
     * deadline. Afterwards no rank may have a frame, a posted receive or an unexpected
     * message left over.
     */
    public void run(final long timeoutSeconds, final RankBody body) throws InterruptedException
    {
        runRanks(timeoutSeconds, rank -> body.run(contexts[rank]));
    }

    /** As {@link #run(long, RankBody)}, each rank given its point-to-point engine. */
    public void runEngines(final long timeoutSeconds, final EngineBody body) throws InterruptedException
    {
        runRanks(timeoutSeconds, rank -> body.run(engines[rank]));
    }

    /** The context of rank {@code rank}. */
    public RankContext context(final int rank)
    {
        return contexts[rank];
    }

    private interface IndexBody
    {
        void run(int rank) throws Exception;
    }

    private void runRanks(final long timeoutSeconds, final IndexBody body) throws InterruptedException
    {
        final int n = engines.length;
        final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
        final Thread[] threads = new Thread[n];
        for (int r = 0; r < n; r++)
        {
            final int rank = r;
            threads[r] = new Thread(() ->
            {
                try
                {
                    body.run(rank);
                }
                catch (final Throwable t)
                {
                    failures.set(rank, t);
                    // Stop the other ranks: they may be waiting for this one forever.
                    job.tryAbort(AbortKind.RANK_FAILED, rank, 1, "rank " + rank + " failed: " + t);
                }
            }, name + "-rank-" + r);
            threads[r].setDaemon(true);
            threads[r].start();
        }

        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        try
        {
            for (final Thread t : threads)
            {
                final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs > 0)
                {
                    t.join(leftMs);
                }
            }
        }
        finally
        {
            // Normal end, deadline, or interrupted by @Timeout: make sure no rank keeps running.
            if (Arrays.stream(threads).anyMatch(Thread::isAlive))
            {
                job.tryAbort(AbortKind.TIMEOUT, -1, 1, "test deadline of " + timeoutSeconds + " s passed");
                for (final Thread t : threads)
                {
                    t.join(5_000);
                }
                stuck = Arrays.stream(threads).anyMatch(Thread::isAlive);
            }
        }

        AssertionError error = null;
        for (int r = 0; r < n; r++)
        {
            final Throwable f = failures.get(r);
            if (f != null && !(f instanceof JobAbortedException))
            {
                if (error == null)
                {
                    error = new AssertionError("rank " + r + " of " + n + " failed: " + f, f);
                }
                else
                {
                    error.addSuppressed(f);
                }
            }
        }
        if (error == null && job.isAborted())
        {
            final StringBuilder running = new StringBuilder();
            for (int r = 0; r < n; r++)
            {
                if (failures.get(r) instanceof JobAbortedException)
                {
                    running.append(' ').append(r);
                }
            }
            error = new AssertionError("ranks still blocked after " + timeoutSeconds + " s (deadlock?):" + running);
        }
        if (error == null && !stuck)
        {
            for (final PointToPointEngine e : engines)
            {
                final int frames = contexts[e.rank()].progress().progress();
                final int unexpected = e.matching().unexpectedCount();
                final int posted = e.matching().postedCount();
                if (frames != 0 || unexpected != 0 || posted != 0)
                {
                    error = new AssertionError("rank " + e.rank() + " has leftovers: frames=" + frames +
                        ", unexpected=" + unexpected + ", posted=" + posted);
                    break;
                }
            }
        }
        if (error != null)
        {
            keepForInspection();
            throw error;
        }
    }

    /** Test-side coordination between rank threads (not MPI): rank {@code rank} reached {@code step}. */
    void signal(final int rank, final int step)
    {
        signals.set(rank, step);
    }

    /** Waits for {@code rank} to reach {@code step}, driving {@code engine}'s progress meanwhile. */
    void awaitSignal(final PointToPointEngine engine, final int rank, final int step)
    {
        progressUntil(engine, () -> signals.get(rank) >= step);
    }

    /** Drives {@code engine} until {@code condition} holds (checked after each duty cycle). */
    void progressUntil(final PointToPointEngine engine, final BooleanSupplier condition)
    {
        while (true)
        {
            final int work = engine.progress();
            if (condition.getAsBoolean())
            {
                return;
            }
            if (job.isAborted())
            {
                throw new JobAbortedException("aborted while rank " + engine.rank() + " waited in the test");
            }
            if (work == 0)
            {
                Thread.yield();
            }
        }
    }

    private void keepForInspection()
    {
        try
        {
            final Path target = Path.of(System.getProperty("basedir", "."), "target", "failed-jobs",
                name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + System.currentTimeMillis());
            Files.createDirectories(target);
            try (var files = Files.list(directory.path()))
            {
                for (final Path f : files.toList())
                {
                    Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            System.err.println("shmpi test: job directory of the failed test copied to " + target);
        }
        catch (final IOException ex)
        {
            System.err.println("shmpi test: could not keep the failed job directory: " + ex);
        }
    }

    /** Unmaps everything (unless a rank thread is still running) and deletes the /dev/shm directory. */
    /** For a test's {@code @AfterEach}: closes {@code job} (if started) and fails if its directory is left. */
    public static void closeAndCheckRemoved(final ThreadedJob job) throws IOException
    {
        if (job != null)
        {
            job.close();
            org.junit.jupiter.api.Assertions.assertFalse(Files.exists(job.root()), "job directory left in /dev/shm");
        }
    }

    @Override
    public void close() throws IOException
    {
        if (!stuck)
        {
            for (final RankContext c : contexts)
            {
                if (c != null)
                {
                    c.close();
                }
            }
            job.close();
        }
        deleteRecursively(root);
        if (Files.exists(root))
        {
            throw new AssertionError("left behind in /dev/shm: " + root);
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
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path d, final IOException exc) throws IOException
            {
                if (exc != null)
                {
                    throw exc;
                }
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
