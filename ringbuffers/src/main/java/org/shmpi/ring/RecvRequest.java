package org.shmpi.ring;

/**
 * A posted receive as the matching engine sees it: what it matches (context, source, tag, any
 * of which may be a wildcard) and where the data goes ({@code base}/{@code offset} in the
 * {@code Unsafe} addressing sense: an array and a byte offset into it, or {@code null} and an
 * absolute address). Written only by the thread that drives progress.
 */
public final class RecvRequest extends EngineRequest
{
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;

    final int context;
    final int source;
    final int tag;
    final Object base;
    final long offset;
    final long capacity;

    int matchedSource = -1;
    int matchedTag = -1;
    long messageLength;
    long received;
    boolean truncated;
    /** Rendezvous: the token RDATA frames carry to find this receive. */
    long token;

    public RecvRequest(
        final int context, final int source, final int tag, final Object base, final long offset, final long capacity)
    {
        this.context = context;
        this.source = source;
        this.tag = tag;
        this.base = base;
        this.offset = offset;
        this.capacity = capacity;
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
}
