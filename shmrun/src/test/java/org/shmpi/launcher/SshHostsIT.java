package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code shmrun --hostfile} and {@code --host} over a real ssh: {@code tests/cluster/ssh-hosts}
 * makes three hosts out of network namespaces (each with its own hostname and its own
 * {@code /dev/shm}) and runs Debian's sshd on each, so every rank on a host starts through
 * {@code ssh nodeK '<command>'}, as on a cluster. shmrun itself runs here, in the machine's own
 * namespaces. Checked: Ring over a host file, Hello naming the host of every rank, every
 * multi-node feature, SIGTERM to shmrun stopping every rank on every host, and the launch agent
 * taken from {@code SHMPI_LAUNCH_AGENT}; after every job no rank is left, no process is left on
 * any host but its sshd, and no host's {@code /dev/shm} holds anything of the job. Skipped (with
 * the script's SKIP line) where the hosts cannot be made: not root, no network namespaces,
 * openssh-server not installable.
 */
@Timeout(value = 600)
class SshHostsIT
{
    private static final Path CLUSTER_DIR =
        Path.of(System.getProperty("user.dir")).resolve("../tests/cluster").normalize();
    private static final Path SSH_HOSTS = CLUSTER_DIR.resolve("ssh-hosts");
    private static final int NODES = 3;
    private static final long JOB_TIMEOUT_SECONDS = 180;
    private static final long SSH_TIMEOUT_SECONDS = 60;
    /** How long ranks and sessions may take to go after their job ended. */
    private static final long GONE_SECONDS = 15;
    private static final String EXAMPLES = ShmrunHarness.DIST.resolve("examples/shmpi-examples.jar").toString();
    private static final String MULTINODE = "org.shmpi.launcher.progs.MultiNode";
    private static final String HOSTS_MARK = "# shmpi-netns";

    /** The launch agent ssh-hosts printed: {@code ssh -F <dir>/ssh_config -o BatchMode=yes}. */
    private static String agent;
    /** ssh-hosts' private directory (keys, configs, the sshds' pid files). */
    private static Path sshDir;
    /** The sshd of every host, by host number. */
    private static final Map<Integer, Long> SSHDS = new TreeMap<>();
    /** Whether ssh-hosts made the hosts (then down removes them and their /etc/hosts lines). */
    private static boolean madeHosts;
    /** The SKIP line of ssh-hosts up when the hosts cannot be made here, else null. */
    private static String skipped;

    private Path work;

    /** A started command whose output is collected in the background. */
    private static final class Started
    {
        final Process process;
        final String what;
        final ShmrunHarness.Collector out;
        final ShmrunHarness.Collector err;
        /** The pid in the job key of the ranks (see {@link #findJvm}); the command's own until then. */
        long jvm;

        Started(final String what, final Process process)
        {
            this.what = what;
            this.process = process;
            this.out = new ShmrunHarness.Collector(process.getInputStream());
            this.err = new ShmrunHarness.Collector(process.getErrorStream());
            out.start();
            err.start();
            jvm = process.pid();
        }

        /**
         * The pid of the JVM that runs the job: bin/shmrun runs it as a child (and passes signals
         * on), and its pid is in the job key every rank gets. Waits for it at most 10 s; falls back
         * to the command's own pid when it has no such child (or ended before one was seen).
         */
        Started findJvm() throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (process.isAlive() && System.nanoTime() < deadline)
            {
                final List<ProcessHandle> jvms = process.children()
                    .filter(c -> c.info().command().orElse("").endsWith("/java")).toList();
                if (!jvms.isEmpty())
                {
                    jvm = jvms.get(0).pid();
                    break;
                }
                Thread.sleep(5);
            }
            return this;
        }

