package mpi;

import org.shmpi.coll.Bcast;
import org.shmpi.coll.Collective;
import org.shmpi.coll.Members;
import org.shmpi.coll.NeighborExchange;
import org.shmpi.coll.Reduce;
import org.shmpi.coll.Reducer;
import org.shmpi.coll.Scatterv;
import org.shmpi.shm.ErrorClass;

/**
 * The collectives on an inter-communicator, as MPI defines them: the data moves between the
 * two groups. With a root, the root passes {@code MPI.ROOT}, the rest of its group
 * {@code MPI.PROC_NULL} (they take no part), and the other group the root's rank in the root's
 * group; the root's side sends or receives, the other side does the rest. All-to-all shapes
 * deliver to each group what the other group contributed. No in-place forms (MPI has none here).
 *
 * <p>Built from the same algorithms as the intra-communicator collectives: messages inside a
 * group go to its members ({@code local}), messages between the groups to the remote group's
 * ({@code remote}); both share the operation's tag, which cannot confuse them because the two
 * groups have no process in common.
 */
final class InterCollectives
{
    private InterCollectives()
    {
    }

    /** {local group, remote group} for the next collective operation, one tag. */
    private static Members[] members(final Comm comm)
    {
        final Members local = comm.coll().nextMembers();
        final Members remote = new Members(local.rankContext(), comm.peers, -1, comm.collContextId, local.tag());
        return new Members[] {local, remote};
    }

    private static void noInPlace(final boolean inPlace, final String call)
    {
        if (inPlace)
        {
            throw new MPIException(ErrorClass.ERR_ARG, call + ": no in-place form on an inter-communicator");
        }
    }

    /**
     * What this process is in a rooted operation: the root, another process of the root's group, or the other group.
     */
    private static int role(final Comm comm, final int root)
    {
        if (root == MPI.ROOT || root == MPI.PROC_NULL)
        {
            return root;
        }
        if (root < 0 || root >= comm.peers.length)
        {
            throw new MPIException(ErrorClass.ERR_ROOT, "invalid root on an inter-communicator: root=" + root +
                " (MPI.ROOT, MPI.PROC_NULL or a rank of the remote group of " + comm.peers.length + ")");
        }
        return 0;
    }

    private static Request none(final Comm comm, final boolean blocking)
    {
        return blocking ? null : Request.completed(comm, Status.empty());
    }

    /**
     * One exchange: send {@code out} to remote ranks {@code to}, receive {@code from} remote ranks into blocks of
     * {@code in}.
     */
    private static Collective exchange(final Members remote, final int[] to, final byte[] out, final int[] outOffsets,
        final int[] outLengths, final int[] from, final byte[] in, final int[] inOffsets, final int[] inLengths)
    {
        return new NeighborExchange(remote, to, new int[to.length], out, outOffsets, outLengths, from,
            new int[from.length], in, inOffsets, inLengths);
    }

    private static int[] ranks(final int n)
    {
        final int[] r = new int[n];
        for (int i = 0; i < n; i++)
        {
            r[i] = i;
        }
        return r;
    }

    static Request bcast(final Comm comm, final Object buf, final int count, final Datatype type, final int root,
        final boolean blocking)
    {
        final int role = role(comm, root);
        // Every process of both groups counts the operation, those that take no part too.
        final Members[] m = members(comm);
        if (role == MPI.PROC_NULL)
        {
            return none(comm, blocking);
        }
        final int bytes = Collectives.check(buf, 0, count, type);
        if (role == MPI.ROOT)
        {
            final byte[] data = Collectives.packed(buf, 0, count, type);
            final Collective c = exchange(m[1], new int[] {0}, data, new int[1], new int[] {bytes}, new int[0], null,
                new int[0], new int[0]);
            return Collectives.run(comm, m[0], c, "bcast", blocking, buf);
        }
        // The other group: its rank 0 takes the data from the root, then passes it on inside the group.
        final byte[] data = new byte[bytes];
        final boolean first = comm.getRank() == 0;
        final Collective c = exchange(m[1], new int[0], null, new int[0], new int[0], first ? new int[] {root} :
            new int[0], data, new int[1], new int[] {bytes}).then(new Bcast(m[0], 0, data, 0, bytes).then(s ->
            {
                Collectives.unpack(data, 0, bytes, buf, 0, type);
                return null;
            }));
        return Collectives.run(comm, m[0], c, "bcast", blocking, buf);
    }

