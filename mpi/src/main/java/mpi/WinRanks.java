package mpi;

import org.shmpi.shm.ErrorClass;

/**
 * The members of a {@link Win} by rank: the world rank of each window rank, and back, to
 * translate the groups of start and post (which name processes by world rank) into window ranks.
 */
final class WinRanks
{
    /** World rank of each window rank. */
    private final int[] world;
    /** Window rank of each world rank ({@code -1}: not a member), for groups of start and post. */
    private final int[] rankOfWorld;
    /** The last group {@link #of} translated (its member array) and its window ranks. */
    private int[] lastMembers;
    private int[] lastRanks;

    /** The members whose world ranks are {@code world}, in window rank order (kept, not copied). */
    WinRanks(final int[] world)
    {
        this.world = world;
        int largest = 0;
        for (final int w : world)
        {
            largest = Math.max(largest, w);
        }
        this.rankOfWorld = new int[largest + 1];
        java.util.Arrays.fill(rankOfWorld, -1);
        for (int r = 0; r < world.length; r++)
        {
            rankOfWorld[world[r]] = r;
        }
    }

    /** The number of members. */
    int size()
    {
        return world.length;
    }

    /** The members' world ranks, in window rank order (a copy). */
    int[] world()
    {
        return world.clone();
    }

    /** The members of {@code group} as window ranks ({@code MPI.ERR_GROUP} for a process outside the window). */
    int[] of(final Group group, final String call)
    {
        final int[] members = Group.of(group, call);
        if (members == lastMembers)
        {
            return lastRanks;
        }
        final int[] out = new int[members.length];
        for (int i = 0; i < members.length; i++)
        {
            final int w = members[i];
            out[i] = w >= 0 && w < rankOfWorld.length ? rankOfWorld[w] : -1;
            if (out[i] < 0)
            {
                throw new MPIException(ErrorClass.ERR_GROUP, call + ": the group has a process that is not in the " +
                    "window: world rank " + members[i]);
            }
        }
        // An epoch loop names the same group again and again (a group's members never change).
        lastMembers = members;
        lastRanks = out;
        return out;
    }
}
