package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.util.ArrayDeque;
import java.util.Iterator;

import org.agrona.UnsafeApi;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;

/**
 * MPI message matching for one rank, keyed by context id: each context (a communicator's
 * point-to-point space, or its collective space) has its own posted-receive queue (in posting
 * order) and unexpected-message queue (in arrival order), so a receive never scans another
 * communicator's traffic and thousands of contexts cost nothing while idle. Within a context a
 * message matches the first posted receive whose (source, tag) accepts it, and a receive matches
 * the first unexpected message it accepts; both rules together give MPI's non-overtaking order,
 * because the first frames of one sender's messages arrive in send order. Single-threaded: only
 * the progress-driving thread calls it.
 *
 * <p>Every copy of message data here goes through the receive's {@link DataLayout}.
 */
public final class MatchingEngine
{
    /** What the engine must do when matching decides something. */
    public interface Listener
    {
        /** A synchronous-mode message from {@code source} was matched: acknowledge {@code token}. */
        void syncMatched(int source, long token);

        /**
         * A rendezvous message was matched by {@code request}: tell the sender to go ahead, or,
         * with {@link FrameDescriptor#FLAG_SHARED}, copy it from the sender's heap segment, or,
         * with {@link FrameDescriptor#FLAG_CMA}, read it out of the sender's process at address
         * {@code segmentOffset}.
         */
        void rendezvousMatched(
            RecvRequest request, int source, long senderToken, int flags, long segment, long segmentOffset);

        /** A receive completed: complete it (through {@link RequestCompletion}). */
        void completed(RecvRequest request);
    }

    private static final int BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final Listener NO_LISTENER = new Listener()
    {
        @Override
        public void syncMatched(final int source, final long token)
        {
        }

        @Override
        public void rendezvousMatched(
            final RecvRequest request, final int source, final long senderToken, final int flags, final long segment,
            final long segmentOffset)
        {
        }

        @Override
        public void completed(final RecvRequest request)
        {
            request.markComplete();
        }
    };

    /** The queues of one context id. */
    private static final class ContextQueues
    {
        RecvRequest postedHead;
        RecvRequest postedTail;
        final ArrayDeque<UnexpectedMessage> unexpected = new ArrayDeque<>();

        boolean isEmpty()
        {
            return postedHead == null && unexpected.isEmpty();
        }
    }

    private final Listener listener;
    private final Int2ObjectHashMap<ContextQueues> contexts = new Int2ObjectHashMap<>();
    /** The context used last: traffic comes in runs on one communicator. */
    private int lastContext = Integer.MIN_VALUE;
    private ContextQueues lastQueues;
    private int postedCount;
    private int unexpectedCount;
    /** Eager messages whose later fragments are still to come, by (source, sequence). */
    private final Long2ObjectHashMap<Object> inFlight = new Long2ObjectHashMap<>();

    /** A matching engine that only matches (tests). */
    public MatchingEngine()
    {
        this(NO_LISTENER);
    }

    public MatchingEngine(final Listener listener)
    {
        this.listener = listener;
    }

    private ContextQueues queues(final int context)
    {
        if (context == lastContext)
        {
            return lastQueues;
        }
        ContextQueues q = contexts.get(context);
        if (q == null)
        {
            q = new ContextQueues();
            contexts.put(context, q);
        }
        lastContext = context;
        lastQueues = q;
        return q;
    }

    /**
     * Forgets the queues of a context that is no longer used (a freed communicator). Fails if
     * receives or messages still wait in it.
     */
    public void releaseContext(final int context)
    {
        final ContextQueues q = contexts.get(context);
        if (q == null)
        {
            return;
        }
        if (!q.isEmpty())
        {
            throw new ShmpiException(ErrorClass.ERR_PENDING, "context still has pending traffic: context=" + context +
                ", unexpected=" + q.unexpected.size() + ", posted=" + (q.postedHead != null));
        }
        contexts.remove(context);
        if (lastContext == context)
        {
            lastContext = Integer.MIN_VALUE;
            lastQueues = null;
        }
    }

    /** Number of contexts with queues (tests, diagnostics). */
    public int contextCount()
    {
        return contexts.size();
    }