        /**
         * Waits for the end, at most {@code timeoutSeconds}; on timeout kills the command, its
         * children and every rank of its job, and fails.
         */
        CommandOutcome finish(final long timeoutSeconds) throws InterruptedException
        {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                ranksOf(jvm).forEach(ProcessHandle::destroyForcibly);
                process.waitFor(10, TimeUnit.SECONDS);
                out.join(2_000);
                err.join(2_000);
                fail("no end after " + timeoutSeconds + " s, killed: " + new CommandOutcome(what, jvm, -1,
                    out.text(), err.text()));
            }
            out.join(10_000);
            err.join(10_000);
            return new CommandOutcome(what, jvm, process.exitValue(), out.text(), err.text());
        }
    }

    @BeforeAll
    static void hostsUp() throws Exception
    {
        final long startNanos = System.nanoTime();
        final CommandOutcome up = start(List.of(SSH_HOSTS.toString(), "up", String.valueOf(NODES)), Map.of())
            .finish(600);
        System.err.println("SshHostsIT: ssh-hosts up " + NODES + ": exit " + up.exit + " after " +
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms");
        if (up.exit == 77)
        {
            // Each test is then reported as skipped with this line (an assumption failing here would
            // leave the class reported as "Tests run: 0", the reason nowhere).
            skipped = up.skipLine("ssh-hosts");
            System.err.println("SshHostsIT: " + skipped);
            return;
        }
        assertEquals(0, up.exit, up::toString);
        final Matcher m = Pattern.compile("(?m)^export SHMPI_LAUNCH_AGENT='(ssh -F (\\S+)/ssh_config .*)'$")
            .matcher(up.out);
        assertTrue(m.find(), up::toString);
        agent = m.group(1);
        sshDir = Path.of(m.group(2));
        madeHosts = Files.exists(sshDir.resolve("made-hosts"));
        for (int k = 1; k <= NODES; k++)
        {
            final Path pidFile = sshDir.resolve("sshd-node" + k + ".pid");
            SSHDS.put(k, Long.parseLong(Files.readString(pidFile).strip()));
        }
    }

    @BeforeEach
    void hostsAreUp() throws IOException
    {
        assumeTrue(skipped == null, skipped);
        work = Files.createTempDirectory("shmpi-ssh-hosts-it-");
    }

    @AfterEach
    void removeWork() throws IOException
    {
        if (work != null)
        {
            try (Stream<Path> s = Files.walk(work))
            {
                for (final Path p : s.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @AfterAll
    static void hostsDown() throws Exception
    {
        final long startNanos = System.nanoTime();
        final CommandOutcome down = start(List.of(SSH_HOSTS.toString(), "down"), Map.of()).finish(180);
        System.err.println("SshHostsIT: ssh-hosts down: exit " + down.exit + " after " +
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms");
        assertTrue(down.exit == 0 || down.exit == 77, down::toString);
        // Nothing of it stays: no sshd, no private directory, no /etc/hosts line.
        for (final Map.Entry<Integer, Long> sshd : SSHDS.entrySet())
        {
            assertFalse(ShmrunHarness.isRunning(sshd.getValue()), "the sshd of node" + sshd.getKey() + " still runs");
        }
        if (sshDir != null)
        {
            assertFalse(Files.exists(sshDir), sshDir + " is still there");
        }
        if (madeHosts)
        {
            final List<String> marked = Files.readAllLines(Path.of("/etc/hosts")).stream()
                .filter(l -> l.endsWith(HOSTS_MARK)).toList();
            assertEquals(List.of(), marked, "/etc/hosts lines left by the hosts");
        }
    }

    @Test
    void ringOverAHostFile() throws Exception
    {
        final Path hostfile = hostfile();
        final CommandOutcome ring = shmrun(Map.of(), "--hostfile", hostfile.toString(), "--launch-agent", agent,
            "--tag-output", "-cp", EXAMPLES, "Ring", "20");
        assertEquals(0, ring.exit, ring::toString);
        assertTrue(ring.out.contains("[1,0]<stdout>:Ring of 4 ranks: 20 laps OK\n"), ring::toString);
        assertNothingLeft(ring);
    }

    @Test
    void helloNamesThreeHosts() throws Exception
    {
        final CommandOutcome hello = shmrun(Map.of(), "--host", "node1:1,node2:1,node3:1", "--launch-agent", agent,
            "-cp", EXAMPLES, "Hello");
        assertEquals(0, hello.exit, hello::toString);
        final Map<Integer, String> hostOfRank = new TreeMap<>();
        final Pattern line = Pattern.compile("Hello from rank (\\d+) of 3 on (\\S+)");
        for (final String l : hello.lines())
        {
            final Matcher m = line.matcher(l);
            if (m.matches())
            {
                assertNull(hostOfRank.put(Integer.parseInt(m.group(1)), m.group(2)), hello::toString);
            }
        }
        // One slot per host: each rank on a host of its own, in host order.
        assertEquals(Map.of(0, "node1", 1, "node2", 2, "node3"), hostOfRank, hello::toString);
        assertNothingLeft(hello);
    }

    @Test
    void everyMultiNodeFeatureAcrossTwoHosts() throws Exception
    {
        final CommandOutcome all = shmrun(Map.of(), "--host", "node1:2,node2:2", "--launch-agent", agent,
            "--tag-output", "-cp", ShmrunHarness.TEST_CLASSES.toString(), MULTINODE, "all");
        assertEquals(0, all.exit, all::toString);
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(all.out.contains("[1," + rank + "]<stdout>:MULTINODE OK rank " + rank + " of 4 node " +
                rank / 2 + " shared 2\n"), all::toString);
        }
        assertNothingLeft(all);
    }

    /**
     * Open MPI's {@code mpirun} as the launcher (its orteds started over the same ssh): the ranks
     * bootstrap through its PMIx server (JNA to libpmix), no shmpi launcher involved.
     */
    @Test
    void mpirunStartsTheRanksThroughPmix() throws Exception
    {
        final CommandOutcome mpirun = start(List.of(SSH_HOSTS.toString(), "mpirun"), Map.of()).finish(600);
        assumeTrue(mpirun.exit != 77, () -> mpirun.skipLine("ssh-hosts"));
        assertEquals(0, mpirun.exit, mpirun::toString);
        final String flags = start(List.of(ShmrunHarness.SHMRUN.toString(), "--print-jvm-flags"), Map.of())
            .finish(SSH_TIMEOUT_SECONDS).out.trim();
        final List<String> cmd = new ArrayList<>(List.of("mpirun", "--allow-run-as-root", "--host", "node1:2,node2:2",
            "--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include", "10.77.0.0/24", "-np", "4", "java"));
        cmd.addAll(List.of(flags.split(" ")));
        cmd.addAll(List.of("-cp", ShmrunHarness.DIST.resolve("lib") + "/*:" + ShmrunHarness.TEST_CLASSES, MULTINODE,
            "all"));
        final CommandOutcome all = start(cmd, Map.of()).finish(JOB_TIMEOUT_SECONDS);
        assertEquals(0, all.exit, all::toString);
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(all.out.contains("MULTINODE OK rank " + rank + " of 4 node "), all::toString);
        }
        assertEquals(4, all.out.split("shared 2\n", -1).length - 1, all::toString);
        for (int k = 1; k <= NODES; k++)
        {
            final CommandOutcome find = ssh(k, "find /dev/shm -mindepth 1 -not -path /dev/shm/shmpi-root");
            assertEquals("", find.out, () -> "left in the /dev/shm of a host after\n" + all + "\n" + find);
        }
    }

    @Test
    void sigtermStopsEveryRankOnEveryHost() throws Exception
    {
        final Started job = startShmrun(Map.of(), "--host", "node1:2,node2:2", "--launch-agent", agent,
            "-cp", ShmrunHarness.TEST_CLASSES.toString(), MULTINODE, "die", "99");
        // The ranks run allreduces until stopped; wait until all four JVMs run (they are not shmrun's
        // descendants but the sshds': found by their job key, as every process is visible here).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ranksOf(job.jvm).size() < 4 && System.nanoTime() < deadline && job.process.isAlive())
        {
            Thread.sleep(100);
        }
        final List<ProcessHandle> ranks = ranksOf(job.jvm);
        if (ranks.size() != 4)
        {
            // shmrun stops what it started on SIGTERM.
            job.process.destroy();
            fail("expected 4 rank JVMs, found " + ranks.size() + ": " + job.finish(30));
        }
        // Into their loop of allreduces.
        Thread.sleep(2_000);
        assertTrue(job.process.isAlive(), "shmrun ended before SIGTERM");
        final long termAt = System.nanoTime();
        final Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(job.process.pid())).start();
        assertEquals(0, kill.waitFor(), "kill -TERM " + job.process.pid());
        final CommandOutcome r = job.finish(30);
        final long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - termAt);
        assertEquals(143, r.exit, r::toString);
        final long ranksGone = System.nanoTime() + TimeUnit.SECONDS.toNanos(GONE_SECONDS);
        List<ProcessHandle> alive = ranks;
        while (!alive.isEmpty() && System.nanoTime() < ranksGone)
        {
            Thread.sleep(100);
            alive = ranks.stream().filter(p -> ShmrunHarness.isRunning(p.pid())).toList();
        }
        assertEquals(List.of(), alive.stream().map(SshHostsIT::describe).toList(), () -> "rank JVMs alive " +
            GONE_SECONDS + " s after shmrun ended (" + exitMillis + " ms after SIGTERM): " + r);
        System.err.println("SshHostsIT: shmrun ended " + exitMillis + " ms after SIGTERM");
        assertNothingLeft(r);
    }

    @Test
    void theAgentComesFromTheEnvironment() throws Exception
    {
        final Path hostfile = hostfile();
        final CommandOutcome ring = shmrun(Map.of(HostJob.AGENT_ENV, agent), "--hostfile", hostfile.toString(),
            "--tag-output", "-cp", EXAMPLES, "Ring", "20");
        assertEquals(0, ring.exit, ring::toString);
        assertTrue(ring.out.contains("[1,0]<stdout>:Ring of 4 ranks: 20 laps OK\n"), ring::toString);
        assertNothingLeft(ring);
    }

    private Path hostfile() throws IOException
    {
        final Path hostfile = work.resolve("hosts");
        Files.writeString(hostfile, "node1 slots=2\nnode2 slots=2\n");
        return hostfile;
    }

    /**
     * After a job: no JVM of it runs anywhere, no process runs on any host but its sshd (a
     * host's processes are exactly those in its sshd's mount namespace), and, seen through ssh,
     * no host's {@code /dev/shm} holds anything but the empty {@code shmpi-root} directory.
     */
    private static void assertNothingLeft(final CommandOutcome job) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GONE_SECONDS);
        List<String> left = leftProcesses(job.pid);
        while (!left.isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
            left = leftProcesses(job.pid);
        }
        final List<String> stillThere = left;
        assertEquals(List.of(), stillThere, () -> "processes left " + GONE_SECONDS + " s after\n" + job);
        for (int k = 1; k <= NODES; k++)
        {
            final CommandOutcome find = ssh(k, "find /dev/shm -mindepth 1 -not -path /dev/shm/shmpi-root");
            assertEquals(0, find.exit, find::toString);
            assertEquals("", find.out, () -> "left in the /dev/shm of a host after\n" + job + "\n" + find);
        }
    }

    /** The rank JVMs of the job of shmrun {@code pid} still running, and every host's processes but its sshd. */
    private static List<String> leftProcesses(final long pid) throws IOException
    {
        final List<String> left = new ArrayList<>();
        ranksOf(pid).forEach(p -> left.add("rank JVM " + describe(p)));
        for (final Map.Entry<Integer, Long> sshd : SSHDS.entrySet())
        {
            final Path ns = Files.readSymbolicLink(Path.of("/proc", sshd.getValue().toString(), "ns", "mnt"));
            ProcessHandle.allProcesses()
                .filter(p -> p.pid() != sshd.getValue() && ns.equals(mountNamespace(p.pid())) &&
                    ShmrunHarness.isRunning(p.pid()))
                .forEach(p -> left.add("on node" + sshd.getKey() + ": " + describe(p)));
        }
        return left;
    }

    /**
     * The rank JVMs of the job of shmrun {@code pid}: Java processes whose environment holds
     * {@code SHMPI_JOB_KEY=shmrun.<pid>.<time>} (shmrun gives every rank its job key so).
     */
    private static List<ProcessHandle> ranksOf(final long pid)
    {
        final String key = "\0SHMPI_JOB_KEY=shmrun." + pid + ".";
        return ProcessHandle.allProcesses()
            .filter(p -> p.pid() != pid && p.info().command().orElse("").endsWith("/java") &&
                environment(p.pid()).contains(key) && ShmrunHarness.isRunning(p.pid()))
            .toList();
    }

    /** The environment of a process as NUL-separated text, with a NUL in front (so every variable follows one). */
    private static String environment(final long pid)
    {
        try
        {
            return "\0" + new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
                StandardCharsets.ISO_8859_1);
        }
        catch (final IOException ex)
        {
            // Gone (or not readable): not a rank of ours.
            return "";
        }
    }

    private static Path mountNamespace(final long pid)
    {
        try
        {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "mnt"));
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    private static String describe(final ProcessHandle p)
    {
        return p.pid() + " " + p.info().commandLine().orElse(p.info().command().orElse("?"));
    }

    /** {@code <agent> nodeK command}: runs {@code command} on host K, in its sshd's namespaces. */
    private static CommandOutcome ssh(final int node, final String command) throws Exception
    {
        final List<String> cmd = new ArrayList<>(List.of(agent.split(" ")));
        cmd.add("node" + node);
        cmd.add(command);
        return start(cmd, Map.of()).finish(SSH_TIMEOUT_SECONDS);
    }

    private static CommandOutcome shmrun(final Map<String, String> env, final String... args) throws Exception
    {
        return startShmrun(env, args).finish(JOB_TIMEOUT_SECONDS);
    }

    private static Started startShmrun(final Map<String, String> env, final String... args)
        throws IOException, InterruptedException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ShmrunHarness.SHMRUN.toString());
        cmd.addAll(List.of(args));
        return start(cmd, env).findJvm();
    }

    /**
     * Starts a command with the environment of this JVM less anything of shmpi's, Open MPI's or
     * Slurm's (plus {@code env}), its standard input closed.
     */
    private static Started start(final List<String> cmd, final Map<String, String> env) throws IOException
    {
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("SHMPI_") || k.startsWith("OMPI_") ||
            k.startsWith("SLURM"));
        pb.environment().putAll(env);
        final Process p = pb.start();
        p.getOutputStream().close();
        return new Started(String.join(" ", cmd), p);
    }
}
