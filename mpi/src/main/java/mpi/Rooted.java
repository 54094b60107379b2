package mpi;

import static mpi.Collectives.*;

import org.shmpi.report.Algorithm;
import org.shmpi.coll.Bcast;
import org.shmpi.coll.Collective;
import org.shmpi.coll.CollectiveOp;
import org.shmpi.coll.Gatherv;
import org.shmpi.coll.Members;
import org.shmpi.coll.ShmCollectives;
import org.shmpi.coll.ShmLargeCollectives;
import org.shmpi.coll.Scatterv;
import org.shmpi.shm.ErrorClass;

/**
 * The rooted data movements of an intra-communicator: bcast, gather(v) and scatter(v).
 * Arguments, packing and the running of schedules are {@link Collectives}'.
 */
final class Rooted
{
    private Rooted()
    {
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
        if (blocking && comm.nodeAware())
        {
            Profile.algorithm(Algorithm.HIERARCHICAL);
            NodeLevels.of(comm).bcast(buf, count, type, root, comm.getRank());
            return null;
        }
        final boolean isRoot = comm.getRank() == root;
        final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.BCAST, bytes) : null;
        if (large != null)
        {
            Profile.algorithm(Algorithm.PIPELINED);
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
                Profile.algorithm(Algorithm.FLAT);
                return run(comm, comm.coll().nextMembers(), shm.bcastSteps(root, data, bytes).then(s ->
                {
                    if (!isRoot)
                    {
                        unpack(data, 0, bytes, buf, 0, type);
                    }
                    return null;
                }), "bcast", false, buf);
            }
            Profile.algorithm(Algorithm.FLAT);
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
            if (blocking && comm.nodeAware())
            {
                if (isRoot && check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                final byte[] mine = new byte[sent];
                if (isRoot && inPlace)
                {
                    pack(recvbuf, at(rtype, (long)me * rcount), rtype, mine, 0, sent);
                }
                else
                {
                    pack(sendbuf, 0, stype, mine, 0, sent);
                }
                Profile.algorithm(Algorithm.HIERARCHICAL);
                final byte[] all = NodeLevels.of(comm).gatherPacked(mine, sent, me, n, root);
                if (isRoot)
                {
                    unpack(all, 0, n * sent, recvbuf, 0, rtype);
                }
                return null;
            }
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.GATHER, sent) : null;
            if (large != null)
            {
                if (isRoot && check(recvbuf, 0, n * rcount, rtype) != (long)n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                Profile.algorithm(Algorithm.PIPELINED);
                large.gather(root, isRoot && inPlace ? null : data(sendbuf, 0, stype),
                    isRoot ? data(recvbuf, 0, rtype) : null, sent);
                return null;
            }
            final ShmCollectives shm = blocking ? comm.coll().shmFor(CollectiveOp.GATHER, sent) :
                comm.coll().shmIfSetUp(CollectiveOp.GATHER, sent);
            if (shm != null)
            {
                if (isRoot && check(recvbuf, 0, n * rcount, rtype) != n * sent)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "gather: blocks of " + sent +
                        " bytes for receive blocks of " + rcount + " items of " + rtype.getName());
                }
                // Blocking: the communicator's reused arrays; nonblocking: the operation's own.
                final byte[] mine = blocking ? comm.coll().blockingIn(sent) : new byte[sent];
                if (isRoot && inPlace)
                {
                    pack(recvbuf, at(rtype, (long)me * rcount), rtype, mine, 0, sent);
                }
                else
                {
                    pack(sendbuf, 0, stype, mine, 0, sent);
                }
                final byte[] all = !isRoot ? null : blocking ? comm.coll().blockingOut(n * sent) : new byte[n * sent];
                if (!blocking)
                {
                    Profile.algorithm(Algorithm.FLAT);
                    return run(comm, comm.coll().nextMembers(), shm.gatherSteps(root, mine, sent, all).then(s ->
                    {
                        if (isRoot)
                        {
                            unpack(all, 0, all.length, recvbuf, 0, rtype);
                        }
                        return null;
                    }), "gather", false, sendbuf, recvbuf);
                }
                Profile.algorithm(Algorithm.FLAT);
                shm.gather(root, mine, sent, all);
                if (isRoot)
                {
                    unpack(all, 0, n * sent, recvbuf, 0, rtype);
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
            if (blocking && comm.nodeAware())
            {
                if (isRoot && !inPlace && check(recvbuf, 0, rcount, rtype) != block)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "scatter: blocks of " + block +
                        " bytes for a receive buffer of " + rcount + " items of " + rtype.getName());
                }
                final byte[] all = isRoot ? packed(sendbuf, 0, n * scount, stype) : null;
                Profile.algorithm(Algorithm.HIERARCHICAL);
                final byte[] mine = NodeLevels.of(comm).scatterPacked(all, block, me, n, root);
                if (!(isRoot && inPlace))
                {
                    unpack(mine, 0, block, recvbuf, 0, rtype);
                }
                return null;
            }
            final ShmLargeCollectives large = blocking ? comm.coll().shmLargeFor(CollectiveOp.SCATTER,
                (long)n * block) : null;
            if (large != null)
            {
                if (isRoot && !inPlace && check(recvbuf, 0, rcount, rtype) != block)
                {
                    throw new MPIException(ErrorClass.ERR_TRUNCATE, "scatter: blocks of " + block +
                        " bytes for a receive buffer of " + rcount + " items of " + rtype.getName());
                }
                Profile.algorithm(Algorithm.PIPELINED);
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
                // Blocking: the communicator's reused arrays; nonblocking: the operation's own.
                final byte[] all = !isRoot ? null : blocking ? comm.coll().blockingIn(n * block) : new byte[n * block];
                if (isRoot)
                {
                    pack(sendbuf, 0, stype, all, 0, n * block);
                }
                final byte[] mine = blocking ? comm.coll().blockingOut(block) : new byte[block];
                if (!blocking)
                {
                    Profile.algorithm(Algorithm.FLAT);
                    return run(comm, comm.coll().nextMembers(), shm.scatterSteps(root, all, block, mine).then(s ->
                    {
                        if (!(isRoot && inPlace))
                        {
                            unpack(mine, 0, block, recvbuf, 0, rtype);
                        }
                        return null;
                    }), "scatter", false, sendbuf, recvbuf);
                }
                Profile.algorithm(Algorithm.FLAT);
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
}
