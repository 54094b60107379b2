package mpi;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.UnsafeApi;
import org.shmpi.ring.ForeignPeers;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.PeerTable;
import org.shmpi.shm.ShmpiException;

/**
 * Ports: {@code openPort}, {@code closePort}, {@code accept} and {@code connect}. A port is a name
 * {@code shmpi-port:<job>:<world rank>:<id>} for a number the owning process hands out; the
 * owner's {@link Service} (a progress agent of every process, on a context of its own that every
 * process reserves at Init) takes the connect requests for its ports:
 * <pre>
 * CONNECT  connector root -> owner   kind, request id, port id, reply tag, group size, world ranks
 *          owner -> connector root   (reply tag) ERR_PORT when the port is closed or unknown; else,
 *                                    when an accept takes it: 0, agreement tag, the acceptors' ranks
 * CONFIRM  connector root -> owner   kind, request id: it goes on (the context agreement follows)
 * CANCEL   connector root -> owner   kind, request id: it gave up (timeout); the request is dropped
 * </pre>
 * The two roots then agree on the intercommunicator's context ids (the agreement's bridge is the
 * ports context and the agreement tag), and each root gives its group the other group's ranks.
 * Either side may come first: a request waits in the port's queue until an accept takes it, and a
 * connector waits for its answer at most {@code shmpi.connect.timeout.ms}.
 */
final class Ports
{
    static final String PREFIX = "shmpi-port:";
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int TAG_REQUEST = 1;
    private static final int KIND_CONNECT = 1;
    private static final int KIND_CONFIRM = 2;
    private static final int KIND_CANCEL = 3;
    /** Name requests of ranks on other nodes, served by world rank 0: kind, reply tag, service length, chars. */
    static final int KIND_PUBLISH = 4;
    static final int KIND_UNPUBLISH = 5;
    static final int KIND_LOOKUP = 6;
    /** Longest service name plus port a name request carries. */
    private static final int NAME_CHARS_MAX = 1024;
    /** Reply tags: one per request of a process, so a late answer never meets a later request. */
    private static final int REPLY_TAG_BASE = 1 << 20;
    /** Agreement tags: one per accepted connection of a process. */
    private static final int AGREE_TAG_BASE = 1 << 21;

    /** This process's open ports by id. */
    private static final Map<Integer, Port> OPEN = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_PORT = new AtomicInteger(1);
    private static final AtomicInteger NEXT_REQUEST = new AtomicInteger(1);
    private static final AtomicInteger NEXT_AGREEMENT = new AtomicInteger(1);
    /** Confirmations and cancellations from connectors, by "world rank:request id". */
    private static final Map<String, Integer> DECISIONS = new ConcurrentHashMap<>();
    private static volatile int context = -1;
    private static volatile String job;
    private static Service service;

    private Ports()
    {
    }

    /** One open port: the connect requests waiting for an accept. */
    private static final class Port
    {
        final ArrayDeque<int[]> waiting = new ArrayDeque<>();
    }

    /** Starts this process's port service on {@code portsContext} (Init; every process the same id). */
    static void start(final RankContext ctx, final int portsContext, final String jobToken)
    {
        context = portsContext;
        job = jobToken;
        service = new Service(ctx);
        service.post();
        ctx.progress().register(service);
    }

    /** Stops the service and forgets the ports (Finalize). */
    static void stop(final RankContext ctx)
    {
        if (service != null)
        {
            ctx.progress().deregister(service);
            service.close();
            service = null;
        }
        OPEN.clear();
        DECISIONS.clear();
    }

    // ------------------------------------------------------------------------------------------
    // Port names

    static String open()
    {
        final int id = NEXT_PORT.getAndIncrement();
        OPEN.put(id, new Port());
        // Where jobs on other machines reach this process (jobs on one machine only: a job over
        // several nodes offers its ports to its own ranks).
        final String offer = MPI.context().foreignPeers() != null ? JobGateway.offer() : null;
        return PREFIX + job + ":" + MPI.COMM_WORLD.myRank + ":" + id + (offer != null ? ":" + offer : "");
    }

