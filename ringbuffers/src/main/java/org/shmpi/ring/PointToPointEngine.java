package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;

/**
 * One rank's point-to-point engine: the entry points (send, receive, probe, cancel, wait) over
 * parts a newcomer can name:
 * <ul>
 * <li>{@link InboxTransport}: this rank's inbox and the peers' inboxes (Agrona rings in
 *     /dev/shm), frames claimed, committed, and the wake-up of a sleeping peer;</li>
 * <li>{@link EagerProtocol} (up to the eager limit: copied into the receiver's ring) and
 *     {@link RendezvousProtocol} (larger: RTS, then CTS and streamed fragments, or one copy out
 *     of the sender's shared heap or, by cross-memory attach, out of its process), with
 *     {@link HandshakeTokens} naming requests across ranks;</li>
 * <li>{@link OutboundQueues}: back-pressure, per peer and in order, when a ring is full;</li>
 * <li>{@link MatchingEngine}: posted and unexpected queues per context id;</li>
 * <li>{@link RequestCompletion}: completing requests, callbacks, waking waiters;</li>
 * <li>{@link ProgressEngine}: the duty cycle, idling, and the THREAD_MULTIPLE lock. This engine
 *     is one {@link ProgressAgent} of it; other engines of the rank register their own.</li>
 * </ul>
 * Every copy of message data goes through a {@link DataLayout} (contiguous unless given).
 *
 * <p>A rank waiting for ring space keeps draining its own inbox, so two ranks sending to each
 * other cannot deadlock. An engine is an object, not global state: tests run several as threads
 * of one JVM.
 */
public final class PointToPointEngine implements Transport
{
    /** Default largest message sent eagerly. */
    public static final int EAGER_LIMIT_DEFAULT = 64 * 1024;
    /** Frames read from the inbox per duty cycle. */
    private static final int READ_LIMIT = 64;
    /**
     * A frame at least this large is given back to its ring as soon as it is consumed, not at the
     * end of the batch: a sender streaming a large message can refill that space while we copy
     * the next fragment out (pipelining), instead of waiting for the whole batch.
     */
    private static final int COMMIT_EACH_BYTES = 8 * 1024;

    /**
     * What a send that completed at once returns: eager standard-mode sends are done when
     * {@code isend} returns, so they need no request of their own (no allocation per message).
     */
    private static final SendRequest DONE = doneSend();

    private final int rank;
    private final int worldSize;
    private final long eagerLimit;
    private final boolean threadSafe;
    private final InboxTransport transport;
    private final ProgressEngine progress;
    private final RequestCompletion completion;
    private final HandshakeTokens tokens = new HandshakeTokens();
    private final OutboundQueues outbound;
    private final EagerProtocol eager;
    private final RendezvousProtocol rendezvous;
    private final MatchingEngine matching;
    private final TrafficCounters counters;
    private final SharedHeap heap;
    private final Agent agent = new Agent();
    private final int wholeLimit;
    private int nextSequence;
    /** Single-threaded mode: the request blocking receives reuse (no allocation per message). */
    private RecvRequest blockingRecv;

