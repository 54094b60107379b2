package mpi;

/**
 * Java binding of {@code MPI_GRAPH_GET}'s results: the graph a {@link GraphComm} was made with.
 * Node {@code i}'s neighbours are the edges from {@code getIndex(i - 1)} (0 for node 0) up to,
 * not including, {@code getIndex(i)}.
 */
public final class GraphParms
{
    private final int[] index;
    private final int[] edges;

    GraphParms(final int[] index, final int[] edges)
    {
        this.index = index;
        this.edges = edges;
    }

    /** Number of nodes ({@code nnodes}), the length of the index. */
    public int getIndexCount()
    {
        return index.length;
    }

    /** The cumulative degree of nodes 0 to {@code i}. */
    public int getIndex(final int i)
    {
        return index[i];
    }

    /** Number of edges ({@code nedges}), the last index entry. */
    public int getEdgeCount()
    {
        return edges.length;
    }

    /** Edge {@code i}: the node it leads to. */
    public int getEdge(final int i)
    {
        return edges[i];
    }
}
