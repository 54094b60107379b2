package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.shmpi.shm.CrossMemory;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.ShmpiException;

/**
 * The rendezvous protocol, for messages above the eager limit. The sender announces the message
 * with an RTS frame and waits. When a receive matches it:
 * <ul>
 * <li>if the message lies in the sender's shared heap (and is contiguous), the receiver copies it
 *     straight out of the sender's segment into the receive buffer and answers ACK (one copy);</li>
 * <li>if it lies elsewhere at a stable address (a direct buffer, contiguous) and cross-memory
 *     attach works, the receiver reads it out of the sender's process with
 *     {@code process_vm_readv}: into a contiguous direct receive buffer at once (one copy), into
 *     an array or any other layout through a native staging buffer, a piece at a time; then
 *     ACK. A peer that refuses to be read (EPERM, ENOSYS) is asked for a stream instead, as
 *     below, and never read again;</li>
 * <li>otherwise the receiver answers CTS with its own token, and the sender streams RDATA
 *     fragments through the ring, a few per stream per duty cycle, round robin, which the
 *     receiver copies into the receive buffer as they come (a pipelined copy, the ring as bounce
 *     buffer).</li>
 * </ul>
 * Large messages are therefore never buffered on the receiver's heap. Progress thread only.
 */
final class RendezvousProtocol
{
    /** RDATA frames written per stream per duty cycle before the next stream's turn. */
    private static final int FRAGMENTS_PER_TURN = 16;
    /**
     * Bytes of the native staging buffer that a cross-memory read into an array (or a
     * non-contiguous receive) goes through, a piece at a time: small enough to stay in the cache
     * between the read and the copy out of it.
     */
    static final int STAGING_BYTES = 256 * 1024;
    /** {@link #peerPids}: not looked up yet. */
    private static final long PID_UNKNOWN = 0;
    /** {@link #peerPids}: the peer cannot be read (no pid published, or it refused once). */
    private static final long PID_REFUSED = -1;

    private final int rank;
    private final InboxTransport transport;
    private final HandshakeTokens tokens;
    private final RequestCompletion completion;
    private final OutboundQueues outbound;
    private final SharedHeap heap;
    private final ArrayDeque<SendRequest> streams = new ArrayDeque<>();
    /** Reading peers' memory; null: never (disabled, or refused by the kernel here). */
    private final CrossMemory crossMemory;
    private final JobFile job;
    /** Per world rank: its pid once looked up in the job file, or PID_UNKNOWN, or PID_REFUSED. */
    private final long[] peerPids;
    private ByteBuffer staging;
    private long stagingAddress;
    private MatchingEngine matching;
    private long sharedCopies;
    private long crossMemoryReads;

    RendezvousProtocol(
        final int rank, final InboxTransport transport, final HandshakeTokens tokens,
        final RequestCompletion completion, final OutboundQueues outbound, final SharedHeap heap,
        final CrossMemory crossMemory, final JobFile job)
    {
        this.rank = rank;
        this.transport = transport;
        this.tokens = tokens;
        this.completion = completion;
        this.outbound = outbound;
        this.heap = heap;
        this.crossMemory = crossMemory;
        this.job = job;
        this.peerPids = new long[transport.peerCapacity()];
    }

    void matching(final MatchingEngine matching)
    {
        this.matching = matching;
    }

    /** Large messages received by a single copy out of a sender's shared heap. */
    long sharedCopies()
    {
        return sharedCopies;
    }

    /** Large messages received by a single read out of a sender's process (cross-memory attach). */
    long crossMemoryReads()
    {
        return crossMemoryReads;
    }

    /** Whether this rank reads and offers messages by cross-memory attach. */
    boolean crossMemoryEnabled()
    {
        return crossMemory != null;
    }

    /** Whether streams wait to write fragments (they progress only by polling). */
    boolean isStreaming()
    {
        return !streams.isEmpty();
    }

