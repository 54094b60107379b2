package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.launcher.ShmrunHarness.*;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job lifecycle, end to end: real {@code shmrun} processes launching real rank JVMs. Every
 * case checks the exit status, the one-line reason, and that the job directory is gone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LifecycleIT
{
    private static final Path EXAMPLES = DIST.resolve("examples/shmpi-examples.jar");

    @AfterAll
    static void nothingLeftInShm() throws IOException
    {
        for (final long pid : LAUNCHED)
        {
            assertEquals(List.of(), jobDirectoriesOf(pid), "job directories left by launcher " + pid);
        }
    }

    private static void assertCleanedUp(final Result r) throws IOException
    {
        assertEquals(List.of(), jobDirectoriesOf(r.pid), "job directory left behind: " + r);
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource({"Ring,4,Ring of 4 ranks: 10 laps OK", "Pi,4,OK", "Hello,4,Hello from rank 3 of 4",
        "Ring,8,Ring of 8 ranks: 10 laps OK"})
    void examplesRun(final String program, final int np, final String expected) throws Exception
    {
        final Result r = run("example-" + program + np, 60, "-np", Integer.toString(np), "-cp", EXAMPLES.toString(),
            program);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains(expected), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void normalRunExitsZeroAndRemovesTheJobDirectory() throws Exception
    {
        final Result r = run("normal", 60, scenario(4, List.of(), "ok"));
        assertEquals(0, r.exit, r.toString());
        final Set<String> ranks = new HashSet<>();
        for (final String line : r.outLines())
        {
            if (line.startsWith("OK rank="))
            {
                ranks.add(line.split(" ")[1]);
            }
        }
        assertEquals(Set.of("rank=0", "rank=1", "rank=2", "rank=3"), ranks, r.toString());
        assertEquals("", r.err, "nothing on stderr: " + r);
        assertCleanedUp(r);
    }

    @Test
    void rankExitingNonZeroStopsTheJob() throws Exception
    {
        final Result r = run("exit-code", 60, scenario(4, NO_GRACE_KILL, "exit-code", "2", "3"));
        assertEquals(3, r.exit, r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 2 \\(pid \\d+\\) exited with code 3\n.*"), r.toString());
        assertOthersStoppedByThemselves(r);
        assertCleanedUp(r);
    }

    @Test
    void rankThrowingOutOfMainStopsTheJob() throws Exception
    {
        final Result r = run("throw", 60, scenario(3, NO_GRACE_KILL, "throw", "1"));
        assertEquals(1, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: rank 1 (pid "), r.toString());
        assertTrue(r.err.contains("threw java.lang.IllegalStateException: boom from rank 1"), r.toString());
        assertTrue(r.err.contains("at org.shmpi.launcher.progs.Scenario.main"), "stack trace relayed: " + r);
        assertOthersStoppedByThemselves(r);
        assertCleanedUp(r);
    }

    @Test
    void abortEndsTheJobWithItsCode() throws Exception
    {
        final Result r = run("abort", 60, scenario(3, NO_GRACE_KILL, "abort", "0", "5"));
        assertEquals(5, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: rank 0 called MPI_Abort(MPI_COMM_WORLD, 5)"), r.toString());
        assertOthersStoppedByThemselves(r);
        assertCleanedUp(r);
    }

    @Test
    void rankKilledWhileOthersBlockInReceive() throws Exception
    {
        final Result r = run("kill-in-recv", 60, scenario(3, NO_GRACE_KILL, "kill-in-recv", "1"));
        assertEquals(137, r.exit, r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 1 \\(pid \\d+\\) killed by signal 9 \\(SIGKILL\\)\n.*"),
            r.toString());
        assertOthersStoppedByThemselves(r);
        assertCleanedUp(r);
    }

    /**
     * A rank that dies while the others wait for it in a collective (shared-memory flags or a
     * schedule) or on a window (for the exclusive lock it held, or in wait for its complete) ends the job.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kill-in-allreduce", "kill-in-iallgather", "kill-holding-lock", "kill-in-window-wait"})
    void rankKilledWhileOthersWaitInACollective(final String mode) throws Exception
    {
        final Result r = run(mode, 60, scenario(4, NO_GRACE_KILL, mode, "2"));
        assertEquals(137, r.exit, r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 2 \\(pid \\d+\\) killed by signal 9 \\(SIGKILL\\)\n.*"),
            r.toString());
        assertOthersStoppedByThemselves(r);
        assertCleanedUp(r);
    }

    @Test
    void rankKilledAfterFileSyncLeavesTheSyncedDataIntact() throws Exception
    {
        final java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("shmpi-lifecycle-io-");
        final java.nio.file.Path file = dir.resolve("synced.dat");
        try
        {
            final Result r = run("kill-after-file-sync", 60,
                scenario(3, NO_GRACE_KILL, "kill-after-file-sync", "1", "0", file.toString()));
            assertEquals(137, r.exit, r.toString());
            assertTrue(r.err.matches("(?s).*shmrun: rank 1 \\(pid \\d+\\) killed by signal 9 \\(SIGKILL\\)\n.*"),
                r.toString());
            assertOthersStoppedByThemselves(r);
            assertCleanedUp(r);
            final byte[] data = java.nio.file.Files.readAllBytes(file);
            assertEquals(3 << 20, data.length, "every rank's block is in the file");
            for (int i = 0; i < data.length; i++)
            {
                if (data[i] != (byte)((i >> 20) + 1))
                {
                    throw new AssertionError("byte " + i + " is " + data[i] + ", rank " + (i >> 20) + " wrote " +
                        ((i >> 20) + 1) + ": " + r);
                }
            }
        }
        finally
        {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.deleteIfExists(dir);
        }
    }

    @Test
    void rankKilledBeforeInit() throws Exception
    {
        final Result r = run("kill-before-init", 60, scenario(3, List.of(), "kill-before-init", "2"));
        assertEquals(137, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: rank 2 (pid "), r.toString());
        assertTrue(r.err.contains("killed by signal 9 (SIGKILL)"), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void rankKilledAfterFinalize() throws Exception
    {
        final Result r = run("kill-after-finalize", 60, scenario(2, List.of(), "kill-after-finalize", "1"));
        assertEquals(137, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: rank 1 (pid "), r.toString());
        assertTrue(r.err.contains("killed by signal 9 (SIGKILL)"), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void rankExitingWithoutFinalizeIsAFailure() throws Exception
    {
        final Result r = run("no-finalize", 60, scenario(2, List.of(), "no-finalize", "1"));
        assertEquals(1, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: rank 1 (pid "), r.toString());
        assertTrue(r.err.contains("exited without calling MPI_Finalize"), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void initFailsNamingTheRanksThatNeverCame() throws Exception
    {
        final Result r = run("never-init", 60, scenario(3, List.of("--mca", "init.timeout.ms", "1500"),
            "never-init", "1"));
        assertNotEquals(0, r.exit, r.toString());
        assertTrue(r.err.contains("ranks never attached: [1]"), r.toString());
        assertCleanedUp(r);
    }

    @ParameterizedTest(name = "SIG{0}")
    @CsvSource({"TERM,143", "INT,130"})
    void launcherSignalTerminatesRanksAndCleansUp(final String signal, final int expectedExit) throws Exception
    {
        // perl resets SIGINT to its default: a test runner started in the background may ignore it.
        final Running job = start("signal-" + signal, List.of("perl", "-e", "$SIG{INT}='DEFAULT'; exec @ARGV"), null,
            scenario(3, List.of(), "block"));
        final List<Long> rankPids = pidsOf(job.awaitLines("READY", 3, 60_000));
        new ProcessBuilder("kill", "-" + signal, Long.toString(job.pid())).inheritIO().start().waitFor();
        final Result r = job.finish(30);
        assertEquals(expectedExit, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: got SIG" + signal + "; terminated all ranks"), r.toString());
        for (final long pid : rankPids)
        {
            assertFalse(isRunning(pid), "rank pid " + pid + " still running: " + r);
        }
        assertCleanedUp(r);
    }

    @Test
    void ranksExitWhenTheLauncherIsKilledAndCleanupRemovesTheStaleDirectory() throws Exception
    {
        final Running job = start("launcher-killed", List.of(), null, scenario(2, List.of(), "block"));
        final List<Long> rankPids = pidsOf(job.awaitLines("READY", 2, 60_000));
        // The whole launcher at once: the bin/shmrun script and its JVM (the ranks are the JVM's
        // children; they are not killed).
        final List<ProcessHandle> launcherJvm = job.process.toHandle().children().toList();
        assertEquals(1, launcherJvm.size(), "the script runs one launcher JVM: " + launcherJvm);
        launcherJvm.get(0).destroyForcibly();
        job.process.destroyForcibly();
        job.process.waitFor(10, TimeUnit.SECONDS);
        // Nothing else stops them: each must notice by itself that its launcher is gone (the
        // 60 s are a hang guard, far above the 3 s launcher timeout, not a speed test).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (final long pid : rankPids)
        {
            while (isRunning(pid) && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(20);
            }
            assertFalse(isRunning(pid), "rank pid " + pid + " outlived its launcher by 60 s");
        }
        assertEquals(1, jobDirectoriesOf(job.pid()).size(), "the dead launcher's directory is stale, not yet removed");
        final Result cleanup = run("cleanup", 30, "--cleanup");
        assertEquals(0, cleanup.exit, cleanup.toString());
        assertTrue(cleanup.out.contains("removed stale job directory"), cleanup.toString());
        assertEquals(List.of(), jobDirectoriesOf(job.pid()));
    }

    @Test
    void cleanupNeverRemovesALiveJob() throws Exception
    {
        final Running job = start("live-job", List.of(), null, scenario(2, List.of(), "block"));
        job.awaitLines("READY", 2, 60_000);
        final Result cleanup = run("cleanup-live", 30, "--cleanup");
        assertEquals(0, cleanup.exit, cleanup.toString());
        assertEquals(1, jobDirectoriesOf(job.pid()).size(), "live job's directory must stay: " + cleanup);
        new ProcessBuilder("kill", "-TERM", Long.toString(job.pid())).start().waitFor();
        final Result r = job.finish(30);
        assertEquals(143, r.exit, r.toString());
        assertCleanedUp(r);
    }

    @Test
    void twoJobsAtOnceDoNotSeeEachOther() throws Exception
    {
        final Running a = start("two-a", List.of(), null, scenario(2, List.of(), "ok"));
        final Running b = start("two-b", List.of(), null, scenario(2, List.of(), "ok"));
        final Result ra = a.finish(60);
        final Result rb = b.finish(60);
        assertEquals(0, ra.exit, ra.toString());
        assertEquals(0, rb.exit, rb.toString());
        final String dirA = jobDirOf(ra);
        final String dirB = jobDirOf(rb);
        assertNotEquals(dirA, dirB);
        assertCleanedUp(ra);
        assertCleanedUp(rb);
    }

    @Test
    void timeoutAbortsTheJob() throws Exception
    {
        final Result r = run("timeout", 60, scenario(2, List.of("--timeout", "2"), "block"));
        assertEquals(124, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: job timed out after 2 s"), r.toString());
        assertCleanedUp(r);
    }

    /** The JVM flags a plain {@code java} user adds (README, and the message of a missing one). */
    private static final List<String> SHMPI_FLAGS =
        List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED");

    /**
     * Runs a Scenario with plain {@code java} (no shmrun): a singleton. {@code prefix} wraps the
     * command (e.g. a shell that sets a limit, then execs java, keeping the pid).
     */
    private static Result plainJava(final String name, final List<String> prefix, final List<String> jvmArgs,
        final String... scenarioArgs) throws IOException, InterruptedException
    {
        final List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(TEST_CLASSES + ":" + DIST.resolve("lib") + "/*");
        cmd.add(SCENARIO);
        cmd.addAll(List.of(scenarioArgs));
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("SHMPI_JOB_DIR");
        pb.environment().remove("SHMPI_RANK");
        final Process p = pb.start();
        final Result r = new Running(name, p).finish(60);
        assertEquals(List.of(), jobDirectoriesOf(p.pid()), "singleton job directory left behind: " + r);
        return r;
    }

    @Test
    void singletonWithPlainJavaHasAWorldOfOne() throws Exception
    {
        final Result r = plainJava("singleton", List.of(), SHMPI_FLAGS, "size");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("SIZE rank=0 size=1 jobdir=null"), r.toString());
        assertEquals("", r.err, r.toString());
    }

    /**
     * {@code java -cp ... Prog} without the flag Agrona needs: one line that names the flags and
     * shmrun (not an IllegalAccessError from deep inside Agrona), a failed exit, and nothing
     * created in /dev/shm.
     */
    @Test
    void singletonWithoutTheJvmFlagsFailsWithOneLineNamingThem() throws Exception
    {
        final Result r = plainJava("singleton-no-flags", List.of(), List.of(), "size");
        assertNotEquals(0, r.exit, r.toString());
        assertFalse(r.err.contains("IllegalAccessError"), r.toString());
        assertEquals(1, r.err.split("\n").length, "one line: " + r);
        assertTrue(r.err.contains("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"), r.toString());
        assertTrue(r.err.contains("--enable-native-access=ALL-UNNAMED"), r.toString());
        assertTrue(r.err.contains("shmrun"), r.toString());
        assertEquals("", r.out, r.toString());
    }

    /** A bad setting fails Init before anything is created. */
    @Test
    void singletonWithABadSettingFailsNamingIt() throws Exception
    {
        final List<String> jvm = new ArrayList<>(SHMPI_FLAGS);
        jvm.add("-Dshmpi.ring.capacity=100000");
        final Result r = plainJava("singleton-bad-setting", List.of(), jvm, "size");
        assertNotEquals(0, r.exit, r.toString());
        assertTrue(r.err.contains("bad shmpi setting: must be a power of two: shmpi.ring.capacity=100000"),
            r.toString());
        // Every registered setting is checked at Init, those of the engines above shm-core too.
        final List<String> badIo = new ArrayList<>(SHMPI_FLAGS);
        badIo.add("-Dshmpi.io.chunk=5000");
        final Result io = plainJava("singleton-bad-io-setting", List.of(), badIo, "size");
        assertNotEquals(0, io.exit, io.toString());
        assertTrue(io.err.contains("bad shmpi setting: must be a power of two: shmpi.io.chunk=5000"), io.toString());
    }

    /**
     * Init fails after the singleton's job directory exists: a file-size limit lets the small job
     * file be written but not the 1 MiB inbox (the JVM ignores SIGXFSZ, so the write fails with
     * EFBIG). The program catches the error and goes on; its directory must be gone already.
     */
    @Test
    void singletonFailingInsideInitRemovesItsDirectoryAtOnce() throws Exception
    {
        // dash counts ulimit -f in 512-byte blocks: 256 KiB, well below the inbox.
        final Result r = plainJava("singleton-init-fails", List.of("sh", "-c", "ulimit -f 512 && exec \"$0\" \"$@\""),
            SHMPI_FLAGS, "init-fails-caught");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("INIT FAILED class=" + ERR_OTHER + " message=MPI_Init failed: File too large"),
            r.toString());
        assertTrue(r.out.contains("AFTER INIT FAILURE initialized=false left=false"), r.toString());
    }

    private static final int ERR_OTHER = 16;

    /** A rank whose inbox cannot be created fails the job with the reason; nothing is left. */
    @Test
    void rankThatCannotCreateItsInboxFailsTheJob() throws Exception
    {
        final Result r = run("inbox-taken", 60, scenario(3, List.of(), "inbox-taken", "1"));
        assertEquals(1, r.exit, r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 1 \\(pid \\d+\\) failed: failed in MPI_Init: [^\n]*inbox-1.*"),
            r.toString());
        assertCleanedUp(r);
    }

    /** A rank killed inside Init (its inbox exists, it waits for a rank that never comes). */
    @Test
    void rankKilledInsideInit() throws Exception
    {
        final Result r = run("kill-in-init", 60, scenario(3, List.of(), "kill-in-init", "1", "2"));
        assertEquals(137, r.exit, r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 1 \\(pid \\d+\\) killed by signal 9 \\(SIGKILL\\)\n.*"),
            r.toString());
        assertFalse(r.out.contains("UNEXPECTED"), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void outputLinesNeverInterleaveAndTagsNameTheRank() throws Exception
    {
        final Result r = run("lines", 60, scenario(4, List.of("--tag-output"), "lines"));
        assertEquals(0, r.exit, r.toString().substring(0, Math.min(2000, r.toString().length())));
        final Pattern line = Pattern.compile("\\[1,(\\d)\\]<stdout>:rank (\\d) line (\\d+) ([a-d]{3000})");
        final int[] counts = new int[4];
        for (final String l : r.outLines())
        {
            final Matcher m = line.matcher(l);
            assertTrue(m.matches(), "mangled line: " + l.substring(0, Math.min(200, l.length())));
            final int rank = Integer.parseInt(m.group(1));
            assertEquals(m.group(1), m.group(2));
            assertTrue(m.group(4).chars().allMatch(c -> c == 'a' + rank), "line content of another rank");
            assertEquals(counts[rank], Integer.parseInt(m.group(3)), "lines of one rank in order");
            counts[rank]++;
        }
        assertEquals(List.of(200, 200, 200, 200), List.of(counts[0], counts[1], counts[2], counts[3]));
    }

    @Test
    void stdinGoesToRankZeroOnly() throws Exception
    {
        final Result r = start("stdin", List.of(), "hello stdin\n", scenario(2, List.of(), "stdin")).finish(60);
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("STDIN rank=0 line=hello stdin"), r.toString());
        assertTrue(r.out.contains("STDIN rank=1 eof=true"), r.toString());
    }

    @Test
    void environmentAndPropertiesReachEveryRank() throws Exception
    {
        final Result r =
            run("env", 60, scenario(2, List.of("-x", "SHMPI_TEST_VAR=abc", "-Dshmpi.test.prop=xyz"), "env"));
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("ENV rank=0 var=abc prop=xyz ompi=0"), r.toString());
        assertTrue(r.out.contains("ENV rank=1 var=abc prop=xyz ompi=1"), r.toString());
    }

    @Test
    void javaCommandFormAndBindingReport() throws Exception
    {
        final Result r = run("java-form", 60, "-np", "2", "--bind-to", "core", "--report-bindings", "java",
            "-Xmx64m", "-cp", EXAMPLES.toString(), "Hello");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("Hello from rank 0 of 2"), r.toString());
        assertTrue(r.out.contains("Hello from rank 1 of 2"), r.toString());
        assertTrue(r.err.matches("(?s).*shmrun: rank 0 \\(pid \\d+\\) bound to CPUs \\d+.*"), r.toString());
        assertCleanedUp(r);
    }

    @Test
    void jarFormRunsTheManifestMainClass(@TempDir final Path tmp) throws Exception
    {
        final Path jar = tmp.resolve("hello.jar");
        final Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Hello");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(EXAMPLES));
            OutputStream os = Files.newOutputStream(jar);
            JarOutputStream out = new JarOutputStream(os, manifest))
        {
            JarEntry e;
            while ((e = in.getNextJarEntry()) != null)
            {
                out.putNextEntry(new JarEntry(e.getName()));
                in.transferTo(out);
                out.closeEntry();
            }
        }
        final Result r = run("jar-form", 60, "-n", "2", "-jar", jar.toString());
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("Hello from rank 1 of 2"), r.toString());
    }

    @Test
    void keepShmKeepsTheJobDirectory() throws Exception
    {
        final Result r = run("keep", 60, scenario(2, List.of("--keep-shm"), "ok"));
        assertEquals(0, r.exit, r.toString());
        final List<Path> kept = jobDirectoriesOf(r.pid);
        assertEquals(1, kept.size(), r.toString());
        assertTrue(r.err.contains("shmrun: job directory kept: " + kept.get(0)), r.toString());
        assertTrue(Files.exists(kept.get(0).resolve("job")));
        assertTrue(Files.exists(kept.get(0).resolve("inbox-1")));
        // The next job's start (which removes dead jobs' directories) leaves it; --cleanup removes it.
        assertEquals(0, run("keep-next", 60, scenario(2, List.of(), "ok")).exit);
        assertTrue(Files.exists(kept.get(0).resolve("job")), "a kept directory removed by the next job");
        final Result cleanup = run("keep-cleanup", 60, "--cleanup");
        assertEquals(0, cleanup.exit, cleanup.toString());
        assertTrue(!Files.exists(kept.get(0)), cleanup.toString());
    }

    @Test
    void badCommandLinesFailWithUsageErrors() throws Exception
    {
        Result r = run("bad-np", 30, "-np", "0", "-cp", ".", "X");
        assertEquals(2, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: number of ranks must be at least 1"), r.toString());
        r = run("bad-opt", 30, "-np", "2", "--frobnicate", "-cp", ".", "X");
        assertEquals(2, r.exit, r.toString());
        assertTrue(r.err.contains("unknown option: --frobnicate"), r.toString());
        r = run("version", 30, "--version");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.startsWith("shmrun (shmpi) "), r.toString());
        r = run("help", 30, "--help");
        assertTrue(r.out.contains("Usage: shmrun -np N"), r.toString());
        r = run("info", 30, "--info");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("NUMA nodes:") && r.out.contains("shmpi.ring.capacity"), r.toString());
    }

    /**
     * The launcher never kills a rank in these jobs (its grace period, 60 s after the failure,
     * ends after the harness's 60 s hang guard for the whole run), so the job ends only if every
     * other rank, blocked on the failed one, stopped by itself when the abort was recorded. How fast
     * they stop (the 2 s of the design) is printed, not asserted: on a shared machine a clock
     * measures the machine.
     */
    private static final List<String> NO_GRACE_KILL = List.of("--mca", "abort.grace.ms", "60000");

    private static void assertOthersStoppedByThemselves(final Result r)
    {
        final Matcher m = Pattern.compile("FAIL_AT (\\d+)").matcher(r.out);
        assertTrue(m.find(), "failing rank reported its failure time: " + r);
        assertFalse(r.out.contains("UNEXPECTED"), r.toString());
        System.out.println("job stopped " + (r.exitMillis - Long.parseLong(m.group(1))) + " ms after the failure");
    }

    private static List<Long> pidsOf(final List<String> lines)
    {
        final List<Long> pids = new ArrayList<>();
        for (final String l : lines)
        {
            final Matcher m = Pattern.compile("pid=(\\d+)").matcher(l);
            assertTrue(m.find(), l);
            pids.add(Long.parseLong(m.group(1)));
        }
        return pids;
    }

    private static String jobDirOf(final Result r)
    {
        final Matcher m = Pattern.compile("jobdir=(\\S+)").matcher(r.out);
        assertTrue(m.find(), r.toString());
        return m.group(1);
    }
}
