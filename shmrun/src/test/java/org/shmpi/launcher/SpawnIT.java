package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code MPI_Comm_spawn} under {@code shmrun} with real processes (program {@code progs.Spawning}):
 * children that get their arguments, class path and parents; failures to start as ERR_SPAWN;
 * spawnMultiple with APPNUM and info keys; the launcher's ownership of spawned ranks (a child that
 * dies or stops ends the job, an abort of the parents ends the children, a program that never
 * disconnects finalizes); 200 sequential spawns that leak nothing; a tree of spawns four levels
 * deep. Every case also checks that the job left nothing in {@code /dev/shm}.
 */
@Timeout(600)
class SpawnIT
{
    private static final String PROG = "org.shmpi.launcher.progs.Spawning";

    private static ShmrunHarness.Result run(final String name, final int np, final String... modeArgs)
        throws Exception
    {
        final String[] args = new String[4 + modeArgs.length];
        args[0] = "-np";
        args[1] = Integer.toString(np);
        args[2] = "-cp";
        args[3] = ShmrunHarness.TEST_CLASSES.toString();
        final String[] withProg = new String[args.length + 1];
        System.arraycopy(args, 0, withProg, 0, 4);
        withProg[4] = PROG;
        System.arraycopy(modeArgs, 0, withProg, 5, modeArgs.length);
        final ShmrunHarness.Result r = ShmrunHarness.run(name, 400, withProg);
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid), "the job left its directory behind");
        return r;
    }

    private static long count(final ShmrunHarness.Result r, final String prefix)
    {
        return r.outLines().stream().filter(l -> l.startsWith(prefix)).count();
    }

    @Test
    void childrenGetTheirArgumentsAndParentsAndTalkToThem() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-basic", 2, "basic");
        assertEquals(0, r.exit, r::toString);
        assertEquals(2, count(r, "PARENT "), r::toString);
        assertEquals(3, count(r, "CHILD "), r::toString);
        assertTrue(r.out.contains("args=[basic, an arg with spaces, , x\"y'z]"), r::toString);
    }

    @Test
    void aChildThatCannotStartIsErrSpawnWithACodePerChild() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-bad", 2, "bad");
        assertEquals(0, r.exit, r::toString);
        // Two failed spawns (no such class, a child exiting before MPI_Init), seen by both parents.
        assertEquals(4, count(r, "SPAWN FAILED "), r::toString);
        assertTrue(r.out.contains("java org.shmpi.NoSuchClass) exited with code 1 before it connected"), r::toString);
        assertTrue(r.out.contains("exit-at-once) exited with code 3 before it connected"), r::toString);
        assertEquals(2, count(r, "PARENT "), r::toString);
    }

    @Test
    void spawnMultipleMakesOneWorldWithAppnumAndInfoKeys(@TempDir final Path wdir) throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-multiple", 2, "multiple", wdir.toString());
        assertEquals(0, r.exit, r::toString);
        assertTrue(r.out.contains("CHILD 0 APPNUM 0 WDIR " + System.getProperty("user.dir") + "\n"), r::toString);
        assertTrue(r.out.contains("CHILD 1 APPNUM 1 WDIR " + wdir + "\n"), r::toString);
        assertTrue(r.out.contains("CHILD 2 APPNUM 1 WDIR " + wdir + "\n"), r::toString);
    }

    @Test
    void aProgramThatNeverDisconnectsStillFinalizes() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-no-disconnect", 2, "no-disconnect");
        assertEquals(0, r.exit, r::toString);
        assertEquals(2, count(r, "PARENT "), r::toString);
        assertEquals(2, count(r, "CHILD "), r::toString);
    }

    @Test
    void aSpawnedRankThatDiesEndsTheJob() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-child-dies", 2, "child-dies");
        assertNotEquals(0, r.exit, r::toString);
        assertTrue(r.err.contains("spawned rank 0 of spawn 1 (pid "), r::toString);
        assertTrue(r.err.contains("exited with code 7"), r::toString);
    }

    /** A spawned rank stopped (SIGSTOP) after it joined: found by its heartbeat, killed, the job ends naming it. */
    @Test
    void aSpawnedRankThatStopsEndsTheJob() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("spawn-child-stops", 400, "--mca", "rank.timeout.ms", "2000",
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PROG, "child-stops");
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(r.pid), "the job left its directory behind");
        assertNotEquals(0, r.exit, r::toString);
        final Matcher stopped = Pattern.compile("CHILD 0 STOPS ([0-9]+)").matcher(r.out);
        assertTrue(stopped.find(), r::toString);
        assertTrue(r.err.contains("spawned rank 0 of spawn 1 (pid " + stopped.group(1) + ") is unresponsive"),
            r::toString);
        assertTrue(ProcessHandle.of(Long.parseLong(stopped.group(1))).isEmpty(), "the stopped child still exists");
    }

    @Test
    void anAbortOfTheParentsEndsTheChildren() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-parent-aborts", 2, "parent-aborts");
        assertEquals(5, r.exit, r::toString);
        assertEquals(2, count(r, "SPAWNED "), r::toString);
        assertEquals(0, count(r, "CHILD "), r::toString);
        // shmrun waited for every process it started, the children too: none is left.
        assertTrue(ProcessHandle.allProcesses().noneMatch(p -> p.info().commandLine().orElse("")
            .contains(PROG + " parent-aborts")), "a spawned process outlived the job");
    }

    /**
     * 200 spawns of one child, each merged, disconnected and followed by a bcast among the
     * parents: what the parent holds (descriptors, threads, mappings of shared memory, files of
     * its job) is the same after the last as after the first.
     */
    @Test
    void twoHundredSpawnsLeakNothing() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-loop", 2, "loop", "200");
        assertEquals(0, r.exit, r::toString);
        final Matcher first = Pattern.compile("HOLDINGS AFTER 1 (.*)").matcher(r.out);
        final Matcher last = Pattern.compile("HOLDINGS AFTER 200 (.*)").matcher(r.out);
        assertTrue(first.find() && last.find(), r::toString);
        assertEquals(first.group(1), last.group(1), r::toString);
        System.out.println("SpawnIT loop: " + r.outLines().stream().filter(l -> l.startsWith("LOOP")).findFirst()
            .orElse(""));
    }

    @Test
    void aTreeOfSpawnsFourLevelsDeepFinalizes() throws Exception
    {
        final ShmrunHarness.Result r = run("spawn-tree", 2, "tree", "4");
        assertEquals(0, r.exit, r::toString);
        for (int level = 0; level < 4; level++)
        {
            assertEquals(2, count(r, "TREE LEVEL " + level + " OK"), r::toString);
        }
    }
}
