package mpi;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.agrona.UnsafeApi;
import org.shmpi.coll.Allgatherv;
import org.shmpi.coll.Alltoallv;
import org.shmpi.coll.Bcast;
import org.shmpi.coll.Collective;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.Gatherv;
import org.shmpi.coll.Members;
import org.shmpi.coll.PackedData;
import org.shmpi.coll.NeighborExchange;
import org.shmpi.coll.Reduce;
import org.shmpi.coll.Reducer;
import org.shmpi.coll.Scan;
import org.shmpi.coll.Schedule;
import org.shmpi.coll.ShmCollectives;
import org.shmpi.coll.ShmLargeCollectives;
import org.shmpi.coll.Scatterv;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.reduce.Reductions;

/**
 * The collective operations of {@link Comm} and {@link Intracomm}, between the public API and
 * the algorithms of {@code org.shmpi.coll}: arguments are checked (and an error raised) before
 * anything moves; each process's data is packed into a byte array through its datatype, the
 * algorithm runs on packed bytes, and the results are unpacked into the user's buffers by the
 * schedule's last step. Each operation is written once and serves the blocking call (the
 * schedule runs on the caller's thread), the nonblocking one (the progress engine runs it; the
 * request keeps the buffers reachable) and the persistent one (a new schedule per start).
 */