    /**
     * The shared-memory transport of {@code context}, reading its inbox and writing peers' through
     * {@code inboxes} ({@link TransportFactory#SHARED_MEMORY}).
     */
    PointToPointEngine(final RankContext context, final InboxTransport inboxes)
    {
        this.rank = context.rank();
        this.worldSize = context.worldSize();
        this.eagerLimit = context.settings().eagerLimit();
        this.threadSafe = context.isThreadSafe();
        this.transport = inboxes;
        this.progress = context.progress();
        this.completion = progress.completion();
        this.heap = context.heap();
        this.counters = new TrafficCounters(transport.peerCapacity());
        this.outbound = new OutboundQueues(rank, transport.peerCapacity(), transport);
        this.eager = new EagerProtocol(rank, transport, tokens, completion, eagerLimit);
        this.rendezvous = new RendezvousProtocol(rank, transport, tokens, completion, outbound, heap,
            context.crossMemory(), context.job());
        this.wholeLimit = eager.wholeLimit();
        this.outbound.sendPath(s -> s.length > eagerLimit ? rendezvous.announce(s) : eager.advance(s));
        this.matching = new MatchingEngine(new MatchingEngine.Listener()
        {
            @Override
            public void syncMatched(final int source, final long token)
            {
                outbound.control(source, TYPE_ACK, token, 0);
            }

            @Override
            public void rendezvousMatched(
                final RecvRequest request, final int source, final long senderToken, final int flags,
                final long segment, final long segmentOffset)
            {
                rendezvous.matched(request, source, senderToken, flags, segment, segmentOffset);
            }

            @Override
            public void completed(final RecvRequest request)
            {
                counters.received(request.matchedSource, request.messageLength);
                completion.complete(request);
            }
        });
        this.rendezvous.matching(matching);
        progress.register(agent);
        progress.recordWaitsAs(rank);
    }

    private static SendRequest doneSend()
    {
        final SendRequest s = new SendRequest(0, -1, 0, null, 0, 0, SendRequest.MODE_STANDARD, DataLayout.CONTIGUOUS);
        s.state = SendRequest.DONE;
        s.markComplete();
        return s;
    }

    public int rank()
    {
        return rank;
    }

    public int worldSize()
    {
        return worldSize;
    }

    public MatchingEngine matching()
    {
        return matching;
    }

    public long eagerLimit()
    {
        return eagerLimit;
    }

    public boolean isThreadSafe()
    {
        return threadSafe;
    }

    /** Completing requests, for other engines of this rank. */
    public RequestCompletion completion()
    {
        return completion;
    }

    /** Large messages received by a single copy out of a sender's shared heap. */
    public long sharedCopies()
    {
        progress.lock();
        try
        {
            return rendezvous.sharedCopies();
        }
        finally
        {
            progress.unlock();
        }
    }

    /** Large messages received by a single read out of a sender's process (cross-memory attach). */
    public long crossMemoryReads()
    {
        progress.lock();
        try
        {
            return rendezvous.crossMemoryReads();
        }
        finally
        {
            progress.unlock();
        }
    }

    /**
     * Whether this rank offers large messages from direct buffers to be read out of its process,
     * and reads such messages of its peers ({@code shmpi.cma.enabled}, and the kernel allows it).
     */
    public boolean crossMemoryEnabled()
    {
        return rendezvous.crossMemoryEnabled();
    }

    // ------------------------------------------------------------------------------------------
    // Sending

    /**
     * Blocking standard-mode send of {@code length} bytes at {@code base}/{@code offset}
     * (Unsafe addressing) to world rank {@code dest}: returns when the data has left the buffer.
     */
    public void send(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length)
    {
        send(context, dest, tag, base, offset, length, DataLayout.CONTIGUOUS);
    }

    /** Blocking standard-mode send of a message laid out as {@code layout} ({@code length} packed bytes). */
    public void send(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length,
        final DataLayout layout)
    {
        final SendRequest s = isend(context, dest, tag, base, offset, length, SendRequest.MODE_STANDARD, layout);
        if (!s.complete)
        {
            progress.await(s);
        }
    }

    /**
     * Blocking standard-mode send of {@code length} contiguous bytes, inside MPI call {@code call}
     * ({@link BlockedCall}: what the rank's wait record names if it blocks, e.g. a barrier).
     */
    public void send(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length,
        final int call)
    {
        final SendRequest s = isend(context, dest, tag, base, offset, length, SendRequest.MODE_STANDARD,
            DataLayout.CONTIGUOUS);
        if (!s.complete)
        {
            progress.await(s, call);
        }
    }

    /** Starts a send; it may complete at once. The buffer must stay untouched until it completes. */
    public SendRequest isend(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length,
        final int mode)
    {
        return isend(context, dest, tag, base, offset, length, mode, DataLayout.CONTIGUOUS);
    }

