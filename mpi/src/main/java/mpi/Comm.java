package mpi;

import java.lang.ref.Reference;
import java.nio.Buffer;

import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.JobAbortedException;
import org.shmpi.ring.PointToPointEngine;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.ring.UnexpectedMessage;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.datatype.DataLayout;

/**
 * A communicator: a group of ranks and a private message space. Java binding of
 * {@code MPI_Comm}. Point-to-point calls carry the communicator's context id, so messages on
 * different communicators never match each other; collectives use a second context id. Both come
 * from the engine's {@code ContextIds}, never from a constant.
 *
 * <p>Every call checks its arguments before it touches shared memory; a bad argument raises the
 * MPI error class the standard gives, through the communicator's error handler.
 * Nonblocking calls take direct buffers, as in Open MPI, and also (shmpi) arrays and heap
 * buffers: the operation keeps them reachable until it completes, even if its request is freed.
 *
 * <p>As in Open MPI, a communicator is {@link Freeable} and {@link Cloneable}. This release has
 * only the predefined communicators ({@code COMM_WORLD}, {@code COMM_SELF}), which MPI does not
 * let anyone free: {@link #free()} raises {@code MPI.ERR_COMM}. {@code clone()} and {@code dup()}
 * ({@code MPI_COMM_DUP}) are not offered yet: they need communicator management (context ids
 * agreed by all members), which is still to come; {@code Object.clone()} stays protected.
 */
public class Comm implements Freeable, Cloneable, AutoCloseable
{
    /** Largest tag: what {@code getAttr(MPI.TAG_UB)} returns. */
    static final int MAX_TAG = Integer.MAX_VALUE;

    static final int MODE_STANDARD = 0;
    static final int MODE_SYNC = 1;
    static final int MODE_READY = 2;
    static final int MODE_BUFFERED = 3;

    /** World ranks of this communicator's members, by communicator rank; null until bound. */
    int[] members;
    int myRank = -1;
    /** Context id of this communicator's point-to-point traffic. */
    int contextId;
    /** Context id of its collectives' internal traffic, which never matches user messages. */
    int collContextId;
    private volatile Errhandler errhandler;
    private volatile String name;
    private static final Attributes ATTRIBUTES = new Attributes("communicator");
    private final Attributes.Cache attributes = ATTRIBUTES.new Cache();
    /** The hints set by {@link #setInfo} (shmpi acts on none of them yet). */
    private Info info = new Info();

    Comm(final String name)
    {
        this.name = name;
    }

