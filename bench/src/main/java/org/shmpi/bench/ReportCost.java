package org.shmpi.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * The job report's cost measured inside one job, so that both sides see the same cores at the
 * same moment: run under {@code shmrun --report DIR}, it alternates short blocks with the
 * recording paused ({@code MPI.pControl(0)}) and on ({@code MPI.pControl(1)}), for 8-byte
 * ping-pong latency and 8-byte message rate (windows of 64 {@code iSend}s), byte arrays and direct
 * buffers, and prints the median over block pairs of on/paused. A paused call costs a load and a
 * branch more than a build without the report, so bench/report-cost's job-level off/base figures
 * complete the picture. Without the report both sides run the same code (the ratios are the
 * method's noise). The fourth argument records at one rank only (0 sends the message-rate
 * windows, 1 receives them).
 *
 * <pre>
 * shmrun -np 2 --report DIR -cp shmpi-bench.jar org.shmpi.bench.ReportCost [PAIRS [ROUNDTRIPS [latency|msgrate|all
 *     [both|0|1]]]]
 * </pre>
 */
public final class ReportCost
{
    private static final int TAG = 7;
    private static final int WINDOW = 64;

    private ReportCost()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final int trips = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
        final String only = args.length > 2 ? args[2] : "";
        // Which rank records in the "on" blocks (-1: both): whose recording costs what.
        final int recording = args.length > 3 && !"both".equals(args[3]) ? Integer.parseInt(args[3]) : -1;
        if (comm.getSize() != 2)
        {
            if (rank == 0)
            {
                System.err.println("ReportCost: needs exactly 2 ranks");
            }
            MPI.Finalize();
            return;
        }
        final Object[][] buffers = {
            {new byte[8], new byte[8]},
            {direct(), direct()},
        };
        final String[] names = {"array", "direct"};
        if (rank == 0)
        {
            System.out.println("# ReportCost: " + pairs + " block pairs, " + trips +
                " round trips (latency) or " + trips / WINDOW + " windows of " + WINDOW + " (rate) a block");
            System.out.println("# test     buffer  paused     on         on/paused (median of pairs)  p10   p90");
        }
        for (int b = 0; b < buffers.length; b++)
        {
            if (!"msgrate".equals(only))
            {
                report(rank, "latency", names[b], "us", run(comm, rank, buffers[b], pairs, trips, true, recording),
                    trips);
            }
            if (!"latency".equals(only))
            {
                report(rank, "msgrate", names[b], "M/s",
                    run(comm, rank, buffers[b], pairs, trips / WINDOW, false, recording), trips / WINDOW * WINDOW);
            }
        }
        MPI.pControl(1, null);
        MPI.Finalize();
    }

    private static ByteBuffer direct()
    {
        return ByteBuffer.allocateDirect(8);
    }

    /** Seconds of each block: [pair][0 paused, 1 on]; warm-up blocks first, not returned. */
    private static double[][] run(final Comm comm, final int rank, final Object[] buf, final int pairs,
        final int units, final boolean latency, final int recording) throws MPIException
    {
        final double[][] t = new double[pairs][2];
        final Request[] requests = new Request[WINDOW];
        final int warm = Math.max(4, pairs / 10);
        for (int p = -warm; p < pairs; p++)
        {
            // Which half goes first alternates, so a drift within a pair favours neither.
            for (int h = 0; h < 2; h++)
            {
                final int on = (p + h) & 1;
                MPI.pControl(recording < 0 || recording == rank ? on : 0, null);
                comm.barrier();
                final double start = MPI.wtime();
                if (latency)
                {
                    pingPong(comm, rank, buf, units);
                }
                else
                {
                    windows(comm, rank, buf, units, requests);
                }
                final double s = MPI.wtime() - start;
                if (p >= 0)
                {
                    t[p][on] = s;
                }
            }
        }
        MPI.pControl(1, null);
        return t;
    }

    private static void pingPong(final Comm comm, final int rank, final Object[] buf, final int trips)
        throws MPIException
    {
        for (int i = 0; i < trips; i++)
        {
            if (rank == 0)
            {
                comm.send(buf[0], 8, MPI.BYTE, 1, TAG);
                comm.recv(buf[1], 8, MPI.BYTE, 1, TAG);
            }
            else
            {
                comm.recv(buf[1], 8, MPI.BYTE, 0, TAG);
                comm.send(buf[0], 8, MPI.BYTE, 0, TAG);
            }
        }
    }

    private static void windows(final Comm comm, final int rank, final Object[] buf, final int windows,
        final Request[] requests) throws MPIException
    {
        for (int i = 0; i < windows; i++)
        {
            for (int w = 0; w < WINDOW; w++)
            {
                requests[w] = rank == 0 ? MpiBench.iSend(comm, buf[0], 8, 1, TAG) :
                    MpiBench.iRecv(comm, buf[1], 8, 0, TAG);
            }
            Request.waitAll(requests);
        }
        if (rank == 0)
        {
            comm.recv(buf[1], 1, MPI.BYTE, 1, TAG + 1);
        }
        else
        {
            comm.send(buf[0], 1, MPI.BYTE, 0, TAG + 1);
        }
    }

    private static void report(final int rank, final String test, final String buffer, final String unit,
        final double[][] t, final int units)
    {
        if (rank != 0)
        {
            return;
        }
        final boolean latency = "us".equals(unit);
        final double[] ratio = new double[t.length];
        final double[] paused = new double[t.length];
        final double[] on = new double[t.length];
        for (int p = 0; p < t.length; p++)
        {
            paused[p] = figure(t[p][0], units, latency);
            on[p] = figure(t[p][1], units, latency);
            ratio[p] = on[p] / paused[p];
        }
        Arrays.sort(ratio);
        System.out.printf("%-10s %-7s %-10s %-10s %-28.3f %.3f %.3f%n", test, buffer,
            String.format("%.3f", median(paused)) + unit, String.format("%.3f", median(on)),
            ratio[ratio.length / 2], ratio[ratio.length / 10], ratio[ratio.length * 9 / 10]);
    }

    /** One-way latency in µs, or millions of messages a second. */
    private static double figure(final double seconds, final int units, final boolean latency)
    {
        return latency ? seconds * 1e6 / (2.0 * units) : units / seconds / 1e6;
    }

    private static double median(final double[] v)
    {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
