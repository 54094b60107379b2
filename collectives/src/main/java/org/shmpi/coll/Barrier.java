package org.shmpi.coll;

/**
 * Dissemination barrier: in round k every process signals rank {@code me + 2^k} and waits for
 * {@code me - 2^k} (mod n), so after ceil(log2 n) rounds each has heard, through some chain,
 * from every other. The sources of one process's rounds are distinct, so one tag serves them all.
 */
public final class Barrier extends Collective
{
    private static final byte[] NONE = new byte[0];

    private final Members m;
    private int distance = 1;

    public Barrier(final Members m)
    {
        this.m = m;
    }

    @Override
    public Schedule.Step first()
    {
        return this::round;
    }

    private Schedule.Step round(final Schedule s)
    {
        final int n = m.size();
        if (distance >= n)
        {
            return done(s);
        }
        m.send(s, (m.rank() + distance) % n, NONE, 0, 0);
        m.recv(s, (m.rank() - distance + n) % n, NONE, 0, 0);
        distance <<= 1;
        return this::round;
    }
}
