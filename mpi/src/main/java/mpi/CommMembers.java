package mpi;

import org.shmpi.io.FileMembers;
import org.shmpi.rma.WindowMembers;

/**
 * The collective steps a window or an open file needs, on the private communicator it was made
 * on: its members, its context for point-to-point traffic, its barrier and a gather of longs.
 */
final class CommMembers implements WindowMembers, FileMembers
{
    private final Intracomm comm;

    CommMembers(final Intracomm comm)
    {
        this.comm = comm;
    }

    @Override
    public int[] world()
    {
        return comm.members.clone();
    }

    @Override
    public int rank()
    {
        return comm.myRank;
    }

    @Override
    public int context()
    {
        // The private communicator's point-to-point context: nobody else sends on it.
        return comm.contextId;
    }

    @Override
    public void barrier()
    {
        comm.barrier();
    }

    @Override
    public long[] allgather(final long[] mine)
    {
        final long[] all = new long[mine.length * comm.members.length];
        comm.allGather(mine, mine.length, MPI.LONG, all, mine.length, MPI.LONG);
        return all;
    }

    @Override
    public boolean sharesMemory()
    {
        return comm.nodesSpanned() == null;
    }
}
