package org.shmpi.bench;

import java.util.Arrays;

import mpi.MPI;

/**
 * How long a fresh job takes to reach steady state: rank 0 ping-pongs an 8-byte message with
 * rank 1 for {@code -n} round trips straight after {@code MPI.Init} (no warm-up), times every
 * round trip, and prints the median of each bucket of {@code -k} round trips. The "final"
 * latency is the median of the last tenth of the buckets; the job reached steady state at the
 * first bucket from which every later bucket median stays within {@code -t} (0.2 = 20%) of it.
 * Latencies are one-way (half a round trip), in µs.
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.WarmupCurve [-n 100000] [-k 1000] [-t 0.2] [-q]</pre>
 *
 * Prints {@code bucket <first-message> <median-us> <mean-us>} lines (not with {@code -q}), then one line
 * {@code warmup n=... final_us=... steady_at=... first_bucket_us=... mean_first_50000_us=... mean_us=...}
 * (the means include the stalls that the medians hide: compilations, deoptimizations, GC).
 */
public final class WarmupCurve
{
    private static final int TAG = 7;

    private WarmupCurve()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        int n = 100_000;
        int k = 1_000;
        double tolerance = 0.2;
        boolean quiet = false;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "-n":
                    n = Integer.parseInt(args[++i]);
                    break;
                case "-k":
                    k = Integer.parseInt(args[++i]);
                    break;
                case "-t":
                    tolerance = Double.parseDouble(args[++i]);
                    break;
                case "-q":
                    quiet = true;
                    break;
                default:
                    break;
            }
        }
        final int rank = MPI.COMM_WORLD.getRank();
        final byte[] sbuf = new byte[8];
        final byte[] rbuf = new byte[8];
        if (rank == 0)
        {
            final long[] ns = new long[n];
            for (int i = 0; i < n; i++)
            {
                final long t0 = System.nanoTime();
                MPI.COMM_WORLD.send(sbuf, 8, MPI.BYTE, 1, TAG);
                MPI.COMM_WORLD.recv(rbuf, 8, MPI.BYTE, 1, TAG);
                ns[i] = System.nanoTime() - t0;
            }
            report(ns, k, tolerance, quiet);
        }
        else if (rank == 1)
        {
            for (int i = 0; i < n; i++)
            {
                MPI.COMM_WORLD.recv(rbuf, 8, MPI.BYTE, 0, TAG);
                MPI.COMM_WORLD.send(sbuf, 8, MPI.BYTE, 0, TAG);
            }
        }
        MPI.Finalize();
    }

    private static void report(final long[] ns, final int k, final double tolerance, final boolean quiet)
    {
        final int buckets = ns.length / k;
        final double[] median = new double[buckets];
        final long[] chunk = new long[k];
        for (int b = 0; b < buckets; b++)
        {
            System.arraycopy(ns, b * k, chunk, 0, k);
            long sum = 0;
            for (final long t : chunk)
            {
                sum += t;
            }
            Arrays.sort(chunk);
            median[b] = (chunk[k / 2] + chunk[(k - 1) / 2]) / 2.0 / 2.0 / 1000.0;
            if (!quiet)
            {
                System.out.printf("bucket %d %.3f %.3f%n", b * k, median[b], sum / 2.0 / 1000.0 / k);
            }
        }
        final int tail = Math.max(1, buckets / 10);
        final double[] last = Arrays.copyOfRange(median, buckets - tail, buckets);
        Arrays.sort(last);
        final double fin = (last[tail / 2] + last[(tail - 1) / 2]) / 2.0;
        int steadyAt = buckets;
        while (steadyAt > 0 && Math.abs(median[steadyAt - 1] - fin) <= tolerance * fin)
        {
            steadyAt--;
        }
        long all = 0;
        for (final long t : ns)
        {
            all += t;
        }
        long firstHalf = 0;
        final int half = Math.min(ns.length, 50_000);
        for (int i = 0; i < half; i++)
        {
            firstHalf += ns[i];
        }
        System.out.printf("warmup n=%d bucket=%d final_us=%.3f steady_at=%d first_bucket_us=%.3f " +
            "mean_first_%d_us=%.3f mean_us=%.3f%n", ns.length, k, fin, steadyAt * k, median[0], half,
            firstHalf / 2.0 / 1000.0 / half, all / 2.0 / 1000.0 / ns.length);
    }
}