    static void close(final String name)
    {
        final Name p = parse(name);
        if (p == null || !p.job().equals(job) || p.rank() != MPI.COMM_WORLD.myRank || OPEN.remove(p.id()) == null)
        {
            throw new MPIException(ErrorClass.ERR_PORT, "closePort: not a port this process has open: " + name);
        }
    }

    /** A port name taken apart: the job, the owner's rank in it, the port's number, and where its owner listens. */
    private record Name(String job, int rank, int id, String host, int tcpPort, String token)
    {
    }

    /** The parts of a port name of any job, or null when it is none. */
    private static Name parse(final String name)
    {
        if (name == null || !name.startsWith(PREFIX) || name.length() > MPI.MAX_PORT_NAME)
        {
            return null;
        }
        final String[] parts = name.substring(PREFIX.length()).split(":");
        if (parts.length != 3 && parts.length != 6 || parts[0].isEmpty())
        {
            return null;
        }
        try
        {
            return parts.length == 3 ? new Name(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                null, 0, null) : new Name(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), parts[3],
                Integer.parseInt(parts[4]), parts[5]);
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
    }

    /**
     * The ids of {@code members} (this process's numbering) as job {@code target} numbers them,
     * registering in its table those it does not know yet.
     */
    private static int[] idsIn(final String target, final int[] members)
    {
        if (target.equals(job))
        {
            return members.clone();
        }
        if (JobGateway.isMirror(target))
        {
            // A job on another machine numbers this job's ranks by their world ranks.
            for (final int m : members)
            {
                if (m >= MPI.context().worldSize())
                {
                    throw new MPIException(ErrorClass.ERR_PORT, "only ranks of this job can connect to a job on " +
                        "another machine");
                }
            }
            return members.clone();
        }
        final ForeignPeers fp = MPI.context().foreignPeers();
        final int[] ids = new int[members.length];
        for (int i = 0; i < members.length; i++)
        {
            ids[i] = fp.idIn(target, fp.describe(members[i]));
        }
        return ids;
    }

    /** The ids of ranks {@code ranks} of the job on another machine behind {@code mirror}. */
    private static int[] fromMirror(final String mirror, final int[] ranks, final int offset)
    {
        final JobGateway g = JobGateway.of(mirror);
        final int[] ids = ranks.clone();
        for (int i = offset; i < ids.length; i++)
        {
            ids[i] = g.idOf(ranks[i]);
        }
        return ids;
    }

    /** The job of process {@code id} of this process's numbering. */
    private static String jobOf(final int id)
    {
        return id < MPI.context().worldSize() ? job : MPI.context().foreignPeers().resolve(id).job();
    }

    // ------------------------------------------------------------------------------------------
    // Accept and connect

    /** {@code MPI_Comm_accept} on {@code comm} (collective; the port matters at {@code root} only). */
    static Intercomm accept(final Intracomm comm, final String port, final int root)
    {
        return accept(comm, port, root, null, "accept on " + port);
    }

