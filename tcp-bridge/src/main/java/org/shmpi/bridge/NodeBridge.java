package org.shmpi.bridge;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.shmpi.ring.Inbox;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.shm.Futex;
import org.shmpi.shm.segment.SegmentNames;

/**
 * One node's end of the TCP bridge that joins the shared-memory inboxes of several nodes into one
 * job. Ranks never see it: for every rank on another node it creates a forwarded stand-in inbox
 * ({@link Inbox#createForwarded}) under that rank's name in this node's job directory, so the
 * point-to-point engine writes frames for a remote rank exactly as for a local one (the inbox's
 * forwarded flag keeps shared-memory and process addresses out of them). Per other node it keeps
 * one TCP connection and two threads: one drains the stand-in inboxes of that node's ranks into the
 * socket, one writes the frames arriving from that node into the inboxes of this node's ranks and
 * wakes them. Frames from one source to one destination keep their order end to end (one ring,
 * one connection, one writer), which is all MPI's non-overtaking rule needs.
 *
 * <p>Who writes what: the stand-in rings have the node's ranks as producers and the outbound thread
 * as their only consumer; a rank's own inbox gets the inbound threads as additional producers,
 * through the same claim, copy, commit and wake as any local peer.
 *
 * <p>Connections: node {@code i} connects to every node {@code j < i} and accepts from every
 * {@code j > i}; a connection first proves it belongs to the job with the job's secret (compared in
 * constant time). A connection that fails the proof is refused, reported through the failure
 * callback's sibling {@code onRefused}, and the bridge goes on. A connection lost while the bridge
 * is open is reported through {@code onFailure} with the two nodes named.
 */
public final class NodeBridge implements AutoCloseable
{
    /** "SHMPIBR1": the first word of every handshake. */
    static final long MAGIC = 0x53484D5049425231L;
    static final int VERSION = 1;
    /** Length of the job secret in bytes. */
    public static final int SECRET_LENGTH = 32;
    /** Bytes before a frame's payload on the wire: length, type, destination rank. */
    static final int FRAME_HEADER = 12;
    private static final int HANDSHAKE_TIMEOUT_MS = 2_000;
    private static final int OK = 0;
    private static final int REFUSED = 1;
    /** Connections a listening socket holds before they are accepted (every other node may dial at once). */
    static final int BACKLOG = 1024;
    /** Destination of a control frame (for the bridge, not for a rank). */
    static final int CONTROL = -1;
    /** Control frame: the sending node has finished; nothing more comes from it. */
    static final int CONTROL_GOODBYE = 1;
    /** Control frame: the job is aborted (kind, rank, code, reason): the receiving node aborts too. */
    static final int CONTROL_ABORT = 2;
    /** How long a finishing node waits for the other side's goodbye. */
    private static final long GOODBYE_TIMEOUT_MS = 10_000;

    /** Told when another node reports that the job is aborted. */
    public interface AbortListener
    {
        void aborted(int kind, int rank, int code, String reason);
    }

    final Path jobDir;
    final int node;
    final int[] nodeOfRank;
    private final byte[] secret;
    final Futex futex;
    final Consumer<String> onFailure;
    private final Consumer<String> onRefused;
    private final ServerSocket server;
    final Inbox[] standIns;
    private final BridgeLink[] links;
    private final Thread acceptor;
    /** Whether this process's rank may do the socket work itself (non-blocking connections). */
    final boolean inlineMode;
    final AtomicLong framesOut = new AtomicLong();
    final AtomicLong framesIn = new AtomicLong();
    volatile boolean closed;
    volatile AbortListener onAbort = (kind, rank, code, reason) ->
    {
    };

