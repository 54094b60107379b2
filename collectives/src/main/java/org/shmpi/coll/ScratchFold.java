package org.shmpi.coll;

/**
 * Local scratch where n contributions, in rank order, are combined in the one order of
 * {@link ReductionOrder}, in place. Grown as needed, never shrunk; not for concurrent use.
 */
final class ScratchFold
{
    private byte[] acc = new byte[64];
    private Reducer reducer;
    private int bytes;
    private int items;
    private final ReductionOrder.Combiner combine = this::combine;

    /** The scratch, at least {@code need} bytes: contribution r goes at {@code r * bytes}. */
    byte[] scratch(final int need)
    {
        if (acc.length < need)
        {
            acc = new byte[need];
        }
        return acc;
    }

    /**
     * Combines the {@code n} contributions of {@code bytes} bytes ({@code items} items) in
     * {@link #scratch} with {@code reducer}; returns the offset in the scratch of the result.
     */
    int fold(final int n, final int bytes, final int items, final Reducer reducer)
    {
        this.reducer = reducer;
        this.bytes = bytes;
        this.items = items;
        final int result = ReductionOrder.fold(n, combine);
        this.reducer = null;
        return result * bytes;
    }

    private void combine(final int in, final int inout)
    {
        reducer.apply(acc, in * bytes, acc, inout * bytes, items);
    }
}
