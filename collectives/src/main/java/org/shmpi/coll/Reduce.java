package org.shmpi.coll;

/**
 * Reduction to {@code root} that applies the op in rank order, so non-commutative ops are right
 * and the result is the same bytes every time: a binomial tree over the real ranks toward rank
 * 0 (in round k, rank r with bit k set sends its partial result, of ranks
 * {@code [r, r + 2^k)}, to {@code r - 2^k}, which computes {@code mine op theirs}), then rank 0
 * sends the result to the root if that is another process. {@code data} is this process's
 * contribution ({@code items} items of {@code length} packed bytes) and is overwritten; the
 * result lands in {@code out[outOffset, ...)} on the root.
 */
public final class Reduce extends Collective
{
    private final Members m;
    private final int root;
    private byte[] mine;
    private byte[] theirs;
    private final int length;
    private final int items;
    private final Reducer reducer;
    private final byte[] out;
    private final int outOffset;
    private int mask = 1;

    public Reduce(final Members m, final int root, final byte[] data, final int length, final int items,
        final Reducer reducer, final byte[] out, final int outOffset)
    {
        this.m = m;
        this.root = root;
        this.mine = data;
        this.length = length;
        this.items = items;
        this.reducer = reducer;
        this.out = out;
        this.outOffset = outOffset;
    }

    @Override
    public Schedule.Step first()
    {
        return this::round;
    }

    private Schedule.Step round(final Schedule s)
    {
        final int n = m.size();
        final int me = m.rank();
        if (mask >= n)
        {
            return toRoot(s);
        }
        if ((me & mask) != 0)
        {
            m.send(s, me - mask, mine, 0, length);
            return this::sent;
        }
        if (me + mask < n)
        {
            if (theirs == null)
            {
                theirs = new byte[length];
            }
            m.recv(s, me + mask, theirs, 0, length);
            return this::combine;
        }
        mask <<= 1;
        return round(s);
    }

    private Schedule.Step combine(final Schedule s)
    {
        // mine covers the lower ranks: theirs = mine op theirs, then theirs is the partial.
        reducer.apply(mine, 0, theirs, 0, items);
        final byte[] t = mine;
        mine = theirs;
        theirs = t;
        mask <<= 1;
        return round(s);
    }

    /** After this process's partial went down the tree: take part in the last hop if it is the root. */
    private Schedule.Step sent(final Schedule s)
    {
        if (m.rank() == root)
        {
            m.recv(s, 0, out, outOffset, length);
            return this::finish;
        }
        return done(s);
    }

    /** Rank 0 holds the result. */
    private Schedule.Step toRoot(final Schedule s)
    {
        if (root == 0)
        {
            System.arraycopy(mine, 0, out, outOffset, length);
            return done(s);
        }
        m.send(s, root, mine, 0, length);
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