    /** Sender: writes the RTS of {@code s}; false when the ring has no room. */
    boolean announce(final SendRequest s)
    {
        final Inbox target = transport.peer(s.dest);
        final ManyToOneRingBuffer ring = target.ring();
        if (s.token == 0)
        {
            s.token = tokens.next();
        }
        final int index = ring.tryClaim(TYPE_RTS, HEADER_LENGTH);
        if (index < 0)
        {
            InboxTransport.checkClaim(index);
            return false;
        }
        // No SYNC flag on an RTS: its CTS (or ACK) already says the message was matched.
        // A rank on another node can neither map this node's shared heap nor read this process:
        // it gets the plain RTS and answers CTS, and the data streams through the bridge.
        final boolean stable = s.base == null && s.layout.isContiguous() && !target.isForwarded();
        // Another job's process cannot map this job's heap either (it may read this process).
        final SharedHeap.Segment segment = stable && !target.isForeign() ?
            heap.find(s.offset, s.length) : null;
        final AtomicBuffer b = ring.buffer();
        if (segment != null)
        {
            EagerProtocol.writeHeader(b, index, transport.sourceFor(s.dest), s, s.offset - segment.address, FLAG_SHARED,
                s.token, segment.id);
            s.state = SendRequest.WAIT_ACK;
        }
        else if (stable && crossMemory != null)
        {
            // The request keeps the buffer reachable (retained, or fenced by the blocking call)
            // until the ACK or the end of the stream the receiver may ask for instead.
            EagerProtocol.writeHeader(b, index, transport.sourceFor(s.dest), s, s.offset, FLAG_CMA, s.token, 0);
            s.state = SendRequest.WAIT_READ;
        }
        else
        {
            EagerProtocol.writeHeader(b, index, transport.sourceFor(s.dest), s, 0, 0, s.token, 0);
            s.state = SendRequest.WAIT_CTS;
        }
        tokens.awaitReply(s);
        // Release inside commit: publishes the RTS written above.
        ring.commit(index);
        target.afterCommit();
        return true;
    }

    /** Receiver: a receive matched a rendezvous message. */
    void matched(
        final RecvRequest request, final int source, final long senderToken, final int flags, final long segment,
        final long segmentOffset)
    {
        if ((flags & FLAG_SHARED) != 0)
        {
            // Single copy: straight from the sender's heap segment into the receive buffer.
            matching.copyDirect(request, heap.peerAddress(source, segment) + segmentOffset);
            sharedCopies++;
            outbound.control(source, TYPE_ACK, senderToken, 0);
            return;
        }
        if ((flags & FLAG_CMA) != 0 && readAcross(request, source, senderToken, segmentOffset))
        {
            return;
        }
        tokens.awaitData(request);
        outbound.control(source, TYPE_CTS, senderToken, request.token);
    }

    /**
     * Receiver: reads a {@link FrameDescriptor#FLAG_CMA} message at {@code address} in the
     * process of {@code source} into {@code r}, completes it and acknowledges it; false when the
     * peer cannot be read from here, so that the caller asks for a stream instead (nothing of the
     * message is lost: the sender still holds it). A read that fails otherwise (the sender is
     * gone, or its buffer is) completes the receive with {@code ERR_OTHER}, acknowledges the
     * send all the same, so that a sender still there never hangs, and throws.
     */
    private boolean readAcross(final RecvRequest r, final int source, final long senderToken, final long address)
    {
        if (crossMemory == null)
        {
            return false;
        }
        final long pid = peerPid(source);
        if (pid == PID_REFUSED)
        {
            return false;
        }
        // A truncated message: read only what fits (the status still says how long it was).
        final long n = Math.min(r.capacity, r.messageLength);
        final int errno = r.base == null && r.layout.isContiguous() ?
            crossMemory.read(pid, r.offset, address, n) : readStaged(pid, r, address, n);
        if (errno == 0)
        {
            r.received = r.messageLength;
            crossMemoryReads++;
            matching.finish(r);
            outbound.control(source, TYPE_ACK, senderToken, 0);
            return true;
        }
        if (errno == CrossMemory.EPERM || errno == CrossMemory.ENOSYS)
        {
            // Refused (ptrace rules, seccomp): stream from this peer from now on.
            peerPids[source] = PID_REFUSED;
            return false;
        }
        r.errorClass = ErrorClass.ERR_OTHER;
        matching.finish(r);
        outbound.control(source, TYPE_ACK, senderToken, 0);
        throw new ShmpiException(ErrorClass.ERR_OTHER, "cannot read a message out of the memory of rank " + source +
            ": " + CrossMemory.errnoName(errno) + (errno == CrossMemory.ESRCH ?
            " (no such process: it is gone, or runs in another pid namespace)" : "") + ", pid=" + pid +
            ", address=0x" + Long.toHexString(address) + ", bytes=" + n);
    }

