package mpi;

/**
 * Called once when an operation completes (shmpi extension, in the spirit of StarPU-MPI's
 * detached requests). It runs on the thread that drives progress at that moment: inside any
 * blocking or testing MPI call of this rank, or {@link MPI#progress()}. It may call MPI.
 */
@FunctionalInterface
public interface CompletionCallback
{
    /** @param status the status of the completed operation */
    void completed(Status status);
}
