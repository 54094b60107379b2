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
        // The engines' own synchronisation: not the application's call, so not in the job report.
        Collectives.barrier(comm, org.shmpi.shm.BlockedCall.BARRIER);
    }

    @Override
    public long[] allgather(final long[] mine)
    {
        final long[] all = new long[mine.length * comm.members.length];
        try
        {
            Exchanges.allGather(comm, mine, mine.length, MPI.LONG, all, mine.length, MPI.LONG, false, true);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        return all;
    }

    @Override
    public boolean sharesMemory()
    {
        return comm.nodesSpanned() == null;
    }
}
