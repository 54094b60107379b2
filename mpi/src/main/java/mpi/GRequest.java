package mpi;

import org.shmpi.ring.ExternalRequest;

/**
 * A generalized request (shmpi extension; Java binding of {@code MPI_GREQUEST_START} and
 * {@code MPI_GREQUEST_COMPLETE}): an operation of the application's own, represented as a
 * {@link Request} so that it can be waited for and tested together with MPI's requests. The
 * application calls {@link #complete()} when its operation is done, from any thread.
 */
public final class GRequest extends Request
{
    /** Fills the status of the completed operation ({@code query_fn}). */
    @FunctionalInterface
    public interface QueryFunction
    {
        void query(Status status);
    }

    /** Releases the application's resources when the request is consumed ({@code free_fn}). */
    @FunctionalInterface
    public interface FreeFunction
    {
        void free();
    }

    /** Asks the application to cancel its operation ({@code cancel_fn}). */
    @FunctionalInterface
    public interface CancelFunction
    {
        void cancel(boolean complete);
    }

    private final QueryFunction query;
    private final FreeFunction freeFn;
    private final CancelFunction cancelFn;
    /** The operation as the engines see it: completed through the progress engine. */
    private final ExternalRequest external;
    private boolean freed;

    private GRequest(final QueryFunction query, final FreeFunction freeFn, final CancelFunction cancelFn)
    {
        this(new ExternalRequest(), query, freeFn, cancelFn);
    }

    private GRequest(
        final ExternalRequest external, final QueryFunction query, final FreeFunction freeFn,
        final CancelFunction cancelFn)
    {
        super(MPI.COMM_SELF, external, null);
        this.external = external;
        this.query = query;
        this.freeFn = freeFn;
        this.cancelFn = cancelFn;
        this.nullHandle = false;
    }

    /**
     * Java binding of {@code MPI_GREQUEST_START}.
     *
     * @param query    fills the status once complete (may be null: an empty status)
     * @param free     called once when the request is consumed or freed (may be null)
     * @param cancel   called by {@link Request#cancel()} (may be null)
     */
    public static GRequest start(final QueryFunction query, final FreeFunction free, final CancelFunction cancel)
    {
        MPI.check();
        return new GRequest(query, free, cancel);
    }

    /**
     * Java binding of {@code MPI_GREQUEST_COMPLETE}: the operation is done. Any thread may call
     * it; a callback registered with {@link #onComplete} runs here, on that thread.
     */
    public void complete()
    {
        // Completed through the progress engine like any request: a callback registered with
        // onComplete runs here, on this thread, exactly once; waiting threads are woken.
        if (MPI.isInitialized() && !MPI.isFinalized())
        {
            MPI.context().progress().completeExternal(external, MPI.SUCCESS);
        }
        else
        {
            external.finish(MPI.SUCCESS);
        }
    }

    @Override
    boolean isActive()
    {
        return !nullHandle;
    }

    @Override
    Status status()
    {
        final Status s = Status.empty();
        s.source = MPI.UNDEFINED;
        s.tag = MPI.UNDEFINED;
        if (query != null)
        {
            query.query(s);
        }
        return s;
    }

    @Override
    int errorClass()
    {
        return status().error;
    }

    @Override
    void consume()
    {
        nullHandle = true;
        callFree();
    }

    @Override
    boolean cancelOperation()
    {
        if (cancelFn != null)
        {
            cancelFn.cancel(external.isComplete());
        }
        return true;
    }

    @Override
    public void free()
    {
        nullHandle = true;
        callFree();
    }

    private void callFree()
    {
        if (!freed)
        {
            freed = true;
            if (freeFn != null)
            {
                freeFn.free();
            }
        }
    }
}
