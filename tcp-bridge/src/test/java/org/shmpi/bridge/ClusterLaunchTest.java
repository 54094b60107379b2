package org.shmpi.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a rank's place from Slurm's and shmpi's launch environments. */
class ClusterLaunchTest
{
    private static Map<String, String> srun(final int procid, final int nodeid, final int localid)
    {
        final Map<String, String> env = new HashMap<>();
        env.put("SLURM_JOB_ID", "4711");
        env.put("SLURM_STEP_ID", "2");
        env.put("SLURM_PROCID", Integer.toString(procid));
        env.put("SLURM_NODEID", Integer.toString(nodeid));
        env.put("SLURM_LOCALID", Integer.toString(localid));
        env.put("SLURM_NTASKS", "7");
        env.put("SLURM_STEP_NUM_TASKS", "7");
        env.put("SLURM_STEP_NUM_NODES", "3");
        env.put("SLURM_STEP_TASKS_PER_NODE", "3,2(x2)");
        env.put("SLURM_STEP_NODELIST", "localhost,n[2-3]");
        env.put("SLURMD_NODENAME", "localhost");
        env.put("SHMPI_JOB_SECRET", "00".repeat(31) + "ff");
        return env;
    }

    @Test
    void srunsEnvironmentGivesThePlaceOfTheRank()
    {
        final ClusterLaunch l = ClusterLaunch.fromEnvironment(srun(5, 2, 0));
        assertEquals("srun", l.launcher());
        assertEquals(5, l.rank());
        assertEquals(7, l.size());
        assertEquals(2, l.node());
        assertEquals(3, l.nodes());
        assertEquals(2, l.localSize());
        assertTrue(l.isNodeLeader());
        assertEquals("slurm.4711.2", l.jobKey());
        assertTrue(l.rendezvous().getAddress().isLoopbackAddress());
        assertEquals(ClusterLaunch.slurmPort(Map.of(), "4711", "2"), l.rendezvous().getPort());
        assertEquals(0xff, l.secret()[31] & 0xff);
    }

    @Test
    void slurmsCompressedListsAreRead()
    {
        assertEquals(3, ClusterLaunch.tasksOnNode("3,2(x2)", 0, "V"));
        assertEquals(2, ClusterLaunch.tasksOnNode("3,2(x2)", 2, "V"));
        assertEquals(4, ClusterLaunch.tasksOnNode("4(x10)", 9, "V"));
        assertThrows(IllegalArgumentException.class, () -> ClusterLaunch.tasksOnNode("4(x10)", 10, "V"));
        assertEquals("n01", ClusterLaunch.firstHost("n[01-04,7],gpu2"));
        assertEquals("gpu2", ClusterLaunch.firstHost("gpu2,n[01-04]"));
        assertEquals("rack1-n3-ib", ClusterLaunch.firstHost("rack1-n[3-5]-ib"));
        assertEquals("solo", ClusterLaunch.firstHost("solo"));
    }

    @Test
    void aReservedPortWinsOverTheDerivedOne()
    {
        assertEquals(12001, ClusterLaunch.slurmPort(Map.of("SLURM_STEP_RESV_PORTS", "12001-12003"), "1", "0"));
        final int derived = ClusterLaunch.slurmPort(Map.of(), "1", "0");
        assertTrue(derived >= ClusterLaunch.SLURM_PORT_BASE &&
            derived < ClusterLaunch.SLURM_PORT_BASE + ClusterLaunch.SLURM_PORT_SPAN);
        assertFalse(derived == ClusterLaunch.slurmPort(Map.of(), "1", "1"), "steps of one job differ");
    }

    @Test
    void notALaunchOfSeveralRanksIsNoClusterLaunch()
    {
        assertNull(ClusterLaunch.fromEnvironment(Map.of()));
        assertNull(ClusterLaunch.fromEnvironment(Map.of("SLURM_JOB_ID", "1", "SLURM_NTASKS", "8")),
            "a batch script's own process is one process");
        final Map<String, String> one = srun(0, 0, 0);
        one.put("SLURM_STEP_NUM_TASKS", "1");
        assertNull(ClusterLaunch.fromEnvironment(one));
    }

    @Test
    void aBrokenMultiRankEnvironmentIsOneClearError()
    {
        final Map<String, String> env = srun(1, 0, 1);
        env.remove("SLURM_LOCALID");
        assertEquals("SLURM_LOCALID is not set",
            assertThrows(IllegalArgumentException.class, () -> ClusterLaunch.fromEnvironment(env)).getMessage());
        final Map<String, String> bad = srun(9, 0, 1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterLaunch.fromEnvironment(bad))
            .getMessage().contains("rank 9 of 7"));
        final Map<String, String> secret = srun(1, 0, 1);
        secret.put("SHMPI_JOB_SECRET", "abcd");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterLaunch.fromEnvironment(secret))
            .getMessage().contains("64 hexadecimal digits"));
    }

    @Test
    void withoutAHandedSecretTheUsersSecretFileIsMadeOnceAndMixedWithTheJob(@TempDir final Path home) throws Exception
    {
        final Map<String, String> env = srun(1, 0, 1);
        env.remove("SHMPI_JOB_SECRET");
        env.put("HOME", home.toString());
        final byte[] a = ClusterLaunch.fromEnvironment(env).secret();
        final Path file = home.resolve(".shmpi/secret");
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(file)));
        assertArrayEquals(a, ClusterLaunch.fromEnvironment(env).secret(), "the same job, the same secret");
        env.put("SLURM_STEP_ID", "3");
        assertFalse(java.util.Arrays.equals(a, ClusterLaunch.fromEnvironment(env).secret()), "another step, another");
    }
}