    /**
     * Posts a receive: it first takes the oldest matching unexpected message, else it waits in
     * the posted queue of its context.
     */
    public void post(final RecvRequest request)
    {
        final ContextQueues q = queues(request.context);
        if (!q.unexpected.isEmpty())
        {
            final UnexpectedMessage msg = take(q, request.source, request.tag);
            if (msg != null)
            {
                deliver(request, msg);
                return;
            }
        }
        request.posted = true;
        request.nextPosted = null;
        request.prevPosted = q.postedTail;
        if (q.postedTail == null)
        {
            q.postedHead = request;
        }
        else
        {
            q.postedTail.nextPosted = request;
        }
        q.postedTail = request;
        postedCount++;
    }

    /** The oldest unexpected message matching (context, source, tag), left in the queue; or null. */
    public UnexpectedMessage probe(final int context, final int source, final int tag)
    {
        final ContextQueues q = contexts.get(context);
        if (q == null)
        {
            return null;
        }
        for (final UnexpectedMessage msg : q.unexpected)
        {
            if (accepts(source, tag, msg))
            {
                return msg;
            }
        }
        return null;
    }

    /** Removes and returns the oldest unexpected message matching (context, source, tag); or null. */
    public UnexpectedMessage take(final int context, final int source, final int tag)
    {
        final ContextQueues q = contexts.get(context);
        return q == null || q.unexpected.isEmpty() ? null : take(q, source, tag);
    }

    private UnexpectedMessage take(final ContextQueues q, final int source, final int tag)
    {
        final Iterator<UnexpectedMessage> it = q.unexpected.iterator();
        while (it.hasNext())
        {
            final UnexpectedMessage msg = it.next();
            if (accepts(source, tag, msg))
            {
                it.remove();
                unexpectedCount--;
                return msg;
            }
        }
        return null;
    }

    private static boolean accepts(final int source, final int tag, final UnexpectedMessage msg)
    {
        return (source == RecvRequest.ANY_SOURCE || source == msg.source) &&
            (tag == RecvRequest.ANY_TAG || tag == msg.tag);
    }

    /** Hands a message already taken from the unexpected queue to a receive (matched probe). */
    public void deliver(final RecvRequest request, final UnexpectedMessage msg)
    {
        start(request, msg.source, msg.tag, msg.length);
        if ((msg.flags & FLAG_SYNC) != 0)
        {
            listener.syncMatched(msg.source, msg.token);
        }
        if (msg.rendezvous)
        {
            listener.rendezvousMatched(request, msg.source, msg.token, msg.flags, msg.segment, msg.segmentOffset);
            return;
        }
        if (msg.isComplete())
        {
            copyUnexpected(request, msg);
        }
        else
        {
            msg.claimedBy = request;
        }
    }

    /** Removes a receive that has not matched yet; false when it already matched. */
    public boolean cancel(final RecvRequest request)
    {
        if (!request.posted)
        {
            return false;
        }
        unlink(queues(request.context), request);
        return true;
    }

    /** Number of receives waiting for a message. */
    public int postedCount()
    {
        return postedCount;
    }

    /** Number of messages waiting for a receive. */
    public int unexpectedCount()
    {
        return unexpectedCount;
    }

    /**
     * Handles a whole eager message that arrived in one compact frame (no fragments, no
     * acknowledgement): matched now, or kept as unexpected.
     */
    public void onWhole(final int context, final int source, final int tag, final long address, final int length)
    {
        final RecvRequest r = matchPosted(context, source, tag);
        if (r != null)
        {
            start(r, source, tag, length);
            if (length > 0)
            {
                copyIntoRequest(r, 0, address, length);
                finish(r);
            }
            return;
        }
        final UnexpectedMessage msg =
            new UnexpectedMessage(context, source, tag, 0, 0, length, false, new byte[length]);
        DataLayout.CONTIGUOUS.unpack(null, address, length, msg.data, BYTE_ARRAY_BASE, 0);
        msg.received = length;
        addUnexpected(msg);
    }