    /**
     * As {@link #accept(Intracomm, String, int)}; at the root, {@code gaveUp} (when not null) ends
     * the wait for a connector with {@code ERR_SPAWN} on every member (a spawn whose children
     * could not start).
     */
    static Intercomm accept(final Intracomm comm, final String port, final int root,
        final java.util.function.BooleanSupplier gaveUp, final String what)
    {
        checkRoot(comm, root);
        int[] fromRoot = null;
        ContextAgreement.Bridge bridge = null;
        JobGateway gateway = null;
        if (comm.myRank == root)
        {
            final Name p = parse(port);
            final Port open = p != null && p.job().equals(job) && p.rank() == MPI.COMM_WORLD.myRank ?
                OPEN.get(p.id()) : null;
            if (open == null)
            {
                fromRoot = new int[] {ErrorClass.ERR_PORT};
            }
            else
            {
                while (fromRoot == null)
                {
                    final int[] request = take(open, gaveUp);
                    if (request == null)
                    {
                        fromRoot = new int[] {ErrorClass.ERR_SPAWN};
                        break;
                    }
                    final int source = request[0];
                    final int agreementTag = AGREE_TAG_BASE + (NEXT_AGREEMENT.getAndIncrement() & 0xFFFFF);
                    final int[] reply = new int[2 + comm.members.length];
                    reply[1] = agreementTag;
                    // The acceptors as the connector's job numbers them.
                    System.arraycopy(idsIn(jobOf(source), comm.members), 0, reply, 2, comm.members.length);
                    sendInts(source, request[3], reply);
                    final String key = source + ":" + request[1];
                    // Spawned children that die before they confirm never will: the launcher's answer ends the wait.
                    final java.util.function.BooleanSupplier failed = everyMillisecond(gaveUp);
                    MPI.context().progress().awaitUntil(() -> DECISIONS.containsKey(key) || failed.getAsBoolean(),
                        BlockedCall.OTHER, null);
                    final Integer decision = DECISIONS.remove(key);
                    if (decision == null)
                    {
                        fromRoot = new int[] {ErrorClass.ERR_SPAWN};
                        break;
                    }
                    if (decision == KIND_CONFIRM)
                    {
                        fromRoot = new int[request.length - 4];
                        System.arraycopy(request, 5, fromRoot, 1, request.length - 5);
                        final String from = jobOf(source);
                        if (JobGateway.isMirror(from))
                        {
                            fromRoot = fromMirror(from, fromRoot, 1);
                            gateway = JobGateway.of(from);
                        }
                        bridge = new ContextAgreement.Bridge(context, source, agreementTag);
                    }
                }
            }
        }
        return finish(comm, root, fromRoot, bridge, what, gateway);
    }

    /** {@code MPI_Comm_connect} on {@code comm} (collective; the port matters at {@code root} only). */
    static Intercomm connect(final Intracomm comm, final String port, final int root)
    {
        checkRoot(comm, root);
        int[] fromRoot = null;
        ContextAgreement.Bridge bridge = null;
        JobGateway gateway = null;
        String why = "";
        if (comm.myRank == root)
        {
            final Name p = parse(port);
            final ForeignPeers fp = MPI.context().foreignPeers();
            int owner = -1;
            if (p == null)
            {
                why = ": not a port name";
            }
            else if (p.job().equals(job))
            {
                owner = p.rank() >= 0 && p.rank() < MPI.COMM_WORLD.members.length ? p.rank() : -1;
                why = ": no such rank";
            }
            else if (fp == null)
            {
                why = ": a port of another job (a job over several nodes reaches only its own ports)";
            }
            else if (!java.nio.file.Files.isDirectory(fp.jobDirectory(p.job())) && p.host() != null)
            {
                // A job on another machine: through a gateway to the port owner's process.
                if (!MPI.context().job().singleNode())
                {
                    why = ": a job over several nodes cannot connect to a job on another machine";
                }
                else
                {
                    try
                    {
                        gateway = JobGateway.connect(p.host(), p.tcpPort(), p.token());
                        owner = gateway.idOf(p.rank());
                    }
                    catch (final MPIException ex)
                    {
                        why = ": " + ex.getMessage();
                    }
                }
            }
            else
            {
                try
                {
                    owner = fp.idIn(job, fp.processOf(p.job(), p.rank()));
                }
                catch (final ShmpiException ex)
                {
                    why = ": " + ex.getMessage();
                }
            }
            if (owner < 0)
            {
                fromRoot = new int[] {ErrorClass.ERR_PORT};
            }
            else
            {
                final int requestId = NEXT_REQUEST.getAndIncrement();
                final int replyTag = REPLY_TAG_BASE + (requestId & 0xFFFFF);
                final byte[] in = new byte[4 * (2 + MPI.COMM_WORLD.members.length + PeerTable.MAX_ENTRIES)];
                final RankContext ctx = MPI.context();
                final RecvRequest reply = ctx.transport().irecv(context, owner, replyTag, in, BYTES, in.length);
                final int[] request = new int[5 + comm.members.length];
                request[0] = KIND_CONNECT;
                request[1] = requestId;
                request[2] = p.id();
                request[3] = replyTag;
                request[4] = comm.members.length;
                // The connectors as the owner's job numbers them.
                System.arraycopy(idsIn(gateway != null ? gateway.mirrorKey() : p.job(), comm.members), 0, request, 5,
                    comm.members.length);
                sendInts(owner, TAG_REQUEST, request);
                final long deadline = System.nanoTime() + ctx.settings().connectTimeoutMs() * 1_000_000L;
                ctx.progress().awaitUntil(() -> reply.isComplete() || System.nanoTime() - deadline > 0,
                    BlockedCall.OTHER, null);
                if (!reply.isComplete() && ctx.transport().cancel(reply))
                {
                    sendInts(owner, TAG_REQUEST, new int[] {KIND_CANCEL, requestId});
                    fromRoot = new int[] {ErrorClass.ERR_PORT};
                    why = ": nobody accepted within shmpi.connect.timeout.ms (" + ctx.settings().connectTimeoutMs() +
                        " ms)";
                }
                else
                {
                    if (!reply.isComplete())
                    {
                        ctx.progress().await(reply);
                    }
                    final int n = (int)(reply.storedLength() / 4);
                    final int status = UnsafeApi.getInt(in, BYTES);
                    if (status != 0)
                    {
                        fromRoot = new int[] {status};
                        why = ": the port is closed or unknown";
                    }
                    else
                    {
                        sendInts(owner, TAG_REQUEST, new int[] {KIND_CONFIRM, requestId});
                        fromRoot = new int[n - 1];
                        for (int i = 2; i < n; i++)
                        {
                            fromRoot[i - 1] = UnsafeApi.getInt(in, BYTES + 4L * i);
                        }
                        if (gateway != null)
                        {
                            fromRoot = fromMirror(gateway.mirrorKey(), fromRoot, 1);
                        }
                        bridge = new ContextAgreement.Bridge(context, owner, UnsafeApi.getInt(in, BYTES + 4));
                    }
                }
            }
        }
        if (gateway != null && (fromRoot == null || fromRoot[0] != 0))
        {
            gateway.close();
            gateway = null;
        }
        return finish(comm, root, fromRoot, bridge, "connect to " + port + why, gateway);
    }

