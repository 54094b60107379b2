package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Limits. Too many open files (a job started under {@code prlimit --nofile}). Every rank holds all the
 * descriptors its limit allows: a window is ERR_NO_MEM, a file open ERR_IO, both naming the limit
 * on every rank; a new communicator's collectives take point-to-point messages; with the
 * descriptors given back the same calls work and the job finalizes. Found by it: a rank at its
 * limit took its launcher for dead (it could not read /proc) and exited. A limit too small for any
 * job is refused by shmrun before anything is made. A ring too small for a message: the smallest
 * ring (64 KiB) with every message eager (up to 2 MiB through it, in fragments), with and without
 * cross-memory attach, every byte checked; a ring below the smallest is refused naming the setting.
 * A process limit reached during spawn (the job in a control group whose pids limit is lowered
 * while it runs: root is not held by ulimit -u): ERR_SPAWN on every parent naming the limit, the
 * launcher and the parents go on, and once the limit is lifted the same spawn works. Found by it:
 * the launcher died of the OutOfMemoryError the JDK throws when it cannot start a process's
 * reaper thread.
 */
@Timeout(300)
class LimitsIT
{
    @Test
    void atTheLimitCallsFailNamingItAndTheJobGoesOn() throws Exception
    {
        final Path dir = Files.createTempDirectory("fd-limit");
        final ShmrunHarness.Result r = ShmrunHarness.start("fd-limit", List.of("prlimit", "--nofile=64"), null,
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Exhaust", "fds",
            dir.toString()).finish(120);
        assertEquals(0, r.exit, r::toString);
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(r.out.contains("HELD " + rank + " "), r::toString);
            assertTrue(r.out.contains("WINDOW " + rank + " class " + mpi.MPI.ERR_NO_MEM + " "), r::toString);
            assertTrue(r.out.contains("FILE " + rank + " class " + mpi.MPI.ERR_IO + " "), r::toString);
            assertTrue(r.out.contains("REDUCE " + rank + " ok"), r::toString);
            assertTrue(r.out.contains("AFTER WINDOW " + rank + " ok"), r::toString);
            assertTrue(r.out.contains("AFTER REDUCE " + rank + " ok"), r::toString);
            assertTrue(r.out.contains("AFTER FILE " + rank + " ok"), r::toString);
            assertTrue(r.out.contains("DONE " + rank + " 2"), r::toString);
        }
        assertTrue(r.out.contains("ulimit -n 64"), r::toString);
        assertTrue(!r.out.contains("DEFECT") && !r.err.contains("is gone"), r::toString);
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
        try (var left = Files.list(dir))
        {
            assertEquals(0, left.count(), "files left in " + dir);
        }
        Files.delete(dir);
    }

    @Test
    void aLimitTooSmallForAnyJobIsRefusedBeforeAnythingIsMade() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.start("fd-limit-small", List.of("prlimit", "--nofile=20"), null,
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Exhaust", "fds",
            "/tmp").finish(60);
        assertEquals(1, r.exit, r::toString);
        assertTrue(r.err.contains("the open-file limit (ulimit -n) is 20"), r::toString);
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "cma {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"true", "false"})
    void messagesLargerThanTheSmallestRingArriveWhole(final String cma) throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("small-ring-" + cma, 180, "-np", "3", "--mca",
            "ring.capacity", "65536", "--mca", "eager.limit", "1073741824", "--mca", "cma.enabled", cma, "-cp",
            ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Soak", "6", "11");
        assertEquals(0, r.exit, r::toString);
        for (int rank = 0; rank < 3; rank++)
        {
            assertTrue(r.out.matches("(?s).*SOAK OK rank " + rank + " rounds [1-9][0-9]* bytes \\d+ errors 0.*"),
                r::toString);
        }
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
    }

    @Test
    void aRingBelowTheSmallestIsRefusedNamingTheSetting() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("tiny-ring", 60, "-np", "2", "--mca", "ring.capacity",
            "4096", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Soak", "1", "1");
        assertTrue(r.exit != 0, r::toString);
        assertTrue(r.err.contains("shmpi.ring.capacity=4096") && r.err.contains("65536"), r::toString);
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
    }

    @Test
    void aProcessLimitDuringSpawnIsErrSpawnAndTheJobGoesOn() throws Exception
    {
        final Path pids = Path.of("/sys/fs/cgroup/pids");
        final Path group = pids.resolve("shmpi-it-" + ProcessHandle.current().pid());
        try
        {
            Files.createDirectories(group);
        }
        catch (final java.io.IOException ex)
        {
            org.junit.jupiter.api.Assumptions.assumeTrue(false,
                "LimitsIT: SKIP: no writable pids control group here (" + ex.getMessage() + ")");
        }
        final Path dir = Files.createTempDirectory("spawn-limit");
        try
        {
            // Every thread made at JVM start (none later that the limit could stop in a parent).
            final ShmrunHarness.Running job = ShmrunHarness.start("spawn-limit", List.of("sh", "-c",
                "echo $$ > " + group.resolve("cgroup.procs") + "; exec \"$0\" \"$@\""), null, "-np", "2",
                "--jvm-arg", "-XX:-UseDynamicNumberOfGCThreads", "--jvm-arg", "-XX:-UseDynamicNumberOfCompilerThreads",
                "--jvm-arg", "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"), "-cp",
                ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Spawning", "limited", dir.toString());
            job.awaitLines("READY ", 2, 90_000);
            final long running = Long.parseLong(Files.readString(group.resolve("pids.current")).trim());
            Files.writeString(group.resolve("pids.max"), Long.toString(running + 4));
            Files.createFile(dir.resolve("limit"));
            final long deadline = System.nanoTime() + 90_000_000_000L;
            while (!Files.exists(dir.resolve("failed")) && System.nanoTime() < deadline)
            {
                Thread.sleep(50);
            }
            Files.writeString(group.resolve("pids.max"), "max");
            Files.createFile(dir.resolve("lifted"));
            final ShmrunHarness.Result r = job.finish(120);
            System.out.println("LimitsIT spawn under a pids limit of " + (running + 4) + ": " + r.outLines().stream()
                .filter(l -> l.startsWith("SPAWN LIMITED 0")).findFirst().orElse("(no SPAWN LIMITED line)"));
            assertEquals(0, r.exit, r::toString);
            for (int rank = 0; rank < 2; rank++)
            {
                assertTrue(r.out.contains("SPAWN LIMITED " + rank + " class " + mpi.MPI.ERR_SPAWN + " codes [" +
                    mpi.MPI.ERR_SPAWN + ", " + mpi.MPI.ERR_SPAWN + "]"), r::toString);
                assertTrue(r.out.contains("SPAWN AGAIN OK " + rank), r::toString);
                assertTrue(r.out.contains("CHILD " + rank + " of 2 OK"), r::toString);
            }
            assertTrue(r.out.contains("ulimit -u"), r::toString);
            // No rank or child left (shmrun may still build its class-data archive in the background).
            for (final String pid : Files.readAllLines(group.resolve("cgroup.procs")))
            {
                final String cmd = ProcessHandle.of(Long.parseLong(pid.trim())).flatMap(h -> h.info().commandLine())
                    .orElse("");
                assertTrue(!cmd.contains("progs.Spawning"), "left running: " + pid + " " + cmd);
            }
            assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
        }
        finally
        {
            Files.writeString(group.resolve("pids.max"), "max");
            removeGroup(group);
            ShmrunHarness.deleteTree(dir);
        }
    }

    /**
     * Removes the control group once it is empty: shmrun may still be building its class-data
     * archive in the background after the job (in the group too); after 60 s, or after a failure,
     * what is left is ended.
     */
    private static void removeGroup(final Path group) throws Exception
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        for (int attempt = 0; attempt < 1_000; attempt++)
        {
            final List<String> left = Files.readAllLines(group.resolve("cgroup.procs"));
            if (left.isEmpty())
            {
                Files.delete(group);
                return;
            }
            if (System.nanoTime() > deadline)
            {
                for (final String pid : left)
                {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            Thread.sleep(100);
        }
        Files.delete(group);
    }
}
