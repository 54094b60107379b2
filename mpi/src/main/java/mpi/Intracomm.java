package mpi;

/**
 * An intra-communicator: a single group of ranks. Java binding of an {@code MPI_Comm} that is
 * not an inter-communicator. {@link MPI#COMM_WORLD} and {@link MPI#COMM_SELF} are instances.
 */
public class Intracomm extends Comm
{
    Intracomm(final String name)
    {
        super(name);
    }

    /** Java binding of {@code MPI_COMM_DUP} (see {@link Comm#dup()}). */
    @Override
    public Intracomm dup()
    {
        return duplicate(new Intracomm(""));
    }

    /** {@link #dup()}, as in Open MPI. */
    @Override
    public Intracomm clone()
    {
        return dup();
    }

    /** Java binding of {@code MPI_COMM_IDUP} (see {@link Comm#iDup()}). */
    @Override
    public Intracomm iDup()
    {
        return duplicateNonblocking(new Intracomm(""));
    }

    /** Java binding of {@code MPI_COMM_DUP_WITH_INFO} (see {@link Comm#dupWithInfo}). */
    @Override
    public Intracomm dupWithInfo(final Info newInfo)
    {
        final Intracomm d = dup();
        d.setInfo(newInfo);
        return d;
    }

    /**
     * Java binding of {@code MPI_COMM_SPLIT}: one new communicator per {@code color}, its ranks
     * ordered by {@code key}, ties by rank here; {@code MPI.UNDEFINED} as color gives a null
     * communicator ({@link #isNull()}). A negative color other than that is {@code MPI.ERR_ARG}.
     * Collective over this communicator; the new ones get its error handler.
     */
    public final Intracomm split(final int color, final int key)
    {
        try
        {
            check();
            if (color < 0 && color != MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_ARG, "split: color must be >= 0 or MPI.UNDEFINED: " +
                    color);
            }
            final int[] all = allgatherInts(new int[] {color, key}, org.shmpi.shm.BlockedCall.BARRIER);
            if (color == MPI.UNDEFINED)
            {
                return new Intracomm("");
            }
            final java.util.List<int[]> mine = new java.util.ArrayList<>();
            for (int r = 0; r < members.length; r++)
            {
                if (all[2 * r] == color)
                {
                    mine.add(new int[] {all[2 * r + 1], r});
                }
            }
            mine.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
            final int[] sub = new int[mine.size()];
            for (int i = 0; i < sub.length; i++)
            {
                sub[i] = members[mine.get(i)[1]];
            }
            return createOn(sub, new Intracomm(""), "split of " + getName() + ", color " + color);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_SPLIT_TYPE}: {@code Comm.TYPE_SHARED} groups the ranks that
     * share memory, which on shmpi is every rank of the job, ordered by {@code key};
     * {@code MPI.UNDEFINED} gives a null communicator; other types are {@code MPI.ERR_ARG}.
     */
    public final Intracomm splitType(final int splitType, final int key, final Info info)
    {
        if (splitType != TYPE_SHARED && splitType != MPI.UNDEFINED)
        {
            throw handle(new MPIException(org.shmpi.shm.ErrorClass.ERR_ARG, "splitType: unknown split type " +
                splitType));
        }
        return split(splitType == MPI.UNDEFINED ? MPI.UNDEFINED : 0, key);
    }

    /**
     * Java binding of {@code MPI_COMM_CREATE}: the members of {@code group} (a subgroup of this
     * communicator) get a communicator in the group's order; the others a null one. Collective
     * over this communicator; a group with a process outside it is {@code MPI.ERR_GROUP}.
     */
    public final Intracomm create(final Group group)
    {
        try
        {
            check();
            final int[] sub = subgroup(group, "create");
            // Every member learns that all called with the same group size (a cheap sanity check).
            final int[] sizes = allgatherInts(new int[] {sub.length}, org.shmpi.shm.BlockedCall.BARRIER);
            for (final int n : sizes)
            {
                if (n != sub.length)
                {
                    throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP, "create: the members gave different groups");
                }
            }
            if (group.getRank() == MPI.UNDEFINED)
            {
                return new Intracomm("");
            }
            return createOn(sub, new Intracomm(""), "create of " + getName());
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_CREATE_GROUP}: like {@link #create} but collective over
     * {@code group}'s members only (the others do not call it). {@code tag} is accepted but not
     * used yet: the agreement runs on this communicator's collective context with its own tags,
     * so two {@code createGroup} calls on one communicator must not overlap in time on a rank
     * (from two threads). A caller outside the group is {@code MPI.ERR_GROUP}.
     */
    public final Intracomm createGroup(final Group group, final int tag)
    {
        try
        {
            check();
            final int[] sub = subgroup(group, "createGroup");
            if (group.getRank() == MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP, "createGroup: the caller is not in the group");
            }
            return createOn(sub, new Intracomm(""), "createGroup of " + getName() + ", tag " + tag);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_CART_CREATE}: a Cartesian communicator over the first
     * {@code product(dims)} ranks (row-major, in rank order: {@code reorder} is a hint not acted
     * on yet); the others get a null communicator. A grid larger than this communicator, or a
     * dimension below 1, is {@code MPI.ERR_DIMS}; members that disagree on the grid get
     * {@code MPI.ERR_ARG}. Collective.
     */
    public final CartComm createCart(final int[] dims, final boolean[] periods, final boolean reorder)
    {
        try
        {
            check();
            return CartComm.create(this, dims, periods);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private int[] subgroup(final Group group, final String call)
    {
        if (group == null || group.isNull())
        {
            throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP, call + ": null or freed group");
        }
        final int[] sub = group.members();
        for (final int w : sub)
        {
            if (commRankOf(w) == MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP, call + ": world rank " + w +
                    " is not in " + getName());
            }
        }
        return sub.clone();
    }
}
