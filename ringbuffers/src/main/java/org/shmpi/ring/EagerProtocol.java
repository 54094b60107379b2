package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.shmpi.types.DataLayout;

/**
 * The eager protocol, for messages up to the eager limit: the sender copies the message straight
 * into the receiver's ring and is done (standard mode) or waits for the receiver's ACK
 * (synchronous mode). A standard-mode message that fits in one frame goes as a compact
 * {@link FrameDescriptor#TYPE_WHOLE} frame; anything else as {@link FrameDescriptor#TYPE_DATA}
 * frames with the full header, consecutive fragments when it is larger than one frame.
 * Progress thread only.
 */
final class EagerProtocol
{
    private final int rank;
    private final InboxTransport transport;
    private final HandshakeTokens tokens;
    private final RequestCompletion completion;
    /** Largest message sent as one compact frame. */
    private final int wholeLimit;

    EagerProtocol(
        final int rank, final InboxTransport transport, final HandshakeTokens tokens,
        final RequestCompletion completion, final long eagerLimit)
    {
        this.rank = rank;
        this.transport = transport;
        this.tokens = tokens;
        this.completion = completion;
        // Every inbox has the same capacity, so our own ring tells the largest frame of any peer.
        this.wholeLimit = (int)Math.min(eagerLimit,
            InboxTransport.maxPayload(transport.own().ring(), WholeFrameDescriptor.HEADER_LENGTH));
    }

    /** Largest standard-mode message that {@link #tryWhole} may send. */
    int wholeLimit()
    {
        return wholeLimit;
    }

    /**
     * Writes a standard-mode message of at most {@link #wholeLimit} bytes as one compact frame;
     * false when the peer's ring has no room (then nothing was written). The caller has checked
     * that no earlier send to {@code dest} is still queued.
     */
    boolean tryWhole(
        final int context, final int dest, final int tag, final Object base, final long offset, final int length,
        final DataLayout layout)
    {
        final Inbox target = transport.peer(dest);
        final ManyToOneRingBuffer ring = target.ring();
        final int index = ring.tryClaim(TYPE_WHOLE, WholeFrameDescriptor.HEADER_LENGTH + length);
        if (index < 0)
        {
            InboxTransport.checkClaim(index);
            return false;
        }
        // Plain stores by address into the claimed record (the claim checked its bounds), so a
        // cold JVM does not run a bounds check per field.
        final long frame = ring.buffer().addressOffset() + index;
        UnsafeApi.putInt(null, frame + WholeFrameDescriptor.CONTEXT_OFFSET, context);
        UnsafeApi.putInt(null, frame + WholeFrameDescriptor.SOURCE_OFFSET, transport.sourceFor(dest));
        UnsafeApi.putInt(null, frame + WholeFrameDescriptor.TAG_OFFSET, tag);
        UnsafeApi.putInt(null, frame + WholeFrameDescriptor.RESERVED_OFFSET, 0);
        if (length > 0)
        {
            layout.pack(base, offset, 0, null, frame + WholeFrameDescriptor.HEADER_LENGTH, length);
        }
        // Release inside commit: publishes the header and payload written above. The claim's CAS
        // on the ring's tail is the full fence the wake-up check below needs.
        ring.commit(index);
        target.afterCommit();
        return true;
    }

    /**
     * Writes as much of an eager send as the ring takes, as DATA frames. Returns true when it is
     * fully written; the send is then complete (standard mode) or waits for its ACK (sync).
     */
    boolean advance(final SendRequest s)
    {
        final Inbox target = transport.peer(s.dest);
        final ManyToOneRingBuffer ring = target.ring();
        final boolean sync = s.mode == SendRequest.MODE_SYNC;
        if (sync && s.token == 0)
        {
            tokens.awaitReply(s);
        }
        final int maxPayload = InboxTransport.maxPayload(ring, HEADER_LENGTH);
        boolean wrote = false;
        do
        {
            final int chunk = (int)Math.min(maxPayload, s.length - s.sent);
            final int index = ring.tryClaim(TYPE_DATA, HEADER_LENGTH + chunk);
            if (index < 0)
            {
                InboxTransport.checkClaim(index);
                if (wrote)
                {
                    target.afterCommit();
                }
                return false;
            }
            final AtomicBuffer b = ring.buffer();
            writeHeader(b, index, transport.sourceFor(s.dest), s, s.sent, sync ? FLAG_SYNC : 0, s.token, 0);
            if (chunk > 0)
            {
                s.layout.pack(s.base, s.offset, s.sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
            }
            // Release inside commit: publishes the header and payload written above.
            ring.commit(index);
            s.sent += chunk;
            s.state = SendRequest.EAGER_PARTIAL;
            wrote = true;
        }
        while (s.sent < s.length);
        target.afterCommit();
        if (sync)
        {
            s.state = SendRequest.WAIT_ACK;
        }
        else
        {
            s.state = SendRequest.DONE;
            completion.complete(s);
        }
        return true;
    }

    /**
     * Writes the full frame header of a frame of {@code s} into a claimed record (plain stores
     * by address: the claim checked the bounds; the commit that follows publishes them).
     */
    static void writeHeader(
        final AtomicBuffer b, final int index, final int rank, final SendRequest s, final long fragmentOffset,
        final int flags, final long token, final long peerToken)
    {
        final long frame = b.addressOffset() + index;
        UnsafeApi.putInt(null, frame + CONTEXT_OFFSET, s.context);
        UnsafeApi.putInt(null, frame + SOURCE_OFFSET, rank);
        UnsafeApi.putInt(null, frame + TAG_OFFSET, s.tag);
        UnsafeApi.putInt(null, frame + FLAGS_OFFSET, flags);
        UnsafeApi.putInt(null, frame + SEQUENCE_OFFSET, s.sequence);
        UnsafeApi.putInt(null, frame + RESERVED_OFFSET, 0);
        UnsafeApi.putLong(null, frame + MESSAGE_LENGTH_OFFSET, s.length);
        UnsafeApi.putLong(null, frame + FRAGMENT_OFFSET_OFFSET, fragmentOffset);
        UnsafeApi.putLong(null, frame + TOKEN_OFFSET, token);
        UnsafeApi.putLong(null, frame + PEER_TOKEN_OFFSET, peerToken);
    }
}
