package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Job directories under a temporary shared-memory root (the shmDir argument), never /dev/shm. */
class JobDirectoryTest
{
    @TempDir
    Path shmDir;

    private Process child;

    @AfterEach
    void removeEverything() throws IOException, InterruptedException
    {
        if (child != null)
        {
            child.destroyForcibly();
            assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        }
        final Path root = JobDirectory.userRoot(shmDir.toString());
        JobDirectory.deleteRecursively(root);
        assertFalse(Files.exists(root), "left behind: " + root);
    }

    private static long selfPid()
    {
        return ProcessHandle.current().pid();
    }

    private static String permissions(final Path p) throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    /** The pid of a process that has exited and been reaped. */
    private static long deadPid() throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        final long pid = p.pid();
        assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "pid " + pid + " still alive");
        return pid;
    }

    @Test
    void createMakesPrivateDirectoryNamedByLauncher() throws IOException
    {
        final long start = Processes.selfStartMillis();
        final JobDirectory dir = JobDirectory.create(shmDir.toString(), selfPid(), start);
        final Path root = JobDirectory.userRoot(shmDir.toString());
        assertEquals(root.resolve(selfPid() + "-" + start), dir.path());
        assertTrue(Files.isDirectory(dir.path()));
        assertEquals("rwx------", permissions(dir.path()));
        assertEquals("rwx------", permissions(root));
        assertEquals(shmDir.resolve("shmpi-" + System.getProperty("user.name")), root);
        assertEquals(dir.path().resolve("job"), dir.jobFile());
        assertEquals(dir.path().resolve("inbox-3"), dir.inboxFile(3));
        assertEquals(selfPid(), JobDirectory.launcherPidOf(dir.path()));
        assertEquals(start, JobDirectory.launcherStartOf(dir.path()));
        assertEquals(Optional.of(dir.path()), JobDirectory.existing(dir.path().toString()).map(JobDirectory::path));
    }

    @Test
    void deleteRemovesTheJobAndTheEmptyUserRootButNotAnotherJob() throws IOException
    {
        final JobDirectory a = JobDirectory.create(shmDir.toString(), 1001, 1);
        final JobDirectory b = JobDirectory.create(shmDir.toString(), 1002, 2);
        Files.writeString(a.jobFile(), "x");
        Files.createDirectory(a.path().resolve("sub"));
        Files.writeString(a.path().resolve("sub/f"), "y");
        final Path root = JobDirectory.userRoot(shmDir.toString());

        a.delete();
        assertFalse(Files.exists(a.path()));
        assertTrue(Files.isDirectory(b.path()), "the other job is untouched");

        b.delete();
        assertFalse(Files.exists(b.path()));
        assertFalse(Files.exists(root), "empty user root removed");

        b.delete();  // a missing directory is not an error
        assertEquals(Optional.empty(), JobDirectory.existing(b.path().toString()));
    }

    @ParameterizedTest
    @CsvSource({
        "123-456, 123, 456",
        "1-0, 1, 0",
        "abc, -1, -1",
        "12-x, 12, -1",
        "x-12, -1, 12",
        "1-2-3, -1, -1",
        "123, -1, -1",
    })
    void pidAndStartAreParsedFromTheName(final String name, final long pid, final long start)
    {
        assertEquals(pid, JobDirectory.launcherPidOf(Path.of("/x", name)));
        assertEquals(start, JobDirectory.launcherStartOf(Path.of("/x", name)));
    }

    @Test
    void thisProcessWithItsStartTimeIsLive()
    {
        final Path dir = shmDir.resolve(selfPid() + "-" + Processes.selfStartMillis());
        assertTrue(JobDirectory.isLive(dir));
    }

    @Test
    @Timeout(20)
    void exitedProcessIsNotLive() throws Exception
    {
        assertFalse(JobDirectory.isLive(shmDir.resolve(deadPid() + "-" + Processes.selfStartMillis())));
    }

    @Test
    void wrongStartTimeIsNotLive()
    {
        final long start = Processes.selfStartMillis();
        assertFalse(JobDirectory.isLive(shmDir.resolve(selfPid() + "-" + (start - 60_000))), "pid reused");
        assertFalse(JobDirectory.isLive(shmDir.resolve(selfPid() + "-" + (start + 1_000))));
    }

    @Test
    void malformedNamesAreNotLive()
    {
        assertFalse(JobDirectory.isLive(shmDir.resolve("notes")));
        assertFalse(JobDirectory.isLive(shmDir.resolve("0-" + Processes.selfStartMillis())));
        assertFalse(JobDirectory.isLive(shmDir.resolve(selfPid() + "-x")));
    }

    @Test
    @Timeout(30)
    void cleanupRemovesDeadJobsAndKeepsLiveOnes() throws Exception
    {
        final JobDirectory live = JobDirectory.create(shmDir.toString(), selfPid(), Processes.selfStartMillis());
        final JobDirectory dead = JobDirectory.create(shmDir.toString(), deadPid(), Processes.selfStartMillis());
        Files.writeString(dead.jobFile(), "stale");
        Files.writeString(dead.inboxFile(0), "stale");
        Files.writeString(live.jobFile(), "live");
        final Path unrelated = Files.createDirectory(JobDirectory.userRoot(shmDir.toString()).resolve("notes"));

        assertEquals(List.of(dead.path()), JobDirectory.findStale(shmDir.toString()));
        assertEquals(List.of(dead.path()), JobDirectory.cleanupStale(shmDir.toString()));
        assertFalse(Files.exists(dead.path()));
        assertTrue(Files.isRegularFile(live.jobFile()), "a live job is never touched");
        assertEquals("live", Files.readString(live.jobFile()));
        assertTrue(Files.isDirectory(unrelated), "a directory that is not a job is not ours to remove");

        assertEquals(List.of(), JobDirectory.cleanupStale(shmDir.toString()), "nothing left to clean");
        live.delete();
        assertFalse(Files.exists(live.path()));
    }

    /** A job whose launcher is a running child is live; once the child is gone it is stale. */
    @Test
    @Timeout(30)
    void jobBecomesStaleWhenItsLauncherDies() throws Exception
    {
        child = new ProcessBuilder("sleep", "60").start();
        final long start = Processes.startMillis(child.pid());
        assertTrue(start > 0);
        final JobDirectory job = JobDirectory.create(shmDir.toString(), child.pid(), start);
        assertTrue(JobDirectory.isLive(job.path()));
        assertEquals(List.of(), JobDirectory.cleanupStale(shmDir.toString()));
        assertTrue(Files.isDirectory(job.path()));

        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        assertFalse(JobDirectory.isLive(job.path()));
        assertEquals(List.of(job.path()), JobDirectory.cleanupStale(shmDir.toString()));
        assertFalse(Files.exists(job.path()));
        assertFalse(Files.exists(JobDirectory.userRoot(shmDir.toString())), "empty user root removed");
    }

    @Test
    void cleanupOfAMissingRootFindsNothing() throws IOException
    {
        assertEquals(List.of(), JobDirectory.findStale(shmDir.resolve("nowhere").toString()));
        assertEquals(List.of(), JobDirectory.cleanupStale(shmDir.resolve("nowhere").toString()));
    }
}
