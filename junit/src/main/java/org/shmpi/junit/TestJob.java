package org.shmpi.junit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One MPI job of a test class at one rank count, as the test JVM (the controller) sees it: a
 * {@code shmrun} launcher started as a child process ({@link ShmrunProcess}), whose ranks run
 * {@link RankRunner} and connect back over loopback TCP ({@link RankConnections}, {@link Wire}).
 * Runs one test method at a time on every rank and turns the ranks' results into the test's
 * outcome ({@link Outcomes}). A run that breaks the job (a rank exits, a hang, ranks still busy
 * after another failed) leaves it {@linkplain #broken() broken}; the holder then starts a fresh
 * one.
 */
final class TestJob implements AutoCloseable
{
    private final int np;
    private final ShmrunProcess launcher;
    private final TestJobDirectory directory;
    private final RankConnections links;
    private final Outcomes outcomes;
    private volatile boolean broken;
    private boolean closed;
    private int nextId;

    private TestJob(final int np, final boolean keep, final ShmrunProcess launcher)
    {
        this.np = np;
        this.launcher = launcher;
        this.directory = new TestJobDirectory(launcher, keep);
        this.links = new RankConnections(np);
        this.outcomes = new Outcomes(np, launcher.tail(), directory);
    }

    /**
     * Starts a job of {@code np} ranks, with {@code shmrunArgs} as more launcher options, and
     * waits until every rank has joined and connected.
     */
    static TestJob start(final int np, final List<String> shmrunArgs) throws IOException
    {
        final List<String> classpath = ClassPaths.ofThisJvm();
        final String flags = Settings.jvmFlags();
        final boolean keep = Settings.getBoolean(Settings.KEEP);
        final int startTimeoutS = Settings.getInt(Settings.START_TIMEOUT, Settings.DEFAULT_START_TIMEOUT_S);
        final long token = new SecureRandom().nextLong();
        try (ServerSocket server = new ServerSocket(0, np + 8, InetAddress.getLoopbackAddress()))
        {
            final ShmrunProcess launcher =
                ShmrunProcess.start(np, keep, classpath, flags, shmrunArgs, server.getLocalPort(), token);
            final TestJob job = new TestJob(np, keep, launcher);
            try
            {
                job.links.accept(server, token, startTimeoutS, launcher);
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                job.kill();
                throw ex;
            }
            return job;
        }
    }

    /** True when the job cannot run another test: a rank or the launcher is gone, or a run broke it. */
    boolean broken()
    {
        return broken || !launcher.isAlive() || links.anyClosed();
    }

    /**
     * Runs {@code className.methodName()} on every rank; returns when every rank passed, throws
     * the test's failure otherwise.
     */
    synchronized void run(final String className, final String methodName, final int timeoutS) throws Throwable
    {
        if (broken())
        {
            throw new IllegalStateException("test job is broken");
        }
        // Results of an earlier run are stale; a connection that closes from now on is this run's crash.
        links.dropResults();
        launcher.tail().reset();
        final int id = ++nextId;
        for (int r = 0; r < np; r++)
        {
            try
            {
                links.sendRun(r, id, className, methodName);
            }
            catch (final IOException ex)
            {
                broken = true;
                throw crash(List.of(r), new Wire.Result[np]);
            }
        }
        final Wire.Result[] results = new Wire.Result[np];
        final Wire.Result[] early = new Wire.Result[np];
        int remaining = np;
        final long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutS);
        final int graceMs = Settings.getInt(Settings.GRACE, Settings.DEFAULT_GRACE_MS);
        int firstFailed = -1;
        while (remaining > 0)
        {
            final long wait = deadline - System.nanoTime();
            final RankConnections.Event e = wait <= 0 ? null : links.poll(wait, TimeUnit.NANOSECONDS);
            if (e == null)
            {
                broken = true;
                if (firstFailed >= 0)
                {
                    throw stoppedAfterFailure(results, early, firstFailed, graceMs);
                }
                throw hang(results, timeoutS);
            }
            if (e.result == null)
            {
                broken = true;
                final List<Integer> gone = new ArrayList<>();
                gone.add(e.rank);
                // Others usually go within moments: name every rank that went.
                RankConnections.Event more;
                while ((more = links.poll(300, TimeUnit.MILLISECONDS)) != null)
                {
                    if (more.result == null)
                    {
                        gone.add(more.rank);
                    }
                    else if (more.result.id == id)
                    {
                        results[more.rank] = more.result;
                    }
                }
                throw crash(gone, results);
            }
            if (e.result.id != id || results[e.rank] != null)
            {
                continue;
            }
            if (e.result.early)
            {
                // The body failed; the rank runs its @AfterEach methods before its result.
                early[e.rank] = e.result;
                if (firstFailed < 0)
                {
                    firstFailed = e.rank;
                    deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
                }
                continue;
            }
            results[e.rank] = e.result;
            remaining--;
            if (e.result.outcome != Wire.PASSED && firstFailed < 0)
            {
                firstFailed = e.rank;
                deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
            }
        }
        Outcomes.printOutputs(results);
        final Throwable failure = outcomes.outcome(results);
        if (failure instanceof MpiTestFailure)
        {
            // What a failed rank left undone (a message never received, an exchange half done)
            // must not reach the next test: it gets a fresh job. The ranks are idle: end it now.
            close();
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private MpiTestFailure stoppedAfterFailure(final Wire.Result[] results, final Wire.Result[] early,
        final int firstFailed, final int graceMs)
    {
        final MpiTestFailure stopped =
            outcomes.stoppedAfterFailure(results, early, firstFailed, graceMs, launcher.statusReport());
        kill();
        return stopped;
    }

    private MpiTestFailure hang(final Wire.Result[] results, final int timeoutS)
    {
        final MpiTestFailure f = outcomes.hang(results, timeoutS, launcher.statusReport());
        kill();
        return f;
    }

    private MpiTestFailure crash(final List<Integer> gone, final Wire.Result[] results)
    {
        // The launcher stops the other ranks and says why; give it a moment to finish saying it.
        launcher.waitFor(5_000);
        final MpiTestFailure f = outcomes.crash(gone, launcher.isAlive() ? null : launcher.exitValue());
        kill();
        final Throwable reported = outcomes.outcome(results);
        if (reported != null)
        {
            f.addSuppressed(reported);
        }
        return f;
    }

    /** Stops the job at once: SIGTERM to the launcher, which stops its ranks and cleans up. */
    void kill()
    {
        broken = true;
        launcher.stop();
        links.close();
        directory.removeLeftovers();
    }

    /** Ends the job: every rank finalizes and exits; a job that does not end in time is killed. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (!broken())
        {
            if (!links.sendExit())
            {
                broken = true;
            }
            if (!launcher.waitFor(30_000))
            {
                kill();
            }
        }
        else
        {
            kill();
        }
        links.close();
        final List<Thread> threads = new ArrayList<>(launcher.pumps());
        threads.addAll(links.readers());
        for (final Thread t : threads)
        {
            try
            {
                t.join(2_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
        directory.removeLeftovers();
    }
}
