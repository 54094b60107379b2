package org.shmpi.coll;

import java.util.Arrays;

/**
 * The members of a communicator in groups, for the hierarchical shared-memory collectives: the
 * members of one NUMA node (or L3 domain) form a group, led by its lowest rank. Built from any
 * labelling of the members (a node id each): groups are numbered in the order of their leaders,
 * so every member that is given the same labels builds the same groups.
 */
final class MemberGroups
{
    /** The group of each member. */
    final int[] groupOf;
    /** The members of each group, ascending; element 0 is its leader. */
    final int[][] members;
    /** Where each member stands in its group's member list. */
    final int[] indexInGroup;
    /** The size of the largest group. */
    final int maxSize;

    private MemberGroups(final int[] groupOf, final int[][] members, final int[] indexInGroup, final int maxSize)
    {
        this.groupOf = groupOf;
        this.members = members;
        this.indexInGroup = indexInGroup;
        this.maxSize = maxSize;
    }

    /**
     * The groups of members labelled {@code labels} (any ints, one per member; equal labels,
     * one group), or null when {@code labels} is null or puts everybody in one group.
     */
    static MemberGroups of(final int[] labels, final int n)
    {
        if (labels == null)
        {
            return null;
        }
        if (labels.length != n)
        {
            throw new IllegalArgumentException(
                "one group label per member: labels=" + labels.length + ", members=" + n);
        }
        final int[] groupOf = new int[n];
        final int[] firstLabel = new int[n];
        final int[] sizes = new int[n];
        int count = 0;
        for (int r = 0; r < n; r++)
        {
            int g = 0;
            while (g < count && firstLabel[g] != labels[r])
            {
                g++;
            }
            if (g == count)
            {
                firstLabel[count++] = labels[r];
            }
            groupOf[r] = g;
            sizes[g]++;
        }
        if (count < 2)
        {
            return null;
        }
        final int[][] members = new int[count][];
        final int[] indexInGroup = new int[n];
        int maxSize = 0;
        for (int g = 0; g < count; g++)
        {
            members[g] = new int[sizes[g]];
            maxSize = Math.max(maxSize, sizes[g]);
        }
        final int[] filled = new int[count];
        for (int r = 0; r < n; r++)
        {
            final int g = groupOf[r];
            indexInGroup[r] = filled[g];
            members[g][filled[g]++] = r;
        }
        return new MemberGroups(groupOf, members, indexInGroup, maxSize);
    }

    int count()
    {
        return members.length;
    }

    /** The leader (lowest rank) of group {@code g}. */
    int leader(final int g)
    {
        return members[g][0];
    }

    @Override
    public String toString()
    {
        return Arrays.deepToString(members);
    }
}
