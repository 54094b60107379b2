package org.shmpi.rma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmpi.coll.Allgatherv;
import org.shmpi.coll.Barrier;
import org.shmpi.coll.Members;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;

/**
 * {@link WindowMembers} over point-to-point schedules on context {@code context}; window messages
 * on {@code context + 1}.
 */
public final class ScheduleMembers implements WindowMembers
{
    private final Members members;
    private final int[] world;
    private final int context;

    public ScheduleMembers(final RankContext ctx, final int[] world, final int me, final int context)
    {
        this.world = world.clone();
        this.members = new Members(ctx, this.world, me, context, 1);
        this.context = context + 1;
    }

    /** The context after the schedules' one. */
    @Override
    public int context()
    {
        return context;
    }

    @Override
    public int[] world()
    {
        return world.clone();
    }

    @Override
    public int rank()
    {
        return members.rank();
    }

    @Override
    public void barrier()
    {
        new Barrier(members).schedule(members, "window barrier").runToCompletion(BlockedCall.BARRIER);
    }

    @Override
    public long[] allgather(final long[] mine)
    {
        final int n = world.length;
        final int block = 8 * mine.length;
        final byte[] buffer = new byte[n * block];
        final ByteBuffer b = ByteBuffer.wrap(buffer).order(ByteOrder.nativeOrder());
        for (int i = 0; i < mine.length; i++)
        {
            b.putLong(rank() * block + 8 * i, mine[i]);
        }
        final int[] offsets = new int[n];
        final int[] lengths = new int[n];
        for (int r = 0; r < n; r++)
        {
            offsets[r] = r * block;
            lengths[r] = block;
        }
        new Allgatherv(members, buffer, offsets, lengths).schedule(members, "window allgather")
            .runToCompletion(BlockedCall.OTHER);
        final long[] all = new long[n * mine.length];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = b.getLong(8 * i);
        }
        return all;
    }
}
