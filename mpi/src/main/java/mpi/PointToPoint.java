package mpi;

import java.lang.ref.Reference;

import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.ring.UnexpectedMessage;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * The work behind {@link Comm}'s point-to-point methods: sends in every mode (blocking,
 * nonblocking, persistent, buffered), receives, probes and {@code sendRecv}. Each call checks its
 * arguments with the checks at the end of this class, marshals the user's buffer through
 * {@link Buffers}, and hands the message to the rank's transport; a failure goes through the
 * communicator's error handler.
 */
final class PointToPoint
{
    static final int MODE_STANDARD = 0;
    static final int MODE_SYNC = 1;
    static final int MODE_READY = 2;
    static final int MODE_BUFFERED = 3;

    private PointToPoint()
    {
    }

    // ------------------------------------------------------------------------------------------
    // Blocking

    /** A blocking send of {@code mode} ({@code send}, {@code bSend}, {@code sSend}, {@code rSend}). */
    static void send(
        final Comm comm, final Object buf, final int count, final Datatype type, final int dest, final int tag,
        final int mode)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkDest(comm, dest);
            checkSendTag(tag);
            if (dest == MPI.PROC_NULL)
            {
                return;
            }
            if (mode == MODE_BUFFERED)
            {
                bufferedSend(comm, buf, type, bytes, dest, tag);
                return;
            }
            final RankContext ctx = MPI.context();
            final SendRequest s = ctx.transport().isend(comm.contextId, comm.peers[dest], tag, Buffers.base(buf),
                Buffers.offset(buf), bytes, mode == MODE_SYNC ? SendRequest.MODE_SYNC : SendRequest.MODE_STANDARD,
                type.layout());
            if (!s.isComplete())
            {
                ctx.progress().await(s);
            }
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            // The engine holds only the raw address of a direct buffer: keep the buffer mapped until here.
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * Copies the message into the attached buffer and starts sending it from there; the
     * caller's buffer is free at once, the attached range once the message has left it.
     */
    private static void bufferedSend(
        final Comm comm, final Object buf, final Datatype type, final long bytes, final int dest, final int tag)
    {
        final BsendBuffer attached = MPI.attachedBuffer();
        if (attached == null)
        {
            unbufferedSend(comm, buf, type, bytes, dest, tag);
            return;
        }
        final BsendBuffer.Held held = attached.copyIn(Buffers.base(buf), Buffers.offset(buf), bytes, type.layout());
        final SendRequest s;
        try
        {
            // The engine request references the attached array as its base: it stays reachable.
            s = MPI.context().transport().isend(comm.contextId, comm.peers[dest], tag, attached.buffer,
                held.dataOffset(), bytes, SendRequest.MODE_STANDARD);
        }
        catch (final RuntimeException ex)
        {
            attached.abandon(held);
            throw ex;
        }
        attached.started(held, s);
    }

