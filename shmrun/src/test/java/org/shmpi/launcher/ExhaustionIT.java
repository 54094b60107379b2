package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A full shared-memory file system (a small tmpfs mounted for the test, given as shmpi.shm.dir):
 * MPI.Init fails on every rank with ERR_NO_MEM naming the space and the setting, not SIGBUS, and
 * leaves nothing; with room for Init but not for a 64 MiB window, the window is ERR_NO_MEM on
 * every rank and the job goes on. Needs root (mount); skips with one line otherwise.
 */
@Timeout(300)
class ExhaustionIT
{
    private static final Path TINY = Path.of("/tmp/shmpi-it-tiny-" + ProcessHandle.current().pid());
    private static final Path SMALL = Path.of("/tmp/shmpi-it-small-" + ProcessHandle.current().pid());

    @BeforeAll
    static void mount() throws Exception
    {
        Files.createDirectories(TINY);
        Files.createDirectories(SMALL);
        final boolean tiny = run("mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", TINY.toString()) == 0;
        final boolean small = tiny && run("mount", "-t", "tmpfs", "-o", "size=24m,mode=0755", "tmpfs",
            SMALL.toString()) == 0;
        Assumptions.assumeTrue(small, "ExhaustionIT: SKIP: cannot mount a tmpfs here (needs root)");
    }

    @AfterAll
    static void unmount() throws Exception
    {
        run("umount", TINY.toString());
        run("umount", SMALL.toString());
        Files.deleteIfExists(TINY);
        Files.deleteIfExists(SMALL);
    }

    private static int run(final String... cmd) throws Exception
    {
        return new ProcessBuilder(cmd).inheritIO().start().waitFor();
    }

    private static long filesUnder(final Path dir) throws Exception
    {
        try (var walk = Files.walk(dir))
        {
            return walk.filter(Files::isRegularFile).count();
        }
    }

    @Test
    void initInAFullDirectoryFailsWithErrNoMemAndLeavesNothing() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("exhaust-init", 120, "--mca", "shm.dir", TINY.toString(),
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Exhaust");
        assertNotEquals(0, r.exit, r::toString);
        assertTrue(r.err.contains("failed in MPI_Init") && r.err.contains("no room for inbox segment"), r::toString);
        assertTrue(r.err.contains("shmpi.shm.dir"), r::toString);
        assertTrue(!r.err.contains("InternalError") && !r.err.contains("SIGBUS"), r::toString);
        assertEquals(0, filesUnder(TINY), "left in the directory");
    }

    @Test
    void aWindowTooLargeIsErrNoMemOnEveryRankAndTheJobGoesOn() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("exhaust-window", 120, "--mca", "shm.dir", SMALL.toString(),
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Exhaust");
        assertEquals(0, r.exit, r::toString);
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(r.out.contains("BUFFER " + rank + " " + (64 << 20)), r::toString);
            assertTrue(r.out.contains("WINDOW " + rank + " class " + mpi.MPI.ERR_NO_MEM + " "), r::toString);
            assertTrue(r.out.contains("DONE " + rank + " 2"), r::toString);
        }
        assertTrue(r.out.contains("shmpi.shm.dir"), r::toString);
        assertEquals(0, filesUnder(SMALL), "left in the directory");
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid));
    }
}
