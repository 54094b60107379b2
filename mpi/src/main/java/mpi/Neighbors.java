package mpi;

import static mpi.Collectives.*;

import org.shmpi.coll.Collective;
import org.shmpi.coll.Members;
import org.shmpi.coll.NeighborExchange;
import org.shmpi.shm.ErrorClass;

/**
 * The neighbourhood collectives of a communicator with a Cartesian or graph topology: each member
 * exchanges with its in- and out-neighbours only, on the point-to-point schedules.
 * Arguments, packing and the running of schedules are {@link Collectives}'.
 */
final class Neighbors
{
    private Neighbors()
    {
    }

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
