package org.shmpi.ring;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Completing a request, for every engine of a rank (point-to-point today; collectives, RMA and
 * I/O later): record the error class or cancellation, mark it complete, queue its callback to be
 * run outside the engine's state, and count the completion so that waiting threads are woken.
 *
 * <p>{@link #complete} is called by the thread that drives progress, with the engine's state
 * consistent. Callbacks queued by it run in {@link #runCallbacks}, which the engine calls after
 * releasing its lock; a callback may call the engine again.
 */
public final class RequestCompletion
{
    private final ConcurrentLinkedQueue<EngineRequest> callbacks = new ConcurrentLinkedQueue<>();
    /** Bumped on every completion and wake: lets a sleeping thread notice work done by others. */
    private final AtomicLong generation = new AtomicLong();
    private final boolean countGenerations;
    /** Completions since {@link #takeCompletions}; progress thread only. */
    private int completions;

    /** @param countGenerations whether several threads wait (THREAD_MULTIPLE) and need the count */
    public RequestCompletion(final boolean countGenerations)
    {
        this.countGenerations = countGenerations;
    }

    /** Completes {@code request} successfully. */
    public void complete(final EngineRequest request)
    {
        if (request.complete)
        {
            return;
        }
        if (request.markComplete())
        {
            callbacks.add(request);
        }
        completions++;
        if (countGenerations)
        {
            generation.incrementAndGet();
        }
    }

    /** Completes {@code request} with an MPI error class (0 is success). */
    public void fail(final EngineRequest request, final int errorClass)
    {
        request.errorClass = errorClass;
        complete(request);
    }

    /** Completes {@code request} as cancelled. */
    public void cancelled(final EngineRequest request)
    {
        request.cancelled = true;
        complete(request);
    }

    /** Returns and resets the number of completions since the last call. */
    public int takeCompletions()
    {
        final int n = completions;
        completions = 0;
        return n;
    }

    /** Whether callbacks wait to be run. */
    public boolean hasCallbacks()
    {
        return !callbacks.isEmpty();
    }

    /** Runs queued callbacks; call without holding the engine's lock. Returns how many ran. */
    public int runCallbacks()
    {
        int n = 0;
        EngineRequest r;
        while ((r = callbacks.poll()) != null)
        {
            if (r.runCallback())
            {
                n++;
            }
        }
        return n;
    }

    /** The current generation (see {@link #bump}). */
    public long generation()
    {
        return generation.get();
    }

    /** Records that something a waiter may care about happened outside a completion. */
    public void bump()
    {
        generation.incrementAndGet();
    }
}
