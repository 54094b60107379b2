package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Joining a job through the environment map. No test here starts a watchdog on a non-singleton
 * job or calls abortJob: both end the JVM with Runtime.halt.
 */
class RankProcessTest
{
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path shmDir;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private JobDirectory launcherDir;

    @AfterEach
    void closeAndDelete() throws Exception
    {
        for (int i = toClose.size() - 1; i >= 0; i--)
        {
            toClose.get(i).close();
        }
        if (launcherDir != null)
        {
            launcherDir.delete();
            assertFalse(Files.exists(launcherDir.path()));
        }
        final Path root = JobDirectory.userRoot(shmDir.toString());
        if (Files.isDirectory(root))
        {
            try (Stream<Path> left = Files.list(root))
            {
                assertEquals(List.of(), left.collect(Collectors.toList()), "a job directory was left behind");
            }
        }
    }

    private ShmpiConfig config(final String... nameValues)
    {
        final Properties p = new Properties();
        p.setProperty(ShmpiConfig.SHM_DIR_PROP, shmDir.toString());
        for (int i = 0; i < nameValues.length; i += 2)
        {
            p.setProperty(nameValues[i], nameValues[i + 1]);
        }
        return ShmpiConfig.from(p, Map.of());
    }

    /** What shmrun would do: a job directory and file for {@code worldSize} ranks. */
    private JobFile launch(final int worldSize) throws IOException
    {
        launcherDir = JobDirectory.create(shmDir.toString(), SELF, Processes.selfStartMillis());
        final JobFile job = JobFile.create(launcherDir.jobFile(), worldSize, SELF, Processes.selfStartMillis(), 65536);
        toClose.add(job);
        return job;
    }

    private Map<String, String> env(final String rank)
    {
        final Map<String, String> env = new HashMap<>();
        env.put(RankProcess.JOB_DIR_ENV, launcherDir.path().toString());
        if (rank != null)
        {
            env.put(RankProcess.RANK_ENV, rank);
        }
        return env;
    }

    private RankProcess attach(final ShmpiConfig config, final Map<String, String> env) throws IOException
    {
        final RankProcess p = RankProcess.attach(config, env);
        toClose.add(p);
        return p;
    }

    @Test
    @Timeout(10)
    void rankJoinsTheJobNamedByTheEnvironment() throws IOException
    {
        final JobFile launcher = launch(3);
        final RankProcess p = attach(config(), env(" 2 "));
        assertEquals(2, p.rank());
        assertEquals(3, p.worldSize());
        assertFalse(p.isSingleton());
        assertEquals(launcherDir.path(), p.directory().path());
        assertEquals(RankState.STARTED, launcher.state(2));
        assertEquals(SELF, launcher.pid(2));
        assertEquals(RankState.NONE, launcher.state(0));

        p.initialized();
        assertEquals(RankState.INITIALIZED, launcher.state(2));
        p.finalized();
        assertEquals(RankState.FINALIZED, launcher.state(2));
        assertFalse(p.isJobAborted());

        p.close();
        p.close();  // idempotent
        assertTrue(Files.isRegularFile(launcherDir.jobFile()), "a rank does not remove the launcher's job");
    }

    @Test
    @Timeout(10)
    void missingOrBadRankIsAnErrorNamingTheVariable() throws IOException
    {
        launch(3);
        final IOException missing = assertThrows(IOException.class, () -> attach(config(), env(null)));
        assertTrue(missing.getMessage().contains("SHMPI_RANK=null"), missing.getMessage());
        final IOException bad = assertThrows(IOException.class, () -> attach(config(), env("one")));
        assertTrue(bad.getMessage().contains("SHMPI_RANK=one"), bad.getMessage());
        final IOException range = assertThrows(IOException.class, () -> attach(config(), env("3")));
        assertTrue(range.getMessage().contains("SHMPI_RANK=3, worldSize=3"), range.getMessage());
        final IOException negative = assertThrows(IOException.class, () -> attach(config(), env("-1")));
        assertTrue(negative.getMessage().contains("SHMPI_RANK=-1"), negative.getMessage());
    }

