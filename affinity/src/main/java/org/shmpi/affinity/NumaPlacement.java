package org.shmpi.affinity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Chooses which process takes which rank of a new communicator so that ranks that talk to each
 * other share a NUMA node (the {@code reorder} of {@code MPI_CART_CREATE} and, later, of the
 * graph topologies). Pure: it sees only a label per process (its node) and a weighted graph
 * over the new ranks.
 *
 * <p>The rule, in full:
 * <ol>
 *   <li>Processes with the same label are one node; the nodes are taken in the order of their
 *       lowest process, and a node's capacity is its number of processes.</li>
 *   <li>Each node in turn is given as many new ranks as its capacity, grown greedily over the
 *       graph: first the lowest new rank not yet given; then, again and again, the rank not yet
 *       given with the largest total weight of edges to the ranks this node already has (ties:
 *       the lowest rank; when nothing left is connected, the lowest rank left). On a row-major
 *       grid this takes whole rows, i.e. contiguous blocks of rows.</li>
 *   <li>Within a node, its processes take its new ranks in ascending order of both, so that a
 *       process keeps its rank whenever its node's block holds it.</li>
 *   <li>If the result does not cut strictly less edge weight between nodes than the identity,
 *       the identity is returned: reordering never makes things worse. With every process on
 *       one node, nothing is cut either way, so nothing moves.</li>
 * </ol>
 * Processes not bound inside one node may be given a label of their own (e.g. -1, or one per
 * set of nodes they span); they are then placed as one more node.
 */
public final class NumaPlacement
{
    private NumaPlacement()
    {
    }

    /**
     * An undirected weighted graph over vertices {@code 0..n-1} (the new ranks), as adjacency
     * lists; adding an edge twice adds its weights. Self loops are ignored.
     */
    public static final class Graph
    {
        private final int[][] neighbours;
        private final int[][] weights;
        private final int[] degree;

        /** @param vertices number of vertices, non-negative */
        public Graph(final int vertices)
        {
            if (vertices < 0)
            {
                throw new IllegalArgumentException("negative vertex count: vertices=" + vertices);
            }
            neighbours = new int[vertices][4];
            weights = new int[vertices][4];
            degree = new int[vertices];
        }

        /** @return the number of vertices. */
        public int size()
        {
            return degree.length;
        }

        /**
         * Adds {@code weight} to the edge between {@code a} and {@code b}.
         *
         * @param a      a vertex
         * @param b      a vertex
         * @param weight a positive weight
         * @return this graph
         */
        public Graph addEdge(final int a, final int b, final int weight)
        {
            checkVertex(a);
            checkVertex(b);
            if (weight <= 0)
            {
                throw new IllegalArgumentException(
                    "weight must be positive: a=" + a + ", b=" + b + ", weight=" + weight);
            }
            if (a != b)
            {
                add(a, b, weight);
                add(b, a, weight);
            }
            return this;
        }

        private void add(final int from, final int to, final int weight)
        {
            for (int i = 0; i < degree[from]; i++)
            {
                if (neighbours[from][i] == to)
                {
                    weights[from][i] += weight;
                    return;
                }
            }
            if (degree[from] == neighbours[from].length)
            {
                neighbours[from] = Arrays.copyOf(neighbours[from], 2 * degree[from]);
                weights[from] = Arrays.copyOf(weights[from], 2 * degree[from]);
            }
            neighbours[from][degree[from]] = to;
            weights[from][degree[from]] = weight;
            degree[from]++;
        }

        /**
         * @param a a vertex
         * @param b a vertex
         * @return the weight of the edge between them, 0 if none
         */
        public int weight(final int a, final int b)
        {
            checkVertex(a);
            checkVertex(b);
            for (int i = 0; i < degree[a]; i++)
            {
                if (neighbours[a][i] == b)
                {
                    return weights[a][i];
                }
            }
            return 0;
        }

        private void checkVertex(final int v)
        {
            if (v < 0 || v >= degree.length)
            {
                throw new IllegalArgumentException("vertex out of range: vertex=" + v + ", vertices=" + degree.length);
            }
        }
    }

