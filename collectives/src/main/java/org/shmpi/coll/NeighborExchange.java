package org.shmpi.coll;

/**
 * The exchange of a neighbourhood collective: this process sends block i of {@code in} to
 * destination i and receives block i of {@code out} from source i, all posted at once. A
 * destination or source of -1 ({@code MPI_PROC_NULL}) is skipped, its block left alone. Two
 * streams between one pair (a periodic dimension of size 1 or 2, repeated graph edges) are kept
 * apart by tag offsets: a message sent with offset k is received by the receive posted with
 * offset k, and messages of one offset match in the order they were posted.
 */
public final class NeighborExchange extends Collective
{
    private final Members m;
    private final int[] destinations;
    private final int[] sendOffsets;
    private final byte[] in;
    private final int[] inOffsets;
    private final int[] inLengths;
    private final int[] sources;
    private final int[] recvOffsets;
    private final byte[] out;
    private final int[] outOffsets;
    private final int[] outLengths;

    public NeighborExchange(final Members m, final int[] destinations, final int[] sendTagOffsets, final byte[] in,
        final int[] inOffsets, final int[] inLengths, final int[] sources, final int[] recvTagOffsets, final byte[] out,
        final int[] outOffsets, final int[] outLengths)
    {
        this.m = m;
        this.destinations = destinations;
        this.sendOffsets = sendTagOffsets;
        this.in = in;
        this.inOffsets = inOffsets;
        this.inLengths = inLengths;
        this.sources = sources;
        this.recvOffsets = recvTagOffsets;
        this.out = out;
        this.outOffsets = outOffsets;
        this.outLengths = outLengths;
    }

    @Override
    public Schedule.Step first()
    {
        return this::exchange;
    }

    private Schedule.Step exchange(final Schedule s)
    {
        for (int i = 0; i < sources.length; i++)
        {
            if (sources[i] >= 0)
            {
                m.recv(s, sources[i], recvOffsets[i], out, outOffsets[i], outLengths[i]);
            }
        }
        for (int i = 0; i < destinations.length; i++)
        {
            if (destinations[i] >= 0)
            {
                m.send(s, destinations[i], sendOffsets[i], in, inOffsets[i], inLengths[i]);
            }
        }
        return this::finish;
    }

    private Schedule.Step finish(final Schedule s)
    {
        return done(s);
    }
}
