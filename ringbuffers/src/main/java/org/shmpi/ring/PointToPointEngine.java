package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.collections.Long2ObjectHashMap;
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
 * One rank's point-to-point engine.
 *
 * <p><b>Eager path</b> (messages up to the eager limit): the sender claims space in the
 * receiver's inbox ring, writes a frame header and copies the payload straight from the user's
 * array or buffer into the ring, commits, and wakes the receiver if it sleeps; the receiver's
 * progress loop reads the frame and copies the payload straight into the matched receive buffer
 * (or into a heap copy when no receive is posted yet). Messages larger than one frame go as
 * consecutive fragments.
 *
 * <p><b>Rendezvous path</b> (larger messages): the sender writes an RTS frame; when a receive
 * matches it, the receiver answers CTS, and the sender streams RDATA fragments through the ring,
 * which the receiver copies into the receive buffer as they come (a pipelined copy through the
 * ring as bounce buffer). Large messages are therefore never buffered on the receiver's heap,
 * and a standard send of one blocks only until it is matched and streamed.
 *
 * <p><b>Back-pressure</b>: when a peer's ring is full, the rest of the send waits in a per-peer
 * queue (in order, so messages never overtake) and the progress loop continues it; a rank waiting
 * for ring space keeps draining its own inbox, so two ranks sending to each other cannot deadlock.
 *
 * <p><b>Threads</b>: without {@code threadSafe}, one thread at a time drives the engine (MPI
 * thread levels up to SERIALIZED). With it (THREAD_MULTIPLE) every entry point takes one lock;
 * a thread that waits releases it while idling; one waiting thread at a time sleeps on the inbox
 * futex, the others park and are unparked when requests complete.
 *
 * <p>An engine is an object, not global state: tests run several as threads of one JVM.
 */
public final class PointToPointEngine implements AutoCloseable
{
    /** Default largest message sent eagerly. */
    public static final int EAGER_LIMIT_DEFAULT = 64 * 1024;

    private final JobDirectory directory;
    private final JobFile job;
    private final int rank;
    private final int worldSize;
    private final Futex futex;
    private final Inbox inbox;
    private final Inbox[] peers;
    private final MatchingEngine matching;
    private final MessageHandler handler = this::onFrame;
    /** Made once: the idle loop asks it on every step, and must not allocate. */
    private final BooleanSupplier inboxHasPending;
    private final long abortCheckIntervalNs = 1_000_000;
    private final long eagerLimit;
    private final ReentrantLock lock;
    private final ThreadLocal<BackoffIdler> idlers;
    private volatile Thread futexSleeper;
    private final RequestCompletion completion;
    private final Set<Thread> parked = ConcurrentHashMap.newKeySet();

    private final ArrayDeque<SendRequest>[] peerQueues;
    private final ArrayDeque<Integer> busyPeers = new ArrayDeque<>();
    private final boolean[] peerBusy;
    private final ArrayDeque<long[]>[] controlQueues;
    private final ArrayDeque<SendRequest> streams = new ArrayDeque<>();
    private final Long2ObjectHashMap<SendRequest> sendTokens = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<RecvRequest> recvTokens = new Long2ObjectHashMap<>();
    private final long[] messagesSent;
    private final long[] bytesSent;
    private final long[] messagesReceived;
    private final long[] bytesReceived;
    private final SharedHeap heap;
    private long sharedCopies;
    private int nextSequence;
    private long nextToken = 1;

    /** Creates this rank's inbox (single-threaded engine, default eager limit). */
    public PointToPointEngine(
        final JobDirectory directory, final JobFile job, final int rank, final ShmpiConfig config, final Futex futex)
        throws IOException
    {
        this(directory, job, rank, config, futex, false);
    }

