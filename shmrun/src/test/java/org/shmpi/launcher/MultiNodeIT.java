package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jobs over several "nodes" of this machine, each rank a real JVM started as a cluster launcher
 * starts it (no shmrun), each node with a shared-memory directory of its own so that only the
 * TCP bridge joins them ({@link NodeLaunch}): the examples and every feature across 2 and 3
 * nodes under shmpi's and Slurm's environments, a rank killed on one node ending every node, a
 * stranger at the rendezvous refused, a node that never comes named, and an environment that
 * says several ranks but cannot be followed failing in one line, never as a singleton.
 */
@Timeout(value = 300)
class MultiNodeIT
{
    private static final int[] ZEROS4 = new int[4];

    @Test
    void examplesAndEveryFeatureRunAcrossTwoNodes() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("two-nodes-ring", 4, 2))
        {
            final NodeLaunch.Outcome ring = job.start(NodeLaunch.Style.SHMPI, null, "Ring", "20").finish(120);
            assertArrayEquals(ZEROS4, ring.exitCodes(), ring::toString);
            assertTrue(ring.allOut().contains("Ring of 4 ranks: 20 laps OK"), ring::toString);
            assertEquals(List.of(), job.leftovers(), ring::toString);
        }
        everyFeature("two-nodes-all", null);
        // The same with each node's first rank doing its bridge's socket work itself.
        everyFeature("two-nodes-inline", r -> Map.of("SHMPI_BRIDGE_INLINE", "true"));
    }

    /** The feature program over 4 ranks on 2 nodes, each rank's environment tweaked by {@code tweak}. */
    private static void everyFeature(final String name,
        final java.util.function.Function<Integer, Map<String, String>> tweak) throws Exception
    {
        try (NodeLaunch job = new NodeLaunch(name, 4, 2))
        {
            final NodeLaunch.Outcome all = job.start(NodeLaunch.Style.SHMPI, tweak,
                "org.shmpi.launcher.progs.MultiNode", "all").finish(180);
            assertArrayEquals(ZEROS4, all.exitCodes(), all::toString);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(all.allOut().contains("MULTINODE OK rank " + r + " of 4 node " + r / 2 + " shared 2"),
                    all::toString);
            }
            assertEquals("", all.allErr(), "the nodes part without a word (goodbyes, no lost connection)");
            assertEquals(List.of(), job.leftovers(), all::toString);
        }
    }

    @Test
    void windowsWorkAcrossNodesAndWindowsAndFilesWithinANode(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("rma-io", 4, 2))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SHMPI, null,
                "org.shmpi.launcher.progs.MultiNode", "rma-io", dir.resolve("data").toString()).finish(120);
            assertArrayEquals(ZEROS4, o.exitCodes(), o::toString);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(o.allOut().contains("MULTINODE RMA-IO OK rank " + r + "\n"), o::toString);
            }
            assertTrue(o.millis() < 60_000, o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    /**
     * A file opened on COMM_WORLD over 2 nodes of 2 ranks and 3 nodes of 2: every MPI-IO call
     * works as on one node (the shared words served by rank 0 by messages), nothing left behind.
     */
    @Test
    void filesAcrossNodesWorkAsOnOneNode(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws Exception
    {
        for (final int[] shape : new int[][] {{4, 2}, {6, 3}})
        {
            final int ranks = shape[0];
            try (NodeLaunch job = new NodeLaunch("io-across-" + shape[1], ranks, shape[1]))
            {
                final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SHMPI, null,
                    "org.shmpi.launcher.progs.MultiNode", "io-across", dir.resolve("data-" + shape[1]).toString())
                    .finish(120);
                assertArrayEquals(new int[ranks], o.exitCodes(), o::toString);
                for (int r = 0; r < ranks; r++)
                {
                    assertTrue(o.allOut().contains("MULTINODE IO-ACROSS OK rank " + r + "\n"), o::toString);
                }
                assertEquals(List.of(), job.leftovers(), o::toString);
            }
        }
    }

    @Test
    void twoHalvesJoinThroughAPortAcrossNodes() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("ports", 4, 2))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SHMPI, null,
                "org.shmpi.launcher.progs.MultiNode", "ports", Long.toString(System.nanoTime())).finish(120);
            assertArrayEquals(ZEROS4, o.exitCodes(), o::toString);
            for (int r = 0; r < 4; r++)
            {
                assertTrue(o.allOut().contains("MULTINODE PORTS OK rank " + r + "\n"), o::toString);
            }
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void barrierBcastAndAllreduceSendBetweenNodesOnlyFromEachNodesFirstRank() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("node-aware", 6, 2))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SHMPI, null,
                "org.shmpi.launcher.progs.MultiNode", "node-aware").finish(120);
            assertArrayEquals(new int[6], o.exitCodes(), o::toString);
            for (final int r : new int[] {1, 2, 4, 5})
            {
                assertTrue(o.allOut().contains("NODE-AWARE rank " + r + " across 0 within "), o::toString);
            }
            for (final int leader : new int[] {0, 3})
            {
                assertFalse(o.allOut().contains("NODE-AWARE rank " + leader + " across 0 "), o::toString);
            }
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    /** Open MPI's mpirun as the launcher on one machine: the ranks bootstrap through its PMIx server. */
    @Test
    void mpirunStartsTheRanksThroughPmixAndNeverAsSingletons() throws Exception
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("sh", "-c", "command -v mpirun").start()
            .waitFor() == 0, "SKIP: no mpirun (Debian: apt-get install openmpi-bin)");
        final String flags = ShmrunHarness.run("print-flags", 60, "--print-jvm-flags").out.trim();
        final java.util.function.Function<String, List<String>> mpirun = mode ->
        {
            final List<String> cmd = new java.util.ArrayList<>(List.of("mpirun", "--allow-run-as-root",
                "--oversubscribe", "-np", "3", "java"));
            cmd.addAll(List.of(flags.split(" ")));
            cmd.addAll(List.of("-cp", ShmrunHarness.DIST.resolve("lib") + "/*:" + ShmrunHarness.TEST_CLASSES,
                "org.shmpi.launcher.progs.MultiNode", mode));
            return cmd;
        };
        final ProcessBuilder pb = new ProcessBuilder(mpirun.apply("all"));
        pb.environment().keySet().removeIf(k -> k.startsWith("SHMPI_") || k.startsWith("OMPI_") ||
            k.startsWith("SLURM") || k.startsWith("PMIX"));
        pb.redirectErrorStream(true);
        final Process p = pb.start();
        final ShmrunHarness.Collector out = new ShmrunHarness.Collector(p.getInputStream());
        out.start();
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "mpirun did not finish");
        out.join(5_000);
        assertEquals(0, p.exitValue(), out.text());
        for (int r = 0; r < 3; r++)
        {
            assertTrue(out.text().contains("MULTINODE OK rank " + r + " of 3 node "), out.text());
        }
        assertEquals(3, out.text().split("shared 3\n", -1).length - 1, out.text());

        pb.command(mpirun.apply("all"));
        pb.environment().put("SHMPI_PMIX", "off");
        final Process off = pb.start();
        final ShmrunHarness.Collector offOut = new ShmrunHarness.Collector(off.getInputStream());
        offOut.start();
        assertTrue(off.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "mpirun did not finish");
        offOut.join(5_000);
        assertTrue(off.exitValue() != 0, offOut.text());
        assertTrue(offOut.text().contains("shmpi: cannot start this rank: mpirun started this rank as one of 3 but " +
            "offers no PMIx to join them (SHMPI_PMIX=off)"), offOut.text());
        assertFalse(offOut.text().contains("MULTINODE OK"), "ranks ran as singletons: " + offOut.text());
    }

    @Test
    void slurmEnvironmentThreeNodes() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("slurm-three-nodes", 6, 3))
        {
            final NodeLaunch.Outcome all = job.start(NodeLaunch.Style.SLURM, null,
                "org.shmpi.launcher.progs.MultiNode", "all").finish(240);
            assertArrayEquals(new int[6], all.exitCodes(), all::toString);
            for (int r = 0; r < 6; r++)
            {
                assertTrue(all.allOut().contains("MULTINODE OK rank " + r + " of 6 node " + r / 2 + " shared 2"),
                    all::toString);
            }
            assertEquals(List.of(), job.leftovers(), all::toString);
        }
        try (NodeLaunch job = new NodeLaunch("slurm-three-nodes-pi", 3, 3))
        {
            final NodeLaunch.Outcome pi = job.start(NodeLaunch.Style.SLURM, null, "Pi").finish(120);
            assertArrayEquals(new int[3], pi.exitCodes(), pi::toString);
            assertTrue(pi.allOut().contains("from 3 ranks") && pi.allOut().contains("OK"), pi::toString);
            assertEquals(List.of(), job.leftovers(), pi::toString);
        }
    }

    @Test
    void aRankKilledOnOneNodeEndsEveryNode() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("kill-on-node-1", 4, 2))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SHMPI, null,
                "org.shmpi.launcher.progs.MultiNode", "die", "3").finish(60);
            for (final int code : o.exitCodes())
            {
                assertTrue(code != 0, o::toString);
            }
            final long pid3 = job.processes().get(3).pid();
            assertTrue(o.allErr().contains("rank 3 (node 1") && o.allErr().contains("pid " + pid3 + ") died"),
                o::toString);
            assertTrue(o.millis() < 15_000, o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void aRankThrowingOnTheFirstNodeEndsEveryNode() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("throw-on-node-0", 4, 2))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SLURM, null,
                "org.shmpi.launcher.progs.MultiNode", "throw", "0").finish(60);
            for (final int code : o.exitCodes())
            {
                assertTrue(code != 0, o::toString);
            }
            assertTrue(o.allErr().contains("rank 0 gives up on purpose"), o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void aStrangerAtTheRendezvousIsRefusedAndTheJobGoesOn() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("stranger", 2, 2))
        {
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicInteger knocks = new AtomicInteger();
            final Thread stranger = new Thread(() ->
            {
                while (!done.get() && knocks.get() == 0)
                {
                    try (Socket s = new Socket())
                    {
                        s.connect(new InetSocketAddress("127.0.0.1", job.port()), 500);
                        final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                        out.writeLong(0x53484D5049525631L);
                        out.write(new byte[32]);
                        out.flush();
                        s.getInputStream().read();
                        knocks.incrementAndGet();
                    }
                    catch (final IOException ex)
                    {
                        // not listening yet
                    }
                }
            });
            stranger.setDaemon(true);
            // Node 1 comes late, so the stranger knocks while node 0 waits at the rendezvous.
            job.start(NodeLaunch.Style.SHMPI, r -> r == 1 ? Map.of("SHMPI_TEST_DELAY", "1") : null,
                "org.shmpi.launcher.progs.MultiNode", "all");
            stranger.start();
            final NodeLaunch.Outcome o = job.finish(120);
            done.set(true);
            assertArrayEquals(new int[2], o.exitCodes(), o::toString);
            assertTrue(knocks.get() >= 1, "the stranger never got an answer");
            assertTrue(o.allErr().contains("shmpi rendezvous: refused a connection") &&
                o.allErr().contains("wrong job secret"), o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void aNodeThatNeverComesIsNamedAndNothingIsLeft() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("missing-node", 2, 2))
        {
            // Only node 0's rank starts: node 1 never reaches the rendezvous.
            final NodeLaunch.Outcome o = job.initTimeout(5_000).start(NodeLaunch.Style.SHMPI,
                r -> Map.of("SHMPI_RENDEZVOUS", r == 0 ? "127.0.0.1:" + job.port() : "127.0.0.1:1"),
                "Hello").finish(90);
            assertTrue(o.exitCodes()[0] != 0 && o.exitCodes()[1] != 0, o::toString);
            assertTrue(o.millis() < 30_000, o::toString);
            assertTrue(o.err().get(0).contains("nodes [1] never reached the job's rendezvous"), o::toString);
            assertTrue(o.err().get(1).contains("cannot reach the job's rendezvous"), o::toString);
            assertFalse(o.allOut().contains("Hello from"), o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void aSlurmEnvironmentThatCannotBeFollowedFailsInOneLine() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("bad-slurm-env", 2, 1))
        {
            final Map<String, String> broken = new java.util.HashMap<>();
            broken.put("SLURM_NODEID", null);
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SLURM, r -> broken, "Hello").finish(60);
            for (final int code : o.exitCodes())
            {
                assertTrue(code != 0, o::toString);
            }
            for (final String err : o.err())
            {
                assertTrue(err.startsWith("shmpi: cannot start this rank: SLURM_NODEID is not set\n"), o::toString);
            }
            assertFalse(o.allOut().contains("Hello from"), "a rank ran alone: " + o);
            assertEquals(List.of(), job.leftovers(), o::toString);
        }
    }

    @Test
    void oneNodeUnderSrunNeedsNoNetwork() throws Exception
    {
        try (NodeLaunch job = new NodeLaunch("slurm-one-node", 3, 1))
        {
            final NodeLaunch.Outcome o = job.start(NodeLaunch.Style.SLURM,
                r -> Map.of("SLURM_STEP_NODELIST", "no-such-host.invalid", "SLURMD_NODENAME", "localhost"),
                "Ring", "5").finish(120);
            assertArrayEquals(new int[3], o.exitCodes(), o::toString);
            assertTrue(o.allOut().contains("Ring of 3 ranks: 5 laps OK"), o::toString);
            assertEquals(List.of(), job.leftovers(), o::toString);
            assertTrue(Arrays.stream(o.exitCodes()).allMatch(c -> c == 0));
        }
    }
}
