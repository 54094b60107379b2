package org.shmpi.coll;

/**
 * Prefix reduction along the ranks: rank r waits for the result of ranks {@code [0, r)} from
 * r - 1, combines it with its own ({@code prefix op mine}, rank order kept) and passes that on to
 * r + 1. Inclusive ({@code MPI_SCAN}): rank r gets the reduction of {@code [0, r]}; exclusive
 * ({@code MPI_EXSCAN}): of {@code [0, r)}, and rank 0 gets nothing ({@code out} untouched).
 * {@code data} holds this process's contribution and is overwritten.
 */
public final class Scan extends Collective
{
    private final Members m;
    private final boolean exclusive;
    private final byte[] mine;
    private final int length;
    private final int items;
    private final Reducer reducer;
    private final byte[] out;
    private final int outOffset;
    private byte[] prefix;

    public Scan(final Members m, final boolean exclusive, final byte[] data, final int length, final int items,
        final Reducer reducer, final byte[] out, final int outOffset)
    {
        this.m = m;
        this.exclusive = exclusive;
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
        return this::receive;
    }

    private Schedule.Step receive(final Schedule s)
    {
        if (m.rank() > 0)
        {
            prefix = new byte[length];
            m.recv(s, m.rank() - 1, prefix, 0, length);
        }
        return this::pass;
    }

    private Schedule.Step pass(final Schedule s)
    {
        if (prefix != null)
        {
            if (exclusive)
            {
                System.arraycopy(prefix, 0, out, outOffset, length);
            }
            reducer.apply(prefix, 0, mine, 0, items);
        }
        if (!exclusive)
        {
            System.arraycopy(mine, 0, out, outOffset, length);
        }
        if (m.rank() < m.size() - 1)
        {
            m.send(s, m.rank() + 1, mine, 0, length);
        }
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
