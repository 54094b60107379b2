package org.shmpi.ring;

/** A message that arrived before a receive matched it, held in this rank's heap. */
final class UnexpectedMessage
{
    final int context;
    final int source;
    final int tag;
    final byte[] data;
    long received;
    /** A receive that matched this message while its fragments were still arriving. */
    RecvRequest claimedBy;

    UnexpectedMessage(final int context, final int source, final int tag, final byte[] data)
    {
        this.context = context;
        this.source = source;
        this.tag = tag;
        this.data = data;
    }

    boolean isComplete()
    {
        return received == data.length;
    }
}
