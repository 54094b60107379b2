package org.shmpi.coll;

import org.shmpi.ring.RankContext;

/**
 * Who takes part in one collective operation and where its messages go: the processes (world
 * ranks, by their rank in the communicator), this process's rank among them, and the context
 * and tag that keep the operation's messages apart from every other's. A collective's messages
 * between one pair of processes are sent in the order the receiver posts for them, so one tag
 * per operation suffices; operations in progress at once on one communicator differ in tag.
 */
public final class Members
{
    final RankContext ctx;
    private final int[] world;
    private final int me;
    private final int context;
    private final int tag;

    public Members(final RankContext ctx, final int[] world, final int me, final int context, final int tag)
    {
        this.ctx = ctx;
        this.world = world;
        this.me = me;
        this.context = context;
        this.tag = tag;
    }

    /** The services of this rank. */
    public RankContext rankContext()
    {
        return ctx;
    }

    public int size()
    {
        return world.length;
    }

    /** The operation's tag. */
    public int tag()
    {
        return tag;
    }

    /** This process's rank among the members. */
    public int rank()
    {
        return me;
    }

    void send(final Schedule s, final int to, final byte[] data, final int offset, final int length)
    {
        s.send(context, world[to], tag, data, offset, length);
    }

    void recv(final Schedule s, final int from, final byte[] into, final int offset, final int length)
    {
        s.recv(context, world[from], tag, into, offset, length);
    }

    /** Largest tag offset an operation may add to its tag (so several streams between one pair stay apart). */
    public static final int MAX_TAG_OFFSET = 1023;

    void send(final Schedule s, final int to, final int tagOffset, final byte[] data, final int offset,
        final int length)
    {
        s.send(context, world[to], tag + tagOffset, data, offset, length);
    }

    void recv(final Schedule s, final int from, final int tagOffset, final byte[] into, final int offset,
        final int length)
    {
        s.recv(context, world[from], tag + tagOffset, into, offset, length);
    }
}
