package mpi;

/**
 * The result of a receive: source, tag, error and length of the message. Java binding of
 * {@code MPI_Status}.
 */
public final class Status
{
    int source;
    int tag;
    int error;
    long bytes;
    boolean cancelled;
    int index = MPI.UNDEFINED;

    Status(final int source, final int tag, final int error, final long bytes)
    {
        this.source = source;
        this.tag = tag;
        this.error = error;
        this.bytes = bytes;
    }

    /** Rank of the sender in the receiving communicator, or {@code MPI.PROC_NULL}. */
    public int getSource()
    {
        return source;
    }

    /** Tag of the received message. */
    public int getTag()
    {
        return tag;
    }

    /** MPI error class of the receive ({@code MPI.SUCCESS} when it succeeded). */
    public int getError()
    {
        return error;
    }

    /**
     * Java binding of {@code MPI_GET_COUNT}: number of whole elements of {@code datatype}
     * received, or {@code MPI.UNDEFINED} when the byte count is not a multiple of its size.
     */
    public int getCount(final Datatype datatype)
    {
        MPI.checkDatatype(datatype);
        if (datatype.size == 0)
        {
            return bytes == 0 ? 0 : MPI.UNDEFINED;
        }
        if (bytes % datatype.size != 0 || bytes / datatype.size > Integer.MAX_VALUE)
        {
            return MPI.UNDEFINED;
        }
        return (int)(bytes / datatype.size);
    }

    /** Java binding of {@code MPI_GET_ELEMENTS}: for basic types, equal to {@link #getCount}. */
    public int getElements(final Datatype datatype)
    {
        return getCount(datatype);
    }

    /** Java binding of {@code MPI_TEST_CANCELLED}. */
    public boolean isCancelled()
    {
        return cancelled;
    }

    /** Index of the completed request in a wait/test-any call, else {@code MPI.UNDEFINED}. */
    public int getIndex()
    {
        return index;
    }

    @Override
    public String toString()
    {
        return "Status[source=" + source + ", tag=" + tag + ", error=" + error + ", bytes=" + bytes + "]";
    }
}