    /** Reads {@code n} bytes at {@code address} in process {@code pid} into {@code r} through the staging buffer. */
    private int readStaged(final long pid, final RecvRequest r, final long address, final long n)
    {
        if (staging == null)
        {
            staging = ByteBuffer.allocateDirect(STAGING_BYTES);
            stagingAddress = BufferUtil.address(staging);
        }
        for (long done = 0; done < n; )
        {
            final long chunk = Math.min(STAGING_BYTES, n - done);
            final int errno = crossMemory.read(pid, stagingAddress, address + done, chunk);
            if (errno != 0)
            {
                return errno;
            }
            r.layout.unpack(null, stagingAddress, chunk, r.base, r.offset, done);
            done += chunk;
        }
        return 0;
    }

    /** The pid of world rank {@code source} from the job file (looked up once), or PID_REFUSED. */
    private long peerPid(final int source)
    {
        long pid = peerPids[source];
        if (pid == PID_UNKNOWN)
        {
            // Published before the rank's state STARTED, long before any frame of it can arrive.
            pid = source < job.worldSize() ? job.pid(source) :
                transport.foreignPeers().resolve(source).pid();
            if (pid <= 0)
            {
                pid = PID_REFUSED;
            }
            peerPids[source] = pid;
        }
        return pid;
    }

    /** Sender: the receiver is ready; start streaming. */
    void onCts(final AtomicBuffer b, final int index)
    {
        final SendRequest s = tokens.takeSend(b.getLong(index + TOKEN_OFFSET), "CTS");
        s.receiverToken = b.getLong(index + PEER_TOKEN_OFFSET);
        s.state = SendRequest.STREAMING;
        s.sent = 0;
        streams.addLast(s);
    }

    /** Receiver: one fragment of a matched message. */
    void onData(final AtomicBuffer b, final int index, final int length)
    {
        final long token = b.getLong(index + TOKEN_OFFSET);
        final RecvRequest r = tokens.recv(token);
        if (MatchingEngine.onRendezvousData(r, b.getLong(index + FRAGMENT_OFFSET_OFFSET),
            b.addressOffset() + index + HEADER_LENGTH, length - HEADER_LENGTH))
        {
            tokens.doneRecv(token);
            matching.finish(r);
        }
    }

    /** Streams fragments: a few per stream per cycle, round robin. Returns fragments written. */
    int push()
    {
        int work = 0;
        final int n = streams.size();
        for (int i = 0; i < n; i++)
        {
            final SendRequest s = streams.pollFirst();
            final Inbox target = transport.peer(s.dest);
            final ManyToOneRingBuffer ring = target.ring();
            final int maxPayload = InboxTransport.maxPayload(ring, HEADER_LENGTH);
            int fragments = 0;
            while (s.sent < s.length && fragments < FRAGMENTS_PER_TURN)
            {
                final int chunk = (int)Math.min(maxPayload, s.length - s.sent);
                final int index = ring.tryClaim(TYPE_RDATA, HEADER_LENGTH + chunk);
                if (index < 0)
                {
                    InboxTransport.checkClaim(index);
                    break;
                }
                final AtomicBuffer b = ring.buffer();
                EagerProtocol.writeHeader(b, index, transport.sourceFor(s.dest), s, s.sent, 0, s.receiverToken,
                    s.token);
                s.layout.pack(s.base, s.offset, s.sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
                // Release inside commit: publishes the header and payload written above.
                ring.commit(index);
                s.sent += chunk;
                fragments++;
            }
            if (fragments > 0)
            {
                target.afterCommit();
                work += fragments;
            }
            if (s.sent >= s.length)
            {
                s.state = SendRequest.DONE;
                completion.complete(s);
            }
            else
            {
                streams.addLast(s);
            }
        }
        return work;
    }
}
