package mpi;

/**
 * The result of a receive or a completed request: source, tag, error, length and whether it
 * was cancelled. Java binding of {@code MPI_Status}.
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

    /** An empty status, as MPI defines it: any source, any tag, success, no data. */
    static Status empty()
    {
        return new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, MPI.SUCCESS, 0);
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

    /** MPI error class of the operation ({@code MPI.SUCCESS} when it succeeded). */
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

    /**
     * Java binding of {@code MPI_GET_ELEMENTS}: number of basic elements received; for a pair
     * type each part counts.
     */
    public int getElements(final Datatype datatype)
    {
        final long n = getElementsX(datatype).getCount();
        return n > Integer.MAX_VALUE ? MPI.UNDEFINED : (int)n;
    }

    /** Java binding of {@code MPI_GET_ELEMENTS_X}. */
    public Count getElementsX(final Datatype datatype)
    {
        MPI.checkDatatype(datatype);
        if (datatype.size == 0)
        {
            return new Count(0);
        }
        if (datatype.derived)
        {
            final long n = Datatype.elementsIn(datatype.map, bytes);
            return new Count(n < 0 ? MPI.UNDEFINED : n);
        }
        final long whole = bytes / datatype.size;
        final long rest = bytes % datatype.size;
        long elements = whole * datatype.elementsPerItem;
        if (rest != 0)
        {
            if (datatype.elementsPerItem == 1 || rest != datatype.firstPartSize)
            {
                return new Count(MPI.UNDEFINED);
            }
            elements++;
        }
        return new Count(elements);
    }

    /** Java binding of {@code MPI_STATUS_SET_ELEMENTS}: for generalized requests. */
    public void setElements(final Datatype datatype, final int count)
    {
        setElementsX(datatype, new Count(count));
    }

    /** Java binding of {@code MPI_STATUS_SET_ELEMENTS_X}. */
    public void setElementsX(final Datatype datatype, final Count count)
    {
        MPI.checkDatatype(datatype);
        if (count == null || count.getCount() < 0)
        {
            throw new MPIException(MPI.ERR_COUNT, "invalid element count: " + count);
        }
        bytes = count.getCount() / datatype.elementsPerItem * datatype.size;
    }

    /** Java binding of {@code MPI_STATUS_SET_CANCELLED}. */
    public void setCancelled(final boolean flag)
    {
        cancelled = flag;
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

    /** shmpi extension: the length of the message in bytes. */
    public long getBytes()
    {
        return bytes;
    }

    Status withIndex(final int i)
    {
        index = i;
        return this;
    }

    @Override
    public String toString()
    {
        return "Status[source=" + source + ", tag=" + tag + ", error=" + error + ", bytes=" + bytes +
            (cancelled ? ", cancelled" : "") + "]";
    }
}
