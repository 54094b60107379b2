package mpi;

/** Java binding of {@code MPI_CART_SHIFT}'s results: the ranks to receive from and to send to. */
public final class ShiftParms
{
    private final int source;
    private final int dest;

    ShiftParms(final int source, final int dest)
    {
        this.source = source;
        this.dest = dest;
    }

    /** The rank {@code disp} steps back ({@code MPI.PROC_NULL} off a non-periodic edge). */
    public int getRankSource()
    {
        return source;
    }

    /** The rank {@code disp} steps ahead ({@code MPI.PROC_NULL} off a non-periodic edge). */
    public int getRankDest()
    {
        return dest;
    }
}
