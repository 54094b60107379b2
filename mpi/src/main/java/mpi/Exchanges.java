package mpi;

import static mpi.Collectives.*;

import org.shmpi.report.Algorithm;
import org.shmpi.coll.Allgatherv;
import org.shmpi.coll.Alltoallv;
import org.shmpi.coll.Collective;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.Members;
import org.shmpi.coll.ShmCollectives;
import org.shmpi.coll.ShmLargeCollectives;
import org.shmpi.shm.ErrorClass;

/**
 * The all-to-all data movements of an intra-communicator: allGather(v) and allToAll(v, w).
 * Arguments, packing and the running of schedules are {@link Collectives}'.
 */
final class Exchanges
{
    private Exchanges()
    {
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
            if (blocking && comm.nodeAware())
            {
                if (check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                final byte[] mine = new byte[sent];
                if (inPlace)
                {
                    pack(recvbuf, at(rtype, (long)me * rcount), rtype, mine, 0, sent);
                }
                else
                {
                    pack(sendbuf, 0, stype, mine, 0, sent);
                }
                Profile.algorithm(Algorithm.HIERARCHICAL);
                final byte[] all = NodeLevels.of(comm).gatherPacked(mine, sent, me, n, -1);
                unpack(all, 0, n * sent, recvbuf, 0, rtype);
                return null;
            }
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.ALLGATHER, sent) : null;
            if (large != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                Profile.algorithm(Algorithm.PIPELINED);
                large.allgather(inPlace ? null : data(sendbuf, 0, stype), data(recvbuf, 0, rtype), sent);
                return null;
            }
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.ALLGATHER, sent) :
                comm.coll().shmIfSetUp(CollectiveOp.ALLGATHER, sent);
            if (shm != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allGather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                // Blocking: the communicator's reused arrays (a fresh array per call costs its first
                // touch of new heap pages in a young JVM); nonblocking: arrays of the operation's own.
                final byte[] mine = blocking ? comm.coll().blockingIn(sent) : new byte[sent];
                if (inPlace)
                {
                    pack(recvbuf, at(rtype, (long)me * rcount), rtype, mine, 0, sent);
                }
                else
                {
                    pack(sendbuf, 0, stype, mine, 0, sent);
                }
                final byte[] all = blocking ? comm.coll().blockingOut(n * sent) : new byte[n * sent];
                if (!blocking)
                {
                    Profile.algorithm(Algorithm.FLAT);
                    return run(comm, comm.coll().nextMembers(), shm.allgatherSteps(mine, sent, all).then(s ->
                    {
                        unpack(all, 0, all.length, recvbuf, 0, rtype);
                        return null;
                    }), "allGather", false, sendbuf, recvbuf);
                }
                Profile.algorithm(Algorithm.FLAT);
                shm.allgather(mine, sent, all);
                unpack(all, 0, n * sent, recvbuf, 0, rtype);
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
            if (blocking && comm.nodeAware())
            {
                if (check(recvbuf, 0, n * rcount, rtype) != sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allToAll: " + sent / Math.max(1, n) +
                        " bytes per block sent, receive blocks of " + rcount + " items of " + rtype.getName());
                }
                Profile.algorithm(Algorithm.HIERARCHICAL);
                final byte[] result = NodeLevels.of(comm).allToAllPacked(packed(sendbuf, 0, n * scount, stype),
                    sent / n, comm.getRank(), n);
                unpack(result, 0, sent, recvbuf, 0, rtype);
                return null;
            }
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.ALLTOALL, sent) : null;
            if (large != null)
            {
                if (check(recvbuf, 0, n * rcount, rtype) != sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "allToAll: " + sent / Math.max(1, n) +
                        " bytes per block sent, receive blocks of " + rcount + " items of " + rtype.getName());
                }
                Profile.algorithm(Algorithm.PIPELINED);
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
                if (!blocking)
                {
                    final byte[] out = new byte[sent];
                    Profile.algorithm(Algorithm.FLAT);
                    return run(comm, comm.coll().nextMembers(), shm.alltoallSteps(packed(sendbuf, 0, n * scount, stype),
                        sent / n, out).then(s ->
                        {
                            unpack(out, 0, sent, recvbuf, 0, rtype);
                            return null;
                        }), "allToAll", false, sendbuf, recvbuf);
                }
                final byte[] in = comm.coll().blockingIn(sent);
                pack(sendbuf, 0, stype, in, 0, sent);
                final byte[] out = comm.coll().blockingOut(sent);
                Profile.algorithm(Algorithm.FLAT);
                shm.alltoall(in, sent / n, out);
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
}
