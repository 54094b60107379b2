package mpi;

import org.shmpi.shm.ErrorClass;

/**
 * An error handler: what happens when a call on a communicator fails. {@link MPI#ERRORS_ARE_FATAL}
 * (the default on communicators) aborts the whole job with the error's message;
 * {@link MPI#ERRORS_RETURN} throws an {@link MPIException} to the caller; a handler made by
 * {@link Comm#createErrhandler} runs its {@link Function} first, then the error is thrown.
 */
public final class Errhandler
{
    /** + The body of a user error handler ({@code MPI_Comm_errhandler_function}). */
    @FunctionalInterface
    public interface Function
    {
        /**
         * @param comm  the communicator the failed call was made on
         * @param error the error: {@link MPIException#getErrorCode()} and {@link MPIException#getErrorClass()}
         */
        void call(Comm comm, MPIException error);
    }

    /** + The body of a user error handler of windows ({@code MPI_Win_errhandler_function}). */
    @FunctionalInterface
    public interface WinFunction
    {
        /**
         * @param win   the window the failed call was made on
         * @param error the error: {@link MPIException#getErrorCode()} and {@link MPIException#getErrorClass()}
         */
        void call(Win win, MPIException error);
    }

    final boolean fatal;
    final Function function;
    final WinFunction winFunction;
    private final String name;
    private boolean freed;

    Errhandler(final boolean fatal, final String name)
    {
        this.fatal = fatal;
        this.function = null;
        this.winFunction = null;
        this.name = name;
    }

    Errhandler(final Function function)
    {
        this.fatal = false;
        this.function = function;
        this.winFunction = null;
        this.name = "user error handler";
    }

    Errhandler(final WinFunction function)
    {
        this.fatal = false;
        this.function = null;
        this.winFunction = function;
        this.name = "user window error handler";
    }

    /**
     * Java binding of {@code MPI_ERRHANDLER_FREE}: a user handler's handle becomes null
     * (communicators it is set on keep using it, as MPI says). The predefined handlers cannot
     * be freed: {@code MPI.ERR_ARG}.
     */
    public void free()
    {
        MPI.check();
        if (function == null && winFunction == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG,
                "a predefined error handler cannot be freed: " + name));
        }
        freed = true;
    }

    /** Whether this handle was freed ({@code MPI_ERRHANDLER_NULL}); never for the predefined handlers. */
    public boolean isNull()
    {
        return freed;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
