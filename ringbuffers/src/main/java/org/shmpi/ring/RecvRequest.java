package org.shmpi.ring;

import org.shmpi.shm.BlockedCall;
import org.shmpi.types.DataLayout;

/**
 * A posted receive as the matching engine sees it: what it matches (context, source, tag, any
 * of which may be a wildcard) and where the data goes ({@code base}/{@code offset} in the
 * {@code Unsafe} addressing sense: an array and a byte offset into it, or {@code null} and an
 * absolute address, laid out as {@code layout} says). Written only by the thread that drives
 * progress. A completed request may be {@linkplain #reset reused} by the engine for the next
 * blocking receive of the same thread.
 */
public final class RecvRequest extends EngineRequest
{
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;

    int context;
    int source;
    int tag;
    Object base;
    long offset;
    /** Packed bytes the destination can hold. */
    long capacity;
    DataLayout layout;

    int matchedSource = -1;
    int matchedTag = -1;
    long messageLength;
    long received;
    boolean truncated;
    /** Rendezvous: the token RDATA frames carry to find this receive. */
    long token;
    /** Links of the posted queue of this request's context (intrusive: no node allocation). */
    RecvRequest prevPosted;
    RecvRequest nextPosted;
    boolean posted;

    public RecvRequest(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        this(context, source, tag, base, offset, capacity, DataLayout.CONTIGUOUS);
    }

    public RecvRequest(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout)
    {
        set(context, source, tag, base, offset, capacity, layout);
    }

    private void set(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout)
    {
        this.context = context;
        this.source = source;
        this.tag = tag;
        this.base = base;
        this.offset = offset;
        this.capacity = capacity;
        this.layout = layout;
    }

    /** Makes a completed request new again, for another receive (engine-internal reuse). */
    void reset(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity,
        final DataLayout layout)
    {
        set(context, source, tag, base, offset, capacity, layout);
        matchedSource = -1;
        matchedTag = -1;
        messageLength = 0;
        received = 0;
        truncated = false;
        token = 0;
        errorClass = 0;
        cancelled = false;
        prevPosted = null;
        nextPosted = null;
        posted = false;
        // Last: a request is incomplete again only once every field above is fresh.
        complete = false;
    }

    boolean matches(final int ctx, final int src, final int tg)
    {
        return ctx == context && (source == ANY_SOURCE || source == src) && (tag == ANY_TAG || tag == tg);
    }

    /** World rank the matched message came from. */
    public int source()
    {
        return matchedSource;
    }

    public int tag()
    {
        return matchedTag;
    }

    /** Length in bytes of the matched message (may exceed what was stored, see truncated). */
    public long messageLength()
    {
        return messageLength;
    }

    /** Bytes stored into the destination. */
    public long storedLength()
    {
        return Math.min(messageLength, capacity);
    }

    public boolean isTruncated()
    {
        return truncated;
    }

    @Override
    int blockedCall()
    {
        return BlockedCall.RECV;
    }

    @Override
    int waitOn()
    {
        return BlockedCall.ON_RECV;
    }

    @Override
    int waitPeer()
    {
        return source;
    }

    @Override
    int waitTag()
    {
        return tag;
    }

    @Override
    int waitContext()
    {
        return context;
    }

    @Override
    long waitBytes()
    {
        return capacity;
    }
}