final class Collectives
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

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
            s.runToCompletion(BlockedCall.BARRIER);
            return null;
        }
        s.start();
        return new Request(comm, s.request(), keep);
    }

    /** Checks an intra-communicator's collective call (inter-communicators went to {@link InterCollectives}). */
    private static void checkIntra(final Comm comm, final String call)
    {
        comm.check();
    }

    private static void checkRoot(final Comm comm, final int root)
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
    // Reductions

    /**
     * The reduction of {@code op} on items of {@code type}: a predefined op runs its kernel on
     * the type's elements, which must all be of one basic kind that MPI allows for the op; a
     * user op runs its function (arrays when {@code arrays}, else byte buffers).
     */
    static Reducer reducer(final Op op, final Datatype type, final boolean arrays)
    {
        if (op == null || op.isNull())
        {
            throw new MPIException(ErrorClass.ERR_OP, "null or freed operation: " + op);
        }
        if (op.function != null)
        {
            return userReducer(op.function, type, arrays);
        }
        if (op.code == Reductions.REPLACE || op.code == Reductions.NO_OP)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is for one-sided accumulates only");
        }
        final int kind = type.uniformKind();
        final Reductions.Kernel kernel = kind < 0 ? null : Reductions.kernel(op.code, kind);
        if (kernel == null)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is not defined on " +
                type.getName() + (kind < 0 ? " (elements of several kinds)" : ""));
        }
        final Object cached = type.reducers[op.code];
        if (cached != null)
        {
            return (KernelReducer)cached;
        }
        final KernelReducer made = new KernelReducer(kernel, type.size / BasicKind.size(kind));
        type.reducers[op.code] = made;
        return made;
    }

    /** A predefined op: its kernel runs on arrays and on shared memory alike. */
    private static final class KernelReducer implements Reducer
    {
        private final Reductions.Kernel kernel;
        private final long perItem;

        KernelReducer(final Reductions.Kernel kernel, final long perItem)
        {
            this.kernel = kernel;
            this.perItem = perItem;
        }

        @Override
        public Class<?> elementArray()
        {
            return Reductions.arrayClass(kernel);
        }

        @Override
        public void apply(final byte[] in, final int inOffset, final byte[] inout, final int inoutOffset,
            final int items)
        {
            kernel.apply(in, BYTES + inOffset, inout, BYTES + inoutOffset, items * perItem);
        }

        @Override
        public void applyAt(final Object inBase, final long inOffset, final Object inoutBase, final long inoutOffset,
            final int items, final int bytes)
        {
            kernel.apply(inBase, inOffset, inoutBase, inoutOffset, items * perItem);
        }
    }

    private static Reducer userReducer(final UserFunction f, final Datatype type, final boolean arrays)
    {
        final int base = type.id;
        final int baseSize = BasicKind.size(base);
        final Class<?> arrayType = BasicKind.primitiveArray(base);
        final boolean useArrays = arrays && arrayType != null;
        return (in, inOffset, inout, inoutOffset, items) ->
        {
            final int bytes = intBytes((long)items * type.size);
            if (useArrays)
            {
                final int elements = bytes / baseSize;
                final Object a = Array.newInstance(arrayType.getComponentType(), elements);
                final Object b = Array.newInstance(arrayType.getComponentType(), elements);
                final long arrayBase = UnsafeApi.arrayBaseOffset(arrayType);
                UnsafeApi.copyMemory(in, BYTES + inOffset, a, arrayBase, bytes);
                UnsafeApi.copyMemory(inout, BYTES + inoutOffset, b, arrayBase, bytes);
                try
                {
                    f.call(a, b, items, type);
                }
                catch (final UnsupportedOperationException notThisForm)
                {
                    callWithBuffers(f, in, inOffset, inout, inoutOffset, bytes, items, type);
                    return;
                }
                UnsafeApi.copyMemory(b, arrayBase, inout, BYTES + inoutOffset, bytes);
                return;
            }
            try
            {
                callWithBuffers(f, in, inOffset, inout, inoutOffset, bytes, items, type);
            }
            catch (final UnsupportedOperationException notThisForm)
            {
                if (arrayType == null)
                {
                    throw notThisForm;
                }
                final int elements = bytes / baseSize;
                final Object a = Array.newInstance(arrayType.getComponentType(), elements);
                final Object b = Array.newInstance(arrayType.getComponentType(), elements);
                final long arrayBase = UnsafeApi.arrayBaseOffset(arrayType);
                UnsafeApi.copyMemory(in, BYTES + inOffset, a, arrayBase, bytes);
                UnsafeApi.copyMemory(inout, BYTES + inoutOffset, b, arrayBase, bytes);
                f.call(a, b, items, type);
                UnsafeApi.copyMemory(b, arrayBase, inout, BYTES + inoutOffset, bytes);
            }
        };
    }

    private static void callWithBuffers(final UserFunction f, final byte[] in, final int inOffset, final byte[] inout,
        final int inoutOffset, final int bytes, final int items, final Datatype type)
    {
        final ByteBuffer a = ByteBuffer.wrap(in, inOffset, bytes).slice().order(ByteOrder.nativeOrder());
        final ByteBuffer b = ByteBuffer.wrap(inout, inoutOffset, bytes).slice().order(ByteOrder.nativeOrder());
        f.call(a, b, items, type);
    }

    static boolean isArray(final Object buf)
    {
        return buf != null && buf.getClass().isArray();
    }

    /** Java binding of {@code MPI_REDUCE_LOCAL}: {@code inoutbuf = inbuf op inoutbuf}, element-wise, locally. */
    static void reduceLocal(final Object inbuf, final Object inoutbuf, final int count, final Datatype type,
        final Op op)
    {
        final Reducer r = reducer(op, type, isArray(inoutbuf));
        if (r instanceof KernelReducer && type.layout().isContiguous())
        {
            // A predefined op on contiguous data: the kernel runs on the caller's memory (on two
            // arrays of the element type, the vectorised loop itself).
            final int bytes = check(inbuf, 0, count, type);
            check(inoutbuf, 0, count, type);
            r.applyAt(Buffers.base(inbuf), Buffers.offset(inbuf), Buffers.base(inoutbuf), Buffers.offset(inoutbuf),
                count, bytes);
            return;
        }
        final byte[] a = packed(inbuf, 0, count, type);
        final byte[] b = packed(inoutbuf, 0, count, type);
        r.apply(a, 0, b, 0, count);
        unpack(b, 0, b.length, inoutbuf, 0, type);
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
                s.barrier();
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
            return run(comm, m, shm.barrierSteps(), "barrier", false);
        }
        return run(comm, m, new org.shmpi.coll.Barrier(m), "barrier", blocking);
    }

    static Request bcast(final Comm comm, final Object buf, final int count, final Datatype type, final int root,
        final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.bcast(comm, buf, count, type, root, blocking);
        }
        checkIntra(comm, "bcast");
        checkRoot(comm, root);
        final int bytes = check(buf, 0, count, type);
        final boolean isRoot = comm.getRank() == root;
        final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.BCAST, bytes) : null;
        if (large != null)
        {
            large.bcast(root, data(buf, 0, type), bytes);
            return null;
        }
        final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.BCAST, bytes) :
            comm.coll().shmIfSetUp(CollectiveOp.BCAST, bytes);
        if (shm != null)
        {
            final byte[] data = blocking ? comm.coll().blockingIn(bytes) : new byte[bytes];
            if (isRoot)
            {
                pack(buf, 0, type, data, 0, bytes);
            }
            if (!blocking)
            {
                return run(comm, comm.coll().nextMembers(), shm.bcastSteps(root, data, bytes).then(s ->
                {
                    if (!isRoot)
                    {
                        unpack(data, 0, bytes, buf, 0, type);
                    }
                    return null;
                }), "bcast", false, buf);
            }
            shm.bcast(root, data, bytes);
            if (!isRoot)
            {
                unpack(data, 0, bytes, buf, 0, type);
            }
            return null;
        }
        final Members m = comm.coll().nextMembers();
        final byte[] data = isRoot ? packed(buf, 0, count, type) : new byte[bytes];
        final Collective c = new Bcast(m, root, data, 0, bytes).then(s ->
        {
            if (!isRoot)
            {
                unpack(data, 0, bytes, buf, 0, type);
            }
            return null;
        });
        return run(comm, m, c, "bcast", blocking, buf);
    }

    static Request gather(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final int root, final boolean inPlace,
        final boolean blocking)
    {
        if (!comm.isInter())
        {
            checkRoot(comm, root);
            final int me = comm.getRank();
            final boolean isRoot = me == root;
            final int n = comm.getSize();
            final int sent = isRoot && inPlace ? check(recvbuf, at(rtype, (long)me * rcount), rcount, rtype) :
                check(sendbuf, 0, scount, stype);
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.GATHER, sent) : null;
            if (large != null)
            {
                if (isRoot && check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                large.gather(root, isRoot && inPlace ? null : data(sendbuf, 0, stype),
                    isRoot ? data(recvbuf, 0, rtype) : null, sent);
                return null;
            }
            final byte[] mine = isRoot && inPlace ? packed(recvbuf, at(rtype, (long)me * rcount), rcount, rtype) :
                packed(sendbuf, 0, scount, stype);
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.GATHER, mine.length) :
                comm.coll().shmIfSetUp(CollectiveOp.GATHER, mine.length);
            if (shm != null)
            {
                if (isRoot && check(recvbuf, 0, n * rcount, rtype) != n * mine.length)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: blocks of " + mine.length +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                final byte[] all = isRoot ? new byte[n * mine.length] : null;
                if (!blocking)
                {
                    return run(comm, comm.coll().nextMembers(), shm.gatherSteps(root, mine, mine.length, all).then(s ->
                    {
                        if (isRoot)
                        {
                            unpack(all, 0, all.length, recvbuf, 0, rtype);
                        }
                        return null;
                    }), "gather", false, sendbuf, recvbuf);
                }
                shm.gather(root, mine, mine.length, all);
                if (isRoot)
                {
                    unpack(all, 0, all.length, recvbuf, 0, rtype);
                }
                return null;
            }
        }
        final int n = comm.peers.length;
        final int[] counts = repeated(n, rcount);
        final int[] displs = consecutive(n, rcount);
        return gatherv(comm, sendbuf, scount, stype, recvbuf, counts, displs, rtype, root, inPlace, blocking);
    }

    static Request gatherv(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int[] rcounts, final int[] displs, final Datatype rtype, final int root,
        final boolean inPlace, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.gatherv(comm, sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, root,
                inPlace, blocking);
        }
        checkIntra(comm, "gatherv");
        checkRoot(comm, root);
        final int me = comm.getRank();
        final boolean isRoot = me == root;
        final Blocks blocks = isRoot ? Blocks.items(recvbuf, rcounts, displs, rtype, comm.getSize(), "recv") : null;
        final byte[] mine = isRoot && inPlace ? blocks.pack(me) : packed(sendbuf, 0, scount, stype);
        if (isRoot && mine.length != blocks.lengths[me])
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: the root sends " + mine.length +
                " bytes to its own block of " + blocks.lengths[me]);
        }
        final byte[] all = isRoot ? new byte[blocks.total] : null;
        final Members m = comm.coll().nextMembers();
        final Collective c = new Gatherv(m, root, mine, mine.length, all, isRoot ? blocks.offsets : null,
            isRoot ? blocks.lengths : null).then(s ->
            {
                if (isRoot)
                {
                    blocks.unpackAll(all);
                }
                return null;
            });
        return run(comm, m, c, "gather", blocking, sendbuf, recvbuf);
    }

    static Request scatter(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final int root, final boolean inPlace,
        final boolean blocking)
    {
        if (!comm.isInter())
        {
            checkRoot(comm, root);
            final int me = comm.getRank();
            final int n = comm.getSize();
            final boolean isRoot = me == root;
            final int block = isRoot ? check(sendbuf, 0, n * scount, stype) / Math.max(1, n) :
                check(recvbuf, 0, rcount, rtype);
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.SCATTER,
                (long)n * block) : null;
            if (large != null)
            {
                if (isRoot && !inPlace && check(recvbuf, 0, rcount, rtype) != block)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "scatter: blocks of " + block +
                        " bytes for a receive buffer of " + rcount + " items of " + rtype.getName());
                }
                large.scatter(root, isRoot ? data(sendbuf, 0, stype) : null,
                    isRoot && inPlace ? null : data(recvbuf, 0, rtype), block);
                return null;
            }
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.SCATTER, n * block) :
                comm.coll().shmIfSetUp(CollectiveOp.SCATTER, n * block);
            if (shm != null)
            {
                if (isRoot && !inPlace && check(recvbuf, 0, rcount, rtype) != block)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "scatter: blocks of " + block +
                        " bytes for a receive buffer of " + rcount + " items of " + rtype.getName());
                }
                final byte[] all = isRoot ? packed(sendbuf, 0, n * scount, stype) : null;
                final byte[] mine = new byte[block];
                if (!blocking)
                {
                    return run(comm, comm.coll().nextMembers(), shm.scatterSteps(root, all, block, mine).then(s ->
                    {
                        if (!(isRoot && inPlace))
                        {
                            unpack(mine, 0, block, recvbuf, 0, rtype);
                        }
                        return null;
                    }), "scatter", false, sendbuf, recvbuf);
                }
                shm.scatter(root, all, block, mine);
                if (!(isRoot && inPlace))
                {
                    unpack(mine, 0, block, recvbuf, 0, rtype);
                }
                return null;
            }
        }
        final int n = comm.peers.length;
        final int[] counts = repeated(n, scount);
        final int[] displs = consecutive(n, scount);
        return scatterv(comm, sendbuf, counts, displs, stype, recvbuf, rcount, rtype, root, inPlace, blocking);
    }

    static Request scatterv(final Comm comm, final Object sendbuf, final int[] scounts, final int[] displs,
        final Datatype stype, final Object recvbuf, final int rcount, final Datatype rtype, final int root,
        final boolean inPlace, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.scatterv(comm, sendbuf, scounts, displs, stype, recvbuf, rcount, rtype, root,
                inPlace, blocking);
        }
        checkIntra(comm, "scatterv");
        checkRoot(comm, root);
        final int me = comm.getRank();
        final boolean isRoot = me == root;
        final Blocks blocks = isRoot ? Blocks.items(sendbuf, scounts, displs, stype, comm.getSize(), "send") : null;
        final int rbytes = isRoot && inPlace ? blocks.lengths[me] : check(recvbuf, 0, rcount, rtype);
        if (isRoot && rbytes < blocks.lengths[me])
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, "scatter: the root's own block of " + blocks.lengths[me] +
                " bytes does not fit its receive buffer of " + rbytes);
        }
        final byte[] all = isRoot ? blocks.packAll() : null;
        final byte[] mine = isRoot && inPlace ? null : new byte[isRoot ? blocks.lengths[me] : rbytes];
        final Members m = comm.coll().nextMembers();
        final Collective c = new Scatterv(m, root, all, isRoot ? blocks.offsets : null, isRoot ? blocks.lengths : null,
            mine, 0, mine == null ? 0 : mine.length).then(s ->
            {
                if (mine != null)
                {
                    unpack(mine, 0, mine.length, recvbuf, 0, rtype);
                }
                return null;
            });
        return run(comm, m, c, "scatter", blocking, sendbuf, recvbuf);
    }

    static Request allGather(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final boolean inPlace, final boolean blocking)
    {
        if (!comm.isInter())
        {
            final int me = comm.getRank();
            final int n = comm.getSize();
            final int sent = inPlace ? check(recvbuf, at(rtype, (long)me * rcount), rcount, rtype) :
                check(sendbuf, 0, scount, stype);
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.ALLGATHER, sent) : null;
            if (large != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                large.allgather(inPlace ? null : data(sendbuf, 0, stype), data(recvbuf, 0, rtype), sent);
                return null;
            }
            final byte[] mine = inPlace ? packed(recvbuf, at(rtype, (long)me * rcount), rcount, rtype) :
                packed(sendbuf, 0, scount, stype);
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.ALLGATHER, mine.length) :
                comm.coll().shmIfSetUp(CollectiveOp.ALLGATHER, mine.length);
            if (shm != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != n * mine.length)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: blocks of " + mine.length +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                final byte[] all = new byte[n * mine.length];
                if (!blocking)
                {
                    return run(comm, comm.coll().nextMembers(), shm.allgatherSteps(mine, mine.length, all).then(s ->
                    {
                        unpack(all, 0, all.length, recvbuf, 0, rtype);
                        return null;
                    }), "allGather", false, sendbuf, recvbuf);
                }
                shm.allgather(mine, mine.length, all);
                unpack(all, 0, all.length, recvbuf, 0, rtype);
                return null;
            }
        }
        final int n = comm.peers.length;
        final int[] counts = repeated(n, rcount);
        final int[] displs = consecutive(n, rcount);
        return allGatherv(comm, sendbuf, scount, stype, recvbuf, counts, displs, rtype, inPlace, blocking);
    }

    static Request allGatherv(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int[] rcounts, final int[] displs, final Datatype rtype, final boolean inPlace,
        final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.allGatherv(comm, sendbuf, scount, stype, recvbuf, rcounts, displs, rtype, inPlace,
                blocking);
        }
        checkIntra(comm, "allGatherv");
        final int me = comm.getRank();
        final Blocks blocks = Blocks.items(recvbuf, rcounts, displs, rtype, comm.getSize(), "recv");
        final byte[] mine = inPlace ? blocks.pack(me) : packed(sendbuf, 0, scount, stype);
        if (mine.length != blocks.lengths[me])
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: " + mine.length +
                " bytes sent for a block of " + blocks.lengths[me]);
        }
        final byte[] all = new byte[blocks.total];
        System.arraycopy(mine, 0, all, blocks.offsets[me], mine.length);
        final Members m = comm.coll().nextMembers();
        final Collective c = new Allgatherv(m, all, blocks.offsets, blocks.lengths).then(s ->
        {
            blocks.unpackAll(all);
            return null;
        });
        return run(comm, m, c, "allGather", blocking, sendbuf, recvbuf);
    }

    static Request allToAll(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final boolean blocking)
    {
        if (!comm.isInter())
        {
            final int n = comm.getSize();
            final int sent = check(sendbuf, 0, n * scount, stype);
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.ALLTOALL, sent) : null;
            if (large != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allToAll: " + sent / Math.max(1, n) +
                        " bytes per block sent, receive blocks of " + rcount + " items of " + rtype.getName());
                }
                large.alltoall(data(sendbuf, 0, stype), data(recvbuf, 0, rtype), sent / n);
                return null;
            }
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.ALLTOALL, sent) :
                comm.coll().shmIfSetUp(CollectiveOp.ALLTOALL, sent);
            if (shm != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allToAll: " + sent / Math.max(1, n) +
                        " bytes per block sent, receive blocks of " + rcount + " items of " + rtype.getName());
                }
                final byte[] out = new byte[sent];
                if (!blocking)
                {
                    return run(comm, comm.coll().nextMembers(), shm.alltoallSteps(packed(sendbuf, 0, n * scount, stype),
                        sent / n, out).then(s ->
                        {
                            unpack(out, 0, sent, recvbuf, 0, rtype);
                            return null;
                        }), "allToAll", false, sendbuf, recvbuf);
                }
                shm.alltoall(packed(sendbuf, 0, n * scount, stype), sent / n, out);
                unpack(out, 0, sent, recvbuf, 0, rtype);
                return null;
            }
        }
        final int n = comm.peers.length;
        return allToAllv(comm, sendbuf, repeated(n, scount), consecutive(n, scount), stype, recvbuf,
            repeated(n, rcount), consecutive(n, rcount), rtype, blocking);
    }

    static Request allToAllv(final Comm comm, final Object sendbuf, final int[] scounts, final int[] sdispls,
        final Datatype stype, final Object recvbuf, final int[] rcounts, final int[] rdispls, final Datatype rtype,
        final boolean blocking)
    {
        final int n = comm.peers.length;
        final Datatype[] st = new Datatype[n];
        final Datatype[] rt = new Datatype[n];
        final int[] sBytes = new int[n];
        final int[] rBytes = new int[n];
        checkedDispls(sdispls, n, "sdispls");
        checkedDispls(rdispls, n, "rdispls");
        for (int i = 0; i < n; i++)
        {
            st[i] = stype;
            rt[i] = rtype;
        }
        MPI.checkDatatype(stype);
        MPI.checkDatatype(rtype);
        for (int i = 0; i < n; i++)
        {
            sBytes[i] = intBytes(at(stype, sdispls[i]));
            rBytes[i] = intBytes(at(rtype, rdispls[i]));
        }
        return allToAllw(comm, sendbuf, scounts, sBytes, st, recvbuf, rcounts, rBytes, rt, blocking);
    }

    /** MPI_ALLTOALLW: per-peer types, displacements in bytes. */
    static Request allToAllw(final Comm comm, final Object sendbuf, final int[] scounts, final int[] sdispls,
        final Datatype[] stypes, final Object recvbuf, final int[] rcounts, final int[] rdispls,
        final Datatype[] rtypes, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.allToAllw(comm, sendbuf, scounts, sdispls, stypes, recvbuf, rcounts, rdispls,
                rtypes, blocking);
        }
        checkIntra(comm, "allToAll");
        final int n = comm.getSize();
        final Blocks send = Blocks.bytes(sendbuf, scounts, sdispls, stypes, n, "send");
        final Blocks recv = Blocks.bytes(recvbuf, rcounts, rdispls, rtypes, n, "recv");
        final int me = comm.getRank();
        if (send.lengths[me] != recv.lengths[me])
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, "allToAll: " + send.lengths[me] + " bytes to self into a " +
                "block of " + recv.lengths[me]);
        }
        final byte[] in = send.packAll();
        final byte[] out = new byte[recv.total];
        final Members m = comm.coll().nextMembers();
        final Collective c = new Alltoallv(m, in, send.offsets, send.lengths, out, recv.offsets, recv.lengths).then(s ->
        {
            recv.unpackAll(out);
            return null;
        });
        return run(comm, m, c, "allToAll", blocking, sendbuf, recvbuf);
    }

    static Request reduce(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final int root, final boolean inPlace, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.reduce(comm, sendbuf, recvbuf, count, type, op, root, inPlace, blocking);
        }
        checkIntra(comm, "reduce");
        checkRoot(comm, root);
        final boolean isRoot = comm.getRank() == root;
        final Reducer r = reducer(op, type, isArray(isRoot ? recvbuf : sendbuf));
        final int sent = check(isRoot && inPlace ? recvbuf : sendbuf, 0, count, type);
        if (isRoot && !inPlace)
        {
            check(recvbuf, 0, count, type);
        }
        final ShmLargeCollectives large = blocking && type.size <= comm.coll().chunkBytes() ?
            comm.coll().shmLargeFor(CollectiveOp.REDUCE, sent) : null;
        if (large != null)
        {
            large.reduce(root, data(isRoot && inPlace ? recvbuf : sendbuf, 0, type), isRoot ? data(recvbuf, 0, type) :
                null, sent, type.size, r);
            return null;
        }
        final int bytes = sent;
        final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.REDUCE, bytes) :
            comm.coll().shmIfSetUp(CollectiveOp.REDUCE, bytes);
        if (shm != null && blocking)
        {
            // The steady state of a small blocking reduce: packed into the module's arrays, no allocation.
            final byte[] in = comm.coll().blockingIn(bytes);
            pack(isRoot && inPlace ? recvbuf : sendbuf, 0, type, in, 0, bytes);
            final byte[] result = isRoot ? comm.coll().blockingOut(bytes) : null;
            shm.reduce(root, in, bytes, count, r, result);
            if (isRoot)
            {
                unpack(result, 0, bytes, recvbuf, 0, type);
            }
            return null;
        }
        final byte[] data = packed(isRoot && inPlace ? recvbuf : sendbuf, 0, count, type);
        final byte[] out = isRoot ? new byte[bytes] : null;
        if (shm != null && !blocking)
        {
            return run(comm, comm.coll().nextMembers(), shm.reduceSteps(root, data, bytes, count, r, out).then(s ->
            {
                if (isRoot)
                {
                    unpack(out, 0, bytes, recvbuf, 0, type);
                }
                return null;
            }), "reduce", false, sendbuf, recvbuf);
        }
        final Members m = comm.coll().nextMembers();
        final Collective c = new Reduce(m, root, data, bytes, count, r, out, 0).then(s ->
        {
            if (isRoot)
            {
                unpack(out, 0, bytes, recvbuf, 0, type);
            }
            return null;
        });
        return run(comm, m, c, "reduce", blocking, sendbuf, recvbuf);
    }

    static Request allReduce(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final boolean inPlace, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.allReduce(comm, sendbuf, recvbuf, count, type, op, inPlace, blocking);
        }
        checkIntra(comm, "allReduce");
        final Reducer r = reducer(op, type, isArray(recvbuf));
        final int sent = check(inPlace ? recvbuf : sendbuf, 0, count, type);
        if (!inPlace)
        {
            check(recvbuf, 0, count, type);
        }
        final ShmLargeCollectives large = blocking && type.size <= comm.coll().chunkBytes() ?
            comm.coll().shmLargeFor(CollectiveOp.ALLREDUCE, sent) : null;
        if (large != null)
        {
            large.allreduce(data(inPlace ? recvbuf : sendbuf, 0, type), data(recvbuf, 0, type), sent, type.size, r);
            return null;
        }
        final int bytes = sent;
        final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.ALLREDUCE, bytes) :
            comm.coll().shmIfSetUp(CollectiveOp.ALLREDUCE, bytes);
        if (shm != null && blocking)
        {
            // The steady state of a small blocking allreduce: packed into the module's arrays, no allocation.
            final byte[] in = comm.coll().blockingIn(bytes);
            pack(inPlace ? recvbuf : sendbuf, 0, type, in, 0, bytes);
            final byte[] result = comm.coll().blockingOut(bytes);
            shm.allreduce(in, bytes, count, r, result);
            unpack(result, 0, bytes, recvbuf, 0, type);
            return null;
        }
        final byte[] data = packed(inPlace ? recvbuf : sendbuf, 0, count, type);
        final byte[] out = new byte[bytes];
        if (shm != null && !blocking)
        {
            return run(comm, comm.coll().nextMembers(), shm.allreduceSteps(data, bytes, count, r, out).then(s ->
            {
                unpack(out, 0, bytes, recvbuf, 0, type);
                return null;
            }), "allReduce", false, sendbuf, recvbuf);
        }
        final Members m = comm.coll().nextMembers();
        final Collective c = new Reduce(m, 0, data, bytes, count, r, out, 0)
            .then(new Bcast(m, 0, out, 0, bytes).then(s ->
        {
            unpack(out, 0, bytes, recvbuf, 0, type);
            return null;
        }));
        return run(comm, m, c, "allReduce", blocking, sendbuf, recvbuf);
    }

    static Request reduceScatter(final Comm comm, final Object sendbuf, final Object recvbuf, final int[] rcounts,
        final Datatype type, final Op op, final boolean inPlace, final boolean blocking)
    {
        if (comm.isInter())
        {
            return InterCollectives.reduceScatter(comm, sendbuf, recvbuf, rcounts, type, op, inPlace, blocking);
        }
        checkIntra(comm, "reduceScatter");
        final int n = comm.getSize();
        final int me = comm.getRank();
        checkedCounts(rcounts, n, "recvcounts");
        long items = 0;
        for (int i = 0; i < n; i++)
        {
            items += rcounts[i];
        }
        final int total = intBytes(items);
        final Reducer r = reducer(op, type, isArray(recvbuf));
        final byte[] data = packed(inPlace ? recvbuf : sendbuf, 0, total, type);
        final int[] lengths = new int[n];
        for (int i = 0; i < n; i++)
        {
            lengths[i] = intBytes((long)rcounts[i] * type.size);
        }
        final int[] offsets = prefix(lengths);
        if (!inPlace)
        {
            check(recvbuf, 0, rcounts[me], type);
        }
        if (blocking)
        {
            // Shared memory: an allreduce of which this member keeps its block (the same bits:
            // one reduction order).
            final ShmLargeCollectives large = type.size <= comm.coll().chunkBytes() ?
                comm.coll().shmLargeFor(CollectiveOp.REDUCESCATTER, data.length) : null;
            if (large != null)
            {
                large.reduceScatter(PackedData.of(data), data(recvbuf, 0, type), data.length, type.size, r, offsets[me],
                    lengths[me]);
                return null;
            }
            final ShmCollectives shm = comm.coll().shmFor(CollectiveOp.REDUCESCATTER, data.length);
            if (shm != null)
            {
                final byte[] out = new byte[data.length];
                shm.allreduce(data, data.length, total, r, out);
                unpack(out, offsets[me], lengths[me], recvbuf, 0, type);
                return null;
            }
        }
        final byte[] all = me == 0 ? new byte[data.length] : null;
        final byte[] mine = new byte[lengths[me]];
        final Members m = comm.coll().nextMembers();
        final Collective c = new Reduce(m, 0, data, data.length, total, r, all, 0)
            .then(new Scatterv(m, 0, all, offsets, lengths, mine, 0, mine.length).then(s ->
            {
                unpack(mine, 0, mine.length, recvbuf, 0, type);
                return null;
            }));
        return run(comm, m, c, "reduceScatter", blocking, sendbuf, recvbuf);
    }

    static Request reduceScatterBlock(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final boolean inPlace, final boolean blocking)
    {
        final int[] counts = new int[comm.getSize()];
        java.util.Arrays.fill(counts, count);
        if (count < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + count);
        }
        return reduceScatter(comm, sendbuf, recvbuf, counts, type, op, inPlace, blocking);
    }

    static Request scan(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final boolean exclusive, final boolean inPlace, final boolean blocking)
    {
        checkIntra(comm, exclusive ? "exScan" : "scan");
        final Reducer r = reducer(op, type, isArray(recvbuf));
        final byte[] data = packed(inPlace ? recvbuf : sendbuf, 0, count, type);
        final int bytes = data.length;
        check(recvbuf, 0, count, type);
        final byte[] out = new byte[bytes];
        final boolean writes = !exclusive || comm.getRank() > 0;
        final Members m = comm.coll().nextMembers();
        final Collective c = new Scan(m, exclusive, data, bytes, count, r, out, 0).then(s ->
        {
            if (writes)
            {
                unpack(out, 0, bytes, recvbuf, 0, type);
            }
            return null;
        });
        return run(comm, m, c, exclusive ? "exScan" : "scan", blocking, sendbuf, recvbuf);
    }

    // ------------------------------------------------------------------------------------------
    // Neighbourhood collectives

    /** {@code MPI_NEIGHBOR_ALLGATHER(V)}: the whole send buffer to every destination; block i from source i. */
    static Request neighborAllGatherv(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int[] rcounts, final int[] displs, final Datatype rtype, final boolean blocking)
    {
        comm.check();
        final int[][] nb = comm.neighbourhood();
        final int outs = nb[2].length;
        final int[] sc = new int[outs];
        final long[] sAt = new long[outs];
        final Datatype[] st = new Datatype[outs];
        java.util.Arrays.fill(sc, scount);
        java.util.Arrays.fill(st, stype);
        final int ins = nb[0].length;
        final int[] rc = rcounts == null ? null : checkedCounts(rcounts, ins, "recvcount");
        checkedDispls(displs, ins, "displs");
        final long[] rAt = new long[ins];
        final Datatype[] rt = new Datatype[ins];
        MPI.checkDatatype(rtype);
        for (int i = 0; i < ins; i++)
        {
            rAt[i] = at(rtype, displs[i]);
            rt[i] = rtype;
        }
        return neighbourExchange(comm, nb, sendbuf, sc, sAt, st, recvbuf, rc, rAt, rt, true, blocking);
    }

    static Request neighborAllGather(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final boolean blocking)
    {
        comm.check();
        final int ins = comm.neighbourhood()[0].length;
        final int[] counts = repeated(ins, rcount);
        final int[] displs = consecutive(ins, rcount);
        return neighborAllGatherv(comm, sendbuf, scount, stype, recvbuf, counts, displs, rtype, blocking);
    }

    static Request neighborAllToAllv(final Comm comm, final Object sendbuf, final int[] scounts, final int[] sdispls,
        final Datatype stype, final Object recvbuf, final int[] rcounts, final int[] rdispls, final Datatype rtype,
        final boolean blocking)
    {
        comm.check();
        final int[][] nb = comm.neighbourhood();
        MPI.checkDatatype(stype);
        MPI.checkDatatype(rtype);
        final int outs = nb[2].length;
        final int ins = nb[0].length;
        checkedDispls(sdispls, outs, "sdispls");
        checkedDispls(rdispls, ins, "rdispls");
        final int[] sBytes = new int[outs];
        final int[] rBytes = new int[ins];
        final Datatype[] st = new Datatype[outs];
        final Datatype[] rt = new Datatype[ins];
        for (int i = 0; i < outs; i++)
        {
            sBytes[i] = intBytes(at(stype, sdispls[i]));
            st[i] = stype;
        }
        for (int i = 0; i < ins; i++)
        {
            rBytes[i] = intBytes(at(rtype, rdispls[i]));
            rt[i] = rtype;
        }
        return neighborAllToAllw(comm, sendbuf, scounts, sBytes, st, recvbuf, rcounts, rBytes, rt, blocking);
    }

    static Request neighborAllToAll(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int rcount, final Datatype rtype, final boolean blocking)
    {
        comm.check();
        final int[][] nb = comm.neighbourhood();
        final int outs = nb[2].length;
        final int ins = nb[0].length;
        return neighborAllToAllv(comm, sendbuf, repeated(outs, scount), consecutive(outs, scount), stype, recvbuf,
            repeated(ins, rcount), consecutive(ins, rcount), rtype, blocking);
    }

    /** + {@code MPI_NEIGHBOR_ALLTOALLW}: a type per neighbour, displacements in bytes. */
    static Request neighborAllToAllw(final Comm comm, final Object sendbuf, final int[] scounts, final int[] sdispls,
        final Datatype[] stypes, final Object recvbuf, final int[] rcounts, final int[] rdispls,
        final Datatype[] rtypes, final boolean blocking)
    {
        comm.check();
        final int[][] nb = comm.neighbourhood();
        final int outs = nb[2].length;
        final int ins = nb[0].length;
        checkedCounts(scounts, outs, "sendcount");
        checkedCounts(rcounts, ins, "recvcount");
        checkedDispls(sdispls, outs, "sdispls");
        checkedDispls(rdispls, ins, "rdispls");
        if (stypes == null || stypes.length < outs || rtypes == null || rtypes.length < ins)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "neighborAllToAllw: a datatype per neighbour is needed");
        }
        final long[] sAt = new long[outs];
        final long[] rAt = new long[ins];
        for (int i = 0; i < outs; i++)
        {
            sAt[i] = sdispls[i];
        }
        for (int i = 0; i < ins; i++)
        {
            rAt[i] = rdispls[i];
        }
        return neighbourExchange(comm, nb, sendbuf, scounts, sAt, stypes, recvbuf, rcounts, rAt, rtypes, false,
            blocking);
    }

    private static Request neighbourExchange(final Comm comm, final int[][] nb, final Object sendbuf,
        final int[] scounts, final long[] sAt, final Datatype[] stypes, final Object recvbuf, final int[] rcounts,
        final long[] rAt, final Datatype[] rtypes, final boolean sameBlock, final boolean blocking)
    {
        final int outs = nb[2].length;
        final int ins = nb[0].length;
        final int[] sLengths = new int[outs];
        final int[] sOffsets;
        final byte[] in;
        if (sameBlock)
        {
            // allgather: one block, sent to every destination.
            final byte[] block = outs == 0 ? new byte[0] : packed(sendbuf, 0, scounts[0], stypes[0]);
            java.util.Arrays.fill(sLengths, block.length);
            sOffsets = new int[outs];
            in = block;
        }
        else
        {
            for (int i = 0; i < outs; i++)
            {
                sLengths[i] = check(sendbuf, sAt[i], scounts[i], stypes[i]);
            }
            sOffsets = prefix(sLengths);
            in = new byte[sum(sLengths)];
            for (int i = 0; i < outs; i++)
            {
                pack(sendbuf, sAt[i], stypes[i], in, sOffsets[i], sLengths[i]);
            }
        }
        final int[] rLengths = new int[ins];
        for (int i = 0; i < ins; i++)
        {
            rLengths[i] = check(recvbuf, rAt[i], rcounts[i], rtypes[i]);
        }
        final int[] rOffsets = prefix(rLengths);
        final byte[] out = new byte[sum(rLengths)];
        final int[] sources = nb[0].clone();
        for (int i = 0; i < ins; i++)
        {
            sources[i] = sources[i] == MPI.PROC_NULL ? -1 : sources[i];
        }
        final int[] destinations = nb[2].clone();
        for (int i = 0; i < outs; i++)
        {
            destinations[i] = destinations[i] == MPI.PROC_NULL ? -1 : destinations[i];
        }
        final Members m = comm.coll().nextMembers();
        final Collective c = new NeighborExchange(m, destinations, nb[3], in, sOffsets, sLengths, sources, nb[1], out,
            rOffsets, rLengths).then(s ->
            {
                for (int i = 0; i < ins; i++)
                {
                    if (sources[i] >= 0)
                    {
                        unpack(out, rOffsets[i], rLengths[i], recvbuf, rAt[i], rtypes[i]);
                    }
                }
                return null;
            });
        return run(comm, m, c, "neighbour exchange", blocking, sendbuf, recvbuf);
    }
}
