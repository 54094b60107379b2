import mpi.MPI;

/** Every rank says who it is. Run: {@code shmrun -np 4 -cp shmpi-examples.jar Hello}. */
public class Hello
{
    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        System.out.println("Hello from rank " + rank + " of " + size + " on " + MPI.getProcessorName());
        MPI.Finalize();
    }
}
