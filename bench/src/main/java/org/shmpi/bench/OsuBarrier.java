package org.shmpi.bench;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Barrier latency, after {@code osu_barrier}: {@code -x} untimed then {@code -i} timed
 * {@code comm.barrier()} calls on all ranks; reported is the mean µs per barrier of every rank,
 * averaged over the ranks (sent to rank 0 with point-to-point messages). The row's first column
 * is the number of ranks (a barrier has no message size); {@code -m} is accepted and ignored.
 *
 * <pre>shmrun -np 4 -cp shmpi-bench.jar org.shmpi.bench.OsuBarrier [-i N] [-x N] [-j N] [-J S]</pre>
 */
public final class OsuBarrier
{
    private static final String PROGRAM = "OsuBarrier";
    private static final int TIME_TAG = 108;
    static final String COLUMNS = "# Ranks         Latency (us)";

    private OsuBarrier()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final OsuOptions o = MpiBench.options(args, OsuOptions.Kind.BARRIER, PROGRAM, rank);
        if (o != null)
        {
            run(comm, rank, o);
        }
        MpiBench.finish();
    }

    private static void run(final Comm comm, final int rank, final OsuOptions o) throws MPIException
    {
        final int ranks = comm.getSize();
        if (rank == 0)
        {
            OsuReport.headerWithColumns("# OSU MPI-style Barrier Latency Test (shmpi-bench " + PROGRAM + ", " +
                ranks + " ranks)", o, COLUMNS,
                "Mean time per barrier of every rank, averaged over the ranks",
                OsuReport.javaVersion());
        }
        comm.barrier();
        if (ranks > 1)
        {
            MpiBench.jitWarmup(comm, rank, o, () -> barriers(comm, 0, o.jitChunk()));
        }
        comm.barrier();
        final int iterations = o.iterations(0);
        final double seconds = barriers(comm, o.warmup(0), iterations);
        final double[] all = MpiBench.gatherToZero(comm, rank, seconds * 1e6 / iterations, TIME_TAG);
        if (rank == 0)
        {
            double sum = 0;
            for (final double v : all)
            {
                sum += v;
            }
            OsuReport.row(ranks, sum / ranks);
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed barriers; returns the timed seconds. */
    private static double barriers(final Comm comm, final int warmup, final int iterations) throws MPIException
    {
        for (int i = 0; i < warmup; i++)
        {
            comm.barrier();
        }
        final double start = MPI.wtime();
        for (int i = 0; i < iterations; i++)
        {
            comm.barrier();
        }
        return MPI.wtime() - start;
    }
}