    /** Gather(v): every process of the other group sends straight to the root, which knows every count. */
    static Request gatherv(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int[] rcounts, final int[] displs, final Datatype rtype, final int root,
        final boolean inPlace, final boolean blocking)
    {
        noInPlace(inPlace, "gather");
        final int role = role(comm, root);
        final Members[] m = members(comm);
        if (role == MPI.PROC_NULL)
        {
            return none(comm, blocking);
        }
        if (role == MPI.ROOT)
        {
            final int n = comm.peers.length;
            final Blocks blocks = Blocks.items(recvbuf, rcounts, displs, rtype, n, "recv");
            final byte[] all = new byte[blocks.total];
            final Collective c = exchange(m[1], new int[0], null, new int[0], new int[0], ranks(n), all, blocks.offsets,
                blocks.lengths).then(s ->
                {
                    blocks.unpackAll(all);
                    return null;
                });
            return Collectives.run(comm, m[0], c, "gather", blocking, recvbuf);
        }
        final byte[] mine = Collectives.packed(sendbuf, 0, scount, stype);
        final Collective c = exchange(m[1], new int[] {root}, mine, new int[1], new int[] {mine.length}, new int[0],
            null, new int[0], new int[0]);
        return Collectives.run(comm, m[0], c, "gather", blocking, sendbuf);
    }

    /** Scatter(v): the root sends each process of the other group its block straight. */
    static Request scatterv(final Comm comm, final Object sendbuf, final int[] scounts, final int[] displs,
        final Datatype stype, final Object recvbuf, final int rcount, final Datatype rtype, final int root,
        final boolean inPlace, final boolean blocking)
    {
        noInPlace(inPlace, "scatter");
        final int role = role(comm, root);
        final Members[] m = members(comm);
        if (role == MPI.PROC_NULL)
        {
            return none(comm, blocking);
        }
        if (role == MPI.ROOT)
        {
            final int n = comm.peers.length;
            final Blocks blocks = Blocks.items(sendbuf, scounts, displs, stype, n, "send");
            final Collective c = exchange(m[1], ranks(n), blocks.packAll(), blocks.offsets, blocks.lengths, new int[0],
                null, new int[0], new int[0]);
            return Collectives.run(comm, m[0], c, "scatter", blocking, sendbuf);
        }
        final int bytes = Collectives.check(recvbuf, 0, rcount, rtype);
        final byte[] mine = new byte[bytes];
        final Collective c = exchange(m[1], new int[0], null, new int[0], new int[0], new int[] {root}, mine,
            new int[1], new int[] {bytes}).then(s ->
            {
                Collectives.unpack(mine, 0, bytes, recvbuf, 0, rtype);
                return null;
            });
        return Collectives.run(comm, m[0], c, "scatter", blocking, recvbuf);
    }

    /** Allgather(v): each process sends its block to every process of the other group and receives theirs. */
    static Request allGatherv(final Comm comm, final Object sendbuf, final int scount, final Datatype stype,
        final Object recvbuf, final int[] rcounts, final int[] displs, final Datatype rtype, final boolean inPlace,
        final boolean blocking)
    {
        noInPlace(inPlace, "allGather");
        final int n = comm.peers.length;
        final Blocks blocks = Blocks.items(recvbuf, rcounts, displs, rtype, n, "recv");
        final byte[] mine = Collectives.packed(sendbuf, 0, scount, stype);
        final byte[] all = new byte[blocks.total];
        final int[] mineLengths = new int[n];
        java.util.Arrays.fill(mineLengths, mine.length);
        final Members[] m = members(comm);
        final Collective c = exchange(m[1], ranks(n), mine, new int[n], mineLengths, ranks(n), all, blocks.offsets,
            blocks.lengths).then(s ->
            {
                blocks.unpackAll(all);
                return null;
            });
        return Collectives.run(comm, m[0], c, "allGather", blocking, sendbuf, recvbuf);
    }

    /** Alltoall(v, w): block r of the send buffer to remote rank r, block r of the receive buffer from it. */
    static Request allToAllw(final Comm comm, final Object sendbuf, final int[] scounts, final int[] sdispls,
        final Datatype[] stypes, final Object recvbuf, final int[] rcounts, final int[] rdispls,
        final Datatype[] rtypes, final boolean blocking)
    {
        final int n = comm.peers.length;
        final Blocks send = Blocks.bytes(sendbuf, scounts, sdispls, stypes, n, "send");
        final Blocks recv = Blocks.bytes(recvbuf, rcounts, rdispls, rtypes, n, "recv");
        final byte[] out = new byte[recv.total];
        final Members[] m = members(comm);
        final Collective c = exchange(m[1], ranks(n), send.packAll(), send.offsets, send.lengths, ranks(n), out,
            recv.offsets, recv.lengths).then(s ->
            {
                recv.unpackAll(out);
                return null;
            });
        return Collectives.run(comm, m[0], c, "allToAll", blocking, sendbuf, recvbuf);
    }

