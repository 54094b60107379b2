package org.shmpi.coll;

/**
 * Ring allgather: every process's block sits at {@code buffer[offsets[r], offsets[r] + lengths[r])}
 * (its own already there); in round k each process passes block {@code me - k} to its right
 * neighbour and takes block {@code me - k - 1} from its left one. n - 1 rounds, each moving
 * every block once; no arithmetic, so every process ends with the same bytes.
 */
public final class Allgatherv extends Collective
{
    private final Members m;
    private final byte[] buffer;
    private final int[] offsets;
    private final int[] lengths;
    private int round;

    public Allgatherv(final Members m, final byte[] buffer, final int[] offsets, final int[] lengths)
    {
        this.m = m;
        this.buffer = buffer;
        this.offsets = offsets;
        this.lengths = lengths;
    }

    @Override
    public Schedule.Step first()
    {
        return this::step;
    }

    private Schedule.Step step(final Schedule s)
    {
        final int n = m.size();
        if (round >= n - 1)
        {
            return done(s);
        }
        final int me = m.rank();
        final int out = (me - round + n) % n;
        final int in = (me - round - 1 + n) % n;
        m.send(s, (me + 1) % n, buffer, offsets[out], lengths[out]);
        m.recv(s, (me - 1 + n) % n, buffer, offsets[in], lengths[in]);
        round++;
        return this::step;
    }
}
