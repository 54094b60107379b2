package org.shmpi.launcher;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Starts the ranks of a job spread over several "nodes" the way a cluster launcher does: one JVM
 * per rank, no {@code shmrun}, each told its place by its environment, either shmpi's own
 * ({@code SHMPI_NODES} and siblings) or Slurm's as {@code srun} sets it ({@code SLURM_PROCID},
 * {@code SLURM_STEP_NODELIST}, ...). Each node gets a shared-memory directory of its own, so no
 * node can map another's files: only the TCP bridge joins them. Ranks are spread over the nodes in
 * blocks, as Slurm's default distribution does.
 *
 * <p>A run has a hard timeout; when it is exceeded or a check fails, the nodes' directories are
 * copied to {@code target/failed-jobs/<name>} and every rank is killed. {@link #close} removes the
 * nodes' directories.
 */
final class NodeLaunch implements AutoCloseable
{
    enum Style
    {
        SHMPI, SLURM
    }

    /** What every rank printed, and how it ended. */
    record Outcome(int[] exitCodes, List<String> out, List<String> err, long millis)
    {
        String allOut()
        {
            return String.join("", out);
        }

        String allErr()
        {
            return String.join("", err);
        }

        @Override
        public String toString()
        {
            final StringBuilder b = new StringBuilder("exit codes " + java.util.Arrays.toString(exitCodes) + " after " +
                millis + " ms\n");
            for (int r = 0; r < out.size(); r++)
            {
                b.append("--- rank ").append(r).append(" stdout:\n").append(out.get(r));
                b.append("--- rank ").append(r).append(" stderr:\n").append(err.get(r));
            }
            return b.toString();
        }
    }

    private final String name;
    private final int np;
    private final int nodes;
    private final Path[] roots;
    private final String secret;
    private final int port;
    private final String jobId;
    private final List<Process> processes = new ArrayList<>();
    private long initTimeoutMs = 20_000;
    private final List<ShmrunHarness.Collector> outs = new ArrayList<>();
    private final List<ShmrunHarness.Collector> errs = new ArrayList<>();

    NodeLaunch(final String name, final int np, final int nodes) throws IOException
    {
        this.name = name;
        this.np = np;
        this.nodes = nodes;
        this.roots = new Path[nodes];
        final String id = UUID.randomUUID().toString().substring(0, 8);
        for (int n = 0; n < nodes; n++)
        {
            roots[n] = Files.createDirectory(Path.of("/dev/shm", "shmpi-node-test-" + id + "-" + n));
        }
        final byte[] s = new byte[32];
        new SecureRandom().nextBytes(s);
        this.secret = HexFormat.of().formatHex(s);
        this.port = freePort();
        this.jobId = Integer.toString(100_000 + new SecureRandom().nextInt(800_000));
    }

    static int freePort() throws IOException
    {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    /** The ranks' {@code shmpi.init.timeout.ms} (how long a node waits for the others at start). */
    NodeLaunch initTimeout(final long ms)
    {
        initTimeoutMs = ms;
        return this;
    }

    int port()
    {
        return port;
    }

    int nodeOf(final int rank)
    {
        final int per = (np + nodes - 1) / nodes;
        return rank / per;
    }

    private int firstOf(final int node)
    {
        return node * ((np + nodes - 1) / nodes);
    }

    private int countOn(final int node)
    {
        int c = 0;
        for (int r = 0; r < np; r++)
        {
            c += nodeOf(r) == node ? 1 : 0;
        }
        return c;
    }

    /** The environment a launcher of {@code style} gives rank {@code rank}. */
    Map<String, String> environment(final Style style, final int rank)
    {
        final int node = nodeOf(rank);
        final Map<String, String> env = new java.util.LinkedHashMap<>();
        if (style == Style.SHMPI)
        {
            env.put("SHMPI_RANK", Integer.toString(rank));
            env.put("SHMPI_WORLD_SIZE", Integer.toString(np));
            env.put("SHMPI_NODE", Integer.toString(node));
            env.put("SHMPI_NODES", Integer.toString(nodes));
            env.put("SHMPI_LOCAL_RANK", Integer.toString(rank - firstOf(node)));
            env.put("SHMPI_LOCAL_SIZE", Integer.toString(countOn(node)));
            env.put("SHMPI_JOB_KEY", "test." + jobId);
            env.put("SHMPI_RENDEZVOUS", "127.0.0.1:" + port);
            env.put("SHMPI_BRIDGE_HOST", "127.0.0.1");
        }
        else
        {
            // As srun sets them for a block distribution (the host names all resolve to this machine).
            env.put("SLURM_JOB_ID", jobId);
            env.put("SLURM_STEP_ID", "0");
            env.put("SLURM_PROCID", Integer.toString(rank));
            env.put("SLURM_LOCALID", Integer.toString(rank - firstOf(node)));
            env.put("SLURM_NODEID", Integer.toString(node));
            env.put("SLURM_NTASKS", Integer.toString(np));
            env.put("SLURM_STEP_NUM_TASKS", Integer.toString(np));
            env.put("SLURM_STEP_NUM_NODES", Integer.toString(nodes));
            final List<String> perNode = new ArrayList<>();
            for (int n = 0; n < nodes; n++)
            {
                perNode.add(Integer.toString(countOn(n)));
            }
            env.put("SLURM_STEP_TASKS_PER_NODE", String.join(",", perNode));
            env.put("SLURM_STEP_NODELIST", "localhost");
            env.put("SLURMD_NODENAME", "localhost");
            env.put("SLURM_STEP_RESV_PORTS", port + "-" + (port + 1));
        }
        env.put("SHMPI_JOB_SECRET", secret);
        return env;
    }

    /** Starts every rank of {@code mainClass}; {@code tweak} may change a rank's environment. */
    NodeLaunch start(final Style style, final Function<Integer, Map<String, String>> tweak, final String mainClass,
        final String... args) throws IOException
    {
        for (int r = 0; r < np; r++)
        {
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("--add-exports");
            cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
            cmd.add("--enable-native-access=ALL-UNNAMED");
            cmd.add("-XX:TieredStopAtLevel=1");
            cmd.add("-Xshare:auto");
            cmd.add("-Dshmpi.shm.dir=" + roots[nodeOf(r)]);
            cmd.add("-Dshmpi.init.timeout.ms=" + initTimeoutMs);
            cmd.add("-cp");
            cmd.add(ShmrunHarness.DIST.resolve("lib") + "/*:" +
                ShmrunHarness.DIST.resolve("examples/shmpi-examples.jar") + ":" + ShmrunHarness.TEST_CLASSES);
            cmd.add(mainClass);
            cmd.addAll(List.of(args));
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            final Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> k.startsWith("SHMPI_") || k.startsWith("SLURM"));
            env.putAll(environment(style, r));
            if (tweak != null)
            {
                final Map<String, String> changed = tweak.apply(r);
                if (changed != null)
                {
                    changed.forEach((k, v) ->
                    {
                        if (v == null)
                        {
                            env.remove(k);
                        }
                        else
                        {
                            env.put(k, v);
                        }
                    });
                }
            }
            final Process p = pb.start();
            p.getOutputStream().close();
            processes.add(p);
            final ShmrunHarness.Collector out = new ShmrunHarness.Collector(p.getInputStream());
            final ShmrunHarness.Collector err = new ShmrunHarness.Collector(p.getErrorStream());
            out.start();
            err.start();
            outs.add(out);
            errs.add(err);
        }
        return this;
    }

    /** Waits for every rank, at most {@code timeoutSeconds} in all; on timeout keeps the directories and kills. */
    Outcome finish(final long timeoutSeconds) throws InterruptedException
    {
        final long start = System.nanoTime();
        final long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        final int[] codes = new int[processes.size()];
        boolean timedOut = false;
        for (int r = 0; r < processes.size(); r++)
        {
            final Process p = processes.get(r);
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))
            {
                timedOut = true;
                codes[r] = -1;
            }
            else
            {
                codes[r] = p.exitValue();
            }
        }
        final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (timedOut)
        {
            preserve();
            killAll();
        }
        final List<String> out = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        for (int r = 0; r < outs.size(); r++)
        {
            outs.get(r).join(5_000);
            errs.get(r).join(5_000);
            out.add(outs.get(r).text());
            err.add(errs.get(r).text());
        }
        final Outcome o = new Outcome(codes, out, err, millis);
        if (timedOut)
        {
            throw new AssertionError(name + ": ranks still running after " + timeoutSeconds +
                " s (node directories copied to target/failed-jobs/" + name + "): " + o);
        }
        return o;
    }

    List<Process> processes()
    {
        return processes;
    }

    /** Files left in the nodes' shared-memory directories (none after a clean end). */
    List<Path> leftovers() throws IOException
    {
        final List<Path> left = new ArrayList<>();
        for (final Path root : roots)
        {
            try (Stream<Path> s = Files.walk(root))
            {
                s.filter(p -> !p.equals(root) && !Files.isDirectory(p) || p.getNameCount() > root.getNameCount() + 1)
                    .forEach(left::add);
            }
        }
        return left;
    }

    /** Copies the nodes' directories to target/failed-jobs/{name} for reading after a failure. */
    void preserve()
    {
        final Path into = Path.of("target", "failed-jobs", name);
        for (final Path root : roots)
        {
            try
            {
                final Path dest = into.resolve(root.getFileName());
                Files.createDirectories(dest);
                Files.walkFileTree(root, new SimpleFileVisitor<>()
                {
                    @Override
                    public FileVisitResult preVisitDirectory(final Path d, final BasicFileAttributes a)
                        throws IOException
                    {
                        Files.createDirectories(dest.resolve(root.relativize(d).toString()));
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(final Path f, final BasicFileAttributes a) throws IOException
                    {
                        Files.copy(f, dest.resolve(root.relativize(f).toString()), StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.LinkOption.NOFOLLOW_LINKS);
                        return FileVisitResult.CONTINUE;
                    }
                });
            }
            catch (final IOException ex)
            {
                System.err.println("cannot keep " + root + ": " + ex);
            }
        }
    }

    private void killAll()
    {
        for (final Process p : processes)
        {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (final Process p : processes)
        {
            try
            {
                p.waitFor(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        killAll();
        for (final Path root : roots)
        {
            if (!Files.exists(root))
            {
                continue;
            }
            try (Stream<Path> s = Files.walk(root))
            {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p ->
                {
                    try
                    {
                        Files.deleteIfExists(p);
                    }
                    catch (final IOException ex)
                    {
                        System.err.println("cannot remove " + p + ": " + ex);
                    }
                });
            }
        }
    }
}