    /**
     * The neighbour graph of a row-major Cartesian grid: each rank joined with weight 1 to the
     * rank one step away along each dimension in each direction, across the edge where the
     * dimension is periodic (so a periodic dimension of 2 joins the pair with weight 2).
     *
     * @param dims    the extent of each dimension, each at least 1
     * @param periods whether each dimension wraps around
     * @return the graph over {@code product(dims)} ranks
     */
    public static Graph cartesian(final int[] dims, final boolean[] periods)
    {
        Objects.requireNonNull(dims, "dims");
        Objects.requireNonNull(periods, "periods");
        if (dims.length != periods.length)
        {
            throw new IllegalArgumentException("dims and periods differ in length: dims=" + dims.length
                + ", periods=" + periods.length);
        }
        long product = 1;
        for (final int d : dims)
        {
            if (d < 1)
            {
                throw new IllegalArgumentException("dimension below 1: dims=" + Arrays.toString(dims));
            }
            product *= d;
            if (product > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException("grid too large: dims=" + Arrays.toString(dims));
            }
        }
        final int n = (int)product;
        final Graph graph = new Graph(n);
        final int[] coords = new int[dims.length];
        for (int rank = 0; rank < n; rank++)
        {
            int rest = rank;
            for (int d = dims.length - 1; d >= 0; d--)
            {
                coords[d] = rest % dims[d];
                rest /= dims[d];
            }
            int stride = 1;
            for (int d = dims.length - 1; d >= 0; d--)
            {
                // Each edge once: from a rank to the one above it in dimension d.
                if (coords[d] + 1 < dims[d])
                {
                    graph.addEdge(rank, rank + stride, 1);
                }
                else if (periods[d] && dims[d] > 1)
                {
                    graph.addEdge(rank, rank - coords[d] * stride, 1);
                }
                stride *= dims[d];
            }
        }
        return graph;
    }

    /**
     * @param nodeOfProcess the node label of each process
     * @param graph         the communication graph over the new ranks, as many vertices as processes
     * @return {@code processOfRank}: new rank {@code r} is taken by process {@code processOfRank[r]};
     *         a permutation of {@code 0..n-1}
     */
    public static int[] place(final int[] nodeOfProcess, final Graph graph)
    {
        Objects.requireNonNull(nodeOfProcess, "nodeOfProcess");
        Objects.requireNonNull(graph, "graph");
        final int n = nodeOfProcess.length;
        if (graph.size() != n)
        {
            throw new IllegalArgumentException("graph and processes differ in size: vertices=" + graph.size()
                + ", processes=" + n);
        }
        final int[] identity = new int[n];
        Arrays.setAll(identity, i -> i);

        final Map<Integer, List<Integer>> processesByNode = new LinkedHashMap<>();
        for (int p = 0; p < n; p++)
        {
            processesByNode.computeIfAbsent(nodeOfProcess[p], k -> new ArrayList<>()).add(p);
        }
        if (processesByNode.size() <= 1)
        {
            return identity;
        }

        final int[] processOfRank = new int[n];
        final boolean[] given = new boolean[n];
        final long[] gain = new long[n];
        final boolean[] mine = new boolean[n];
        for (final List<Integer> processes : processesByNode.values())
        {
            Arrays.fill(gain, 0);
            Arrays.fill(mine, false);
            final int capacity = processes.size();
            for (int taken = 0; taken < capacity; taken++)
            {
                int best = -1;
                for (int r = 0; r < n; r++)
                {
                    if (!given[r] && (best < 0 || gain[r] > gain[best]))
                    {
                        best = r;
                    }
                }
                given[best] = true;
                mine[best] = true;
                for (int i = 0; i < graph.degree[best]; i++)
                {
                    gain[graph.neighbours[best][i]] += graph.weights[best][i];
                }
            }
            int next = 0;
            for (int r = 0; r < n; r++)
            {
                if (mine[r])
                {
                    processOfRank[r] = processes.get(next++);
                }
            }
        }
        return cutWeight(nodeOfProcess, processOfRank, graph) < cutWeight(nodeOfProcess, identity, graph)
            ? processOfRank : identity;
    }

    /**
     * The total weight of the edges whose two ranks are taken by processes on different nodes;
     * each edge counted once.
     *
     * @param nodeOfProcess the node label of each process
     * @param processOfRank which process takes each new rank
     * @param graph         the graph over the new ranks
     * @return the cut weight
     */
    public static long cutWeight(final int[] nodeOfProcess, final int[] processOfRank, final Graph graph)
    {
        long cut = 0;
        for (int r = 0; r < graph.size(); r++)
        {
            for (int i = 0; i < graph.degree[r]; i++)
            {
                final int s = graph.neighbours[r][i];
                if (r < s && nodeOfProcess[processOfRank[r]] != nodeOfProcess[processOfRank[s]])
                {
                    cut += graph.weights[r][i];
                }
            }
        }
        return cut;
    }
}
