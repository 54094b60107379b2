package mpi;

import org.shmpi.ring.JobAbortedException;
import org.shmpi.ring.PointToPointEngine;
import org.shmpi.ring.RecvRequest;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * A communicator: a group of ranks and a private message space. Java binding of
 * {@code MPI_Comm}. Point-to-point calls carry the communicator's context id, so messages on
 * different communicators never match each other; collectives use a second context id.
 */
public class Comm implements AutoCloseable
{
    /** World ranks of this communicator's members, by communicator rank; null until bound. */
    int[] members;
    int myRank = -1;
    int contextId;
    private volatile Errhandler errhandler;
    private final String name;

    Comm(final String name)
    {
        this.name = name;
    }

    /** Binds a predefined communicator at {@code MPI.Init}. */
    void bind(final int[] members, final int myRank, final int contextId)
    {
        this.members = members;
        this.myRank = myRank;
        this.contextId = contextId;
    }

    final void check()
    {
        MPI.check();
        if (members == null)
        {
            throw new MPIException(ErrorClass.ERR_COMM, "invalid communicator: " + name);
        }
    }

    /** Java binding of {@code MPI_COMM_RANK}: rank of the calling process in this communicator. */
    public final int getRank()
    {
        check();
        return myRank;
    }

    /** Java binding of {@code MPI_COMM_SIZE}: number of processes in this communicator. */
    public final int getSize()
    {
        check();
        return members.length;
    }

    /**
     * Java binding of {@code MPI_SEND}: standard-mode blocking send. Blocks until the data has
     * left {@code buf} (it is in the receiver's ring, or received); {@code buf} may then be reused.
     *
     * @param buf   a primitive array or a {@link java.nio.Buffer}
     * @param count number of elements of {@code type}
     * @param type  datatype of each element
     * @param dest  rank of the destination, or {@code MPI.PROC_NULL}
     * @param tag   message tag, 0 to {@code MPI.TAG_UB}
     */
    public final void send(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        try
        {
            check();
            final Buffers.Region region = Buffers.resolve(buf, count, type);
            checkDest(dest);
            checkSendTag(tag);
            if (dest == MPI.PROC_NULL)
            {
                return;
            }
            engine().send(contextId, members[dest], tag, region.base, region.offset, region.bytes);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_RECV}: blocking receive. Blocks until a matching message has
     * been received into {@code buf}.
     *
     * @param buf    a primitive array or a {@link java.nio.Buffer}
     * @param count  capacity of {@code buf}, in elements of {@code type}
     * @param type   datatype of each element
     * @param source rank of the source, {@code MPI.ANY_SOURCE} or {@code MPI.PROC_NULL}
     * @param tag    tag to match, or {@code MPI.ANY_TAG}
     * @return the status of the received message
     */
    public final Status recv(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            check();
            final Buffers.Region region = Buffers.resolve(buf, count, type);
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final int worldSource = source == MPI.ANY_SOURCE ? RecvRequest.ANY_SOURCE : members[source];
            final RecvRequest r = engine().recv(contextId, worldSource, tag == MPI.ANY_TAG ? RecvRequest.ANY_TAG : tag,
                region.base, region.offset, region.bytes);
            final Status status = new Status(commRankOf(r.source()), r.tag(), MPI.SUCCESS, r.storedLength());
            if (r.isTruncated())
            {
                status.error = ErrorClass.ERR_TRUNCATE;
                throw new MPIException(ErrorClass.ERR_TRUNCATE, "message truncated: messageBytes=" +
                    r.messageLength() + ", receiveBufferBytes=" + region.bytes + ", source=" + status.source +
                    ", tag=" + status.tag);
            }
            return status;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_BARRIER}: blocks until every member has called it. A
     * dissemination barrier: in round k each rank signals rank+2^k and waits for rank-2^k.
     */
    public final void barrier()
    {
        try
        {
            check();
            final int n = members.length;
            if (n == 1)
            {
                return;
            }
            final PointToPointEngine engine = engine();
            final byte[] none = new byte[0];
            final int collContext = contextId + 1;
            for (int k = 0, dist = 1; dist < n; k++, dist <<= 1)
            {
                final int to = members[(myRank + dist) % n];
                final int from = members[(myRank - dist + n) % n];
                engine.send(collContext, to, k, none, Buffers.resolve(none, 0, MPI.BYTE).offset, 0);
                engine.recv(collContext, from, k, none, Buffers.resolve(none, 0, MPI.BYTE).offset, 0);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ABORT}: ends every process of the job. {@code shmrun} reports
     * the call and exits with {@code errorcode}. Does not return.
     */
    public final void abort(final int errorcode)
    {
        MPI.abortJob(this, errorcode);
    }

    /** Java binding of {@code MPI_COMM_SET_ERRHANDLER}. */
    public final void setErrhandler(final Errhandler handler)
    {
        check();
        if (handler == null)
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "null error handler"));
        }
        errhandler = handler;
    }

