package org.shmpi.bench;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Unidirectional bandwidth from rank 0 to rank 1, after {@code osu_bw}: rank 0 sends a window
 * of {@code -W} messages, rank 1 receives them and answers with a 4-byte acknowledgement;
 * bandwidth is bytes moved per second of the timed windows, in MB/s (10^6 bytes).
 *
 * <p>osu_bw's method: rank 0 starts {@code -W} {@code Comm.iSend}s, rank 1 posts {@code -W}
 * {@code Comm.iRecv}s, both {@code Request.waitAll}, then the acknowledgement.
 *
 * <p>See also OsuBibw (both directions at once) and OsuMbwMr (several pairs, message rate).
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.OsuBw [-m [MIN:]MAX] [-i N] [-x N] [-W N]
 *     [-j N] [-J S] [-b array|buffer|direct]</pre>
 */
public final class OsuBw
{
    private static final String PROGRAM = "OsuBw";
    private static final int TAG = 100;
    private static final int ACK_TAG = 101;
    private static final int ACK_BYTES = 4;

    private OsuBw()
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
        final Object ack = MpiBench.buffer(o, ACK_BYTES, (byte)'c');
        if (rank == 0)
        {
            OsuReport.header("# OSU MPI-style Bandwidth Test (shmpi-bench " + PROGRAM +
                ", windowed iSend/iRecv, window " + o.window + ")", o,
                "Method: osu_bw's windowed iSend/iRecv + waitAll, then a 4-byte acknowledgement",
                OsuReport.javaVersion());
        }
        comm.barrier();
        MpiBench.jitWarmup(comm, rank, o,
            () -> windows(comm, rank, sbuf, rbuf, ack, o.preludeSize(), o.window, 0, o.jitChunk()));
        for (final int size : o.sizes())
        {
            comm.barrier();
            final int iterations = o.iterations(size);
            final double seconds = windows(comm, rank, sbuf, rbuf, ack, size, o.window, o.warmup(size), iterations);
            if (rank == 0)
            {
                OsuReport.row(size, size / 1e6 * iterations * o.window / seconds);
            }
        }
        comm.barrier();
    }

    /** Runs {@code warmup} untimed then {@code iterations} timed windows; returns the timed seconds. */
    private static double windows(final Comm comm, final int rank, final Object sbuf, final Object rbuf,
        final Object ack, final int size, final int window, final int warmup, final int iterations)
        throws MPIException
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
                final Request[] requests = new Request[window];
                for (int w = 0; w < window; w++)
                {
                    requests[w] = MpiBench.iSend(comm, sbuf, size, 1, TAG);
                }
                Request.waitAll(requests);
                comm.recv(ack, ACK_BYTES, MPI.BYTE, 1, ACK_TAG);
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
                final Request[] requests = new Request[window];
                for (int w = 0; w < window; w++)
                {
                    requests[w] = MpiBench.iRecv(comm, rbuf, size, 0, TAG);
                }
                Request.waitAll(requests);
                comm.send(ack, ACK_BYTES, MPI.BYTE, 0, ACK_TAG);
            }
        }
        return MPI.wtime() - start;
    }
}