    /** Reduce: the other group reduces inside itself to its rank 0, which sends the result to the root. */
    static Request reduce(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final int root, final boolean inPlace, final boolean blocking)
    {
        noInPlace(inPlace, "reduce");
        final int role = role(comm, root);
        final Members[] m = members(comm);
        if (role == MPI.PROC_NULL)
        {
            return none(comm, blocking);
        }
        if (role == MPI.ROOT)
        {
            OpReducers.reducer(op, type, OpReducers.isArray(recvbuf));
            final int bytes = Collectives.check(recvbuf, 0, count, type);
            final byte[] out = new byte[bytes];
            final Collective c = exchange(m[1], new int[0], null, new int[0], new int[0], new int[] {0}, out,
                new int[1], new int[] {bytes}).then(s ->
                {
                    Collectives.unpack(out, 0, bytes, recvbuf, 0, type);
                    return null;
                });
            return Collectives.run(comm, m[0], c, "reduce", blocking, recvbuf);
        }
        final Reducer r = OpReducers.reducer(op, type, OpReducers.isArray(sendbuf));
        final byte[] data = Collectives.packed(sendbuf, 0, count, type);
        final byte[] result = new byte[data.length];
        final boolean first = comm.getRank() == 0;
        final Collective c = new Reduce(m[0], 0, data, data.length, count, r, result, 0).then(
            exchange(m[1], first ? new int[] {root} : new int[0], result, new int[1], new int[] {result.length},
                new int[0], null, new int[0], new int[0]));
        return Collectives.run(comm, m[0], c, "reduce", blocking, sendbuf);
    }

    /**
     * Allreduce: each group reduces inside itself to its rank 0; the two rank 0s swap results
     * and pass the other group's on inside their own group.
     */
    static Request allReduce(final Comm comm, final Object sendbuf, final Object recvbuf, final int count,
        final Datatype type, final Op op, final boolean inPlace, final boolean blocking)
    {
        noInPlace(inPlace, "allReduce");
        final Reducer r = OpReducers.reducer(op, type, OpReducers.isArray(recvbuf));
        final byte[] data = Collectives.packed(sendbuf, 0, count, type);
        final int bytes = data.length;
        Collectives.check(recvbuf, 0, count, type);
        final byte[] ours = new byte[bytes];
        final byte[] theirs = new byte[bytes];
        final int[] peer = comm.getRank() == 0 ? new int[] {0} : new int[0];
        final Members[] m = members(comm);
        final Collective c = new Reduce(m[0], 0, data, bytes, count, r, ours, 0)
            .then(exchange(m[1], peer, ours, new int[1], new int[] {bytes}, peer, theirs, new int[1], new int[] {bytes})
                .then(new Bcast(m[0], 0, theirs, 0, bytes).then(s ->
                {
                    Collectives.unpack(theirs, 0, bytes, recvbuf, 0, type);
                    return null;
                })));
        return Collectives.run(comm, m[0], c, "allReduce", blocking, sendbuf, recvbuf);
    }

    /**
     * Reduce-scatter: each group reduces its whole vector to its rank 0 and sends it to the other
     * group's rank 0, which scatters it inside its group by its counts.
     */
    static Request reduceScatter(final Comm comm, final Object sendbuf, final Object recvbuf, final int[] rcounts,
        final Datatype type, final Op op, final boolean inPlace, final boolean blocking)
    {
        noInPlace(inPlace, "reduceScatter");
        final int n = comm.getSize();
        final int me = comm.getRank();
        Collectives.checkedCounts(rcounts, n, "recvcounts");
        final Reducer r = OpReducers.reducer(op, type, OpReducers.isArray(recvbuf));
        final int[] lengths = new int[n];
        for (int i = 0; i < n; i++)
        {
            lengths[i] = Collectives.intBytes((long)rcounts[i] * type.size);
        }
        final int[] offsets = Collectives.prefix(lengths);
        final int total = Collectives.sum(lengths);
        final int items = type.size == 0 ? 0 : total / type.size;
        final byte[] data = Collectives.packed(sendbuf, 0, items, type);
        Collectives.check(recvbuf, 0, rcounts[me], type);
        final byte[] ours = new byte[total];
        final byte[] theirs = new byte[total];
        final byte[] mine = new byte[lengths[me]];
        final int[] peer = me == 0 ? new int[] {0} : new int[0];
        final Members[] m = members(comm);
        final Collective c = new Reduce(m[0], 0, data, total, items, r, ours, 0)
            .then(exchange(m[1], peer, ours, new int[1], new int[] {total}, peer, theirs, new int[1], new int[] {total})
                .then(new Scatterv(m[0], 0, theirs, offsets, lengths, mine, 0, mine.length).then(s ->
                {
                    Collectives.unpack(mine, 0, mine.length, recvbuf, 0, type);
                    return null;
                })));
        return Collectives.run(comm, m[0], c, "reduceScatter", blocking, sendbuf, recvbuf);
    }
}
