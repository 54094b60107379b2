package mpi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * A pending nonblocking operation. Java binding of {@code MPI_Request}. A request keeps the
 * buffers of its operation reachable until it completes, so arrays (not only direct buffers) may
 * be used in nonblocking calls. After a successful wait or test the request becomes null (a
 * persistent request becomes inactive instead), as in MPI.
 */
public class Request implements Freeable, AutoCloseable
{
    private static final VarHandle CALLBACK;

    static
    {
        try
        {
            CALLBACK = MethodHandles.lookup().findVarHandle(Request.class, "callback", CompletionCallback.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The operation under way, or null when this handle is null or inactive. */
    EngineRequest operation;
    /** For requests that completed without the engine (PROC_NULL, buffered sends). */
    Status completedStatus;
    Comm comm;
    /** Buffers to keep reachable while the operation runs. */
    Object buffer;
    boolean nullHandle;
    /** Set by {@link #onComplete}, claimed (getAndSet to null) by whoever runs it. */
    private volatile CompletionCallback callback;

    Request()
    {
        this.nullHandle = true;
    }

    Request(final Comm comm, final EngineRequest operation, final Object buffer)
    {
        this.comm = comm;
        this.operation = operation;
        this.buffer = buffer;
    }

    /** A request that is already complete with {@code status}. */
    static Request completed(final Comm comm, final Status status)
    {
        final Request r = new Request();
        r.nullHandle = false;
        r.comm = comm;
        r.completedStatus = status;
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // Hooks for subclasses (persistent and generalized requests)

    /** Whether the current operation is complete (an inactive or null request counts as done). */
    boolean isDone()
    {
        if (operation != null)
        {
            return operation.isComplete();
        }
        return true;
    }

    /** Whether there is an operation to report on (not null, not inactive). */
    boolean isActive()
    {
        return !nullHandle && (operation != null || completedStatus != null);
    }

    /** The status of the completed operation. */
    Status status()
    {
        if (completedStatus != null)
        {
            return completedStatus;
        }
        if (operation instanceof RecvRequest)
        {
            final RecvRequest r = (RecvRequest)operation;
            if (r.isCancelled())
            {
                final Status s = Status.empty();
                s.cancelled = true;
                return s;
            }
            return new Status(PointToPoint.commRankOf(comm, r.source()), r.tag(), r.errorClass(), r.storedLength());
        }
        final Status s = Status.empty();
        if (operation != null)
        {
            s.cancelled = operation.isCancelled();
            s.error = operation.errorClass();
        }
        return s;
    }

    /** The error class {@link #status()} would report, without building the status where it can. */
    int errorClass()
    {
        if (completedStatus != null)
        {
            return completedStatus.error;
        }
        return operation != null ? operation.errorClass() : MPI.SUCCESS;
    }

    /** After a successful wait/test: a plain request becomes null, a persistent one inactive. */
    void consume()
    {
        operation = null;
        completedStatus = null;
        buffer = null;
        nullHandle = true;
    }

    boolean cancelOperation()
    {
        return operation != null && context().transport().cancel(operation);
    }

    // ------------------------------------------------------------------------------------------
    // Single request

    /** Java binding of {@code MPI_WAIT}: blocks until the operation completes; returns its status. */
    public final Status waitStatus()
    {
        final Recorder r = Profile.begin(Calls.WAIT);
        final Status result = waitStatus0();
        Profile.end(r, Calls.WAIT);
        return result;
    }

    private final Status waitStatus0()
    {
        return waitStatus(BlockedCall.WAIT);
    }

    /** {@code MPI_WAIT} inside MPI call {@code call} (what the rank's wait record names). */
    final Status waitStatus(final int call)
    {
        MPI.check();
        if (!isActive())
        {
            return Status.empty();
        }
        awaitAll(new Request[] {this}, true, call);
        final Status s = status();
        consume();
        checkError(s, -1);
        return s;
    }

    /** Java binding of {@code MPI_WAIT} without a status. */
    public final void waitFor()
    {
        final Recorder r = Profile.begin(Calls.WAIT);
        waitFor0();
        Profile.end(r, Calls.WAIT);
    }

    private final void waitFor0()
    {
        waitFor(BlockedCall.WAIT);
    }

    /** {@code MPI_WAIT} without a status, inside MPI call {@code call}. */
    final void waitFor(final int call)
    {
        MPI.check();
        final EngineRequest op = operation;
        // A plain request on an engine operation: wait without building a status, and build one
        // only if there is an error to report (persistent and generalized requests, and
        // requests completed without the engine, take the general path).
        if (op != null && completedStatus == null && !nullHandle && getClass() == Request.class)
        {
            if (!op.isComplete())
            {
                try
                {
                    context().progress().await(op, call);
                }
                catch (final RuntimeException ex)
                {
                    throw (comm == null ? MPI.COMM_WORLD : comm).handle(ex);
                }
            }
            if (op.errorClass() == MPI.SUCCESS && !op.isCancelled())
            {
                consume();
                return;
            }
        }
        waitStatus(call);
    }

    /** Java binding of {@code MPI_TEST}: the status if the operation completed, else null. */
    public final Status testStatus()
    {
        final Recorder r = Profile.begin(Calls.TEST);
        final Status result = testStatus0();
        Profile.end(r, Calls.TEST);
        return result;
    }

    private final Status testStatus0()
    {
        MPI.check();
        if (!isActive())
        {
            return Status.empty();
        }
        if (!isDone())
        {
            context().progress().progress();
            if (!isDone())
            {
                return null;
            }
        }
        final Status s = status();
        consume();
        checkError(s, -1);
        return s;
    }

    /** Java binding of {@code MPI_TEST} without a status. */
    public final boolean test()
    {
        final Recorder r = Profile.begin(Calls.TEST);
        final boolean result = test0();
        Profile.end(r, Calls.TEST);
        return result;
    }

    private final boolean test0()
    {
        return testStatus0() != null;
    }

    /**
     * Java binding of {@code MPI_REQUEST_GET_STATUS}: the status if complete (the request stays
     * as it is), else null.
     */
    public final Status getStatus()
    {
        MPI.check();
        if (!isActive())
        {
            return Status.empty();
        }
        if (!isDone())
        {
            context().progress().progress();
        }
        return isDone() ? status() : null;
    }

    /**
     * Java binding of {@code MPI_CANCEL}: cancels the operation if it has not matched yet. Wait
     * or test the request afterwards; its status says whether it was cancelled.
     */
    public final void cancel()
    {
        MPI.check();
        if (isActive() && !isDone())
        {
            cancelOperation();
        }
    }

    /**
     * Java binding of {@code MPI_REQUEST_FREE}: releases the handle; the operation itself still
     * completes, and its buffers stay reachable until then (the engine request retains them).
     */
    @Override
    public void free()
    {
        // The engine request retains the buffer (EngineRequest.retain) until it completes.
        consume();
    }

    /** Same as {@link #free()}. */
    @Override
    public void close()
    {
        free();
    }

    /** Whether this is a null request ({@code MPI.REQUEST_NULL}, or completed and waited for). */
    public final boolean isNull()
    {
        return nullHandle;
    }

    /**
     * shmpi extension: calls {@code callback} once with the status when the operation completes;
     * the request is then consumed as by a successful test. It runs on the thread driving
     * progress (any MPI call of this rank, or {@link MPI#progress()}), or at once on the calling
     * thread when the operation has already completed; for a {@link GRequest}, on the thread that
     * calls {@link GRequest#complete()}. Safe under {@code THREAD_MULTIPLE} while other threads
     * drive progress: the callback runs exactly once. A second registration before it ran
     * replaces the first; freeing the request drops a callback that has not run; on a null or
     * inactive request the callback never runs.
     */
    public final void onComplete(final CompletionCallback callback)
    {
        MPI.check();
        if (callback == null)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "null completion callback");
        }
        // Publish the callback, then look at the state. Whoever completes the operation marks it
        // complete, then claims the callback (both volatile): at least one side sees the other,
        // and the getAndSet claim in fireCallback lets only one of them run it.
        this.callback = callback;
        final EngineRequest op = operation;
        if (op != null)
        {
            // The engine runs it once: at once if already complete, else when it completes.
            op.onComplete(r -> fireCallback());
        }
        else if (isDone())
        {
            fireCallback();
        }
        // Else a generalized request still pending: GRequest.complete() fires it.
    }

    /** Runs the registered callback if there is one and nobody has claimed it yet. */
    final void fireCallback()
    {
        final CompletionCallback cb = (CompletionCallback)CALLBACK.getAndSet(this, null);
        if (cb != null && isActive())
        {
            final Status s = status();
            consume();
            cb.completed(s);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Many requests

    /** Java binding of {@code MPI_WAITANY}: waits for one; its status carries its index. */
    public static Status waitAnyStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_ANY);
        final Status result = waitAnyStatus0(requests);
        Profile.end(r, Calls.WAIT_ANY);
        return result;
    }

    private static Status waitAnyStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        if (countActive(requests) == 0)
        {
            return Status.empty().withIndex(MPI.UNDEFINED);
        }
        context().progress().awaitUntil(() -> firstDone(requests) >= 0, BlockedCall.WAITANY, firstPending(requests));
        final int i = firstDone(requests);
        final Status s = requests[i].status().withIndex(i);
        requests[i].consume();
        requests[i].checkError(s, i);
        return s;
    }

    /** Java binding of {@code MPI_WAITANY}: the index of the completed request. */
    public static int waitAny(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_ANY);
        final int result = waitAny0(requests);
        Profile.end(r, Calls.WAIT_ANY);
        return result;
    }