    @Test
    @Timeout(10)
    void missingJobFileTimesOutAfterTheInitTimeout() throws IOException
    {
        launcherDir = JobDirectory.create(shmDir.toString(), SELF, Processes.selfStartMillis());
        final IOException ex = assertThrows(IOException.class,
            () -> attach(config(ShmpiConfig.INIT_TIMEOUT_MS_PROP, "50"), env("0")));
        assertTrue(ex.getMessage().contains(launcherDir.jobFile().toString()), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void withoutAJobDirectoryTheProcessIsASingletonThatCleansUp() throws IOException
    {
        final RankProcess p = RankProcess.attach(config(), Map.of());
        final Path dir = p.directory().path();
        try
        {
            assertTrue(p.isSingleton());
            assertEquals(0, p.rank());
            assertEquals(1, p.worldSize());
            assertEquals(JobDirectory.userRoot(shmDir.toString()).resolve(SELF + "-" + Processes.selfStartMillis()),
                dir);
            assertTrue(Files.isRegularFile(dir.resolve(JobDirectory.JOB_FILE_NAME)));
            assertEquals(RankState.STARTED, p.job().state(0));
            assertEquals(SELF, p.job().pid(0));
            assertEquals(SELF, p.job().launcherPid());
            assertEquals(ShmpiConfig.RING_CAPACITY_DEFAULT, p.job().ringCapacity());
            assertTrue(JobDirectory.isLive(dir), "named after this (live) process");
            p.initialized();
            p.awaitAllInitialized();
        }
        finally
        {
            p.close();
        }
        assertFalse(Files.exists(dir), "a singleton removes its job directory on close");
    }

    /**
     * A singleton that fails after creating its job directory removes it: nobody else would. A
     * JVM without the Agrona export (what a plain {@code java} start used to be) fails in the job
     * file, right after the directory exists.
     */
    @Test
    @Timeout(60)
    void singletonFailingAfterCreatingItsDirectoryRemovesIt() throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), SingletonAttach.class.getName(), shmDir.toString());
        pb.environment().remove(RankProcess.JOB_DIR_ENV);
        pb.redirectErrorStream(true);
        final Process child = pb.start();
        final String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS), out);
        assertTrue(out.contains("FAILED java.lang.IllegalAccessError"), "failed in the job file: " + out);
        final Path root = JobDirectory.userRoot(shmDir.toString());
        assertTrue(Files.isDirectory(root), "the directory was created before the failure: " + out);
        try (Stream<Path> left = Files.list(root))
        {
            assertEquals(List.of(), left.collect(Collectors.toList()), "the singleton's job directory is left: " + out);
        }
    }

    @Test
    @Timeout(10)
    void emptyJobDirectoryVariableAlsoMeansSingleton() throws IOException
    {
        final RankProcess p = attach(config(), Map.of(RankProcess.JOB_DIR_ENV, ""));
        assertTrue(p.isSingleton());
    }

    @Test
    @Timeout(20)
    void singletonWatchdogHeartbeatsAndStopsOnClose() throws Exception
    {
        final RankProcess p = attach(config(ShmpiConfig.HEARTBEAT_INTERVAL_MS_PROP, "5"), Map.of());
        final long before = p.job().heartbeat(0);
        p.startWatchdog();
        p.startWatchdog();  // a second start is a no-op
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.job().heartbeat(0) == before && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(1);
        }
        assertTrue(p.job().heartbeat(0) != before, "no heartbeat within 10 s");
        p.close();
        assertFalse(watchdogAlive(), "watchdog still running after close");
    }

    private static boolean watchdogAlive()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().startsWith("shmpi-watchdog-") && t.isAlive());
    }

    @Test
    @Timeout(10)
    void awaitAllInitializedReturnsWhenEveryRankIsReady() throws IOException
    {
        launch(3);
        final RankProcess[] ranks = new RankProcess[3];
        for (int r = 0; r < 3; r++)
        {
            ranks[r] = attach(config(), env(Integer.toString(r)));
        }
        ranks[2].initialized();
        ranks[0].initialized();
        ranks[1].finalized();  // later states count as initialized
        for (final RankProcess r : ranks)
        {
            r.awaitAllInitialized();
        }
        assertFalse(ranks[0].isJobAborted());
    }

    @Test
    @Timeout(20)
    void awaitAllInitializedTimesOutNamingTheMissingRanks() throws IOException
    {
        final JobFile launcher = launch(4);
        final ShmpiConfig config = config(ShmpiConfig.INIT_TIMEOUT_MS_PROP, "200");
        final RankProcess rank0 = attach(config, env("0"));
        final RankProcess rank2 = attach(config, env("2"));
        rank0.initialized();
        rank2.initialized();
        // Rank 3 started but never initialized; rank 1 never came.
        attach(config, env("3"));

        final IOException ex = assertThrows(IOException.class, rank0::awaitAllInitialized);
        assertTrue(ex.getMessage().contains("ranks never attached: [1, 3]"), ex.getMessage());
        assertTrue(ex.getMessage().contains("200 ms"), ex.getMessage());
        assertTrue(launcher.isAbortPublished(), "the timeout is recorded as the job's abort");
        assertEquals(AbortKind.INIT_TIMEOUT, launcher.abortKind());
        assertEquals(0, launcher.abortRank());
        assertEquals(ex.getMessage(), launcher.abortReason());

        // Once aborted, another waiter fails at once rather than after its own timeout.
        final IOException second = assertThrows(IOException.class, rank2::awaitAllInitialized);
        assertTrue(second.getMessage().contains("job aborted"), second.getMessage());
        assertTrue(rank2.isJobAborted());
    }

    @Test
    @Timeout(10)
    void failedRankEndsTheWaitAtOnce() throws IOException
    {
        final JobFile launcher = launch(2);
        final RankProcess rank0 = attach(config(), env("0"));  // init timeout: the 60 s default
        rank0.initialized();
        launcher.failed(1, 3);
        final IOException ex = assertThrows(IOException.class, rank0::awaitAllInitialized);
        assertTrue(ex.getMessage().contains("rank 1 state=FAILED"), ex.getMessage());
    }
}
