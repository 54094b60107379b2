package mpi;

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
        return duplicate(new Intracomm(""));
    }

    /** {@link #dup()}, as in Open MPI. */
    @Override
    public Intracomm clone()
    {
        return dup();
    }
}
