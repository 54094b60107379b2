package org.shmpi.ring;

import static org.shmpi.ring.FrameDescriptor.*;

import java.util.ArrayDeque;
import java.util.Iterator;

import org.agrona.UnsafeApi;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * MPI message matching for one rank: the posted-receive queue (in posting order) and the
 * unexpected-message queue (in arrival order). A message matches the first posted receive
 * whose (context, source, tag) accepts it; a receive matches the first unexpected message it
 * accepts. Both rules together give MPI's non-overtaking order, because the first frames of one
 * sender's messages arrive in send order. Single-threaded: only the progress-driving thread
 * calls it.
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
         * with {@link FrameDescriptor#FLAG_SHARED}, copy it from the sender's heap segment.
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

    private final Listener listener;
    private final ArrayDeque<RecvRequest> posted = new ArrayDeque<>();
    private final ArrayDeque<UnexpectedMessage> unexpected = new ArrayDeque<>();
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

    /**
     * Posts a receive: it first takes the oldest matching unexpected message, else it waits in
     * the posted queue.
     */
    public void post(final RecvRequest request)
    {
        final UnexpectedMessage msg = take(request.context, request.source, request.tag);
        if (msg != null)
        {
            deliver(request, msg);
            return;
        }
        posted.addLast(request);
    }

    /** The oldest unexpected message matching (context, source, tag), left in the queue; or null. */
    public UnexpectedMessage probe(final int context, final int source, final int tag)
    {
        for (final UnexpectedMessage msg : unexpected)
        {
            if (accepts(context, source, tag, msg))
            {
                return msg;
            }
        }
        return null;
    }

    /** Removes and returns the oldest unexpected message matching (context, source, tag); or null. */
    public UnexpectedMessage take(final int context, final int source, final int tag)
    {
        final Iterator<UnexpectedMessage> it = unexpected.iterator();
        while (it.hasNext())
        {
            final UnexpectedMessage msg = it.next();
            if (accepts(context, source, tag, msg))
            {
                it.remove();
                return msg;
            }
        }
        return null;
    }

    private static boolean accepts(final int context, final int source, final int tag, final UnexpectedMessage msg)
    {
        return msg.context == context && (source == RecvRequest.ANY_SOURCE || source == msg.source) &&
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
        return posted.remove(request);
    }

    /** Number of receives waiting for a message. */
    public int postedCount()
    {
        return posted.size();
    }

    /** Number of messages waiting for a receive. */
    public int unexpectedCount()
    {
        return unexpected.size();
    }

    /** Number of eager messages with fragments still to come. */
    public int inFlightCount()
    {
        return inFlight.size();
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
                unexpected.addLast(msg);
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
            UnsafeApi.copyMemory(null, payloadAddress, msg.data, BYTE_ARRAY_BASE + fragmentOffset, payloadLength);
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
            unexpected.addLast(msg);
        }
    }

    /** Copies a whole message from {@code address} into a matched receive (single copy) and completes it. */
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

    private RecvRequest matchPosted(final int context, final int source, final int tag)
    {
        final Iterator<RecvRequest> it = posted.iterator();
        while (it.hasNext())
        {
            final RecvRequest r = it.next();
            if (r.matches(context, source, tag))
            {
                it.remove();
                return r;
            }
        }
        return null;
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
            UnsafeApi.copyMemory(null, srcAddress, r.base, r.offset + fragmentOffset, n);
        }
        r.received += length;
    }

    private void copyUnexpected(final RecvRequest r, final UnexpectedMessage msg)
    {
        final long n = Math.min(r.capacity, msg.data.length);
        if (n > 0)
        {
            UnsafeApi.copyMemory(msg.data, BYTE_ARRAY_BASE, r.base, r.offset, n);
        }
        r.received = msg.data.length;
        finish(r);
    }
}
