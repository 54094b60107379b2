package org.shmpi.ring;

import java.io.IOException;

import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.Futex;
import org.shmpi.shm.PeerTable;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.WakeWord;
import org.shmpi.shm.segment.SegmentManager;

/**
 * The transport under the protocols: this rank's inbox, which it creates and consumes, and the
 * peers' inboxes, mapped on first send to them, into which it produces. A frame is written by
 * claiming space in the peer's ring, filling it, committing it (a release store inside Agrona's
 * {@code commit}) and waking the peer if it sleeps. Progress thread only.
 */
public final class InboxTransport implements AutoCloseable
{
    private final SegmentManager segments;
    private final Futex futex;
    private final Inbox own;
    private final Inbox[] peers;
    private final int rank;
    private final int worldSize;
    /** For an id of another job's process: the id this rank has there (what its frames carry as source). */
    private final int[] selfIds;
    private ForeignPeers foreign;

    /** Creates this rank's inbox through the rank's segment manager; peers are mapped on first use. */
    public InboxTransport(
        final SegmentManager segments, final int worldSize, final int ringCapacity, final Futex futex)
        throws IOException
    {
        this.segments = segments;
        this.futex = futex;
        this.own = Inbox.create(segments, ringCapacity, futex);
        this.rank = segments.rank();
        this.worldSize = worldSize;
        this.peers = new Inbox[worldSize + PeerTable.MAX_ENTRIES];
        this.selfIds = new int[peers.length];
        this.peers[rank] = own;
    }

    /** Lets this rank address processes of other jobs (ids from the world size up). */
    public void foreignPeers(final ForeignPeers peers)
    {
        this.foreign = peers;
    }

    /** Processes of other jobs, or null when this rank cannot address any. */
    public ForeignPeers foreignPeers()
    {
        return foreign;
    }

    /** How many ids per-peer arrays have room for: the world and processes of other jobs. */
    public int peerCapacity()
    {
        return peers.length;
    }

    /**
     * The source a frame to {@code dest} carries: this rank's world rank, or for a process of
     * another job the id that job knows this rank by (set when its inbox was mapped).
     */
    public int sourceFor(final int dest)
    {
        return dest < worldSize ? rank : selfIds[dest];
    }

    /**
     * Unmaps the inbox of {@code id}, a process of another job this rank no longer talks to
     * (mapped again on the next frame to it).
     */
    public void forget(final int id)
    {
        if (id >= worldSize && id < peers.length && peers[id] != null)
        {
            peers[id].close();
            peers[id] = null;
        }
    }

    /** This rank's inbox. */
    public Inbox own()
    {
        return own;
    }

    /** The wake word this rank sleeps on. */
    public WakeWord wakeWord()
    {
        return own.wakeWord();
    }

    /** Whether frames wait in this rank's inbox (two volatile loads). */
    public boolean hasPending()
    {
        return own.hasPending();
    }

    /**
     * Reads up to {@code limit} frames of this rank's inbox into {@code handler}; a handler that
     * answers COMMIT gives the space read so far back to producers at once.
     */
    public int read(final ControlledMessageHandler handler, final int limit)
    {
        return own.ring().controlledRead(handler, limit);
    }

    /** The inbox of world rank {@code dest}, mapped on first use. */
    public Inbox peer(final int dest)
    {
        Inbox p = peers[dest];
        if (p == null)
        {
            if (dest >= worldSize)
            {
                return foreignPeer(dest);
            }
            try
            {
                p = Inbox.open(segments, dest, futex);
            }
            catch (final IOException | RuntimeException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the inbox of rank " + dest +
                    ": " + ex.getMessage(), ex);
            }
            peers[dest] = p;
        }
        return p;
    }

    private Inbox foreignPeer(final int dest)
    {
        if (foreign == null || dest >= peers.length)
        {
            throw new ShmpiException(ErrorClass.ERR_RANK, "no process " + dest + " (the world has " + worldSize + ")");
        }
        final ForeignPeers.Peer peer = foreign.resolve(dest);
        final Inbox p;
        try
        {
            p = Inbox.open(peer.inbox(), peer.rank(), futex);
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_OTHER, "cannot map the inbox of rank " + peer.rank() + " of job " +
                peer.job() + ": " + ex.getMessage(), ex);
        }
        p.markForeign();
        selfIds[dest] = peer.selfId();
        peers[dest] = p;
        return p;
    }

    /** Largest payload of one frame with a header of {@code headerLength} bytes, 8-aligned. */
    public static int maxPayload(final ManyToOneRingBuffer ring, final int headerLength)
    {
        return (ring.maxMsgLength() - headerLength) & ~7;
    }

    /** A failed claim must be "ring full", anything else is a broken ring. */
    static void checkClaim(final int index)
    {
        if (index != RingBuffer.INSUFFICIENT_CAPACITY)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "ring claim failed: result=" + index);
        }
    }

    @Override
    public void close()
    {
        // The own inbox is closed (its file removed) with the others; the manager unmaps last.
        for (int r = 0; r < peers.length; r++)
        {
            if (peers[r] != null)
            {
                peers[r].close();
                peers[r] = null;
            }
        }
    }
}
