package org.shmpi.bench;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * OSU's rooted loop seen rank by rank: a barrier, then a timed 8-byte bcast from rank 0 (or
 * {@code -root}), many times. Every rank keeps its {@code System.nanoTime()} (one clock for every process of the
 * machine) on leaving the barrier and on leaving the bcast; rank 0 gathers them and prints, per
 * rank, how long after rank 0 it left the barrier and the bcast, its mean bcast time, and how
 * often it was the first out of the barrier. It shows whether the non-roots wait for the root
 * to be scheduled when the ranks outnumber the cores.
 *
 * <pre>shmrun -np 4 -cp shmpi-bench.jar org.shmpi.bench.BarrierExitOrder [-n iterations] [-root rank]</pre>
 */
public final class BarrierExitOrder
{
    private BarrierExitOrder()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        int iterations = 20_000;
        int root = 0;
        for (int i = 0; i < args.length; i++)
        {
            if ("-n".equals(args[i]))
            {
                iterations = Integer.parseInt(args[++i]);
            }
            else if ("-root".equals(args[i]))
            {
                root = Integer.parseInt(args[++i]);
            }
            else
            {
                throw new IllegalArgumentException("unknown option " + args[i] +
                    "; usage: BarrierExitOrder [-n iterations] [-root rank]");
            }
        }
        final Intracomm comm = MPI.COMM_WORLD;
        final int me = comm.getRank();
        final int n = comm.getSize();
        final byte[] data = new byte[8];
        for (int i = 0; i < iterations / 4; i++)
        {
            comm.bcast(data, 8, MPI.BYTE, root);
            comm.barrier();
        }
        final long[] exits = new long[iterations];
        final long[] ends = new long[iterations];
        for (int i = 0; i < iterations; i++)
        {
            comm.barrier();
            exits[i] = System.nanoTime();
            if (me == root)
            {
                data[0] = (byte)i;
            }
            comm.bcast(data, 8, MPI.BYTE, root);
            ends[i] = System.nanoTime();
            if (data[0] != (byte)i)
            {
                throw new IllegalStateException("rank " + me + " got " + data[0] + " in bcast " + i);
            }
        }
        final long[] allExits = new long[n * iterations];
        final long[] allEnds = new long[n * iterations];
        comm.gather(exits, iterations, MPI.LONG, allExits, iterations, MPI.LONG, 0);
        comm.gather(ends, iterations, MPI.LONG, allEnds, iterations, MPI.LONG, 0);
        if (me == 0)
        {
            System.out.println("# root " + root);
            System.out.println(
                "# rank  barrier exit after rank 0 (us)  bcast end after rank 0 (us)  bcast (us)  first out");
            for (int r = 0; r < n; r++)
            {
                double exitLag = 0;
                double endLag = 0;
                double time = 0;
                int first = 0;
                for (int i = 0; i < iterations; i++)
                {
                    exitLag += allExits[r * iterations + i] - allExits[i];
                    endLag += allEnds[r * iterations + i] - allEnds[i];
                    time += allEnds[r * iterations + i] - allExits[r * iterations + i];
                    int earliest = 0;
                    for (int q = 1; q < n; q++)
                    {
                        if (allExits[q * iterations + i] < allExits[earliest * iterations + i])
                        {
                            earliest = q;
                        }
                    }
                    first += earliest == r ? 1 : 0;
                }
                System.out.printf("%-6d%-32.2f%-29.2f%-12.2f%d%%%n", r, exitLag / iterations / 1e3,
                    endLag / iterations / 1e3, time / iterations / 1e3, 100 * first / iterations);
            }
        }
        MPI.Finalize();
    }
}
