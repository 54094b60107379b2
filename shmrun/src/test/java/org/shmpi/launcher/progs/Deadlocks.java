package org.shmpi.launcher.progs;

import mpi.MPI;

/**
 * Deliberate deadlocks for the status report tests, chosen by the first argument. Every rank
 * prints {@code BLOCKING rank=R} just before the call that never returns.
 */
public final class Deadlocks
{
    private Deadlocks()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int[] buf = new int[4];
        switch (args[0])
        {
            case "head-to-head":
                // Every rank receives from its right neighbour before sending to it: a ring of waits.
                blocking(rank);
                MPI.COMM_WORLD.recv(buf, 1, MPI.INT, (rank + 1) % size, 7);
                break;
            case "missing-send":
                // Rank 0 waits for a message that rank 1 never sends; rank 1 goes on to Finalize.
                if (rank == 0)
                {
                    final int[] unexpected = {42};
                    MPI.COMM_WORLD.send(unexpected, 1, MPI.INT, 1, 9);
                    blocking(rank);
                    MPI.COMM_WORLD.recv(buf, 1, MPI.INT, 1, 5);
                }
                else
                {
                    blocking(rank);
                }
                break;
            case "skipped-barrier":
                // Every rank but the last enters a barrier; the last waits for a message instead.
                blocking(rank);
                if (rank == size - 1)
                {
                    MPI.COMM_WORLD.recv(buf, 1, MPI.INT, 0, 1);
                }
                else
                {
                    MPI.COMM_WORLD.barrier();
                }
                break;
            case "any-source":
                // Everyone waits for a message from anyone: nobody sends.
                blocking(rank);
                MPI.COMM_WORLD.recv(buf, 1, MPI.INT, MPI.ANY_SOURCE, 3);
                break;
            case "compute":
                // Rank 0 waits for rank 1, which is busy outside MPI (no deadlock).
                blocking(rank);
                if (rank == 0)
                {
                    MPI.COMM_WORLD.recv(buf, 1, MPI.INT, 1, 2);
                }
                else
                {
                    final long end = System.nanoTime() + 120_000_000_000L;
                    long x = 0;
                    while (System.nanoTime() < end)
                    {
                        x += System.nanoTime() & 3;
                        Thread.sleep(1);
                    }
                    System.out.println("x=" + x);
                }
                break;
            default:
                throw new IllegalArgumentException("unknown mode: " + args[0]);
        }
        MPI.Finalize();
    }

    private static void blocking(final int rank)
    {
        System.out.println("BLOCKING rank=" + rank);
        System.out.flush();
    }
}