    private NodeBridge(
        final Path jobDir, final int node, final int[] nodeOfRank, final byte[] secret, final Futex futex,
        final Consumer<String> onFailure, final Consumer<String> onRefused, final ServerSocket server,
        final Inbox[] standIns, final int nodes, final boolean inlineMode)
    {
        this.inlineMode = inlineMode;
        this.jobDir = jobDir;
        this.node = node;
        this.nodeOfRank = nodeOfRank;
        this.secret = secret;
        this.futex = futex;
        this.onFailure = onFailure;
        this.onRefused = onRefused;
        this.server = server;
        this.standIns = standIns;
        this.links = new BridgeLink[nodes];
        this.acceptor = new Thread(this::acceptLoop, "shmpi-bridge-accept-" + node);
        this.acceptor.setDaemon(true);
    }

    /**
     * Creates the stand-in inboxes of every rank not on {@code node} in {@code jobDir} and starts
     * listening on {@code listen} (port 0: any free port, see {@link #address()}). Call before any
     * rank of this node starts sending.
     *
     * @param nodeOfRank  the node of every world rank (nodes numbered from 0)
     * @param ringCapacity the ring capacity of the job's inboxes (the same on every node)
     * @param secret      the job's secret, {@link #SECRET_LENGTH} bytes, the same on every node
     * @param onFailure   told (once per lost connection) what was lost, naming both nodes
     * @param onRefused   told of each connection refused for failing the job's proof
     */
    public static NodeBridge open(
        final Path jobDir, final int node, final int[] nodeOfRank, final int ringCapacity, final byte[] secret,
        final InetSocketAddress listen, final Futex futex, final Consumer<String> onFailure,
        final Consumer<String> onRefused) throws IOException
    {
        return open(jobDir, node, nodeOfRank, ringCapacity, secret, listen, futex, onFailure, onRefused, false);
    }

    /** As the form above; {@code inline}: as in the {@code ServerSocket} form with it. */
    public static NodeBridge open(
        final Path jobDir, final int node, final int[] nodeOfRank, final int ringCapacity, final byte[] secret,
        final InetSocketAddress listen, final Futex futex, final Consumer<String> onFailure,
        final Consumer<String> onRefused, final boolean inline) throws IOException
    {
        if (secret.length != SECRET_LENGTH)
        {
            throw new IllegalArgumentException("the job secret must be " + SECRET_LENGTH + " bytes, not " +
                secret.length);
        }
        int nodes = 0;
        for (final int n : nodeOfRank)
        {
            if (n < 0)
            {
                throw new IllegalArgumentException("negative node in the rank map");
            }
            nodes = Math.max(nodes, n + 1);
        }
        if (node < 0 || node >= nodes)
        {
            throw new IllegalArgumentException("node " + node + " is not in the rank map (" + nodes + " nodes)");
        }
        // Made through a channel: the connections it accepts move their bytes through channels.
        final ServerSocket server = java.nio.channels.ServerSocketChannel.open().socket();
        try
        {
            server.bind(listen, BACKLOG);
        }
        catch (final IOException ex)
        {
            server.close();
            throw new IOException("node " + node + " cannot listen on " + listen + ": " + ex.getMessage(), ex);
        }
        return open(jobDir, node, nodeOfRank, ringCapacity, secret, server, futex, onFailure, onRefused, inline);
    }

    /**
     * As {@link #open(Path, int, int[], int, byte[], InetSocketAddress, Futex, Consumer, Consumer)}, on a
     * server socket already bound (whose address was handed to the other nodes before the rank map
     * was known). The bridge owns {@code server} from here, also when this fails.
     */
    public static NodeBridge open(
        final Path jobDir, final int node, final int[] nodeOfRank, final int ringCapacity, final byte[] secret,
        final ServerSocket server, final Futex futex, final Consumer<String> onFailure,
        final Consumer<String> onRefused) throws IOException
    {
        return open(jobDir, node, nodeOfRank, ringCapacity, secret, server, futex, onFailure, onRefused, false);
    }

