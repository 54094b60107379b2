package org.shmpi.coll;

/**
 * Scatter from {@code root}: rank r receives {@code in[offsets[r], offsets[r] + lengths[r])} of
 * the root into {@code out[outOffset, outOffset + length)}; the root sends all at once and copies
 * its own. {@code in}, {@code offsets} and {@code lengths} matter on the root only.
 */
public final class Scatterv extends Collective
{
    private final Members m;
    private final int root;
    private final byte[] in;
    private final int[] offsets;
    private final int[] lengths;
    private final byte[] out;
    private final int outOffset;
    private final int length;

    public Scatterv(final Members m, final int root, final byte[] in, final int[] offsets, final int[] lengths,
        final byte[] out, final int outOffset, final int length)
    {
        this.m = m;
        this.root = root;
        this.in = in;
        this.offsets = offsets;
        this.lengths = lengths;
        this.out = out;
        this.outOffset = outOffset;
        this.length = length;
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
                    if (out != null)
                    {
                        System.arraycopy(in, offsets[r], out, outOffset, lengths[r]);
                    }
                }
                else
                {
                    m.send(s, r, in, offsets[r], lengths[r]);
                }
            }
        }
        else
        {
            m.recv(s, root, out, outOffset, length);
        }
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
