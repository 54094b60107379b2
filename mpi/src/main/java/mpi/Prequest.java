package mpi;

/**
 * A persistent request: an operation set up once ({@code sendInit}, {@code recvInit}, ...) and
 * started many times. Java binding of a persistent {@code MPI_Request}. Between a completed
 * wait and the next {@link #start()} it is inactive (waiting on it returns at once).
 */
public final class Prequest extends Request
{
    /** Starts one instance of the operation; returns what the engine runs. */
    interface Starter
    {
        Request start();
    }

    private final Starter starter;
    private Request current;
    private boolean freed;

    Prequest(final Comm comm, final Starter starter, final Object buffer)
    {
        super(comm, null, buffer);
        this.starter = starter;
        this.nullHandle = false;
    }

    /** Java binding of {@code MPI_START}: starts the operation. It must be inactive. */
    public void start()
    {
        final Recorder r = Profile.begin(Calls.START);
        start0();
        Profile.end(r, Calls.START);
    }

    private void start0()
    {
        MPI.check();
        if (freed)
        {
            throw comm.handle(new MPIException(MPI.ERR_REQUEST, "start of a freed persistent request"));
        }
        if (current != null)
        {
            throw comm.handle(new MPIException(MPI.ERR_REQUEST, "start of an active persistent request"));
        }
        current = starter.start();
        operation = current.operation;
        completedStatus = current.completedStatus;
    }

    /** Java binding of {@code MPI_STARTALL}. */
    public static void startAll(final Prequest[] requests)
    {
        final Recorder r = Profile.begin(Calls.START_ALL);
        startAll0(requests);
        Profile.end(r, Calls.START_ALL);
    }

    private static void startAll0(final Prequest[] requests)
    {
        MPI.check();
        if (requests == null)
        {
            throw new MPIException(MPI.ERR_REQUEST, "null request array");
        }
        for (final Prequest p : requests)
        {
            p.start();
        }
    }

    @Override
    boolean isActive()
    {
        return current != null;
    }

    @Override
    boolean isDone()
    {
        return current == null || current.isDone();
    }

    @Override
    Status status()
    {
        return current.status();
    }

    @Override
    int errorClass()
    {
        return current.errorClass();
    }

    @Override
    void consume()
    {
        // Persistent: back to inactive, ready for the next start.
        current = null;
        operation = null;
        completedStatus = null;
    }

    @Override
    boolean cancelOperation()
    {
        return current != null && current.cancelOperation();
    }

    /** Java binding of {@code MPI_REQUEST_FREE} for a persistent request. */
    @Override
    public void free()
    {
        freed = true;
        current = null;
        operation = null;
        nullHandle = true;
    }
}
