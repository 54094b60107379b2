package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jobs started by a real Slurm on this machine: {@code tests/cluster/slurm-cluster} makes three
 * hosts out of network namespaces (each with its own hostname and its own {@code /dev/shm}), one
 * slurmd per host and a slurmctld, and {@code srun} starts the ranks as plain JVMs, as on a
 * cluster. The examples run across 2 and 3 nodes, Hello names the host of every rank (so the
 * node boundary is real), and after every job no node's {@code /dev/shm} holds anything of it.
 * Skipped (with the script's SKIP line) where the cluster cannot be made: not root, no network
 * namespaces, Slurm not installable.
 */
@Timeout(value = 600)
class SlurmIT
{
    private static final Path CLUSTER_DIR =
        Path.of(System.getProperty("user.dir")).resolve("../tests/cluster").normalize();
    private static final Path SLURM_CLUSTER = CLUSTER_DIR.resolve("slurm-cluster");
    private static final int NODES = 3;
    /** srun's own limit, minutes; the test's limit below is shorter, so the test notices first. */
    private static final String SRUN_TIME = "4";
    private static final long JOB_TIMEOUT_SECONDS = 180;
    private static final AtomicInteger JOBS = new AtomicInteger();

    private static String slurmConf;
    /** The SKIP line of slurm-cluster up when the cluster cannot be made here, else null. */
    private static String skipped;

    @BeforeAll
    static void clusterUp() throws Exception
    {
        final CommandOutcome up = run(List.of(SLURM_CLUSTER.toString(), "up", String.valueOf(NODES)), null, 600, null);
        if (up.exit == 77)
        {
            // Each test is then reported as skipped with this line (an assumption failing here would
            // leave the class reported as "Tests run: 0", the reason nowhere).
            skipped = up.skipLine("slurm-cluster");
            System.err.println("SlurmIT: " + skipped);
            return;
        }
        assertEquals(0, up.exit, up::toString);
        final Matcher m = Pattern.compile("(?m)^export SLURM_CONF=(\\S+)$").matcher(up.out);
        assertTrue(m.find(), up::toString);
        slurmConf = m.group(1);
    }

    @BeforeEach
    void clusterIsUp()
    {
        assumeTrue(skipped == null, skipped);
    }

    @AfterAll
    static void clusterDown() throws Exception
    {
        final CommandOutcome down = run(List.of(SLURM_CLUSTER.toString(), "down"), null, 180, null);
        assertTrue(down.exit == 0 || down.exit == 77, down::toString);
    }

    @Test
    void ringAcrossTwoNodes() throws Exception
    {
        final CommandOutcome ring = srun(2, 4, List.of(), "Ring", "20");
        assertEquals(0, ring.exit, ring::toString);
        assertTrue(ring.out.contains("Ring of 4 ranks: 20 laps OK"), ring::toString);
        assertNothingLeft(ring);
    }

    @Test
    void piAcrossThreeNodesOnReservedPorts() throws Exception
    {
        // --resv-ports: the rendezvous port comes from SLURM_STEP_RESV_PORTS (the other jobs derive it).
        final CommandOutcome pi = srun(3, 6, List.of("--resv-ports=1"), "Pi");
        assertEquals(0, pi.exit, pi::toString);
        assertTrue(pi.lines().stream().anyMatch(l -> l.startsWith("pi = ") && l.contains("from 6 ranks")
            && l.endsWith("OK")), pi::toString);
        assertNothingLeft(pi);
    }

    @Test
    void helloNamesTwoHostsTwiceEach() throws Exception
    {
        final CommandOutcome hello = srun(2, 4, List.of(), "Hello");
        assertEquals(0, hello.exit, hello::toString);
        final Map<Integer, String> hostOfRank = new TreeMap<>();
        final Pattern line = Pattern.compile("Hello from rank (\\d+) of 4 on (\\S+)");
        for (final String l : hello.lines())
        {
            final Matcher m = line.matcher(l);
            if (m.matches())
            {
                assertNull(hostOfRank.put(Integer.parseInt(m.group(1)), m.group(2)), hello::toString);
            }
        }
        // Block distribution: ranks 0 and 1 on the first node, 2 and 3 on the second.
        assertEquals(Map.of(0, "node1", 1, "node1", 2, "node2", 3, "node2"), hostOfRank, hello::toString);
        assertNothingLeft(hello);
    }

    @Test
    void aRankKilledOnOneNodeEndsTheJobOnEveryNodeNamingIt() throws Exception
    {
        final CommandOutcome o = srunCommand(2, 4, List.of(), javaCommand(ShmrunHarness.DIST.resolve("lib") + "/*:" +
            ShmrunHarness.TEST_CLASSES, "org.shmpi.launcher.progs.MultiNode", "die", "3"));
        assertTrue(o.exit != 0, o::toString);
        assertTrue(o.err.contains("shmpi: rank 3 (node 1, node2, pid ") && o.err.contains(") died; ending the job"),
            o::toString);
        assertNothingLeft(o);
    }

    /**
     * The job report under srun: the setting in the tasks' environment, each rank writes its record
     * into the shared directory, rank 0 builds the report at Finalize; its numbers are the
     * program's exactly, its ranks on two hosts; {@code shmrun --report-text} rebuilds it.
     */
    @Test
    void theReportOfAJobAcrossTwoNodes() throws Exception
    {
        final Path dir = Path.of("target", "reports", "slurm").toAbsolutePath();
        ShmrunHarness.deleteTree(dir);
        java.nio.file.Files.createDirectories(dir);
        final CommandOutcome o = srunCommand(2, 4, List.of("--export=ALL,SHMPI_REPORT_DIR=" + dir),
            javaCommand(ShmrunHarness.DIST.resolve("lib") + "/*:" + ShmrunHarness.TEST_CLASSES,
            "org.shmpi.launcher.progs.ReportTraffic", dir.toString(), "p2p"));
        assertEquals(0, o.exit, o::toString);
        assertTrue(o.err.contains("report of 4 ranks"), o::toString);
        final com.fasterxml.jackson.databind.JsonNode rep = new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(dir.resolve("report.json").toFile());
        assertEquals(4, rep.get("job").get("recordedRanks").asInt(), rep::toString);
        assertTrue(rep.get("job").get("complete").asBoolean(), rep::toString);
        final java.util.Set<String> hosts = new java.util.TreeSet<>();
        for (final com.fasterxml.jackson.databind.JsonNode r : rep.get("ranks"))
        {
            hosts.add(r.get("host").asText());
        }
        assertEquals(java.util.Set.of("node1", "node2"), hosts, rep::toString);
        for (int r = 0; r < 4; r++)
        {
            for (int q = 0; q < 4; q++)
            {
                assertEquals(r == q ? 0 : (r + 1L) * (q + 1) * 100,
                    rep.get("matrix").get("p2p").get("bytes").get(r).get(q).asLong(), "p2p bytes " + r + "->" + q);
            }
        }
        java.nio.file.Files.delete(dir.resolve("report.json"));
        final ShmrunHarness.Result text = ShmrunHarness.run("slurm-report-text", 60, "--report-text", dir.toString());
        assertEquals(0, text.exit, text::toString);
        assertTrue(text.out.contains("MPI share of time per rank") && text.out.contains("heaviest pair: rank 3 -> 2"),
            text::toString);
        assertTrue(java.nio.file.Files.exists(dir.resolve("report.json")));
        assertNothingLeft(o);
    }

    /** scancel (what Ctrl-C to srun ends in): SIGTERM to every task; nothing may be left on any node. */
    @Test
    void scancelLeavesNoRankAndNoFileOnAnyNode() throws Exception
    {
        final String name = "slurmit-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
        final List<String> cmd = new ArrayList<>(List.of("srun", "--job-name=" + name, "--time=" + SRUN_TIME, "-N",
            "2", "-n", "4"));
        cmd.addAll(List.of(javaCommand(ShmrunHarness.DIST.resolve("lib") + "/*:" + ShmrunHarness.TEST_CLASSES,
            "org.shmpi.launcher.progs.MultiNode", "die", "99")));
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("SLURM") || k.startsWith("SHMPI_"));
        pb.environment().put("SLURM_CONF", slurmConf);
        final Process srun = pb.start();
        srun.getOutputStream().close();
        final ShmrunHarness.Collector out = new ShmrunHarness.Collector(srun.getInputStream());
        final ShmrunHarness.Collector err = new ShmrunHarness.Collector(srun.getErrorStream());
        out.start();
        err.start();
        try
        {
            // The ranks run allreduces until stopped: give them time to be inside MPI.
            Thread.sleep(4_000);
            assertTrue(srun.isAlive(), () -> "the job ended by itself: " + out.text() + err.text());
            final ProcessBuilder scancel = new ProcessBuilder("scancel", "--name=" + name);
            scancel.environment().put("SLURM_CONF", slurmConf);
            assertEquals(0, scancel.redirectErrorStream(true).start().waitFor());
            assertTrue(srun.waitFor(60, TimeUnit.SECONDS), "srun still runs 60 s after scancel");
        }
        finally
        {
            srun.destroyForcibly();
        }
        out.join(5_000);
        err.join(5_000);
        assertNothingLeft(new CommandOutcome(String.join(" ", cmd), -1, srun.exitValue(), out.text(),
            err.text()));
    }

    private static String[] javaCommand(final String classpath, final String mainClass, final String... args)
    {
        final List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
            "java").toString(), "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED", "-cp", classpath, mainClass));
        cmd.addAll(List.of(args));
        return cmd.toArray(new String[0]);
    }

    /**
     * Lists every node's {@code /dev/shm} from a task of a new step: srun's tasks live in their
     * slurmd's namespaces, so they see the very tmpfs the job's ranks used (a fresh
     * {@code netns-hosts exec} would get a new, empty one).
     */
    private static void assertNothingLeft(final CommandOutcome job) throws Exception
    {
        final CommandOutcome ls = srunCommand(NODES, NODES, List.of(), "sh", "-c",
            "echo \"$(hostname):$(find /dev/shm -mindepth 1 -not -path /dev/shm/shmpi-root | tr '\\n' ' ')\"");
        assertEquals(0, ls.exit, ls::toString);
        final List<String> lines = new ArrayList<>(ls.lines());
        lines.sort(null);
        final List<String> expected = new ArrayList<>();
        for (int k = 1; k <= NODES; k++)
        {
            expected.add("node" + k + ":");
        }
        assertEquals(expected, lines, () -> "left in the nodes' /dev/shm after\n" + job + "\n" + ls);
    }

    private static CommandOutcome srun(final int nodes, final int tasks, final List<String> options,
        final String mainClass, final String... args) throws Exception
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--add-exports");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(ShmrunHarness.DIST.resolve("lib") + "/*:" + ShmrunHarness.DIST.resolve("examples/shmpi-examples.jar"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return srunCommand(nodes, tasks, options, cmd.toArray(new String[0]));
    }

    /** {@code srun -N nodes -n tasks options... command}, with a hard timeout (then killed and cancelled). */
    private static CommandOutcome srunCommand(final int nodes, final int tasks, final List<String> options,
        final String... command) throws Exception
    {
        final String name = "slurmit-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
        final List<String> cmd = new ArrayList<>(List.of("srun", "--job-name=" + name, "--time=" + SRUN_TIME,
            "--kill-on-bad-exit=1", "-N", String.valueOf(nodes), "-n", String.valueOf(tasks)));
        cmd.addAll(options);
        cmd.addAll(List.of(command));
        return run(cmd, Map.of("SLURM_CONF", slurmConf), JOB_TIMEOUT_SECONDS, name);
    }

    /**
     * Runs a command with the environment of this JVM less anything of Slurm's or shmpi's (plus
     * {@code env}); on timeout kills it (and scancels the job named {@code jobName}) and fails.
     */
    private static CommandOutcome run(final List<String> cmd, final Map<String, String> env, final long timeoutSeconds,
        final String jobName) throws IOException, InterruptedException
    {
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("SLURM") || k.startsWith("SHMPI_"));
        if (env != null)
        {
            pb.environment().putAll(env);
        }
        final Process p = pb.start();
        p.getOutputStream().close();
        final ShmrunHarness.Collector out = new ShmrunHarness.Collector(p.getInputStream());
        final ShmrunHarness.Collector err = new ShmrunHarness.Collector(p.getErrorStream());
        out.start();
        err.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            if (jobName != null && env != null)
            {
                final ProcessBuilder scancel = new ProcessBuilder("scancel", "--name=" + jobName);
                scancel.environment().putAll(env);
                final Process cancel = scancel.redirectErrorStream(true).start();
                cancel.getOutputStream().close();
                if (!cancel.waitFor(30, TimeUnit.SECONDS))
                {
                    cancel.destroyForcibly();
                }
            }
            p.waitFor(10, TimeUnit.SECONDS);
            out.join(2_000);
            err.join(2_000);
            fail("no end after " + timeoutSeconds + " s, killed: " + new CommandOutcome(String.join(" ", cmd), -1, -1,
                out.text(), err.text()));
        }
        out.join(10_000);
        err.join(10_000);
        return new CommandOutcome(String.join(" ", cmd), -1, p.exitValue(), out.text(), err.text());
    }
}
