package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Isolation between users and jobs, with a second real user ({@code shmpi-other}, made here):
 * that user can neither list, read nor signal anything of a running job of this one, nor make
 * {@code shmrun --cleanup} or {@code --status} act on it, and its own job runs beside it; a
 * directory planted where this user's shmpi directory goes (a symbolic link, or a directory the
 * other user owns) is refused, with nothing written through it; a stale job directory whose
 * launcher pid now belongs to an unrelated process is removed by a cleanup, a live job's never.
 * Needs root; skips with one line otherwise.
 */
@Timeout(300)
class IsolationIT
{
    private static final String OTHER = "shmpi-other";

    @BeforeAll
    static void otherUser() throws Exception
    {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
            "IsolationIT: SKIP: needs root to make a second user");
        if (run("id", OTHER).exit != 0)
        {
            Assumptions.assumeTrue(run("useradd", "-m", "-s", "/bin/sh", OTHER).exit == 0,
                "IsolationIT: SKIP: cannot make user " + OTHER);
        }
    }

    /** A command's exit status and output. */
    record Ran(int exit, String out)
    {
    }

    private static Ran run(final String... cmd) throws Exception
    {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Ran(p.waitFor(), out);
    }

    /** {@code cmd} as the other user. */
    private static Ran asOther(final String... cmd) throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("runuser", "-u", OTHER, "--"));
        all.addAll(List.of(cmd));
        return run(all.toArray(new String[0]));
    }

    @Test
    void anotherUserCanNeitherSeeNorTouchAJobAndRunsItsOwnBesideIt(@TempDir final Path dir) throws Exception
    {
        final ShmrunHarness.Running job = ShmrunHarness.start("isolation-victim", List.of(), null, "-np", "2", "-cp",
            ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Faulty", "coll-small", dir.toString());
        try
        {
            final List<String> ready = job.awaitLines("READY ", 2, 60_000);
            final long rankPid = Long.parseLong(ready.get(0).split(" ")[2]);
            final List<Path> jobDirs = ShmrunHarness.jobDirectoriesOf(job.pid());
            assertEquals(1, jobDirs.size(), jobDirs::toString);
            final Path jobDir = jobDirs.get(0);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                ShmrunHarness.USER_ROOT)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                jobDir.resolve("job"))));
            final Ran list = asOther("ls", ShmrunHarness.USER_ROOT.toString());
            assertNotEquals(0, list.exit, "the other user listed " + ShmrunHarness.USER_ROOT + ": " + list.out);
            final Ran read = asOther("cat", jobDir.resolve("job").toString());
            assertNotEquals(0, read.exit, "the other user read the job file");
            final Ran inbox = asOther("dd", "if=" + jobDir.resolve("inbox-0"), "of=/dev/null", "count=1");
            assertNotEquals(0, inbox.exit, "the other user opened an inbox (and could map it)");
            final Ran signal = asOther("kill", "-0", Long.toString(rankPid));
            assertNotEquals(0, signal.exit, "the other user may signal a rank");
            final Ran cleanup = asOther(ShmrunHarness.SHMRUN.toString(), "--cleanup");
            final Ran status = asOther(ShmrunHarness.SHMRUN.toString(), "--status", Long.toString(job.pid()));
            assertNotEquals(0, status.exit, "the other user's --status reached the job: " + status.out);
            assertTrue(Files.isDirectory(jobDir), "the other user's cleanup removed a live job: " + cleanup.out);
            // The other user's own job, beside this one.
            final Ran own = asOther(ShmrunHarness.SHMRUN.toString(), "-np", "2", "-cp",
                ShmrunHarness.DIST.resolve("examples/shmpi-examples.jar").toString(), "Hello");
            assertEquals(0, own.exit, own.out);
            assertTrue(own.out.contains("Hello"), own.out);
            assertTrue(job.process.isAlive(), "the job ended while the other user acted");
        }
        finally
        {
            job.process.descendants().forEach(ProcessHandle::destroyForcibly);
            job.process.destroyForcibly();
            job.process.waitFor();
        }
    }

    @Test
    void aPlantedDirectoryIsRefusedAndNothingIsWrittenThroughIt(@TempDir final Path tmp) throws Exception
    {
        // A shared-memory directory like /dev/shm: everyone may create names in it.
        final Path shm = Files.createDirectories(Path.of("/dev/shm/shmpi-it-planted-" + ProcessHandle.current().pid()));
        Files.setPosixFilePermissions(shm, PosixFilePermissions.fromString("rwxrwxrwx"));
        run("chmod", "+t", shm.toString());
        final Path evil = Path.of("/tmp/shmpi-it-evil-" + ProcessHandle.current().pid());
        try
        {
            assertEquals(0, asOther("mkdir", "-m", "0777", evil.toString()).exit);
            final Path root = shm.resolve(ShmrunHarness.USER_ROOT.getFileName());
            for (final String[] plant : new String[][] {{"ln", "-s", evil.toString(), root.toString()},
                {"mkdir", "-m", "0700", root.toString()}})
            {
                assertEquals(0, asOther(plant).exit, String.join(" ", plant));
                final ShmrunHarness.Result r = ShmrunHarness.run("isolation-planted", 60, "--mca", "shm.dir",
                    shm.toString(), "-np", "2", "-cp",
                    ShmrunHarness.DIST.resolve("examples/shmpi-examples.jar").toString(), "Hello");
                assertNotEquals(0, r.exit, r::toString);
                assertTrue(r.err.contains("refusing shmpi's directory " + root), r::toString);
                try (var files = Files.list(evil))
                {
                    assertEquals(0, files.count(), "written through the planted link");
                }
                run("rm", "-rf", root.toString());
            }
        }
        finally
        {
            run("rm", "-rf", shm.toString(), evil.toString());
        }
    }

    @Test
    void aStaleDirectoryWhosePidWasReusedIsRemovedByACleanup() throws Exception
    {
        // This test JVM is alive, but did not start at time 1: a job directory named after it is stale.
        final Path stale = ShmrunHarness.USER_ROOT.resolve(ProcessHandle.current().pid() + "-1");
        Files.createDirectories(ShmrunHarness.USER_ROOT);
        Files.createDirectory(stale);
        Files.writeString(stale.resolve("job"), "not a live job");
        final Ran cleanup = run(ShmrunHarness.SHMRUN.toString(), "--cleanup");
        assertEquals(0, cleanup.exit, cleanup.out);
        assertFalse(Files.exists(stale), "a stale directory with a reused pid was kept: " + cleanup.out);
    }
}
