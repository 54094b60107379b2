package org.shmpi.bench;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Four loops of small collectives on one double, timed on rank 0, to A/B the per-call cost of
 * the shared-memory algorithms: {@code allReduce} back to back, {@code barrier} back to back,
 * {@code reduce} to rank 0 back to back, and OSU's loop (an {@code allReduce} timed alone, then
 * an untimed barrier). Each loop runs {@code -n} calls, the whole set {@code -r} times; every
 * set prints one line of µs per call (the first sets include the JIT's warm-up).
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.CollectiveLoops [-n calls] [-r sets]</pre>
 */
public final class CollectiveLoops
{
    private CollectiveLoops()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        int calls = 200_000;
        int sets = 3;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "-n" -> calls = Integer.parseInt(args[++i]);
                case "-r" -> sets = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; usage: CollectiveLoops [-n calls] [-r sets]");
            }
        }
        final Intracomm comm = MPI.COMM_WORLD;
        final double[] in = {1 + comm.getRank()};
        final double[] out = new double[1];
        for (int set = 0; set < sets; set++)
        {
            comm.barrier();
            long t = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                comm.allReduce(in, out, 1, MPI.DOUBLE, MPI.SUM);
            }
            final long allreduce = System.nanoTime() - t;
            comm.barrier();
            t = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                comm.barrier();
            }
            final long barrier = System.nanoTime() - t;
            comm.barrier();
            t = System.nanoTime();
            for (int i = 0; i < calls; i++)
            {
                comm.reduce(in, out, 1, MPI.DOUBLE, MPI.SUM, 0);
            }
            final long reduce = System.nanoTime() - t;
            comm.barrier();
            long osu = 0;
            for (int i = 0; i < calls; i++)
            {
                final long t0 = System.nanoTime();
                comm.allReduce(in, out, 1, MPI.DOUBLE, MPI.SUM);
                osu += System.nanoTime() - t0;
                comm.barrier();
            }
            final int n = comm.getSize();
            if (out[0] != n * (n + 1) / 2.0)
            {
                throw new IllegalStateException("allreduce gave " + out[0] + ", not " + n * (n + 1) / 2.0);
            }
            if (comm.getRank() == 0)
            {
                System.out.printf("allreduce %.3f barrier %.3f reduce %.3f osu-allreduce %.3f us per call%n",
                    allreduce / 1e3 / calls, barrier / 1e3 / calls, reduce / 1e3 / calls, osu / 1e3 / calls);
            }
        }
        MPI.Finalize();
    }
}
