package mpi;

import java.nio.Buffer;

import org.shmpi.coll.CollectiveModule;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

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
 * <p>Why one long file: this class is the whole of Open MPI's {@code Comm} API surface, about 210
 * public members (point-to-point, about 120 collective entry points, attributes, error handlers,
 * construction) that programs call on {@code Comm}, and Java cannot spread one class over files.
 * It holds the communicator's state, and each method is a delegation, wrapped in the
 * communicator's error handler ({@code handle}), to the package-private class of its concern:
 * {@link PointToPoint} (with the point-to-point argument checks), {@link Packing}, the collectives
 * ({@link Collectives} and its families {@link Rooted}, {@link Exchanges}, {@link ReduceOps},
 * {@link Neighbors}, {@link InterCollectives}), {@link CommConstruction} (with
 * {@link ContextAgreement}), {@link CommAttributes} and {@link CommErrors}.
 */
public class Comm implements Freeable, Cloneable, AutoCloseable
{
    /** Largest tag: what {@code getAttr(MPI.TAG_UB)} returns. */
    static final int MAX_TAG = Integer.MAX_VALUE;

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
    volatile String name;
    /** The attributes cached on this communicator ({@link CommAttributes}). */
    final Attributes.Cache attributes = CommAttributes.KEYVALS.new Cache();
    /** The hints set by {@link #setInfo} (shmpi acts on none of them yet). */
    Info info = new Info();
    /** The collectives of this communicator, chosen when it is bound. */
    private CollectiveModule coll;
    /** The node levels of a communicator spanning machines, once a node-aware collective made them. */
    NodeLevels nodeLevels;
    /** Whether node-aware collectives apply: 0 not yet known, 1 yes, -1 no. */
    private int nodeAware;

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
    void bindInter(final int[] local, final int myRank, final int[] remote, final int contextId,
        final int collContextId)
    {
        bind(local, myRank, contextId, collContextId);
        if (remote != local)
        {
            // An intra-communicator's duplicate comes here too (its peers are its members): it keeps
            // the intra-communicator's module that bind made, shared memory included.
            this.peers = remote;
            this.coll = new CollectiveModule(MPI.context(), local, myRank, collContextId, false, () -> null);
        }
    }

    /** Whether this communicator's blocking collectives take two levels (see {@link NodeLevels}). */
    final boolean nodeAware()
    {
        if (nodeAware == 0)
        {
            nodeAware = NodeLevels.applies(this) ? 1 : -1;
        }
        return nodeAware > 0;
    }

    /** Null when every member runs on one machine; else which machines, e.g. "nodes 0, 1". */
    final String nodesSpanned()
    {
        final java.util.TreeSet<Integer> nodes = new java.util.TreeSet<>();
        boolean foreign = false;
        for (final int r : members)
        {
            nodes.add(NodeLevels.nodeOf(r));
            foreign |= r >= MPI.context().worldSize();
        }
        if (nodes.size() == 1 && !foreign)
        {
            return null;
        }
        return foreign ? "processes of several jobs" : "nodes " + nodes.toString().replaceAll("[\\[\\]]", "");
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
        return CommConstruction.compare(comm1, comm2);
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
        final Recorder r = Profile.begin(Calls.SEND);
        PointToPoint.send(this, buf, count, type, dest, tag, PointToPoint.MODE_STANDARD);
        Profile.endSent(r, Calls.SEND, this, dest, count, type);
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
        final Recorder r = Profile.begin(Calls.B_SEND);
        PointToPoint.send(this, buf, count, type, dest, tag, PointToPoint.MODE_BUFFERED);
        Profile.endSent(r, Calls.B_SEND, this, dest, count, type);
    }

