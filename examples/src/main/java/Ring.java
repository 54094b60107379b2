import mpi.MPI;

/**
 * A counter travels around the ring of ranks; rank 0 decrements it each lap, and every rank
 * leaves once it has forwarded 0. Rank 0 prints each lap and checks the lap count at the end.
 * Run: {@code shmrun -np 4 -cp shmpi-examples.jar Ring [laps]}.
 */
public class Ring
{
    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int tag = 201;
        final int laps = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        final int[] counter = new int[1];

        if (rank == 0)
        {
            counter[0] = laps;
            System.out.println("Rank 0 sends " + counter[0] + " to rank " + next + " (" + size + " ranks in the ring)");
            MPI.COMM_WORLD.send(counter, 1, MPI.INT, next, tag);
        }
        int seenLaps = 0;
        while (true)
        {
            MPI.COMM_WORLD.recv(counter, 1, MPI.INT, prev, tag);
            if (rank == 0)
            {
                counter[0]--;
                seenLaps++;
                System.out.println("Rank 0 finished lap " + seenLaps + ", counter now " + counter[0]);
            }
            MPI.COMM_WORLD.send(counter, 1, MPI.INT, next, tag);
            if (counter[0] == 0)
            {
                break;
            }
        }
        if (rank == 0)
        {
            // The last 0 comes back from the last rank of the ring.
            MPI.COMM_WORLD.recv(counter, 1, MPI.INT, prev, tag);
            final boolean ok = seenLaps == laps && counter[0] == 0;
            System.out.println("Ring of " + size + " ranks: " + seenLaps + " laps " + (ok ? "OK" : "FAILED"));
            if (!ok)
            {
                MPI.COMM_WORLD.abort(1);
            }
        }
        MPI.Finalize();
    }
}
