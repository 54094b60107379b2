package mpi;

import java.nio.Buffer;

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
        final Recorder r = Profile.begin(Calls.COMM_DUP);
        final Intracomm result = CommConstruction.duplicate(this, new Intracomm(""));
        Profile.end(r, Calls.COMM_DUP);
        return result;
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
        final Recorder r = Profile.begin(Calls.COMM_DUP);
        final Intracomm result = CommConstruction.duplicateNonblocking(this, new Intracomm(""));
        Profile.end(r, Calls.COMM_DUP);
        return result;
    }

    /** Java binding of {@code MPI_COMM_DUP_WITH_INFO} (see {@link Comm#dupWithInfo}). */
    @Override
    public Intracomm dupWithInfo(final Info newInfo)
    {
        final Info hints = CommConstruction.hintsOfDup(this, newInfo);
        return CommConstruction.hinted(dup(), hints);
    }

    /**
     * Java binding of {@code MPI_COMM_SPLIT}: one new communicator per {@code color}, its ranks
     * ordered by {@code key}, ties by rank here; {@code MPI.UNDEFINED} as color gives a null
     * communicator ({@link #isNull()}). A negative color other than that is {@code MPI.ERR_ARG}.
     * Collective over this communicator; the new ones get its error handler.
     */
    public final Intracomm split(final int color, final int key)
    {
        final Recorder r = Profile.begin(Calls.COMM_SPLIT);
        final Intracomm result = split0(color, key);
        Profile.end(r, Calls.COMM_SPLIT);
        return result;
    }

    private final Intracomm split0(final int color, final int key)
    {
        try
        {
            check();
            if (color < 0 && color != MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_ARG,
                    "split: color must be >= 0 or MPI.UNDEFINED: " + color);
            }
            final int[] all = CommConstruction.allgatherInts(this, new int[] {color, key},
                org.shmpi.shm.BlockedCall.BARRIER);
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
            return CommConstruction.createOn(this, sub, new Intracomm(""), "split of " + getName() + ", color " +
                color);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_SPLIT_TYPE}: one new communicator per locality domain, its
     * ranks ordered by {@code key}, ties by rank here. Collective over this communicator; the new
     * ones get its error handler; {@code info} is not used.
     * <ul>
     * <li>{@code Comm.TYPE_SHARED}: the ranks that share memory: the ranks on the same machine
     *     (every rank of a one-machine job).</li>
     * <li>shmpi's extensions {@link Comm#TYPE_NUMA}, {@link Comm#TYPE_SOCKET},
     *     {@link Comm#TYPE_L3CACHE}, {@link Comm#TYPE_CORE}: the ranks that run on the same NUMA
     *     node, package, L3 cache or core of the topology ({@code shmpi.topology.file} if set,
     *     else the machine's). Where a rank runs is where {@code shmrun} placed it (it tells each
     *     rank, so a topology file of another machine works too), else the CPUs it is bound to.
     *     A rank that may run on CPUs of several domains (not bound, e.g. more ranks than cores)
     *     is in the smallest union of domains holding all of them, and groups with the ranks of
     *     exactly that union: unbound ranks on a two-node machine form one group by NUMA node.</li>
     * </ul>
     * {@code MPI.UNDEFINED} gives a null communicator; any other type is {@code MPI.ERR_ARG}.
     */
    public final Intracomm splitType(final int splitType, final int key, final Info info)
    {
        final Recorder r = Profile.begin(Calls.COMM_SPLIT);
        final Intracomm result = splitType0(splitType, key, info);
        Profile.end(r, Calls.COMM_SPLIT);
        return result;
    }

    private final Intracomm splitType0(final int splitType, final int key, final Info info)
    {
        if (splitType == TYPE_SHARED || splitType == MPI.UNDEFINED)
        {
            // The ranks that share memory are the ranks of one machine (node 0 on a single one).
            return split0(splitType == MPI.UNDEFINED ? MPI.UNDEFINED : NodeLevels.nodeOf(members[getRank()]), key);
        }
        final org.shmpi.affinity.Topology.Level level = Locality.levelOf(splitType);
        if (level == null)
        {
            throw handle(new MPIException(org.shmpi.shm.ErrorClass.ERR_ARG, "splitType: unknown split type: " +
                "splitType=" + splitType + ", allowed=TYPE_SHARED(0),TYPE_CORE(2),TYPE_L3CACHE(5),TYPE_SOCKET(6)," +
                "TYPE_NUMA(7),MPI.UNDEFINED"));
        }
        final int color;
        try
        {
            check();
            color = Locality.groups(this, level)[getRank()];
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        return split0(color, key);
    }

    /**
     * Java binding of {@code MPI_COMM_CREATE}: the members of {@code group} (a subgroup of this
     * communicator) get a communicator in the group's order; the others a null one. Collective
     * over this communicator; a group with a process outside it is {@code MPI.ERR_GROUP}.
     */
    public final Intracomm create(final Group group)
    {
        final Recorder r = Profile.begin(Calls.COMM_CREATE);
        final Intracomm result = create0(group);
        Profile.end(r, Calls.COMM_CREATE);
        return result;
    }

    private final Intracomm create0(final Group group)
    {
        try
        {
            check();
            final int[] sub = subgroup(group, "create");
            // Every member learns that all called with the same group size (a cheap sanity check).
            final int[] sizes = CommConstruction.allgatherInts(this, new int[] {sub.length},
                org.shmpi.shm.BlockedCall.BARRIER);
            for (final int n : sizes)
            {
                if (n != sub.length)
                {
                    throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP,
                        "create: the members gave different groups");
                }
            }
            if (group.getRank() == MPI.UNDEFINED)
            {
                return new Intracomm("");
            }
            return CommConstruction.createOn(this, sub, new Intracomm(""), "create of " + getName());
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
        final Recorder r = Profile.begin(Calls.COMM_CREATE_GROUP);
        final Intracomm result = createGroup0(group, tag);
        Profile.end(r, Calls.COMM_CREATE_GROUP);
        return result;
    }

    private final Intracomm createGroup0(final Group group, final int tag)
    {
        try
        {
            check();
            final int[] sub = subgroup(group, "createGroup");
            if (group.getRank() == MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP,
                    "createGroup: the caller is not in the group");
            }
            return CommConstruction.createOn(this, sub, new Intracomm(""), "createGroup of " + getName() + ", tag " +
                tag);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_CART_CREATE}: a Cartesian communicator over the first
     * {@code product(dims)} ranks, row-major; the others get a null communicator. A grid larger
     * than this communicator, or a dimension below 1, is {@code MPI.ERR_DIMS}; members that
     * disagree on the grid or on {@code reorder} get {@code MPI.ERR_ARG}. Collective.
     *
     * <p>Without {@code reorder}, grid rank {@code r} is rank {@code r} here. With it, the grid's
     * processes (still the first {@code product(dims)}) swap grid ranks so that neighbours share
     * a NUMA node: each node, in the order of its lowest rank, takes a block of grid ranks as
     * large as its number of processes, grown from the lowest free grid rank by always adding
     * the one with the most neighbours already in the block (on a row-major grid: contiguous
     * rows), and its processes take that block in rank order. This is kept only if it cuts
     * fewer neighbour pairs between nodes than the rank order does; in particular, when every
     * process is on one node (or no process is bound to one node), nothing changes. Nodes are
     * those {@link #splitType} with {@link Comm#TYPE_NUMA} sees; see
     * {@code org.shmpi.affinity.NumaPlacement}.
     */
    public final CartComm createCart(final int[] dims, final boolean[] periods, final boolean reorder)
    {
        final Recorder r = Profile.begin(Calls.COMM_CART_CREATE);
        final CartComm result = createCart0(dims, periods, reorder);
        Profile.end(r, Calls.COMM_CART_CREATE);
        return result;
    }

    private final CartComm createCart0(final int[] dims, final boolean[] periods, final boolean reorder)
    {
        try
        {
            check();
            return CartComm.create(this, dims, periods, reorder);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GRAPH_CREATE}: a graph communicator over the first
     * {@code nnodes = index.length} ranks, node {@code i} being rank {@code i}. With
     * {@code reorder}, the graph's processes (the first {@code nnodes} ranks) swap ranks as
     * {@link #createCart} does, so that nodes joined by edges run on one NUMA node where that
     * cuts edges between NUMA nodes (nothing moves when all run on one). {@code index[i]} is the number of edges of
     * nodes 0 to {@code i}; {@code edges} lists each node's neighbours in turn (entries past
     * {@code index[nnodes - 1]} are ignored). Ranks from {@code nnodes} on get a null communicator,
     * and all ranks do if {@code nnodes} is 0. More nodes than processes, a decreasing or negative
     * index, too few edges, an edge to a node outside {@code [0, nnodes)}, or members giving
     * different graphs are {@code MPI.ERR_ARG}, raised on every member. Collective.
     */
    public final GraphComm createGraph(final int[] index, final int[] edges, final boolean reorder)
    {
        final Recorder r = Profile.begin(Calls.COMM_GRAPH_CREATE);
        final GraphComm result = createGraph0(index, edges, reorder);
        Profile.end(r, Calls.COMM_GRAPH_CREATE);
        return result;
    }

    private final GraphComm createGraph0(final int[] index, final int[] edges, final boolean reorder)
    {
        try
        {
            check();
            return GraphComm.createGraph(this, index, edges, reorder);
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
            if (PointToPoint.commRankOf(this, w) == MPI.UNDEFINED)
            {
                throw new MPIException(org.shmpi.shm.ErrorClass.ERR_GROUP, call + ": world rank " + w +
                    " is not in " + getName());
            }
        }
        return sub.clone();
    }

    /**
     * Java binding of {@code MPI_SCAN}: rank r receives the reduction of the contributions of ranks 0 to r, in rank
     * order. Blocks until this member's part is done. Collective.
     */
    public final void scan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.SCAN);
        collective(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, false, false, true));
        Profile.endToHigher(r, Calls.SCAN, this, count, type);
    }

    /**
     * Java binding of {@code MPI_SCAN}, nonblocking ({@code MPI_ISCAN}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScan(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_SCAN);
        final Request result =
            nonblocking(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, false, false, false));
        Profile.endToHigher(r, Calls.I_SCAN, this, count, type);
        return result;
    }

    /** + {@link #iScan} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_SCAN);
        final Request result =
            nonblocking(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, false, false, false));
        Profile.endToHigher(r, Calls.I_SCAN, this, count, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_SCAN_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest scanInit(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        return persistent(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, false, false, false), sendbuf,
            recvbuf);
    }

    /**
     * Java binding of {@code MPI_SCAN with MPI_IN_PLACE}: {@code buf} holds the contribution and receives the result.
     * Blocks until this member's part is done. Collective.
     */
    public final void scan(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.SCAN);
        collective(() -> ReduceOps.scan(this, buf, buf, count, type, op, false, true, true));
        Profile.endToHigher(r, Calls.SCAN, this, count, type);
    }

    /**
     * Java binding of {@code MPI_SCAN}, nonblocking ({@code MPI_ISCAN}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScan(final Buffer buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_SCAN);
        final Request result = nonblocking(() -> ReduceOps.scan(this, buf, buf, count, type, op, false, true, false));
        Profile.endToHigher(r, Calls.I_SCAN, this, count, type);
        return result;
    }

    /** + {@link #iScan} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScan(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_SCAN);
        final Request result = nonblocking(() -> ReduceOps.scan(this, buf, buf, count, type, op, false, true, false));
        Profile.endToHigher(r, Calls.I_SCAN, this, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_EXSCAN}: rank r receives the reduction of the contributions of ranks 0 to r - 1; rank
     * 0's {@code recvbuf} is left as it is. Blocks until this member's part is done. Collective.
     */
    public final void exScan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.EX_SCAN);
        collective(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, true, false, true));
        Profile.endToHigher(r, Calls.EX_SCAN, this, count, type);
    }

    /**
     * Java binding of {@code MPI_EXSCAN}, nonblocking ({@code MPI_IEXSCAN}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iExScan(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_EX_SCAN);
        final Request result =
            nonblocking(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, true, false, false));
        Profile.endToHigher(r, Calls.I_EX_SCAN, this, count, type);
        return result;
    }

    /** + {@link #iExScan} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iExScan(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_EX_SCAN);
        final Request result =
            nonblocking(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, true, false, false));
        Profile.endToHigher(r, Calls.I_EX_SCAN, this, count, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_EXSCAN_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest exScanInit(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        return persistent(() -> ReduceOps.scan(this, sendbuf, recvbuf, count, type, op, true, false, false), sendbuf,
            recvbuf);
    }

    /**
     * Java binding of {@code MPI_EXSCAN with MPI_IN_PLACE}: {@code buf} holds the contribution and receives the result.
     * Blocks until this member's part is done. Collective.
     */
    public final void exScan(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.EX_SCAN);
        collective(() -> ReduceOps.scan(this, buf, buf, count, type, op, true, true, true));
        Profile.endToHigher(r, Calls.EX_SCAN, this, count, type);
    }

    /**
     * Java binding of {@code MPI_EXSCAN}, nonblocking ({@code MPI_IEXSCAN}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iExScan(final Buffer buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_EX_SCAN);
        final Request result = nonblocking(() -> ReduceOps.scan(this, buf, buf, count, type, op, true, true, false));
        Profile.endToHigher(r, Calls.I_EX_SCAN, this, count, type);
        return result;
    }

    /** + {@link #iExScan} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iExScan(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_EX_SCAN);
        final Request result = nonblocking(() -> ReduceOps.scan(this, buf, buf, count, type, op, true, true, false));
        Profile.endToHigher(r, Calls.I_EX_SCAN, this, count, type);
        return result;
    }

    // Detached nonblocking collectives

    /**
     * + Detached {@link #iScan} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iScanDetached(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final CompletionCallback callback)
    {
        iScan(sendbuf, recvbuf, count, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iExScan} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iExScanDetached(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final CompletionCallback callback)
    {
        iExScan(sendbuf, recvbuf, count, type, op).onComplete(callback);
    }

    // ------------------------------------------------------------------------------------------
    // Ports and names (docs/dynamic.md)

    /**
     * Java binding of {@code MPI_OPEN_PORT}: a new port of this process, named
     * {@code shmpi-port:<job>:<world rank>:<id>} (at most {@link MPI#MAX_PORT_NAME} characters).
     */
    public static String openPort()
    {
        return openPort(null);
    }

    /** Java binding of {@code MPI_OPEN_PORT}; no info key is used. */
    public static String openPort(final Info info)
    {
        MPI.check();
        return Ports.open();
    }

    /** Java binding of {@code MPI_CLOSE_PORT}: {@code MPI.ERR_PORT} for a name this process has not open. */
    public static void closePort(final String name)
    {
        MPI.check();
        try
        {
            Ports.close(name);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_SPAWN}, collective over this communicator: starts
     * {@code maxprocs} processes of {@code command} with arguments {@code argv} (given at
     * {@code root}), which form a {@code COMM_WORLD} of their own, and returns the
     * intercommunicator to them. For {@code command} "java" the children get this process's class
     * path and JVM flags, and {@code argv} begins with the main class. Info keys: {@code wdir}
     * (working directory), {@code env} ("NAME=value" lines added to the environment),
     * {@code host} (this machine only); others are ignored. {@code errcodes} (may be null) gets a
     * code per child; a child that cannot start or exits before it connects is
     * {@code MPI.ERR_SPAWN}.
     */
    public final Intercomm spawn(final String command, final String[] argv, final int maxprocs, final Info info,
        final int root, final int[] errcodes)
    {
        final Recorder r = Profile.begin(Calls.COMM_SPAWN);
        final Intercomm result = spawn0(command, argv, maxprocs, info, root, errcodes);
        Profile.end(r, Calls.COMM_SPAWN);
        return result;
    }

    private final Intercomm spawn0(final String command, final String[] argv, final int maxprocs, final Info info,
        final int root, final int[] errcodes)
    {
        check();
        try
        {
            return Spawns.spawn(this, java.util.List.of(new Spawns.App(command, argv, maxprocs, info)), root,
                errcodes);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_SPAWN_MULTIPLE}: as {@link #spawn} for several commands at
     * once, whose processes form one {@code COMM_WORLD} in the order of the commands; each
     * process's {@code MPI.APPNUM} attribute says which command it runs.
     */
    public final Intercomm spawnMultiple(final String[] commands, final String[][] argv, final int[] maxprocs,
        final Info[] info, final int root, final int[] errcodes)
    {
        final Recorder r = Profile.begin(Calls.COMM_SPAWN_MULTIPLE);
        final Intercomm result = spawnMultiple0(commands, argv, maxprocs, info, root, errcodes);
        Profile.end(r, Calls.COMM_SPAWN_MULTIPLE);
        return result;
    }

    private final Intercomm spawnMultiple0(final String[] commands, final String[][] argv, final int[] maxprocs,
        final Info[] info, final int root, final int[] errcodes)
    {
        check();
        try
        {
            final java.util.List<Spawns.App> apps = new java.util.ArrayList<>();
            if (getRank() == root)
            {
                if (commands == null || maxprocs == null || maxprocs.length < commands.length)
                {
                    throw new MPIException(MPI.ERR_ARG, "spawnMultiple: commands and maxprocs must be given, " +
                        "one count per command");
                }
                for (int i = 0; i < commands.length; i++)
                {
                    apps.add(new Spawns.App(commands[i], argv == null || argv.length <= i ? null : argv[i],
                        maxprocs[i], info == null || info.length <= i ? null : info[i]));
                }
            }
            return Spawns.spawn(this, apps, root, errcodes);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_ACCEPT}, collective over this communicator: waits for a
     * connect to {@code port} (which {@code root} opened; the others may pass null) and returns
     * the intercommunicator with the connecting group as the remote group.
     */
    public final Intercomm accept(final String port, final int root)
    {
        return accept(port, null, root);
    }

    /** Java binding of {@code MPI_COMM_ACCEPT}; no info key is used. */
    public final Intercomm accept(final String port, final Info info, final int root)
    {
        check();
        try
        {
            return Ports.accept(this, port, root);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_CONNECT}, collective over this communicator: connects to
     * {@code port} (given at {@code root}; the others may pass null) and returns the
     * intercommunicator with the accepting group as the remote group. A closed or unknown port is
     * {@code MPI.ERR_PORT} at once; an open one nobody accepts on, after
     * {@code shmpi.connect.timeout.ms}.
     */
    public final Intercomm connect(final String port, final int root)
    {
        return connect(port, null, root);
    }

    /** Java binding of {@code MPI_COMM_CONNECT}; no info key is used. */
    public final Intercomm connect(final String port, final Info info, final int root)
    {
        check();
        try
        {
            return Ports.connect(this, port, root);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_PUBLISH_NAME}: {@code service} names {@code port} for every job of
     * this user on this machine until it is unpublished or this process finalizes;
     * {@code MPI.ERR_SERVICE} when the name is published already.
     */
    public static void publishName(final String service, final String port)
    {
        publishName(service, null, port);
    }

    /** Java binding of {@code MPI_PUBLISH_NAME}; no info key is used. */
    public static void publishName(final String service, final Info info, final String port)
    {
        MPI.check();
        try
        {
            Names.publish(service, port);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** Java binding of {@code MPI_UNPUBLISH_NAME}: {@code MPI.ERR_SERVICE} unless this process published it. */
    public static void unpublishName(final String service, final String port)
    {
        unpublishName(service, null, port);
    }

    /** Java binding of {@code MPI_UNPUBLISH_NAME}; no info key is used. */
    public static void unpublishName(final String service, final Info info, final String port)
    {
        MPI.check();
        try
        {
            Names.unpublish(service, port);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }

    /** Java binding of {@code MPI_LOOKUP_NAME}: the port published as {@code service}, else {@code MPI.ERR_NAME}. */
    public static String lookupName(final String service)
    {
        return lookupName(service, null);
    }

    /** Java binding of {@code MPI_LOOKUP_NAME}; no info key is used. */
    public static String lookupName(final String service, final Info info)
    {
        MPI.check();
        try
        {
            return Names.lookup(service);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
    }
}
