package org.shmpi.bridge;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.shmpi.ring.JobAbortedException;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.AbortKind;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.ShmpiConfig;

/**
 * A job spread over several "nodes" inside this JVM: each node has a directory of its own in
 * /dev/shm (so no node can map another's files: the only way between them is its bridge), its own
 * job file over the whole world, its own {@link NodeBridge} listening on the loopback interface,
 * and its ranks as threads. {@link #run} runs one body per rank with a hard deadline; a failing rank
 * aborts every node's job, and the nodes' directories are copied to {@code target/failed-jobs/}.
 * {@link #close} removes everything.
 */
final class NodeJob implements AutoCloseable
{
    interface RankBody
    {
        void run(RankContext rank) throws Exception;
    }

    private static final long SELF = ProcessHandle.current().pid();

    private final String name;
    private final int[] nodeOfRank;
    private final Path[] roots;
    private final JobDirectory[] directories;
    private final JobFile[] jobs;
    private final NodeBridge[] bridges;
    /** Whether the node's first rank has the bridge's duty-cycle agent. */
    private final boolean[] readsOwnSockets;
    private final RankContext[] contexts;
    final List<String> failures = new CopyOnWriteArrayList<>();
    final List<String> refusals = new CopyOnWriteArrayList<>();
    final byte[] secret = new byte[NodeBridge.SECRET_LENGTH];

    private NodeJob(final String name, final int[] nodeOfRank, final int nodes)
    {
        this.name = name;
        this.nodeOfRank = nodeOfRank;
        this.roots = new Path[nodes];
        this.directories = new JobDirectory[nodes];
        this.jobs = new JobFile[nodes];
        this.bridges = new NodeBridge[nodes];
        this.readsOwnSockets = new boolean[nodes];
        this.contexts = new RankContext[nodeOfRank.length];
        new SecureRandom().nextBytes(secret);
    }

    /** Creates every node, joins their bridges, then opens every rank. */
    static NodeJob start(final String name, final int[] nodeOfRank, final int ringCapacity) throws Exception
    {
        return start(name, nodeOfRank, ringCapacity, false);
    }

    /**
     * As {@link #start(String, int[], int)}; {@code inline}: each node's first rank does its
     * bridge's socket work in its own thread ({@link NodeBridge#inline}, as with
     * {@code shmpi.bridge.inline}); the process-wide forwarder is the last node's.
     */
    static NodeJob start(final String name, final int[] nodeOfRank, final int ringCapacity, final boolean inline)
        throws Exception
    {
        int nodes = 0;
        for (final int n : nodeOfRank)
        {
            nodes = Math.max(nodes, n + 1);
        }
        final NodeJob job = new NodeJob(name, nodeOfRank, nodes);
        try
        {
            final ShmpiConfig[] configs = new ShmpiConfig[nodes];
            final long start = Processes.selfStartMillis();
            for (int n = 0; n < nodes; n++)
            {
                job.roots[n] = Files.createDirectory(Path.of("/dev/shm", "shmpi-test-" + UUID.randomUUID()));
                final Properties p = new Properties();
                p.setProperty(ShmpiConfig.SHM_DIR_PROP, job.roots[n].toString());
                p.setProperty(ShmpiConfig.RING_CAPACITY_PROP, Integer.toString(ringCapacity));
                configs[n] = ShmpiConfig.from(p, Map.of());
                job.directories[n] = JobDirectory.create(configs[n].shmDir(), SELF, start);
                job.jobs[n] = JobFile.create(job.directories[n].jobFile(), nodeOfRank.length, SELF, start,
                    configs[n].ringCapacity());
                final int node = n;
                job.bridges[n] = NodeBridge.open(job.directories[n].path(), n, nodeOfRank, configs[n].ringCapacity(),
                    job.secret, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    Futex.open(configs[n].futexEnabled()), job.failures::add, job.refusals::add, inline);
            }
            job.join(10_000);
            for (int r = 0; r < nodeOfRank.length; r++)
            {
                final int n = nodeOfRank[r];
                job.jobs[n].publishStarted(r, SELF, start);
                job.contexts[r] = RankContext.open(job.directories[n], job.jobs[n], r, configs[n],
                    Futex.open(configs[n].futexEnabled()), false);
                if (inline && !job.readsOwnSockets[n])
                {
                    // The node's first rank reads the sockets in its duty cycle, as the rank of the
                    // process that runs the bridge does with shmpi.bridge.inline; the ranks of the
                    // node inlined last also send in their own threads (one forwarder per process).
                    job.contexts[r].progress().register(job.bridges[n].inline());
                    job.readsOwnSockets[n] = true;
                }
            }
            return job;
        }
        catch (final Exception ex)
        {
            job.close();
            throw ex;
        }
    }

