package mpi;

/**
 * An error handler: what happens when a call on a communicator fails. {@link MPI#ERRORS_ARE_FATAL}
 * (the default on communicators) aborts the whole job with the error's message;
 * {@link MPI#ERRORS_RETURN} throws an {@link MPIException} to the caller.
 */
public final class Errhandler
{
    final boolean fatal;
    private final String name;

    Errhandler(final boolean fatal, final String name)
    {
        this.fatal = fatal;
        this.name = name;
    }

    /** Java binding of {@code MPI_ERRHANDLER_FREE}; predefined handlers stay valid. */
    public void free()
    {
        // Predefined handlers cannot be freed; nothing to release.
    }

    /** Whether this is a null handle (never, for the predefined handlers). */
    public boolean isNull()
    {
        return false;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
