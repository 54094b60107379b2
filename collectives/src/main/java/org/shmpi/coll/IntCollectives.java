package org.shmpi.coll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.shmpi.ring.RankContext;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Small collectives on int lists, for building communicators (context-id agreement, split,
 * topology constructors, locality): {@link Allgatherv} and {@link Bcast} schedules of the
 * collective engine over the ints' bytes, run to completion. The caller's {@link Members} carry
 * a tag reserved for these, apart from the tags of user-visible collectives.
 */
public final class IntCollectives
{
    private IntCollectives()
    {
    }

    /** Every member's {@code mine} (all of one length), in rank order, on every member. */
    public static int[] allgather(final Members m, final int[] mine, final int call)
    {
        final int n = m.size();
        final int block = 4 * mine.length;
        final byte[] all = new byte[Math.multiplyExact(block, n)];
        final int[] offsets = new int[n];
        final int[] lengths = new int[n];
        for (int r = 0; r < n; r++)
        {
            offsets[r] = r * block;
            lengths[r] = block;
        }
        ints(all).position(m.rank() * mine.length).put(mine);
        new Allgatherv(m, all, offsets, lengths).schedule(m, "allgather of ints").runToCompletion(call);
        final int[] out = new int[mine.length * n];
        ints(all).get(out);
        return out;
    }

    /** Every member's {@code mine}, of any length (zero too), on every member, indexed by rank. */
    public static int[][] allgatherv(final Members m, final int[] mine, final int call)
    {
        final int n = m.size();
        final int[] counts = allgather(m, new int[] {mine.length}, call);
        final int[] offsets = new int[n];
        final int[] lengths = new int[n];
        long total = 0;
        for (int r = 0; r < n; r++)
        {
            offsets[r] = (int)Math.min(Integer.MAX_VALUE, 4 * total);
            lengths[r] = 4 * counts[r];
            total += counts[r];
        }
        if (4 * total > Integer.MAX_VALUE - 8)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "allgatherv of ints: too many ints in all: total=" + total);
        }
        final byte[] all = new byte[(int)(4 * total)];
        ints(all).position(offsets[m.rank()] / 4).put(mine);
        new Allgatherv(m, all, offsets, lengths).schedule(m, "allgatherv of ints").runToCompletion(call);
        final int[][] out = new int[n][];
        final java.nio.IntBuffer view = ints(all);
        for (int r = 0; r < n; r++)
        {
            out[r] = new int[counts[r]];
            view.get(out[r]);
        }
        return out;
    }

    /** {@code data} of member {@code root} (any length; ignored elsewhere), on every member. */
    public static int[] bcast(final Members m, final int root, final int[] data, final int call)
    {
        final byte[] length = new byte[4];
        if (m.rank() == root)
        {
            ints(length).put(data.length);
        }
        new Bcast(m, root, length, 0, 4).schedule(m, "broadcast of an int count").runToCompletion(call);
        final int count = ints(length).get();
        final byte[] all = new byte[Math.multiplyExact(4, count)];
        if (m.rank() == root)
        {
            ints(all).put(data);
        }
        new Bcast(m, root, all, 0, all.length).schedule(m, "broadcast of ints").runToCompletion(call);
        final int[] out = new int[count];
        ints(all).get(out);
        return out;
    }

    /**
     * Sends {@code mine} to world rank {@code peer} and returns what it sent (any length, count
     * first), on {@code context} with {@code tag}; both sides call it. Both sends start before
     * the receives, so two long lists cannot deadlock.
     */
    public static int[] exchange(
        final RankContext ctx, final int context, final int peer, final int tag, final int[] mine, final int call)
    {
        final long base = org.agrona.UnsafeApi.arrayBaseOffset(byte[].class);
        final byte[] length = new byte[4];
        ints(length).put(mine.length);
        final byte[] all = new byte[Math.multiplyExact(4, mine.length)];
        ints(all).put(mine);
        final SendRequest s1 = ctx.transport().isend(context, peer, tag, length, base, 4, SendRequest.MODE_STANDARD);
        final SendRequest s2 =
            ctx.transport().isend(context, peer, tag, all, base, all.length, SendRequest.MODE_STANDARD);
        final byte[] theirLength = new byte[4];
        ctx.transport().recv(context, peer, tag, theirLength, base, 4, org.shmpi.types.DataLayout.CONTIGUOUS,
            call);
        final byte[] theirs = new byte[Math.multiplyExact(4, ints(theirLength).get())];
        ctx.transport().recv(context, peer, tag, theirs, base, theirs.length,
            org.shmpi.types.DataLayout.CONTIGUOUS, call);
        ctx.progress().await(s1, call);
        ctx.progress().await(s2, call);
        final int[] out = new int[theirs.length / 4];
        ints(theirs).get(out);
        return out;
    }

    private static java.nio.IntBuffer ints(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).asIntBuffer();
    }
}