    /**
     * Starts a send of {@code length} packed bytes laid out as {@code layout}. A standard-mode
     * message that fits in one frame is written at once and the shared completed request is
     * returned (no allocation); anything else gets a request of its own.
     */
    public SendRequest isend(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length,
        final int mode, final DataLayout layout)
    {
        final SendRequest s;
        progress.lock();
        try
        {
            if (mode == SendRequest.MODE_STANDARD && length <= wholeLimit && !outbound.hasQueuedSends(dest) &&
                eager.tryWhole(context, dest, tag, base, offset, (int)length, layout))
            {
                counters.sent(dest, length);
                return DONE;
            }
            s = new SendRequest(context, dest, tag, base, offset, length, mode, layout);
            start(s);
        }
        finally
        {
            progress.unlock();
        }
        progress.runCallbacks();
        return s;
    }

    private void start(final SendRequest s)
    {
        counters.sent(s.dest, s.length);
        s.sequence = nextSequence++;
        if (outbound.hasQueuedSends(s.dest) || !advance(s))
        {
            outbound.enqueue(s);
        }
    }

    /** Writes the matching part of a send (DATA frames, or the RTS); true when fully written. */
    private boolean advance(final SendRequest s)
    {
        return s.length > eagerLimit ? rendezvous.announce(s) : eager.advance(s);
    }

    // ------------------------------------------------------------------------------------------
    // Receiving

