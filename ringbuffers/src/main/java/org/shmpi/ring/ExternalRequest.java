package org.shmpi.ring;

/**
 * A request for an operation that no engine runs: the application's own work behind a
 * generalized request ({@code MPI_GREQUEST_START}), or any module's operation that finishes on a
 * thread of its own. It completes through {@link ProgressEngine#completeExternal}, from any
 * thread, so that waiters and callbacks behave as for engine requests.
 */
public final class ExternalRequest extends EngineRequest
{
    /**
     * Marks it complete with {@code errorClass} and runs its callback, if any, on the calling
     * thread. Returns false when it was already complete (nothing done). Thread-safe. Prefer
     * {@link ProgressEngine#completeExternal}, which also wakes the rank's waiting threads; this
     * alone is for when no engine runs any more (after finalization).
     */
    public synchronized boolean finish(final int errorClass)
    {
        if (complete)
        {
            return false;
        }
        this.errorClass = errorClass;
        if (markComplete())
        {
            runCallback();
        }
        return true;
    }
}
