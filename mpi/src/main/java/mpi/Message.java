package mpi;

import java.nio.Buffer;

import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.UnexpectedMessage;

/**
 * A message taken out of matching by a matched probe, to be received by exactly this handle:
 * no other receive can take it in between (safe with several threads). Java binding of
 * {@code MPI_Message}.
 */
public final class Message
{
    private UnexpectedMessage message;
    private Comm comm;
    private boolean noProc;

    /** A null message, to be filled by {@link #mProbe} or {@link #imProbe}. */
    public Message()
    {
    }

    /** Whether this is {@code MPI_MESSAGE_NULL}. */
    public boolean isNull()
    {
        return message == null && !noProc;
    }

    /** Whether this is {@code MPI_MESSAGE_NO_PROC} (a probe of {@code MPI.PROC_NULL}). */
    public boolean isNoProc()
    {
        return noProc;
    }

    /** Java binding of {@code MPI_MPROBE}: blocks until a matching message arrives and takes it. */
    public Status mProbe(final int source, final int tag, final Comm comm)
    {
        final Recorder r = Profile.begin(Calls.M_PROBE);
        final Status result = mProbe0(source, tag, comm);
        Profile.end(r, Calls.M_PROBE);
        return result;
    }

    private Status mProbe0(final int source, final int tag, final Comm comm)
    {
        try
        {
            comm.check();
            PointToPoint.checkSource(comm, source);
            PointToPoint.checkRecvTag(tag);
            this.comm = comm;
            if (source == MPI.PROC_NULL)
            {
                noProc = true;
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            message = MPI.context().transport().matchedProbeBlocking(comm.contextId,
                PointToPoint.worldSource(comm, source), PointToPoint.engineTag(tag));
            return PointToPoint.statusOf(comm, message);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_IMPROBE}: takes a matching message if one has arrived.
     *
     * @return its status, or null when none matched (this handle is unchanged)
     */
    public Status imProbe(final int source, final int tag, final Comm comm)
    {
        final Recorder r = Profile.begin(Calls.IM_PROBE);
        final Status result = imProbe0(source, tag, comm);
        Profile.end(r, Calls.IM_PROBE);
        return result;
    }

    private Status imProbe0(final int source, final int tag, final Comm comm)
    {
        try
        {
            comm.check();
            PointToPoint.checkSource(comm, source);
            PointToPoint.checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                this.comm = comm;
                noProc = true;
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final UnexpectedMessage m = MPI.context().transport().matchedProbe(comm.contextId,
                PointToPoint.worldSource(comm, source), PointToPoint.engineTag(tag));
            if (m == null)
            {
                return null;
            }
            this.comm = comm;
            message = m;
            return PointToPoint.statusOf(comm, m);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** Java binding of {@code MPI_MRECV}: receives the probed message; this handle becomes null. */
    public Status mRecv(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.M_RECV);
        final Status result = mRecv0(buf, count, type);
        Profile.end(r, Calls.M_RECV);
        return result;
    }

    private Status mRecv0(final Object buf, final int count, final Datatype type)
    {
        final Request r = imRecv0(buf, count, type);
        return r.waitStatus();
    }

    /** Java binding of {@code MPI_IMRECV} on a direct buffer. */
    public Request imRecv(final Buffer buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.IM_RECV);
        final Request result = imRecv0(buf, count, type);
        Profile.end(r, Calls.IM_RECV);
        return result;
    }

    private Request imRecv0(final Buffer buf, final int count, final Datatype type)
    {
        return imRecv0((Object)buf, count, type);
    }

    /** Java binding of {@code MPI_IMRECV}; + also takes arrays. */
    public Request imRecv(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.IM_RECV);
        final Request result = imRecv0(buf, count, type);
        Profile.end(r, Calls.IM_RECV);
        return result;
    }

    private Request imRecv0(final Object buf, final int count, final Datatype type)
    {
        MPI.check();
        if (noProc)
        {
            noProc = false;
            return Request.completed(comm, new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0));
        }
        if (message == null)
        {
            throw new MPIException(MPI.ERR_REQUEST, "receive of a null message (probe it first)");
        }
        try
        {
            final long bytes = Buffers.bytes(buf, count, type);
            final RecvRequest r = MPI.context().transport().matchedReceive(message, Buffers.base(buf),
                Buffers.offset(buf), bytes, type.layout());
            message = null;
            // The engine may hold only the raw address: the buffer must outlive a freed request.
            r.retain(buf);
            return new Request(comm, r, buf);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }
}
