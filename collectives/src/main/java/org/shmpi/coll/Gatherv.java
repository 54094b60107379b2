package org.shmpi.coll;

/**
 * Gather to {@code root}: each process sends its {@code data[0, length)}; the root receives rank
 * r's bytes at {@code out[offsets[r], offsets[r] + lengths[r])} (its own copied), all posted at
 * once. {@code out}, {@code offsets} and {@code lengths} matter on the root only.
 */
public final class Gatherv extends Collective
{
    private final Members m;
    private final int root;
    private final byte[] data;
    private final int length;
    private final byte[] out;
    private final int[] offsets;
    private final int[] lengths;

    public Gatherv(final Members m, final int root, final byte[] data, final int length, final byte[] out,
        final int[] offsets, final int[] lengths)
    {
        this.m = m;
        this.root = root;
        this.data = data;
        this.length = length;
        this.out = out;
        this.offsets = offsets;
        this.lengths = lengths;
    }

    @Override
    public Schedule.Step first()
    {
        return this::exchange;
    }

    private Schedule.Step exchange(final Schedule s)
    {
        if (m.rank() == root)
        {
            for (int r = 0; r < m.size(); r++)
            {
                if (r == root)
                {
                    System.arraycopy(data, 0, out, offsets[r], lengths[r]);
                }
                else
                {
                    m.recv(s, r, out, offsets[r], lengths[r]);
                }
            }
        }
        else
        {
            m.send(s, root, data, 0, length);
        }
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
