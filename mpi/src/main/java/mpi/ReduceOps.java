package mpi;

import static mpi.Collectives.*;
import static mpi.OpReducers.*;

import org.shmpi.report.Algorithm;
import org.shmpi.coll.Bcast;
import org.shmpi.coll.Collective;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.Members;
import org.shmpi.coll.PackedData;
import org.shmpi.coll.Reduce;
import org.shmpi.coll.Reducer;
import org.shmpi.coll.Scan;
import org.shmpi.coll.ShmCollectives;
import org.shmpi.coll.ShmLargeCollectives;
import org.shmpi.coll.Scatterv;
import org.shmpi.shm.ErrorClass;

/**
 * The reducing collectives of an intra-communicator: reduce, allReduce, reduceScatter(Block), scan and
 * exScan. Each takes the shared-memory engine the communicator's module chose for its size, else the
 * point-to-point schedule.
 * Arguments, packing and the running of schedules are {@link Collectives}'.
 */
final class ReduceOps
{
    private ReduceOps()
    {
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
        if (blocking && op.isCommutative() && comm.nodeAware())
        {
            final byte[] data = packed(isRoot && inPlace ? recvbuf : sendbuf, 0, count, type);
            Profile.algorithm(Algorithm.HIERARCHICAL);
            final byte[] result = NodeLevels.of(comm).reducePacked(data, sent, count, r, comm.getRank(), root);
            if (isRoot)
            {
                unpack(result, 0, sent, recvbuf, 0, type);
            }
            return null;
        }
        final ShmLargeCollectives large = blocking && type.size <= comm.coll().chunkBytes() ?
            comm.coll().shmLargeFor(CollectiveOp.REDUCE, sent) : null;
        if (large != null)
        {
            Profile.algorithm(Algorithm.PIPELINED);
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
            Profile.algorithm(Algorithm.FLAT);
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
            Profile.algorithm(Algorithm.FLAT);
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
        if (blocking && op.isCommutative() && comm.nodeAware())
        {
            Profile.algorithm(Algorithm.HIERARCHICAL);
            NodeLevels.of(comm).allReduce(sendbuf, recvbuf, count, type, op, inPlace);
            return null;
        }
        final ShmLargeCollectives large = blocking && type.size <= comm.coll().chunkBytes() ?
            comm.coll().shmLargeFor(CollectiveOp.ALLREDUCE, sent) : null;
        if (large != null)
        {
            Profile.algorithm(Algorithm.PIPELINED);
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
            Profile.algorithm(Algorithm.FLAT);
            shm.allreduce(in, bytes, count, r, result);
            unpack(result, 0, bytes, recvbuf, 0, type);
            return null;
        }
        final byte[] data = packed(inPlace ? recvbuf : sendbuf, 0, count, type);
        final byte[] out = new byte[bytes];
        if (shm != null && !blocking)
        {
            Profile.algorithm(Algorithm.FLAT);
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
                Profile.algorithm(Algorithm.PIPELINED);
                large.reduceScatter(PackedData.of(data), data(recvbuf, 0, type), data.length, type.size, r, offsets[me],
                    lengths[me]);
                return null;
            }
            final ShmCollectives shm = comm.coll().shmFor(CollectiveOp.REDUCESCATTER, data.length);
            if (shm != null)
            {
                final byte[] out = new byte[data.length];
                Profile.algorithm(Algorithm.FLAT);
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
}
