package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.util.ArrayDeque;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

/**
 * Back-pressure: what could not be written to a peer's ring yet, kept per peer and in order, so
 * messages never overtake. A peer with queued sends or control frames (CTS, ACK) is "busy"; each
 * duty cycle continues the busy peers round robin, control frames first. Progress thread only.
 */
final class OutboundQueues
{
    /** Writes the matching part of a send (its DATA frames, or its RTS). */
    interface SendPath
    {
        /** Writes as much as the ring takes; true when the matching part is fully written. */
        boolean advance(SendRequest s);
    }

    private final int rank;
    private final InboxTransport transport;
    private final ArrayDeque<SendRequest>[] sends;
    private final ArrayDeque<long[]>[] controls;
    private final boolean[] busy;
    private final ArrayDeque<Integer> busyPeers = new ArrayDeque<>();
    private SendPath path;

    @SuppressWarnings({"unchecked", "rawtypes"})
    OutboundQueues(final int rank, final int worldSize, final InboxTransport transport)
    {
        this.rank = rank;
        this.transport = transport;
        this.sends = new ArrayDeque[worldSize];
        this.controls = new ArrayDeque[worldSize];
        this.busy = new boolean[worldSize];
    }

    void sendPath(final SendPath path)
    {
        this.path = path;
    }

    /** Whether sends to {@code peer} wait: a new one must queue behind them. */
    boolean hasQueuedSends(final int peer)
    {
        final ArrayDeque<SendRequest> q = sends[peer];
        return q != null && !q.isEmpty();
    }

    /** Whether anything waits for ring space (then nobody will wake us for it: poll). */
    boolean isBusy()
    {
        return !busyPeers.isEmpty();
    }

    /** Queues a send behind those already waiting for its peer. */
    void enqueue(final SendRequest s)
    {
        ArrayDeque<SendRequest> q = sends[s.dest];
        if (q == null)
        {
            q = new ArrayDeque<>();
            sends[s.dest] = q;
        }
        q.addLast(s);
        markBusy(s.dest);
    }

    /** Removes a queued send of which nothing was written (cancel); whether it was there. */
    boolean remove(final SendRequest s)
    {
        return s.untouched() && sends[s.dest] != null && sends[s.dest].remove(s);
    }

    private void markBusy(final int peer)
    {
        if (!busy[peer])
        {
            busy[peer] = true;
            busyPeers.addLast(peer);
        }
    }

    /** Sends a control frame now, or queues it behind the peer's pending control frames. */
    void control(final int peer, final int type, final long token, final long peerToken)
    {
        final ArrayDeque<long[]> q = controls[peer];
        if ((q == null || q.isEmpty()) && tryControl(peer, type, token, peerToken))
        {
            return;
        }
        if (q == null)
        {
            controls[peer] = new ArrayDeque<>();
        }
        controls[peer].addLast(new long[] {type, token, peerToken});
        markBusy(peer);
    }

    private boolean tryControl(final int peer, final int type, final long token, final long peerToken)
    {
        final Inbox target = transport.peer(peer);
        final ManyToOneRingBuffer ring = target.ring();
        final int index = ring.tryClaim(type, HEADER_LENGTH);
        if (index < 0)
        {
            InboxTransport.checkClaim(index);
            return false;
        }
        final AtomicBuffer b = ring.buffer();
        b.setMemory(index, HEADER_LENGTH, (byte)0);
        b.putInt(index + SOURCE_OFFSET, transport.sourceFor(peer));
        b.putLong(index + TOKEN_OFFSET, token);
        b.putLong(index + PEER_TOKEN_OFFSET, peerToken);
        // Release inside commit: publishes the frame written above.
        ring.commit(index);
        target.afterCommit();
        return true;
    }

    /** Continues queued control frames and sends, peer by peer, in order. Returns frames written. */
    int push()
    {
        int work = 0;
        final int n = busyPeers.size();
        for (int i = 0; i < n; i++)
        {
            final int peer = busyPeers.pollFirst();
            boolean blocked = false;
            final ArrayDeque<long[]> cq = controls[peer];
            while (cq != null && !cq.isEmpty())
            {
                final long[] c = cq.peekFirst();
                if (!tryControl(peer, (int)c[0], c[1], c[2]))
                {
                    blocked = true;
                    break;
                }
                cq.pollFirst();
                work++;
            }
            final ArrayDeque<SendRequest> sq = sends[peer];
            while (!blocked && sq != null && !sq.isEmpty())
            {
                if (path.advance(sq.peekFirst()))
                {
                    sq.pollFirst();
                    work++;
                }
                else
                {
                    blocked = true;
                }
            }
            if (blocked)
            {
                busyPeers.addLast(peer);
            }
            else
            {
                busy[peer] = false;
            }
        }
        return work;
    }

    /** Appends the sends queued behind a full ring, by peer (status reports). */
    void describe(final StringBuilder out)
    {
        final PeerSummary queued = new PeerSummary();
        for (final ArrayDeque<SendRequest> q : sends)
        {
            if (q != null)
            {
                for (final SendRequest s : q)
                {
                    queued.add(s.dest, s.tag, s.length);
                }
            }
        }
        if (!queued.isEmpty())
        {
            queued.appendTo(out, "sends queued for ring space", "to");
        }
    }
}