    private static int waitAny0(final Request[] requests)
    {
        return waitAnyStatus0(requests).index;
    }

    /** Java binding of {@code MPI_TESTANY}: a completed request's status (with index), or null. */
    public static Status testAnyStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_ANY);
        final Status result = testAnyStatus0(requests);
        Profile.end(r, Calls.TEST_ANY);
        return result;
    }

    private static Status testAnyStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        if (countActive(requests) == 0)
        {
            return Status.empty().withIndex(MPI.UNDEFINED);
        }
        int i = firstDone(requests);
        if (i < 0)
        {
            context().progress().progress();
            i = firstDone(requests);
            if (i < 0)
            {
                return null;
            }
        }
        final Status s = requests[i].status().withIndex(i);
        requests[i].consume();
        requests[i].checkError(s, i);
        return s;
    }

    /** Java binding of {@code MPI_TESTANY}: the index, or {@code MPI.UNDEFINED} when none completed. */
    public static int testAny(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_ANY);
        final int result = testAny0(requests);
        Profile.end(r, Calls.TEST_ANY);
        return result;
    }

    private static int testAny0(final Request[] requests)
    {
        final Status s = testAnyStatus0(requests);
        return s == null ? MPI.UNDEFINED : s.index;
    }

    /** Java binding of {@code MPI_WAITALL}: waits for every request; their statuses, in order. */
    public static Status[] waitAllStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_ALL);
        final Status[] result = waitAllStatus0(requests);
        Profile.end(r, Calls.WAIT_ALL);
        return result;
    }

    private static Status[] waitAllStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        awaitAll(requests, false, BlockedCall.WAITALL);
        return collectAll(requests);
    }

    /** Java binding of {@code MPI_WAITALL}. */
    public static void waitAll(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_ALL);
        waitAll0(requests);
        Profile.end(r, Calls.WAIT_ALL);
    }

    private static void waitAll0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        awaitAll(requests, false, BlockedCall.WAITALL);
        consumeAll(requests);
    }

    /** Java binding of {@code MPI_TESTALL}: every status if all completed, else null (nothing consumed). */
    public static Status[] testAllStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_ALL);
        final Status[] result = testAllStatus0(requests);
        Profile.end(r, Calls.TEST_ALL);
        return result;
    }

    private static Status[] testAllStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        if (!allDone(requests))
        {
            context().progress().progress();
            if (!allDone(requests))
            {
                return null;
            }
        }
        return collectAll(requests);
    }

    /** Java binding of {@code MPI_TESTALL}. */
    public static boolean testAll(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_ALL);
        final boolean result = testAll0(requests);
        Profile.end(r, Calls.TEST_ALL);
        return result;
    }

    private static boolean testAll0(final Request[] requests)
    {
        return testAllStatus0(requests) != null;
    }

    /** Java binding of {@code MPI_WAITSOME}: waits for at least one; the statuses of all completed. */
    public static Status[] waitSomeStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_SOME);
        final Status[] result = waitSomeStatus0(requests);
        Profile.end(r, Calls.WAIT_SOME);
        return result;
    }

    private static Status[] waitSomeStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        if (countActive(requests) == 0)
        {
            return null;
        }
        context().progress().awaitUntil(() -> firstDone(requests) >= 0, BlockedCall.WAITSOME, firstPending(requests));
        return collectSome(requests);
    }

    /** Java binding of {@code MPI_WAITSOME}: indices of the completed requests (null if none active). */
    public static int[] waitSome(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.WAIT_SOME);
        final int[] result = waitSome0(requests);
        Profile.end(r, Calls.WAIT_SOME);
        return result;
    }

    private static int[] waitSome0(final Request[] requests)
    {
        return indices(waitSomeStatus0(requests));
    }

    /** Java binding of {@code MPI_TESTSOME}: statuses of the completed requests (empty if none). */
    public static Status[] testSomeStatus(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_SOME);
        final Status[] result = testSomeStatus0(requests);
        Profile.end(r, Calls.TEST_SOME);
        return result;
    }

    private static Status[] testSomeStatus0(final Request[] requests)
    {
        MPI.check();
        checkArray(requests);
        if (countActive(requests) == 0)
        {
            return null;
        }
        context().progress().progress();
        return collectSome(requests);
    }

    /** Java binding of {@code MPI_TESTSOME}. */
    public static int[] testSome(final Request[] requests)
    {
        final Recorder r = Profile.begin(Calls.TEST_SOME);
        final int[] result = testSome0(requests);
        Profile.end(r, Calls.TEST_SOME);
        return result;
    }

    private static int[] testSome0(final Request[] requests)
    {
        return indices(testSomeStatus0(requests));
    }

    // ------------------------------------------------------------------------------------------

    static RankContext context()
    {
        return MPI.context();
    }

    private static void checkArray(final Request[] requests)
    {
        if (requests == null)
        {
            throw new MPIException(ErrorClass.ERR_REQUEST, "null request array");
        }
        for (int i = 0; i < requests.length; i++)
        {
            if (requests[i] == null)
            {
                throw new MPIException(ErrorClass.ERR_REQUEST, "null request at index " + i +
                    " (use MPI.REQUEST_NULL)");
            }
        }
    }

    /** The engine operation of the first request not yet done (what a wait record names), or null. */
    private static EngineRequest firstPending(final Request[] requests)
    {
        for (final Request r : requests)
        {
            if (r.isActive() && !r.isDone())
            {
                return r.operation;
            }
        }
        return null;
    }

    private static void awaitAll(final Request[] requests, final boolean single, final int call)
    {
        if (!allDone(requests))
        {
            try
            {
                context().progress().awaitUntil(() -> allDone(requests), call, firstPending(requests));
            }
            catch (final RuntimeException ex)
            {
                final Comm c = single ? requests[0].comm : MPI.COMM_WORLD;
                throw (c == null ? MPI.COMM_WORLD : c).handle(ex);
            }
        }
    }

    private static boolean allDone(final Request[] requests)
    {
        for (final Request r : requests)
        {
            if (r.isActive() && !r.isDone())
            {
                return false;
            }
        }
        return true;
    }

    private static int firstDone(final Request[] requests)
    {
        for (int i = 0; i < requests.length; i++)
        {
            if (requests[i].isActive() && requests[i].isDone())
            {
                return i;
            }
        }
        return -1;
    }

    private static int countActive(final Request[] requests)
    {
        int n = 0;
        for (final Request r : requests)
        {
            if (r.isActive())
            {
                n++;
            }
        }
        return n;
    }

    /** As {@link #collectAll}, for callers that take no statuses: builds none. */
    private static void consumeAll(final Request[] requests)
    {
        int firstError = -1;
        int error = MPI.SUCCESS;
        for (int i = 0; i < requests.length; i++)
        {
            final Request r = requests[i];
            if (r.isActive())
            {
                final int e = r.errorClass();
                r.consume();
                if (e != MPI.SUCCESS && firstError < 0)
                {
                    firstError = i;
                    error = e;
                }
            }
        }
        if (firstError >= 0)
        {
            final Comm c = requests[firstError].comm;
            throw (c == null ? MPI.COMM_WORLD : c).handle(new MPIException(ErrorClass.ERR_IN_STATUS,
                "request " + firstError + " failed with " + ErrorClass.name(error)));
        }
    }

    private static Status[] collectAll(final Request[] requests)
    {
        final Status[] statuses = new Status[requests.length];
        int firstError = -1;
        for (int i = 0; i < requests.length; i++)
        {
            final Request r = requests[i];
            if (r.isActive())
            {
                statuses[i] = r.status().withIndex(i);
                r.consume();
                if (statuses[i].error != MPI.SUCCESS && firstError < 0)
                {
                    firstError = i;
                }
            }
            else
            {
                statuses[i] = Status.empty();
            }
        }
        if (firstError >= 0)
        {
            final Comm c = requests[firstError].comm;
            throw (c == null ? MPI.COMM_WORLD : c).handle(new MPIException(ErrorClass.ERR_IN_STATUS,
                "request " + firstError + " failed with " + ErrorClass.name(statuses[firstError].error)));
        }
        return statuses;
    }

    private static Status[] collectSome(final Request[] requests)
    {
        final List<Status> done = new ArrayList<>();
        for (int i = 0; i < requests.length; i++)
        {
            final Request r = requests[i];
            if (r.isActive() && r.isDone())
            {
                final Status s = r.status().withIndex(i);
                r.consume();
                done.add(s);
            }
        }
        for (final Status s : done)
        {
            if (s.error != MPI.SUCCESS)
            {
                final Comm c = requests[s.index].comm;
                throw (c == null ? MPI.COMM_WORLD : c).handle(new MPIException(ErrorClass.ERR_IN_STATUS,
                    "request " + s.index + " failed with " + ErrorClass.name(s.error)));
            }
        }
        return done.toArray(new Status[0]);
    }

    private static int[] indices(final Status[] statuses)
    {
        if (statuses == null)
        {
            return null;
        }
        final int[] idx = new int[statuses.length];
        for (int i = 0; i < statuses.length; i++)
        {
            idx[i] = statuses[i].index;
        }
        return idx;
    }

    void checkError(final Status s, final int index)
    {
        if (s.error != MPI.SUCCESS)
        {
            final String what = s.error == ErrorClass.ERR_TRUNCATE ?
                "message truncated: source=" + s.source + ", tag=" + s.tag + ", stored bytes=" + s.bytes :
                ErrorClass.name(s.error);
            final Comm c = comm == null ? MPI.COMM_WORLD : comm;
            throw c.handle(new MPIException(s.error, (index >= 0 ? "request " + index + ": " : "") + what));
        }
    }
}
