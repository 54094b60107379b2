package mpi;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.shmpi.ring.FrameDescriptor;
import org.shmpi.ring.ForeignPeers;
import org.shmpi.ring.Inbox;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.PeerTable;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankState;

/**
 * A connection between two jobs on different machines, made when a connect names a port of a job
 * this machine does not have: one TCP connection between the two roots' processes, each of which
 * keeps a mirror of the other job in its own job directory ({@code gw-<n>}: a job file the size
 * of the other job's world, a forwarded stand-in inbox per rank of it, and a peer table in which
 * the local processes that send there register). The other job's ranks are then processes of the
 * mirror job to every local rank: a frame to one is written into its stand-in as into any inbox,
 * the gateway's sending thread takes it out, puts the sender's rank on it and sends it; the other
 * side's receiving thread writes it into the destination rank's inbox with the id that job knows
 * the sender by. Both groups must be ranks of the root's own job on the root's node (a
 * stand-in exists only there). Frames carry no address (stand-ins are forwarded inboxes, so large
 * messages stream through the ring). A connection that breaks without goodbye marks the mirror's
 * ranks FAILED: the connected ranks' watchdogs end the job.
 */
final class JobGateway
{
    private static final int MAGIC = 0x53474157;
    private static final int GOODBYE = -1;
    private static final int STAND_IN_CAPACITY = 1 << 18;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger NEXT = new AtomicInteger(1);
    /** Gateways of this process by mirror job key. */
    private static final Map<String, JobGateway> BY_MIRROR = new ConcurrentHashMap<>();
    private static volatile ServerSocket listener;
    private static volatile long token;
    private static volatile String address;

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final String mirrorKey;
    private final Path mirrorDir;
    private final JobFile mirrorJob;
    private final PeerTable mirrorTable;
    private final Inbox[] standIns;
    private final ForeignPeers peers;
    private final Futex futex;
    private final Map<Integer, Integer> sourceIds = new HashMap<>();
    private final Map<Integer, Inbox> targets = new HashMap<>();
    private volatile boolean closing;
    /** The sending thread's copy of a frame. */
    private byte[] scratch = new byte[4096];
    private Thread sender;
    private Thread receiver;

    private JobGateway(final Socket socket, final DataInputStream in, final DataOutputStream out,
        final int remoteWorld) throws IOException
    {
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.peers = MPI.context().foreignPeers();
        this.futex = Futex.open(MPI.context().settings().futexEnabled());
        this.mirrorKey = peers.jobKey() + "/gw-" + ProcessHandle.current().pid() + "-" + NEXT.getAndIncrement();
        this.mirrorDir = peers.jobDirectory(mirrorKey);
        Files.createDirectory(mirrorDir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        final long pid = ProcessHandle.current().pid();
        final long start = Processes.selfStartMillis();
        this.mirrorJob = JobFile.create(new JobDirectory(mirrorDir).jobFile(), remoteWorld, pid, start,
            STAND_IN_CAPACITY);
        this.standIns = new Inbox[remoteWorld];
        for (int r = 0; r < remoteWorld; r++)
        {
            mirrorJob.publishStarted(r, pid, start);
            mirrorJob.state(r, RankState.INITIALIZED);
            standIns[r] = Inbox.createForwarded(mirrorDir.resolve(org.shmpi.shm.segment.SegmentNames.inbox(r)), r,
                pid, STAND_IN_CAPACITY, futex);
        }
        this.mirrorTable = new PeerTable(mirrorDir, remoteWorld);
        BY_MIRROR.put(mirrorKey, this);
    }

    /** The job key local ranks address the other job by. */
    String mirrorKey()
    {
        return mirrorKey;
    }

    /** Whether {@code job} is the mirror of another machine's job. */
    static boolean isMirror(final String job)
    {
        return BY_MIRROR.containsKey(job);
    }

    /** Whether {@code job} names a mirror of another machine's job (in any process of this job). */
    static boolean looksLikeMirror(final String job)
    {
        return job.contains("/gw-");
    }

    /** The gateway of mirror {@code job}, or null. */
    static JobGateway of(final String job)
    {
        return BY_MIRROR.get(job);
    }

    /** Process {@code rank} of the other job as this rank's job numbers it. */
    int idOf(final int rank)
    {
        return peers.idIn(peers.jobKey(), new PeerTable.Entry(mirrorKey, rank, ProcessHandle.current().pid(),
            Processes.selfStartMillis()));
    }

    // ------------------------------------------------------------------------------------------
    // The port owner's side: a listener that offers the ports of this process to other machines

    /** "host:port:token" for port names; starts this process's listener the first time. */
    static synchronized String offer()
    {
        if (listener == null)
        {
            try
            {
                final String host = chooseAddress();
                final ServerSocket s = new ServerSocket();
                s.bind(new InetSocketAddress(InetAddress.getByName(host), 0), 16);
                token = RANDOM.nextLong() & Long.MAX_VALUE;
                address = host + ":" + s.getLocalPort() + ":" + Long.toHexString(token);
                listener = s;
                final Thread t = new Thread(() -> listen(s), "shmpi-port-listener");
                t.setDaemon(true);
                t.start();
            }
            catch (final IOException ex)
            {
                return null;
            }
        }
        return address;
    }

    private static String chooseAddress() throws IOException
    {
        final String set = MPI.context().settings().portAddress();
        if (set != null && !set.isBlank())
        {
            return set.trim();
        }
        for (final NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces()))
        {
            if (nic.isUp() && !nic.isLoopback())
            {
                for (final InetAddress a : Collections.list(nic.getInetAddresses()))
                {
                    if (a instanceof Inet4Address)
                    {
                        return a.getHostAddress();
                    }
                }
            }
        }
        return "127.0.0.1";
    }