    /**
     * As {@link #open(Path, int, int[], int, byte[], ServerSocket, Futex, Consumer, Consumer)};
     * {@code inline}: this process's rank may do the socket work itself ({@link #inline}), so the
     * connections are non-blocking (else the threads block in their reads and writes).
     */
    public static NodeBridge open(
        final Path jobDir, final int node, final int[] nodeOfRank, final int ringCapacity, final byte[] secret,
        final ServerSocket server, final Futex futex, final Consumer<String> onFailure,
        final Consumer<String> onRefused, final boolean inline) throws IOException
    {
        if (secret.length != SECRET_LENGTH)
        {
            server.close();
            throw new IllegalArgumentException("the job secret must be " + SECRET_LENGTH + " bytes, not " +
                secret.length);
        }
        int nodes = 0;
        for (final int n : nodeOfRank)
        {
            nodes = Math.max(nodes, n + 1);
        }
        final Inbox[] standIns = new Inbox[nodeOfRank.length];
        final long pid = ProcessHandle.current().pid();
        try
        {
            // The first stand-in of each other node carries the doorbell its node's stand-ins ring.
            final int[] firstOf = new int[nodes];
            java.util.Arrays.fill(firstOf, -1);
            for (int r = 0; r < nodeOfRank.length; r++)
            {
                if (nodeOfRank[r] != node)
                {
                    if (firstOf[nodeOfRank[r]] < 0)
                    {
                        firstOf[nodeOfRank[r]] = r;
                    }
                    standIns[r] = Inbox.createForwarded(jobDir.resolve(SegmentNames.inbox(r)), r, pid, ringCapacity,
                        futex, firstOf[nodeOfRank[r]]);
                }
            }
            final NodeBridge bridge = new NodeBridge(jobDir, node, nodeOfRank.clone(), secret.clone(), futex,
                onFailure, onRefused, server, standIns, nodes, inline);
            bridge.acceptor.start();
            return bridge;
        }
        catch (final IOException | RuntimeException ex)
        {
            server.close();
            removeStandIns(standIns);
            throw ex;
        }
    }

    /** The address this node's bridge listens on. */
    public InetSocketAddress address()
    {
        return (InetSocketAddress)server.getLocalSocketAddress();
    }

    /** This bridge's node. */
    public int node()
    {
        return node;
    }

