package org.shmpi.rma;

import java.util.function.BooleanSupplier;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;

/**
 * The members' control blocks in a window segment ({@link WindowDescriptor}), as one member uses
 * them: the shared/exclusive words (LOCK, ACC_LOCK), taken and released by atomic instructions;
 * the single-writer counters POSTS and COMPLETES; and waiting for a word of a block to change,
 * announced in the block's WAITERS count so that a member changing a word wakes the waiters.
 * A post adds one to POSTS[me] in each origin's block, a complete to COMPLETES[me] in each
 * target's, each by a release store, and the signalled member waits for its count to reach the
 * one it expects next. The signals allocate nothing.
 */
final class ControlBlocks implements WindowControl
{
    private final RankContext ctx;
    private final AtomicBuffer control;
    /** World ranks of the members, by window rank: whom a release wakes. */
    private final int[] world;
    private final int me;
    private final int controlStride;
    private final int completesOffset;
    /** World ranks to wake after a post or complete (reused). */
    private final int[] wakeList;
    /** Posts from each target and completes from each origin consumed so far. */
    private final int[] postsSeen;
    private final int[] completesSeen;

    ControlBlocks(final RankContext ctx, final AtomicBuffer control, final int[] world, final int me)
    {
        this.ctx = ctx;
        this.control = control;
        this.world = world;
        this.me = me;
        this.controlStride = WindowDescriptor.controlStride(world.length);
        this.completesOffset = WindowDescriptor.completesOffset(world.length);
        this.wakeList = new int[world.length];
        this.postsSeen = new int[world.length];
        this.completesSeen = new int[world.length];
    }

    @Override
    public void post(final int[] origins, final int count)
    {
        // The release store of each count orders this member's earlier stores to its memory
        // before any origin's access that follows its start.
        for (int i = 0; i < count; i++)
        {
            final int o = origins[i];
            incrementRelease(postsWord(o, me));
            wakeList[i] = world[o];
        }
        ctx.wakeups().wakeRanks(wakeList, count);
    }

    @Override
    public void awaitPost(final int target)
    {
        final int expected = postsSeen[target] + 1;
        awaitCount(me, postsWord(me, target), expected);
        postsSeen[target] = expected;
    }

    @Override
    public void complete(final int[] targets, final int count)
    {
        // The release store of each count orders this member's puts before the target's wait returns.
        for (int i = 0; i < count; i++)
        {
            final int t = targets[i];
            incrementRelease(completesWord(t, me));
            wakeList[i] = world[t];
        }
        ctx.wakeups().wakeRanks(wakeList, count);
    }

    @Override
    public void awaitComplete(final int origin)
    {
        final int expected = completesSeen[origin] + 1;
        awaitCount(me, completesWord(me, origin), expected);
        completesSeen[origin] = expected;
    }

    @Override
    public boolean completed(final int origin)
    {
        return countVolatile(completesWord(me, origin)) - (completesSeen[origin] + 1) >= 0;
    }

    @Override
    public void lock(final int target, final boolean exclusive)
    {
        acquire(target, WindowDescriptor.LOCK_OFFSET, exclusive);
    }

    @Override
    public void unlock(final int target, final boolean exclusive)
    {
        release(target, WindowDescriptor.LOCK_OFFSET, exclusive);
    }

    @Override
    public void lockAccumulates(final int target, final boolean exclusive)
    {
        acquire(target, WindowDescriptor.ACC_LOCK_OFFSET, exclusive);
    }

    @Override
    public void unlockAccumulates(final int target, final boolean exclusive)
    {
        release(target, WindowDescriptor.ACC_LOCK_OFFSET, exclusive);
    }

    private int control(final int rank)
    {
        return (int)WindowDescriptor.controlOffset() + rank * controlStride;
    }

    /** Where POSTS[{@code from}] of member {@code rank}'s block is. */
    private int postsWord(final int rank, final int from)
    {
        return control(rank) + WindowDescriptor.POSTS_OFFSET + 4 * from;
    }

    /** Where COMPLETES[{@code from}] of member {@code rank}'s block is. */
    private int completesWord(final int rank, final int from)
    {
        return control(rank) + completesOffset + 4 * from;
    }

    /**
     * Adds one to the count at {@code word} by a release store; this member is its single writer,
     * so it reads its own last value plainly.
     */
    private void incrementRelease(final int word)
    {
        control.putIntRelease(word, control.getInt(word) + 1);
    }

    /** The count at {@code word}, read volatile (acquire). */
    private int countVolatile(final int word)
    {
        return control.getIntVolatile(word);
    }

    /** Takes the shared/exclusive word at {@code offset} of {@code target}'s block (LOCK or ACC_LOCK). */
    private void acquire(final int target, final int offset, final boolean exclusive)
    {
        final int word = control(target) + offset;
        while (true)
        {
            final long w = control.getLongVolatile(word);
            if (exclusive ? w == 0 : (w & WindowDescriptor.EXCLUSIVE) == 0)
            {
                if (control.compareAndSetLong(word, w, exclusive ? WindowDescriptor.EXCLUSIVE : w + 1))
                {
                    return;
                }
                continue;
            }
            await(target, exclusive ? () -> control.getLongVolatile(word) == 0 :
                () -> (control.getLongVolatile(word) & WindowDescriptor.EXCLUSIVE) == 0);
        }
    }

    /** Releases the word at {@code offset} of {@code target}'s block, taken by {@link #acquire}. */
    private void release(final int target, final int offset, final boolean exclusive)
    {
        final long after = control.getAndAddLong(control(target) + offset,
            exclusive ? -WindowDescriptor.EXCLUSIVE : -1) - (exclusive ? WindowDescriptor.EXCLUSIVE : 1);
        // Waiters wait for the exclusive bit to clear or for the word to reach 0.
        if (exclusive || after == 0)
        {
            wakeWaiters(target);
        }
    }

    /**
     * {@link #await} for the count at {@code word} to reach {@code expected} (wrapping compare),
     * watched without allocating anything until the spin gives up.
     */
    private void awaitCount(final int block, final int word, final int expected)
    {
        for (int i = ctx.progress().sharedSpins(); i >= 0; i--)
        {
            if (control.getIntVolatile(word) - expected >= 0)
            {
                return;
            }
            Thread.onSpinWait();
        }
        await(block, () -> control.getIntVolatile(word) - expected >= 0);
    }

    /**
     * Waits until {@code condition} holds, announced in {@code block}'s waiter count so that a
     * member changing a word of that block wakes the members (the count is raised with a full
     * fence before the condition is read; the changer reads it after its atomic change).
     */
    private void await(final int block, final BooleanSupplier condition)
    {
        // The word usually changes within a cache-line transfer or two: watch it alone first,
        // before the (atomic) announcement, when every rank has a core of its own.
        for (int i = ctx.progress().sharedSpins(); i >= 0; i--)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            Thread.onSpinWait();
        }
        final int waiters = control(block) + WindowDescriptor.WAITERS_OFFSET;
        control.getAndAddInt(waiters, 1);
        try
        {
            if (!condition.getAsBoolean())
            {
                ctx.progress().awaitShared(condition, BlockedCall.OTHER);
            }
        }
        finally
        {
            control.getAndAddInt(waiters, -1);
        }
    }

    private void wakeWaiters(final int block)
    {
        if (control.getIntVolatile(control(block) + WindowDescriptor.WAITERS_OFFSET) > 0)
        {
            ctx.wakeups().wakeRanks(world);
        }
    }
}