    /** Creates this rank's inbox; peers are mapped on first send to them. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public PointToPointEngine(
        final JobDirectory directory,
        final JobFile job,
        final int rank,
        final ShmpiConfig config,
        final Futex futex,
        final boolean threadSafe) throws IOException
    {
        this.directory = directory;
        this.job = job;
        this.rank = rank;
        this.worldSize = job.worldSize();
        this.futex = futex;
        this.eagerLimit = config.eagerLimit();
        this.lock = threadSafe ? new ReentrantLock() : null;
        this.completion = new RequestCompletion(threadSafe);
        this.idlers = ThreadLocal.withInitial(() -> BackoffIdler.from(config));
        this.inbox = Inbox.create(directory.inboxFile(rank), rank, ProcessHandle.current().pid(),
            job.ringCapacity(), futex);
        this.inboxHasPending = inbox::hasPending;
        this.peers = new Inbox[worldSize];
        this.peers[rank] = inbox;
        this.heap = new SharedHeap(directory, rank);
        this.peerQueues = new ArrayDeque[worldSize];
        this.controlQueues = new ArrayDeque[worldSize];
        this.peerBusy = new boolean[worldSize];
        this.messagesSent = new long[worldSize];
        this.bytesSent = new long[worldSize];
        this.messagesReceived = new long[worldSize];
        this.bytesReceived = new long[worldSize];
        this.matching = new MatchingEngine(new MatchingEngine.Listener()
        {
            @Override
            public void syncMatched(final int source, final long token)
            {
                control(source, TYPE_ACK, token, 0);
            }

            @Override
            public void rendezvousMatched(
                final RecvRequest request, final int source, final long senderToken, final int flags,
                final long segment, final long segmentOffset)
            {
                if ((flags & FLAG_SHARED) != 0)
                {
                    // Single copy: straight from the sender's heap segment into the receive buffer.
                    matching.copyDirect(request, heap.peerAddress(source, segment) + segmentOffset);
                    sharedCopies++;
                    control(source, TYPE_ACK, senderToken, 0);
                    return;
                }
                request.token = nextToken++;
                recvTokens.put(request.token, request);
                control(source, TYPE_CTS, senderToken, request.token);
            }

            @Override
            public void completed(final RecvRequest request)
            {
                messagesReceived[request.matchedSource]++;
                bytesReceived[request.matchedSource] += request.messageLength;
                onCompleted(request);
            }
        });
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
        return lock != null;
    }

    /** This rank's shared-memory heap (buffers peers can copy large messages from directly). */
    public SharedHeap heap()
    {
        return heap;
    }

