package mpi;

import org.agrona.UnsafeApi;
import org.shmpi.report.Algorithm;
import org.shmpi.coll.Collective;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.Members;
import org.shmpi.coll.PackedData;
import org.shmpi.coll.NeighborExchange;
import org.shmpi.coll.Schedule;
import org.shmpi.coll.ShmCollectives;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.DataLayout;

/**
 * The collective operations of {@link Comm} and {@link Intracomm}, between the public API and
 * the algorithms of {@code org.shmpi.coll}: arguments are checked (and an error raised) before
 * anything moves; each process's data is packed into a byte array through its datatype, the
 * algorithm runs on packed bytes, and the results are unpacked into the user's buffers by the
 * schedule's last step. Each operation is written once and serves the blocking call (the
 * schedule runs on the caller's thread), the nonblocking one (the progress engine runs it; the
 * request keeps the buffers reachable) and the persistent one (a new schedule per start).
 * <p>
 * The operations live by family: {@link Rooted} (bcast, gather, scatter), {@link Exchanges}
 * (allGather, allToAll), {@link ReduceOps} (reduce, allReduce, reduceScatter, scan),
 * {@link Neighbors}, and {@link InterCollectives} for inter-communicators; {@link OpReducers} makes
 * the reducer of an op. This class holds what they share (argument checks, packing, running a
 * schedule) and the barrier.
 */
final class Collectives
{
    static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private Collectives()
    {
    }

    // ------------------------------------------------------------------------------------------
    // Running

    /** Runs {@code c}: to completion here when {@code blocking} (returns null), else in the progress engine. */
    static Request run(final Comm comm, final Members m, final Collective c, final String role,
        final boolean blocking, final Object... keep)
    {
        final Schedule s = c.schedule(m, role);
        if (blocking)
        {
            Profile.algorithm(Algorithm.FLAT);
            s.runToCompletion(BlockedCall.BARRIER);
            return null;
        }
        Profile.algorithm(Algorithm.FLAT);
        s.start();
        return new Request(comm, s.request(), keep);
    }

    /** Checks an intra-communicator's collective call (inter-communicators went to {@link InterCollectives}). */
    static void checkIntra(final Comm comm, final String call)
    {
        comm.check();
    }

    static void checkRoot(final Comm comm, final int root)
    {
        if (root < 0 || root >= comm.getSize())
        {
            throw new MPIException(ErrorClass.ERR_ROOT, "invalid root: root=" + root + ", size=" + comm.getSize());
        }
    }

