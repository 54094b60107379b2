package org.shmpi.coll;

/**
 * All-to-all: this process sends {@code in[sendOffsets[r], + sendLengths[r])} to each rank r and
 * receives rank r's block at {@code out[recvOffsets[r], + recvLengths[r])}; all transfers are
 * posted at once, its own block copied.
 */
public final class Alltoallv extends Collective
{
    private final Members m;
    private final byte[] in;
    private final int[] sendOffsets;
    private final int[] sendLengths;
    private final byte[] out;
    private final int[] recvOffsets;
    private final int[] recvLengths;

    public Alltoallv(final Members m, final byte[] in, final int[] sendOffsets, final int[] sendLengths,
        final byte[] out, final int[] recvOffsets, final int[] recvLengths)
    {
        this.m = m;
        this.in = in;
        this.sendOffsets = sendOffsets;
        this.sendLengths = sendLengths;
        this.out = out;
        this.recvOffsets = recvOffsets;
        this.recvLengths = recvLengths;
    }

    @Override
    public Schedule.Step first()
    {
        return this::exchange;
    }

    private Schedule.Step exchange(final Schedule s)
    {
        final int n = m.size();
        final int me = m.rank();
        // Receives first, then sends starting with the right neighbour, so no process is everyone's first target.
        for (int k = 1; k < n; k++)
        {
            final int from = (me - k + n) % n;
            m.recv(s, from, out, recvOffsets[from], recvLengths[from]);
        }
        for (int k = 1; k < n; k++)
        {
            final int to = (me + k) % n;
            m.send(s, to, in, sendOffsets[to], sendLengths[to]);
        }
        System.arraycopy(in, sendOffsets[me], out, recvOffsets[me], Math.min(sendLengths[me], recvLengths[me]));
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