    /**
     * A name operation done for this rank by world rank 0 (a rank on another node than rank 0's):
     * the port for a lookup, "" otherwise; rank 0's error as an {@link MPIException} of its class.
     * Rank 0 answers while it is inside an MPI call; this rank waits at most
     * {@code shmpi.connect.timeout.ms}.
     */
    static String askNames(final int kind, final String service, final String port)
    {
        if (service.length() + port.length() > NAME_CHARS_MAX)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "a service name and port of more than " + NAME_CHARS_MAX +
                " characters together, on a node other than the first");
        }
        final RankContext ctx = MPI.context();
        final int requestId = NEXT_REQUEST.getAndIncrement();
        final int replyTag = REPLY_TAG_BASE + (requestId & 0xFFFFF);
        final byte[] in = new byte[4 * (1 + NAME_CHARS_MAX + 256)];
        final RecvRequest reply = ctx.transport().irecv(context, 0, replyTag, in, BYTES, in.length);
        final int[] request = new int[3 + service.length() + port.length()];
        request[0] = kind;
        request[1] = replyTag;
        request[2] = service.length();
        for (int i = 0; i < service.length(); i++)
        {
            request[3 + i] = service.charAt(i);
        }
        for (int i = 0; i < port.length(); i++)
        {
            request[3 + service.length() + i] = port.charAt(i);
        }
        sendInts(0, TAG_REQUEST, request);
        final long deadline = System.nanoTime() + ctx.settings().connectTimeoutMs() * 1_000_000L;
        ctx.progress().awaitUntil(() -> reply.isComplete() || System.nanoTime() - deadline > 0, BlockedCall.OTHER,
            null);
        if (!reply.isComplete() && ctx.transport().cancel(reply))
        {
            throw new MPIException(kind == KIND_LOOKUP ? ErrorClass.ERR_NAME : ErrorClass.ERR_SERVICE,
                "the name service (world rank 0) did not answer within shmpi.connect.timeout.ms");
        }
        if (!reply.isComplete())
        {
            ctx.progress().await(reply);
        }
        final int n = (int)(reply.storedLength() / 4);
        final StringBuilder text = new StringBuilder();
        for (int i = 1; i < n; i++)
        {
            text.append((char)UnsafeApi.getInt(in, BYTES + 4L * i));
        }
        final int status = UnsafeApi.getInt(in, BYTES);
        if (status != 0)
        {
            throw new MPIException(status, text + " (served by world rank 0)");
        }
        return text.toString();
    }

    private static void checkRoot(final Intracomm comm, final int root)
    {
        if (root < 0 || root >= comm.members.length)
        {
            throw new MPIException(ErrorClass.ERR_ROOT, "root " + root + " of a communicator of " +
                comm.members.length);
        }
    }

    /**
     * The rest of accept and connect on every member: the root's outcome ({@code [0, remote world
     * ranks...]} or {@code [error class]}) to all, then the context agreement across the roots.
     */
    private static Intercomm finish(final Intracomm comm, final int root, final int[] fromRoot,
        final ContextAgreement.Bridge bridge, final String what, final JobGateway gateway)
    {
        final int[] outcome = CommConstruction.bcastInts(comm, fromRoot, root, BlockedCall.BARRIER);
        if (outcome[0] != 0)
        {
            throw new MPIException(outcome[0], what + (comm.myRank == root ? "" : " (at the root)"));
        }
        final int[] remote = java.util.Arrays.copyOfRange(outcome, 1, outcome.length);
        // Watched from here: the agreement waits on the other group's root, which may die meanwhile.
        Connections.add(remote);
        final int[] ids;
        try
        {
            ids = ContextAgreement.run(comm.members, comm.myRank, root, comm.collContextId, ContextAgreement.BLOCKING,
                bridge, BlockedCall.BARRIER);
        }
        catch (final RuntimeException | Error ex)
        {
            Connections.remove(remote);
            throw ex;
        }
        final Intercomm ic = new Intercomm("");
        ic.bindInter(comm.members, comm.myRank, remote, ids[0], ids[1]);
        ic.gateway = gateway;
        ic.errhandler = comm.errhandler;
        MPI.nameContexts(ic, "intercomm of " + comm.getName() + " through a port");
        return ic;
    }

    /**
     * Waits for a connect request on {@code port}: {source world rank, request id, port id, reply
     * tag, group...}; null when {@code gaveUp} said so first.
     */
    private static int[] take(final Port port, final java.util.function.BooleanSupplier gaveUp)
    {
        final java.util.function.BooleanSupplier failed = everyMillisecond(gaveUp);
        MPI.context().progress().awaitUntil(() ->
        {
            synchronized (port)
            {
                if (!port.waiting.isEmpty())
                {
                    return true;
                }
            }
            return failed.getAsBoolean();
        }, BlockedCall.OTHER, null);
        synchronized (port)
        {
            return port.waiting.poll();
        }
    }

    /** {@code gaveUp} (a file to look at) asked at most every millisecond, false between; never when null. */
    private static java.util.function.BooleanSupplier everyMillisecond(final java.util.function.BooleanSupplier gaveUp)
    {
        final long[] checked = {System.nanoTime()};
        return () ->
        {
            if (gaveUp != null && System.nanoTime() - checked[0] > 1_000_000L)
            {
                checked[0] = System.nanoTime();
                return gaveUp.getAsBoolean();
            }
            return false;
        };
    }

    private static void sendInts(final int dest, final int tag, final int[] values)
    {
        final byte[] out = new byte[4 * values.length];
        for (int i = 0; i < values.length; i++)
        {
            UnsafeApi.putInt(out, BYTES + 4L * i, values[i]);
        }
        MPI.context().transport().send(context, dest, tag, out, BYTES, out.length);
    }

    /** Takes the connect requests of this process's ports, in the duty cycle of whatever MPI call it is in. */
    private static final class Service implements ProgressAgent
    {
        private final RankContext ctx;
        private final byte[] in;
        private RecvRequest posted;

        Service(final RankContext ctx)
        {
            this.ctx = ctx;
            this.in = new byte[4 * (5 + ctx.worldSize() + PeerTable.MAX_ENTRIES)];
        }

        void post()
        {
            posted = ctx.transport().irecv(context, RecvRequest.ANY_SOURCE, TAG_REQUEST, in, BYTES, in.length);
        }

        void close()
        {
            if (posted != null && !posted.isComplete())
            {
                ctx.transport().cancel(posted);
            }
            posted = null;
        }

        @Override
        public int doWork()
        {
            int work = 0;
            while (posted != null && posted.isComplete())
            {
                final int source = posted.source();
                final int n = (int)(posted.storedLength() / 4);
                final int[] message = new int[n];
                for (int i = 0; i < n; i++)
                {
                    message[i] = UnsafeApi.getInt(in, BYTES + 4L * i);
                }
                post();
                handle(source, message);
                work++;
            }
            return work;
        }

        private void handle(final int source, final int[] message)
        {
            switch (message[0])
            {
                case KIND_CONNECT:
                {
                    final Port port = OPEN.get(message[2]);
                    if (port == null)
                    {
                        final byte[] nack = new byte[4];
                        UnsafeApi.putInt(nack, BYTES, ErrorClass.ERR_PORT);
                        ctx.transport().isend(context, source, message[3], nack, BYTES, 4, SendRequest.MODE_STANDARD);
                        return;
                    }
                    final int[] request = message.clone();
                    request[0] = source;
                    synchronized (port)
                    {
                        port.waiting.add(request);
                    }
                    return;
                }
                case KIND_PUBLISH:
                case KIND_UNPUBLISH:
                case KIND_LOOKUP:
                {
                    final int length = message[2];
                    final StringBuilder service = new StringBuilder();
                    final StringBuilder port = new StringBuilder();
                    for (int i = 3; i < message.length; i++)
                    {
                        (i < 3 + length ? service : port).append((char)message[i]);
                    }
                    int status = 0;
                    String text = "";
                    try
                    {
                        if (message[0] == KIND_PUBLISH)
                        {
                            Names.publish(service.toString(), port.toString(), source);
                        }
                        else if (message[0] == KIND_UNPUBLISH)
                        {
                            Names.unpublish(service.toString(), port.toString(), source);
                        }
                        else
                        {
                            text = Names.lookupHere(service.toString());
                        }
                    }
                    catch (final MPIException ex)
                    {
                        status = ex.getErrorClass();
                        text = ex.getMessage();
                    }
                    final byte[] out = new byte[4 * (1 + Math.min(text.length(), NAME_CHARS_MAX + 255))];
                    UnsafeApi.putInt(out, BYTES, status);
                    for (int i = 0; i < out.length / 4 - 1; i++)
                    {
                        UnsafeApi.putInt(out, BYTES + 4L * (i + 1), text.charAt(i));
                    }
                    ctx.transport().isend(context, source, message[1], out, BYTES, out.length,
                        SendRequest.MODE_STANDARD);
                    return;
                }
                case KIND_CONFIRM:
                case KIND_CANCEL:
                {
                    final String key = source + ":" + message[1];
                    boolean dropped = false;
                    if (message[0] == KIND_CANCEL)
                    {
                        // Still waiting for an accept: drop it there.
                        for (final Port port : OPEN.values())
                        {
                            synchronized (port)
                            {
                                dropped |= port.waiting.removeIf(r -> r[0] == source && r[1] == message[1]);
                            }
                        }
                    }
                    if (!dropped)
                    {
                        DECISIONS.put(key, message[0]);
                    }
                    return;
                }
                default:
                    return;
            }
        }

        @Override
        public String roleName()
        {
            return "port service";
        }
    }
}
