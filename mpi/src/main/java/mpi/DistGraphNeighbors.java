package mpi;

import java.util.Objects;

/**
 * Java binding of {@code MPI_DIST_GRAPH_NEIGHBORS_COUNT} and {@code MPI_DIST_GRAPH_NEIGHBORS}
 * together: the caller's in-neighbours (sources) and out-neighbours (destinations) in a
 * {@link GraphComm}, in the order {@link GraphComm#getDistGraphNeighbors()} documents, with
 * their edge weights. For an unweighted topology ({@code MPI_UNWEIGHTED}) every weight reads 1.
 */
public final class DistGraphNeighbors
{
    private final int[] sources;
    private final int[] sourceWeights;
    private final int[] destinations;
    private final int[] destinationWeights;
    private final boolean weighted;

    DistGraphNeighbors(final int[] sources, final int[] sourceWeights, final int[] destinations,
        final int[] destinationWeights, final boolean weighted)
    {
        this.sources = sources;
        this.sourceWeights = sourceWeights;
        this.destinations = destinations;
        this.destinationWeights = destinationWeights;
        this.weighted = weighted;
    }

    /** Number of edges into the caller ({@code indegree}). */
    public int getInDegree()
    {
        return sources.length;
    }

    /** Number of edges out of the caller ({@code outdegree}). */
    public int getOutDegree()
    {
        return destinations.length;
    }

    /** Whether the topology was made with weights ({@code weighted} of {@code MPI_DIST_GRAPH_NEIGHBORS_COUNT}). */
    public boolean isWeighted()
    {
        return weighted;
    }

    /** The rank at the other end of in-edge {@code i}. */
    public int getSource(final int i)
    {
        return sources[i];
    }

    /** The weight of in-edge {@code i}; 1 if unweighted. */
    public int getSourceWeight(final int i)
    {
        if (!weighted)
        {
            Objects.checkIndex(i, sources.length);
            return 1;
        }
        return sourceWeights[i];
    }

    /** The rank at the other end of out-edge {@code i}. */
    public int getDestination(final int i)
    {
        return destinations[i];
    }

    /** The weight of out-edge {@code i}; 1 if unweighted. */
    public int getDestinationWeight(final int i)
    {
        if (!weighted)
        {
            Objects.checkIndex(i, destinations.length);
            return 1;
        }
        return destinationWeights[i];
    }
}
