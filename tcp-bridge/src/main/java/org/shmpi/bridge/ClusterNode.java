package org.shmpi.bridge;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.shmpi.shm.AbortKind;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.RankState;
import org.shmpi.shm.ShmpiConfig;

/**
 * One rank's part in a job spread over several machines and started by the cluster's own launcher
 * ({@link ClusterLaunch}). Each node's first rank leads it: it makes the node's job directory and
 * a job file over the whole world (so ranks keep their world numbers and the engines stay as on one
 * machine), registers the node at the job's rendezvous, opens the node's {@link NodeBridge},
 * marks the ranks of other nodes ready once every node is joined, relays aborts between nodes and
 * watches the node's other ranks; at the end it waits for them, says goodbye to the other nodes
 * and removes the directory. The other ranks find the directory through a link named after the
 * job and node ({@code job-<key>.node<n>} under the user's shared-memory root) and watch their leader as a
 * one-machine rank watches {@code shmrun}.
 *
 * <p>Order in {@code MPI.Init}: {@link #attach}, the rank's engines, {@code initialized()}, the
 * watchdog, {@link #join}, then waiting for every rank to be ready. In {@code MPI.Finalize}: the
 * barrier, {@code finalized()}, the engines closed, {@link #leave}.
 */
public final class ClusterNode
{
    private final ClusterLaunch launch;
    private final ShmpiConfig config;
    private final Path link;
    private JobDirectory directory;
    private JobFile job;
    private RankProcess process;
    private NodeBridge bridge;
    /** The bridge's part in this rank's duty cycle, with {@code shmpi.bridge.inline}; else null. */
    private org.shmpi.ring.ProgressAgent inlineAgent;
    private Thread monitor;
    private volatile boolean leaving;
    private volatile boolean left;
    private final AtomicBoolean relayed = new AtomicBoolean();

    private ClusterNode(final ClusterLaunch launch, final ShmpiConfig config)
    {
        this.launch = launch;
        this.config = config;
        // Named after the node too: nodes of one job may share a machine (and its /dev/shm).
        this.link = JobDirectory.userRoot(config.shmDir())
            .resolve("job-" + launch.jobKey() + ".node" + launch.node());
    }

    /** The rank's part in a multi-rank cluster launch, or null when {@code env} describes none. */
    public static ClusterNode fromEnvironment(final ShmpiConfig config, final java.util.Map<String, String> env)
    {
        final ClusterLaunch launch = ClusterLaunch.fromEnvironment(env);
        return launch == null ? null : new ClusterNode(launch, config);
    }

    public ClusterLaunch launch()
    {
        return launch;
    }

