package org.shmpi.bridge;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.shmpi.ring.Inbox;
import org.shmpi.shm.WakeWord;
import org.shmpi.shm.segment.SegmentNames;

/**
 * A {@link NodeBridge}'s connection to one other node, with its two threads: the sending thread
 * drains the stand-ins of the peer's ranks into the socket, the receiving thread writes the
 * frames from the socket into this node's inboxes. The socket blocks, unless this process's rank
 * does socket work itself ({@link NodeBridge#inline}): then it is non-blocking, and what is half
 * sent or half received stays in the link (the staging buffer {@code out}, the receive state
 * {@code rx*}) for whoever holds the send lock or the receive lock next, a thread or the rank.
 */
final class BridgeLink
{
    private static final int STAGING_BYTES = 256 * 1024;
    /** Frames larger than this go from the stand-in's ring to the socket without being gathered. */
    private static final int DIRECT_WRITE_BYTES = 16 * 1024;
    /** Idle passes of a sending thread before it sleeps on its doorbell. */
    private static final int SLEEP_AFTER_IDLES = 2_000;
    /** Longest sleep on the doorbell (bounds what a missed ring costs). */
    private static final long DOORBELL_SLEEP_NS = 1_000_000;
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

    private final NodeBridge bridge;
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
    private final Inbox[] targets;
    /** Encoded control frames, written by the outbound thread after the data it holds. */
    final ConcurrentLinkedQueue<byte[]> control = new ConcurrentLinkedQueue<>();
    volatile boolean stopping;
    /** The wake word the sending thread sleeps on when idle (the first stand-in's); null before it runs. */
    private volatile WakeWord doorbell;
    /** This bridge.node finishes: drain, say goodbye, stop sending. */
    volatile boolean finishing;
    /** The peer said goodbye: its end closing is no failure. */
    private volatile boolean peerGone;
    /** Until when (System.nanoTime) this process's rank reads the socket itself: the inbound thread keeps off. */
    private volatile long rankReadsUntil;

    // Sending, under sendLock.
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Frames gathered and not yet written (from 0 to its position). */
    private final ByteBuffer out;
    private final ByteBuffer header = ByteBuffer.allocateDirect(NodeBridge.FRAME_HEADER);
    private final ByteBuffer[] pair = new ByteBuffer[2];
    private final ByteBuffer[] sendViews;
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
    private final ByteBuffer[] recvViews;
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

    BridgeLink(final NodeBridge bridge, final int peer, final Socket socket) throws IOException
    {
        this.bridge = bridge;
        this.targets = new Inbox[bridge.nodeOfRank.length];
        this.sendViews = new ByteBuffer[bridge.nodeOfRank.length];
        this.recvViews = new ByteBuffer[bridge.nodeOfRank.length];
        this.peer = peer;
        this.socket = socket;
        this.channel = socket.getChannel();
        if (bridge.inlineMode)
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
        this.peerRanks = java.util.stream.IntStream.range(0, bridge.standIns.length)
            .filter(r -> bridge.standIns[r] != null && bridge.nodeOfRank[r] == peer).toArray();
        this.outbound = new Thread(this::send, "shmpi-bridge-" + bridge.node + "-to-" + peer);
        this.inbound = new Thread(this::receive, "shmpi-bridge-" + bridge.node + "-from-" + peer);
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
        if (bridge.inlineMode)
        {
            readable.wakeup();
            writable.wakeup();
        }
        LockSupport.unpark(inbound);
        NodeBridge.closeQuietly(socket);
        try
        {
            outbound.join(5_000);
            inbound.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        if (bridge.inlineMode)
        {
            NodeBridge.closeQuietly(readable);
            NodeBridge.closeQuietly(inlineReadable);
            NodeBridge.closeQuietly(writable);
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
        if (!stopping && !bridge.closed && !peerGone)
        {
            stopping = true;
            bridge.onFailure.accept("shmpi bridge: lost the connection between node " + bridge.node + " (" +
                bridge.address() + ") and node " + peer + " (" + socket.getRemoteSocketAddress() + "): " +
                cause.getMessage());
            NodeBridge.closeQuietly(socket);
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
            bridge.framesOut.addAndGet(frames);
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
            frames += bridge.standIns[r].ring().controlledRead(handler, 64);
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
                if (out.remaining() < NodeBridge.FRAME_HEADER + length && !writeOut() &&
                    out.remaining() < NodeBridge.FRAME_HEADER + length)
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
        final WakeWord bell = peerRanks.length == 0 ? null : bridge.standIns[peerRanks[0]].wakeWord();
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
                        out.putInt(0).putInt(NodeBridge.CONTROL_GOODBYE).putInt(NodeBridge.CONTROL);
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
                    idles = NodeBridge.idle(idles);
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
            pending = bridge.standIns[peerRanks[i]].hasPending();
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
     * In a rank's thread, in its duty cycle: takes what the socket has for this bridge.node, if
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
            if (rxState == RX_HEADER && in.remaining() < NodeBridge.FRAME_HEADER)
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
     * Takes frames from the socket into this bridge.node's inboxes as far as it can without waiting:
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
                    if (!ensure(NodeBridge.FRAME_HEADER))
                    {
                        return frames;
                    }
                    rxLength = in.getInt();
                    rxType = in.getInt();
                    rxDest = in.getInt();
                    if (rxDest == NodeBridge.CONTROL && rxLength >= 0 &&
                        rxLength <= STAGING_BYTES - NodeBridge.FRAME_HEADER)
                    {
                        rxState = RX_CONTROL;
                        break;
                    }
                    if (rxDest < 0 || rxDest >= bridge.nodeOfRank.length || bridge.nodeOfRank[rxDest] != bridge.node ||
                        rxLength < 0)
                    {
                        throw new IOException("a frame for rank " + rxDest + " of " + rxLength + " bytes came " +
                            "to node " + bridge.node);
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
                    bridge.framesIn.incrementAndGet();
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
        if (type == NodeBridge.CONTROL_GOODBYE)
        {
            peerGone = true;
            rxState = RX_DONE;
        }
        else if (type == NodeBridge.CONTROL_ABORT && length >= 12)
        {
            bridge.onAbort.aborted(NodeBridge.getInt(body, 0), NodeBridge.getInt(body, 4), NodeBridge.getInt(body, 8),
                new String(body, 12, length - 12, StandardCharsets.UTF_8));
        }
    }

    private Inbox target(final int dest) throws IOException
    {
        Inbox target = targets[dest];
        if (target == null)
        {
            target = Inbox.open(bridge.jobDir.resolve(SegmentNames.inbox(dest)), dest, bridge.futex);
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
                    idles = NodeBridge.idle(idles);
                }
            }
        }
        catch (final IOException ex)
        {
            lost(ex);
        }
    }

    /** Writes the frames arriving from the peer into this bridge.node's inboxes, waking their ranks. */
    private void receive()
    {
        if (!bridge.inlineMode)
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
                    idles = NodeBridge.idle(idles);
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
