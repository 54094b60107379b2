package mpi;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import org.shmpi.shm.ErrorClass;

/**
 * Java binding of an MPI group: an ordered set of processes, held as their ranks in
 * {@code MPI.COMM_WORLD}. Groups are local objects; every operation here is local and creates
 * a new group, as in MPI-2.2 section 6.3. {@link #getRank()} is the calling process's rank in
 * the group, or {@code MPI.UNDEFINED} when it is not a member.
 */
public final class Group implements Freeable
{
    /** World ranks of the members, in group order; null once freed. */
    private int[] members;
    private final boolean predefined;

    Group(final int[] members)
    {
        this(members, false);
    }

    private Group(final int[] members, final boolean predefined)
    {
        this.members = members;
        this.predefined = predefined;
    }

    /** The predefined empty group ({@code MPI.GROUP_EMPTY}). */
    static Group empty()
    {
        return new Group(new int[0], true);
    }

    /** The members' world ranks (shared; never written). */
    int[] members()
    {
        return members;
    }

    static int[] of(final Group g, final String call)
    {
        if (g == null || g.members == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_GROUP, call +
                ": invalid group (null or freed)"));
        }
        return g.members;
    }

    /** Java binding of {@code MPI_GROUP_SIZE}. */
    public int getSize()
    {
        MPI.check();
        return of(this, "getSize").length;
    }

    /** Java binding of {@code MPI_GROUP_RANK}: this process's rank in the group, or {@code MPI.UNDEFINED}. */
    public int getRank()
    {
        MPI.check();
        return indexOf(of(this, "getRank"), MPI.COMM_WORLD.getRank());
    }

    private static int indexOf(final int[] m, final int worldRank)
    {
        for (int i = 0; i < m.length; i++)
        {
            if (m[i] == worldRank)
            {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    /**
     * Java binding of {@code MPI_GROUP_FREE}: the group becomes null. {@code MPI.GROUP_EMPTY}
     * cannot be freed ({@code MPI.ERR_GROUP}).
     */
    @Override
    public void free()
    {
        MPI.check();
        of(this, "free");
        if (predefined)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_GROUP, "MPI.GROUP_EMPTY cannot be freed"));
        }
        members = null;
    }

    /** Whether this group is freed ({@code MPI_GROUP_NULL}). */
    public boolean isNull()
    {
        return members == null;
    }

    /**
     * Java binding of {@code MPI_GROUP_TRANSLATE_RANKS}: the ranks in {@code group2} of the
     * processes with ranks {@code ranks1} in {@code group1}; {@code MPI.UNDEFINED} for one not
     * in {@code group2}, {@code MPI.PROC_NULL} for {@code MPI.PROC_NULL}.
     */
    public static int[] translateRanks(final Group group1, final int[] ranks1, final Group group2)
    {
        MPI.check();
        final int[] a = of(group1, "translateRanks");
        final int[] b = of(group2, "translateRanks");
        if (ranks1 == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "translateRanks: null ranks"));
        }
        final int[] out = new int[ranks1.length];
        for (int i = 0; i < ranks1.length; i++)
        {
            final int r = ranks1[i];
            if (r == MPI.PROC_NULL)
            {
                out[i] = MPI.PROC_NULL;
                continue;
            }
            checkRank(r, a.length, "translateRanks");
            out[i] = indexOf(b, a[r]);
        }
        return out;
    }

    /**
     * Java binding of {@code MPI_GROUP_COMPARE}: {@code MPI.IDENT} (same members, same order),
     * {@code MPI.SIMILAR} (same members, other order) or {@code MPI.UNEQUAL}.
     */
    public static int compare(final Group group1, final Group group2)
    {
        MPI.check();
        final int[] a = of(group1, "compare");
        final int[] b = of(group2, "compare");
        if (Arrays.equals(a, b))
        {
            return MPI.IDENT;
        }
        if (a.length != b.length)
        {
            return MPI.UNEQUAL;
        }
        final int[] sa = a.clone();
        final int[] sb = b.clone();
        Arrays.sort(sa);
        Arrays.sort(sb);
        return Arrays.equals(sa, sb) ? MPI.SIMILAR : MPI.UNEQUAL;
    }

    /**
     * Java binding of {@code MPI_GROUP_UNION}: the members of {@code group1}, then those of {@code group2} not in it.
     */
    public static Group union(final Group group1, final Group group2)
    {
        MPI.check();
        final Set<Integer> s = new LinkedHashSet<>();
        for (final int r : of(group1, "union"))
        {
            s.add(r);
        }
        for (final int r : of(group2, "union"))
        {
            s.add(r);
        }
        return new Group(s.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Java binding of {@code MPI_GROUP_INTERSECTION}: the members of {@code group1} also in {@code group2}, in group1's
     * order.
     */
    public static Group intersection(final Group group1, final Group group2)
    {
        MPI.check();
        final int[] b = of(group2, "intersection");
        return new Group(Arrays.stream(of(group1, "intersection")).filter(r -> indexOf(b, r) != MPI.UNDEFINED)
            .toArray());
    }

    /**
     * Java binding of {@code MPI_GROUP_DIFFERENCE}: the members of {@code group1} not in {@code group2}, in group1's
     * order.
     */
    public static Group difference(final Group group1, final Group group2)
    {
        MPI.check();
        final int[] b = of(group2, "difference");
        return new Group(Arrays.stream(of(group1, "difference")).filter(r -> indexOf(b, r) == MPI.UNDEFINED)
            .toArray());
    }

    /**
     * Java binding of {@code MPI_GROUP_INCL}: the members with ranks {@code ranks}, in that
     * order. A rank outside the group or named twice is {@code MPI.ERR_RANK}.
     */
    public Group incl(final int[] ranks)
    {
        MPI.check();
        final int[] m = of(this, "incl");
        final int[] picked = distinctRanks(ranks, m.length, "incl");
        final int[] out = new int[picked.length];
        for (int i = 0; i < picked.length; i++)
        {
            out[i] = m[picked[i]];
        }
        return new Group(out);
    }

    /**
     * Java binding of {@code MPI_GROUP_EXCL}: the members without ranks {@code ranks}, in
     * group order. A rank outside the group or named twice is {@code MPI.ERR_RANK}.
     */
    public Group excl(final int[] ranks)
    {
        MPI.check();
        final int[] m = of(this, "excl");
        final boolean[] out = new boolean[m.length];
        for (final int r : distinctRanks(ranks, m.length, "excl"))
        {
            out[r] = true;
        }
        final int[] kept = new int[m.length - ranks.length];
        for (int i = 0, k = 0; i < m.length; i++)
        {
            if (!out[i])
            {
                kept[k++] = m[i];
            }
        }
        return new Group(kept);
    }

    /**
     * Java binding of {@code MPI_GROUP_RANGE_INCL}: each triplet {@code {first, last, stride}}
     * names ranks {@code first, first + stride, ...} up to {@code last} (stride may be
     * negative, not 0; {@code last} need not be a rank of the group, only the ranks named must
     * be); the members with those ranks, in that order. A rank named outside the group or named
     * twice is {@code MPI.ERR_RANK}; a bad triplet {@code MPI.ERR_ARG}.
     */
    public Group rangeIncl(final int[][] ranges)
    {
        MPI.check();
        return incl(expand(ranges, of(this, "rangeIncl").length, "rangeIncl"));
    }

    /**
     * Java binding of {@code MPI_GROUP_RANGE_EXCL}: {@link #excl} of the ranks the triplets name (see {@link
     * #rangeIncl}).
     */
    public Group rangeExcl(final int[][] ranges)
    {
        MPI.check();
        return excl(expand(ranges, of(this, "rangeExcl").length, "rangeExcl"));
    }

    private static int[] expand(final int[][] ranges, final int size, final String call)
    {
        if (ranges == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, call + ": null ranges"));
        }
        final java.util.List<Integer> out = new java.util.ArrayList<>();
        for (final int[] t : ranges)
        {
            if (t == null || t.length != 3 || t[2] == 0)
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, call +
                    ": a range is {first, last, stride} with stride != 0: " + Arrays.toString(t)));
            }
            // Each rank the triplet produces is checked, not last: {5, 8, 2} in a group of 8
            // names 5 and 7, as in Open MPI; a produced rank outside the group is MPI.ERR_RANK.
            if ((t[2] > 0 && t[1] < t[0]) || (t[2] < 0 && t[1] > t[0]))
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, call +
                    ": stride runs away from last: " + Arrays.toString(t)));
            }
            for (long r = t[0]; t[2] > 0 ? r <= t[1] : r >= t[1]; r += t[2])
            {
                if (r < 0 || r >= size)
                {
                    throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_RANK, call + ": triplet " +
                        Arrays.toString(t) + " names rank " + r + ", outside a group of " + size));
                }
                out.add((int)r);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[] distinctRanks(final int[] ranks, final int size, final String call)
    {
        if (ranks == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, call + ": null ranks"));
        }
        final boolean[] seen = new boolean[size];
        for (final int r : ranks)
        {
            checkRank(r, size, call);
            if (seen[r])
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_RANK, call + ": rank " + r +
                    " named twice"));
            }
            seen[r] = true;
        }
        return ranks;
    }

    private static void checkRank(final int r, final int size, final String call)
    {
        if (r < 0 || r >= size)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_RANK, call + ": rank " + r +
                " outside a group of " + size));
        }
    }

    @Override
    public String toString()
    {
        return members == null ? "MPI_GROUP_NULL" : "Group" + Arrays.toString(members);
    }
}