    static int[] checkedCounts(final int[] counts, final int n, final String what)
    {
        if (counts == null || counts.length < n)
        {
            throw new MPIException(ErrorClass.ERR_ARG, what + " must have an entry per rank: size=" + n);
        }
        for (int i = 0; i < n; i++)
        {
            if (counts[i] < 0)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, what + "[" + i + "] is negative: " + counts[i]);
            }
        }
        return counts;
    }

    static int[] checkedDispls(final int[] displs, final int n, final String what)
    {
        if (displs == null || displs.length < n)
        {
            throw new MPIException(ErrorClass.ERR_ARG, what + " must have an entry per rank: size=" + n);
        }
        return displs;
    }

    static int intBytes(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "a collective moves at most 2 GiB per process: bytes=" +
                bytes);
        }
        return (int)bytes;
    }

    // ------------------------------------------------------------------------------------------
    // Packing: a block of count items of type at element offset displ (in the type's extent)

    /** Byte offset of item {@code displ} of {@code type}. */
    static long at(final Datatype type, final long displ)
    {
        return displ * extentBytes(type);
    }

    static long extentBytes(final Datatype type)
    {
        return type.map == null ? 0 : type.map.extent();
    }

    /** Checks that {@code count} items at byte offset {@code at} lie in {@code buf}; returns their packed bytes. */
    static int check(final Object buf, final long at, final int count, final Datatype type)
    {
        return intBytes(Buffers.bytesAt(buf, at, count, type));
    }

    static void pack(final Object buf, final long at, final Datatype type, final byte[] into,
        final int intoOffset, final int bytes)
    {
        if (bytes > 0)
        {
            type.layout().pack(Buffers.base(buf), Buffers.offset(buf) + at, 0, into, BYTES + intoOffset, bytes);
        }
    }

    static void unpack(final byte[] from, final int fromOffset, final int bytes, final Object buf,
        final long at, final Datatype type)
    {
        if (bytes > 0)
        {
            type.layout().unpack(from, BYTES + fromOffset, bytes, Buffers.base(buf), Buffers.offset(buf) + at, 0);
        }
    }

    /** The user's message in {@code buf} from byte offset {@code at} on, as packed bytes (no copy made). */
    static PackedData data(final Object buf, final long at, final Datatype type)
    {
        return new PackedData(type.layout(), Buffers.base(buf), Buffers.offset(buf) + at, 0);
    }

    static byte[] packed(final Object buf, final long at, final int count, final Datatype type)
    {
        final int bytes = check(buf, at, count, type);
        final byte[] out = new byte[bytes];
        pack(buf, at, type, out, 0, bytes);
        return out;
    }

    /** {@code count} for each of {@code n} ranks. */
    static int[] repeated(final int n, final int count)
    {
        final int[] out = new int[n];
        java.util.Arrays.fill(out, count);
        return out;
    }

    /** The displacements of {@code n} consecutive blocks of {@code count} items: 0, count, 2 count, ... */
    static int[] consecutive(final int n, final int count)
    {
        final int[] out = new int[n];
        for (int i = 0; i < n; i++)
        {
            out[i] = i * count;
        }
        return out;
    }

    static int[] prefix(final int[] lengths)
    {
        final int[] offsets = new int[lengths.length];
        long total = 0;
        for (int i = 0; i < lengths.length; i++)
        {
            offsets[i] = intBytes(total);
            total += lengths[i];
        }
        intBytes(total);
        return offsets;
    }

    static int sum(final int[] values)
    {
        long total = 0;
        for (final int v : values)
        {
            total += v;
        }
        return intBytes(total);
    }

    // ------------------------------------------------------------------------------------------
    // The operations. inPlace: the MPI_IN_PLACE forms, whose send data is in the receive buffer.

    /**
     * The blocking barrier, recorded as MPI call {@code call} in the rank's wait record if it
     * blocks. The application's barriers take the shared-memory one when the module has it;
     * otherwise a dissemination barrier (in round k each rank signals rank+2^k and waits for
     * rank-2^k). On an inter-communicator: a barrier in each group, the two groups' rank 0s swap
     * an empty message, then a second barrier in each group, so no process leaves before all of
     * both groups came.
     */
    static void barrier(final Comm comm, final int call)
    {
        try
        {
            comm.check();
            // Only the application's barriers: MPI.Finalize's must not set up shared state.
            final ShmCollectives s = call == BlockedCall.BARRIER ? comm.coll().shmFor(CollectiveOp.BARRIER, 0) : null;
            if (s != null)
            {
                Profile.algorithm(Algorithm.FLAT);
                s.barrier();
                return;
            }
            if (call == BlockedCall.BARRIER && comm.nodeAware())
            {
                Profile.algorithm(Algorithm.HIERARCHICAL);
                NodeLevels.of(comm).barrier();
                return;
            }
            disseminate(comm, call);
            if (comm.isInter())
            {
                if (comm.myRank == 0)
                {
                    CommConstruction.exchangeInts(comm.collContextId, comm.peers[0], CommConstruction.TAG_BRIDGE,
                        new int[0], call);
                }
                disseminate(comm, call);
            }
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** A dissemination barrier among the members (the local group), on the collective context. */
    private static void disseminate(final Comm comm, final int call)
    {
        final int[] members = comm.members;
        final int n = members.length;
        final RankContext ctx = MPI.context();
        final byte[] none = new byte[0];
        final long base = Buffers.BYTE_ARRAY_BASE;
        final int collContext = comm.collContextId;
        for (int k = 0, dist = 1; dist < n; k++, dist <<= 1)
        {
            final int to = members[(comm.myRank + dist) % n];
            final int from = members[(comm.myRank - dist + n) % n];
            ctx.transport().send(collContext, to, k, none, base, 0, call);
            ctx.transport().recv(collContext, from, k, none, base, 0, DataLayout.CONTIGUOUS, call);
        }
    }

    static Request iBarrier(final Comm comm, final boolean blocking)
    {
        comm.check();
        final Members m = comm.coll().nextMembers();
        if (comm.isInter())
        {
            // A barrier in each group, the two rank 0s swap an empty message, a barrier in each group again.
            final Members remote = new Members(m.rankContext(), comm.peers, -1, comm.collContextId, m.tag());
            final int[] peer = comm.getRank() == 0 ? new int[] {0} : new int[0];
            final byte[] none = new byte[0];
            final Collective c = new org.shmpi.coll.Barrier(m).then(new NeighborExchange(remote, peer,
                new int[peer.length], none, new int[peer.length], new int[peer.length], peer, new int[peer.length],
                none, new int[peer.length], new int[peer.length]).then(new org.shmpi.coll.Barrier(m)));
            return run(comm, m, c, "barrier", blocking);
        }
        final ShmCollectives shm = blocking ? null : comm.coll().shmIfSetUp(CollectiveOp.BARRIER, 0);
        if (shm != null)
        {
            Profile.algorithm(Algorithm.FLAT);
            return run(comm, m, shm.barrierSteps(), "barrier", false);
        }
        return run(comm, m, new org.shmpi.coll.Barrier(m), "barrier", blocking);
    }
}
