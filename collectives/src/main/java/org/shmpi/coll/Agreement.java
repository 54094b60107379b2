package org.shmpi.coll;

import java.util.function.IntUnaryOperator;

import org.shmpi.shm.BlockedCall;

/**
 * Agreement among the members on one int: every member passes its value and gets the largest
 * of all (a point-to-point reduce to member 0 in {@link ReductionOrder}, then a broadcast). The
 * shared-memory collectives set up their segments with it, so that when one member cannot
 * (the segment cannot be made or mapped) all of them know and fall back together.
 */
public final class Agreement
{
    private static final Reducer MAX = (in, io, inout, ioo, items) ->
    {
        final int a = getInt(in, io);
        final int b = getInt(inout, ioo);
        putInt(inout, ioo, Math.max(a, b));
    };

    private Agreement()
    {
    }

    /**
     * The largest of the members' values, as a blocking collective on {@code members} (called alike on every
     * member).
     */
    public static IntUnaryOperator maxOf(final java.util.function.Supplier<Members> members)
    {
        return value ->
        {
            final Members m = members.get();
            final byte[] mine = new byte[4];
            putInt(mine, 0, value);
            final byte[] out = new byte[4];
            new Reduce(m, 0, mine, 4, 1, MAX, out, 0).then(new Bcast(m, 0, out, 0, 4))
                .schedule(m, "agreement").runToCompletion(BlockedCall.BARRIER);
            return getInt(out, 0);
        };
    }

    private static int getInt(final byte[] b, final int at)
    {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | b[at + 3] << 24;
    }

    private static void putInt(final byte[] b, final int at, final int v)
    {
        b[at] = (byte)v;
        b[at + 1] = (byte)(v >> 8);
        b[at + 2] = (byte)(v >> 16);
        b[at + 3] = (byte)(v >> 24);
    }
}
