package mpi;

import java.lang.ref.Reference;
import java.nio.Buffer;

import org.shmpi.coll.Members;
import org.shmpi.coll.Schedule;
import org.shmpi.coll.CollectiveModule;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.IntCollectives;
import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.JobAbortedException;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.ring.UnexpectedMessage;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;

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
 * <p>As in Open MPI, a communicator is {@link Freeable} and {@link Cloneable}: {@code dup()} and
 * {@code clone()} make a communicator of the same group on new context ids agreed by every
 * member; the predefined ones ({@code COMM_WORLD}, {@code COMM_SELF}) cannot be freed.
 * Its collectives are a {@link CollectiveModule}, chosen when it is bound.
 *
 * <p>This class is the whole of Open MPI's {@code Comm} API surface (point-to-point, about 120
 * collective entry points, attributes, error handlers, construction), which is why it is one
 * long file; the work behind each method lives in the engines and in {@link Collectives}.
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
    /**
     * World ranks of the processes point-to-point ranks name: the members on an
     * intra-communicator, the remote group on an inter-communicator.
     */
    int[] peers;
    int myRank = -1;
    /** Context id of this communicator's point-to-point traffic. */
    int contextId;
    /** Context id of its collectives' internal traffic, which never matches user messages. */
    int collContextId;
    volatile Errhandler errhandler;
    private volatile String name;
    private static final Attributes ATTRIBUTES = new Attributes("communicator");
    private final Attributes.Cache attributes = ATTRIBUTES.new Cache();
    /** The hints set by {@link #setInfo} (shmpi acts on none of them yet). */
    private Info info = new Info();
    /** The collectives of this communicator, chosen when it is bound. */
    private CollectiveModule coll;

    Comm(final String name)
    {
        this.name = name;
    }

    /** Binds a predefined communicator at {@code MPI.Init}. */
    void bind(final int[] members, final int myRank, final int contextId, final int collContextId)
    {
        this.members = members;
        this.peers = members;
        this.myRank = myRank;
        this.contextId = contextId;
        this.collContextId = collContextId;
        this.coll = new CollectiveModule(MPI.context(), members, myRank, collContextId, true,
            () -> Locality.collectiveGroups(this, members.length));
    }

    /** Binds an inter-communicator: this process is {@code local[myRank]}; point-to-point addresses {@code remote}. */
    void bindInter(final int[] local, final int myRank, final int[] remote, final int contextId, final int collContextId)
    {
        bind(local, myRank, contextId, collContextId);
        this.peers = remote;
        this.coll = new CollectiveModule(MPI.context(), local, myRank, collContextId, false, () -> null);
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
        if (comm1.peers != comm1.members || comm2.peers != comm2.members)
        {
            // Inter-communicators: both groups must compare; the weaker answer wins.
            if ((comm1.peers != comm1.members) != (comm2.peers != comm2.members))
            {
                return MPI.UNEQUAL;
            }
            final int local = Group.compare(new Group(comm1.members), new Group(comm2.members));
            final int remote = Group.compare(new Group(comm1.peers), new Group(comm2.peers));
            if (local == MPI.UNEQUAL || remote == MPI.UNEQUAL)
            {
                return MPI.UNEQUAL;
            }
            return local == MPI.IDENT && remote == MPI.IDENT ? MPI.CONGRUENT : MPI.SIMILAR;
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
     * when the attached buffer has no room. With no buffer attached, a message up to the eager
     * limit is sent at once from a private copy (as Open MPI does); a larger one is
     * {@code MPI.ERR_BUFFER}.
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
            final RankContext ctx = MPI.context();
            final SendRequest s = ctx.transport().isend(contextId, peers[dest], tag, Buffers.base(buf), Buffers.offset(buf),
                bytes, mode == MODE_SYNC ? SendRequest.MODE_SYNC : SendRequest.MODE_STANDARD, type.layout());
            if (!s.isComplete())
            {
                ctx.progress().await(s);
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
            unbufferedSend(buf, type, bytes, dest, tag);
            return;
        }
        final BsendBuffer.Held held = attached.copyIn(Buffers.base(buf), Buffers.offset(buf), bytes, type.layout());
        final SendRequest s;
        try
        {
            // The engine request references the attached array as its base: it stays reachable.
            s = context().transport().isend(contextId, peers[dest], tag, attached.buffer, held.dataOffset(), bytes,
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
     * A buffered send with no buffer attached. Open MPI sends such a message at once when it fits
     * its eager limit, and programs written for it bSend small messages without attaching a
     * buffer; shmpi does the same for messages up to its eager limit, from a private copy, so the
     * caller's buffer is free at once as a buffered send promises and nothing is written outside
     * memory this call allocated. Larger messages still need an attached buffer:
     * {@code MPI.ERR_BUFFER}. A copy still queued is sent by the progress engine; Finalize waits
     * for it.
     */
    private void unbufferedSend(final Object buf, final Datatype type, final long bytes, final int dest, final int tag)
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
        final SendRequest s = ctx.transport().isend(contextId, peers[dest], tag, copy, Buffers.BYTE_ARRAY_BASE, bytes,
            SendRequest.MODE_STANDARD);
        if (!s.isComplete())
        {
            MPI.unbufferedSendQueued(s);
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
            final long bytes = Buffers.bytes(buf, count, type);
            checkSource(source);
            checkRecvTag(tag);
            if (source == MPI.PROC_NULL)
            {
                return new Status(MPI.PROC_NULL, MPI.ANY_TAG, MPI.SUCCESS, 0);
            }
            final RankContext ctx = MPI.context();
            final RecvRequest r = ctx.transport().recv(contextId, worldSource(source), engineTag(tag), Buffers.base(buf),
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
            final EngineRequest s = context().transport().isend(contextId, peers[dest], tag, Buffers.base(buf),
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
            final RecvRequest r = context().transport().irecv(contextId, worldSource(source), engineTag(tag), Buffers.base(buf),
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
            final UnexpectedMessage m = context().transport().probe(contextId, worldSource(source), engineTag(tag));
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
            return statusOf(context().transport().probeBlocking(contextId, worldSource(source), engineTag(tag)));
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

    /**
     * The barrier, recorded as MPI call {@code call} in the rank's wait record if it blocks. On an
     * inter-communicator: a barrier in each group, the two groups' rank 0s swap an empty message,
     * then a second barrier in each group, so no process leaves before all of both groups came.
     */
    final void barrier(final int call)
    {
        try
        {
            check();
            // Only the application's barriers: MPI.Finalize's must not set up shared state.
            final org.shmpi.coll.ShmCollectives s = call == BlockedCall.BARRIER ? coll.shmFor(CollectiveOp.BARRIER, 0) : null;
            if (s != null)
            {
                s.barrier();
                return;
            }
            disseminate(call);
            if (isInter())
            {
                if (myRank == 0)
                {
                    exchangeInts(collContextId, peers[0], TAG_BRIDGE, new int[0], call);
                }
                disseminate(call);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** A dissemination barrier among the members (the local group), on the collective context. */
    private void disseminate(final int call)
    {
        final int n = members.length;
        final RankContext ctx = MPI.context();
        final byte[] none = new byte[0];
        final long base = Buffers.BYTE_ARRAY_BASE;
        final int collContext = collContextId;
        for (int k = 0, dist = 1; dist < n; k++, dist <<= 1)
        {
            final int to = members[(myRank + dist) % n];
            final int from = members[(myRank - dist + n) % n];
            ctx.transport().send(collContext, to, k, none, base, 0, call);
            ctx.transport().recv(collContext, from, k, none, base, 0, DataLayout.CONTIGUOUS, call);
        }
    }

    /**
     * Java binding of {@code MPI_IBARRIER}: returns at once; the request completes when every
     * member has called it.
     */
    public final Request iBarrier()
    {
        return nonblocking(() -> Collectives.iBarrier(this, false));
    }

    /** + Java binding of {@code MPI_BARRIER_INIT} (MPI-4 persistent collective). */
    public final Prequest barrierInit()
    {
        return persistent(() -> Collectives.iBarrier(this, false));
    }

    /**
     * Java binding of {@code MPI_REDUCE_LOCAL}: {@code inOutBuf[i] = inBuf[i] op inOutBuf[i]} for
     * {@code count} items of {@code type}, on this process only.
     */
    public static void reduceLocal(final Object inBuf, final Object inOutBuf, final int count, final Datatype type,
        final Op op)
    {
        MPI.check();
        try
        {
            Collectives.reduceLocal(inBuf, inOutBuf, count, type, op);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_SELF.handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_BCAST}: broadcasts {@code count} items of {@code buf} from {@code root} to every member's {@code buf}. Blocks until this member's part is done. Collective.
     */
    public final void bcast(final Object buf, final int count, final Datatype type, final int root)
    {
        try
        {
            Collectives.bcast(this, buf, count, type, root, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_BCAST}, nonblocking ({@code MPI_IBCAST}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iBcast(final Buffer buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.bcast(this, buf, count, type, root, false));
    }

    /** + {@link #iBcast} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iBcast(final Object buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.bcast(this, buf, count, type, root, false));
    }

    /**
     * + Java binding of {@code MPI_BCAST_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest bcastInit(final Object buf, final int count, final Datatype type, final int root)
    {
        return persistent(() -> Collectives.bcast(this, buf, count, type, root, false), buf);
    }

    /**
     * Java binding of {@code MPI_GATHER}: the root receives each member's {@code sendcount} items, in rank order, in {@code recvbuf} ({@code recvcount} items per rank). Blocks until this member's part is done. Collective.
     */
    public final void gather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GATHER}, nonblocking ({@code MPI_IGATHER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /** + {@link #iGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /**
     * + Java binding of {@code MPI_GATHER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest gatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Collectives.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_GATHER with MPI_IN_PLACE}: on the root, {@code buf} is the receive buffer and the root's own block is already in place; elsewhere {@code buf} holds the {@code count} items sent. Blocks until this member's part is done. Collective.
     */
    public final void gather(final Object buf, final int count, final Datatype type, final int root)
    {
        try
        {
            Collectives.gather(this, buf, count, type, buf, count, type, root, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GATHER}, nonblocking ({@code MPI_IGATHER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iGather(final Buffer buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.gather(this, buf, count, type, buf, count, type, root, true, false));
    }

    /** + {@link #iGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGather(final Object buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.gather(this, buf, count, type, buf, count, type, root, true, false));
    }

    /**
     * Java binding of {@code MPI_GATHERV}: the root receives rank r's items at item {@code displs[r]} of {@code recvbuf} ({@code recvcount[r]} items). Blocks until this member's part is done. Collective.
     */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GATHERV}, nonblocking ({@code MPI_IGATHERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false, false));
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false, false));
    }

    /**
     * + Java binding of {@code MPI_GATHERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest gathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return persistent(() -> Collectives.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_GATHERV with MPI_IN_PLACE, on the root}: the root's own block is already in place in {@code recvbuf}; the other members call the form with a send buffer. Blocks until this member's part is done. Collective.
     */
    public final void gatherv(final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GATHERV}, nonblocking ({@code MPI_IGATHERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iGatherv(final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, true, false));
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, true, false));
    }

    /**
     * Java binding of {@code MPI_GATHERV, on the members other than the root}: sends {@code sendcount} items to the root, which calls a form with receive counts. Blocks until this member's part is done. Collective.
     */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
    {
        try
        {
            Collectives.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_GATHERV,}, nonblocking ({@code MPI_IGATHERV,}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype, root, false, false));
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
    {
        return nonblocking(() -> Collectives.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype, root, false, false));
    }

    /**
     * Java binding of {@code MPI_SCATTER}: rank r receives the r-th block of {@code sendcount} items of the root's {@code sendbuf}. Blocks until this member's part is done. Collective.
     */
    public final void scatter(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_SCATTER}, nonblocking ({@code MPI_ISCATTER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScatter(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /** + {@link #iScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatter(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /**
     * + Java binding of {@code MPI_SCATTER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest scatterInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Collectives.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_SCATTER with MPI_IN_PLACE}: on the root, {@code buf} is the send buffer and its own block stays where it is; elsewhere {@code buf} receives {@code count} items. Blocks until this member's part is done. Collective.
     */
    public final void scatter(final Object buf, final int count, final Datatype type, final int root)
    {
        try
        {
            Collectives.scatter(this, buf, count, type, buf, count, type, root, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_SCATTER}, nonblocking ({@code MPI_ISCATTER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScatter(final Buffer buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.scatter(this, buf, count, type, buf, count, type, root, true, false));
    }

    /** + {@link #iScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatter(final Object buf, final int count, final Datatype type, final int root)
    {
        return nonblocking(() -> Collectives.scatter(this, buf, count, type, buf, count, type, root, true, false));
    }

    /**
     * Java binding of {@code MPI_SCATTERV}: rank r receives {@code sendcount[r]} items from item {@code displs[r]} of the root's {@code sendbuf}. Blocks until this member's part is done. Collective.
     */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_SCATTERV}, nonblocking ({@code MPI_ISCATTERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /**
     * + Java binding of {@code MPI_SCATTERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest scattervInit(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_SCATTERV with MPI_IN_PLACE, on the root}: the root's own block stays in {@code sendbuf}; the other members call the form with a receive buffer. Blocks until this member's part is done. Collective.
     */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final int root)
    {
        try
        {
            Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_SCATTERV}, nonblocking ({@code MPI_ISCATTERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root, true, false));
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root, true, false));
    }

    /**
     * Java binding of {@code MPI_SCATTERV, on the members other than the root}: receives {@code recvcount} items from the root, which calls a form with send counts. Blocks until this member's part is done. Collective.
     */
    public final void scatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        try
        {
            Collectives.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_SCATTERV,}, nonblocking ({@code MPI_ISCATTERV,}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iScatterv(final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return nonblocking(() -> Collectives.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype, root, false, false));
    }

    /**
     * Java binding of {@code MPI_ALLGATHER}: every member receives every member's {@code sendcount} items, in rank order. Blocks until this member's part is done. Collective.
     */
    public final void allGather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        try
        {
            Collectives.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLGATHER}, nonblocking ({@code MPI_IALLGATHER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, false));
    }

    /** + {@link #iAllGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, false));
    }

    /**
     * + Java binding of {@code MPI_ALLGATHER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allGatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Collectives.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLGATHER with MPI_IN_PLACE}: each member's own block of {@code count} items is already in place in {@code buf}. Blocks until this member's part is done. Collective.
     */
    public final void allGather(final Object buf, final int count, final Datatype type)
    {
        try
        {
            Collectives.allGather(this, buf, count, type, buf, count, type, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLGATHER}, nonblocking ({@code MPI_IALLGATHER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllGather(final Buffer buf, final int count, final Datatype type)
    {
        return nonblocking(() -> Collectives.allGather(this, buf, count, type, buf, count, type, true, false));
    }

    /** + {@link #iAllGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGather(final Object buf, final int count, final Datatype type)
    {
        return nonblocking(() -> Collectives.allGather(this, buf, count, type, buf, count, type, true, false));
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV}: every member receives rank r's items at item {@code displs[r]} of {@code recvbuf}. Blocks until this member's part is done. Collective.
     */
    public final void allGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        try
        {
            Collectives.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV}, nonblocking ({@code MPI_IALLGATHERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false, false));
    }

    /** + {@link #iAllGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false, false));
    }

    /**
     * + Java binding of {@code MPI_ALLGATHERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allGathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return persistent(() -> Collectives.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV with MPI_IN_PLACE}: each member's own block is already in place in {@code recvbuf}. Blocks until this member's part is done. Collective.
     */
    public final void allGatherv(final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        try
        {
            Collectives.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs, recvtype, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV}, nonblocking ({@code MPI_IALLGATHERV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllGatherv(final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs, recvtype, true, false));
    }

    /** + {@link #iAllGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGatherv(final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs, recvtype, true, false));
    }

    /**
     * Java binding of {@code MPI_ALLTOALL}: block r of {@code sendbuf} goes to rank r; block r of {@code recvbuf} comes from rank r. Blocks until this member's part is done. Collective.
     */
    public final void allToAll(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        try
        {
            Collectives.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLTOALL}, nonblocking ({@code MPI_IALLTOALL}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /** + {@link #iAllToAll} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /**
     * + Java binding of {@code MPI_ALLTOALL_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Collectives.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLTOALLV}: as allToAll with a count and a displacement (in items) per rank on both sides. Blocks until this member's part is done. Collective.
     */
    public final void allToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        try
        {
            Collectives.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLTOALLV}, nonblocking ({@code MPI_IALLTOALLV}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false));
    }

    /** + {@link #iAllToAllv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false));
    }

    /**
     * + Java binding of {@code MPI_ALLTOALLV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllvInit(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return persistent(() -> Collectives.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLTOALLW}: as allToAllv with a datatype per rank and displacements in bytes. Blocks until this member's part is done. Collective.
     */
    public final void allToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        try
        {
            Collectives.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLTOALLW}, nonblocking ({@code MPI_IALLTOALLW}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllToAllw(final Buffer sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Buffer recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return nonblocking(() -> Collectives.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false));
    }

    /** + {@link #iAllToAllw} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return nonblocking(() -> Collectives.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false));
    }

    /**
     * + Java binding of {@code MPI_ALLTOALLW_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllwInit(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return persistent(() -> Collectives.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE}: the root receives in {@code recvbuf} the reduction by {@code op} of every member's {@code sendbuf}, applied in rank order. Blocks until this member's part is done. Collective.
     */
    public final void reduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op, final int root)
    {
        try
        {
            Collectives.reduce(this, sendbuf, recvbuf, count, type, op, root, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE}, nonblocking ({@code MPI_IREDUCE}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduce(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type, final Op op, final int root)
    {
        return nonblocking(() -> Collectives.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false));
    }

    /** + {@link #iReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op, final int root)
    {
        return nonblocking(() -> Collectives.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false));
    }

    /**
     * + Java binding of {@code MPI_REDUCE_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceInit(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op, final int root)
    {
        return persistent(() -> Collectives.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE with MPI_IN_PLACE}: on the root, {@code buf} holds its contribution and receives the result; elsewhere it holds the contribution. Blocks until this member's part is done. Collective.
     */
    public final void reduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
    {
        try
        {
            Collectives.reduce(this, buf, buf, count, type, op, root, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE}, nonblocking ({@code MPI_IREDUCE}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduce(final Buffer buf, final int count, final Datatype type, final Op op, final int root)
    {
        return nonblocking(() -> Collectives.reduce(this, buf, buf, count, type, op, root, true, false));
    }

    /** + {@link #iReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
    {
        return nonblocking(() -> Collectives.reduce(this, buf, buf, count, type, op, root, true, false));
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE}: every member receives the reduction by {@code op} of every member's {@code sendbuf}, the same bits on every member. Blocks until this member's part is done. Collective.
     */
    public final void allReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op)
    {
        try
        {
            Collectives.allReduce(this, sendbuf, recvbuf, count, type, op, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE}, nonblocking ({@code MPI_IALLREDUCE}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllReduce(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.allReduce(this, sendbuf, recvbuf, count, type, op, false, false));
    }

    /** + {@link #iAllReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.allReduce(this, sendbuf, recvbuf, count, type, op, false, false));
    }

    /**
     * + Java binding of {@code MPI_ALLREDUCE_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allReduceInit(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op)
    {
        return persistent(() -> Collectives.allReduce(this, sendbuf, recvbuf, count, type, op, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE with MPI_IN_PLACE}: {@code buf} holds each member's contribution and receives the result. Blocks until this member's part is done. Collective.
     */
    public final void allReduce(final Object buf, final int count, final Datatype type, final Op op)
    {
        try
        {
            Collectives.allReduce(this, buf, buf, count, type, op, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE}, nonblocking ({@code MPI_IALLREDUCE}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iAllReduce(final Buffer buf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.allReduce(this, buf, buf, count, type, op, true, false));
    }

    /** + {@link #iAllReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllReduce(final Object buf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.allReduce(this, buf, buf, count, type, op, true, false));
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}: the reduction of every member's {@code sendbuf} is split into blocks of {@code recvcounts[r]} items, block r to rank r. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts, final Datatype type, final Op op)
    {
        try
        {
            Collectives.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}, nonblocking ({@code MPI_IREDUCE_SCATTER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatter(final Buffer sendbuf, final Buffer recvbuf, final int[] recvcounts, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false));
    }

    /** + {@link #iReduceScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false));
    }

    /**
     * + Java binding of {@code MPI_REDUCE_SCATTER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceScatterInit(final Object sendbuf, final Object recvbuf, final int[] recvcounts, final Datatype type, final Op op)
    {
        return persistent(() -> Collectives.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER with MPI_IN_PLACE}: {@code buf} holds the contribution, and this member's block of the result is written at its start. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
    {
        try
        {
            Collectives.reduceScatter(this, buf, buf, counts, type, op, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}, nonblocking ({@code MPI_IREDUCE_SCATTER}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatter(final Buffer buf, final int[] counts, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatter(this, buf, buf, counts, type, op, true, false));
    }

    /** + {@link #iReduceScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatter(this, buf, buf, counts, type, op, true, false));
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}: as reduceScatter with {@code recvcount} items for every rank. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount, final Datatype type, final Op op)
    {
        try
        {
            Collectives.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}, nonblocking ({@code MPI_IREDUCE_SCATTER_BLOCK}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatterBlock(final Buffer sendbuf, final Buffer recvbuf, final int recvcount, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false, false));
    }

    /** + {@link #iReduceScatterBlock} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false, false));
    }

    /**
     * + Java binding of {@code MPI_REDUCE_SCATTER_BLOCK_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceScatterBlockInit(final Object sendbuf, final Object recvbuf, final int recvcount, final Datatype type, final Op op)
    {
        return persistent(() -> Collectives.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK with MPI_IN_PLACE}: {@code buf} holds the contribution, and this member's block of the result is written at its start. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatterBlock(final Object buf, final int count, final Datatype type, final Op op)
    {
        try
        {
            Collectives.reduceScatterBlock(this, buf, buf, count, type, op, true, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}, nonblocking ({@code MPI_IREDUCE_SCATTER_BLOCK}): returns at once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatterBlock(final Buffer buf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatterBlock(this, buf, buf, count, type, op, true, false));
    }

    /** + {@link #iReduceScatterBlock} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduceScatterBlock(final Object buf, final int count, final Datatype type, final Op op)
    {
        return nonblocking(() -> Collectives.reduceScatterBlock(this, buf, buf, count, type, op, true, false));
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLGATHER}: this process's {@code sendcount} items go to each of its topology's destinations; block i of {@code recvbuf} ({@code recvcount} items) comes from source i (see {@link CartComm}, {@link GraphComm} for the order of neighbours); blocks of {@code MPI.PROC_NULL} neighbours are left alone. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        try
        {
            Collectives.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLGATHER}: {@link #neighborAllGather} without blocking. */
    public final Request iNeighborAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /** + {@link #iNeighborAllGather} on arrays too. */
    public final Request iNeighborAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLGATHER_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllGatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Collectives.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLGATHERV}: as neighborAllGather, source i's {@code recvcount[i]} items landing at item {@code displs[i]}. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        try
        {
            Collectives.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLGATHERV}: {@link #neighborAllGatherv} without blocking. */
    public final Request iNeighborAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false));
    }

    /** + {@link #iNeighborAllGatherv} on arrays too. */
    public final Request iNeighborAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false));
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLGATHERV_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllGathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return persistent(() -> Collectives.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALL}: block i of {@code sendbuf} goes to destination i, block i of {@code recvbuf} comes from source i. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        try
        {
            Collectives.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALL}: {@link #neighborAllToAll} without blocking. */
    public final Request iNeighborAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /** + {@link #iNeighborAllToAll} on arrays too. */
    public final Request iNeighborAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false));
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALL_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllInit(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Collectives.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALLV}: as neighborAllToAll with a count and a displacement (in items) per neighbour. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        try
        {
            Collectives.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALLV}: {@link #neighborAllToAllv} without blocking. */
    public final Request iNeighborAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false));
    }

    /** + {@link #iNeighborAllToAllv} on arrays too. */
    public final Request iNeighborAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return nonblocking(() -> Collectives.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false));
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALLV_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllvInit(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype)
    {
        return persistent(() -> Collectives.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALLW}: + as neighborAllToAllv with a datatype per neighbour and displacements in bytes. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        try
        {
            Collectives.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, true);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALLW}: {@link #neighborAllToAllw} without blocking. */
    public final Request iNeighborAllToAllw(final Buffer sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Buffer recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return nonblocking(() -> Collectives.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false));
    }

    /** + {@link #iNeighborAllToAllw} on arrays too. */
    public final Request iNeighborAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return nonblocking(() -> Collectives.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false));
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALLW_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllwInit(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes)
    {
        return persistent(() -> Collectives.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes, false), sendbuf, recvbuf);
    }

    /**
     * This process's neighbourhood for the neighbourhood collectives: {sources, tag offsets of
     * their messages, destinations, tag offsets of the messages to them}; a process topology
     * answers, any other communicator is {@code MPI.ERR_TOPOLOGY}.
     */
    int[][] neighbourhood()
    {
        throw new MPIException(ErrorClass.ERR_TOPOLOGY, "neighbourhood collectives need a Cartesian, graph or " +
            "distributed-graph communicator: " + getName());
    }

    /** This communicator's collectives: their algorithm choice, shared-memory state and sequence. */
    final CollectiveModule coll()
    {
        return coll;
    }

    /** Runs a blocking collective, raising its failure through the error handler. */
    final void collective(final java.util.function.Supplier<Request> operation)
    {
        try
        {
            operation.get();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Starts a nonblocking collective, raising a failure to start through the error handler. */
    final Request nonblocking(final java.util.function.Supplier<Request> operation)
    {
        try
        {
            return operation.get();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** A persistent collective: each start runs {@code operation} as a nonblocking collective. */
    final Prequest persistent(final java.util.function.Supplier<Request> operation, final Object... keep)
    {
        try
        {
            check();
            // Set up once: the shared-memory state the starts will use (a collective step, as
            // MPI allows of a persistent collective's initialisation); unless it is
            // hierarchical, when the starts take the point-to-point schedules (shmIfSetUp).
            coll.shmFor(CollectiveOp.BARRIER, 0);
            return new Prequest(this, () -> nonblocking(operation), keep);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Communicator construction

    /** Internal tags on the collective context start here (the barrier uses 0..31, the context agreement the next four). */
    private static final int TAG_MASK = 1 << 20;

    /**
     * Agrees with the other members on two context ids free on all of them, and reserves them
     * here ({@link ContextAgreement}, rooted at rank 0). Collective over this communicator, on its
     * collective context.
     */
    final int[] agreeContexts(final int call)
    {
        return agree(members, myRank, 0, collContextId, BLOCKING_AGREEMENT, null, call);
    }

    /**
     * The tag set ({@link ContextAgreement#tags}) of every blocking agreement: they never overlap
     * on one communicator, since each completes before its call returns.
     */
    static final int BLOCKING_AGREEMENT = 0xFFFF;

    /**
     * Number of {@link #iDup} calls on this communicator so far: the tag set of each nonblocking
     * agreement, so that several in progress at once (and a blocking one meanwhile) keep their
     * messages apart. Every member calls iDup in the same order (MPI orders collectives), so
     * the numbers match.
     */
    private int nonblockingAgreements;

    private synchronized int nextNonblockingAgreement()
    {
        return nonblockingAgreements++ % BLOCKING_AGREEMENT;
    }

    /** Runs a {@link ContextAgreement} to completion on this thread; returns the two ids. */
    static int[] agree(final int[] group, final int me, final int root, final int collContext, final int sequence,
        final ContextAgreement.Bridge bridge, final int call)
    {
        final ContextAgreement agreement = new ContextAgreement(MPI.context().contexts(), group, me, root, collContext,
            sequence, bridge);
        new Schedule(MPI.context(), "context agreement", agreement.first()).runToCompletion(call);
        return agreement.result();
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

    /**
     * Java binding of {@code MPI_COMM_DUP_WITH_INFO}: {@link #dup()} whose hints are a copy of
     * {@code newInfo}'s instead; {@code MPI.INFO_NULL} gives it no hints (as Open MPI). A freed or
     * null info is {@code MPI.ERR_INFO}, raised before anything is created.
     */
    public Comm dupWithInfo(final Info newInfo)
    {
        final Info hints = hintsOfDup(newInfo);
        return hinted(dup(), hints);
    }

    /**
     * The hints {@code dupWithInfo(newInfo)} gives the new communicator: a copy of
     * {@code newInfo}'s, none for {@code MPI.INFO_NULL}; {@code MPI.ERR_INFO} (through this
     * communicator's handler) for a freed or null info.
     */
    final Info hintsOfDup(final Info newInfo)
    {
        try
        {
            check();
            if (newInfo == MPI.INFO_NULL)
            {
                return new Info();
            }
            if (newInfo == null || newInfo.isNull())
            {
                throw new MPIException(ErrorClass.ERR_INFO, "dupWithInfo: null or freed info");
            }
            return newInfo.dup();
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** {@code comm}, its hints replaced by {@code hints} (which it now owns). */
    static <C extends Comm> C hinted(final C comm, final Info hints)
    {
        synchronized (comm)
        {
            ((Comm)comm).info = hints;
        }
        return comm;
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
            final int[] ids = agree(members, myRank, 0, collContextId, BLOCKING_AGREEMENT, bridgeToRemote(),
                BlockedCall.BARRIER);
            target.bindInter(members, myRank, peers, ids[0], ids[1]);
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

    /**
     * On an inter-communicator's rank 0, the link to the remote group's rank 0 over the
     * collective context; null elsewhere and on an intra-communicator.
     */
    final ContextAgreement.Bridge bridgeToRemote()
    {
        return bridgeToRemote(TAG_BRIDGE);
    }

    /** {@link #bridgeToRemote()} with messages of {@code tag}. */
    private ContextAgreement.Bridge bridgeToRemote(final int tag)
    {
        return isInter() && myRank == 0 ? new ContextAgreement.Bridge(collContextId, peers[0], tag) : null;
    }

    /**
     * Java binding of {@code MPI_COMM_IDUP}: {@link #dup()} without blocking. The new communicator
     * is returned at once and may be used once {@link #getRequest()} on it has completed (waited
     * for or tested true); the context agreement runs in the progress engine meanwhile, so the
     * caller may compute or communicate on other communicators. The attributes are copied now,
     * by the keyvals' copy callbacks; a failed copy fails the request (and the new communicator
     * stays null). Collective over this communicator, in the same order as its other collectives.
     */
    public Comm iDup()
    {
        return duplicateNonblocking(new Intracomm(""));
    }

    /**
     * Java binding of the request of a nonblocking communicator construction ({@link #iDup()}):
     * the request that completes when this communicator is ready. A communicator not made by
     * {@code iDup} answers a null request ({@link Request#isNull()}).
     */
    public final Request getRequest()
    {
        final Request r = creation;
        return r != null ? r : new Request();
    }

    /** The request of the {@link #iDup} that made this communicator; null otherwise. */
    private volatile Request creation;

    /** Makes {@code into} a duplicate of this communicator without blocking (see {@link #iDup()}). */
    final <C extends Comm> C duplicateNonblocking(final C into)
    {
        try
        {
            check();
            final Comm target = into;
            target.errhandler = errhandler;
            synchronized (this)
            {
                target.info = info.dup();
            }
            RuntimeException copyFailure = null;
            try
            {
                attributes.copyInto(this, target.attributes, target);
            }
            catch (final RuntimeException ex)
            {
                copyFailure = ex;
            }
            final RuntimeException failed = copyFailure;
            final int[] local = members;
            final int[] remote = peers;
            final int me = myRank;
            final String parent = name;
            final int sequence = nextNonblockingAgreement();
            final ContextAgreement agreement = new ContextAgreement(context().contexts(), local, me, 0, collContextId,
                sequence, bridgeToRemote(ContextAgreement.tags(sequence)));
            agreement.then(step ->
            {
                final int[] ids = agreement.result();
                if (failed != null)
                {
                    // Every member took part; this one gives its ids back and reports the copy's failure.
                    context().contexts().release(ids[0]);
                    context().contexts().release(ids[1]);
                    final int errorClass = failed instanceof MPIException ? ((MPIException)failed).getErrorClass() :
                        failed instanceof ShmpiException ? ((ShmpiException)failed).errorClass() : ErrorClass.ERR_OTHER;
                    throw new ShmpiException(errorClass, "iDup: an attribute copy callback failed: " + failed, failed);
                }
                target.bindInter(local, me, remote, ids[0], ids[1]);
                MPI.nameContexts(target, "dup of " + parent);
                return null;
            });
            final Schedule schedule = new Schedule(context(), "iDup of " + parent, agreement.first());
            target.creation = new Request(this, schedule.request(), null);
            schedule.start();
            return into;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_COMM_DISCONNECT}: waits until every member has called it (so
     * that the messages each sent on it before have been sent), then frees it as {@link #free()}
     * does. On shmpi no process is connected by a port yet, so this is the collective form of
     * {@code free}. Disconnecting {@code MPI.COMM_WORLD} or {@code MPI.COMM_SELF} is
     * {@code MPI.ERR_COMM}. Collective.
     */
    public final void disconnect()
    {
        check();
        if (predefined())
        {
            throw handle(new MPIException(ErrorClass.ERR_COMM, "a predefined communicator cannot be disconnected: " +
                name));
        }
        barrier(BlockedCall.BARRIER);
        free();
    }

    /** Why the local leader cannot reach {@code remoteLeader} through this peer communicator: an error class, or 0. */
    private int leaderProblem(final Comm localComm, final int remoteLeader)
    {
        if (members == null)
        {
            return ErrorClass.ERR_COMM;
        }
        if (remoteLeader < 0 || remoteLeader >= peers.length)
        {
            return ErrorClass.ERR_RANK;
        }
        // The remote leader must lie outside the local group.
        return localComm.commRankOf(peers[remoteLeader]) != MPI.UNDEFINED ? ErrorClass.ERR_ARG : 0;
    }

    /**
     * Java binding of {@code MPI_INTERCOMM_CREATE}, called on the peer communicator: joins the
     * group of {@code localComm} with another, disjoint group into an inter-communicator. Every
     * process of both groups calls it; {@code localLeader} (a rank of {@code localComm}) and the
     * other group's leader ({@code remoteLeader}, its rank in this peer communicator, which only
     * the leaders use) swap their groups by messages with {@code tag} on this communicator, then
     * both groups agree on the new context ids. Point-to-point on the result addresses the remote
     * group; {@code getRank}/{@code getSize}/{@code getGroup} describe the local one.
     */
    public final Intercomm createIntercomm(final Comm localComm, final int localLeader, final int remoteLeader,
        final int tag)
    {
        try
        {
            MPI.check();
            if (localComm == null || localComm.members == null || localComm.isInter())
            {
                throw new MPIException(ErrorClass.ERR_COMM, "createIntercomm: localComm must be an intra-communicator: " +
                    localComm);
            }
            if (localLeader < 0 || localLeader >= localComm.members.length)
            {
                throw new MPIException(ErrorClass.ERR_RANK, "createIntercomm: invalid local leader: localLeader=" +
                    localLeader + ", size=" + localComm.members.length);
            }
            checkSendTag(tag);
            final boolean leader = localComm.myRank == localLeader;
            // The leader sends its group [0 = ok, remote world ranks...] or [error class] when it
            // cannot reach the other group, so that no member waits for a group that never comes.
            int[] fromLeader = null;
            ContextAgreement.Bridge bridge = null;
            if (leader)
            {
                final int problem = leaderProblem(localComm, remoteLeader);
                if (problem != 0)
                {
                    fromLeader = new int[] {problem};
                }
                else
                {
                    final int remoteWorld = peers[remoteLeader];
                    final int[] theirs = exchangeInts(contextId, remoteWorld, tag, localComm.members, BlockedCall.BARRIER);
                    fromLeader = new int[theirs.length + 1];
                    System.arraycopy(theirs, 0, fromLeader, 1, theirs.length);
                    bridge = new ContextAgreement.Bridge(contextId, remoteWorld, tag);
                }
            }
            fromLeader = localComm.bcastInts(fromLeader, localLeader, BlockedCall.BARRIER);
            if (fromLeader[0] != 0)
            {
                throw new MPIException(fromLeader[0], "createIntercomm: the local leader (rank " + localLeader +
                    ") cannot reach remote leader " + remoteLeader + " through " + name);
            }
            final int[] remote = java.util.Arrays.copyOfRange(fromLeader, 1, fromLeader.length);
            for (final int w : remote)
            {
                if (localComm.commRankOf(w) != MPI.UNDEFINED)
                {
                    // Every process of both groups sees both lists, so all fail alike.
                    throw new MPIException(ErrorClass.ERR_ARG, "createIntercomm: the groups overlap: world rank " + w +
                        " is in both");
                }
            }
            final int[] ids = agree(localComm.members, localComm.myRank, localLeader, localComm.collContextId,
                BLOCKING_AGREEMENT, bridge, BlockedCall.BARRIER);
            final Intercomm ic = new Intercomm("");
            ic.bindInter(localComm.members, localComm.myRank, remote, ids[0], ids[1]);
            ic.errhandler = localComm.errhandler;
            MPI.nameContexts(ic, "intercomm of " + localComm.name);
            return ic;
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    private static final int TAG_GATHER = TAG_MASK + 4;
    private static final int TAG_ALL = TAG_MASK + 5;

    /**
     * Every member's {@code mine} (all the same length), in rank order, on every member: the
     * collective engine's allgather on the collective context, under a tag of its own.
     * Collective over this communicator.
     */
    final int[] allgatherInts(final int[] mine, final int call)
    {
        return IntCollectives.allgather(intMembers(TAG_GATHER), mine, call);
    }

    /** The members of an int collective, on the collective context with internal tag {@code tag}. */
    private Members intMembers(final int tag)
    {
        return new Members(MPI.context(), members, myRank, collContextId, tag);
    }

    private static final int TAG_BCAST = TAG_MASK + 6;
    /** The link between an inter-communicator's two rank 0s. */
    static final int TAG_BRIDGE = TAG_MASK + 7;

    /** {@code data} of member {@code root} (any length; ignored elsewhere), on every member. */
    final int[] bcastInts(final int[] data, final int root, final int call)
    {
        return IntCollectives.bcast(intMembers(TAG_BCAST), root, data, call);
    }

    /**
     * Sends {@code mine} to world rank {@code peer} and returns what it sent, on {@code context}
     * with {@code tag}; both sides call it.
     */
    static int[] exchangeInts(final int context, final int peer, final int tag, final int[] mine, final int call)
    {
        return IntCollectives.exchange(MPI.context(), context, peer, tag, mine, call);
    }

    /** Every member's {@code mine}, of any length (zero too), on every member, indexed by rank. */
    final int[][] allgathervInts(final int[] mine, final int call)
    {
        return IntCollectives.allgatherv(intMembers(TAG_ALL), mine, call);
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
        coll.close();
        final org.shmpi.ring.ContextIds ids = context().contexts();
        MPI.forgetContexts(this);
        ids.release(contextId);
        ids.release(collContextId);
        members = null;
        peers = null;
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
        final RankContext ctx = MPI.context();
        final long[] ms = ctx.transport().messagesSent();
        final long[] bs = ctx.transport().bytesSent();
        final long[] mr = ctx.transport().messagesReceived();
        final long[] br = ctx.transport().bytesReceived();
        final int n = peers.length;
        final long[][] out = new long[4][n];
        for (int i = 0; i < n; i++)
        {
            final int w = peers[i];
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
        if (handler.winFunction != null)
        {
            throw handle(new MPIException(ErrorClass.ERR_ARG, "a window error handler (Win.createErrhandler) " +
                "cannot be set on a communicator"));
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
        final MPIException error = applicationError(errorCode);
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

    private RankContext context()
    {
        return MPI.context();
    }

    int worldSource(final int source)
    {
        return source == MPI.ANY_SOURCE ? RecvRequest.ANY_SOURCE : peers[source];
    }

    static int engineTag(final int tag)
    {
        return tag == MPI.ANY_TAG ? RecvRequest.ANY_TAG : tag;
    }

    int commRankOf(final int worldRank)
    {
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

    void checkDest(final int dest)
    {
        if (dest != MPI.PROC_NULL && (dest < 0 || dest >= peers.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid destination rank: dest=" + dest + ", size=" +
                peers.length + ", comm=" + name);
        }
    }

    void checkSource(final int source)
    {
        if (source != MPI.PROC_NULL && source != MPI.ANY_SOURCE && (source < 0 || source >= peers.length))
        {
            throw new MPIException(ErrorClass.ERR_RANK, "invalid source rank: source=" + source + ", size=" +
                peers.length + ", comm=" + name);
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
        final MPIException mpiEx = asMpiException(ex);
        if (MPI.isInitialized() && !MPI.isFinalized() && members != null)
        {
            apply(getErrhandler(), this, mpiEx);
        }
        return mpiEx;
    }

    /**
     * A failure as the {@link MPIException} a caller sees: its class kept, anything unexpected
     * {@code ERR_INTERN}; a job abort in progress ends the process instead.
     */
    static MPIException asMpiException(final RuntimeException ex)
    {
        if (ex instanceof JobAbortedException)
        {
            MPI.exitBecauseAborted();
        }
        if (ex instanceof MPIException)
        {
            return (MPIException)ex;
        }
        if (ex instanceof ShmpiException)
        {
            return new MPIException(((ShmpiException)ex).errorClass(), ex.getMessage(), ex);
        }
        return new MPIException(ErrorClass.ERR_INTERN, ex.toString(), ex);
    }

    /** Runs {@code handler} on {@code error} of a call on {@code comm}: aborts the job when it is fatal. */
    /** The error a {@code callErrhandler} of communicators, windows and files raises for {@code errorCode}. */
    static MPIException applicationError(final int errorCode)
    {
        return new MPIException(errorCode, "error raised by the application: " +
            (errorCode > ErrorClass.ERR_LASTCODE ? "code " + errorCode + " " + MPI.getErrorString(errorCode) :
            ErrorClass.name(errorCode)));
    }

    static void apply(final Errhandler handler, final Comm comm, final MPIException error)
    {
        if (handler.fatal)
        {
            MPI.fatalError(comm, error);
        }
        else if (handler.function != null)
        {
            handler.function.call(comm, error);
        }
    }

    @Override
    public String toString()
    {
        return name;
    }

    // Detached nonblocking collectives

    /** + Detached {@link #iBarrier()}: {@code callback} runs once every member has called it. */
    public final void iBarrierDetached(final CompletionCallback callback)
    {
        iBarrier().onComplete(callback);
    }

    /**
     * + Detached {@link #iBcast} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iBcastDetached(final Object buf, final int count, final Datatype type, final int root,
        final CompletionCallback callback)
    {
        iBcast(buf, count, type, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iGather} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iScatter} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iScatterDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iScatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iScatterv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iScattervDetached(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iScatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllGather} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAll} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAllv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllvDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAllw} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllwDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes,
        final CompletionCallback callback)
    {
        iAllToAllw(sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduce} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceDetached(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op, final int root,
        final CompletionCallback callback)
    {
        iReduce(sendbuf, recvbuf, count, type, op, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllReduce} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllReduceDetached(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op,
        final CompletionCallback callback)
    {
        iAllReduce(sendbuf, recvbuf, count, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduceScatter} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceScatterDetached(final Object sendbuf, final Object recvbuf, final int[] recvcounts, final Datatype type, final Op op,
        final CompletionCallback callback)
    {
        iReduceScatter(sendbuf, recvbuf, recvcounts, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduceScatterBlock} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceScatterBlockDetached(final Object sendbuf, final Object recvbuf, final int recvcount, final Datatype type, final Op op,
        final CompletionCallback callback)
    {
        iReduceScatterBlock(sendbuf, recvbuf, recvcount, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllGather} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iNeighborAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iNeighborAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAll} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllDetached(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iNeighborAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAllv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllvDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iNeighborAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAllw} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllwDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls, final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls, final Datatype[] recvtypes,
        final CompletionCallback callback)
    {
        iNeighborAllToAllw(sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes).onComplete(callback);
    }
}
