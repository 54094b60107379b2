package org.shmpi.bench;

import mpi.MPI;

/**
 * Token ring: rank 0 sends an int to rank 1, and so on back to rank 0, for {@code -l} laps after
 * {@code -x} warm-up laps; prints the mean time per hop in microseconds. With more ranks than
 * cores this measures the wake-up path: every hop wakes a rank that was waiting.
 *
 * <pre>shmrun -np 8 -cp shmpi-bench.jar org.shmpi.bench.RingBench [-l laps] [-x warmup]</pre>
 */
public final class RingBench
{
    private RingBench()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        int laps = 20_000;
        int warm = 2_000;
        for (int i = 0; i + 1 < args.length; i++)
        {
            if (args[i].equals("-l"))
            {
                laps = Integer.parseInt(args[i + 1]);
            }
            if (args[i].equals("-x"))
            {
                warm = Integer.parseInt(args[i + 1]);
            }
        }
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int[] token = new int[1];
        double start = 0;
        for (int lap = 0; lap < warm + laps; lap++)
        {
            if (lap == warm)
            {
                MPI.COMM_WORLD.barrier();
                start = MPI.wtime();
            }
            if (rank == 0)
            {
                MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 1);
                MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, 1);
            }
            else
            {
                MPI.COMM_WORLD.recv(token, 1, MPI.INT, prev, 1);
                token[0]++;
                MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 1);
            }
        }
        final double elapsed = MPI.wtime() - start;
        if (rank == 0)
        {
            System.out.printf("ring np=%d laps=%d us_per_hop=%.3f%n", size, laps,
                elapsed * 1e6 / ((double)laps * size));
        }
        MPI.Finalize();
    }
}
