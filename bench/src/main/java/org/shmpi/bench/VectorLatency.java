package org.shmpi.bench;

import java.util.Arrays;

import mpi.Datatype;
import mpi.MPI;

/**
 * Ping-pong of a strided vector against the same bytes contiguous, in one run: {@code n}
 * doubles sent as {@code createVector(n, 1, 2, MPI.DOUBLE)} (every other element of a
 * {@code 2n} array: 8-byte blocks) and received the same way, and {@code n} contiguous
 * doubles. Interleaved rounds of {@code -i} round trips each after {@code -x} warm-up ones;
 * prints the median one-way latency of each and their ratio, per size.
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.VectorLatency [-r rounds] [-i iters] [-x warmup]</pre>
 */
public final class VectorLatency
{
    private VectorLatency()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        int rounds = 7;
        int iters = 2000;
        int warmup = 2000;
        for (int i = 0; i + 1 < args.length; i++)
        {
            switch (args[i])
            {
                case "-r": rounds = Integer.parseInt(args[i + 1]); break;
                case "-i": iters = Integer.parseInt(args[i + 1]); break;
                case "-x": warmup = Integer.parseInt(args[i + 1]); break;
                default: break;
            }
        }
        final int rank = MPI.COMM_WORLD.getRank();
        if (rank == 0)
        {
            System.out.println("# doubles  bytes  vector_us  contiguous_us  vector/contiguous (medians of " + rounds +
                " interleaved rounds of " + iters + ")");
        }
        for (int n = 1; n <= 65536; n *= 8)
        {
            final Datatype v = Datatype.createVector(n, 1, 2, MPI.DOUBLE);
            v.commit();
            final double[] strided = new double[2 * n];
            final double[] plain = new double[n];
            final double[] vt = new double[rounds];
            final double[] ct = new double[rounds];
            final int it = n >= 8192 ? Math.max(50, iters / 20) : iters;
            pingPong(rank, strided, 1, v, warmup / (n >= 8192 ? 20 : 1));
            pingPong(rank, plain, n, MPI.DOUBLE, warmup / (n >= 8192 ? 20 : 1));
            for (int r = 0; r < rounds; r++)
            {
                vt[r] = pingPong(rank, strided, 1, v, it);
                ct[r] = pingPong(rank, plain, n, MPI.DOUBLE, it);
            }
            Arrays.sort(vt);
            Arrays.sort(ct);
            if (rank == 0)
            {
                final double mv = vt[rounds / 2];
                final double mc = ct[rounds / 2];
                System.out.printf("%9d %6d %10.2f %14.2f %8.2f%n", n, 8 * n, mv, mc, mv / mc);
            }
            v.free();
        }
        MPI.Finalize();
    }

    /** One-way latency in microseconds of {@code iters} round trips. */
    private static double pingPong(final int rank, final double[] buf, final int count, final Datatype type,
        final int iters)
    {
        MPI.COMM_WORLD.barrier();
        final long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++)
        {
            if (rank == 0)
            {
                MPI.COMM_WORLD.send(buf, count, type, 1, 1);
                MPI.COMM_WORLD.recv(buf, count, type, 1, 1);
            }
            else if (rank == 1)
            {
                MPI.COMM_WORLD.recv(buf, count, type, 0, 1);
                MPI.COMM_WORLD.send(buf, count, type, 0, 1);
            }
        }
        return (System.nanoTime() - t0) / 1e3 / iters / 2;
    }
}
