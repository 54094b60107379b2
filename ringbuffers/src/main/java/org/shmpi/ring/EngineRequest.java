package org.shmpi.ring;

import java.util.function.Consumer;

/**
 * What the engines know of a pending operation: whether it completed, how (error class,
 * cancelled) and the status of the matched message. Fields are written by the thread that
 * drives progress; {@code complete} is volatile so that other threads may poll it.
 */
public abstract class EngineRequest
{
    volatile boolean complete;
    volatile boolean cancelled;
    int errorClass;
    Consumer<EngineRequest> onComplete;

    /** Whether the operation has completed (successfully, with an error, or cancelled). */
    public final boolean isComplete()
    {
        return complete;
    }

    public final boolean isCancelled()
    {
        return cancelled;
    }

    /** MPI error class of a completed operation (0 on success). */
    public final int errorClass()
    {
        return errorClass;
    }

    /**
     * A callback run once, when the operation completes, on the thread that drives progress
     * at that moment, outside the engine's internal state (it may call the engine again). If the
     * request is already complete it runs at the next progress call.
     */
    public final void onComplete(final Consumer<EngineRequest> callback)
    {
        this.onComplete = callback;
    }
}
