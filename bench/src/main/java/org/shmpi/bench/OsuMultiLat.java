package org.shmpi.bench;

import java.util.Locale;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Multi-pair latency, after {@code osu_multi_lat}: with N ranks, rank {@code i < N/2} ping-pongs
 * with rank {@code i + N/2}, all pairs at once (blocking send/recv); reported is the one-way
 * latency (half the mean round trip) averaged over the pairs, in µs. Each pair's figure is sent
 * to rank 0 with point-to-point messages (no collectives needed).
 *
 * <pre>shmrun -np 4 -cp shmpi-bench.jar org.shmpi.bench.OsuMultiLat [-m [MIN:]MAX] [-i N] [-x N]
 *     [-j N] [-J S] [-b array|buffer|direct]</pre>
 */
public final class OsuMultiLat
{
    private static final String PROGRAM = "OsuMultiLat";
    private static final int TAG = 106;
    private static final int TIME_TAG = 107;

    private OsuMultiLat()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final OsuOptions o = MpiBench.options(args, OsuOptions.Kind.LATENCY, PROGRAM, rank);
        if (o != null && MpiBench.requireEvenRanks(comm.getSize(), rank, PROGRAM))
        {
            run(comm, rank, o);
        }
        MpiBench.finish();
    }

    private static void run(final Comm comm, final int rank, final OsuOptions o) throws MPIException
    {
        final int pairs = comm.getSize() / 2;
        final boolean first = rank < pairs;
        final int peer = first ? rank + pairs : rank - pairs;
        final Object sbuf = MpiBench.buffer(o, o.bufferBytes(), (byte)'a');
        final Object rbuf = MpiBench.buffer(o, o.bufferBytes(), (byte)'b');
        if (rank == 0)
        {
            OsuReport.header("# OSU MPI-style Multi Latency Test (shmpi-bench " + PROGRAM +
                ", blocking send/recv ping-pong)", o,
                String.format(Locale.ROOT,
                    "%d pair(s): rank i with rank i + %d; one-way latency averaged over the pairs", pairs, pairs),
                OsuReport.javaVersion());
        }
        comm.barrier();
        MpiBench.jitWarmup(comm, rank, o,
            () -> pingPong(comm, first, peer, sbuf, rbuf, o.preludeSize(), 0, o.jitChunk()));
        for (final int size : o.sizes())
        {
            comm.barrier();
            final int iterations = o.iterations(size);
            final double seconds = pingPong(comm, first, peer, sbuf, rbuf, size, o.warmup(size), iterations);
            final double latency = seconds * 1e6 / (2.0 * iterations);
            final double[] all = MpiBench.gatherToZero(comm, rank, first ? latency : 0.0, TIME_TAG);
            if (rank == 0)
            {
                double sum = 0;
                for (int r = 0; r < pairs; r++)
                {
                    sum += all[r];
                }
                OsuReport.row(size, sum / pairs);
            }
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed round trips; returns the timed seconds. */
    private static double pingPong(final Comm comm, final boolean first, final int peer, final Object sbuf,
        final Object rbuf, final int size, final int warmup, final int iterations) throws MPIException
    {
        double start = MPI.wtime();
        final int total = warmup + iterations;
        for (int i = 0; i < total; i++)
        {
            if (i == warmup)
            {
                start = MPI.wtime();
            }
            if (first)
            {
                comm.send(sbuf, size, MPI.BYTE, peer, TAG);
                comm.recv(rbuf, size, MPI.BYTE, peer, TAG);
            }
            else
            {
                comm.recv(rbuf, size, MPI.BYTE, peer, TAG);
                comm.send(sbuf, size, MPI.BYTE, peer, TAG);
            }
        }
        return MPI.wtime() - start;
    }
}
