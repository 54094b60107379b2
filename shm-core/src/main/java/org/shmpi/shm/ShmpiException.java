package org.shmpi.shm;

/**
 * An error raised by an shmpi engine, carrying its MPI error class. The public {@code mpi}
 * layer turns it into an {@code MPIException} and applies the communicator's error handler.
 */
public class ShmpiException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int errorClass;

    public ShmpiException(final int errorClass, final String message)
    {
        super(message);
        this.errorClass = errorClass;
    }

    public ShmpiException(final int errorClass, final String message, final Throwable cause)
    {
        super(message, cause);
        this.errorClass = errorClass;
    }

    /** The MPI error class, one of {@link ErrorClass}. */
    public int errorClass()
    {
        return errorClass;
    }
}
