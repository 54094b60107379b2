package mpi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.shmpi.affinity.NumaPlacement;
import org.shmpi.affinity.Topology;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * Java binding of a communicator with a graph topology (MPI-3.1 sections 7.5.3 and 7.5.4): either
 * a graph every member describes whole ({@code MPI_GRAPH}, made by {@link Intracomm#createGraph})
 * or a distributed graph of which each member knows its own in- and out-edges
 * ({@code MPI_DIST_GRAPH}, made by {@link Intracomm#createDistGraph} and
 * {@link Intracomm#createDistGraphAdjacent}). {@code reorder} places a graph's nodes by NUMA
 * node (see {@link Intracomm#createGraph}); the distributed graphs keep rank order, which MPI
 * allows.
 *
 * <p>The topology is fixed at creation; every query answers from this process's copy, without
 * communication.
 */
public final class GraphComm extends Intracomm
{
    /** {@code MPI_GRAPH}: cumulative degrees by node; null for a distributed graph. */
    private final int[] index;
    /** {@code MPI_GRAPH}: the edges, {@code index[nnodes - 1]} of them; null for a distributed graph. */
    private final int[] edges;
    /** {@code MPI_DIST_GRAPH}: the caller's neighbours; null for a graph. */
    private final DistGraphNeighbors neighbours;

    private GraphComm(final int[] index, final int[] edges, final DistGraphNeighbors neighbours)
    {
        super("");
        this.index = index;
        this.edges = edges;
        this.neighbours = neighbours;
    }

    // ------------------------------------------------------------------------------------------
    // Creation


    /**
     * Makes the graph over the first {@code index.length} ranks of {@code parent}; the others get a
     * null communicator, and all do if the graph has no nodes. Every member validates and then
     * all exchange their verdict and a digest of the graph before any of them throws, so bad or
     * disagreeing arguments raise an error on every member instead of leaving some waiting.
     */
    static GraphComm createGraph(final Intracomm parent, final int[] index, final int[] edges, final boolean reorder)
    {
        final int size = parent.getSize();
        final MPIException bad = checkGraph("createGraph", index, edges, size);
        final int nnodes = bad == null ? index.length : 0;
        final int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
        final int[] myIndex = bad == null ? index.clone() : new int[0];
        final int[] myEdges = bad == null ? Arrays.copyOf(edges, nedges) : new int[0];
        final int[] mine = {bad == null ? 0 : bad.getErrorClass(), nnodes, nedges,
            (Arrays.hashCode(myIndex) * 31 + Arrays.hashCode(myEdges)) * 31 + Boolean.hashCode(reorder)};
        final int[] all = CommConstruction.allgatherInts(parent, mine, BlockedCall.BARRIER);
        throwIfAnyBad("createGraph", bad, all, 4);
        for (int r = 0; r < size; r++)
        {
            if (all[4 * r + 1] != nnodes || all[4 * r + 2] != nedges || all[4 * r + 3] != mine[3])
            {
                throw new MPIException(ErrorClass.ERR_ARG, "createGraph: rank " + r + " gave another graph: nnodes=" +
                    all[4 * r + 1] + ", nedges=" + all[4 * r + 2] + ", here nnodes=" + nnodes + ", nedges=" + nedges);
            }
        }
        final GraphComm g = new GraphComm(myIndex, myEdges, null);
        final int[] members = Arrays.copyOf(parent.members, nnodes);
        if (reorder && nnodes > 1)
        {
            // As createCart: nodes that share edges go to processes on one NUMA node where that cuts
            // edges between nodes; every member takes part in finding where each one runs.
            final int[] node = Arrays.copyOf(Locality.groups(parent, Topology.Level.NUMA), nnodes);
            final NumaPlacement.Graph graph = new NumaPlacement.Graph(nnodes);
            for (int v = 0; v < nnodes; v++)
            {
                for (int e = v == 0 ? 0 : myIndex[v - 1]; e < myIndex[v]; e++)
                {
                    if (myEdges[e] != v)
                    {
                        graph.addEdge(v, myEdges[e], 1);
                    }
                }
            }
            final int[] processOfRank = NumaPlacement.place(node, graph);
            for (int r = 0; r < nnodes; r++)
            {
                members[r] = parent.members[processOfRank[r]];
            }
        }
        if (parent.getRank() >= nnodes)
        {
            return g; // not bound: null
        }
        return CommConstruction.createOn(parent, members, g, "graph of " + parent.getName());
    }

    /**
     * Makes a distributed graph from edges any member may declare: {@code sources[i]} has
     * {@code degrees[i]} out-edges, to the next entries of {@code destinations} (and
     * {@code weights}, unless unweighted: {@code MPI_UNWEIGHTED}). All members exchange their edges, and each
     * keeps those that start or end at itself, in the order of the concatenation of every
     * member's edges in rank order.
     */
    static GraphComm createDistGraph(final Intracomm parent, final int[] sources, final int[] degrees,
        final int[] destinations, final int[] weights, final boolean weighted)
    {
        final int size = parent.getSize();
        final MPIException bad = checkDistGraph(sources, degrees, destinations, weights, weighted, size);
        final int[] mine;
        if (bad != null)
        {
            mine = new int[] {bad.getErrorClass(), weighted ? 1 : 0};
        }
        else
        {
            // [0, weighted, (source, destination, weight)...]
            int edgeCount = 0;
            for (int i = 0; i < sources.length; i++)
            {
                edgeCount += degrees[i];
            }
            mine = new int[2 + 3 * edgeCount];
            mine[1] = weighted ? 1 : 0;
            for (int i = 0, k = 0, at = 2; i < sources.length; i++)
            {
                for (int j = 0; j < degrees[i]; j++, k++)
                {
                    mine[at++] = sources[i];
                    mine[at++] = destinations[k];
                    mine[at++] = weighted ? weights[k] : 1;
                }
            }
        }
        final int[][] all = CommConstruction.allgathervInts(parent, mine, BlockedCall.BARRIER);
        throwIfAnyBad("createDistGraph", bad, all);
        checkSameWeighting("createDistGraph", all, weighted);
        final int me = parent.getRank();
        final List<int[]> in = new ArrayList<>();
        final List<int[]> out = new ArrayList<>();
        for (final int[] theirs : all)
        {
            for (int at = 2; at < theirs.length; at += 3)
            {
                if (theirs[at + 1] == me)
                {
                    in.add(new int[] {theirs[at], theirs[at + 2]});
                }
                if (theirs[at] == me)
                {
                    out.add(new int[] {theirs[at + 1], theirs[at + 2]});
                }
            }
        }
        final DistGraphNeighbors n = new DistGraphNeighbors(column(in, 0), column(in, 1), column(out, 0),
            column(out, 1), weighted);
        return CommConstruction.createOn(parent, parent.members.clone(), new GraphComm(null, null, n),
            "dist graph of " + parent.getName());
    }

    /**
     * Makes a distributed graph from each member's own in- and out-neighbours, kept in the order
     * given. All members exchange their lists so that every one checks the same thing: each edge
     * is declared by both of its ends, with the same weight, else {@code MPI.ERR_ARG} on all.
     */
    static GraphComm createDistGraphAdjacent(final Intracomm parent, final int[] sources, final int[] sourceWeights,
        final int[] destinations, final int[] destWeights, final boolean weighted)
    {
        final int size = parent.getSize();
        final MPIException bad = checkAdjacent(sources, sourceWeights, destinations, destWeights, weighted, size);
        final int[] mine;
        final int[] inWeights;
        final int[] outWeights;
        if (bad != null)
        {
            mine = new int[] {bad.getErrorClass(), weighted ? 1 : 0};
            inWeights = null;
            outWeights = null;
        }
        else
        {
            // [0, weighted, indegree, outdegree, sources, source weights, destinations, destination weights]
            final int indegree = sources.length;
            final int outdegree = destinations.length;
            inWeights = weighted ? Arrays.copyOf(sourceWeights, indegree) : new int[indegree];
            outWeights = weighted ? Arrays.copyOf(destWeights, outdegree) : new int[outdegree];
            mine = new int[4 + 2 * indegree + 2 * outdegree];
            mine[1] = weighted ? 1 : 0;
            mine[2] = indegree;
            mine[3] = outdegree;
            System.arraycopy(sources, 0, mine, 4, indegree);
            System.arraycopy(inWeights, 0, mine, 4 + indegree, indegree);
            System.arraycopy(destinations, 0, mine, 4 + 2 * indegree, outdegree);
            System.arraycopy(outWeights, 0, mine, 4 + 2 * indegree + outdegree, outdegree);
        }
        final int[][] all = CommConstruction.allgathervInts(parent, mine, BlockedCall.BARRIER);
        throwIfAnyBad("createDistGraphAdjacent", bad, all);
        checkSameWeighting("createDistGraphAdjacent", all, weighted);
        // Each edge (from, to, weight) counts +1 where "from" declares it and -1 where "to" does.
        final Map<List<Integer>, Integer> balance = new HashMap<>();
        for (int r = 0; r < all.length; r++)
        {
            final int[] theirs = all[r];
            final int indegree = theirs[2];
            final int outdegree = theirs[3];
            for (int i = 0; i < indegree; i++)
            {
                balance.merge(List.of(theirs[4 + i], r, theirs[4 + indegree + i]), -1, Integer::sum);
            }
            for (int i = 0; i < outdegree; i++)
            {
                final int at = 4 + 2 * indegree;
                balance.merge(List.of(r, theirs[at + i], theirs[at + outdegree + i]), 1, Integer::sum);
            }
        }
        for (final Map.Entry<List<Integer>, Integer> e : balance.entrySet())
        {
            if (e.getValue() != 0)
            {
                final List<Integer> edge = e.getKey();
                throw new MPIException(ErrorClass.ERR_ARG, "createDistGraphAdjacent: edge from=" + edge.get(0) +
                    " to=" + edge.get(1) + (weighted ? " weight=" + edge.get(2) : "") + " is declared " +
                    (e.getValue() > 0 ? "by its source only" : "by its destination only") +
                    " (count difference=" + e.getValue() + ")");
            }
        }
        final DistGraphNeighbors n = new DistGraphNeighbors(sources.clone(), inWeights, destinations.clone(),
            outWeights, weighted);
        return CommConstruction.createOn(parent, parent.members.clone(), new GraphComm(null, null, n),
            "dist graph of " + parent.getName());
    }

    /** The {@code MPI_GRAPH_CREATE} / {@code MPI_GRAPH_MAP} argument rules; null if they hold. */
    private static MPIException checkGraph(final String call, final int[] index, final int[] edges, final int size)
    {
        if (index == null || edges == null)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": index and edges must be given: index=" +
                (index == null ? "null" : "int[" + index.length + "]") + ", edges=" +
                (edges == null ? "null" : "int[" + edges.length + "]"));
        }
        final int nnodes = index.length;
        if (nnodes > size)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": more nodes than processes: nnodes=" + nnodes +
                ", size=" + size);
        }
        int previous = 0;
        for (int i = 0; i < nnodes; i++)
        {
            if (index[i] < previous)
            {
                return new MPIException(ErrorClass.ERR_ARG, call + ": index must be non-decreasing from 0: index[" +
                    i + "]=" + index[i] + ", previous=" + previous);
            }
            previous = index[i];
        }
        if (previous > edges.length)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": fewer edges than the index counts: nedges=" +
                previous + ", edges.length=" + edges.length);
        }
        for (int k = 0; k < previous; k++)
        {
            if (edges[k] < 0 || edges[k] >= nnodes)
            {
                return new MPIException(ErrorClass.ERR_ARG, call + ": edge to a node outside the graph: edges[" + k +
                    "]=" + edges[k] + ", nnodes=" + nnodes);
            }
        }
        return null;
    }

    /** The {@code MPI_DIST_GRAPH_CREATE} argument rules for this member; null if they hold. */
    private static MPIException checkDistGraph(final int[] sources, final int[] degrees, final int[] destinations,
        final int[] weights, final boolean weighted, final int size)
    {
        final String call = "createDistGraph";
        if (sources == null || degrees == null || destinations == null || (weighted && weights == null))
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": sources, degrees, destinations and (when weighted) " +
                "weights must be given: weights=" + (weights == null ? "null" : "int[" + weights.length + "]"));
        }
        // Open MPI reads sources.length degrees and the first sum(degrees) destinations and
        // weights, ignoring any entries past them; so does shmpi (it only reads the arrays).
        if (degrees.length < sources.length)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": one degree per source: sources.length=" +
                sources.length + ", degrees.length=" + degrees.length);
        }
        long edgeCount = 0;
        for (int i = 0; i < sources.length; i++)
        {
            if (degrees[i] < 0)
            {
                return new MPIException(ErrorClass.ERR_ARG, call + ": negative degree: degrees[" + i + "]=" +
                    degrees[i]);
            }
            if (sources[i] < 0 || sources[i] >= size)
            {
                return new MPIException(ErrorClass.ERR_RANK, call + ": source outside the communicator: sources[" + i +
                    "]=" + sources[i] + ", size=" + size);
            }
            edgeCount += degrees[i];
        }
        if (edgeCount > destinations.length)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": fewer destinations than the degrees sum to: sum=" +
                edgeCount + ", destinations.length=" + destinations.length);
        }
        if (weighted && edgeCount > weights.length)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": fewer weights than edges: edges=" + edgeCount +
                ", weights.length=" + weights.length);
        }
        return checkEnds(call, "destinations", destinations, (int)edgeCount, size, "weights", weights);
    }

    /** The {@code MPI_DIST_GRAPH_CREATE_ADJACENT} argument rules for this member; null if they hold. */
    private static MPIException checkAdjacent(final int[] sources, final int[] sourceWeights, final int[] destinations,
        final int[] destWeights, final boolean weighted, final int size)
    {
        final String call = "createDistGraphAdjacent";
        if (sources == null || destinations == null)
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": sources and destinations must be given");
        }
        if (weighted && (sourceWeights == null || sourceWeights.length < sources.length || destWeights == null ||
            destWeights.length < destinations.length))
        {
            return new MPIException(ErrorClass.ERR_ARG, call + ": one weight per edge: sources.length=" +
                sources.length + ", sourceWeights.length=" + (sourceWeights == null ? "null" : sourceWeights.length) +
                ", destinations.length=" + destinations.length + ", destWeights.length=" +
                (destWeights == null ? "null" : destWeights.length));
        }
        final MPIException in = checkEnds(call, "sources", sources, sources.length, size, "sourceWeights",
            weighted ? sourceWeights : null);
        return in != null ? in : checkEnds(call, "destinations", destinations, destinations.length, size,
            "destWeights", weighted ? destWeights : null);
    }

    /** Ranks in {@code [0, size)} ({@code MPI.ERR_RANK}) and weights not negative ({@code MPI.ERR_ARG}). */
    private static MPIException checkEnds(final String call, final String what, final int[] ranks, final int count,
        final int size, final String weightsName, final int[] weights)
    {
        for (int k = 0; k < count; k++)
        {
            if (ranks[k] < 0 || ranks[k] >= size)
            {
                return new MPIException(ErrorClass.ERR_RANK, call + ": rank outside the communicator: " + what + "[" +
                    k + "]=" + ranks[k] + ", size=" + size);
            }
            if (weights != null && weights[k] < 0)
            {
                return new MPIException(ErrorClass.ERR_ARG, call + ": negative weight: " + weightsName + "[" + k +
                    "]=" + weights[k]);
            }
        }
        return null;
    }

    /** Throws {@code mine}, else the first other member's error, from a gather of {@code stride} ints a member. */
    private static void throwIfAnyBad(final String call, final MPIException mine, final int[] all, final int stride)
    {
        if (mine != null)
        {
            throw mine;
        }
        for (int r = 0; r < all.length / stride; r++)
        {
            if (all[stride * r] != 0)
            {
                throw otherRankBad(call, r, all[stride * r]);
            }
        }
    }

    private static void throwIfAnyBad(final String call, final MPIException mine, final int[][] all)
    {
        if (mine != null)
        {
            throw mine;
        }
        for (int r = 0; r < all.length; r++)
        {
            if (all[r][0] != 0)
            {
                throw otherRankBad(call, r, all[r][0]);
            }
        }
    }

    private static MPIException otherRankBad(final String call, final int rank, final int errorClass)
    {
        return new MPIException(errorClass, call + ": rank " + rank + " gave bad arguments (" +
            ErrorClass.name(errorClass) + " there)");
    }

    /** MPI: weights are given ({@code MPI_UNWEIGHTED} not) on all members or on none. */
    private static void checkSameWeighting(final String call, final int[][] all, final boolean weighted)
    {
        for (int r = 0; r < all.length; r++)
        {
            if ((all[r][1] == 1) != weighted)
            {
                throw new MPIException(ErrorClass.ERR_ARG, call + ": weights given on some members only: rank " + r +
                    " weighted=" + (all[r][1] == 1) + ", here weighted=" + weighted);
            }
        }
    }

    private static int[] column(final List<int[]> rows, final int column)
    {
        final int[] c = new int[rows.size()];
        for (int i = 0; i < c.length; i++)
        {
            c[i] = rows.get(i)[column];
        }
        return c;
    }

    // ------------------------------------------------------------------------------------------
    // Duplicates

    /** Java binding of {@code MPI_TOPO_TEST}: {@code MPI.GRAPH} or {@code MPI.DIST_GRAPH}. */
    @Override
    public int getTopology()
    {
        check();
        return neighbours == null ? MPI.GRAPH : MPI.DIST_GRAPH;
    }

    /** Java binding of {@code MPI_COMM_DUP} for a graph communicator: the same topology on new context ids. */
    @Override
    public GraphComm dup()
    {
        // The topology is never changed after creation, so the copy may share it.
        return CommConstruction.duplicate(this, new GraphComm(index, edges, neighbours));
    }

    /** Java binding of {@code MPI_COMM_IDUP} for a graph communicator (see {@link Comm#iDup()}). */
    @Override
    public GraphComm iDup()
    {
        return CommConstruction.duplicateNonblocking(this, new GraphComm(index, edges, neighbours));
    }

    /** {@link #dup()}, as in Open MPI. */
    @Override
    public GraphComm clone()
    {
        return dup();
    }

    /**
     * Java binding of {@code MPI_COMM_DUP_WITH_INFO} for a graph communicator: {@link #dup()} with {@code info}'s
     * hints.
     */
    @Override
    public GraphComm dupWithInfo(final Info newInfo)
    {
        final Info hints = CommConstruction.hintsOfDup(this, newInfo);
        return CommConstruction.hinted(dup(), hints);
    }

    // ------------------------------------------------------------------------------------------
    // Queries

    /**
     * Java binding of {@code MPI_GRAPHDIMS_GET} and {@code MPI_GRAPH_GET}: the index and edges
     * the graph was made with. On a distributed graph, {@code MPI.ERR_TOPOLOGY}.
     */
    public GraphParms getDims()
    {
        try
        {
            checkGraphTopology("getDims");
            return new GraphParms(index.clone(), edges.clone());
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GRAPH_NEIGHBORS_COUNT} and {@code MPI_GRAPH_NEIGHBORS}: the nodes
     * {@code rank}'s edges lead to, in the order of the edges. A rank outside the graph is
     * {@code MPI.ERR_RANK}; on a distributed graph, {@code MPI.ERR_TOPOLOGY}.
     */
    public int[] getNeighbors(final int rank)
    {
        try
        {
            checkGraphTopology("getNeighbors");
            if (rank < 0 || rank >= index.length)
            {
                throw new MPIException(ErrorClass.ERR_RANK, "getNeighbors: rank outside the graph: rank=" + rank +
                    ", nnodes=" + index.length);
            }
            return neighboursOf(rank);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_DIST_GRAPH_NEIGHBORS_COUNT} and {@code MPI_DIST_GRAPH_NEIGHBORS}:
     * the caller's in- and out-neighbours with their weights. For {@link Intracomm#createDistGraph}
     * they are in the order of the concatenation of every member's edges in rank order (each
     * member's in the order it gave them); for {@link Intracomm#createDistGraphAdjacent}, the order
     * given. On a graph ({@code MPI_GRAPH}), the caller's neighbours are both its sources and
     * its destinations, unweighted.
     */
    public DistGraphNeighbors getDistGraphNeighbors()
    {
        try
        {
            check();
            if (neighbours != null)
            {
                return neighbours;
            }
            final int[] mine = neighboursOf(getRank());
            return new DistGraphNeighbors(mine, null, mine.clone(), null, false);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GRAPH_MAP}: the caller's rank in a graph of {@code index} and
     * {@code edges} as {@link Intracomm#createGraph} would place it (ranks in order), or
     * {@code MPI.UNDEFINED} if the graph has no node for it. Bad arguments are {@code MPI.ERR_ARG},
     * as for {@code createGraph}. Local.
     */
    public int map(final int[] mapIndex, final int[] mapEdges)
    {
        try
        {
            check();
            final MPIException bad = checkGraph("map", mapIndex, mapEdges, getSize());
            if (bad != null)
            {
                throw bad;
            }
            return getRank() < mapIndex.length ? getRank() : MPI.UNDEFINED;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private void checkGraphTopology(final String call)
    {
        check();
        if (neighbours != null)
        {
            throw new MPIException(ErrorClass.ERR_TOPOLOGY, call + ": not a graph (MPI_GRAPH) communicator but a " +
                "distributed graph: " + getName());
        }
    }

    /**
     * On a graph, the caller's neighbours are its sources and destinations; on a distributed
     * graph, its in- and out-neighbours. Repeated edges between two processes are matched in
     * order, so all tag offsets are 0.
     */
    @Override
    int[][] neighbourhood()
    {
        final DistGraphNeighbors n = getDistGraphNeighbors();
        final int[] sources = new int[n.getInDegree()];
        final int[] destinations = new int[n.getOutDegree()];
        for (int i = 0; i < sources.length; i++)
        {
            sources[i] = n.getSource(i);
        }
        for (int i = 0; i < destinations.length; i++)
        {
            destinations[i] = n.getDestination(i);
        }
        return new int[][] {sources, new int[sources.length], destinations, new int[destinations.length]};
    }

    private int[] neighboursOf(final int node)
    {
        return Arrays.copyOfRange(edges, node == 0 ? 0 : index[node - 1], index[node]);
    }
}
