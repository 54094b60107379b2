package mpi;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * An MPI error. Unlike Open MPI's, this exception is unchecked: code written for Open MPI
 * (with {@code throws MPIException} and {@code catch (MPIException e)}) compiles unchanged, and
 * new code need not declare it. It carries the MPI error class and code; {@link #getMessage()}
 * is the binding of {@code MPI_Error_string}.
 */
public final class MPIException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int errorCode;
    private final int errorClass;

    /** An error of class {@code MPI_ERR_OTHER} with the given message. */
    public MPIException(final String message)
    {
        this(ErrorClass.ERR_OTHER, message);
    }

    /** An error of class {@code MPI_ERR_OTHER} caused by {@code cause}. */
    public MPIException(final Throwable cause)
    {
        super(cause == null ? null : cause.toString(), cause);
        this.errorCode = cause instanceof ShmpiException ? ((ShmpiException)cause).errorClass() : ErrorClass.ERR_OTHER;
        this.errorClass = errorCode;
    }

    /**
     * An error with the given code and message. For a predefined class the code is the class;
     * for a code made by {@link MPI#addErrorCode(int)} the class is the one it was added to.
     */
    public MPIException(final int errorCode, final String message)
    {
        super(message);
        this.errorCode = errorCode;
        this.errorClass = ErrorCodes.classOf(errorCode);
    }

    MPIException(final int errorCode, final String message, final Throwable cause)
    {
        super(message, cause);
        this.errorCode = errorCode;
        this.errorClass = ErrorCodes.classOf(errorCode);
    }

    /** The MPI error code. */
    public int getErrorCode()
    {
        return errorCode;
    }

    /** The MPI error class, one of the {@code MPI.ERR_*} constants. */
    public int getErrorClass()
    {
        return errorClass;
    }
}