    /**
     * Java binding of {@code MPI_SSEND}: synchronous-mode send. Blocks until the receiver has
     * matched the message.
     */
    public final void sSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.S_SEND);
        PointToPoint.send(this, buf, count, type, dest, tag, PointToPoint.MODE_SYNC);
        Profile.endSent(r, Calls.S_SEND, this, dest, count, type);
    }

    /**
     * Java binding of {@code MPI_RSEND}: ready-mode send, valid only when the matching receive is
     * already posted. Behaves as a standard send (a correct program cannot tell the difference).
     */
    public final void rSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.R_SEND);
        PointToPoint.send(this, buf, count, type, dest, tag, PointToPoint.MODE_READY);
        Profile.endSent(r, Calls.R_SEND, this, dest, count, type);
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
        final Recorder r = Profile.begin(Calls.RECV);
        final Status result = PointToPoint.recv(this, buf, count, type, source, tag);
        if (r != null)
        {
            r.end(Calls.RECV, result.bytes);
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_SENDRECV}: sends and receives at once (the receive is posted
     * first, so pairs and rings of sendRecv never deadlock, whatever the size).
     */
    public final Status sendRecv(
        final Object sendbuf, final int sendcount, final Datatype sendtype, final int dest, final int sendtag,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int source, final int recvtag)
    {
        final Recorder r = Profile.begin(Calls.SEND_RECV);
        final Status result =
            PointToPoint.sendRecv(this, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
            source, recvtag);
        Profile.endSent(r, Calls.SEND_RECV, this, dest, sendcount, sendtype);
        return result;
    }

    /**
     * Java binding of {@code MPI_SENDRECV_REPLACE}: sends the contents of {@code buf}, then
     * receives into it. The outgoing data is copied first.
     */
    public final Status sendRecvReplace(
        final Object buf, final int count, final Datatype type, final int dest, final int sendtag, final int source,
        final int recvtag)
    {
        final Recorder r = Profile.begin(Calls.SEND_RECV_REPLACE);
        final Status result = PointToPoint.sendRecvReplace(this, buf, count, type, dest, sendtag, source, recvtag);
        Profile.endSent(r, Calls.SEND_RECV_REPLACE, this, dest, count, type);
        return result;
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
        return Packing.pack(this, inbuf, incount, type, outbuf, position);
    }

    /**
     * Java binding of {@code MPI_UNPACK}: unpacks {@code outcount} items of {@code type} from
     * {@code inbuf} at byte {@code position} into {@code outbuf}; returns the position after
     * them. Fewer bytes left than the items need is {@code MPI.ERR_TRUNCATE}.
     */
    public final int unpack(final byte[] inbuf, final int position, final Object outbuf, final int outcount,
        final Datatype type)
    {
        return Packing.unpack(this, inbuf, position, outbuf, outcount, type);
    }

    /**
     * Java binding of {@code MPI_PACK_SIZE}: bytes that {@link #pack} needs for {@code incount} items of {@code type}.
     */
    public final int packSize(final int incount, final Datatype type)
    {
        return Packing.packSize(this, incount, type);
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
        return Packing.packExternal(this, datarep, inbuf, incount, type, outbuf, position);
    }

    /** Unpacks what {@link #packExternal} packed; {@code inbuf} is left as it is. */
    public final int unpackExternal(final String datarep, final byte[] inbuf, final int position, final Object outbuf,
        final int outcount, final Datatype type)
    {
        return Packing.unpackExternal(this, datarep, inbuf, position, outbuf, outcount, type);
    }

    /** Bytes {@link #packExternal} needs for {@code incount} items of {@code type}. */
    public final int packExternalSize(final String datarep, final int incount, final Datatype type)
    {
        return Packing.packExternalSize(this, datarep, incount, type);
    }

    // ------------------------------------------------------------------------------------------
    // Nonblocking

    /** Java binding of {@code MPI_ISEND}: starts a standard-mode send. */
    public final Request iSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.I_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_STANDARD);
        Profile.endSent(r, Calls.I_SEND, this, dest, count, type);
        return result;
    }

    /** + {@code MPI_ISEND} on an array (kept reachable by the request). */
    public final Request iSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.I_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_STANDARD);
        Profile.endSent(r, Calls.I_SEND, this, dest, count, type);
        return result;
    }

    /** Java binding of {@code MPI_IBSEND}: starts a buffered-mode send (complete at once). */
    public final Request ibSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IB_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_BUFFERED);
        Profile.endSent(r, Calls.IB_SEND, this, dest, count, type);
        return result;
    }

    /** + {@code MPI_IBSEND} on an array. */
    public final Request ibSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IB_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_BUFFERED);
        Profile.endSent(r, Calls.IB_SEND, this, dest, count, type);
        return result;
    }

    /** Java binding of {@code MPI_ISSEND}: starts a synchronous-mode send. */
    public final Request isSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IS_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_SYNC);
        Profile.endSent(r, Calls.IS_SEND, this, dest, count, type);
        return result;
    }

    /** + {@code MPI_ISSEND} on an array. */
    public final Request isSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IS_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_SYNC);
        Profile.endSent(r, Calls.IS_SEND, this, dest, count, type);
        return result;
    }

    /** Java binding of {@code MPI_IRSEND}: starts a ready-mode send. */
    public final Request irSend(final Buffer buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IR_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_READY);
        Profile.endSent(r, Calls.IR_SEND, this, dest, count, type);
        return result;
    }

    /** + {@code MPI_IRSEND} on an array. */
    public final Request irSend(final Object buf, final int count, final Datatype type, final int dest, final int tag)
    {
        final Recorder r = Profile.begin(Calls.IR_SEND);
        final Request result = PointToPoint.start(this, buf, count, type, dest, tag, PointToPoint.MODE_READY);
        Profile.endSent(r, Calls.IR_SEND, this, dest, count, type);
        return result;
    }

    /** Java binding of {@code MPI_IRECV}: starts a receive. */
    public final Request iRecv(final Buffer buf, final int count, final Datatype type, final int source, final int tag)
    {
        final Recorder r = Profile.begin(Calls.I_RECV);
        final Request result = PointToPoint.start(this, buf, count, type, source, tag);
        Profile.end(r, Calls.I_RECV);
        return result;
    }

    /** + {@code MPI_IRECV} into an array. */
    public final Request iRecv(final Object buf, final int count, final Datatype type, final int source, final int tag)
    {
        final Recorder r = Profile.begin(Calls.I_RECV);
        final Request result = PointToPoint.start(this, buf, count, type, source, tag);
        Profile.end(r, Calls.I_RECV);
        return result;
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

    // ------------------------------------------------------------------------------------------
    // Persistent

    /** Java binding of {@code MPI_SEND_INIT}: a persistent standard-mode send. */
    public final Prequest sendInit(final Buffer buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_STANDARD);
    }

    /** + {@code MPI_SEND_INIT} on an array. */
    public final Prequest sendInit(final Object buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_STANDARD);
    }

    /** Java binding of {@code MPI_BSEND_INIT}. */
    public final Prequest bSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_BUFFERED);
    }

    /** + {@code MPI_BSEND_INIT} on an array. */
    public final Prequest bSendInit(final Object buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_BUFFERED);
    }

    /** Java binding of {@code MPI_SSEND_INIT}. */
    public final Prequest sSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_SYNC);
    }

    /** + {@code MPI_SSEND_INIT} on an array. */
    public final Prequest sSendInit(final Object buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_SYNC);
    }

    /** Java binding of {@code MPI_RSEND_INIT}. */
    public final Prequest rSendInit(final Buffer buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_READY);
    }

    /** + {@code MPI_RSEND_INIT} on an array. */
    public final Prequest rSendInit(final Object buf, final int count, final Datatype type, final int dest,
        final int tag)
    {
        return PointToPoint.persistentSend(this, buf, count, type, dest, tag, PointToPoint.MODE_READY);
    }

    /** Java binding of {@code MPI_RECV_INIT}: a persistent receive. */
    public final Prequest recvInit(final Buffer buf, final int count, final Datatype type, final int source,
        final int tag)
    {
        return PointToPoint.persistentRecv(this, buf, count, type, source, tag);
    }

    /** + {@code MPI_RECV_INIT} into an array. */
    public final Prequest recvInit(final Object buf, final int count, final Datatype type, final int source,
        final int tag)
    {
        return PointToPoint.persistentRecv(this, buf, count, type, source, tag);
    }

    // ------------------------------------------------------------------------------------------
    // Probe

    /**
     * Java binding of {@code MPI_IPROBE}: the status of a matching message that has arrived
     * (it stays to be received), or null when there is none.
     */
    public final Status iProbe(final int source, final int tag)
    {
        final Recorder r = Profile.begin(Calls.I_PROBE);
        final Status result = PointToPoint.probe(this, source, tag, false);
        Profile.end(r, Calls.I_PROBE);
        return result;
    }

    /** Java binding of {@code MPI_PROBE}: blocks until a matching message has arrived; its status. */
    public final Status probe(final int source, final int tag)
    {
        final Recorder r = Profile.begin(Calls.PROBE);
        final Status result = PointToPoint.probe(this, source, tag, true);
        Profile.end(r, Calls.PROBE);
        return result;
    }

    // ------------------------------------------------------------------------------------------
    // Collectives (what this release has)

    /**
     * Java binding of {@code MPI_BARRIER}: blocks until every member has called it. A
     * dissemination barrier: in round k each rank signals rank+2^k and waits for rank-2^k.
     */
    public final void barrier()
    {
        final Recorder r = Profile.begin(Calls.BARRIER);
        Collectives.barrier(this, BlockedCall.BARRIER);
        if (r != null)
        {
            r.endCollective(Calls.BARRIER);
        }
    }

    /**
     * Java binding of {@code MPI_IBARRIER}: returns at once; the request completes when every
     * member has called it.
     */
    public final Request iBarrier()
    {
        final Recorder r = Profile.begin(Calls.I_BARRIER);
        final Request result = nonblocking(() -> Collectives.iBarrier(this, false));
        if (r != null)
        {
            r.endCollective(Calls.I_BARRIER);
        }
        return result;
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
            OpReducers.reduceLocal(inBuf, inOutBuf, count, type, op);
        }
        catch (final RuntimeException ex)
        {
            throw MPI.COMM_SELF.handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_BCAST}: broadcasts {@code count} items of {@code buf} from {@code root} to every
     * member's {@code buf}. Blocks until this member's part is done. Collective.
     */
    public final void bcast(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.BCAST);
        try
        {
            Rooted.bcast(this, buf, count, type, root, true);
            Profile.endFromRoot(r, Calls.BCAST, this, root, count, type);
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
        final Recorder r = Profile.begin(Calls.I_BCAST);
        final Request result = nonblocking(() -> Rooted.bcast(this, buf, count, type, root, false));
        Profile.endFromRoot(r, Calls.I_BCAST, this, root, count, type);
        return result;
    }

    /** + {@link #iBcast} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iBcast(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_BCAST);
        final Request result = nonblocking(() -> Rooted.bcast(this, buf, count, type, root, false));
        Profile.endFromRoot(r, Calls.I_BCAST, this, root, count, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_BCAST_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest bcastInit(final Object buf, final int count, final Datatype type, final int root)
    {
        return persistent(() -> Rooted.bcast(this, buf, count, type, root, false), buf);
    }

    /**
     * Java binding of {@code MPI_GATHER}: the root receives each member's {@code sendcount} items, in rank order, in
     * {@code recvbuf} ({@code recvcount} items per rank). Blocks until this member's part is done. Collective.
     */
    public final void gather(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
        final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.GATHER);
        try
        {
            Rooted.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, true);
            Profile.endToRoot(r, Calls.GATHER, this, root, sendcount, sendtype);
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
    public final Request iGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHER);
        final Request result =
            nonblocking(() -> Rooted.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false));
        Profile.endToRoot(r, Calls.I_GATHER, this, root, sendcount, sendtype);
        return result;
    }

    /** + {@link #iGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHER);
        final Request result =
            nonblocking(() -> Rooted.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false));
        Profile.endToRoot(r, Calls.I_GATHER, this, root, sendcount, sendtype);
        return result;
    }

    /**
     * + Java binding of {@code MPI_GATHER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest gatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Rooted.gather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_GATHER with MPI_IN_PLACE}: on the root, {@code buf} is the receive buffer and the
     * root's own block is already in place; elsewhere {@code buf} holds the {@code count} items sent. Blocks until this
     * member's part is done. Collective.
     */
    public final void gather(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.GATHER);
        try
        {
            Rooted.gather(this, buf, count, type, buf, count, type, root, true, true);
            Profile.endToRoot(r, Calls.GATHER, this, root, count, type);
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
        final Recorder r = Profile.begin(Calls.I_GATHER);
        final Request result =
            nonblocking(() -> Rooted.gather(this, buf, count, type, buf, count, type, root, true, false));
        Profile.endToRoot(r, Calls.I_GATHER, this, root, count, type);
        return result;
    }

    /** + {@link #iGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGather(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHER);
        final Request result =
            nonblocking(() -> Rooted.gather(this, buf, count, type, buf, count, type, root, true, false));
        Profile.endToRoot(r, Calls.I_GATHER, this, root, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_GATHERV}: the root receives rank r's items at item {@code displs[r]} of {@code
     * recvbuf} ({@code recvcount[r]} items). Blocks until this member's part is done. Collective.
     */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
        final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.GATHERV);
        try
        {
            Rooted.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root, false,
                true);
            Profile.endToRoot(r, Calls.GATHERV, this, root, sendcount, sendtype);
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
    public final Request iGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, root, false, false));
        Profile.endToRoot(r, Calls.I_GATHERV, this, root, sendcount, sendtype);
        return result;
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, root, false, false));
        Profile.endToRoot(r, Calls.I_GATHERV, this, root, sendcount, sendtype);
        return result;
    }

    /**
     * + Java binding of {@code MPI_GATHERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest gathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root)
    {
        return persistent(() -> Rooted.gatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_GATHERV with MPI_IN_PLACE, on the root}: the root's own block is already in place in
     * {@code recvbuf}; the other members call the form with a send buffer. Blocks until this member's part is done.
     * Collective.
     */
    public final void gatherv(final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype,
        final int root)
    {
        final Recorder r = Profile.begin(Calls.GATHERV);
        try
        {
            Rooted.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype, root, true, true);
            if (r != null)
            {
                final long n = Profile.bytes(recvcount[getRank()], recvtype);
                Profile.toRoot(r, this, root, n);
                r.endCollective(Calls.GATHERV, n);
            }
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
    public final Request iGatherv(final Buffer recvbuf, final int[] recvcount, final int[] displs,
        final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype,
            root, true, false));
        if (r != null)
        {
            final long n = Profile.bytes(recvcount[getRank()], recvtype);
            Profile.toRoot(r, this, root, n);
            r.endCollective(Calls.I_GATHERV, n);
        }
        return result;
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
        final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, null, 0, recvtype, recvbuf, recvcount, displs, recvtype,
            root, true, false));
        if (r != null)
        {
            final long n = Profile.bytes(recvcount[getRank()], recvtype);
            Profile.toRoot(r, this, root, n);
            r.endCollective(Calls.I_GATHERV, n);
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_GATHERV, on the members other than the root}: sends {@code sendcount} items to the
     * root, which calls a form with receive counts. Blocks until this member's part is done. Collective.
     */
    public final void gatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.GATHERV);
        try
        {
            Rooted.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype, root, false, true);
            Profile.endToRoot(r, Calls.GATHERV, this, root, sendcount, sendtype);
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
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype,
            root, false, false));
        Profile.endToRoot(r, Calls.I_GATHERV, this, root, sendcount, sendtype);
        return result;
    }

    /** + {@link #iGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_GATHERV);
        final Request result =
            nonblocking(() -> Rooted.gatherv(this, sendbuf, sendcount, sendtype, null, null, null, sendtype,
            root, false, false));
        Profile.endToRoot(r, Calls.I_GATHERV, this, root, sendcount, sendtype);
        return result;
    }

    /**
     * Java binding of {@code MPI_SCATTER}: rank r receives the r-th block of {@code sendcount} items of the root's
     * {@code sendbuf}. Blocks until this member's part is done. Collective.
     */
    public final void scatter(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
        final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.SCATTER);
        try
        {
            Rooted.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, false, true);
            if (r != null)
            {
                final long n = getRank() == root ?
                    Profile.bytes(sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
                Profile.fromRoot(r, this, root, n);
                r.endCollective(Calls.SCATTER, n);
            }
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
    public final Request iScatter(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTER);
        final Request result =
            nonblocking(() -> Rooted.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false));
        if (r != null)
        {
            final long n = getRank() == root ? Profile.bytes(sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
            Profile.fromRoot(r, this, root, n);
            r.endCollective(Calls.I_SCATTER, n);
        }
        return result;
    }

    /** + {@link #iScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatter(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTER);
        final Request result =
            nonblocking(() -> Rooted.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false));
        if (r != null)
        {
            final long n = getRank() == root ? Profile.bytes(sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
            Profile.fromRoot(r, this, root, n);
            r.endCollective(Calls.I_SCATTER, n);
        }
        return result;
    }

    /**
     * + Java binding of {@code MPI_SCATTER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest scatterInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Rooted.scatter(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_SCATTER with MPI_IN_PLACE}: on the root, {@code buf} is the send buffer and its own
     * block stays where it is; elsewhere {@code buf} receives {@code count} items. Blocks until this member's part is
     * done. Collective.
     */
    public final void scatter(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.SCATTER);
        try
        {
            Rooted.scatter(this, buf, count, type, buf, count, type, root, true, true);
            Profile.endFromRoot(r, Calls.SCATTER, this, root, count, type);
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
        final Recorder r = Profile.begin(Calls.I_SCATTER);
        final Request result =
            nonblocking(() -> Rooted.scatter(this, buf, count, type, buf, count, type, root, true, false));
        Profile.endFromRoot(r, Calls.I_SCATTER, this, root, count, type);
        return result;
    }

    /** + {@link #iScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatter(final Object buf, final int count, final Datatype type, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTER);
        final Request result =
            nonblocking(() -> Rooted.scatter(this, buf, count, type, buf, count, type, root, true, false));
        Profile.endFromRoot(r, Calls.I_SCATTER, this, root, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_SCATTERV}: rank r receives {@code sendcount[r]} items from item {@code displs[r]} of
     * the root's {@code sendbuf}. Blocks until this member's part is done. Collective.
     */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.SCATTERV);
        try
        {
            Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root, false,
                true);
            if (r != null)
            {
                final long n = getRank() == root ?
                    Profile.fromRootV(r, this, root, sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
                r.endCollective(Calls.SCATTERV, n);
            }
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
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final Buffer recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount,
            recvtype, root, false, false));
        if (r != null)
        {
            final long n = getRank() == root ?
                Profile.fromRootV(r, this, root, sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
            r.endCollective(Calls.I_SCATTERV, n);
        }
        return result;
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount,
            recvtype, root, false, false));
        if (r != null)
        {
            final long n = getRank() == root ?
                Profile.fromRootV(r, this, root, sendcount, sendtype) : Profile.bytes(recvcount, recvtype);
            r.endCollective(Calls.I_SCATTERV, n);
        }
        return result;
    }

    /**
     * + Java binding of {@code MPI_SCATTERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest scattervInit(final Object sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        return persistent(() -> Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, recvbuf, recvcount,
            recvtype, root, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_SCATTERV with MPI_IN_PLACE, on the root}: the root's own block stays in {@code
     * sendbuf}; the other members call the form with a receive buffer. Blocks until this member's part is done.
     * Collective.
     */
    public final void scatterv(final Object sendbuf, final int[] sendcount, final int[] displs, final Datatype sendtype,
        final int root)
    {
        final Recorder r = Profile.begin(Calls.SCATTERV);
        try
        {
            Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype, root, true, true);
            if (r != null)
            {
                final long n = getRank() == root ? Profile.fromRootV(r, this, root, sendcount, sendtype) : 0;
                r.endCollective(Calls.SCATTERV, n);
            }
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
    public final Request iScatterv(final Buffer sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype,
            root, true, false));
        if (r != null)
        {
            final long n = getRank() == root ? Profile.fromRootV(r, this, root, sendcount, sendtype) : 0;
            r.endCollective(Calls.I_SCATTERV, n);
        }
        return result;
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, sendbuf, sendcount, displs, sendtype, null, 0, sendtype,
            root, true, false));
        if (r != null)
        {
            final long n = getRank() == root ? Profile.fromRootV(r, this, root, sendcount, sendtype) : 0;
            r.endCollective(Calls.I_SCATTERV, n);
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_SCATTERV, on the members other than the root}: receives {@code recvcount} items from
     * the root, which calls a form with send counts. Blocks until this member's part is done. Collective.
     */
    public final void scatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.SCATTERV);
        try
        {
            Rooted.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype, root, false, true);
            if (r != null)
            {
                r.endCollective(Calls.SCATTERV, Profile.bytes(recvcount, recvtype));
            }
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
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype,
            root, false, false));
        if (r != null)
        {
            r.endCollective(Calls.I_SCATTERV, Profile.bytes(recvcount, recvtype));
        }
        return result;
    }

    /** + {@link #iScatterv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iScatterv(final Object recvbuf, final int recvcount, final Datatype recvtype, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_SCATTERV);
        final Request result =
            nonblocking(() -> Rooted.scatterv(this, null, null, null, recvtype, recvbuf, recvcount, recvtype,
            root, false, false));
        if (r != null)
        {
            r.endCollective(Calls.I_SCATTERV, Profile.bytes(recvcount, recvtype));
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_ALLGATHER}: every member receives every member's {@code sendcount} items, in rank
     * order. Blocks until this member's part is done. Collective.
     */
    public final void allGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.ALL_GATHER);
        try
        {
            Exchanges.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, false, true);
            Profile.endToAll(r, Calls.ALL_GATHER, this, sendcount, sendtype);
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
    public final Request iAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHER);
        final Request result =
            nonblocking(() -> Exchanges.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false, false));
        Profile.endToAll(r, Calls.I_ALL_GATHER, this, sendcount, sendtype);
        return result;
    }

    /** + {@link #iAllGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHER);
        final Request result =
            nonblocking(() -> Exchanges.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false, false));
        Profile.endToAll(r, Calls.I_ALL_GATHER, this, sendcount, sendtype);
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLGATHER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allGatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Exchanges.allGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLGATHER with MPI_IN_PLACE}: each member's own block of {@code count} items is
     * already in place in {@code buf}. Blocks until this member's part is done. Collective.
     */
    public final void allGather(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.ALL_GATHER);
        try
        {
            Exchanges.allGather(this, buf, count, type, buf, count, type, true, true);
            Profile.endToAll(r, Calls.ALL_GATHER, this, count, type);
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
        final Recorder r = Profile.begin(Calls.I_ALL_GATHER);
        final Request result =
            nonblocking(() -> Exchanges.allGather(this, buf, count, type, buf, count, type, true, false));
        Profile.endToAll(r, Calls.I_ALL_GATHER, this, count, type);
        return result;
    }

    /** + {@link #iAllGather} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGather(final Object buf, final int count, final Datatype type)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHER);
        final Request result =
            nonblocking(() -> Exchanges.allGather(this, buf, count, type, buf, count, type, true, false));
        Profile.endToAll(r, Calls.I_ALL_GATHER, this, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV}: every member receives rank r's items at item {@code displs[r]} of {@code
     * recvbuf}. Blocks until this member's part is done. Collective.
     */
    public final void allGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.ALL_GATHERV);
        try
        {
            Exchanges.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, false,
                true);
            Profile.endToAll(r, Calls.ALL_GATHERV, this, sendcount, sendtype);
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
    public final Request iAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Exchanges.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, false, false));
        Profile.endToAll(r, Calls.I_ALL_GATHERV, this, sendcount, sendtype);
        return result;
    }

    /** + {@link #iAllGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Exchanges.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, false, false));
        Profile.endToAll(r, Calls.I_ALL_GATHERV, this, sendcount, sendtype);
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLGATHERV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allGathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return persistent(() -> Exchanges.allGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs,
            recvtype, false, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLGATHERV with MPI_IN_PLACE}: each member's own block is already in place in {@code
     * recvbuf}. Blocks until this member's part is done. Collective.
     */
    public final void allGatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.ALL_GATHERV);
        try
        {
            Exchanges.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs, recvtype, true, true);
            if (r != null)
            {
                final long n = Profile.bytes(recvcount[getRank()], recvtype);
                Profile.toAll(r, this, n);
                r.endCollective(Calls.ALL_GATHERV, n);
            }
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
    public final Request iAllGatherv(final Buffer recvbuf, final int[] recvcount, final int[] displs,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Exchanges.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs,
            recvtype, true, false));
        if (r != null)
        {
            final long n = Profile.bytes(recvcount[getRank()], recvtype);
            Profile.toAll(r, this, n);
            r.endCollective(Calls.I_ALL_GATHERV, n);
        }
        return result;
    }

    /** + {@link #iAllGatherv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllGatherv(final Object recvbuf, final int[] recvcount, final int[] displs,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Exchanges.allGatherv(this, recvbuf, 0, recvtype, recvbuf, recvcount, displs,
            recvtype, true, false));
        if (r != null)
        {
            final long n = Profile.bytes(recvcount[getRank()], recvtype);
            Profile.toAll(r, this, n);
            r.endCollective(Calls.I_ALL_GATHERV, n);
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_ALLTOALL}: block r of {@code sendbuf} goes to rank r; block r of {@code recvbuf} comes
     * from rank r. Blocks until this member's part is done. Collective.
     */
    public final void allToAll(final Object sendbuf, final int sendcount, final Datatype sendtype, final Object recvbuf,
        final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.ALL_TO_ALL);
        try
        {
            Exchanges.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
            Profile.endToAll(r, Calls.ALL_TO_ALL, this, sendcount, sendtype);
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
    public final Request iAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALL);
        final Request result =
            nonblocking(() -> Exchanges.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false));
        Profile.endToAll(r, Calls.I_ALL_TO_ALL, this, sendcount, sendtype);
        return result;
    }

    /** + {@link #iAllToAll} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALL);
        final Request result =
            nonblocking(() -> Exchanges.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false));
        Profile.endToAll(r, Calls.I_ALL_TO_ALL, this, sendcount, sendtype);
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLTOALL_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Exchanges.allToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
            false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLTOALLV}: as allToAll with a count and a displacement (in items) per rank on both
     * sides. Blocks until this member's part is done. Collective.
     */
    public final void allToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.ALL_TO_ALLV);
        try
        {
            Exchanges.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype,
                true);
            if (r != null)
            {
                r.endCollective(Calls.ALL_TO_ALLV, Profile.toEachV(r, this, sendcount, sendtype));
            }
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
    public final Request iAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALLV);
        final Request result =
            nonblocking(() -> Exchanges.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount,
            rdispls, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_ALL_TO_ALLV, Profile.toEachV(r, this, sendcount, sendtype));
        }
        return result;
    }

    /** + {@link #iAllToAllv} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALLV);
        final Request result =
            nonblocking(() -> Exchanges.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount,
            rdispls, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_ALL_TO_ALLV, Profile.toEachV(r, this, sendcount, sendtype));
        }
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLTOALLV_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllvInit(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        return persistent(() -> Exchanges.allToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount,
            rdispls, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLTOALLW}: as allToAllv with a datatype per rank and displacements in bytes. Blocks
     * until this member's part is done. Collective.
     */
    public final void allToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.ALL_TO_ALLW);
        try
        {
            Exchanges.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes,
                true);
            if (r != null)
            {
                r.endCollective(Calls.ALL_TO_ALLW, Profile.toEachW(r, this, sendcount, sendtypes));
            }
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
    public final Request iAllToAllw(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Buffer recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALLW);
        final Request result =
            nonblocking(() -> Exchanges.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount,
            rdispls, recvtypes, false));
        if (r != null)
        {
            r.endCollective(Calls.I_ALL_TO_ALLW, Profile.toEachW(r, this, sendcount, sendtypes));
        }
        return result;
    }

    /** + {@link #iAllToAllw} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_TO_ALLW);
        final Request result =
            nonblocking(() -> Exchanges.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount,
            rdispls, recvtypes, false));
        if (r != null)
        {
            r.endCollective(Calls.I_ALL_TO_ALLW, Profile.toEachW(r, this, sendcount, sendtypes));
        }
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLTOALLW_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allToAllwInit(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        return persistent(() -> Exchanges.allToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount,
            rdispls, recvtypes, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE}: the root receives in {@code recvbuf} the reduction by {@code op} of every
     * member's {@code sendbuf}, applied in rank order. Blocks until this member's part is done. Collective.
     */
    public final void reduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final int root)
    {
        final Recorder r = Profile.begin(Calls.REDUCE);
        try
        {
            ReduceOps.reduce(this, sendbuf, recvbuf, count, type, op, root, false, true);
            Profile.endToRoot(r, Calls.REDUCE, this, root, count, type);
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
    public final Request iReduce(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
        final Op op, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE);
        final Request result =
            nonblocking(() -> ReduceOps.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false));
        Profile.endToRoot(r, Calls.I_REDUCE, this, root, count, type);
        return result;
    }

    /** + {@link #iReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE);
        final Request result =
            nonblocking(() -> ReduceOps.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false));
        Profile.endToRoot(r, Calls.I_REDUCE, this, root, count, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_REDUCE_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceInit(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final int root)
    {
        return persistent(() -> ReduceOps.reduce(this, sendbuf, recvbuf, count, type, op, root, false, false),
            sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE with MPI_IN_PLACE}: on the root, {@code buf} holds its contribution and
     * receives the result; elsewhere it holds the contribution. Blocks until this member's part is done. Collective.
     */
    public final void reduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
    {
        final Recorder r = Profile.begin(Calls.REDUCE);
        try
        {
            ReduceOps.reduce(this, buf, buf, count, type, op, root, true, true);
            Profile.endToRoot(r, Calls.REDUCE, this, root, count, type);
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
        final Recorder r = Profile.begin(Calls.I_REDUCE);
        final Request result = nonblocking(() -> ReduceOps.reduce(this, buf, buf, count, type, op, root, true, false));
        Profile.endToRoot(r, Calls.I_REDUCE, this, root, count, type);
        return result;
    }

    /** + {@link #iReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iReduce(final Object buf, final int count, final Datatype type, final Op op, final int root)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE);
        final Request result = nonblocking(() -> ReduceOps.reduce(this, buf, buf, count, type, op, root, true, false));
        Profile.endToRoot(r, Calls.I_REDUCE, this, root, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE}: every member receives the reduction by {@code op} of every member's {@code
     * sendbuf}, the same bits on every member. Blocks until this member's part is done. Collective.
     */
    public final void allReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.ALL_REDUCE);
        try
        {
            ReduceOps.allReduce(this, sendbuf, recvbuf, count, type, op, false, true);
            Profile.endToAll(r, Calls.ALL_REDUCE, this, count, type);
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
    public final Request iAllReduce(final Buffer sendbuf, final Buffer recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_REDUCE);
        final Request result =
            nonblocking(() -> ReduceOps.allReduce(this, sendbuf, recvbuf, count, type, op, false, false));
        Profile.endToAll(r, Calls.I_ALL_REDUCE, this, count, type);
        return result;
    }

    /** + {@link #iAllReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_REDUCE);
        final Request result =
            nonblocking(() -> ReduceOps.allReduce(this, sendbuf, recvbuf, count, type, op, false, false));
        Profile.endToAll(r, Calls.I_ALL_REDUCE, this, count, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_ALLREDUCE_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest allReduceInit(final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op)
    {
        return persistent(() -> ReduceOps.allReduce(this, sendbuf, recvbuf, count, type, op, false, false), sendbuf,
            recvbuf);
    }

    /**
     * Java binding of {@code MPI_ALLREDUCE with MPI_IN_PLACE}: {@code buf} holds each member's contribution and
     * receives the result. Blocks until this member's part is done. Collective.
     */
    public final void allReduce(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.ALL_REDUCE);
        try
        {
            ReduceOps.allReduce(this, buf, buf, count, type, op, true, true);
            Profile.endToAll(r, Calls.ALL_REDUCE, this, count, type);
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
        final Recorder r = Profile.begin(Calls.I_ALL_REDUCE);
        final Request result = nonblocking(() -> ReduceOps.allReduce(this, buf, buf, count, type, op, true, false));
        Profile.endToAll(r, Calls.I_ALL_REDUCE, this, count, type);
        return result;
    }

    /** + {@link #iAllReduce} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable. */
    public final Request iAllReduce(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_ALL_REDUCE);
        final Request result = nonblocking(() -> ReduceOps.allReduce(this, buf, buf, count, type, op, true, false));
        Profile.endToAll(r, Calls.I_ALL_REDUCE, this, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}: the reduction of every member's {@code sendbuf} is split into blocks
     * of {@code recvcounts[r]} items, block r to rank r. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.REDUCE_SCATTER);
        try
        {
            ReduceOps.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, true);
            if (r != null)
            {
                r.endCollective(Calls.REDUCE_SCATTER, Profile.toEachV(r, this, recvcounts, type));
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}, nonblocking ({@code MPI_IREDUCE_SCATTER}): returns at once; the
     * buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatter(final Buffer sendbuf, final Buffer recvbuf, final int[] recvcounts,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false));
        if (r != null)
        {
            r.endCollective(Calls.I_REDUCE_SCATTER, Profile.toEachV(r, this, recvcounts, type));
        }
        return result;
    }

    /**
     * + {@link #iReduceScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable.
     */
    public final Request iReduceScatter(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false));
        if (r != null)
        {
            r.endCollective(Calls.I_REDUCE_SCATTER, Profile.toEachV(r, this, recvcounts, type));
        }
        return result;
    }

    /**
     * + Java binding of {@code MPI_REDUCE_SCATTER_INIT} (MPI-4 persistent collective): each {@link Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceScatterInit(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
        final Datatype type, final Op op)
    {
        return persistent(() -> ReduceOps.reduceScatter(this, sendbuf, recvbuf, recvcounts, type, op, false, false),
            sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER with MPI_IN_PLACE}: {@code buf} holds the contribution, and this
     * member's block of the result is written at its start. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.REDUCE_SCATTER);
        try
        {
            ReduceOps.reduceScatter(this, buf, buf, counts, type, op, true, true);
            if (r != null)
            {
                r.endCollective(Calls.REDUCE_SCATTER, Profile.toEachV(r, this, counts, type));
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER}, nonblocking ({@code MPI_IREDUCE_SCATTER}): returns at once; the
     * buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatter(final Buffer buf, final int[] counts, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatter(this, buf, buf, counts, type, op, true, false));
        if (r != null)
        {
            r.endCollective(Calls.I_REDUCE_SCATTER, Profile.toEachV(r, this, counts, type));
        }
        return result;
    }

    /**
     * + {@link #iReduceScatter} on arrays too (Open MPI takes direct buffers only); the request keeps them reachable.
     */
    public final Request iReduceScatter(final Object buf, final int[] counts, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatter(this, buf, buf, counts, type, op, true, false));
        if (r != null)
        {
            r.endCollective(Calls.I_REDUCE_SCATTER, Profile.toEachV(r, this, counts, type));
        }
        return result;
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}: as reduceScatter with {@code recvcount} items for every rank.
     * Blocks until this member's part is done. Collective.
     */
    public final void reduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.REDUCE_SCATTER_BLOCK);
        try
        {
            ReduceOps.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false, true);
            Profile.endToAll(r, Calls.REDUCE_SCATTER_BLOCK, this, recvcount, type);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}, nonblocking ({@code MPI_IREDUCE_SCATTER_BLOCK}): returns at
     * once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatterBlock(final Buffer sendbuf, final Buffer recvbuf, final int recvcount,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER_BLOCK);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false,
            false));
        Profile.endToAll(r, Calls.I_REDUCE_SCATTER_BLOCK, this, recvcount, type);
        return result;
    }

    /**
     * + {@link #iReduceScatterBlock} on arrays too (Open MPI takes direct buffers only); the request keeps them
     * reachable.
     */
    public final Request iReduceScatterBlock(final Object sendbuf, final Object recvbuf, final int recvcount,
        final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER_BLOCK);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false,
            false));
        Profile.endToAll(r, Calls.I_REDUCE_SCATTER_BLOCK, this, recvcount, type);
        return result;
    }

    /**
     * + Java binding of {@code MPI_REDUCE_SCATTER_BLOCK_INIT} (MPI-4 persistent collective): each {@link
     * Prequest#start()}
     * runs the operation once on the buffers given here.
     */
    public final Prequest reduceScatterBlockInit(final Object sendbuf, final Object recvbuf, final int recvcount,
        final Datatype type, final Op op)
    {
        return persistent(() -> ReduceOps.reduceScatterBlock(this, sendbuf, recvbuf, recvcount, type, op, false,
            false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK with MPI_IN_PLACE}: {@code buf} holds the contribution, and this
     * member's block of the result is written at its start. Blocks until this member's part is done. Collective.
     */
    public final void reduceScatterBlock(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.REDUCE_SCATTER_BLOCK);
        try
        {
            ReduceOps.reduceScatterBlock(this, buf, buf, count, type, op, true, true);
            Profile.endToAll(r, Calls.REDUCE_SCATTER_BLOCK, this, count, type);
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /**
     * Java binding of {@code MPI_REDUCE_SCATTER_BLOCK}, nonblocking ({@code MPI_IREDUCE_SCATTER_BLOCK}): returns at
     * once; the buffers
     * must not be touched until the request completes.
     */
    public final Request iReduceScatterBlock(final Buffer buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER_BLOCK);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatterBlock(this, buf, buf, count, type, op, true, false));
        Profile.endToAll(r, Calls.I_REDUCE_SCATTER_BLOCK, this, count, type);
        return result;
    }

    /**
     * + {@link #iReduceScatterBlock} on arrays too (Open MPI takes direct buffers only); the request keeps them
     * reachable.
     */
    public final Request iReduceScatterBlock(final Object buf, final int count, final Datatype type, final Op op)
    {
        final Recorder r = Profile.begin(Calls.I_REDUCE_SCATTER_BLOCK);
        final Request result =
            nonblocking(() -> ReduceOps.reduceScatterBlock(this, buf, buf, count, type, op, true, false));
        Profile.endToAll(r, Calls.I_REDUCE_SCATTER_BLOCK, this, count, type);
        return result;
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLGATHER}: this process's {@code sendcount} items go to each of its
     * topology's destinations; block i of {@code recvbuf} ({@code recvcount} items) comes from source i (see {@link
     * CartComm}, {@link GraphComm} for the order of neighbours); blocks of {@code MPI.PROC_NULL} neighbours are left
     * alone. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.NEIGHBOR_ALL_GATHER);
        try
        {
            Neighbors.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
            if (r != null)
            {
                r.endCollective(Calls.NEIGHBOR_ALL_GATHER, Profile.bytes(sendcount, sendtype));
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLGATHER}: {@link #neighborAllGather} without blocking. */
    public final Request iNeighborAllGather(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_GATHER);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_GATHER, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + {@link #iNeighborAllGather} on arrays too. */
    public final Request iNeighborAllGather(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_GATHER);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_GATHER, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLGATHER_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllGatherInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Neighbors.neighborAllGather(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLGATHERV}: as neighborAllGather, source i's {@code recvcount[i]} items
     * landing at item {@code displs[i]}. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.NEIGHBOR_ALL_GATHERV);
        try
        {
            Neighbors.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype,
                true);
            if (r != null)
            {
                r.endCollective(Calls.NEIGHBOR_ALL_GATHERV, Profile.bytes(sendcount, sendtype));
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLGATHERV}: {@link #neighborAllGatherv} without blocking. */
    public final Request iNeighborAllGatherv(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            displs, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_GATHERV, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + {@link #iNeighborAllGatherv} on arrays too. */
    public final Request iNeighborAllGatherv(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_GATHERV);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            displs, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_GATHERV, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLGATHERV_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllGathervInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype)
    {
        return persistent(() -> Neighbors.neighborAllGatherv(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            displs, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALL}: block i of {@code sendbuf} goes to destination i, block i of
     * {@code recvbuf} comes from source i. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.NEIGHBOR_ALL_TO_ALL);
        try
        {
            Neighbors.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, true);
            if (r != null)
            {
                r.endCollective(Calls.NEIGHBOR_ALL_TO_ALL, Profile.bytes(sendcount, sendtype));
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALL}: {@link #neighborAllToAll} without blocking. */
    public final Request iNeighborAllToAll(final Buffer sendbuf, final int sendcount, final Datatype sendtype,
        final Buffer recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALL);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALL, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + {@link #iNeighborAllToAll} on arrays too. */
    public final Request iNeighborAllToAll(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALL);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALL, Profile.bytes(sendcount, sendtype));
        }
        return result;
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALL_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllInit(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype)
    {
        return persistent(() -> Neighbors.neighborAllToAll(this, sendbuf, sendcount, sendtype, recvbuf, recvcount,
            recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALLV}: as neighborAllToAll with a count and a displacement (in items)
     * per neighbour. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.NEIGHBOR_ALL_TO_ALLV);
        try
        {
            Neighbors.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
                recvtype, true);
            if (r != null)
            {
                r.endCollective(Calls.NEIGHBOR_ALL_TO_ALLV);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALLV}: {@link #neighborAllToAllv} without blocking. */
    public final Request iNeighborAllToAllv(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Buffer recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALLV);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf,
            recvcount, rdispls, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALLV);
        }
        return result;
    }

    /** + {@link #iNeighborAllToAllv} on arrays too. */
    public final Request iNeighborAllToAllv(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALLV);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf,
            recvcount, rdispls, recvtype, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALLV);
        }
        return result;
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALLV_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllvInit(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype)
    {
        return persistent(() -> Neighbors.neighborAllToAllv(this, sendbuf, sendcount, sdispls, sendtype, recvbuf,
            recvcount, rdispls, recvtype, false), sendbuf, recvbuf);
    }

    /**
     * Java binding of {@code MPI_NEIGHBOR_ALLTOALLW}: + as neighborAllToAllv with a datatype per neighbour and
     * displacements in bytes. Blocks until this member's part is done. Collective over
     * the communicator; a communicator without a process topology is {@code MPI.ERR_TOPOLOGY}.
     */
    public final void neighborAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.NEIGHBOR_ALL_TO_ALLW);
        try
        {
            Neighbors.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls,
                recvtypes, true);
            if (r != null)
            {
                r.endCollective(Calls.NEIGHBOR_ALL_TO_ALLW);
            }
        }
        catch (final RuntimeException ex)
        {
            throw handle(ex);
        }
    }

    /** Java binding of {@code MPI_INEIGHBOR_ALLTOALLW}: {@link #neighborAllToAllw} without blocking. */
    public final Request iNeighborAllToAllw(final Buffer sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Buffer recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALLW);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf,
            recvcount, rdispls, recvtypes, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALLW);
        }
        return result;
    }

    /** + {@link #iNeighborAllToAllw} on arrays too. */
    public final Request iNeighborAllToAllw(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        final Recorder r = Profile.begin(Calls.I_NEIGHBOR_ALL_TO_ALLW);
        final Request result =
            nonblocking(() -> Neighbors.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf,
            recvcount, rdispls, recvtypes, false));
        if (r != null)
        {
            r.endCollective(Calls.I_NEIGHBOR_ALL_TO_ALLW);
        }
        return result;
    }

    /** + Java binding of {@code MPI_NEIGHBOR_ALLTOALLW_INIT} (MPI-4 persistent collective). */
    public final Prequest neighborAllToAllwInit(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes)
    {
        return persistent(() -> Neighbors.neighborAllToAllw(this, sendbuf, sendcount, sdispls, sendtypes, recvbuf,
            recvcount, rdispls, recvtypes, false), sendbuf, recvbuf);
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

    /**
     * Java binding of {@code MPI_COMM_DUP}: a new communicator with the same group, in the same
     * order, on new context ids, so its messages never match this one's. It gets this one's
     * error handler and info hints, and the attributes the keyvals' copy callbacks return; not
     * its name (MPI: a dup has none until set). Collective over this communicator.
     */
    public Comm dup()
    {
        final Recorder r = Profile.begin(Calls.COMM_DUP);
        final Comm result = CommConstruction.duplicate(this, new Intracomm(""));
        Profile.end(r, Calls.COMM_DUP);
        return result;
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
        final Info hints = CommConstruction.hintsOfDup(this, newInfo);
        return CommConstruction.hinted(dup(), hints);
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
        final Recorder r = Profile.begin(Calls.COMM_DUP);
        final Comm result = CommConstruction.duplicateNonblocking(this, new Intracomm(""));
        Profile.end(r, Calls.COMM_DUP);
        return result;
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
    volatile Request creation;

    /** Number of {@link #iDup} calls on this communicator so far, under its monitor ({@link CommConstruction}). */
    int nonblockingAgreements;

    /**
     * Java binding of {@code MPI_COMM_DISCONNECT}: waits until every member has called it (so
     * that the messages each sent on it before have been sent), then frees it as {@link #free()}
     * does. On shmpi no process is connected by a port yet, so this is the collective form of
     * {@code free}. Disconnecting {@code MPI.COMM_WORLD} or {@code MPI.COMM_SELF} is
     * {@code MPI.ERR_COMM}. Collective.
     */
    public final void disconnect()
    {
        final Recorder r = Profile.begin(Calls.COMM_DISCONNECT);
        CommConstruction.disconnect(this);
        Profile.end(r, Calls.COMM_DISCONNECT);
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
        return CommConstruction.createIntercomm(this, localComm, localLeader, remoteLeader, tag);
    }

    /** Whether this is {@code MPI.COMM_WORLD} or {@code MPI.COMM_SELF}, which live until Finalize. */
    final boolean predefined()
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
        return CommAttributes.get(this, keyval);
    }

    /** + Messages and bytes exchanged with each rank of this communicator so far. */
    public final PeerCounters getPeerCounters()
    {
        return CommAttributes.peerCounters(this);
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
        CommErrors.set(this, handler);
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
        CommErrors.call(this, errorCode);
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
        return CommErrors.create(function);
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
        CommAttributes.setName(this, newName);
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
        CommAttributes.setInfo(this, newInfo);
    }

    /** Java binding of {@code MPI_COMM_GET_INFO}: a new info object with the hints set on this communicator. */
    public final Info getInfo()
    {
        return CommAttributes.getInfo(this);
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
        return CommAttributes.KEYVALS.createKeyval(copy, delete);
    }

    /** Java binding of {@code MPI_COMM_FREE_KEYVAL}; attributes already cached under it stay. */
    public static void freeKeyval(final int keyval)
    {
        CommAttributes.KEYVALS.freeKeyval(keyval);
    }

    /**
     * Java binding of {@code MPI_COMM_SET_ATTR}: caches {@code value} under {@code keyval}
     * (running the delete callback of a value it replaces). The predefined attributes cannot
     * be set, and a keyval of another kind of object is {@code MPI.ERR_KEYVAL}.
     */
    public final void setAttr(final int keyval, final Object value)
    {
        CommAttributes.set(this, keyval, value);
    }

    /** Java binding of {@code MPI_COMM_DELETE_ATTR}: runs the keyval's delete callback. */
    public final void deleteAttr(final int keyval)
    {
        CommAttributes.delete(this, keyval);
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
        final Recorder r = Profile.begin(Calls.COMM_FREE);
        CommConstruction.free(this);
        Profile.end(r, Calls.COMM_FREE);
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

    /**
     * Applies this communicator's error handler to a failure: a job abort in progress ends the
     * process; under ERRORS_ARE_FATAL the job is aborted with the error's message; under
     * ERRORS_RETURN the error is returned to the caller as an {@link MPIException}.
     */
    final MPIException handle(final RuntimeException ex)
    {
        return CommErrors.handle(this, ex);
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
    public final void iGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iScatter} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iScatterDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iScatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iScatterv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iScattervDetached(final Object sendbuf, final int[] sendcount, final int[] displs,
        final Datatype sendtype, final Object recvbuf, final int recvcount, final Datatype recvtype, final int root,
        final CompletionCallback callback)
    {
        iScatterv(sendbuf, sendcount, displs, sendtype, recvbuf, recvcount, recvtype, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllGather} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final CompletionCallback callback)
    {
        iAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAll} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final CompletionCallback callback)
    {
        iAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAllv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllvDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype, final CompletionCallback callback)
    {
        iAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllToAllw} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllToAllwDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes, final CompletionCallback callback)
    {
        iAllToAllw(sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls, recvtypes).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduce} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceDetached(final Object sendbuf, final Object recvbuf, final int count, final Datatype type,
        final Op op, final int root, final CompletionCallback callback)
    {
        iReduce(sendbuf, recvbuf, count, type, op, root).onComplete(callback);
    }

    /**
     * + Detached {@link #iAllReduce} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iAllReduceDetached(final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final CompletionCallback callback)
    {
        iAllReduce(sendbuf, recvbuf, count, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduceScatter} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceScatterDetached(final Object sendbuf, final Object recvbuf, final int[] recvcounts,
        final Datatype type, final Op op, final CompletionCallback callback)
    {
        iReduceScatter(sendbuf, recvbuf, recvcounts, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iReduceScatterBlock} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iReduceScatterBlockDetached(final Object sendbuf, final Object recvbuf, final int recvcount,
        final Datatype type, final Op op, final CompletionCallback callback)
    {
        iReduceScatterBlock(sendbuf, recvbuf, recvcount, type, op).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllGather} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllGatherDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final CompletionCallback callback)
    {
        iNeighborAllGather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllGatherv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllGathervDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int[] recvcount, final int[] displs, final Datatype recvtype,
        final CompletionCallback callback)
    {
        iNeighborAllGatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, displs, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAll} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllDetached(final Object sendbuf, final int sendcount, final Datatype sendtype,
        final Object recvbuf, final int recvcount, final Datatype recvtype, final CompletionCallback callback)
    {
        iNeighborAllToAll(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAllv} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllvDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype sendtype, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype recvtype, final CompletionCallback callback)
    {
        iNeighborAllToAllv(sendbuf, sendcount, sdispls, sendtype, recvbuf, recvcount, rdispls,
            recvtype).onComplete(callback);
    }

    /**
     * + Detached {@link #iNeighborAllToAllw} (StarPU-MPI style): starts it and calls {@code callback} when it
     * completes, during a later MPI call of this rank; there is no request to wait for. The
     * buffers stay reachable until then.
     */
    public final void iNeighborAllToAllwDetached(final Object sendbuf, final int[] sendcount, final int[] sdispls,
        final Datatype[] sendtypes, final Object recvbuf, final int[] recvcount, final int[] rdispls,
        final Datatype[] recvtypes, final CompletionCallback callback)
    {
        iNeighborAllToAllw(sendbuf, sendcount, sdispls, sendtypes, recvbuf, recvcount, rdispls,
            recvtypes).onComplete(callback);
    }
}