    /** Handles one DATA frame read from this rank's inbox. */
    public void onData(final AtomicBuffer buffer, final int index, final int length)
    {
        final int context = buffer.getInt(index + CONTEXT_OFFSET);
        final int source = buffer.getInt(index + SOURCE_OFFSET);
        final int tag = buffer.getInt(index + TAG_OFFSET);
        final int flags = buffer.getInt(index + FLAGS_OFFSET);
        final int sequence = buffer.getInt(index + SEQUENCE_OFFSET);
        final long messageLength = buffer.getLong(index + MESSAGE_LENGTH_OFFSET);
        final long fragmentOffset = buffer.getLong(index + FRAGMENT_OFFSET_OFFSET);
        final int payloadLength = length - HEADER_LENGTH;
        final long payloadAddress = buffer.addressOffset() + index + HEADER_LENGTH;
        final long key = ((long)source << 32) | (sequence & 0xFFFF_FFFFL);

        final Object target;
        if (fragmentOffset == 0)
        {
            final long token = buffer.getLong(index + TOKEN_OFFSET);
            final RecvRequest r = matchPosted(context, source, tag);
            if (r != null)
            {
                start(r, source, tag, messageLength);
                if ((flags & FLAG_SYNC) != 0)
                {
                    listener.syncMatched(source, token);
                }
                target = r;
            }
            else
            {
                if (messageLength > Integer.MAX_VALUE - 16)
                {
                    throw new ShmpiException(ErrorClass.ERR_NO_MEM,
                        "eager message too large to buffer: length=" + messageLength + ", source=" + source);
                }
                final UnexpectedMessage msg = new UnexpectedMessage(context, source, tag, flags, token, messageLength,
                    false, new byte[(int)messageLength]);
                addUnexpected(msg);
                target = msg;
            }
            if (payloadLength < messageLength)
            {
                inFlight.put(key, target);
            }
        }
        else
        {
            target = inFlight.get(key);
            if (target == null)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "fragment of an unknown message: source=" + source +
                    ", sequence=" + sequence + ", offset=" + fragmentOffset);
            }
        }

        final boolean last = fragmentOffset + payloadLength >= messageLength;
        if (last && fragmentOffset != 0)
        {
            inFlight.remove(key);
        }

        if (target instanceof RecvRequest)
        {
            final RecvRequest r = (RecvRequest)target;
            copyIntoRequest(r, fragmentOffset, payloadAddress, payloadLength);
            if (last)
            {
                finish(r);
            }
        }
        else
        {
            final UnexpectedMessage msg = (UnexpectedMessage)target;
            DataLayout.CONTIGUOUS.unpack(null, payloadAddress, payloadLength, msg.data, BYTE_ARRAY_BASE,
                fragmentOffset);
            msg.received += payloadLength;
            if (last && msg.claimedBy != null)
            {
                copyUnexpected(msg.claimedBy, msg);
            }
        }
    }

    /** Handles an RTS frame: matched now, or kept as an unexpected rendezvous announcement. */
    public void onRts(final AtomicBuffer buffer, final int index)
    {
        final int context = buffer.getInt(index + CONTEXT_OFFSET);
        final int source = buffer.getInt(index + SOURCE_OFFSET);
        final int tag = buffer.getInt(index + TAG_OFFSET);
        final int flags = buffer.getInt(index + FLAGS_OFFSET);
        final long messageLength = buffer.getLong(index + MESSAGE_LENGTH_OFFSET);
        final long token = buffer.getLong(index + TOKEN_OFFSET);
        final long segment = buffer.getLong(index + PEER_TOKEN_OFFSET);
        final long segmentOffset = buffer.getLong(index + FRAGMENT_OFFSET_OFFSET);
        final RecvRequest r = matchPosted(context, source, tag);
        if (r != null)
        {
            start(r, source, tag, messageLength);
            listener.rendezvousMatched(r, source, token, flags, segment, segmentOffset);
        }
        else
        {
            final UnexpectedMessage msg =
                new UnexpectedMessage(context, source, tag, flags, token, messageLength, true, null);
            msg.segment = segment;
            msg.segmentOffset = segmentOffset;
            addUnexpected(msg);
        }
    }

    /**
     * Copies a whole message from {@code address} (contiguous) into a matched receive (single copy)
     * and completes it.
     */
    public void copyDirect(final RecvRequest r, final long address)
    {
        copyIntoRequest(r, 0, address, r.messageLength);
        finish(r);
    }

    /** Handles an RDATA fragment for a matched rendezvous receive. */
    public static boolean onRendezvousData(
        final RecvRequest r, final long fragmentOffset, final long payloadAddress, final int payloadLength)
    {
        copyIntoRequest(r, fragmentOffset, payloadAddress, payloadLength);
        return r.received >= r.messageLength;
    }

    private void addUnexpected(final UnexpectedMessage msg)
    {
        queues(msg.context).unexpected.addLast(msg);
        unexpectedCount++;
    }

    private RecvRequest matchPosted(final int context, final int source, final int tag)
    {
        if (postedCount == 0)
        {
            return null;
        }
        final ContextQueues q = queues(context);
        for (RecvRequest r = q.postedHead; r != null; r = r.nextPosted)
        {
            if ((r.source == RecvRequest.ANY_SOURCE || r.source == source) &&
                (r.tag == RecvRequest.ANY_TAG || r.tag == tag))
            {
                unlink(q, r);
                return r;
            }
        }
        return null;
    }

    private void unlink(final ContextQueues q, final RecvRequest r)
    {
        final RecvRequest prev = r.prevPosted;
        final RecvRequest next = r.nextPosted;
        if (prev == null)
        {
            q.postedHead = next;
        }
        else
        {
            prev.nextPosted = next;
        }
        if (next == null)
        {
            q.postedTail = prev;
        }
        else
        {
            next.prevPosted = prev;
        }
        r.prevPosted = null;
        r.nextPosted = null;
        r.posted = false;
        postedCount--;
    }

    private void start(final RecvRequest r, final int source, final int tag, final long messageLength)
    {
        r.matchedSource = source;
        r.matchedTag = tag;
        r.messageLength = messageLength;
        r.truncated = messageLength > r.capacity;
        if (r.truncated)
        {
            r.errorClass = ErrorClass.ERR_TRUNCATE;
        }
        if (messageLength == 0)
        {
            finish(r);
        }
    }

    void finish(final RecvRequest r)
    {
        if (!r.complete)
        {
            listener.completed(r);
        }
    }

    private static void copyIntoRequest(
        final RecvRequest r, final long fragmentOffset, final long srcAddress, final long length)
    {
        // Never write past the receive buffer: a truncated message keeps only what fits.
        final long room = r.capacity - fragmentOffset;
        final long n = Math.min(room, length);
        if (n > 0)
        {
            r.layout.unpack(null, srcAddress, n, r.base, r.offset, fragmentOffset);
        }
        r.received += length;
    }

    private void copyUnexpected(final RecvRequest r, final UnexpectedMessage msg)
    {
        final long n = Math.min(r.capacity, msg.data.length);
        if (n > 0)
        {
            r.layout.unpack(msg.data, BYTE_ARRAY_BASE, n, r.base, r.offset, 0);
        }
        r.received = msg.data.length;
        finish(r);
    }

    /**
     * Appends, per context, the posted receives and the unexpected messages by peer (status
     * reports; never called on the message path). Contexts with nothing queued are left out.
     */
    void describe(final StringBuilder out)
    {
        final java.util.TreeMap<Integer, ContextQueues> sorted = new java.util.TreeMap<>();
        contexts.forEach(sorted::put);
        boolean any = false;
        for (final java.util.Map.Entry<Integer, ContextQueues> e : sorted.entrySet())
        {
            final ContextQueues q = e.getValue();
            if (q.postedHead != null)
            {
                final PeerSummary posted = new PeerSummary();
                for (RecvRequest r = q.postedHead; r != null; r = r.nextPosted)
                {
                    posted.add(r.source, r.tag, r.capacity);
                }
                posted.appendTo(out, "posted receives, context " + e.getKey(), "from");
                any = true;
            }
            if (!q.unexpected.isEmpty())
            {
                final PeerSummary unexpected = new PeerSummary();
                for (final UnexpectedMessage m : q.unexpected)
                {
                    unexpected.add(m.source, m.tag, m.length);
                }
                unexpected.appendTo(out, "unexpected messages, context " + e.getKey(), "from");
                any = true;
            }
        }
        if (!any)
        {
            out.append("posted receives: none; unexpected messages: none\n");
        }
    }
}
