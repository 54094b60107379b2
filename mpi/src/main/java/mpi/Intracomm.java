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

    /**
     * Java binding of {@code MPI_GRAPH_CREATE}: a graph communicator over the first
     * {@code nnodes = index.length} ranks, node {@code i} being rank {@code i} ({@code reorder} is
     * a hint not acted on yet: ranks keep their order). {@code index[i]} is the number of edges of
     * nodes 0 to {@code i}; {@code edges} lists each node's neighbours in turn (entries past
     * {@code index[nnodes - 1]} are ignored). Ranks from {@code nnodes} on get a null communicator,
     * and all ranks do if {@code nnodes} is 0. More nodes than processes, a decreasing or negative
     * index, too few edges, an edge to a node outside {@code [0, nnodes)}, or members giving
     * different graphs are {@code MPI.ERR_ARG}, raised on every member. Collective.
     */
    public final GraphComm createGraph(final int[] index, final int[] edges, final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createGraph(this, index, edges);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_DIST_GRAPH_CREATE}: a distributed graph communicator of all
     * ranks (in order: {@code reorder} is a hint not acted on yet), where each member may declare
     * any edges: {@code sources[i]} has {@code degrees[i]} out-edges, to the next entries of
     * {@code destinations}, weighted by the same entries of {@code weights}. Every member then
     * knows its own in- and out-neighbours, in the order of all members' edges concatenated in
     * rank order (see {@link GraphComm#getDistGraphNeighbors()}). {@code info} is accepted, with
     * no hint acted on. A rank outside this communicator is {@code MPI.ERR_RANK}; a negative degree
     * or weight, too few destinations or weights, or weights given on some members only are
     * {@code MPI.ERR_ARG}. A member's error is raised on every member. Collective.
     */
    public final GraphComm createDistGraph(final int[] sources, final int[] degrees, final int[] destinations,
        final int[] weights, final Info info, final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createDistGraph(this, sources, degrees, destinations, weights, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** {@link #createDistGraph(int[], int[], int[], int[], Info, boolean)} unweighted ({@code MPI_UNWEIGHTED}). */
    public final GraphComm createDistGraph(final int[] sources, final int[] degrees, final int[] destinations,
        final Info info, final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createDistGraph(this, sources, degrees, destinations, null, false);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_DIST_GRAPH_CREATE_ADJACENT}: a distributed graph communicator of
     * all ranks (in order: {@code reorder} is a hint not acted on yet) where each member gives its
     * own in-neighbours ({@code sources}) and out-neighbours ({@code destinations}) with their
     * edge weights; {@link GraphComm#getDistGraphNeighbors()} returns them in the order given.
     * {@code info} is accepted, with no hint acted on. A rank outside this communicator is
     * {@code MPI.ERR_RANK}; a negative weight, fewer weights than neighbours, or an edge that only
     * one of its ends declares (or with another weight) are {@code MPI.ERR_ARG}. A member's error
     * is raised on every member. Collective.
     */
    public final GraphComm createDistGraphAdjacent(final int[] sources, final int[] sourceWeights,
        final int[] destinations, final int[] destWeights, final Info info, final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createDistGraphAdjacent(this, sources, sourceWeights, destinations, destWeights, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * {@link #createDistGraphAdjacent(int[], int[], int[], int[], Info, boolean)} unweighted
     * ({@code MPI_UNWEIGHTED}).
     */
    public final GraphComm createDistGraphAdjacent(final int[] sources, final int[] destinations, final Info info,
        final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createDistGraphAdjacent(this, sources, null, destinations, null, false);
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
