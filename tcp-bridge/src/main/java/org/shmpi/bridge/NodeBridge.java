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
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.shmpi.ring.Inbox;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.shm.Futex;
import org.shmpi.shm.WakeWord;
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
    private static final int STAGING_BYTES = 256 * 1024;
    /** Frames larger than this go from the stand-in's ring to the socket without being gathered. */
    private static final int DIRECT_WRITE_BYTES = 16 * 1024;
    private static final int OK = 0;
    private static final int REFUSED = 1;
    /** Connections a listening socket holds before they are accepted (every other node may dial at once). */
    static final int BACKLOG = 1024;
    /** Idle passes of a sending thread before it sleeps on its doorbell. */
    private static final int SLEEP_AFTER_IDLES = 2_000;
    /** Longest sleep on the doorbell (bounds what a missed ring costs). */
    private static final long DOORBELL_SLEEP_NS = 1_000_000;
    /** Destination of a control frame (for the bridge, not for a rank). */
    static final int CONTROL = -1;
    /** Control frame: the sending node has finished; nothing more comes from it. */
    static final int CONTROL_GOODBYE = 1;
    /** Control frame: the job is aborted (kind, rank, code, reason): the receiving node aborts too. */
    static final int CONTROL_ABORT = 2;
    /**
     * How long after its last duty cycle this process's rank counts as reading the sockets itself
     * (the inbound threads keep off meanwhile; a rank about to sleep hands over at once).
     */
    private static final long RANK_READS_NS = 200_000;
    /**
     * Frames a rank writes closer together than this (from the end of its last send to the
     * next) are a burst: the sending thread takes them, gathering many into one write.
     */
    private static final long BURST_GAP_NS = 3_000;
    /**
     * Frames in a row, each closer than {@link #BURST_GAP_NS} to the one before, that make a burst
     * (a few, as a collective's step sends, still go out at once from the rank's thread).
     */
    private static final int BURST_FRAMES = 4;
    /** How long (spin-waits) the sending thread goes on gathering a burst while frames keep coming. */
    private static final int COALESCE_SPINS = 256;
    /** Gathered bytes after which the sending thread writes at once. */
    private static final int COALESCE_BYTES = 32 * 1024;
    /** Least time between two looks of a rank's thread at a socket that had nothing. */
    private static final long LOOK_INTERVAL_NS = 1_000;
    /**
     * Largest frame a rank's thread writes itself when it is not in a burst (what the socket does
     * not take at once waits in the link's staging buffer, which holds it).
     */
    private static final int INLINE_FRAME_MAX = 80 * 1024;
    /**
     * How long a rank's thread leaves reading to the inbound thread after a stream came (several
     * frames in one read, or a large frame): that thread then copies while the rank consumes.
     */
    private static final long STREAM_HANDOVER_NS = 1_000_000;
    /** Longest wait of the sending thread for room in its socket (then it looks again). */
    private static final long WRITE_WAIT_MS = 10;
    /** Longest wait of an inbound thread for its socket to have something (then it looks again). */
    private static final long RECEIVE_WAIT_MS = 100;
    /** How long a finishing node waits for the other side's goodbye. */
    private static final long GOODBYE_TIMEOUT_MS = 10_000;

    /** Told when another node reports that the job is aborted. */
    public interface AbortListener
    {
        void aborted(int kind, int rank, int code, String reason);
    }

    private final Path jobDir;
    private final int node;
    private final int[] nodeOfRank;
    private final byte[] secret;
    private final Futex futex;
    private final Consumer<String> onFailure;
    private final Consumer<String> onRefused;
    private final ServerSocket server;
    private final Inbox[] standIns;
    private final Link[] links;
    private final Thread acceptor;
    /** Whether this process's rank may do the socket work itself (non-blocking connections). */
    private final boolean inlineMode;
    private final AtomicLong framesOut = new AtomicLong();
    private final AtomicLong framesIn = new AtomicLong();
    private volatile boolean closed;
    private volatile AbortListener onAbort = (kind, rank, code, reason) ->
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
        this.links = new Link[nodes];
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
            final Link l = links[nodeOfRank[rank]];
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
                for (final Link l : links)
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
                for (final Link l : links)
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
        final List<Link> open = openLinks();
        for (final Link l : open)
        {
            l.control.add(frame);
            l.ring();
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (final Link l : open)
        {
            while (!l.control.isEmpty() && !l.stopping && System.nanoTime() - deadline < 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private List<Link> openLinks()
    {
        final List<Link> open = new ArrayList<>();
        synchronized (links)
        {
            for (final Link l : links)
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
        final Link link = new Link(peer, s);
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
        final List<Link> open = openLinks();
        for (final Link l : open)
        {
            l.finishing = true;
            l.ring();
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GOODBYE_TIMEOUT_MS);
        for (final Link l : open)
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
        final List<Link> open = openLinks();
        synchronized (links)
        {
            links.notifyAll();
        }
        for (final Link l : open)
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

    private static void closeQuietly(final AutoCloseable c)
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
    private static int idle(final int idles)
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

    /**
     * The connection to one other node, with its two threads. The socket is non-blocking; what
     * is half sent or half received stays in the link (the staging buffer {@code out}, the
     * receive state {@code rx*}), so whoever holds the send lock or the receive lock next goes
     * on from there: the link's threads, or this process's rank in its own MPI calls
     * ({@link #forward}, {@link #agent}).
     */
    private final class Link
    {
        private static final int RX_HEADER = 0;
        private static final int RX_CONTROL = 1;
        private static final int RX_CLAIM = 2;
        private static final int RX_BODY = 3;
        private static final int RX_DONE = 4;

        private final int peer;
        private final Socket socket;
        private final SocketChannel channel;
        private final Thread outbound;
        private final Thread inbound;
        private final Selector readable;
        /** Room in the socket, waited for by the sending thread. */
        private final Selector writable;
        /** The same readiness, asked by a rank's thread (a selector selects for one thread at a time). */
        private final Selector inlineReadable;
        private final Inbox[] targets = new Inbox[nodeOfRank.length];
        /** Encoded control frames, written by the outbound thread after the data it holds. */
        final ConcurrentLinkedQueue<byte[]> control = new ConcurrentLinkedQueue<>();
        private volatile boolean stopping;
        /** The wake word the sending thread sleeps on when idle (the first stand-in's); null before it runs. */
        private volatile WakeWord doorbell;
        /** This node finishes: drain, say goodbye, stop sending. */
        volatile boolean finishing;
        /** The peer said goodbye: its end closing is no failure. */
        private volatile boolean peerGone;
        /** Until when (System.nanoTime) this process's rank reads the socket itself: the inbound thread keeps off. */
        private volatile long rankReadsUntil;

        // Sending, under sendLock.
        private final ReentrantLock sendLock = new ReentrantLock();
        /** Frames gathered and not yet written (from 0 to its position). */
        private final ByteBuffer out;
        private final ByteBuffer header = ByteBuffer.allocateDirect(FRAME_HEADER);
        private final ByteBuffer[] pair = new ByteBuffer[2];
        private final ByteBuffer[] sendViews = new ByteBuffer[nodeOfRank.length];
        private final int[] peerRanks;
        private final ControlledMessageHandler handler = this::onFrame;
        private int sendDest;
        private int first;
        /** When a rank's thread last wrote frames for the peer (System.nanoTime; after its pass, if it ran one). */
        private long lastForward;
        /** Frames the rank wrote, each closer than {@value #BURST_GAP_NS} ns to the one before. */
        private int closeFrames;
        /** A rank rang the sending thread for the burst under way (cleared when the thread goes to sleep). */
        private volatile boolean rung;
        /** A pass in a rank's thread: never waits for the socket; what does not go stays in {@link #out}. */
        private boolean inlinePass;
        private boolean passStopped;
        private IOException sendFailure;

        // Receiving, under recvLock.
        private final ReentrantLock recvLock = new ReentrantLock();
        /** What the socket gave and nobody has used yet (read mode). */
        private final ByteBuffer in = ByteBuffer.allocateDirect(STAGING_BYTES);
        private final ByteBuffer[] recvViews = new ByteBuffer[nodeOfRank.length];
        private int rxState = RX_HEADER;
        private int rxLength;
        private int rxType;
        private int rxDest;
        private int rxIndex;
        private int rxGot;
        /** The last pass stopped because the destination's inbox was full. */
        private boolean rxBlocked;
        /** When a rank's thread last asked whether the socket has something, and whether it had. */
        private long lastLook;
        private boolean lastLookFound;
        /** Until when (System.nanoTime) a rank's thread leaves reading to the inbound thread: a stream came. */
        private long streamUntil;
        /** A control frame waits for the inbound thread (a rank's thread leaves them to it). */
        private volatile boolean controlPending;

        Link(final int peer, final Socket socket) throws IOException
        {
            this.peer = peer;
            this.socket = socket;
            this.channel = socket.getChannel();
            if (inlineMode)
            {
                channel.configureBlocking(false);
                this.readable = Selector.open();
                channel.register(readable, SelectionKey.OP_READ);
                this.inlineReadable = Selector.open();
                channel.register(inlineReadable, SelectionKey.OP_READ);
                this.writable = Selector.open();
                channel.register(writable, SelectionKey.OP_WRITE);
            }
            else
            {
                // Blocking: the threads wait in their reads and writes, woken by the kernel.
                this.readable = null;
                this.inlineReadable = null;
                this.writable = null;
            }
            this.out = ByteBuffer.allocateDirect(STAGING_BYTES);
            in.flip();
            this.peerRanks = java.util.stream.IntStream.range(0, standIns.length)
                .filter(r -> standIns[r] != null && nodeOfRank[r] == peer).toArray();
            this.outbound = new Thread(this::send, "shmpi-bridge-" + node + "-to-" + peer);
            this.inbound = new Thread(this::receive, "shmpi-bridge-" + node + "-from-" + peer);
            outbound.setDaemon(true);
            inbound.setDaemon(true);
        }

        void start()
        {
            outbound.start();
            inbound.start();
        }

        void awaitGoodbye(final long deadline)
        {
            try
            {
                final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                outbound.join(Math.max(1, leftMs));
                final long left2 = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                inbound.join(Math.max(1, left2));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }

        /** Wakes the sending thread if it sleeps on the doorbell. */
        void ring()
        {
            final WakeWord bell = doorbell;
            if (bell != null)
            {
                bell.wakeIfSleeping();
            }
        }

        /** The rank stops reading the socket (it is going to sleep, or it failed): the inbound thread takes over. */
        void handOver()
        {
            if (rankReadsUntil != 0)
            {
                rankReadsUntil = 0;
                // It may be parked (keeping off) or waiting in its selector for bytes the rank
                // has already taken into the link's buffer.
                LockSupport.unpark(inbound);
                if (readable != null)
                {
                    readable.wakeup();
                }
            }
        }

        void stop()
        {
            stopping = true;
            ring();
            if (inlineMode)
            {
                readable.wakeup();
                writable.wakeup();
            }
            LockSupport.unpark(inbound);
            closeQuietly(socket);
            try
            {
                outbound.join(5_000);
                inbound.join(5_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            if (inlineMode)
            {
                closeQuietly(readable);
                closeQuietly(inlineReadable);
                closeQuietly(writable);
            }
            for (final Inbox t : targets)
            {
                if (t != null)
                {
                    t.close();
                }
            }
        }

        private void lost(final IOException cause)
        {
            if (!stopping && !closed && !peerGone)
            {
                stopping = true;
                onFailure.accept("shmpi bridge: lost the connection between node " + node + " (" + address() +
                    ") and node " + peer + " (" + socket.getRemoteSocketAddress() + "): " + cause.getMessage());
                closeQuietly(socket);
            }
        }

        // ------------------------------------------------------------------------------------------
        // Sending

        /**
         * In a rank's thread, after it wrote frames for the peer: sends what the peer's stand-ins
         * hold, if nobody else is sending, without waiting for the socket. True when everything
         * went out; false leaves the rest to the sending thread (the caller rings its doorbell).
         */
        boolean sendInline()
        {
            if (stopping || finishing)
            {
                return false;
            }
            final long now = System.nanoTime();
            closeFrames = now - lastForward < BURST_GAP_NS ? closeFrames + 1 : 0;
            lastForward = now;
            if (closeFrames >= BURST_FRAMES)
            {
                // A burst: the sending thread takes it, gathering many frames into each write
                // while this rank goes on writing more. It is rung once per burst (it stays
                // awake for a while after a pass; going to sleep it clears rung, and looks at the
                // stand-ins once more after announcing its sleep).
                if (rung)
                {
                    return true;
                }
                rung = true;
                return false;
            }
            return sendNow();
        }

        /** A pass in this rank's thread. */
        private boolean sendNow()
        {
            if (!sendLock.tryLock())
            {
                return false;
            }
            try
            {
                inlinePass = true;
                pass();
                lastForward = System.nanoTime();
                return out.position() == 0 && !passStopped;
            }
            catch (final IOException ex)
            {
                // The sending thread meets the same socket and reports it.
                return false;
            }
            finally
            {
                inlinePass = false;
                sendLock.unlock();
            }
        }

        /** One pass over the peer's stand-ins, from a different one each time; returns the frames taken. */
        private int pass() throws IOException
        {
            passStopped = false;
            if (!writeOut())
            {
                if (inlinePass)
                {
                    passStopped = true;
                    return 0;
                }
                drainOut();
            }
            int frames = gather();
            if (!inlinePass && frames > 0)
            {
                // The sending thread carries bursts: while the ranks keep writing small frames,
                // take them into this write too (a system call per few frames costs more than the
                // microseconds spent waiting for the next ones).
                for (int spins = 0; spins < COALESCE_SPINS && !passStopped && out.position() < COALESCE_BYTES; spins++)
                {
                    Thread.onSpinWait();
                    if ((spins & 15) == 15)
                    {
                        final int more = gather();
                        if (more == 0)
                        {
                            break;
                        }
                        frames += more;
                    }
                }
            }
            if (!writeOut() && !inlinePass)
            {
                drainOut();
            }
            if (frames > 0)
            {
                framesOut.addAndGet(frames);
            }
            return frames;
        }

        /** Takes what the peer's stand-ins hold, from a different one first each time; returns the frames. */
        private int gather() throws IOException
        {
            int frames = 0;
            for (int i = 0; i < peerRanks.length && !passStopped; i++)
            {
                final int r = peerRanks[(first + i) % peerRanks.length];
                sendDest = r;
                frames += standIns[r].ring().controlledRead(handler, 64);
                if (sendFailure != null)
                {
                    final IOException f = sendFailure;
                    sendFailure = null;
                    throw f;
                }
            }
            first = peerRanks.length == 0 ? 0 : (first + 1) % peerRanks.length;
            return frames;
        }

        /**
         * One frame of a stand-in: a small one is gathered into {@link #out}; a large one goes
         * from the ring to the socket, by the sending thread only (a rank's pass stops there).
         */
        private ControlledMessageHandler.Action onFrame(
            final int type, final org.agrona.MutableDirectBuffer buffer, final int index, final int length)
        {
            try
            {
                if (length <= DIRECT_WRITE_BYTES)
                {
                    if (out.remaining() < FRAME_HEADER + length && !writeOut() &&
                        out.remaining() < FRAME_HEADER + length)
                    {
                        if (inlinePass)
                        {
                            passStopped = true;
                            return ControlledMessageHandler.Action.ABORT;
                        }
                        drainOut();
                    }
                    out.putInt(length).putInt(type).putInt(sendDest);
                    buffer.getBytes(index, out, out.position(), length);
                    out.position(out.position() + length);
                    return ControlledMessageHandler.Action.COMMIT;
                }
                if (inlinePass && (length > INLINE_FRAME_MAX || !writeOut()))
                {
                    // A stream of large frames is the sending thread's: it writes them from the
                    // ring as the socket takes them; a rank's thread never waits for a socket.
                    passStopped = true;
                    return ControlledMessageHandler.Action.ABORT;
                }
                drainOut();
                ByteBuffer view = sendViews[sendDest];
                if (view == null)
                {
                    view = new com.sun.jna.Pointer(buffer.addressOffset()).getByteBuffer(0, buffer.capacity());
                    sendViews[sendDest] = view;
                }
                header.clear();
                header.putInt(length).putInt(type).putInt(sendDest).flip();
                view.limit(index + length).position(index);
                pair[0] = header;
                pair[1] = view;
                int idles = 0;
                while (view.hasRemaining())
                {
                    if (channel.write(pair) > 0)
                    {
                        idles = 0;
                        continue;
                    }
                    if (inlinePass)
                    {
                        // What the socket did not take waits in out (empty, larger than the frame).
                        out.put(header).put(view);
                        passStopped = true;
                        return ControlledMessageHandler.Action.BREAK;
                    }
                    idles = awaitWritable(idles);
                }
                return ControlledMessageHandler.Action.COMMIT;
            }
            catch (final IOException ex)
            {
                sendFailure = ex;
                return ControlledMessageHandler.Action.ABORT;
            }
        }

        /** Writes what {@link #out} holds as far as the socket takes it at once; true when it is empty. */
        private boolean writeOut() throws IOException
        {
            if (out.position() == 0)
            {
                return true;
            }
            out.flip();
            while (out.hasRemaining() && channel.write(out) > 0)
            {
                // the socket took some: go on
            }
            final boolean empty = !out.hasRemaining();
            out.compact();
            return empty;
        }

        /** Writes everything {@link #out} holds (the sending thread: waits for the socket). */
        private void drainOut() throws IOException
        {
            int idles = 0;
            while (!writeOut())
            {
                idles = awaitWritable(idles);
            }
        }

        /** The sending thread waits for room in the socket: a short spin, then epoll. */
        private int awaitWritable(final int idles) throws IOException
        {
            if (stopping)
            {
                throw new java.io.EOFException("the bridge is stopping");
            }
            if (idles < 100)
            {
                Thread.onSpinWait();
                return idles + 1;
            }
            writable.select(WRITE_WAIT_MS);
            writable.selectedKeys().clear();
            return idles + 1;
        }

        /** Drains the stand-in inboxes of the peer's ranks into the socket. */
        private void send()
        {
            final WakeWord bell = peerRanks.length == 0 ? null : standIns[peerRanks[0]].wakeWord();
            doorbell = bell;
            try
            {
                int idles = 0;
                while (!stopping)
                {
                    final boolean last = finishing;
                    int frames;
                    sendLock.lock();
                    try
                    {
                        frames = pass();
                        byte[] c;
                        while ((c = control.peek()) != null)
                        {
                            out.put(c);
                            drainOut();
                            control.poll();
                        }
                        if (last && frames == 0)
                        {
                            // Read before the pass that found nothing: nothing is left behind.
                            out.putInt(0).putInt(CONTROL_GOODBYE).putInt(CONTROL);
                            drainOut();
                            socket.shutdownOutput();
                            return;
                        }
                    }
                    finally
                    {
                        sendLock.unlock();
                    }
                    if (frames > 0)
                    {
                        idles = 0;
                    }
                    else if (idles < SLEEP_AFTER_IDLES || bell == null)
                    {
                        idles = idle(idles);
                    }
                    else
                    {
                        sleepOnDoorbell(bell);
                    }
                }
            }
            catch (final IOException ex)
            {
                lost(ex);
            }
        }

        /**
         * Nothing to send for a while: sleeps until a rank rings the doorbell after writing into
         * a stand-in of the peer (or a control frame, the end), at most {@value #DOORBELL_SLEEP_NS} ns.
         */
        private void sleepOnDoorbell(final WakeWord bell)
        {
            rung = false;
            bell.prepareSleep();
            boolean pending = stopping || finishing || !control.isEmpty();
            for (int i = 0; i < peerRanks.length && !pending; i++)
            {
                pending = standIns[peerRanks[i]].hasPending();
            }
            if (!pending)
            {
                bell.sleep(DOORBELL_SLEEP_NS);
            }
            bell.awake();
        }

        // ------------------------------------------------------------------------------------------
        // Receiving

        /**
         * In a rank's thread, in its duty cycle: takes what the socket has for this node, if
         * nobody else is, without waiting. Control frames are left to the inbound thread.
         */
        int receiveInline()
        {
            if (stopping || controlPending || rxState == RX_DONE)
            {
                return 0;
            }
            final long now = System.nanoTime();
            if (now - streamUntil < 0)
            {
                return 0;
            }
            rankReadsUntil = now + RANK_READS_NS;
            if (!recvLock.tryLock())
            {
                return 0;
            }
            try
            {
                // Nothing half read and nothing buffered: ask epoll first. A read would take the
                // socket's lock, which the writing thread needs too; a readiness check does not.
                if (rxState == RX_HEADER && in.remaining() < FRAME_HEADER)
                {
                    // At most once a microsecond while nothing comes: the check is a system call,
                    // and a rank consuming its inbox runs many duty cycles a microsecond.
                    if (!lastLookFound && now - lastLook < LOOK_INTERVAL_NS)
                    {
                        return 0;
                    }
                    lastLook = now;
                    final int ready = inlineReadable.selectNow();
                    inlineReadable.selectedKeys().clear();
                    lastLookFound = ready > 0;
                    if (ready == 0)
                    {
                        return 0;
                    }
                }
                return pump(true);
            }
            catch (final IOException ex)
            {
                // The inbound thread meets the same socket and reports it.
                handOver();
                return 0;
            }
            finally
            {
                recvLock.unlock();
            }
        }

        /**
         * Takes frames from the socket into this node's inboxes as far as it can without waiting:
         * stops when the socket has nothing more, when a destination's inbox is full
         * ({@link #rxBlocked}), or (in a rank's thread) at a control frame. Returns the frames
         * delivered.
         */
        private int pump(final boolean inline) throws IOException
        {
            int frames = 0;
            rxBlocked = false;
            while (true)
            {
                switch (rxState)
                {
                    case RX_HEADER:
                        if (!ensure(FRAME_HEADER))
                        {
                            return frames;
                        }
                        rxLength = in.getInt();
                        rxType = in.getInt();
                        rxDest = in.getInt();
                        if (rxDest == CONTROL && rxLength >= 0 && rxLength <= STAGING_BYTES - FRAME_HEADER)
                        {
                            rxState = RX_CONTROL;
                            break;
                        }
                        if (rxDest < 0 || rxDest >= nodeOfRank.length || nodeOfRank[rxDest] != node || rxLength < 0)
                        {
                            throw new IOException("a frame for rank " + rxDest + " of " + rxLength + " bytes came " +
                                "to node " + node);
                        }
                        rxState = RX_CLAIM;
                        if (inline && rxLength > INLINE_FRAME_MAX)
                        {
                            // A very large frame (a stream's): the inbound thread streams it into
                            // the inbox while this rank consumes what came before.
                            streamUntil = System.nanoTime() + STREAM_HANDOVER_NS;
                            handOver();
                            return frames;
                        }
                        break;
                    case RX_CONTROL:
                        if (inline)
                        {
                            controlPending = true;
                            handOver();
                            return frames;
                        }
                        if (!ensure(rxLength))
                        {
                            return frames;
                        }
                        control(rxType, rxLength);
                        controlPending = false;
                        if (rxState == RX_DONE)
                        {
                            return frames;
                        }
                        rxState = RX_HEADER;
                        break;
                    case RX_CLAIM:
                    {
                        final ManyToOneRingBuffer ring = target(rxDest).ring();
                        if (rxLength > ring.maxMsgLength())
                        {
                            throw new IOException("a frame of " + rxLength + " bytes does not fit the inbox of rank " +
                                rxDest);
                        }
                        final int index = ring.tryClaim(rxType, rxLength);
                        if (index < 0)
                        {
                            // The rank has not read its inbox yet: frames behind this one wait with it.
                            rxBlocked = true;
                            return frames;
                        }
                        final int buffered = Math.min(rxLength, in.remaining());
                        ring.buffer().putBytes(index, in, in.position(), buffered);
                        in.position(in.position() + buffered);
                        rxIndex = index;
                        rxGot = buffered;
                        rxState = RX_BODY;
                        break;
                    }
                    case RX_BODY:
                    {
                        final Inbox target = targets[rxDest];
                        final ManyToOneRingBuffer ring = target.ring();
                        if (rxGot < rxLength)
                        {
                            ByteBuffer view = recvViews[rxDest];
                            if (view == null)
                            {
                                final AtomicBuffer b = ring.buffer();
                                view = new com.sun.jna.Pointer(b.addressOffset()).getByteBuffer(0, b.capacity());
                                recvViews[rxDest] = view;
                            }
                            view.limit(rxIndex + rxLength).position(rxIndex + rxGot);
                            final int n;
                            try
                            {
                                n = channel.read(view);
                            }
                            catch (final IOException ex)
                            {
                                // Give the claimed space back: the rank's inbox stays readable.
                                ring.abort(rxIndex);
                                rxState = RX_DONE;
                                throw ex;
                            }
                            if (n < 0)
                            {
                                ring.abort(rxIndex);
                                rxState = RX_DONE;
                                throw new java.io.EOFException("the connection was closed inside a frame");
                            }
                            rxGot += n;
                            if (rxGot < rxLength)
                            {
                                // Bytes came: work done (a rank keeps polling instead of idling).
                                return n > 0 ? frames + 1 : frames;
                            }
                        }
                        ring.commit(rxIndex);
                        target.wakeWord().wakeIfSleepingAfterClaim();
                        framesIn.incrementAndGet();
                        frames++;
                        rxState = RX_HEADER;
                        break;
                    }
                    default:
                        return frames;
                }
            }
        }

        /** Whether {@link #in} holds {@code n} unread bytes, after one read of what the socket has. */
        private boolean ensure(final int n) throws IOException
        {
            if (in.remaining() >= n)
            {
                return true;
            }
            in.compact();
            final int got;
            try
            {
                got = channel.read(in);
            }
            finally
            {
                in.flip();
            }
            if (got < 0)
            {
                throw new java.io.EOFException("the connection was closed");
            }
            return in.remaining() >= n;
        }

        /** A control frame whose {@code length} bytes of body {@link #in} holds. */
        private void control(final int type, final int length)
        {
            final byte[] body = new byte[length];
            in.get(body);
            if (type == CONTROL_GOODBYE)
            {
                peerGone = true;
                rxState = RX_DONE;
            }
            else if (type == CONTROL_ABORT && length >= 12)
            {
                onAbort.aborted(getInt(body, 0), getInt(body, 4), getInt(body, 8),
                    new String(body, 12, length - 12, StandardCharsets.UTF_8));
            }
        }

        private Inbox target(final int dest) throws IOException
        {
            Inbox target = targets[dest];
            if (target == null)
            {
                target = Inbox.open(jobDir.resolve(SegmentNames.inbox(dest)), dest, futex);
                targets[dest] = target;
            }
            return target;
        }

        /** {@link #receive} on a blocking connection: the thread alone reads, waiting in its reads. */
        private void receiveBlocking()
        {
            try
            {
                int idles = 0;
                while (!stopping && rxState != RX_DONE)
                {
                    if (pump(false) > 0 || !rxBlocked)
                    {
                        idles = 0;
                    }
                    else
                    {
                        idles = idle(idles);
                    }
                }
            }
            catch (final IOException ex)
            {
                lost(ex);
            }
        }

        /** Writes the frames arriving from the peer into this node's inboxes, waking their ranks. */
        private void receive()
        {
            if (!inlineMode)
            {
                receiveBlocking();
                return;
            }
            try
            {
                int idles = 0;
                while (!stopping && rxState != RX_DONE)
                {
                    final long rankReads = rankReadsUntil - System.nanoTime();
                    if (rankReads > 0 && !controlPending)
                    {
                        // This process's rank reads the socket in its duty cycle for now.
                        LockSupport.parkNanos(rankReads);
                        continue;
                    }
                    int frames = 0;
                    boolean blocked = true;
                    if (recvLock.tryLock())
                    {
                        try
                        {
                            frames = pump(false);
                            blocked = rxBlocked;
                        }
                        finally
                        {
                            recvLock.unlock();
                        }
                    }
                    if (frames > 0)
                    {
                        idles = 0;
                    }
                    else if (blocked)
                    {
                        idles = idle(idles);
                    }
                    else
                    {
                        idles = 0;
                        readable.select(RECEIVE_WAIT_MS);
                        readable.selectedKeys().clear();
                    }
                }
            }
            catch (final IOException ex)
            {
                lost(ex);
            }
        }
    }

    private static int getInt(final byte[] b, final int at)
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
