package org.shmpi.ring;

import org.agrona.UnsafeApi;

/**
 * Waking a rank that sleeps on its wake word: for any engine of this rank that publishes into
 * shared memory a peer may wait on ({@link ProgressEngine#awaitShared}). The wake words live in
 * the ranks' inboxes; this class only knows how to reach them.
 */
public final class Wakeups
{
    private final int rank;
    private final InboxTransport inboxes;

    Wakeups(final int rank, final InboxTransport inboxes)
    {
        this.rank = rank;
        this.inboxes = inboxes;
    }

    /** Maps world rank {@code rank}'s inbox now (if not yet), so that a later {@link #wakeRank} needs no file. */
    public void prepareWake(final int rank)
    {
        if (rank != this.rank)
        {
            inboxes.peer(rank);
        }
    }

    /**
     * Wakes world rank {@code rank} if it sleeps on its wake word, after the caller published.
     * A full fence and one load when the rank is awake.
     */
    public void wakeRank(final int rank)
    {
        if (rank != this.rank)
        {
            inboxes.peer(rank).wakeWord().wakeIfSleeping();
        }
    }

    /**
     * {@link #wakeRank} for every rank of {@code ranks} but this one, with one full fence for all
     * (the writer's release stores before it, each rank's wake word load after it).
     */
    public void wakeRanks(final int[] ranks)
    {
        wakeRanks(ranks, ranks.length);
    }

    /** {@link #wakeRanks(int[])} for the first {@code count} ranks of {@code ranks}. */
    public void wakeRanks(final int[] ranks, final int count)
    {
        UnsafeApi.fullFence();
        for (int i = 0; i < count; i++)
        {
            final int r = ranks[i];
            if (r != this.rank)
            {
                inboxes.peer(r).wakeWord().wakeIfSleepingAfterFence();
            }
        }
    }
}