    /**
     * The leader makes the node's directory, its link and the job file; another rank waits for
     * the link (at most the init timeout) and maps the job file. Publishes STARTED.
     */
    public RankProcess attach() throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        final long start = Processes.selfStartMillis();
        if (launch.isNodeLeader())
        {
            directory = JobDirectory.create(config.shmDir(), pid, start);
            try
            {
                try
                {
                    Files.createSymbolicLink(link, directory.path().getFileName());
                }
                catch (final FileAlreadyExistsException ex)
                {
                    throw new IOException("another job of this node uses the name " + link.getFileName() + " (" +
                        Files.readSymbolicLink(link) + "): a job's ids must be unique", ex);
                }
                job = JobFile.create(directory.jobFile(), launch.size(), pid, start, config.ringCapacity());
                job.node(launch.rank(), launch.node());
                process = RankProcess.inNode(config, directory, job, launch.rank(), RankProcess.Role.NODE_LEADER);
            }
            catch (final IOException | RuntimeException ex)
            {
                removeDirectory();
                throw ex;
            }
        }
        else
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.initTimeoutMs());
            while (!Files.exists(link))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IOException("rank " + launch.rank() + ": the first rank of node " + launch.node() +
                        " made no job directory " + link + " within " + config.initTimeoutMs() + " ms");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            directory = new JobDirectory(link.toRealPath());
            job = JobFile.attach(directory.jobFile(), config.initTimeoutMs());
            if (job.worldSize() != launch.size())
            {
                job.close();
                throw new IOException("rank " + launch.rank() + ": the node's job file is for " + job.worldSize() +
                    " ranks, the launcher says " + launch.size());
            }
            process = RankProcess.inNode(config, directory, job, launch.rank(), RankProcess.Role.NODE_MEMBER);
        }
        process.beforeHalt(this::onHalt);
        if (launch.isNodeLeader())
        {
            final Thread hook = new Thread(this::onExit, "shmpi-node-exit");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        return process;
    }

    /**
     * After this rank's inbox is ready ({@code initialized()}): the leader waits for the node's
     * other ranks, joins the other nodes and marks their ranks ready; other ranks return at once.
     */
    public void join(final Futex futex) throws IOException
    {
        final Pmix pmix = launch.pmix();
        if (pmix != null && launch.nodes() > 1)
        {
            joinThroughPmix(pmix, futex);
            return;
        }
        if (!launch.isNodeLeader())
        {
            return;
        }
        final int[] local = awaitLocalRanks();
        if (launch.nodes() == 1)
        {
            startMonitor(local);
            return;
        }
        final long timeoutMs = config.initTimeoutMs();
        // Made through a channel: the bridge moves its bytes through the channels of what it accepts.
        final ServerSocket server = java.nio.channels.ServerSocketChannel.open().socket();
        final Rendezvous.Table table;
        try
        {
            server.bind(new InetSocketAddress(launch.bridgeHost(), 0), NodeBridge.BACKLOG);
            final Rendezvous.Entry own = new Rendezvous.Entry(launch.node(),
                (InetSocketAddress)server.getLocalSocketAddress(), job.ringCapacity(), local);
            if (launch.node() == 0)
            {
                try (ServerSocket rv = new ServerSocket())
                {
                    rv.setReuseAddress(true);
                    rv.bind(launch.rendezvous(), NodeBridge.BACKLOG);
                    table = Rendezvous.serve(rv, launch.nodes(), launch.size(), launch.secret(), own, timeoutMs,
                        System.err::println);
                }
            }
            else
            {
                table = Rendezvous.register(launch.rendezvous(), launch.secret(), own, launch.size(), timeoutMs);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            server.close();
            throw ex;
        }
        openBridge(table.nodeOfRank(), table.bridges(), launch.secret(), server, futex, local);
    }

    /**
     * Under a PMIx launcher every rank takes part: the leaders publish their bridge's address
     * and rank 0 a fresh job secret through the server's key-value store, all ranks fence, and the
     * leaders read the addresses back; the node of every rank is the launcher's.
     */
    private void joinThroughPmix(final Pmix pmix, final Futex futex) throws IOException
    {
        ServerSocket server = null;
        int[] local = null;
        try
        {
            if (launch.isNodeLeader())
            {
                local = awaitLocalRanks();
                server = java.nio.channels.ServerSocketChannel.open().socket();
                server.bind(new InetSocketAddress(launch.bridgeHost(), 0), NodeBridge.BACKLOG);
                final InetSocketAddress at = (InetSocketAddress)server.getLocalSocketAddress();
                pmix.put("shmpi.bridge", at.getAddress().getHostAddress() + ":" + at.getPort() + ":" +
                    job.ringCapacity());
            }
            if (launch.rank() == 0)
            {
                final byte[] fresh = new byte[NodeBridge.SECRET_LENGTH];
                new java.security.SecureRandom().nextBytes(fresh);
                pmix.put("shmpi.secret", java.util.HexFormat.of().formatHex(fresh));
            }
            pmix.commitAndFence();
            if (!launch.isNodeLeader())
            {
                return;
            }
            final int[] nodeOfRank = launch.nodeOfRank();
            final InetSocketAddress[] bridges = new InetSocketAddress[launch.nodes()];
            for (int r = 0; r < nodeOfRank.length; r++)
            {
                if (bridges[nodeOfRank[r]] != null)
                {
                    continue;
                }
                final String entry;
                try
                {
                    entry = pmix.string(r, "shmpi.bridge");
                }
                catch (final IllegalStateException notALeader)
                {
                    continue;
                }
                final String[] parts = entry.split(":");
                if (Integer.parseInt(parts[2]) != job.ringCapacity())
                {
                    throw new IOException("inbox ring capacity " + parts[2] + " on node " + nodeOfRank[r] + " but " +
                        job.ringCapacity() + " here (use the same shmpi.ring.capacity everywhere)");
                }
                bridges[nodeOfRank[r]] = new InetSocketAddress(java.net.InetAddress.getByName(parts[0]),
                    Integer.parseInt(parts[1]));
            }
            for (int n = 0; n < bridges.length; n++)
            {
                if (bridges[n] == null)
                {
                    throw new IOException("node " + n + " published no bridge address through PMIx");
                }
            }
            final byte[] secret = java.util.HexFormat.of().parseHex(pmix.string(0, "shmpi.secret"));
            final ServerSocket bound = server;
            server = null;
            openBridge(nodeOfRank, bridges, secret, bound, futex, local);
        }
        catch (final IllegalStateException ex)
        {
            throw new IOException(ex.getMessage(), ex);
        }
        finally
        {
            if (server != null)
            {
                server.close();
            }
        }
    }

    private void openBridge(
        final int[] nodeOfRank, final InetSocketAddress[] bridges, final byte[] secret, final ServerSocket server,
        final Futex futex, final int[] local) throws IOException
    {
        final long timeoutMs = config.initTimeoutMs();
        for (int r = 0; r < nodeOfRank.length; r++)
        {
            job.node(r, nodeOfRank[r]);
        }
        bridge = NodeBridge.open(directory.path(), launch.node(), nodeOfRank, job.ringCapacity(), secret,
            server, futex, this::onConnectionLost, System.err::println, config.bridgeInline());
        bridge.onAbort(this::onRemoteAbort);
        bridge.connect(bridges, timeoutMs);
        if (config.bridgeInline())
        {
            inlineAgent = bridge.inline();
        }
        for (int r = 0; r < nodeOfRank.length; r++)
        {
            if (nodeOfRank[r] != launch.node())
            {
                // Release: publishes the node words above with it.
                job.state(r, RankState.INITIALIZED);
            }
        }
        startMonitor(local);
    }

    /** The world ranks of this node, once all of them have published INITIALIZED. */
    private int[] awaitLocalRanks() throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.initTimeoutMs());
        while (true)
        {
            final int[] ready = new int[launch.localSize()];
            int count = 0;
            for (int r = 0; r < job.worldSize() && count <= ready.length; r++)
            {
                final int s = job.state(r);
                if (s == RankState.FAILED || job.isAborted())
                {
                    throw new IOException("job aborted while node " + launch.node() + " started: rank " + r);
                }
                if (s >= RankState.INITIALIZED)
                {
                    if (count == ready.length)
                    {
                        throw new IOException("more than " + ready.length + " ranks started on node " +
                            launch.node() + " (" + launch.launcher() + " said " + ready.length + ")");
                    }
                    ready[count++] = r;
                }
            }
            if (count == ready.length)
            {
                for (final int r : ready)
                {
                    job.node(r, launch.node());
                }
                return ready;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("only " + count + " of " + ready.length + " ranks of node " + launch.node() +
                    " started within " + config.initTimeoutMs() + " ms: " +
                    Arrays.toString(Arrays.copyOf(ready, count)));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private void startMonitor(final int[] local)
    {
        monitor = new Thread(() -> watch(local), "shmpi-node-monitor");
        monitor.setDaemon(true);
        monitor.start();
    }

    /** The leader's watch: another rank of the node that died ends the job; an abort goes to every node. */
    private void watch(final int[] local)
    {
        final long interval = config.heartbeatIntervalMs();
        while (!leaving)
        {
            if (job.isAborted())
            {
                relayAbort();
                return;
            }
            for (final int r : local)
            {
                final int s = job.state(r);
                if (r != launch.rank() && s >= RankState.STARTED && s < RankState.FINALIZED && s != RankState.FAILED &&
                    !Processes.isAlive(job.pid(r), job.pidStartMillis(r)))
                {
                    final String reason = "rank " + r + " (node " + launch.node() + ", " + hostName() + ", pid " +
                        job.pid(r) + ") died";
                    if (job.tryAbort(AbortKind.RANK_EXITED, r, 1, reason))
                    {
                        System.err.println("shmpi: " + reason + "; ending the job");
                    }
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(interval));
        }
    }

    /** Tells the other nodes of this node's abort, and prints its cause: once, where it started. */
    private void relayAbort()
    {
        if (!relayed.compareAndSet(false, true))
        {
            return;
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (!job.isAbortPublished() && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        // A rank reports its own failure (its stack trace, Init's line), the monitor a death, the
        // bridge a lost connection: what is left is another rank of this node that ended the job.
        if (job.abortKind() != AbortKind.RANK_EXITED && job.abortKind() != AbortKind.NODE_LOST &&
            job.abortRank() != launch.rank())
        {
            System.err.println("shmpi: job aborted on node " + launch.node() + " (" + hostName() + "): " +
                job.abortReason());
        }
        final NodeBridge b = bridge;
        if (b != null)
        {
            b.relayAbort(job.abortKind(), job.abortRank(), job.abortCode(), job.abortReason(), 1_000);
        }
    }

    private void onRemoteAbort(final int kind, final int rank, final int code, final String reason)
    {
        relayed.set(true);
        job.tryAbort(kind, rank, code, reason);
    }

    private void onConnectionLost(final String what)
    {
        if (!leaving && job.tryAbort(AbortKind.NODE_LOST, -1, 1, what))
        {
            System.err.println(what + "; ending the job");
        }
    }

    /**
     * The leader's JVM exits without having left (SIGTERM from the launcher on Ctrl-C, or main
     * returned without Finalize): the job ends on every node, the node's files go.
     */
    private void onExit()
    {
        if (left)
        {
            return;
        }
        job.tryAbort(AbortKind.LAUNCHER_SIGNALLED, launch.rank(), 1, "rank " + launch.rank() + " (node " +
            launch.node() + ", " + hostName() + ") ended before MPI_Finalize (a signal, or exit without Finalize)");
        relayAbort();
        removeDirectory();
    }

    /** When this rank ends itself: the leader tells the other nodes; the link goes. */
    private void onHalt()
    {
        if (launch.isNodeLeader())
        {
            relayAbort();
        }
        deleteLink();
    }

    /**
     * Where this process runs the node's bridge (the node's first rank) and
     * {@code shmpi.bridge.inline} is set: the bridge's part in this rank's duty cycle
     * ({@link NodeBridge#inline}); null elsewhere.
     */
    public org.shmpi.ring.ProgressAgent bridgeAgent()
    {
        return inlineAgent;
    }

    /**
     * At the end of {@code MPI.Finalize}: the leader waits for the node's other ranks to finish
     * (or die), closes the bridge in order and removes the node's directory.
     */
    public void leave()
    {
        if (launch.pmix() != null)
        {
            launch.pmix().finish();
        }
        if (!launch.isNodeLeader())
        {
            return;
        }
        leaving = true;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.initTimeoutMs());
        for (int r = 0; r < job.worldSize(); r++)
        {
            if (job.node(r) != launch.node() || r == launch.rank())
            {
                continue;
            }
            while (true)
            {
                final int s = job.state(r);
                if (s >= RankState.FINALIZED || !Processes.isAlive(job.pid(r), job.pidStartMillis(r)) ||
                    System.nanoTime() - deadline > 0)
                {
                    break;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        if (bridge != null)
        {
            bridge.finish();
        }
        removeDirectory();
        left = true;
    }

    private String hostName()
    {
        try
        {
            return java.net.InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "host?";
        }
    }

    private void deleteLink()
    {
        try
        {
            Files.deleteIfExists(link);
        }
        catch (final IOException ignored)
        {
            // found as a dangling link later
        }
    }

    private void removeDirectory()
    {
        deleteLink();
        if (directory != null)
        {
            try
            {
                directory.delete();
            }
            catch (final IOException ex)
            {
                System.err.println("shmpi: cannot remove " + directory + ": " + ex.getMessage());
            }
        }
    }
}
