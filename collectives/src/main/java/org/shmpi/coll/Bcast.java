package org.shmpi.coll;

/**
 * Binomial-tree broadcast of {@code buffer[offset, offset + length)} from {@code root}: with ranks
 * renumbered so that the root is 0, a process receives from the one that differs in its lowest
 * set bit, then sends to each {@code r + 2^k} below that bit. Depth ceil(log2 n).
 */
public final class Bcast extends Collective
{
    private final Members m;
    private final int root;
    private final byte[] buffer;
    private final int offset;
    private final int length;

    public Bcast(final Members m, final int root, final byte[] buffer, final int offset, final int length)
    {
        this.m = m;
        this.root = root;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public Schedule.Step first()
    {
        return this::receive;
    }

    private int relative()
    {
        return (m.rank() - root + m.size()) % m.size();
    }

    private Schedule.Step receive(final Schedule s)
    {
        final int vr = relative();
        if (vr != 0)
        {
            final int parent = vr - Integer.lowestOneBit(vr);
            m.recv(s, (parent + root) % m.size(), buffer, offset, length);
        }
        return this::forward;
    }

    private Schedule.Step forward(final Schedule s)
    {
        final int n = m.size();
        final int vr = relative();
        final int limit = vr == 0 ? n : Integer.lowestOneBit(vr);
        for (int step = 1; step < limit && vr + step < n; step <<= 1)
        {
            m.send(s, (vr + step + root) % n, buffer, offset, length);
        }
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
