package org.shmpi.bench;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * One-way latency by ping-pong between ranks 0 and 1, as {@code osu_latency}: for each size,
 * rank 0 sends and waits for the same size back; latency is half the mean round trip, in µs.
 * Written against package {@code mpi} only.
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.OsuLatency [-m [MIN:]MAX] [-i N] [-x N]
 *     [-j N] [-J S] [-b array|buffer|direct]</pre>
 */
public final class OsuLatency
{
    private static final String PROGRAM = "OsuLatency";
    private static final int TAG = 1;

    private OsuLatency()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final OsuOptions o = MpiBench.options(args, OsuOptions.Kind.LATENCY, PROGRAM, rank);
        if (o != null && MpiBench.requireTwoRanks(comm.getSize(), rank, PROGRAM))
        {
            run(comm, rank, o);
        }
        MpiBench.finish();
    }

    private static void run(final Comm comm, final int rank, final OsuOptions o) throws MPIException
    {
        final Object sbuf = MpiBench.buffer(o, o.bufferBytes(), (byte)'a');
        final Object rbuf = MpiBench.buffer(o, o.bufferBytes(), (byte)'b');
        if (rank == 0)
        {
            OsuReport.header("# OSU MPI-style Latency Test (shmpi-bench " + PROGRAM +
                ", blocking send/recv ping-pong)", o, OsuReport.javaVersion());
        }
        comm.barrier();
        MpiBench.jitWarmup(comm, rank, o, () -> pingPong(comm, rank, sbuf, rbuf, o.preludeSize(), 0, o.jitChunk()));
        for (final int size : o.sizes())
        {
            comm.barrier();
            final double seconds = pingPong(comm, rank, sbuf, rbuf, size, o.warmup(size), o.iterations(size));
            if (rank == 0)
            {
                OsuReport.row(size, seconds * 1e6 / (2.0 * o.iterations(size)));
            }
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed round trips; returns the timed seconds. */
    private static double pingPong(final Comm comm, final int rank, final Object sbuf, final Object rbuf,
        final int size, final int warmup, final int iterations) throws MPIException
    {
        double start = MPI.wtime();
        final int total = warmup + iterations;
        if (rank == 0)
        {
            for (int i = 0; i < total; i++)
            {
                if (i == warmup)
                {
                    start = MPI.wtime();
                }
                comm.send(sbuf, size, MPI.BYTE, 1, TAG);
                comm.recv(rbuf, size, MPI.BYTE, 1, TAG);
            }
        }
        else
        {
            for (int i = 0; i < total; i++)
            {
                if (i == warmup)
                {
                    start = MPI.wtime();
                }
                comm.recv(rbuf, size, MPI.BYTE, 0, TAG);
                comm.send(sbuf, size, MPI.BYTE, 0, TAG);
            }
        }
        return MPI.wtime() - start;
    }
}
