package mpi;

import org.shmpi.ring.JobAbortedException;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Error handling behind {@link Comm}'s error-handler methods, and the one path every failure of
 * a call on a communicator (and on a window or file) takes to its caller: turned into an
 * {@link MPIException} ({@link #asMpiException}), then given to the error handler in force
 * ({@link #apply}), which aborts the job when it is fatal.
 */
final class CommErrors
{
    private CommErrors()
    {
    }

    /**
     * Applies {@code comm}'s error handler to a failure: a job abort in progress ends the
     * process; under ERRORS_ARE_FATAL the job is aborted with the error's message; under
     * ERRORS_RETURN the error is returned to the caller as an {@link MPIException}.
     */
    static MPIException handle(final Comm comm, final RuntimeException ex)
    {
        final MPIException mpiEx = asMpiException(ex);
        if (MPI.isInitialized() && !MPI.isFinalized() && comm.members != null)
        {
            apply(comm.getErrhandler(), comm, mpiEx);
        }
        return mpiEx;
    }

    /**
     * A failure as the {@link MPIException} a caller sees: its class kept, anything unexpected
     * {@code ERR_INTERN}; a job abort in progress ends the process instead.
     */
    static MPIException asMpiException(final RuntimeException ex)
    {
        if (ex instanceof JobAbortedException)
        {
            Lifecycle.exitBecauseAborted();
        }
        if (ex instanceof MPIException)
        {
            return (MPIException)ex;
        }
        if (ex instanceof ShmpiException)
        {
            return new MPIException(((ShmpiException)ex).errorClass(), ex.getMessage(), ex);
        }
        return new MPIException(ErrorClass.ERR_INTERN, ex.toString(), ex);
    }

    /** The error a {@code callErrhandler} of communicators, windows and files raises for {@code errorCode}. */
    static MPIException applicationError(final int errorCode)
    {
        return new MPIException(errorCode, "error raised by the application: " +
            (errorCode > ErrorClass.ERR_LASTCODE ? "code " + errorCode + " " + MPI.getErrorString(errorCode) :
            ErrorClass.name(errorCode)));
    }

    /** Runs {@code handler} on {@code error} of a call on {@code comm}: aborts the job when it is fatal. */
    static void apply(final Errhandler handler, final Comm comm, final MPIException error)
    {
        if (handler.fatal)
        {
            Lifecycle.fatalError(comm, error);
        }
        else if (handler.function != null)
        {
            handler.function.call(comm, error);
        }
    }

    /** {@code setErrhandler}: a communicator's handler, not a window's. */
    static void set(final Comm comm, final Errhandler handler)
    {
        comm.check();
        if (handler == null || handler.isNull())
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_ARG, "null or freed error handler"));
        }
        if (handler.winFunction != null)
        {
            throw comm.handle(new MPIException(ErrorClass.ERR_ARG, "a window error handler (Win.createErrhandler) " +
                "cannot be set on a communicator"));
        }
        comm.errhandler = handler;
    }

    /** {@code callErrhandler}: runs {@code comm}'s handler on an application error; returns unless it is fatal. */
    static void call(final Comm comm, final int errorCode)
    {
        comm.check();
        final Errhandler h = comm.getErrhandler();
        final MPIException error = applicationError(errorCode);
        if (h.fatal)
        {
            Lifecycle.fatalError(comm, error);
        }
        else if (h.function != null)
        {
            h.function.call(comm, error);
        }
    }

    /** {@code Comm.createErrhandler}: a handler that runs {@code function}. */
    static Errhandler create(final Errhandler.Function function)
    {
        MPI.check();
        if (function == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "createErrhandler: null function"));
        }
        return new Errhandler(function);
    }
}
