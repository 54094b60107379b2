package org.shmpi.bench;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Bidirectional bandwidth between ranks 0 and 1, after {@code osu_bibw}: per window both ranks
 * post {@code -W} {@code iRecv}s, then {@code -W} {@code iSend}s, then {@code Request.waitAll} on
 * all of them; bandwidth counts the bytes of both directions, in MB/s (10^6 bytes/s).
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.OsuBibw [-m [MIN:]MAX] [-i N] [-x N] [-W N]
 *     [-j N] [-J S] [-b array|buffer|direct]</pre>
 */
public final class OsuBibw
{
    private static final String PROGRAM = "OsuBibw";
    private static final int TAG = 102;

    private OsuBibw()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final OsuOptions o = MpiBench.options(args, OsuOptions.Kind.BANDWIDTH, PROGRAM, rank);
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
            OsuReport.header("# OSU MPI-style Bi-Directional Bandwidth Test (shmpi-bench " + PROGRAM +
                ", window " + o.window + ")", o,
                "Method: osu_bibw's: both ranks post the window's iRecvs, then its iSends, then waitAll; " +
                    "both directions counted",
                OsuReport.javaVersion());
        }
        comm.barrier();
        final Request[] requests = new Request[2 * o.window];
        final int peer = 1 - rank;
        MpiBench.jitWarmup(comm, rank, o,
            () -> windows(comm, peer, sbuf, rbuf, requests, o.preludeSize(), o.window, 0, o.jitChunk()));
        for (final int size : o.sizes())
        {
            comm.barrier();
            final int iterations = o.iterations(size);
            final double seconds =
                windows(comm, peer, sbuf, rbuf, requests, size, o.window, o.warmup(size), iterations);
            if (rank == 0)
            {
                OsuReport.row(size, 2.0 * size / 1e6 * iterations * o.window / seconds);
            }
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed windows; returns the timed seconds. */
    private static double windows(final Comm comm, final int peer, final Object sbuf, final Object rbuf,
        final Request[] requests, final int size, final int window, final int warmup, final int iterations)
        throws MPIException
    {
        double start = MPI.wtime();
        final int total = warmup + iterations;
        for (int i = 0; i < total; i++)
        {
            if (i == warmup)
            {
                start = MPI.wtime();
            }
            for (int w = 0; w < window; w++)
            {
                requests[w] = MpiBench.iRecv(comm, rbuf, size, peer, TAG);
            }
            for (int w = 0; w < window; w++)
            {
                requests[window + w] = MpiBench.iSend(comm, sbuf, size, peer, TAG);
            }
            Request.waitAll(requests);
        }
        return MPI.wtime() - start;
    }
}