    /** Large messages received by a single copy out of a sender's shared heap. */
    public long sharedCopies()
    {
        lock();
        try
        {
            return sharedCopies;
        }
        finally
        {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Entry points

    /**
     * Blocking standard-mode send of {@code length} bytes at {@code base}/{@code offset}
     * (Unsafe addressing) to world rank {@code dest}: returns when the data has left the buffer.
     */
    public void send(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length)
    {
        final SendRequest s = isend(context, dest, tag, base, offset, length, SendRequest.MODE_STANDARD);
        if (!s.complete)
        {
            await(s);
        }
    }

    /** Starts a send; it may complete at once. The buffer must stay untouched until it completes. */
    public SendRequest isend(
        final int context,
        final int dest,
        final int tag,
        final Object base,
        final long offset,
        final long length,
        final int mode)
    {
        final SendRequest s = new SendRequest(context, dest, tag, base, offset, length, mode);
        lock();
        try
        {
            start(s);
        }
        finally
        {
            unlock();
        }
        runCallbacks();
        return s;
    }

    /** Blocking receive: post, then wait. */
    public RecvRequest recv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        final RecvRequest request = new RecvRequest(context, source, tag, base, offset, capacity);
        post(request);
        if (!request.complete)
        {
            await(request);
        }
        return request;
    }

    /** Starts a receive; it may complete at once from the unexpected queue. */
    public RecvRequest irecv(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        final RecvRequest request = new RecvRequest(context, source, tag, base, offset, capacity);
        post(request);
        return request;
    }

    /** Posts a receive without waiting (the matching engine may complete it at once). */
    public void post(final RecvRequest request)
    {
        lock();
        try
        {
            matching.post(request);
        }
        finally
        {
            unlock();
        }
        runCallbacks();
    }

    /** Receives a message taken by {@link #matchedProbe} into the given buffer. */
    public RecvRequest matchedReceive(
        final UnexpectedMessage msg, final Object base, final long offset, final long capacity)
    {
        final RecvRequest request = new RecvRequest(msg.context, msg.source, msg.tag, base, offset, capacity);
        lock();
        try
        {
            matching.deliver(request, msg);
        }
        finally
        {
            unlock();
        }
        runCallbacks();
        return request;
    }

    /** Non-blocking probe: the first matching unexpected message (left queued), or null. */
    public UnexpectedMessage probe(final int context, final int source, final int tag)
    {
        lock();
        try
        {
            progressLocked();
            return matching.probe(context, source, tag);
        }
        finally
        {
            unlock();
            runCallbacks();
        }
    }

    /** Non-blocking matched probe: removes and returns the first matching message, or null. */
    public UnexpectedMessage matchedProbe(final int context, final int source, final int tag)
    {
        lock();
        try
        {
            progressLocked();
            return matching.take(context, source, tag);
        }
        finally
        {
            unlock();
            runCallbacks();
        }
    }

    /** Blocking probe: waits for a matching message and returns it, left queued. */
    public UnexpectedMessage probeBlocking(final int context, final int source, final int tag)
    {
        final UnexpectedMessage[] found = new UnexpectedMessage[1];
        awaitUntil(() -> (found[0] = matching.probe(context, source, tag)) != null);
        return found[0];
    }

    /** Blocking matched probe: waits for a matching message, removes and returns it. */
    public UnexpectedMessage matchedProbeBlocking(final int context, final int source, final int tag)
    {
        final UnexpectedMessage[] found = new UnexpectedMessage[1];
        awaitUntil(() -> (found[0] = matching.take(context, source, tag)) != null);
        return found[0];
    }

    /**
     * Cancels a request if it can still be: a receive not yet matched, or a send of which nothing
     * has reached the receiver. Returns whether it was cancelled (it is then complete).
     */
    public boolean cancel(final EngineRequest request)
    {
        boolean done = false;
        lock();
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
                if (s.untouched() && peerQueues[s.dest] != null && peerQueues[s.dest].remove(s))
                {
                    messagesSent[s.dest]--;
                    bytesSent[s.dest] -= s.length;
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
            unlock();
        }
        runCallbacks();
        return done;
    }

    /** Blocks until {@code request} completes, driving progress and idling between polls. */
    public void await(final EngineRequest request)
    {
        awaitUntil(() -> request.complete);
    }

    /**
     * Blocks until {@code done} is true, driving progress. {@code done} is evaluated with the
     * engine's state consistent (under the lock in thread-safe mode).
     */
    public void awaitUntil(final BooleanSupplier done)
    {
        final BackoffIdler idler = idlers.get();
        idler.reset();
        long nextAbortCheck = System.nanoTime() + abortCheckIntervalNs;
        lock();
        try
        {
            while (!done.getAsBoolean())
            {
                if (progressLocked() > 0)
                {
                    idler.reset();
                    if (completion.hasCallbacks())
                    {
                        unlockFully();
                        runCallbacks();
                        lock();
                    }
                    continue;
                }
                if (done.getAsBoolean())
                {
                    break;
                }
                idle(idler);
                final long now = System.nanoTime();
                if (now - nextAbortCheck > 0)
                {
                    checkAborted();
                    nextAbortCheck = now + abortCheckIntervalNs;
                }
            }
        }
        finally
        {
            unlock();
        }
        runCallbacks();
    }

    /** One duty cycle from outside: progress, then run completion callbacks. Returns work done. */
    public int progress()
    {
        final int work;
        lock();
        try
        {
            work = progressLocked();
        }
        finally
        {
            unlock();
        }
        runCallbacks();
        return work;
    }

    /**
     * Wakes every thread waiting in this engine, e.g. because something outside it (a
     * generalized request) completed. Safe from any thread.
     */
    public void wake()
    {
        completion.bump();
        for (final Thread t : parked)
        {
            LockSupport.unpark(t);
        }
        inbox.wakeWord().wakeIfSleeping();
    }

    /** Tests a request: one duty cycle if it is not complete yet, then its state. */
    public boolean test(final EngineRequest request)
    {
        if (!request.complete)
        {
            progress();
        }
        return request.complete;
    }

    /** Messages sent to each world rank (index = rank). A copy. */
    public long[] messagesSent()
    {
        return snapshot(messagesSent);
    }

    public long[] bytesSent()
    {
        return snapshot(bytesSent);
    }

    public long[] messagesReceived()
    {
        return snapshot(messagesReceived);
    }

    public long[] bytesReceived()
    {
        return snapshot(bytesReceived);
    }

    private long[] snapshot(final long[] counters)
    {
        lock();
        try
        {
            return counters.clone();
        }
        finally
        {
            unlock();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Waiting

    private void idle(final BackoffIdler idler)
    {
        final boolean outbound = !busyPeers.isEmpty() || !streams.isEmpty();
        if (lock == null)
        {
            if (outbound)
            {
                idler.idle();
            }
            else
            {
                idler.idle(inbox.wakeWord(), inboxHasPending);
            }
            return;
        }
        final Thread me = Thread.currentThread();
        if (!outbound && futexSleeper == null)
        {
            futexSleeper = me;
            // Never evaluate done() here: it runs outside the lock and may have side effects
            // (a matched probe takes its message). Another thread's progress shows as a new generation.
            final long seen = completion.generation();
            unlockFully();
            try
            {
                idler.idle(inbox.wakeWord(), () -> inbox.hasPending() || completion.generation() != seen);
            }
            finally
            {
                lock.lock();
                futexSleeper = null;
            }
        }
        else
        {
            parked.add(me);
            unlockFully();
            try
            {
                if (outbound)
                {
                    idler.idle();
                }
                else
                {
                    LockSupport.parkNanos(200_000);
                }
            }
            finally
            {
                parked.remove(me);
                lock.lock();
            }
        }
    }

    private void lock()
    {
        if (lock != null)
        {
            lock.lock();
        }
    }

    private void unlock()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }

    /**
     * Releases the lock for idling. Entry points never nest (callbacks run outside the lock), so
     * the hold count here is one.
     */
    private void unlockFully()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }

    private void runCallbacks()
    {
        if (!completion.hasCallbacks() || (lock != null && lock.isHeldByCurrentThread()))
        {
            return;
        }
        completion.runCallbacks();
    }

    private void onCompleted(final EngineRequest r)
    {
        completion.complete(r);
    }

    private void wakeWaiters()
    {
        if (lock == null)
        {
            return;
        }
        for (final Thread t : parked)
        {
            LockSupport.unpark(t);
        }
        if (futexSleeper != null && futexSleeper != Thread.currentThread())
        {
            inbox.wakeWord().wakeIfSleeping();
        }
    }

    private void checkAborted()
    {
        if (job.isAborted())
        {
            throw new JobAbortedException("job aborted: " +
                (job.isAbortPublished() ? job.abortReason() : "(reason pending)"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Progress

    private int progressLocked()
    {
        int work = inbox.ring().read(handler, 64);
        if (!busyPeers.isEmpty())
        {
            work += pushQueues();
        }
        if (!streams.isEmpty())
        {
            work += pushStreams();
        }
        if (completion.takeCompletions() > 0)
        {
            wakeWaiters();
        }
        return work;
    }

    private void onFrame(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final AtomicBuffer b = (AtomicBuffer)buffer;
        switch (msgTypeId)
        {
            case TYPE_DATA:
                matching.onData(b, index, length);
                break;
            case TYPE_RTS:
                matching.onRts(b, index);
                break;
            case TYPE_CTS:
            {
                final SendRequest s = sendTokens.remove(b.getLong(index + TOKEN_OFFSET));
                if (s == null)
                {
                    throw new ShmpiException(ErrorClass.ERR_INTERN, "CTS for an unknown send: token=" +
                        b.getLong(index + TOKEN_OFFSET));
                }
                s.receiverToken = b.getLong(index + PEER_TOKEN_OFFSET);
                s.state = SendRequest.STREAMING;
                s.sent = 0;
                streams.addLast(s);
                break;
            }
            case TYPE_RDATA:
            {
                final long token = b.getLong(index + TOKEN_OFFSET);
                final RecvRequest r = recvTokens.get(token);
                if (r == null)
                {
                    throw new ShmpiException(ErrorClass.ERR_INTERN, "data for an unknown receive: token=" + token);
                }
                if (MatchingEngine.onRendezvousData(r, b.getLong(index + FRAGMENT_OFFSET_OFFSET),
                    b.addressOffset() + index + HEADER_LENGTH, length - HEADER_LENGTH))
                {
                    recvTokens.remove(token);
                    matching.finish(r);
                }
                break;
            }
            case TYPE_ACK:
            {
                final SendRequest s = sendTokens.remove(b.getLong(index + TOKEN_OFFSET));
                if (s == null)
                {
                    throw new ShmpiException(ErrorClass.ERR_INTERN, "ACK for an unknown send: token=" +
                        b.getLong(index + TOKEN_OFFSET));
                }
                completeSend(s);
                break;
            }
            default:
                throw new ShmpiException(ErrorClass.ERR_INTERN, "unknown frame type: type=" + msgTypeId);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Sending

    private void start(final SendRequest s)
    {
        messagesSent[s.dest]++;
        bytesSent[s.dest] += s.length;
        s.sequence = nextSequence++;
        final ArrayDeque<SendRequest> queue = peerQueues[s.dest];
        if (queue != null && !queue.isEmpty())
        {
            queue.addLast(s);
            return;
        }
        if (!advance(s))
        {
            enqueue(s);
        }
    }

    private void enqueue(final SendRequest s)
    {
        ArrayDeque<SendRequest> queue = peerQueues[s.dest];
        if (queue == null)
        {
            queue = new ArrayDeque<>();
            peerQueues[s.dest] = queue;
        }
        queue.addLast(s);
        markBusy(s.dest);
    }

    private void markBusy(final int peer)
    {
        if (!peerBusy[peer])
        {
            peerBusy[peer] = true;
            busyPeers.addLast(peer);
        }
    }

    /**
     * Writes as much of the matching part of a send (DATA frames, or the RTS) as the ring takes.
     * Returns true when that part is fully written.
     */
    private boolean advance(final SendRequest s)
    {
        final Inbox target = peer(s.dest);
        final ManyToOneRingBuffer ring = target.ring();
        if (s.length > eagerLimit)
        {
            if (s.token == 0)
            {
                s.token = nextToken++;
            }
            final int index = ring.tryClaim(TYPE_RTS, HEADER_LENGTH);
            if (index < 0)
            {
                checkClaim(index);
                return false;
            }
            // No SYNC flag on an RTS: its CTS (or ACK) already says the message was matched.
            final SharedHeap.Segment segment = s.base == null ? heap.find(s.offset, s.length) : null;
            if (segment != null)
            {
                writeHeader(ring.buffer(), index, s, s.offset - segment.address, FLAG_SHARED);
                ring.buffer().putLong(index + PEER_TOKEN_OFFSET, segment.id);
                s.state = SendRequest.WAIT_ACK;
            }
            else
            {
                writeHeader(ring.buffer(), index, s, 0, 0);
                s.state = SendRequest.WAIT_CTS;
            }
            sendTokens.put(s.token, s);
            ring.commit(index);
            target.wakeWord().wakeIfSleeping();
            return true;
        }
        final boolean sync = s.mode == SendRequest.MODE_SYNC;
        if (sync && s.token == 0)
        {
            s.token = nextToken++;
            sendTokens.put(s.token, s);
        }
        final int maxPayload = (ring.maxMsgLength() - HEADER_LENGTH) & ~7;
        boolean wrote = false;
        do
        {
            final int chunk = (int)Math.min(maxPayload, s.length - s.sent);
            final int index = ring.tryClaim(TYPE_DATA, HEADER_LENGTH + chunk);
            if (index < 0)
            {
                checkClaim(index);
                if (wrote)
                {
                    target.wakeWord().wakeIfSleeping();
                }
                return false;
            }
            final AtomicBuffer b = ring.buffer();
            writeHeader(b, index, s, s.sent, sync ? FLAG_SYNC : 0);
            if (chunk > 0)
            {
                UnsafeApi.copyMemory(s.base, s.offset + s.sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
            }
            // Release inside commit: publishes the header and payload written above.
            ring.commit(index);
            s.sent += chunk;
            s.state = SendRequest.EAGER_PARTIAL;
            wrote = true;
        }
        while (s.sent < s.length);
        target.wakeWord().wakeIfSleeping();
        if (sync)
        {
            s.state = SendRequest.WAIT_ACK;
        }
        else
        {
            completeSend(s);
        }
        return true;
    }

    private void writeHeader(
        final AtomicBuffer b, final int index, final SendRequest s, final long fragmentOffset, final int flags)
    {
        b.putInt(index + CONTEXT_OFFSET, s.context);
        b.putInt(index + SOURCE_OFFSET, rank);
        b.putInt(index + TAG_OFFSET, s.tag);
        b.putInt(index + FLAGS_OFFSET, flags);
        b.putInt(index + SEQUENCE_OFFSET, s.sequence);
        b.putInt(index + RESERVED_OFFSET, 0);
        b.putLong(index + MESSAGE_LENGTH_OFFSET, s.length);
        b.putLong(index + FRAGMENT_OFFSET_OFFSET, fragmentOffset);
        b.putLong(index + TOKEN_OFFSET, s.token);
        b.putLong(index + PEER_TOKEN_OFFSET, 0);
    }

    private static void checkClaim(final int index)
    {
        if (index != RingBuffer.INSUFFICIENT_CAPACITY)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "ring claim failed: result=" + index);
        }
    }

    private void completeSend(final SendRequest s)
    {
        s.state = SendRequest.DONE;
        onCompleted(s);
    }

    /** Continues queued sends and control frames, peer by peer, in order. */
    private int pushQueues()
    {
        int work = 0;
        final int n = busyPeers.size();
        for (int i = 0; i < n; i++)
        {
            final int peer = busyPeers.pollFirst();
            boolean blocked = false;
            final ArrayDeque<long[]> controls = controlQueues[peer];
            while (controls != null && !controls.isEmpty())
            {
                final long[] c = controls.peekFirst();
                if (!tryControl(peer, (int)c[0], c[1], c[2]))
                {
                    blocked = true;
                    break;
                }
                controls.pollFirst();
                work++;
            }
            final ArrayDeque<SendRequest> queue = peerQueues[peer];
            while (!blocked && queue != null && !queue.isEmpty())
            {
                if (advance(queue.peekFirst()))
                {
                    queue.pollFirst();
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
                peerBusy[peer] = false;
            }
        }
        return work;
    }

    /** Streams rendezvous data: a few fragments per stream per cycle, round robin. */
    private int pushStreams()
    {
        int work = 0;
        final int n = streams.size();
        for (int i = 0; i < n; i++)
        {
            final SendRequest s = streams.pollFirst();
            final Inbox target = peer(s.dest);
            final ManyToOneRingBuffer ring = target.ring();
            final int maxPayload = (ring.maxMsgLength() - HEADER_LENGTH) & ~7;
            int fragments = 0;
            while (s.sent < s.length && fragments < 16)
            {
                final int chunk = (int)Math.min(maxPayload, s.length - s.sent);
                final int index = ring.tryClaim(TYPE_RDATA, HEADER_LENGTH + chunk);
                if (index < 0)
                {
                    checkClaim(index);
                    break;
                }
                final AtomicBuffer b = ring.buffer();
                b.putInt(index + CONTEXT_OFFSET, s.context);
                b.putInt(index + SOURCE_OFFSET, rank);
                b.putInt(index + TAG_OFFSET, s.tag);
                b.putInt(index + FLAGS_OFFSET, 0);
                b.putInt(index + SEQUENCE_OFFSET, s.sequence);
                b.putInt(index + RESERVED_OFFSET, 0);
                b.putLong(index + MESSAGE_LENGTH_OFFSET, s.length);
                b.putLong(index + FRAGMENT_OFFSET_OFFSET, s.sent);
                b.putLong(index + TOKEN_OFFSET, s.receiverToken);
                b.putLong(index + PEER_TOKEN_OFFSET, s.token);
                UnsafeApi.copyMemory(s.base, s.offset + s.sent, null, b.addressOffset() + index + HEADER_LENGTH, chunk);
                // Release inside commit: publishes the header and payload written above.
                ring.commit(index);
                s.sent += chunk;
                fragments++;
            }
            if (fragments > 0)
            {
                target.wakeWord().wakeIfSleeping();
                work += fragments;
            }
            if (s.sent >= s.length)
            {
                completeSend(s);
            }
            else
            {
                streams.addLast(s);
            }
        }
        return work;
    }

    /** Sends a control frame now, or queues it behind the peer's pending control frames. */
    @SuppressWarnings("unchecked")
    private void control(final int peer, final int type, final long token, final long peerToken)
    {
        final ArrayDeque<long[]> queue = controlQueues[peer];
        if ((queue == null || queue.isEmpty()) && tryControl(peer, type, token, peerToken))
        {
            return;
        }
        if (queue == null)
        {
            controlQueues[peer] = new ArrayDeque<>();
        }
        controlQueues[peer].addLast(new long[] {type, token, peerToken});
        markBusy(peer);
    }

    private boolean tryControl(final int peer, final int type, final long token, final long peerToken)
    {
        final Inbox target = peer(peer);
        final ManyToOneRingBuffer ring = target.ring();
        final int index = ring.tryClaim(type, HEADER_LENGTH);
        if (index < 0)
        {
            checkClaim(index);
            return false;
        }
        final AtomicBuffer b = ring.buffer();
        b.setMemory(index, HEADER_LENGTH, (byte)0);
        b.putInt(index + SOURCE_OFFSET, rank);
        b.putLong(index + TOKEN_OFFSET, token);
        b.putLong(index + PEER_TOKEN_OFFSET, peerToken);
        ring.commit(index);
        target.wakeWord().wakeIfSleeping();
        return true;
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
            catch (final IOException | RuntimeException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the inbox of rank " + dest +
                    ": " + ex.getMessage(), ex);
            }
            peers[dest] = p;
        }
        return p;
    }

    @Override
    public void close()
    {
        heap.close();
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
