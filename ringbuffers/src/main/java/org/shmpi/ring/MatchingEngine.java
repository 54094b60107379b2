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
 * accepts. Both rules together give MPI's non-overtaking order, because frames of one sender
 * arrive in send order. Single-threaded: only the progress-driving thread calls it.
 */
public final class MatchingEngine
{
    private static final int BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    private final ArrayDeque<RecvRequest> posted = new ArrayDeque<>();
    private final ArrayDeque<UnexpectedMessage> unexpected = new ArrayDeque<>();
    /** Messages whose later fragments are still to come, by (source, sequence). */
    private final Long2ObjectHashMap<Object> inFlight = new Long2ObjectHashMap<>();

    /**
     * Posts a receive: it first takes the oldest matching unexpected message, else it waits in
     * the posted queue.
     */
    public void post(final RecvRequest request)
    {
        final Iterator<UnexpectedMessage> it = unexpected.iterator();
        while (it.hasNext())
        {
            final UnexpectedMessage msg = it.next();
            if (request.matches(msg.context, msg.source, msg.tag))
            {
                it.remove();
                start(request, msg.source, msg.tag, msg.data.length);
                if (msg.isComplete())
                {
                    deliverUnexpected(request, msg);
                }
                else
                {
                    msg.claimedBy = request;
                }
                return;
            }
        }
        posted.addLast(request);
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

    /** Handles one DATA frame read from this rank's inbox. */
    public void onData(final AtomicBuffer buffer, final int index, final int length)
    {
        final int context = buffer.getInt(index + CONTEXT_OFFSET);
        final int source = buffer.getInt(index + SOURCE_OFFSET);
        final int tag = buffer.getInt(index + TAG_OFFSET);
        final int sequence = buffer.getInt(index + SEQUENCE_OFFSET);
        final long messageLength = buffer.getLong(index + MESSAGE_LENGTH_OFFSET);
        final long fragmentOffset = buffer.getLong(index + FRAGMENT_OFFSET_OFFSET);
        final int payloadLength = length - HEADER_LENGTH;
        final long payloadAddress = buffer.addressOffset() + index + HEADER_LENGTH;
        final long key = ((long)source << 32) | (sequence & 0xFFFF_FFFFL);

        final Object target;
        if (fragmentOffset == 0)
        {
            target = match(context, source, tag, messageLength);
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
                r.complete = true;
            }
        }
        else
        {
            final UnexpectedMessage msg = (UnexpectedMessage)target;
            UnsafeApi.copyMemory(null, payloadAddress, msg.data, BYTE_ARRAY_BASE + fragmentOffset, payloadLength);
            msg.received += payloadLength;
            if (last && msg.claimedBy != null)
            {
                deliverUnexpected(msg.claimedBy, msg);
            }
        }
    }

    private Object match(final int context, final int source, final int tag, final long messageLength)
    {
        final Iterator<RecvRequest> it = posted.iterator();
        while (it.hasNext())
        {
            final RecvRequest r = it.next();
            if (r.matches(context, source, tag))
            {
                it.remove();
                start(r, source, tag, messageLength);
                return r;
            }
        }
        if (messageLength > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_NO_MEM,
                "unexpected message too large to buffer: length=" + messageLength + ", source=" + source);
        }
        final UnexpectedMessage msg = new UnexpectedMessage(context, source, tag, new byte[(int)messageLength]);
        unexpected.addLast(msg);
        return msg;
    }

    private static void start(final RecvRequest r, final int source, final int tag, final long messageLength)
    {
        r.matchedSource = source;
        r.matchedTag = tag;
        r.messageLength = messageLength;
        r.truncated = messageLength > r.capacity;
        if (messageLength == 0)
        {
            r.complete = true;
        }
    }

    private static void copyIntoRequest(
        final RecvRequest r, final long fragmentOffset, final long srcAddress, final int length)
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

    private static void deliverUnexpected(final RecvRequest r, final UnexpectedMessage msg)
    {
        final long n = Math.min(r.capacity, msg.data.length);
        if (n > 0)
        {
            UnsafeApi.copyMemory(msg.data, BYTE_ARRAY_BASE, r.base, r.offset, n);
        }
        r.received = msg.data.length;
        r.complete = true;
    }
}