    /**
     * Joins the other nodes: connects to every lower-numbered node at its address and waits for
     * every higher-numbered one to connect, all within {@code timeoutMs}; then starts forwarding.
     *
     * @param addresses the bridge address of every node, indexed by node
     * @throws IOException naming the node that could not be reached or did not connect in time
     */
    public void connect(final InetSocketAddress[] addresses, final long timeoutMs) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (int j = 0; j < node; j++)
        {
            final Socket s = dial(j, addresses[j], deadline);
            register(j, s);
        }
        synchronized (links)
        {
            for (int j = node + 1; j < links.length; j++)
            {
                while (links[j] == null)
                {
                    final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (leftMs <= 0 || closed)
                    {
                        throw new IOException("node " + j + " did not connect to node " + node + " (" + address() +
                            ") within " + timeoutMs + " ms");
                    }
                    try
                    {
                        links.wait(leftMs);
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while node " + node + " waited for node " + j, ex);
                    }
                }
            }
        }
    }

    /** Sends, in the writing thread, what the stand-ins of this node's directory hold. */
    private final Inbox.Forwarder forwarder = new Inbox.Forwarder()
    {
        @Override
        public boolean serves(final Path inbox)
        {
            return jobDir.equals(inbox.getParent());
        }

        @Override
        public boolean forward(final int rank)
        {
            final BridgeLink l = links[nodeOfRank[rank]];
            return l != null && l.sendInline();
        }
    };

    /**
     * Lets this process's rank do the bridge's socket work itself ({@code shmpi.bridge.inline};
     * the bridge opened with {@code inline}): after {@link #connect}, its frames for other nodes
     * go to the socket from its own thread (a burst still goes to the sending thread), and the
     * returned agent, registered with the
     * rank's progress engine, reads the sockets in its duty cycle while it is inside MPI calls and
     * writes what came into this node's inboxes (for itself, at once); before it sleeps, and
     * while it computes, the threads do it. A message then reaches the rank without a thread
     * hand-off at either end.
     */
    public ProgressAgent inline()
    {
        if (!inlineMode)
        {
            throw new IllegalStateException("the bridge of node " + node + " was opened for its threads alone");
        }
        Inbox.forwarder(forwarder);
        return agent();
    }

    /** The duty-cycle part of {@link #inline}. */
    ProgressAgent agent()
    {
        return new ProgressAgent()
        {
            @Override
            public int doWork()
            {
                int work = 0;
                for (final BridgeLink l : links)
                {
                    if (l != null)
                    {
                        work += l.receiveInline();
                    }
                }
                return work;
            }

            @Override
            public void beforeSleep()
            {
                for (final BridgeLink l : links)
                {
                    if (l != null)
                    {
                        l.handOver();
                    }
                }
            }

            @Override
            public String roleName()
            {
                return "tcp bridge of node " + node;
            }
        };
    }

    /** Who is told when another node reports the job aborted (set before {@link #connect}). */
    public void onAbort(final AbortListener listener)
    {
        onAbort = listener;
    }

    /**
     * Tells every connected node that the job is aborted: each receiving bridge calls its
     * {@link #onAbort} listener. Sent after the frames already queued; waits at most
     * {@code timeoutMs} for them to be written.
     */
    public void relayAbort(final int kind, final int rank, final int code, final String reason, final long timeoutMs)
    {
        final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        final byte[] frame = new byte[FRAME_HEADER + 12 + text.length];
        putInt(frame, 0, 12 + text.length);
        putInt(frame, 4, CONTROL_ABORT);
        putInt(frame, 8, CONTROL);
        putInt(frame, 12, kind);
        putInt(frame, 16, rank);
        putInt(frame, 20, code);
        System.arraycopy(text, 0, frame, 24, text.length);
        final List<BridgeLink> open = openLinks();
        for (final BridgeLink l : open)
        {
            l.control.add(frame);
            l.ring();
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (final BridgeLink l : open)
        {
            while (!l.control.isEmpty() && !l.stopping && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private List<BridgeLink> openLinks()
    {
        final List<BridgeLink> open = new ArrayList<>();
        synchronized (links)
        {
            for (final BridgeLink l : links)
            {
                if (l != null)
                {
                    open.add(l);
                }
            }
        }
        return open;
    }

    /** Frames sent to other nodes so far. */
    public long framesForwarded()
    {
        return framesOut.get();
    }

    /** Frames from other nodes written into this node's inboxes so far. */
    public long framesDelivered()
    {
        return framesIn.get();
    }

    private Socket dial(final int peer, final InetSocketAddress address, final long deadline) throws IOException
    {
        IOException last = null;
        while (System.nanoTime() - deadline < 0 && !closed)
        {
            final Socket s = java.nio.channels.SocketChannel.open().socket();
            try
            {
                s.connect(address, HANDSHAKE_TIMEOUT_MS);
                s.setTcpNoDelay(true);
                s.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeLong(MAGIC);
                out.writeInt(VERSION);
                out.writeInt(node);
                out.writeInt(peer);
                out.write(secret);
                out.flush();
                final DataInputStream in = new DataInputStream(s.getInputStream());
                if (in.readLong() != MAGIC || in.readInt() != OK)
                {
                    s.close();
                    throw new IOException("node " + peer + " (" + address + ") refused node " + node);
                }
                s.setSoTimeout(0);
                return s;
            }
            catch (final IOException ex)
            {
                s.close();
                last = ex;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
        throw new IOException("node " + node + " cannot reach node " + peer + " at " + address +
            (last != null ? ": " + last.getMessage() : ""), last);
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            final Socket s;
            try
            {
                s = server.accept();
            }
            catch (final IOException ex)
            {
                return;
            }
            try
            {
                s.setTcpNoDelay(true);
                s.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
                final String refusal = admit(s);
                if (refusal != null)
                {
                    onRefused.accept("shmpi bridge: node " + node + " (" + address() + ") refused a connection from " +
                        s.getRemoteSocketAddress() + ": " + refusal);
                    s.close();
                }
            }
            catch (final IOException ex)
            {
                onRefused.accept("shmpi bridge: node " + node + " (" + address() + ") refused a connection from " +
                    s.getRemoteSocketAddress() + ": " + ex.getMessage());
                closeQuietly(s);
            }
        }
    }

    /** Checks a connection's proof; registers it and returns null, or returns why it is refused. */
    private String admit(final Socket s) throws IOException
    {
        final DataInputStream in = new DataInputStream(s.getInputStream());
        final DataOutputStream out = new DataOutputStream(s.getOutputStream());
        final long magic;
        try
        {
            magic = in.readLong();
        }
        catch (final SocketTimeoutException ex)
        {
            return "no handshake within " + HANDSHAKE_TIMEOUT_MS + " ms";
        }
        if (magic != MAGIC)
        {
            return "not a shmpi bridge";
        }
        final int version = in.readInt();
        final int from = in.readInt();
        final int to = in.readInt();
        final byte[] proof = new byte[SECRET_LENGTH];
        in.readFully(proof);
        String refusal = null;
        if (version != VERSION)
        {
            refusal = "protocol version " + version + ", not " + VERSION;
        }
        else if (!MessageDigest.isEqual(proof, secret))
        {
            refusal = "wrong job secret";
        }
        else if (to != node || from <= node || from >= links.length)
        {
            refusal = "node " + from + " cannot connect to node " + to + " here";
        }
        synchronized (links)
        {
            if (refusal == null && links[from] != null)
            {
                refusal = "node " + from + " is connected already";
            }
            out.writeLong(MAGIC);
            out.writeInt(refusal == null ? OK : REFUSED);
            out.flush();
            if (refusal == null)
            {
                s.setSoTimeout(0);
                register(from, s);
            }
        }
        return refusal;
    }

    private void register(final int peer, final Socket s) throws IOException
    {
        final BridgeLink link = new BridgeLink(this, peer, s);
        synchronized (links)
        {
            links[peer] = link;
            links.notifyAll();
        }
        link.start();
    }

    /**
     * Ends the bridge in order, when no rank of this node sends any more (all finalized): forwards
     * what the stand-ins still hold, says goodbye to every node, waits for theirs (at most
     * {@value #GOODBYE_TIMEOUT_MS} ms), then closes. A connection that ends after its goodbye is
     * not a failure. Then as {@link #close}.
     */
    public void finish()
    {
        final List<BridgeLink> open = openLinks();
        for (final BridgeLink l : open)
        {
            l.finishing = true;
            l.ring();
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GOODBYE_TIMEOUT_MS);
        for (final BridgeLink l : open)
        {
            l.awaitGoodbye(deadline);
        }
        close();
    }

    /** Stops forwarding, closes every connection, and removes the stand-in inboxes. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        Inbox.removeForwarder(forwarder);
        closeQuietly(server);
        final List<BridgeLink> open = openLinks();
        synchronized (links)
        {
            links.notifyAll();
        }
        for (final BridgeLink l : open)
        {
            l.stop();
        }
        try
        {
            acceptor.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        removeStandIns(standIns);
    }

    private static void removeStandIns(final Inbox[] standIns)
    {
        for (final Inbox s : standIns)
        {
            if (s != null)
            {
                final Path path = s.path();
                s.close();
                try
                {
                    Files.deleteIfExists(path);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException("cannot remove the stand-in inbox " + path, ex);
                }
            }
        }
    }

    static void closeQuietly(final AutoCloseable c)
    {
        try
        {
            c.close();
        }
        catch (final Exception ignored)
        {
            // closing: nothing more to do with it
        }
    }

    /** Waiting with nothing to do: spin, then yield, then short naps. */
    static int idle(final int idles)
    {
        if (idles < 200)
        {
            Thread.onSpinWait();
        }
        else if (idles < 2_000)
        {
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(20_000);
        }
        return idles + 1;
    }

    static int getInt(final byte[] b, final int at)
    {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    private static void putInt(final byte[] b, final int at, final int v)
    {
        b[at] = (byte)(v >>> 24);
        b[at + 1] = (byte)(v >>> 16);
        b[at + 2] = (byte)(v >>> 8);
        b[at + 3] = (byte)v;
    }
}