    /** Connects every node's bridge to the others, all at once. */
    private void join(final long timeoutMs) throws Exception
    {
        final InetSocketAddress[] addresses = new InetSocketAddress[bridges.length];
        for (int n = 0; n < bridges.length; n++)
        {
            addresses[n] = bridges[n].address();
        }
        final AtomicReferenceArray<Exception> errors = new AtomicReferenceArray<>(bridges.length);
        final List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < bridges.length; n++)
        {
            final int node = n;
            final Thread t = new Thread(() ->
            {
                try
                {
                    bridges[node].connect(addresses, timeoutMs);
                }
                catch (final Exception ex)
                {
                    errors.set(node, ex);
                }
            }, name + "-join-" + n);
            t.start();
            threads.add(t);
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        for (int n = 0; n < bridges.length; n++)
        {
            if (errors.get(n) != null)
            {
                throw errors.get(n);
            }
        }
    }

    int worldSize()
    {
        return nodeOfRank.length;
    }

    int nodeOf(final int rank)
    {
        return nodeOfRank[rank];
    }

    NodeBridge bridge(final int node)
    {
        return bridges[node];
    }

    /** Runs {@code body} on one thread per rank, at most {@code timeoutSeconds}; throws the first failure. */
    void run(final long timeoutSeconds, final RankBody body) throws Exception
    {
        final int n = contexts.length;
        final AtomicReferenceArray<Throwable> errors = new AtomicReferenceArray<>(n);
        final Thread[] threads = new Thread[n];
        for (int r = 0; r < n; r++)
        {
            final int rank = r;
            threads[r] = new Thread(() ->
            {
                try
                {
                    body.run(contexts[rank]);
                }
                catch (final Throwable t)
                {
                    errors.set(rank, t);
                    abort(AbortKind.RANK_FAILED, rank, "rank " + rank + " failed: " + t);
                }
            }, name + "-rank-" + r);
            threads[r].setDaemon(true);
            threads[r].start();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (final Thread t : threads)
        {
            final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs > 0)
            {
                t.join(leftMs);
            }
        }
        final List<Integer> running = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            if (threads[r].isAlive())
            {
                running.add(r);
            }
        }
        if (!running.isEmpty())
        {
            abort(AbortKind.TIMEOUT, -1, "test deadline of " + timeoutSeconds + " s passed");
            for (final Thread t : threads)
            {
                t.join(5_000);
            }
        }
        for (int r = 0; r < n; r++)
        {
            final Throwable t = errors.get(r);
            if (t != null && !(t instanceof JobAbortedException))
            {
                keep();
                throw new AssertionError("rank " + r + " of " + n + " failed: " + t, t);
            }
        }
        if (!running.isEmpty())
        {
            keep();
            throw new AssertionError("ranks " + running + " still ran after " + timeoutSeconds +
                " s; bridge failures: " + failures);
        }
    }

    private void abort(final int kind, final int rank, final String why)
    {
        for (final JobFile j : jobs)
        {
            if (j != null)
            {
                j.tryAbort(kind, rank, 1, why);
            }
        }
    }

    /** Copies every node's directory to target/failed-jobs/ for inspection. */
    private void keep()
    {
        for (int n = 0; n < roots.length; n++)
        {
            if (roots[n] == null)
            {
                continue;
            }
            final Path from = roots[n];
            final Path to = Path.of("target", "failed-jobs", name + "-node" + n);
            try
            {
                Files.walkFileTree(from, new SimpleFileVisitor<>()
                {
                    @Override
                    public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attrs)
                        throws IOException
                    {
                        Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs)
                        throws IOException
                    {
                        Files.copy(file, to.resolve(from.relativize(file).toString()),
                            StandardCopyOption.REPLACE_EXISTING);
                        return FileVisitResult.CONTINUE;
                    }
                });
            }
            catch (final IOException ignored)
            {
                // best effort: the failure itself is what the test reports
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        for (final RankContext c : contexts)
        {
            if (c != null)
            {
                c.close();
            }
        }
        for (final NodeBridge b : bridges)
        {
            if (b != null)
            {
                b.close();
            }
        }
        for (int n = 0; n < roots.length; n++)
        {
            if (jobs[n] != null)
            {
                jobs[n].close();
            }
            if (directories[n] != null)
            {
                directories[n].delete();
            }
            if (roots[n] != null)
            {
                deleteRecursively(roots[n]);
            }
        }
    }

    static void deleteRecursively(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException
            {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path dir, final IOException exc) throws IOException
            {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
