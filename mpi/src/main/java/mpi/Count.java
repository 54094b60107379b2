package mpi;

/** A count that may exceed {@code int} (Java binding of {@code MPI_Count}). */
public final class Count implements Comparable<Object>
{
    private long count;

    public Count(final long count)
    {
        this.count = count;
    }

    public long getCount()
    {
        return count;
    }

    public void setCount(final long count)
    {
        this.count = count;
    }

    @Override
    public boolean equals(final Object obj)
    {
        return obj instanceof Count && ((Count)obj).count == count;
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(count);
    }

    @Override
    public int compareTo(final Object obj)
    {
        return Long.compare(count, ((Count)obj).count);
    }

    @Override
    public String toString()
    {
        return Long.toString(count);
    }
}
