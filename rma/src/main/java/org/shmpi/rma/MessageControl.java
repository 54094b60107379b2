package org.shmpi.rma;

import org.agrona.UnsafeApi;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * A window's synchronisation as messages on the window's own context, for members that cannot
 * map one another's memory (they run on different machines; every member's memory is then
 * served by its {@link WindowService}):
 * <ul>
 * <li>a post is an empty POST_TAG message to each origin, a start receives one from each
 *     target; a complete is an empty COMPLETE_TAG message to each target (after the origin's
 *     operations are flushed there), a wait receives one from each origin. Messages between two
 *     members do not overtake each other, so the n-th post matches the n-th start;</li>
 * <li>a lock is a LOCK request to the target's service, answered by a GRANT_TAG message when the
 *     target grants it (at once, or when the holders before it unlock); an unlock is an UNLOCK
 *     request, after the operations under the lock are flushed at the target;</li>
 * <li>there is no accumulate lock: every accumulate on served memory runs in its owner's thread,
 *     one request at a time.</li>
 * </ul>
 */
final class MessageControl implements WindowControl
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private final RankContext ctx;
    private final int context;
    /** World ranks of the members, by window rank. */
    private final int[] world;
    private final int me;
    private final byte[] empty = new byte[0];
    /** A complete receive posted by {@link #completed} and not yet consumed, by origin. */
    private final RecvRequest[] completes;

    MessageControl(final RankContext ctx, final int context, final int[] world, final int me)
    {
        this.ctx = ctx;
        this.context = context;
        this.world = world;
        this.me = me;
        this.completes = new RecvRequest[world.length];
    }

    @Override
    public void post(final int[] origins, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            ctx.transport().send(context, world[origins[i]], WindowService.POST_TAG, empty, BYTES, 0);
        }
    }

    @Override
    public void awaitPost(final int target)
    {
        check(ctx.transport().recv(context, world[target], WindowService.POST_TAG, empty, BYTES, 0), "start");
    }

    @Override
    public void complete(final int[] targets, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            ctx.transport().send(context, world[targets[i]], WindowService.COMPLETE_TAG, empty, BYTES, 0);
        }
    }

    @Override
    public void awaitComplete(final int origin)
    {
        final RecvRequest posted = completes[origin];
        if (posted == null)
        {
            check(ctx.transport().recv(context, world[origin], WindowService.COMPLETE_TAG, empty, BYTES, 0), "wait");
            return;
        }
        completes[origin] = null;
        if (!posted.isComplete())
        {
            ctx.progress().await(posted, BlockedCall.OTHER);
        }
        check(posted, "wait");
    }

    @Override
    public boolean completed(final int origin)
    {
        if (completes[origin] == null)
        {
            completes[origin] = ctx.transport().irecv(context, world[origin], WindowService.COMPLETE_TAG, empty,
                BYTES, 0);
        }
        return ctx.transport().test(completes[origin]);
    }

    @Override
    public void lock(final int target, final boolean exclusive)
    {
        final RecvRequest grant = ctx.transport().irecv(context, world[target], WindowService.GRANT_TAG, empty,
            BYTES, 0);
        final byte[] h = WindowService.request(WindowService.LOCK, me, exclusive ? 1 : 0, 0, null, 0);
        ctx.transport().send(context, world[target], WindowService.REQUEST_TAG, h, BYTES, h.length);
        if (!grant.isComplete())
        {
            ctx.progress().await(grant, BlockedCall.OTHER);
        }
        check(grant, "lock");
    }

    @Override
    public void unlock(final int target, final boolean exclusive)
    {
        final byte[] h = WindowService.request(WindowService.UNLOCK, me, exclusive ? 1 : 0, 0, null, 0);
        ctx.transport().send(context, world[target], WindowService.REQUEST_TAG, h, BYTES, h.length);
    }

    @Override
    public void lockAccumulates(final int target, final boolean exclusive)
    {
        throw new ShmpiException(ErrorClass.ERR_INTERN, "a window across machines has no accumulate lock: target " +
            target + "'s memory is served by its owner");
    }

    @Override
    public void unlockAccumulates(final int target, final boolean exclusive)
    {
        lockAccumulates(target, exclusive);
    }

    private static void check(final RecvRequest r, final String call)
    {
        if (r.errorClass() != ErrorClass.SUCCESS)
        {
            throw new ShmpiException(r.errorClass(), call + ": the synchronisation message failed");
        }
    }
}