    /**
     * Blocking receive: post, then wait. In single-threaded mode the returned request is reused
     * by the next blocking receive: read what you need from it before calling again.
     */
    public RecvRequest recv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        return recv(context, source, tag, base, offset, capacity, DataLayout.CONTIGUOUS);
    }

    /** Blocking receive into memory laid out as {@code layout} ({@code capacity} packed bytes). */
    public RecvRequest recv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout)
    {
        return recv(context, source, tag, base, offset, capacity, layout, BlockedCall.RECV);
    }

    /**
     * Blocking receive inside MPI call {@code call} ({@link BlockedCall}: what the rank's wait
     * record names if it blocks, e.g. a barrier).
     */
    public RecvRequest recv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout, final int call)
    {
        RecvRequest request;
        if (!threadSafe && (request = blockingRecv) != null && request.complete)
        {
            request.reset(context, source, tag, base, offset, capacity, layout);
        }
        else
        {
            request = new RecvRequest(context, source, tag, base, offset, capacity, layout);
            if (!threadSafe)
            {
                blockingRecv = request;
            }
        }
        post(request);
        if (!request.complete)
        {
            progress.await(request, call);
        }
        return request;
    }

    /** Starts a receive; it may complete at once from the unexpected queue. */
    public RecvRequest irecv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        return irecv(context, source, tag, base, offset, capacity, DataLayout.CONTIGUOUS);
    }

    /** Starts a receive into memory laid out as {@code layout}. */
    public RecvRequest irecv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout)
    {
        final RecvRequest request = new RecvRequest(context, source, tag, base, offset, capacity, layout);
        post(request);
        return request;
    }

    /** Posts a receive without waiting (the matching engine may complete it at once). */
    public void post(final RecvRequest request)
    {
        progress.lock();
        try
        {
            matching.post(request);
        }
        finally
        {
            progress.unlock();
        }
        progress.runCallbacks();
    }

    /** Receives a message taken by {@link #matchedProbe} into the given buffer. */
    public RecvRequest matchedReceive(
        final UnexpectedMessage msg, final Object base, final long offset, final long capacity)
    {
        return matchedReceive(msg, base, offset, capacity, DataLayout.CONTIGUOUS);
    }

    /** Receives a message taken by {@link #matchedProbe} into memory laid out as {@code layout}. */
    public RecvRequest matchedReceive(
        final UnexpectedMessage msg, final Object base, final long offset, final long capacity, final DataLayout layout)
    {
        final RecvRequest request =
            new RecvRequest(msg.context, msg.source, msg.tag, base, offset, capacity, layout);
        progress.lock();
        try
        {
            matching.deliver(request, msg);
        }
        finally
        {
            progress.unlock();
        }
        progress.runCallbacks();
        return request;
    }

    // ------------------------------------------------------------------------------------------
    // Probes

    /** Non-blocking probe: the first matching unexpected message (left queued), or null. */
    public UnexpectedMessage probe(final int context, final int source, final int tag)
    {
        progress.lock();
        try
        {
            progress.progressLocked();
            return matching.probe(context, source, tag);
        }
        finally
        {
            progress.unlock();
            progress.runCallbacks();
        }
    }

    /** Non-blocking matched probe: removes and returns the first matching message, or null. */
    public UnexpectedMessage matchedProbe(final int context, final int source, final int tag)
    {
        progress.lock();
        try
        {
            progress.progressLocked();
            return matching.take(context, source, tag);
        }
        finally
        {
            progress.unlock();
            progress.runCallbacks();
        }
    }

    /** Blocking probe: waits for a matching message and returns it, left queued. */
    public UnexpectedMessage probeBlocking(final int context, final int source, final int tag)
    {
        final UnexpectedMessage[] found = new UnexpectedMessage[1];
        progress.awaitUntil(() -> (found[0] = matching.probe(context, source, tag)) != null,
            BlockedCall.PROBE, BlockedCall.ON_MESSAGE, source, tag, context);
        return found[0];
    }

    /** Blocking matched probe: waits for a matching message, removes and returns it. */
    public UnexpectedMessage matchedProbeBlocking(final int context, final int source, final int tag)
    {
        final UnexpectedMessage[] found = new UnexpectedMessage[1];
        progress.awaitUntil(() -> (found[0] = matching.take(context, source, tag)) != null,
            BlockedCall.MPROBE, BlockedCall.ON_MESSAGE, source, tag, context);
        return found[0];
    }

    // ------------------------------------------------------------------------------------------
    // Completion and waiting

    /**
     * Cancels a request if it can still be: a receive not yet matched, or a send of which nothing
     * has reached the receiver. Returns whether it was cancelled (it is then complete).
     */
    public boolean cancel(final EngineRequest request)
    {
        boolean done = false;
        progress.lock();
        try
        {
            if (request.complete)
            {
                return false;
            }
            if (request instanceof RecvRequest)
            {
                done = matching.cancel((RecvRequest)request);
            }
            else if (request instanceof SendRequest)
            {
                final SendRequest s = (SendRequest)request;
                if (outbound.remove(s))
                {
                    counters.unsent(s.dest, s.length);
                    done = true;
                }
            }
            if (done)
            {
                completion.cancelled(request);
            }
        }
        finally
        {
            progress.unlock();
        }
        progress.runCallbacks();
        return done;
    }

    /** Blocks until {@code request} completes, driving progress and idling between polls. */
    public void await(final EngineRequest request)
    {
        progress.await(request);
    }

    /**
     * Blocks until {@code done} is true, driving progress. {@code done} is evaluated with the
     * engine's state consistent (under the lock in thread-safe mode).
     */
    public void awaitUntil(final java.util.function.BooleanSupplier done)
    {
        progress.awaitUntil(done);
    }

    /** As {@link #await(EngineRequest)}, recorded as MPI call {@code call} ({@link BlockedCall}). */
    public void await(final EngineRequest request, final int call)
    {
        progress.await(request, call);
    }

    /**
     * As {@link #awaitUntil(java.util.function.BooleanSupplier)}, recorded as MPI call
     * {@code call} waiting on {@code on} (may be null).
     */
    public void awaitUntil(final java.util.function.BooleanSupplier done, final int call, final EngineRequest on)
    {
        progress.awaitUntil(done, call, on);
    }

    /** One duty cycle from outside: progress, then run completion callbacks. Returns work done. */
    public int progress()
    {
        return progress.progress();
    }

    /**
     * Wakes every thread waiting in this engine, e.g. because something outside it (a
     * generalized request) completed. Safe from any thread.
     */
    public void wake()
    {
        progress.wake();
    }

    /** Tests a request: one duty cycle if it is not complete yet, then its state. */
    public boolean test(final EngineRequest request)
    {
        if (!request.complete)
        {
            progress.progress();
        }
        return request.complete;
    }

    // ------------------------------------------------------------------------------------------
    // Counters

    /** Messages sent to each world rank (index = rank). A copy. */
    public long[] messagesSent()
    {
        return snapshot(counters.messagesSent);
    }

    public long[] bytesSent()
    {
        return snapshot(counters.bytesSent);
    }

    public long[] messagesReceived()
    {
        return snapshot(counters.messagesReceived);
    }

    public long[] bytesReceived()
    {
        return snapshot(counters.bytesReceived);
    }

    private long[] snapshot(final long[] values)
    {
        progress.lock();
        try
        {
            return values.clone();
        }
        finally
        {
            progress.unlock();
        }
    }

    /**
     * Reads what is left in the inbox (messages nobody received: an erroneous program's, which
     * MPI_Finalize may discard), so that the ring a closed rank leaves is empty, then stops.
     */
    @Override
    public void close()
    {
        for (int i = 0; i < 1_000 && progress.progress() > 0; i++)
        {
            // Until a duty cycle finds nothing (bounded: peers do not send to a finalized rank).
        }
        progress.deregister(agent);
    }

    // ------------------------------------------------------------------------------------------

    /** This engine's duty cycle: read the inbox, continue queued sends, stream fragments. */
    private final class Agent implements ProgressAgent, ControlledMessageHandler
    {
        @Override
        public int doWork()
        {
            int work = transport.read(this, READ_LIMIT);
            if (outbound.isBusy())
            {
                work += outbound.push();
            }
            if (rendezvous.isStreaming())
            {
                work += rendezvous.push();
            }
            return work;
        }

        @Override
        public boolean needsPolling()
        {
            return outbound.isBusy() || rendezvous.isStreaming();
        }

        @Override
        public void describe(final StringBuilder out)
        {
            matching.describe(out);
            tokens.describe(out);
            outbound.describe(out);
        }

        @Override
        public String roleName()
        {
            return "point-to-point";
        }

        @Override
        public Action onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            dispatch(msgTypeId, buffer, index, length);
            return length >= COMMIT_EACH_BYTES ? Action.COMMIT : Action.CONTINUE;
        }

        private void dispatch(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            final AtomicBuffer b = (AtomicBuffer)buffer;
            switch (msgTypeId)
            {
                case TYPE_WHOLE:
                {
                    // Plain loads by address: the ring handed us this record, within bounds.
                    final long frame = b.addressOffset() + index;
                    matching.onWhole(UnsafeApi.getInt(null, frame + WholeFrameDescriptor.CONTEXT_OFFSET),
                        UnsafeApi.getInt(null, frame + WholeFrameDescriptor.SOURCE_OFFSET),
                        UnsafeApi.getInt(null, frame + WholeFrameDescriptor.TAG_OFFSET),
                        frame + WholeFrameDescriptor.HEADER_LENGTH, length - WholeFrameDescriptor.HEADER_LENGTH);
                    break;
                }
                case TYPE_DATA:
                    matching.onData(b, index, length);
                    break;
                case TYPE_RTS:
                    matching.onRts(b, index);
                    break;
                case TYPE_CTS:
                    rendezvous.onCts(b, index);
                    break;
                case TYPE_RDATA:
                    rendezvous.onData(b, index, length);
                    break;
                case TYPE_ACK:
                {
                    final SendRequest s = tokens.takeSend(b.getLong(index + TOKEN_OFFSET), "ACK");
                    s.state = SendRequest.DONE;
                    completion.complete(s);
                    break;
                }
                default:
                    throw new ShmpiException(ErrorClass.ERR_INTERN, "unknown frame type: type=" + msgTypeId);
            }
        }
    }
}
