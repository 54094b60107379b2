package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.util.ArrayDeque;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

/**
 * The rendezvous protocol, for messages above the eager limit. The sender announces the message
 * with an RTS frame and waits. When a receive matches it:
 * <ul>
 * <li>if the message lies in the sender's shared heap (and is contiguous), the receiver copies it
 *     straight out of the sender's segment into the receive buffer and answers ACK (one copy);</li>
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

    private final int rank;
    private final InboxTransport transport;
    private final HandshakeTokens tokens;
    private final RequestCompletion completion;
    private final OutboundQueues outbound;
    private final SharedHeap heap;
    private final ArrayDeque<SendRequest> streams = new ArrayDeque<>();
    private MatchingEngine matching;
    private long sharedCopies;

    RendezvousProtocol(
        final int rank, final InboxTransport transport, final HandshakeTokens tokens,
        final RequestCompletion completion, final OutboundQueues outbound, final SharedHeap heap)
    {
        this.rank = rank;
        this.transport = transport;
        this.tokens = tokens;
        this.completion = completion;
        this.outbound = outbound;
        this.heap = heap;
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
        final SharedHeap.Segment segment =
            s.base == null && s.layout.isContiguous() ? heap.find(s.offset, s.length) : null;
        final AtomicBuffer b = ring.buffer();
        if (segment != null)
        {
            EagerProtocol.writeHeader(b, index, rank, s, s.offset - segment.address, FLAG_SHARED, s.token, segment.id);
            s.state = SendRequest.WAIT_ACK;
        }
        else
        {
            EagerProtocol.writeHeader(b, index, rank, s, 0, 0, s.token, 0);
            s.state = SendRequest.WAIT_CTS;
        }
        tokens.awaitReply(s);
        // Release inside commit: publishes the RTS written above.
        ring.commit(index);
        target.wakeWord().wakeIfSleepingAfterClaim();
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
        tokens.awaitData(request);
        outbound.control(source, TYPE_CTS, senderToken, request.token);
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
                EagerProtocol.writeHeader(b, index, rank, s, s.sent, 0, s.receiverToken, s.token);
                s.layout.pack(s.base, s.offset, s.sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
                // Release inside commit: publishes the header and payload written above.
                ring.commit(index);
                s.sent += chunk;
                fragments++;
            }
            if (fragments > 0)
            {
                target.wakeWord().wakeIfSleepingAfterClaim();
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