    private static void listen(final ServerSocket s)
    {
        while (!s.isClosed())
        {
            final Socket c;
            try
            {
                c = s.accept();
            }
            catch (final IOException ex)
            {
                return;
            }
            try
            {
                c.setTcpNoDelay(true);
                c.setSoTimeout(10_000);
                final DataInputStream in = new DataInputStream(new BufferedInputStream(c.getInputStream(), 1 << 16));
                final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.getOutputStream(),
                    1 << 16));
                if (in.readInt() != MAGIC || in.readLong() != token)
                {
                    // A stranger, or a port name of another run of this process: refused.
                    c.close();
                    continue;
                }
                final int remoteWorld = in.readInt();
                out.writeInt(MAGIC);
                out.writeInt(MPI.context().worldSize());
                out.flush();
                c.setSoTimeout(0);
                new JobGateway(c, in, out, remoteWorld).startThreads();
            }
            catch (final IOException | RuntimeException ex)
            {
                try
                {
                    c.close();
                }
                catch (final IOException ignore)
                {
                    // gone
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // The connector's side

    /** Connects to the port owner's process at {@code host}:{@code port}, presenting {@code hexToken}. */
    static JobGateway connect(final String host, final int port, final String hexToken)
    {
        try
        {
            final Socket c = new Socket();
            c.connect(new InetSocketAddress(host, port), 10_000);
            c.setTcpNoDelay(true);
            c.setSoTimeout(10_000);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(c.getInputStream(), 1 << 16));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(c.getOutputStream(), 1 << 16));
            out.writeInt(MAGIC);
            out.writeLong(Long.parseUnsignedLong(hexToken, 16));
            out.writeInt(MPI.context().worldSize());
            out.flush();
            if (in.readInt() != MAGIC)
            {
                c.close();
                throw new IOException("not a shmpi port");
            }
            final int remoteWorld = in.readInt();
            c.setSoTimeout(0);
            final JobGateway g = new JobGateway(c, in, out, remoteWorld);
            g.startThreads();
            return g;
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new MPIException(ErrorClass.ERR_PORT, "cannot reach the port's job at " + host + ":" + port + ": " +
                ex.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------
    // Forwarding

    private void startThreads()
    {
        sender = new Thread(this::send, "shmpi-gateway-send");
        sender.setDaemon(true);
        receiver = new Thread(this::receive, "shmpi-gateway-receive");
        receiver.setDaemon(true);
        sender.start();
        receiver.start();
    }

    /** Stand-ins -> socket: each frame with the sender's rank in this job. */
    private void send()
    {
        long idleNs = 1_000;
        try
        {
            while (!closing)
            {
                int frames = 0;
                for (int r = 0; r < standIns.length; r++)
                {
                    final int dest = r;
                    frames += standIns[r].ring().read((type, buffer, index, length) -> forward(type, buffer, index,
                        length, dest), 64);
                }
                if (frames > 0)
                {
                    idleNs = 1_000;
                    continue;
                }
                out.flush();
                LockSupport.parkNanos(idleNs);
                idleNs = Math.min(idleNs * 2, 500_000);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            broken();
        }
    }

    private void forward(final int type, final DirectBuffer buffer, final int index, final int length, final int dest)
    {
        final int sourceId = buffer.getInt(index + FrameDescriptor.SOURCE_OFFSET);
        final PeerTable.Entry who;
        try
        {
            who = mirrorTable.entry(sourceId);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        if (who == null || !who.job().equals(peers.jobKey()))
        {
            // Only ranks of this job reach the other job through this gateway.
            return;
        }
        try
        {
            out.writeInt(type);
            out.writeInt(dest);
            out.writeInt(who.rank());
            out.writeInt(length);
            if (length > scratch.length)
            {
                scratch = new byte[Integer.highestOneBit(length) << 1];
            }
            // One bulk copy out of the ring, one write: not a call per byte.
            buffer.getBytes(index, scratch, 0, length);
            out.write(scratch, 0, length);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Socket -> inboxes of this job, with the source as this job numbers the sender. */
    private void receive()
    {
        byte[] frame = new byte[4096];
        try
        {
            while (true)
            {
                final int type = in.readInt();
                if (type == GOODBYE)
                {
                    ended(RankState.FINALIZED);
                    return;
                }
                final int dest = in.readInt();
                final int rank = in.readInt();
                final int length = in.readInt();
                if (length > frame.length)
                {
                    frame = new byte[Integer.highestOneBit(length) << 1];
                }
                in.readFully(frame, 0, length);
                final Integer source = sourceIds.computeIfAbsent(rank, this::idOf);
                final Inbox target = targets.computeIfAbsent(dest, this::inboxOf);
                final ManyToOneRingBuffer ring = target.ring();
                int at;
                long idleNs = 1_000;
                while ((at = ring.tryClaim(type, length)) < 0)
                {
                    LockSupport.parkNanos(idleNs);
                    idleNs = Math.min(idleNs * 2, 200_000);
                }
                final AtomicBuffer b = ring.buffer();
                b.putBytes(at, frame, 0, length);
                b.putInt(at + FrameDescriptor.SOURCE_OFFSET, source);
                ring.commit(at);
                target.afterCommit();
            }
        }
        catch (final EOFException ex)
        {
            if (!closing)
            {
                broken();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            if (!closing)
            {
                broken();
            }
        }
    }

    private Inbox inboxOf(final int rank)
    {
        try
        {
            return Inbox.open(peers.jobDirectory(peers.jobKey()).resolve(
                org.shmpi.shm.segment.SegmentNames.inbox(rank)), rank, futex);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("no inbox of rank " + rank + " here: " + ex.getMessage(), ex);
        }
    }

    private void broken()
    {
        if (!closing)
        {
            ended(RankState.FAILED);
        }
    }

    /** The other job is gone (FAILED: without goodbye) or said goodbye (FINALIZED): its mirror's ranks say so. */
    private void ended(final int state)
    {
        for (int r = 0; r < standIns.length; r++)
        {
            if (state == RankState.FAILED)
            {
                mirrorJob.failed(r, 1);
            }
            else
            {
                mirrorJob.state(r, state);
            }
        }
    }

    /** Says goodbye, stops the threads and removes the mirror (disconnect; Finalize). */
    void close()
    {
        if (closing)
        {
            return;
        }
        closing = true;
        try
        {
            sender.join(2_000);
            synchronized (out)
            {
                out.writeInt(GOODBYE);
                out.flush();
            }
        }
        catch (final IOException | InterruptedException ignore)
        {
            // The other side sees the socket close.
        }
        try
        {
            socket.close();
            receiver.join(2_000);
        }
        catch (final IOException | InterruptedException ignore)
        {
            // closed
        }
        for (final Inbox i : standIns)
        {
            i.close();
        }
        for (final Inbox i : targets.values())
        {
            i.close();
        }
        mirrorJob.close();
        BY_MIRROR.remove(mirrorKey);
        try
        {
            new JobDirectory(mirrorDir).delete();
        }
        catch (final IOException ignore)
        {
            // Removed with the job's directory.
        }
    }

    /** Finalize: every gateway of this process closes; the listener stops. */
    static void stopAll()
    {
        for (final JobGateway g : BY_MIRROR.values())
        {
            g.close();
        }
        final ServerSocket s = listener;
        listener = null;
        if (s != null)
        {
            try
            {
                s.close();
            }
            catch (final IOException ignore)
            {
                // closed
            }
        }
    }
}