    /** Binds a predefined communicator at {@code MPI.Init}. */
    void bind(final int[] members, final int myRank, final int contextId, final int collContextId)
    {
        this.members = members;
        this.myRank = myRank;
        this.contextId = contextId;
        this.collContextId = collContextId;
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
     * Java binding of {@code MPI_COMM_COMPARE}: {@code MPI.IDENT} for the same communicator,
     * {@code MPI.CONGRUENT} for the same processes in the same order on another context,
     * {@code MPI.SIMILAR} for the same processes in another order, else {@code MPI.UNEQUAL}.
     */
    public static int compare(final Comm comm1, final Comm comm2)
    {
        MPI.check();
        for (final Comm c : new Comm[] {comm1, comm2})
        {
            if (c == null || c.members == null)
            {
                throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_COMM, "compare: invalid communicator: " + c));
            }
        }
        if (comm1 == comm2)
        {
            return MPI.IDENT;
        }
        final int groups = Group.compare(new Group(comm1.members), new Group(comm2.members));
        return groups == MPI.IDENT ? MPI.CONGRUENT : groups;
    }

    /**
     * Java binding of {@code MPI_COMM_GROUP}: the group of this communicator's processes, in
     * rank order (a new group, to be freed by the caller).
     */
    public final Group getGroup()
    {
        try
        {
            check();
            return new Group(members.clone());
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Blocking sends and receives

    /**
     * Java binding of {@code MPI_SEND}: standard-mode blocking send. Returns when the data has
     * left {@code buf}: at once for messages up to the eager limit (copied into the receiver's
     * ring), once matched and streamed for larger ones.
     *
     * @param buf   a primitive array or a {@link java.nio.Buffer}
     * @param count number of elements of {@code type}
     * @param type  datatype of each element
     * @param dest  rank of the destination, or {@code MPI.PROC_NULL}
     * @param tag   message tag, 0 to {@code getAttr(MPI.TAG_UB)}
     */
    public final void send(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        blockingSend(buf, count, type, dest, tag, MODE_STANDARD);
    }

    /**
     * Java binding of {@code MPI_BSEND}: buffered-mode send. Copies the message into the buffer
     * attached with {@link MPI#attachBuffer} and returns at once; fails with {@code MPI.ERR_BUFFER}
     * when the attached buffer has no room.
     */
    public final void bSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        blockingSend(buf, count, type, dest, tag, MODE_BUFFERED);
    }

    /**
     * Java binding of {@code MPI_SSEND}: synchronous-mode send. Blocks until the receiver has
     * matched the message.
     */
    public final void sSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        blockingSend(buf, count, type, dest, tag, MODE_SYNC);
    }

    /**
     * Java binding of {@code MPI_RSEND}: ready-mode send, valid only when the matching receive is
     * already posted. Behaves as a standard send (a correct program cannot tell the difference).
     */
    public final void rSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        blockingSend(buf, count, type, dest, tag, MODE_READY);
    }

    private void blockingSend(
        final Object buf, final int count, final Datatype type, final int dest, final int tag, final int mode)
    {
        try
        {
            check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkDest(dest);
            checkSendTag(tag);
            if (dest == MPI.PROC_NULL)
            {
                return;
            }
            if (mode == MODE_BUFFERED)
            {
                bufferedSend(buf, type, bytes, dest, tag);
                return;
            }
            final PointToPointEngine engine = engine();
            final SendRequest s = engine.isend(contextId, members[dest], tag, Buffers.base(buf), Buffers.offset(buf),
                bytes, mode == MODE_SYNC ? SendRequest.MODE_SYNC : SendRequest.MODE_STANDARD, type.layout());
            if (!s.isComplete())
            {
                engine.await(s);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
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
    private void bufferedSend(final Object buf, final Datatype type, final long bytes, final int dest, final int tag)
    {
        final BsendBuffer attached = MPI.attachedBuffer();
        if (attached == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffered send without an attached buffer " +
                "(MPI.attachBuffer): bytes=" + bytes);
        }
        final BsendBuffer.Held held = attached.copyIn(Buffers.base(buf), Buffers.offset(buf), bytes, type.layout());
        final SendRequest s;
        try
        {
            // The engine request references the attached array as its base: it stays reachable.
            s = engine().isend(contextId, members[dest], tag, attached.buffer, held.dataOffset(), bytes,
                SendRequest.MODE_STANDARD);
        }
        catch (final RuntimeException ex)
        {
            attached.abandon(held);
            throw ex;
        }
        attached.started(held, s);
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
            final long bytes = Buffers.bytes(buf, count, type);
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final PointToPointEngine engine = engine();
            final RecvRequest r = engine.recv(contextId, worldSource(source), engineTag(tag), Buffers.base(buf),
                Buffers.offset(buf), bytes, type.layout(), BlockedCall.RECV);
            final Status status = new Status(commRankOf(r.source()), r.tag(), r.errorClass(), r.storedLength());
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
            throw handle(ex);
        }
        finally
        {
            // The engine writes through the raw address of a direct buffer: keep it mapped until here.
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * Java binding of {@code MPI_SENDRECV}: sends and receives at once (the receive is posted
     * first, so pairs and rings of sendRecv never deadlock, whatever the size).
     */
    public final Status sendRecv(
        final Object sendbuf, final int sendcount, final Datatype sendtype, final int dest, final int sendtag,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int source, final int recvtag)
    {
        final Request r = iRecv(recvbuf, recvcount, recvtype, source, recvtag);
        final Request s = iSend(sendbuf, sendcount, sendtype, dest, sendtag);
        s.waitFor(BlockedCall.SENDRECV);
        return r.waitStatus(BlockedCall.SENDRECV);
    }

    /**
     * Java binding of {@code MPI_SENDRECV_REPLACE}: sends the contents of {@code buf}, then
     * receives into it. The outgoing data is copied first.
     */
    public final Status sendRecvReplace(
        final Object buf, final int count, final Datatype type, final int dest, final int sendtag, final int source,
        final int recvtag)
    {
        final byte[] copy;
        try
        {
            check();
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
            throw handle(ex);
        }
        final Request r = iRecv(buf, count, type, source, recvtag);
        final Request s = iSend(copy, copy.length, MPI.BYTE, dest, sendtag);
        s.waitFor(BlockedCall.SENDRECV);
        return r.waitStatus(BlockedCall.SENDRECV);
    }

    // ------------------------------------------------------------------------------------------
    // Pack and unpack

    /**
     * Java binding of {@code MPI_PACK}: packs {@code incount} items of {@code type} from
     * {@code inbuf} into {@code outbuf} from byte {@code position}, as they would travel in a
     * message; returns the position after them. Too little room is {@code MPI.ERR_TRUNCATE},
     * raised before any byte moves.
     */
    public final int pack(final Object inbuf, final int incount, final Datatype type, final byte[] outbuf,
        final int position)
    {
        try
        {
            check();
            final long bytes = Buffers.bytes(inbuf, incount, type);
            checkPackBuffer(outbuf, position, bytes, "pack");
            type.layout().pack(Buffers.base(inbuf), Buffers.offset(inbuf), 0, outbuf,
                Buffers.BYTE_ARRAY_BASE + position, bytes);
            return (int)(position + bytes);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(inbuf);
        }
    }

    /**
     * Java binding of {@code MPI_UNPACK}: unpacks {@code outcount} items of {@code type} from
     * {@code inbuf} at byte {@code position} into {@code outbuf}; returns the position after
     * them. Fewer bytes left than the items need is {@code MPI.ERR_TRUNCATE}.
     */
    public final int unpack(final byte[] inbuf, final int position, final Object outbuf, final int outcount,
        final Datatype type)
    {
        try
        {
            check();
            final long bytes = Buffers.bytes(outbuf, outcount, type);
            checkPackBuffer(inbuf, position, bytes, "unpack");
            type.layout().unpack(inbuf, Buffers.BYTE_ARRAY_BASE + position, bytes, Buffers.base(outbuf),
                Buffers.offset(outbuf), 0);
            return (int)(position + bytes);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(outbuf);
        }
    }

    /** Java binding of {@code MPI_PACK_SIZE}: bytes that {@link #pack} needs for {@code incount} items of {@code type}. */
    public final int packSize(final int incount, final Datatype type)
    {
        try
        {
            check();
            if (incount < 0)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + incount);
            }
            MPI.checkDatatype(type);
            final long bytes = (long)incount * type.size;
            if (bytes > Integer.MAX_VALUE)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "packSize beyond 2 GiB: bytes=" + bytes);
            }
            return (int)bytes;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Packs as {@link #pack} does, in the {@code "external32"} representation (not in Open MPI's
     * bindings): every basic element big-endian at the standard's fixed size, pair types without
     * their padding (see {@link External32}), so that another machine reads the same values.
     * Any other datarep is {@code MPI.ERR_ARG}.
     */
    public final int packExternal(final String datarep, final Object inbuf, final int incount, final Datatype type,
        final byte[] outbuf, final int position)
    {
        try
        {
            check();
            checkDatarep(datarep);
            final long bytes = Buffers.bytes(inbuf, incount, type);
            final int external = External32.size(incount, type);
            checkPackBuffer(outbuf, position, external, "packExternal");
            final byte[] local = new byte[(int)bytes];
            type.layout().pack(Buffers.base(inbuf), Buffers.offset(inbuf), 0, local, Buffers.BYTE_ARRAY_BASE, bytes);
            External32.convert(local, 0, outbuf, position, incount, type, true);
            return position + external;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(inbuf);
        }
    }

    /** Unpacks what {@link #packExternal} packed; {@code inbuf} is left as it is. */
    public final int unpackExternal(final String datarep, final byte[] inbuf, final int position, final Object outbuf,
        final int outcount, final Datatype type)
    {
        try
        {
            check();
            checkDatarep(datarep);
            final long bytes = Buffers.bytes(outbuf, outcount, type);
            final int external = External32.size(outcount, type);
            checkPackBuffer(inbuf, position, external, "unpackExternal");
            final byte[] local = new byte[(int)bytes];
            External32.convert(local, 0, inbuf, position, outcount, type, false);
            type.layout().unpack(local, Buffers.BYTE_ARRAY_BASE, bytes, Buffers.base(outbuf), Buffers.offset(outbuf), 0);
            return position + external;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(outbuf);
        }
    }

    /** Bytes {@link #packExternal} needs for {@code incount} items of {@code type}. */
    public final int packExternalSize(final String datarep, final int incount, final Datatype type)
    {
        try
        {
            checkDatarep(datarep);
            if (incount < 0)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + incount);
            }
            MPI.checkDatatype(type);
            return External32.size(incount, type);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private static void checkDatarep(final String datarep)
    {
        if (!"external32".equals(datarep))
        {
            throw new MPIException(ErrorClass.ERR_ARG, "datarep must be \"external32\": " + datarep);
        }
    }

    private static void checkPackBuffer(final byte[] packed, final int position, final long bytes, final String what)
    {
        if (packed == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, what + ": null packed buffer");
        }
        if (position < 0 || position > packed.length)
        {
            throw new MPIException(ErrorClass.ERR_ARG, what + ": position " + position + " outside the packed " +
                "buffer of " + packed.length + " bytes");
        }
        if (position + bytes > packed.length)
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, what + ": " + bytes + " bytes from position " + position +
                " do not fit the packed buffer of " + packed.length + " bytes");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Nonblocking

    /** Java binding of {@code MPI_ISEND}: starts a standard-mode send. */
    public final Request iSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_STANDARD);
    }

    /** + {@code MPI_ISEND} on an array (kept reachable by the request). */
    public final Request iSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_STANDARD);
    }

    /** Java binding of {@code MPI_IBSEND}: starts a buffered-mode send (complete at once). */
    public final Request ibSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_BUFFERED);
    }

    /** + {@code MPI_IBSEND} on an array. */
    public final Request ibSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_BUFFERED);
    }

    /** Java binding of {@code MPI_ISSEND}: starts a synchronous-mode send. */
    public final Request isSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_SYNC);
    }

    /** + {@code MPI_ISSEND} on an array. */
    public final Request isSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_SYNC);
    }

    /** Java binding of {@code MPI_IRSEND}: starts a ready-mode send. */
    public final Request irSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_READY);
    }

    /** + {@code MPI_IRSEND} on an array. */
    public final Request irSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return startSend(buf, count, type, dest, tag, MODE_READY);
    }

    /** Java binding of {@code MPI_IRECV}: starts a receive. */
    public final Request iRecv(final Buffer buf, final int count, final Datatype type, final int source, final int tag)
    {
        return startRecv(buf, count, type, source, tag);
    }

    /** + {@code MPI_IRECV} into an array. */
    public final Request iRecv(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        return startRecv(buf, count, type, source, tag);
    }

    /**
     * + Detached send (StarPU-MPI style): starts a send and calls {@code callback} when it
     * completes; there is no request to wait for. The callback runs during a later MPI call of
     * this rank (or {@link MPI#progress()}).
     */
    public final void iSendDetached(
        final Object buf, final int count, final Datatype type, final int dest, final int tag,
        final CompletionCallback callback)
    {
        iSend(buf, count, type, dest, tag).onComplete(callback);
    }

    /** + Detached receive: starts a receive and calls {@code callback} with its status. */
    public final void iRecvDetached(
        final Object buf, final int count, final Datatype type, final int source, final int tag,
        final CompletionCallback callback)
    {
        iRecv(buf, count, type, source, tag).onComplete(callback);
    }

    final Request startSend(
        final Object buf, final int count, final Datatype type, final int dest, final int tag, final int mode)
    {
        try
        {
            check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkDest(dest);
            checkSendTag(tag);
            if (dest == MPI.PROC_NULL)
            {
                return Request.completed(this, Status.empty());
            }
            if (mode == MODE_BUFFERED)
            {
                bufferedSend(buf, type, bytes, dest, tag);
                return Request.completed(this, Status.empty());
            }
            final EngineRequest s = engine().isend(contextId, members[dest], tag, Buffers.base(buf),
                Buffers.offset(buf), bytes, mode == MODE_SYNC ? SendRequest.MODE_SYNC : SendRequest.MODE_STANDARD,
                type.layout());
            // The engine may hold only the raw address: the buffer must outlive a freed request.
            s.retain(buf);
            return new Request(this, s, buf);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    final Request startRecv(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            check();
            final long bytes = Buffers.bytes(buf, count, type);
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return Request.completed(this, new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0));
            }
            final RecvRequest r = engine().irecv(contextId, worldSource(source), engineTag(tag), Buffers.base(buf),
                Buffers.offset(buf), bytes, type.layout());
            // The engine may hold only the raw address: the buffer must outlive a freed request.
            r.retain(buf);
            return new Request(this, r, buf);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Persistent

    /** Java binding of {@code MPI_SEND_INIT}: a persistent standard-mode send. */
    public final Prequest sendInit(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_STANDARD);
    }

    /** + {@code MPI_SEND_INIT} on an array. */
    public final Prequest sendInit(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_STANDARD);
    }

    /** Java binding of {@code MPI_BSEND_INIT}. */
    public final Prequest bSendInit(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_BUFFERED);
    }

    /** + {@code MPI_BSEND_INIT} on an array. */
    public final Prequest bSendInit(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_BUFFERED);
    }

    /** Java binding of {@code MPI_SSEND_INIT}. */
    public final Prequest sSendInit(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_SYNC);
    }

    /** + {@code MPI_SSEND_INIT} on an array. */
    public final Prequest sSendInit(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_SYNC);
    }

    /** Java binding of {@code MPI_RSEND_INIT}. */
    public final Prequest rSendInit(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_READY);
    }

    /** + {@code MPI_RSEND_INIT} on an array. */
    public final Prequest rSendInit(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        return persistentSend(buf, count, type, dest, tag, MODE_READY);
    }

    /** Java binding of {@code MPI_RECV_INIT}: a persistent receive. */
    public final Prequest recvInit(final Buffer buf, final int count, final Datatype type, final int source, final int tag)
    {
        return persistentRecv(buf, count, type, source, tag);
    }

    /** + {@code MPI_RECV_INIT} into an array. */
    public final Prequest recvInit(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        return persistentRecv(buf, count, type, source, tag);
    }

    private Prequest persistentSend(
        final Object buf, final int count, final Datatype type, final int dest, final int tag, final int mode)
    {
        try
        {
            check();
            Buffers.bytes(buf, count, type);
            checkDest(dest);
            checkSendTag(tag);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        return new Prequest(this, () -> startSend(buf, count, type, dest, tag, mode), buf);
    }

    private Prequest persistentRecv(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        try
        {
            check();
            Buffers.bytes(buf, count, type);
            checkSource(source);
            checkRecvTag(tag);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        return new Prequest(this, () -> startRecv(buf, count, type, source, tag), buf);
    }

    // ------------------------------------------------------------------------------------------
    // Probe

    /**
     * Java binding of {@code MPI_IPROBE}: the status of a matching message that has arrived
     * (it stays to be received), or null when there is none.
     */
    public final Status iProbe(final int source, final int tag)
    {
        try
        {
            check();
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final UnexpectedMessage m = engine().probe(contextId, worldSource(source), engineTag(tag));
            return m == null ? null : statusOf(m);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_PROBE}: blocks until a matching message has arrived; its status. */
    public final Status probe(final int source, final int tag)
    {
        try
        {
            check();
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            return statusOf(engine().probeBlocking(contextId, worldSource(source), engineTag(tag)));
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    Status statusOf(final UnexpectedMessage m)
    {
        return new Status(commRankOf(m.source()), m.tag(), MPI.SUCCESS, m.length());
    }

    // ------------------------------------------------------------------------------------------
    // Collectives (what this release has)

    /**
     * Java binding of {@code MPI_BARRIER}: blocks until every member has called it. A
     * dissemination barrier: in round k each rank signals rank+2^k and waits for rank-2^k.
     */
    public final void barrier()
    {
        barrier(BlockedCall.BARRIER);
    }

    /** The barrier, recorded as MPI call {@code call} in the rank's wait record if it blocks. */
    final void barrier(final int call)
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
            final long base = Buffers.BYTE_ARRAY_BASE;
            final int collContext = collContextId;
            for (int k = 0, dist = 1; dist < n; k++, dist <<= 1)
            {
                final int to = members[(myRank + dist) % n];
                final int from = members[(myRank - dist + n) % n];
                engine.send(collContext, to, k, none, base, 0, call);
                engine.recv(collContext, from, k, none, base, 0, DataLayout.CONTIGUOUS, call);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Communicator construction

    /** Tags of the context agreement on the collective context (barrier uses 0..31). */
    private static final int TAG_MASK = 1 << 20;
    private static final int TAG_DECISION = TAG_MASK + 1;
    private static final int TAG_RESERVED = TAG_MASK + 2;
    private static final int TAG_OUTCOME = TAG_MASK + 3;

    /**
     * Agrees with the other members on two context ids free on all of them, and reserves them
     * here: each member sends its free-id mask to rank 0, which ANDs them and answers the two
     * lowest ids (or "look further", doubling the window); each member reserves them and rank 0
     * collects whether all could (another thread may have taken one meanwhile) and answers
     * whether to keep them or release them and start again. Collective over this communicator,
     * on its collective context.
     */
    final int[] agreeContexts(final int call)
    {
        final PointToPointEngine engine = engine();
        final org.shmpi.ring.ContextIds ids = engine.contexts();
        final int n = members.length;
        final long base = Buffers.BYTE_ARRAY_BASE;
        int words = 4;
        while (true)
        {
            final long[] mask = ids.freeMask(words);
            final byte[] decision = new byte[8];
            if (myRank == 0)
            {
                final byte[] theirs = new byte[8 * words];
                for (int r = 1; r < n; r++)
                {
                    engine.recv(collContextId, members[r], TAG_MASK, theirs, base, theirs.length, DataLayout.CONTIGUOUS,
                        call);
                    final java.nio.LongBuffer l = java.nio.ByteBuffer.wrap(theirs).asLongBuffer();
                    for (int i = 0; i < words; i++)
                    {
                        mask[i] &= l.get(i);
                    }
                }
                final java.util.BitSet free = java.util.BitSet.valueOf(mask);
                final int a = free.nextSetBit(0);
                final int b = a < 0 ? -1 : free.nextSetBit(a + 1);
                java.nio.ByteBuffer.wrap(decision).putInt(b < 0 ? -1 : a).putInt(b);
                for (int r = 1; r < n; r++)
                {
                    engine.send(collContextId, members[r], TAG_DECISION, decision, base, 8, call);
                }
            }
            else
            {
                final byte[] mine = new byte[8 * words];
                java.nio.ByteBuffer.wrap(mine).asLongBuffer().put(mask);
                engine.send(collContextId, members[0], TAG_MASK, mine, base, mine.length, call);
                engine.recv(collContextId, members[0], TAG_DECISION, decision, base, 8, DataLayout.CONTIGUOUS, call);
            }
            final java.nio.ByteBuffer d = java.nio.ByteBuffer.wrap(decision);
            final int a = d.getInt();
            final int b = d.getInt();
            if (a < 0)
            {
                if (words * 64L > org.shmpi.ring.ContextIds.MAX_ID)
                {
                    throw new MPIException(ErrorClass.ERR_INTERN, "no context id is free on all members");
                }
                words *= 2;
                continue;
            }
            // Reserve both here, then learn whether every member could.
            boolean gotA = false;
            boolean gotB = false;
            try
            {
                ids.reserve(a);
                gotA = true;
                ids.reserve(b);
                gotB = true;
            }
            catch (final RuntimeException taken)
            {
                // Another thread of this process took one since the mask: all try again.
            }
            final byte[] ok = {(byte)(gotA && gotB ? 1 : 0)};
            if (myRank == 0)
            {
                final byte[] theirs = new byte[1];
                for (int r = 1; r < n; r++)
                {
                    engine.recv(collContextId, members[r], TAG_RESERVED, theirs, base, 1, DataLayout.CONTIGUOUS, call);
                    ok[0] &= theirs[0];
                }
                for (int r = 1; r < n; r++)
                {
                    engine.send(collContextId, members[r], TAG_OUTCOME, ok, base, 1, call);
                }
            }
            else
            {
                engine.send(collContextId, members[0], TAG_RESERVED, ok, base, 1, call);
                engine.recv(collContextId, members[0], TAG_OUTCOME, ok, base, 1, DataLayout.CONTIGUOUS, call);
            }
            if (ok[0] == 1)
            {
                return new int[] {a, b};
            }
            if (gotA)
            {
                ids.release(a);
            }
            if (gotB)
            {
                ids.release(b);
            }
        }
    }

    /**
     * Java binding of {@code MPI_COMM_DUP}: a new communicator with the same group, in the same
     * order, on new context ids, so its messages never match this one's. It gets this one's
     * error handler and info hints, and the attributes the keyvals' copy callbacks return; not
     * its name (MPI: a dup has none until set). Collective over this communicator.
     */
    public Comm dup()
    {
        return duplicate(new Intracomm(""));
    }

    /** {@link #dup()}, as in Open MPI. */
    @Override
    public Comm clone()
    {
        return dup();
    }

    /** Java binding of {@code MPI_COMM_DUP_WITH_INFO}: {@link #dup()} whose hints are {@code info}'s instead. */
    public Comm dupWithInfo(final Info newInfo)
    {
        final Comm d = dup();
        d.setInfo(newInfo);
        return d;
    }

    /** {@code MPI_COMM_TYPE_SHARED}: {@code Intracomm.splitType} by shared memory, which is the whole job here. */
    public static final int TYPE_SHARED = 0;

    /*
     * shmpi's split types, beyond the standard. Open MPI's C library has them as
     * OMPI_COMM_TYPE_CORE, _L3CACHE, _SOCKET and _NUMA; its Java bindings lack them. The values
     * are the C library's, so that a value passed through from C code means the same here.
     */

    /**
     * {@code Intracomm.splitType} by physical core: the ranks placed on the hardware threads of
     * one core (Open MPI's {@code OMPI_COMM_TYPE_CORE}). An shmpi extension.
     */
    public static final int TYPE_CORE = 2;

    /**
     * {@code Intracomm.splitType} by level-3 cache: the ranks placed on CPUs that share one L3
     * cache instance, or one package when the topology lists no L3 (Open MPI's
     * {@code OMPI_COMM_TYPE_L3CACHE}). An shmpi extension.
     */
    public static final int TYPE_L3CACHE = 5;

    /**
     * {@code Intracomm.splitType} by package (socket) (Open MPI's {@code OMPI_COMM_TYPE_SOCKET}).
     * An shmpi extension.
     */
    public static final int TYPE_SOCKET = 6;

    /**
     * {@code Intracomm.splitType} by NUMA node (Open MPI's {@code OMPI_COMM_TYPE_NUMA}). An shmpi
     * extension.
     */
    public static final int TYPE_NUMA = 7;

    /** Makes {@code into} a duplicate of this communicator (see {@link #dup()}). */
    final <C extends Comm> C duplicate(final C into)
    {
        try
        {
            check();
            final Comm target = into;
            final int[] ids = agreeContexts(BlockedCall.BARRIER);
            target.bind(members, myRank, ids[0], ids[1]);
            target.errhandler = errhandler;
            synchronized (this)
            {
                target.info = info.dup();
            }
            MPI.nameContexts(target, "dup of " + name);
            try
            {
                attributes.copyInto(this, target.attributes, target);
            }
            catch (final RuntimeException ex)
            {
                target.release();
                throw ex;
            }
            return into;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private static final int TAG_GATHER = TAG_MASK + 4;
    private static final int TAG_ALL = TAG_MASK + 5;

    /**
     * Every member's {@code mine} (all the same length), in rank order, on every member: gathered
     * at rank 0 and sent back, on the collective context. Collective over this communicator.
     */
    final int[] allgatherInts(final int[] mine, final int call)
    {
        final PointToPointEngine engine = engine();
        final int n = members.length;
        final int w = mine.length;
        final long base = Buffers.BYTE_ARRAY_BASE;
        final byte[] all = new byte[4 * w * n];
        final java.nio.IntBuffer view = java.nio.ByteBuffer.wrap(all).asIntBuffer();
        if (myRank == 0)
        {
            view.put(mine);
            final byte[] one = new byte[4 * w];
            for (int r = 1; r < n; r++)
            {
                engine.recv(collContextId, members[r], TAG_GATHER, one, base, one.length, DataLayout.CONTIGUOUS, call);
                System.arraycopy(one, 0, all, 4 * w * r, one.length);
            }
            for (int r = 1; r < n; r++)
            {
                engine.send(collContextId, members[r], TAG_ALL, all, base, all.length, call);
            }
        }
        else
        {
            final byte[] one = new byte[4 * w];
            java.nio.ByteBuffer.wrap(one).asIntBuffer().put(mine);
            engine.send(collContextId, members[0], TAG_GATHER, one, base, one.length, call);
            engine.recv(collContextId, members[0], TAG_ALL, all, base, all.length, DataLayout.CONTIGUOUS, call);
        }
        final int[] out = new int[w * n];
        java.nio.ByteBuffer.wrap(all).asIntBuffer().get(out);
        return out;
    }

    /**
     * Makes {@code into} a communicator of the world ranks {@code sub} (which hold this process)
     * on context ids its members agree on over this communicator's collective context; it gets
     * this communicator's error handler. Collective over {@code sub}'s members only.
     */
    final <C extends Comm> C createOn(final int[] sub, final C into, final String statusName)
    {
        final int me = MPI.COMM_WORLD.myRank;
        int index = -1;
        for (int i = 0; i < sub.length; i++)
        {
            if (sub[i] == me)
            {
                index = i;
            }
        }
        final Comm group = new Comm(statusName);
        group.bind(sub, index, contextId, collContextId);
        final int[] ids = group.agreeContexts(BlockedCall.BARRIER);
        final Comm target = into;
        target.bind(sub, index, ids[0], ids[1]);
        target.errhandler = errhandler;
        MPI.nameContexts(target, statusName);
        return into;
    }

    /** Gives back a created communicator's context ids and makes it null. */
    private void release()
    {
        final org.shmpi.ring.ContextIds ids = engine().contexts();
        MPI.forgetContexts(this);
        ids.release(contextId);
        ids.release(collContextId);
        members = null;
    }

    private boolean predefined()
    {
        return this == MPI.COMM_WORLD || this == MPI.COMM_SELF;
    }

    // ------------------------------------------------------------------------------------------
    // Attributes, errors, counters

    /**
     * Java binding of {@code MPI_COMM_GET_ATTR} for the predefined attributes: {@code MPI.TAG_UB}
     * (the largest tag), {@code MPI.HOST}, {@code MPI.IO}, {@code MPI.WTIME_IS_GLOBAL},
     * {@code MPI.APPNUM}, {@code MPI.LASTUSEDCODE}, {@code MPI.UNIVERSE_SIZE}; for a keyval of
     * {@link #createKeyval()}, the cached value or null.
     */
    public final Object getAttr(final int keyval)
    {
        check();
        switch (keyval)
        {
            case MPI.TAG_UB: return MAX_TAG;
            case MPI.HOST: return MPI.PROC_NULL;
            case MPI.IO: return MPI.ANY_SOURCE;
            case MPI.WTIME_IS_GLOBAL: return 1;
            case MPI.APPNUM: return 0;
            case MPI.LASTUSEDCODE: return ErrorCodes.lastUsed();
            case MPI.UNIVERSE_SIZE: return MPI.COMM_WORLD.members.length;
            default:
                try
                {
                    if (keyval < 0)
                    {
                        throw new MPIException(ErrorClass.ERR_KEYVAL, "invalid keyval: " + keyval);
                    }
                    return attributes.get(keyval);
                }
                catch (final RuntimeException ex)
                {
                    throw handle(ex);
                }
        }
    }

    /** + Messages and bytes exchanged with each rank of this communicator so far. */
    public final PeerCounters getPeerCounters()
    {
        check();
        final PointToPointEngine engine = engine();
        final long[] ms = engine.messagesSent();
        final long[] bs = engine.bytesSent();
        final long[] mr = engine.messagesReceived();
        final long[] br = engine.bytesReceived();
        final int n = members.length;
        final long[][] out = new long[4][n];
        for (int i = 0; i < n; i++)
        {
            final int w = members[i];
            out[0][i] = ms[w];
            out[1][i] = bs[w];
            out[2][i] = mr[w];
            out[3][i] = br[w];
        }
        return new PeerCounters(out[0], out[1], out[2], out[3]);
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
        if (handler == null || handler.isNull())
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "null or freed error handler"));
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

    /**
     * Java binding of {@code MPI_COMM_CALL_ERRHANDLER}: invokes this communicator's error handler
     * with {@code errorCode}. Under {@code MPI.ERRORS_ARE_FATAL} (the default) the job is aborted
     * with the error's message and this call does not return; under {@code MPI.ERRORS_RETURN}
     * the handler does nothing and this call returns normally, as MPI says
     * ({@code MPI_SUCCESS} when the handler returns): it does not throw.
     */
    public void callErrhandler(final int errorCode)
    {
        check();
        final Errhandler h = getErrhandler();
        final MPIException error = new MPIException(errorCode, "error raised by the application: " +
            (errorCode > ErrorClass.ERR_LASTCODE ? "code " + errorCode + " " + MPI.getErrorString(errorCode) :
            ErrorClass.name(errorCode)));
        if (h.fatal)
        {
            MPI.fatalError(this, error);
        }
        else if (h.function != null)
        {
            h.function.call(this, error);
        }
    }

    /**
     * + {@code MPI_COMM_CREATE_ERRHANDLER}: an error handler that runs {@code function} with
     * the communicator and the error when a call on a communicator it is set on fails (or on
     * {@link #callErrhandler}). When the function returns, the failed call throws the error to
     * its caller, as under {@code MPI.ERRORS_RETURN}; an exception the function throws reaches
     * the caller instead.
     */
    public static Errhandler createErrhandler(final Errhandler.Function function)
    {
        MPI.check();
        if (function == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "createErrhandler: null function"));
        }
        return new Errhandler(function);
    }

    /** Whether this is a null communicator handle. */
    public final boolean isNull()
    {
        return members == null && MPI.isInitialized();
    }

    /** Java binding of {@code MPI_COMM_GET_NAME}: e.g. {@code MPI_COMM_WORLD}. */
    public final String getName()
    {
        return name;
    }

    /**
     * Java binding of {@code MPI_COMM_SET_NAME}: the name {@link #getName} returns from now on
     * in this process (names are local), cut at {@code MPI.MAX_OBJECT_NAME - 1} characters.
     */
    public final void setName(final String newName)
    {
        try
        {
            check();
            if (newName == null)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "setName: null name");
            }
            name = newName.length() >= MPI.MAX_OBJECT_NAME ? newName.substring(0, MPI.MAX_OBJECT_NAME - 1) : newName;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_COMM_TEST_INTER}: whether this is an intercommunicator. */
    public boolean isInter()
    {
        check();
        return false;
    }

    /**
     * Java binding of {@code MPI_TOPO_TEST}: {@code MPI.CART}, {@code MPI.GRAPH},
     * {@code MPI.DIST_GRAPH}, or {@code MPI.UNDEFINED} for a communicator without a topology.
     */
    public int getTopology()
    {
        check();
        return MPI.UNDEFINED;
    }

    /**
     * Java binding of {@code MPI_COMM_SET_INFO}: replaces this communicator's hints with a copy
     * of {@code info}'s. shmpi acts on none of them; {@link #getInfo} returns them.
     */
    public final void setInfo(final Info newInfo)
    {
        try
        {
            check();
            if (newInfo == null || newInfo.isNull())
            {
                throw new MPIException(ErrorClass.ERR_INFO, "setInfo: null or freed info");
            }
            final Info copy = newInfo.dup();
            synchronized (this)
            {
                info = copy;
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_COMM_GET_INFO}: a new info object with the hints set on this communicator. */
    public final Info getInfo()
    {
        try
        {
            check();
            synchronized (this)
            {
                return info.dup();
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_CREATE_KEYVAL}: a new attribute key for communicators whose
     * attribute a dup gets as the same object ({@code createKeyval(Keyval.DUP, Keyval.NO_DELETE)}).
     */
    public static int createKeyval()
    {
        return createKeyval(Keyval.DUP, Keyval.NO_DELETE);
    }

    /**
     * + {@code MPI_COMM_CREATE_KEYVAL} with callbacks ({@link Keyval}): {@code delete} runs on
     * {@link #deleteAttr}, on {@link #setAttr} over a value, and when the communicator goes
     * ({@code MPI.COMM_SELF}'s at Finalize, the last set first); {@code copy} on duplication.
     */
    public static int createKeyval(final Keyval.Copy copy, final Keyval.Delete delete)
    {
        return ATTRIBUTES.createKeyval(copy, delete);
    }

    /** Java binding of {@code MPI_COMM_FREE_KEYVAL}; attributes already cached under it stay. */
    public static void freeKeyval(final int keyval)
    {
        ATTRIBUTES.freeKeyval(keyval);
    }

    /**
     * Java binding of {@code MPI_COMM_SET_ATTR}: caches {@code value} under {@code keyval}
     * (running the delete callback of a value it replaces). The predefined attributes cannot
     * be set, and a keyval of another kind of object is {@code MPI.ERR_KEYVAL}.
     */
    public final void setAttr(final int keyval, final Object value)
    {
        try
        {
            check();
            if (keyval >= 0 && keyval <= MPI.UNIVERSE_SIZE)
            {
                throw new MPIException(ErrorClass.ERR_KEYVAL, "setAttr: predefined attribute " + keyval +
                    " is read-only");
            }
            attributes.set(this, keyval, value);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_COMM_DELETE_ATTR}: runs the keyval's delete callback. */
    public final void deleteAttr(final int keyval)
    {
        try
        {
            check();
            if (keyval >= 0 && keyval <= MPI.UNIVERSE_SIZE)
            {
                throw new MPIException(ErrorClass.ERR_KEYVAL, "deleteAttr: predefined attribute " + keyval +
                    " cannot be deleted");
            }
            attributes.delete(this, keyval);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Deletes every attribute (delete callbacks run, the last set first): when the communicator goes. */
    final void deleteAllAttributes()
    {
        attributes.clear(this);
    }

    /**
     * Java binding of {@code MPI_COMM_FREE}: a created communicator's attributes are deleted
     * (their delete callbacks run, the last set first), its context ids go back to be reused,
     * and it becomes null. Freeing {@code MPI.COMM_WORLD} or {@code MPI.COMM_SELF} is an error in
     * MPI: this raises {@code MPI.ERR_COMM} through the error handler (the communicator stays
     * usable).
     */
    @Override
    public final void free()
    {
        check();
        if (predefined())
        {
            throw handle(new MPIException(ErrorClass.ERR_COMM, "a predefined communicator cannot be freed: " + name));
        }
        try
        {
            attributes.clear(this);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
        release();
    }

    /**
     * + For try-with-resources: frees a communicator the application created; a no-op on the
     * predefined ones (they live until {@code MPI.Finalize}) and on one already freed.
     */
    @Override
    public void close()
    {
        if (!predefined() && members != null)
        {
            free();
        }
    }

    // ------------------------------------------------------------------------------------------

    private PointToPointEngine engine()
    {
        return MPI.engine();
    }

    int worldSource(final int source)
    {
        return source == MPI.ANY_SOURCE ? RecvRequest.ANY_SOURCE : members[source];
    }

    static int engineTag(final int tag)
    {
        return tag == MPI.ANY_TAG ? RecvRequest.ANY_TAG : tag;
    }

    int commRankOf(final int worldRank)
    {
        if (worldRank >= 0 && worldRank < members.length && members[worldRank] == worldRank)
        {
            return worldRank;
        }
        for (int i = 0; i < members.length; i++)
        {
            if (members[i] == worldRank)
            {
                return i;
            }
        }
        return MPI.UNDEFINED;
    }

    void checkDest(final int dest)
    {
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= members.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid destination rank: dest=" + dest + ", size=" +
                members.length + ", comm=" + name);
        }
    }

    void checkSource(final int source)
    {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= members.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid source rank: source=" + source + ", size=" +
                members.length + ", comm=" + name);
        }
    }

    static void checkSendTag(final int tag)
    {
        if (tag < 0 || tag > MAX_TAG)
        {
            throw new MPIException(ErrorClass.ERR_TAG, "invalid tag: tag=" + tag + ", allowed=[0," + MAX_TAG + "]");
        }
    }

    static void checkRecvTag(final int tag)
    {
        if (tag != MPI.ANY_TAG && (tag < 0 || tag > MAX_TAG))
        {
            throw new MPIException(ErrorClass.ERR_TAG,
                "invalid tag: tag=" + tag + ", allowed=[0," + MAX_TAG + "] or MPI.ANY_TAG");
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
        if (MPI.isInitialized() && !MPI.isFinalized() && members != null)
        {
            final Errhandler h = getErrhandler();
            if (h.fatal)
            {
                MPI.fatalError(this, mpiEx);
            }
            else if (h.function != null)
            {
                h.function.call(this, mpiEx);
            }
        }
        return mpiEx;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
