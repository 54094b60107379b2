package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

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
    void deleteRemovesTheJobButNeitherAnotherJobNorTheUserRoot() throws IOException
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
        assertTrue(Files.isDirectory(root), "the user root stays: a job starting now may be creating its directory");
        assertEquals("rwx------", permissions(root));

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
        assertTrue(Files.isDirectory(JobDirectory.userRoot(shmDir.toString())), "cleanup keeps the user root");
    }

    /**
     * Jobs start and end at the same moment, as on a shared CI machine: creators make and remove
     * their job directories while others clean up stale ones and list the user root. FORBIDDEN:
     * any exception (the user root vanishing under a creator or a lister, a stale directory
     * removed twice). Every creator's directory is named after a live child process, so cleanup
     * must never take it; the stale ones are named after a process that has exited. One thread
     * also removes the user root whenever it is empty, as shmpi used to at the end of every job
     * (and as other builds on the same machine may still do).
     */
    @Test
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentJobsStartingAndEndingNeverFail() throws Exception
    {
        final int creators = 2;
        final int rounds = 200;
        final String shm = shmDir.toString();
        final Path root = JobDirectory.userRoot(shm);
        final long dead = deadPid();
        final List<Process> launchers = new ArrayList<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicBoolean creatorsDone = new AtomicBoolean();
        final List<Thread> threads = new ArrayList<>();
        try
        {
            for (int t = 0; t < creators; t++)
            {
                final Process launcher = new ProcessBuilder("sleep", "120").start();
                launchers.add(launcher);
                final long pid = launcher.pid();
                final long start = Processes.startMillis(pid);
                threads.add(new Thread(() ->
                {
                    for (int i = 0; i < rounds && failure.get() == null; i++)
                    {
                        try
                        {
                            final JobDirectory job = JobDirectory.create(shm, pid, start);
                            Files.writeString(job.jobFile(), "live");
                            assertEquals("live", Files.readString(job.jobFile()), "a live job's file was removed");
                            job.delete();
                        }
                        catch (final Throwable ex)
                        {
                            failure.compareAndSet(null, ex);
                        }
                    }
                }, "creator-" + t));
            }
            for (int t = 0; t < 3; t++)
            {
                final int id = t;
                threads.add(new Thread(() ->
                {
                    for (long i = 0; !creatorsDone.get() && failure.get() == null; i++)
                    {
                        try
                        {
                            if (id == 0 && (i & 7) == 0)
                            {
                                final JobDirectory stale = JobDirectory.create(shm, dead, i);
                                try
                                {
                                    Files.writeString(stale.inboxFile(0), "stale");
                                }
                                catch (final NoSuchFileException ignore)
                                {
                                    // Another cleaner removed it first: allowed, it is stale.
                                }
                            }
                            if (id == 1)
                            {
                                JobDirectory.cleanupStale(shm);
                            }
                            else
                            {
                                JobDirectory.findStale(shm);
                            }
                            if (id == 2)
                            {
                                removeRootIfEmpty(root);
                            }
                        }
                        catch (final Throwable ex)
                        {
                            failure.compareAndSet(null, ex);
                        }
                    }
                }, "cleaner-" + t));
            }
            for (final Thread t : threads)
            {
                t.start();
            }
            for (int t = 0; t < creators; t++)
            {
                threads.get(t).join();
            }
            creatorsDone.set(true);
            for (final Thread t : threads)
            {
                t.join();
            }
        }
        finally
        {
            creatorsDone.set(true);
            for (final Process p : launchers)
            {
                p.destroyForcibly();
                assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            }
        }
        if (failure.get() != null)
        {
            throw new AssertionError("FORBIDDEN: a concurrent create, delete or cleanup failed", failure.get());
        }
        JobDirectory.cleanupStale(shm);
        assertEquals(List.of(), JobDirectory.findStale(shm));
    }

    /** What shmpi's delete used to do after each job: rmdir the user root, which fails unless empty. */
    private static void removeRootIfEmpty(final Path root) throws IOException
    {
        try
        {
            Files.deleteIfExists(root);
        }
        catch (final DirectoryNotEmptyException ignore)
        {
            // A job lives there.
        }
    }

    /** Someone removed the (empty) user root by hand: the next job creates it again. */
    @Test
    void createRecreatesAVanishedUserRoot() throws IOException
    {
        final JobDirectory a = JobDirectory.create(shmDir.toString(), 1001, 1);
        a.delete();
        Files.delete(JobDirectory.userRoot(shmDir.toString()));
        final JobDirectory b = JobDirectory.create(shmDir.toString(), 1002, 2);
        assertTrue(Files.isDirectory(b.path()));
        assertEquals("rwx------", permissions(JobDirectory.userRoot(shmDir.toString())));
        b.delete();
    }

    @Test
    void createInAMissingSharedMemoryDirectoryNamesTheSetting()
    {
        final String missing = shmDir.resolve("nowhere").toString();
        final NoSuchFileException ex =
            assertThrows(NoSuchFileException.class, () -> JobDirectory.create(missing, 1, 1));
        assertTrue(ex.getMessage().contains("shmpi.shm.dir=" + missing), ex.getMessage());
        assertFalse(Files.exists(Path.of(missing)), "shmDir is not created: a typo must not make directories");
    }

    @Test
    void cleanupOfAMissingRootFindsNothing() throws IOException
    {
        assertEquals(List.of(), JobDirectory.findStale(shmDir.resolve("nowhere").toString()));
        assertEquals(List.of(), JobDirectory.cleanupStale(shmDir.resolve("nowhere").toString()));
    }
}
