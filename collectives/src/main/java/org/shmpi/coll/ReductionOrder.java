package org.shmpi.coll;

/**
 * The one association of a reduction over n contributions that every algorithm of shmpi uses,
 * so that an allreduce or a reduce gives the same bits whichever algorithm ran it, wherever the
 * ranks were placed, and from run to run: the rank-ordered binomial tree. In round
 * {@code mask = 1, 2, 4, ...}, the partial result of ranks {@code [r, r + mask)} (r a multiple of
 * {@code 2 * mask}) is combined with that of {@code [r + mask, r + 2 * mask)} as
 * {@code lower op higher}. The point-to-point {@link Reduce} runs this tree across processes;
 * the shared-memory algorithms evaluate the same tree on contributions they read directly.
 *
 * <p>Evaluation is in place, in the slots holding the contributions: with an op that computes
 * {@code inout = in op inout}, combining two partials writes into the slot of the higher one,
 * so the slot holding a partial result moves up. {@link #fold} reports where the result ends up.
 */
public final class ReductionOrder
{
    /** Combines the partial in slot {@code in} (lower ranks) into slot {@code inout} (higher ranks). */
    @FunctionalInterface
    public interface Combiner
    {
        void combine(int in, int inout);
    }

    private ReductionOrder()
    {
    }

    /**
     * Evaluates the tree over slots {@code 0..n-1}, which hold the contributions of ranks
     * {@code 0..n-1}, calling {@code c} once per combination (n - 1 times), and returns the slot
     * holding the result. It depends on n only ({@link #resultSlot}).
     */
    public static int fold(final int n, final Combiner c)
    {
        // Where the partial of the range starting at r lies: after each round, the slot of its
        // higher half. That is the last slot of the range, clipped to n.
        for (int mask = 1; mask < n; mask <<= 1)
        {
            for (int r = 0; r + mask < n; r += mask << 1)
            {
                c.combine(Math.min(r + mask, n) - 1, Math.min(r + (mask << 1), n) - 1);
            }
        }
        return n - 1;
    }

    /** The slot {@link #fold} leaves the result in: the last one. */
    public static int resultSlot(final int n)
    {
        return n - 1;
    }
}
