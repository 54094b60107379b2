package org.shmpi.rma;

import org.agrona.UnsafeApi;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Active-target synchronisation of one member: {@code MPI_Win_fence}, and the post/start/
 * complete/wait epochs (PSCW), signalled through the single-writer POSTS and COMPLETES counters
 * of the control blocks: a post adds one to POSTS[me] in each origin's block, a complete to
 * COMPLETES[me] in each target's, each by a release store, and the signalled member waits for
 * its count to reach the one it expects next. The epoch calls allocate nothing.
 */
final class ActiveTarget
{
    private final RankContext ctx;
    private final WindowMembers members;
    private final int[] world;
    private final int me;
    private final int n;
    private final ControlBlocks control;
    private final Epochs epochs;
    /** This member's messages to served targets; null when no target serves its memory. */
    private final WindowService.Origin origin;
    /** World ranks to wake after a post or complete (reused: the epoch calls allocate nothing). */
    private final int[] wakeList;
    /** Posts from each target and completes from each origin consumed so far. */
    private final int[] postsSeen;
    private final int[] completesSeen;

    ActiveTarget(final RankContext ctx, final WindowMembers members, final int[] world, final ControlBlocks control,
        final Epochs epochs, final WindowService.Origin origin)
    {
        this.ctx = ctx;
        this.members = members;
        this.world = world;
        this.me = members.rank();
        this.n = world.length;
        this.control = control;
        this.epochs = epochs;
        this.origin = origin;
        this.wakeList = new int[n];
        this.postsSeen = new int[n];
        this.completesSeen = new int[n];
    }

    /**
     * {@code MPI_Win_fence}: completes this member's operations (a full fence), then waits for
     * every member, unless {@code MODE_NOPRECEDE} and {@code MODE_NOSUCCEED} say that the fence
     * neither ends nor starts an epoch. An access epoch is open after it unless
     * {@code MODE_NOSUCCEED}.
     */
    void fence(final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOSTORE | ShmWindow.MODE_NOPUT |
            ShmWindow.MODE_NOPRECEDE | ShmWindow.MODE_NOSUCCEED, "fence");
        if (epochs.anyOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "fence inside a " + epochs.describeOpen() + " epoch");
        }
        flushServed();
        UnsafeApi.fullFence();
        final int neither = ShmWindow.MODE_NOPRECEDE | ShmWindow.MODE_NOSUCCEED;
        if ((assertion & neither) != neither)
        {
            members.barrier();
        }
        epochs.fenceEpoch((assertion & ShmWindow.MODE_NOSUCCEED) == 0);
    }

    /**
     * {@code MPI_Win_post}: opens an exposure epoch to the members {@code origins} (window ranks;
     * the array is read, not kept).
     */
    void post(final int[] origins, final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK | ShmWindow.MODE_NOSTORE |
            ShmWindow.MODE_NOPUT, "post");
        if (epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "post while an exposure epoch is open");
        }
        WindowArguments.checkGroup(origins, n);
        epochs.openExposure(origins);
        if ((assertion & ShmWindow.MODE_NOCHECK) != 0)
        {
            return;
        }
        // The release store of each count orders this member's earlier stores to its memory
        // before any origin's access that follows its start.
        for (int i = 0; i < origins.length; i++)
        {
            final int o = origins[i];
            control.incrementRelease(control.postsWord(o, me));
            wakeList[i] = world[o];
        }
        ctx.wakeups().wakeRanks(wakeList, origins.length);
    }

    /** {@code MPI_Win_start}: opens an access epoch to {@code targets}, once each has posted. */
    void start(final int[] targets, final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK, "start");
        if (epochs.accessOpen() || epochs.passiveOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "start inside a " + epochs.describeOpen() + " epoch");
        }
        WindowArguments.checkGroup(targets, n);
        if ((assertion & ShmWindow.MODE_NOCHECK) == 0)
        {
            for (final int t : targets)
            {
                final int expected = postsSeen[t] + 1;
                control.awaitCount(me, control.postsWord(me, t), expected);
                postsSeen[t] = expected;
            }
        }
        epochs.openAccess(targets);
    }

    /** {@code MPI_Win_complete}: ends the access epoch; each target learns it. */
    void complete()
    {
        if (!epochs.accessOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "complete without start");
        }
        epochs.closeAccess();
        flushServed();
        // The release store of each count orders this member's puts before the target's wait returns.
        int count = 0;
        for (int t = 0; t < n; t++)
        {
            if (epochs.inAccessGroup(t))
            {
                control.incrementRelease(control.completesWord(t, me));
                wakeList[count++] = world[t];
            }
        }
        ctx.wakeups().wakeRanks(wakeList, count);
    }

    /** {@code MPI_Win_wait}: ends the exposure epoch once every origin of it has completed. */
    void waitFor()
    {
        if (!epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "wait without post");
        }
        for (int i = 0; i < epochs.exposureCount(); i++)
        {
            final int o = epochs.exposureOrigin(i);
            final int expected = completesSeen[o] + 1;
            control.awaitCount(me, control.completesWord(me, o), expected);
            completesSeen[o] = expected;
        }
        epochs.closeExposure();
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_test}: {@link #waitFor} if every origin has completed, else false at once. */
    boolean test()
    {
        if (!epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "test without post");
        }
        for (int i = 0; i < epochs.exposureCount(); i++)
        {
            final int o = epochs.exposureOrigin(i);
            if (control.countVolatile(control.completesWord(me, o)) - (completesSeen[o] + 1) < 0)
            {
                return false;
            }
        }
        waitFor();
        return true;
    }

    /** Completes this member's operations on served memory of every target there. */
    private void flushServed()
    {
        if (origin != null)
        {
            origin.flush(-1);
        }
    }
}
