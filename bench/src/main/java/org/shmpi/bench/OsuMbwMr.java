package org.shmpi.bench;

import java.util.Locale;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Multiple-pair bandwidth and message rate, after {@code osu_mbw_mr}: with N ranks, rank
 * {@code i < N/2} sends to rank {@code i + N/2}, all pairs at once, each as {@code osu_bw} (a window
 * of {@code -W} {@code iSend}s / {@code iRecv}s, {@code waitAll}, a 4-byte acknowledgement).
 * Reported: aggregate MB/s (10^6 bytes/s) and messages/s of all pairs, over the slowest
 * sender's time (its time is sent to rank 0 with point-to-point messages, no collectives needed).
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.OsuMbwMr [-m [MIN:]MAX] [-i N] [-x N] [-W N]
 *     [-j N] [-J S] [-b array|buffer|direct]</pre>
 */
public final class OsuMbwMr
{
    private static final String PROGRAM = "OsuMbwMr";
    private static final int TAG = 103;
    private static final int ACK_TAG = 104;
    private static final int TIME_TAG = 105;
    private static final int ACK_BYTES = 4;
    static final String COLUMNS = "# Size                  MB/s        Messages/s";

    private OsuMbwMr()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final OsuOptions o = MpiBench.options(args, OsuOptions.Kind.BANDWIDTH, PROGRAM, rank);
        if (o != null && MpiBench.requireEvenRanks(comm.getSize(), rank, PROGRAM))
        {
            run(comm, rank, o);
        }
        MpiBench.finish();
    }

    private static void run(final Comm comm, final int rank, final OsuOptions o) throws MPIException
    {
        final int pairs = comm.getSize() / 2;
        final boolean sender = rank < pairs;
        final int peer = sender ? rank + pairs : rank - pairs;
        final Object buf = MpiBench.buffer(o, o.bufferBytes(), (byte)(sender ? 'a' : 'b'));
        final Object ack = MpiBench.buffer(o, ACK_BYTES, (byte)'c');
        final Request[] requests = new Request[o.window];
        if (rank == 0)
        {
            OsuReport.headerWithColumns("# OSU MPI-style Multiple Bandwidth / Message Rate Test (shmpi-bench " +
                PROGRAM + ", window " + o.window + ")", o, COLUMNS,
                String.format(Locale.ROOT, "%d pair(s): rank i sends to rank i + %d; osu_bw's windows in every pair",
                    pairs, pairs),
                "Aggregate of all pairs over the slowest sender's time",
                OsuReport.javaVersion());
        }
        comm.barrier();
        MpiBench.jitWarmup(comm, rank, o,
            () -> windows(comm, sender, peer, buf, ack, requests, o.preludeSize(), o.window, 0, o.jitChunk()));
        for (final int size : o.sizes())
        {
            comm.barrier();
            final int iterations = o.iterations(size);
            final double seconds = windows(comm, sender, peer, buf, ack, requests, size, o.window, o.warmup(size),
                iterations);
            final double[] times = MpiBench.gatherToZero(comm, rank, sender ? seconds : 0.0, TIME_TAG);
            if (rank == 0)
            {
                double slowest = 0;
                for (final double t : times)
                {
                    slowest = Math.max(slowest, t);
                }
                final double messages = (double)pairs * iterations * o.window;
                OsuReport.row(size, messages * size / 1e6 / slowest, messages / slowest);
            }
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed windows; returns the timed seconds. */
    private static double windows(final Comm comm, final boolean sender, final int peer, final Object buf,
        final Object ack, final Request[] requests, final int size, final int window, final int warmup,
        final int iterations) throws MPIException
    {
        double start = MPI.wtime();
        final int total = warmup + iterations;
        for (int i = 0; i < total; i++)
        {
            if (i == warmup)
            {
                start = MPI.wtime();
            }
            if (sender)
            {
                for (int w = 0; w < window; w++)
                {
                    requests[w] = MpiBench.iSend(comm, buf, size, peer, TAG);
                }
                Request.waitAll(requests);
                comm.recv(ack, ACK_BYTES, MPI.BYTE, peer, ACK_TAG);
            }
            else
            {
                for (int w = 0; w < window; w++)
                {
                    requests[w] = MpiBench.iRecv(comm, buf, size, peer, TAG);
                }
                Request.waitAll(requests);
                comm.send(ack, ACK_BYTES, MPI.BYTE, peer, ACK_TAG);
            }
        }
        return MPI.wtime() - start;
    }
}
