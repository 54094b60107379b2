package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.io.IOException;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.shmpi.shm.BackoffIdler;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.ShmpiException;

/**
 * One rank's point-to-point engine. Data path of a message: the sender claims space in the
 * receiver's inbox ring, writes a frame header and copies the payload straight from the user's
 * array or direct buffer into the ring, commits, and wakes the receiver if it sleeps; the
 * receiver's progress loop reads the frame and copies the payload straight into the matched
 * receive buffer (or into a heap copy when no receive is posted yet). Messages larger than one
 * frame go as consecutive fragments; a full ring makes the sender wait (back-pressure), while
 * it keeps draining its own inbox so two ranks sending to each other cannot deadlock.
 *
 * <p>An engine is an object, not global state: tests run several as threads of one JVM.
 * Not thread-safe; the owner thread drives it.
 */
public final class PointToPointEngine implements AutoCloseable
{
    private final JobDirectory directory;
    private final JobFile job;
    private final int rank;
    private final int worldSize;
    private final Futex futex;
    private final Inbox inbox;
    private final Inbox[] peers;
    private final MatchingEngine matching = new MatchingEngine();
    private final BackoffIdler idler;
    private final MessageHandler handler = this::onFrame;
    private final long abortCheckIntervalNs = 1_000_000;
    private int nextSequence;

    /** Creates this rank's inbox; peers are mapped on first send to them. */
    public PointToPointEngine(
        final JobDirectory directory, final JobFile job, final int rank, final ShmpiConfig config, final Futex futex)
        throws IOException
    {
        this.directory = directory;
        this.job = job;
        this.rank = rank;
        this.worldSize = job.worldSize();
        this.futex = futex;
        this.idler = BackoffIdler.from(config);
        this.inbox = Inbox.create(directory.inboxFile(rank), rank, ProcessHandle.current().pid(),
            job.ringCapacity(), futex);
        this.peers = new Inbox[worldSize];
        this.peers[rank] = inbox;
    }

    public int rank()
    {
        return rank;
    }

    public int worldSize()
    {
        return worldSize;
    }

    private Inbox peer(final int dest)
    {
        Inbox p = peers[dest];
        if (p == null)
        {
            try
            {
                p = Inbox.open(directory.inboxFile(dest), dest, futex);
            }
            catch (final IOException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the inbox of rank " + dest +
                    ": " + ex.getMessage(), ex);
            }
            peers[dest] = p;
        }
        return p;
    }

    /**
     * Sends {@code length} bytes at {@code base}/{@code offset} (Unsafe addressing) to world rank
     * {@code dest}. Blocks until every byte is in the receiver's ring (standard mode, eager).
     */
    public void send(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length)
    {
        final Inbox target = peer(dest);
        final ManyToOneRingBuffer ring = target.ring();
        final int maxPayload = (ring.maxMsgLength() - HEADER_LENGTH) & ~7;
        final int sequence = nextSequence++;
        long sent = 0;
        do
        {
            final int chunk = (int)Math.min(maxPayload, length - sent);
            int index = ring.tryClaim(TYPE_DATA, HEADER_LENGTH + chunk);
            if (index < 0)
            {
                index = claimSlowly(ring, chunk);
            }
            final AtomicBuffer b = ring.buffer();
            b.putInt(index + CONTEXT_OFFSET, context);
            b.putInt(index + SOURCE_OFFSET, rank);
            b.putInt(index + TAG_OFFSET, tag);
            b.putInt(index + SEQUENCE_OFFSET, sequence);
            b.putLong(index + MESSAGE_LENGTH_OFFSET, length);
            b.putLong(index + FRAGMENT_OFFSET_OFFSET, sent);
            if (chunk > 0)
            {
                UnsafeApi.copyMemory(base, offset + sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
            }
            // Release inside commit: publishes the header and payload written above.
            ring.commit(index);
            target.wakeWord().wakeIfSleeping();
            sent += chunk;
        }
        while (sent < length);
    }

    private int claimSlowly(final ManyToOneRingBuffer ring, final int chunk)
    {
        idler.reset();
        long nextAbortCheck = System.nanoTime() + abortCheckIntervalNs;
        while (true)
        {
            final int index = ring.tryClaim(TYPE_DATA, HEADER_LENGTH + chunk);
            if (index >= 0)
            {
                return index;
            }
            if (index != RingBuffer.INSUFFICIENT_CAPACITY)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "ring claim failed: result=" + index);
            }
            // While the receiver is slow, keep draining our own inbox: a peer may be blocked
            // sending to us at this very moment.
            if (progress() == 0)
            {
                idler.idle();
            }
            final long now = System.nanoTime();
            if (now - nextAbortCheck > 0)
            {
                checkAborted();
                nextAbortCheck = now + abortCheckIntervalNs;
            }
        }
    }

    /** Posts a receive without waiting (the matching engine may complete it at once). */
    public void post(final RecvRequest request)
    {
        matching.post(request);
    }

    /** Blocks until {@code request} completes, driving progress and idling between polls. */
    public void await(final RecvRequest request)
    {
        idler.reset();
        long nextAbortCheck = System.nanoTime() + abortCheckIntervalNs;
        while (!request.complete)
        {
            if (progress() > 0)
            {
                idler.reset();
                continue;
            }
            idler.idle(inbox.wakeWord(), inbox::hasPending);
            final long now = System.nanoTime();
            if (now - nextAbortCheck > 0)
            {
                checkAborted();
                nextAbortCheck = now + abortCheckIntervalNs;
            }
        }
    }

    /** Blocking receive: post, then wait. */
    public RecvRequest recv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        final RecvRequest request = new RecvRequest(context, source, tag, base, offset, capacity);
        matching.post(request);
        if (!request.complete)
        {
            await(request);
        }
        return request;
    }

    /** One duty cycle: reads up to a batch of frames from this rank's inbox. Returns the count. */
    public int progress()
    {
        return inbox.ring().read(handler, 64);
    }

    private void onFrame(final int msgTypeId, final org.agrona.MutableDirectBuffer buffer, final int index, final int length)
    {
        if (msgTypeId == TYPE_DATA)
        {
            matching.onData((AtomicBuffer)buffer, index, length);
        }
        else
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "unknown frame type: type=" + msgTypeId);
        }
    }

    private void checkAborted()
    {
        if (job.isAborted())
        {
            throw new JobAbortedException("job aborted: " + (job.isAbortPublished() ? job.abortReason() : "(reason pending)"));
        }
    }

    public MatchingEngine matching()
    {
        return matching;
    }

    @Override
    public void close()
    {
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
