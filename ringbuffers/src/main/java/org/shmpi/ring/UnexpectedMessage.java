package org.shmpi.ring;

/**
 * A message that arrived before a receive matched it: an eager message (its data held in this
 * rank's heap) or a rendezvous announcement (no data yet; the sender waits for a CTS).
 */
public final class UnexpectedMessage
{
    final int context;
    final int source;
    final int tag;
    final int flags;
    final long token;
    final long length;
    final boolean rendezvous;
    final byte[] data;
    /**
     * Shared-heap rendezvous: the sender's segment and the offset of the message in it;
     * cross-memory rendezvous: 0 and the message's address in the sender's process.
     */
    long segment;
    long segmentOffset;
    long received;
    /** A receive that matched this message while its fragments were still arriving. */
    RecvRequest claimedBy;

    UnexpectedMessage(
        final int context, final int source, final int tag, final int flags, final long token, final long length,
        final boolean rendezvous, final byte[] data)
    {
        this.context = context;
        this.source = source;
        this.tag = tag;
        this.flags = flags;
        this.token = token;
        this.length = length;
        this.rendezvous = rendezvous;
        this.data = data;
    }

    boolean isComplete()
    {
        return rendezvous || received == data.length;
    }

    /** World rank of the sender. */
    public int source()
    {
        return source;
    }

    public int tag()
    {
        return tag;
    }

    /** Length of the message in bytes. */
    public long length()
    {
        return length;
    }
}
