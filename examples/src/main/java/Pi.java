import mpi.MPI;

/**
 * Computes pi as the integral of 4/(1+x^2) over [0,1] by the midpoint rule, each rank taking
 * every size-th interval; rank 0 gathers the partial sums with send/recv and checks the result.
 * Run: {@code shmrun -np 4 -cp shmpi-examples.jar Pi [intervals]}.
 */
public class Pi
{
    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final long n = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        final double h = 1.0 / n;
        double sum = 0;
        for (long i = rank; i < n; i += size)
        {
            final double x = h * (i + 0.5);
            sum += 4.0 / (1.0 + x * x);
        }
        final double[] part = {sum * h};
        if (rank == 0)
        {
            double pi = part[0];
            final double[] in = new double[1];
            for (int r = 1; r < size; r++)
            {
                MPI.COMM_WORLD.recv(in, 1, MPI.DOUBLE, r, 7);
                pi += in[0];
            }
            final double error = Math.abs(pi - Math.PI);
            final boolean ok = error < 1e-9;
            System.out.printf("pi = %.12f from %d ranks, error %.2e %s%n", pi, size, error, ok ? "OK" : "FAILED");
            if (!ok)
            {
                MPI.COMM_WORLD.abort(2);
            }
        }
        else
        {
            MPI.COMM_WORLD.send(part, 1, MPI.DOUBLE, 0, 7);
        }
        MPI.Finalize();
    }
}
