package org.shmpi.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

import org.shmpi.shm.BlockedCall;

/**
 * What the engines know of a pending operation: whether it completed, how (error class,
 * cancelled) and the status of the matched message. Fields are written by the thread that
 * drives progress; {@code complete} is volatile so that other threads may poll it.
 *
 * <p>Completion goes through {@link RequestCompletion}: it marks the request complete, hands its
 * callback (if any) to be run outside the engine's state, and wakes waiters. A callback
 * registered on a request that is already complete runs at once, on the registering thread.
 */
public abstract class EngineRequest
{
    private static final VarHandle ON_COMPLETE;

    static
    {
        try
        {
            ON_COMPLETE = MethodHandles.lookup().findVarHandle(EngineRequest.class, "onComplete", Consumer.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    volatile boolean complete;
    volatile boolean cancelled;
    int errorClass;
    /**
     * Set by {@link #onComplete}, taken (getAndSet to null) exactly once by whoever runs it. With
     * {@code complete} it forms a Dekker pair: the registrar stores this then loads complete, the
     * completer stores complete then loads this, so at least one of them sees the other.
     */
    private volatile Consumer<EngineRequest> onComplete;
    /**
     * What must stay reachable while the engine may still read or write the operation's memory
     * by raw address (a direct buffer whose address the request holds); dropped at completion.
     * Benign race: a retain that loses against completion only keeps the object a little longer.
     */
    private Object retained;

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
     * Keeps {@code owner} (typically the user's direct buffer) reachable until the operation
     * completes, even if every other reference to it is dropped ({@code MPI_REQUEST_FREE}).
     */
    public final void retain(final Object owner)
    {
        if (!complete)
        {
            retained = owner;
        }
    }

    /** The object kept reachable by {@link #retain}, or null once complete. */
    final Object retained()
    {
        return retained;
    }

    /**
     * A callback run once, when the operation completes: on the thread that drives progress at
     * that moment, outside the engine's internal state (it may call the engine again). If the
     * request is already complete it runs at once, on the calling thread. A second registration
     * replaces a first one that has not run yet.
     */
    public final void onComplete(final Consumer<EngineRequest> callback)
    {
        if (complete)
        {
            // Never through the slot: a request that is complete from the start (the shared one
            // of sends done at once) may be registered on by several threads at the same time.
            callback.accept(this);
            return;
        }
        onComplete = callback;
        if (complete)
        {
            runCallback();
        }
    }

    /** Runs the registered callback if nobody has yet; returns whether this call ran it. */
    final boolean runCallback()
    {
        @SuppressWarnings("unchecked")
        final Consumer<EngineRequest> cb = (Consumer<EngineRequest>)ON_COMPLETE.getAndSet(this, null);
        if (cb != null)
        {
            cb.accept(this);
            return true;
        }
        return false;
    }

    /**
     * Marks the request complete (volatile store: publishes the status fields written before)
     * and says whether a callback waits to be run. Called once, by {@link RequestCompletion}.
     */
    final boolean markComplete()
    {
        retained = null;
        complete = true;
        return onComplete != null;
    }

    // What a blocking wait on this request records in the rank's slot (BlockedCall); read only
    // when a wait starts to idle.

    /** The call a blocking wait on this request is, when the caller names none. */
    int blockedCall()
    {
        return BlockedCall.WAIT;
    }

    int waitOn()
    {
        return BlockedCall.ON_OTHER;
    }

    int waitPeer()
    {
        return BlockedCall.NO_PEER;
    }

    int waitTag()
    {
        return 0;
    }

    int waitContext()
    {
        return -1;
    }

    long waitBytes()
    {
        return 0;
    }
}
