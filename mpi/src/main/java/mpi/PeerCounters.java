package mpi;

/**
 * Messages and bytes this rank has sent to and received from each rank of a communicator since
 * {@code MPI.Init} (shmpi extension, like StarPU-MPI's communication amounts). A snapshot: it
 * does not change after it is taken. Counts include every point-to-point message, also those
 * that collectives send internally.
 */
public final class PeerCounters
{
    private final long[] messagesSent;
    private final long[] bytesSent;
    private final long[] messagesReceived;
    private final long[] bytesReceived;

    PeerCounters(final long[] messagesSent, final long[] bytesSent, final long[] messagesReceived,
        final long[] bytesReceived)
    {
        this.messagesSent = messagesSent;
        this.bytesSent = bytesSent;
        this.messagesReceived = messagesReceived;
        this.bytesReceived = bytesReceived;
    }

    /** Number of ranks covered (the communicator's size). */
    public int size()
    {
        return messagesSent.length;
    }

    public long messagesSent(final int rank)
    {
        return messagesSent[rank];
    }

    public long bytesSent(final int rank)
    {
        return bytesSent[rank];
    }

    public long messagesReceived(final int rank)
    {
        return messagesReceived[rank];
    }

    public long bytesReceived(final int rank)
    {
        return bytesReceived[rank];
    }
}