    /**
     * A buffered send with no buffer attached. Open MPI sends such a message at once when it fits
     * its eager limit, and programs written for it bSend small messages without attaching a
     * buffer; shmpi does the same for messages up to its eager limit, from a private copy, so the
     * caller's buffer is free at once as a buffered send promises and nothing is written outside
     * memory this call allocated. Larger messages still need an attached buffer:
     * {@code MPI.ERR_BUFFER}. A copy still queued is sent by the progress engine; Finalize waits
     * for it.
     */
    private static void unbufferedSend(
        final Comm comm, final Object buf, final Datatype type, final long bytes, final int dest, final int tag)
    {
        final RankContext ctx = MPI.context();
        if (bytes > ctx.transport().eagerLimit())
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffered send without an attached buffer " +
                "(MPI.attachBuffer) of a message above the eager limit: bytes=" + bytes + ", eagerLimit=" +
                ctx.transport().eagerLimit());
        }
        final byte[] copy = new byte[(int)bytes];
        if (bytes > 0)
        {
            type.layout().pack(Buffers.base(buf), Buffers.offset(buf), 0, copy, Buffers.BYTE_ARRAY_BASE, bytes);
        }
        final SendRequest s = ctx.transport().isend(comm.contextId, comm.peers[dest], tag, copy,
            Buffers.BYTE_ARRAY_BASE, bytes, SendRequest.MODE_STANDARD);
        if (!s.isComplete())
        {
            Lifecycle.unbufferedSendQueued(s);
        }
    }

    /** A blocking receive ({@code recv}): its status, or {@code MPI.ERR_TRUNCATE} for a message too long. */
    static Status recv(
        final Comm comm, final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkSource(comm, source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final RankContext ctx = MPI.context();
            final RecvRequest r = ctx.transport().recv(comm.contextId, worldSource(comm, source), engineTag(tag),
                Buffers.base(buf), Buffers.offset(buf), bytes, type.layout(), BlockedCall.RECV);
            final Status status = new Status(commRankOf(comm, r.source()), r.tag(), r.errorClass(),
                r.storedLength());
            if (r.isTruncated())
            {
                throw new MPIException(ErrorClass.ERR_TRUNCATE, "message truncated: messageBytes=" +
                    r.messageLength() + ", receiveBufferBytes=" + bytes + ", source=" + status.source +
                    ", tag=" + status.tag);
            }
            return status;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            // The engine writes through the raw address of a direct buffer: keep it mapped until here.
            Reference.reachabilityFence(buf);
        }
    }

    /** {@code sendRecv}: the receive is posted first, so pairs and rings never deadlock. */
    static Status sendRecv(
        final Comm comm, final Object sendbuf, final int sendcount, final Datatype sendtype, final int dest,
        final int sendtag, final Object recvbuf, final int recvcount, final Datatype recvtype, final int source,
        final int recvtag)
    {
        final Request r = start(comm, recvbuf, recvcount, recvtype, source, recvtag);
        final Request s = start(comm, sendbuf, sendcount, sendtype, dest, sendtag, MODE_STANDARD);
        s.waitFor(BlockedCall.SENDRECV);
        return r.waitStatus(BlockedCall.SENDRECV);
    }

    /** {@code sendRecvReplace}: the outgoing data is copied first, then received into {@code buf}. */
    static Status sendRecvReplace(
        final Comm comm, final Object buf, final int count, final Datatype type, final int dest, final int sendtag,
        final int source, final int recvtag)
    {
        final byte[] copy;
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(buf, count, type);
            if (bytes > Integer.MAX_VALUE - 16)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "sendRecvReplace message too large: bytes=" + bytes);
            }
            copy = new byte[(int)bytes];
            type.layout().pack(Buffers.base(buf), Buffers.offset(buf), 0, copy, Buffers.BYTE_ARRAY_BASE, bytes);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        final Request r = start(comm, buf, count, type, source, recvtag);
        final Request s = start(comm, copy, copy.length, MPI.BYTE, dest, sendtag, MODE_STANDARD);
        s.waitFor(BlockedCall.SENDRECV);
        return r.waitStatus(BlockedCall.SENDRECV);
    }

    // ------------------------------------------------------------------------------------------
    // Nonblocking and persistent

    /** Starts a send of {@code mode} ({@code iSend} and the other modes; each start of a persistent send). */
    static Request start(
        final Comm comm, final Object buf, final int count, final Datatype type, final int dest, final int tag,
        final int mode)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkDest(comm, dest);
            checkSendTag(tag);
            if (dest == MPI.PROC_NULL)
            {
                return Request.completed(comm, Status.empty());
            }
            if (mode == MODE_BUFFERED)
            {
                bufferedSend(comm, buf, type, bytes, dest, tag);
                return Request.completed(comm, Status.empty());
            }
            final EngineRequest s = MPI.context().transport().isend(comm.contextId, comm.peers[dest], tag,
                Buffers.base(buf), Buffers.offset(buf), bytes,
                mode == MODE_SYNC ? SendRequest.MODE_SYNC : SendRequest.MODE_STANDARD, type.layout());
            // The engine may hold only the raw address: the buffer must outlive a freed request.
            s.retain(buf);
            return new Request(comm, s, buf);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** Starts a receive ({@code iRecv}; each start of a persistent receive). */
    static Request start(
        final Comm comm, final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkSource(comm, source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return Request.completed(comm, new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0));
            }
            final RecvRequest r = MPI.context().transport().irecv(comm.contextId, worldSource(comm, source),
                engineTag(tag), Buffers.base(buf), Buffers.offset(buf), bytes, type.layout());
            // The engine may hold only the raw address: the buffer must outlive a freed request.
            r.retain(buf);
            return new Request(comm, r, buf);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** A persistent send of {@code mode}: the arguments are checked now, each start sends. */
    static Prequest persistentSend(
        final Comm comm, final Object buf, final int count, final Datatype type, final int dest, final int tag,
        final int mode)
    {
        try
        {
            comm.check();
            Buffers.bytes(buf, count, type);
            checkDest(comm, dest);
            checkSendTag(tag);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        return new Prequest(comm, () -> start(comm, buf, count, type, dest, tag, mode), buf);
    }

    /** A persistent receive: the arguments are checked now, each start receives. */
    static Prequest persistentRecv(
        final Comm comm, final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            comm.check();
            Buffers.bytes(buf, count, type);
            checkSource(comm, source);
            checkRecvTag(tag);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        return new Prequest(comm, () -> start(comm, buf, count, type, source, tag), buf);
    }

    // ------------------------------------------------------------------------------------------
    // Probe

    /** {@code iProbe} ({@code blocking == false}: null when nothing matches) or {@code probe}. */
    static Status probe(final Comm comm, final int source, final int tag, final boolean blocking)
    {
        try
        {
            comm.check();
            checkSource(comm, source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final int from = worldSource(comm, source);
            if (blocking)
            {
                return statusOf(comm, MPI.context().transport().probeBlocking(comm.contextId, from, engineTag(tag)));
            }
            final UnexpectedMessage m = MPI.context().transport().probe(comm.contextId, from, engineTag(tag));
            return m == null ? null : statusOf(comm, m);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** The status a probe of {@code m} on {@code comm} answers. */
    static Status statusOf(final Comm comm, final UnexpectedMessage m)
    {
        return new Status(commRankOf(comm, m.source()), m.tag(), MPI.SUCCESS, m.length());
    }

    // ------------------------------------------------------------------------------------------
    // Addressing and argument checks

    /** The world rank a receive from {@code source} matches, or the engine's wildcard. */
    static int worldSource(final Comm comm, final int source)
    {
        return source == MPI.ANY_SOURCE ? RecvRequest.ANY_SOURCE : comm.peers[source];
    }

    /** The tag a receive of {@code tag} matches, or the engine's wildcard. */
    static int engineTag(final int tag)
    {
        return tag == MPI.ANY_TAG ? RecvRequest.ANY_TAG : tag;
    }

    /** The rank in {@code comm}'s point-to-point group of world rank {@code worldRank}, or {@code MPI.UNDEFINED}. */
    static int commRankOf(final Comm comm, final int worldRank)
    {
        final int[] peers = comm.peers;
        if (worldRank >= 0 && worldRank < peers.length && peers[worldRank] == worldRank)
        {
            return worldRank;
        }
        for (int i = 0; i < peers.length; i++)
        {
            if (peers[i] == worldRank)
            {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    static void checkDest(final Comm comm, final int dest)
    {
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= comm.peers.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid destination rank: dest=" + dest + ", size=" +
                comm.peers.length + ", comm=" + comm.getName());
        }
    }

    static void checkSource(final Comm comm, final int source)
    {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= comm.peers.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid source rank: source=" + source + ", size=" +
                comm.peers.length + ", comm=" + comm.getName());
        }
    }

    static void checkSendTag(final int tag)
    {
        if (tag < 0 || tag > Comm.MAX_TAG)
        {
            throw new MPIException(ErrorClass.ERR_TAG, "invalid tag: tag=" + tag + ", allowed=[0," + Comm.MAX_TAG +
                "]");
        }
    }

    static void checkRecvTag(final int tag)
    {
        if (tag != MPI.ANY_TAG && (tag < 0 || tag > Comm.MAX_TAG))
        {
            throw new MPIException(ErrorClass.ERR_TAG,
                "invalid tag: tag=" + tag + ", allowed=[0," + Comm.MAX_TAG + "] or MPI.ANY_TAG");
        }
    }
}