    /** Java binding of {@code MPI_COMM_GET_ERRHANDLER}. */
    public final Errhandler getErrhandler()
    {
        check();
        final Errhandler h = errhandler;
        return h == null ? MPI.ERRORS_ARE_FATAL : h;
    }

    /** Whether this is a null communicator handle. */
    public final boolean isNull()
    {
        return members == null && MPI.isInitialized();
    }

    /** Name of the communicator, e.g. {@code MPI_COMM_WORLD}. */
    public final String getName()
    {
        return name;
    }

    /** Predefined communicators are not freed; this is a no-op for them. */
    @Override
    public void close()
    {
        // COMM_WORLD and COMM_SELF live until Finalize.
    }

    private PointToPointEngine engine()
    {
        return MPI.engine();
    }

    private int commRankOf(final int worldRank)
    {
        for (int i = 0; i < members.length; i++)
        {
            if (members[i] == worldRank)
            {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    private void checkDest(final int dest)
    {
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= members.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid destination rank: dest=" + dest + ", size=" +
                members.length + ", comm=" + name);
        }
    }

    private void checkSource(final int source)
    {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= members.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid source rank: source=" + source + ", size=" +
                members.length + ", comm=" + name);
        }
    }

    private static void checkSendTag(final int tag)
    {
        if (tag < 0 || tag > MPI.TAG_UB)
        {
            throw new MPIException(ErrorClass.ERR_TAG, "invalid tag: tag=" + tag + ", allowed=[0," + MPI.TAG_UB + "]");
        }
    }

    private static void checkRecvTag(final int tag)
    {
        if (tag != MPI.ANY_TAG && (tag < 0 || tag > MPI.TAG_UB))
        {
            throw new MPIException(ErrorClass.ERR_TAG,
                "invalid tag: tag=" + tag + ", allowed=[0," + MPI.TAG_UB + "] or MPI.ANY_TAG");
        }
    }

    /**
     * Applies this communicator's error handler to a failure: a job abort in progress ends the
     * process; under ERRORS_ARE_FATAL the job is aborted with the error's message; under
     * ERRORS_RETURN the error is returned to the caller as an {@link MPIException}.
     */
    final MPIException handle(final RuntimeException ex)
    {
        if (ex instanceof JobAbortedException)
        {
            MPI.exitBecauseAborted();
        }
        final MPIException mpiEx;
        if (ex instanceof MPIException)
        {
            mpiEx = (MPIException)ex;
        }
        else if (ex instanceof ShmpiException)
        {
            mpiEx = new MPIException(((ShmpiException)ex).errorClass(), ex.getMessage(), ex);
        }
        else
        {
            mpiEx = new MPIException(ErrorClass.ERR_INTERN, ex.toString(), ex);
        }
        if (MPI.isInitialized() && !MPI.isFinalized() && getErrhandler().fatal)
        {
            MPI.fatalError(this, mpiEx);
        }
        return mpiEx;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
