package org.shmpi.shm;

/**
 * What a rank's runtime says about itself when the job's status is asked for: the state of its
 * engines (posted receives, unexpected messages, sends in progress, by peer). Called on the
 * rank's watchdog thread; the runtime answers from the thread that owns the engines.
 */
public interface StatusSource
{
    /**
     * @param timeoutMs how long to wait for the engines' owner to answer
     * @return lines describing the engines, or null when no answer came in time (the rank is not
     *         inside an MPI call, so its engines are not being driven)
     */
    String describe(long timeoutMs);
}
