package usercode;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import mpi.Comm;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.UserFunction;

/**
 * Is a user's own compute code as fast in a rank as in a plain {@code java} process? Times loops a
 * user writes, in ns per element: {@code dot}, a dot product of two {@code double[]};
 * {@code poly}, a cubic polynomial evaluated into a third array; {@code userfn}, a user reduction
 * ({@link UserFunction}, {@code inOut[i] = in[i] + 0.5 * inOut[i]}) called directly; {@code userop},
 * the same function (a copy in a class of its own, so that it starts cold) applied as an {@code mpi.Op}
 * through {@code Comm.reduceLocal} ({@code MPI_REDUCE_LOCAL}; with {@code --plain}, where there is no MPI,
 * the function called directly: what the user would do there). Each kernel runs over {@code -n} elements
 * per call.
 *
 * <p>Reported per kernel: {@code cold}, the mean over the first {@code -c} calls from start-up (how soon
 * the JIT makes the user's code fast, which launcher flags such as compile thresholds change), and
 * {@code warm}, the median and the least of {@code -r} timed calls after {@code -w} seconds of calls to
 * every kernel in turn. With {@code --plain} the program never touches MPI; otherwise it calls
 * {@code MPI.Init} first, every rank computes at the same time (as ranks of a real program do), and rank 0
 * prints the mean over the ranks (per-rank values in the comment lines). The JVM's input arguments are
 * printed, so the log says which flags the launcher gave. The class lives outside shmpi's packages, as a
 * user's code does: shmrun's JIT flags for {@code org.shmpi.*}, {@code mpi.*} and {@code org.agrona.*} do
 * not apply to it.
 *
 * <pre>java -cp shmpi-bench.jar:LIB/* usercode.ComputeBench --plain [-n 1048576] [-c 10] [-w 2] [-r 20]
 *     [-k dot,poly,userfn,userop]
 * shmrun -np 2 -cp shmpi-bench.jar usercode.ComputeBench [same options]</pre>
 *
 * Output: {@code #} header lines, then per kernel
 * {@code compute kernel=K np=N cold_ns=X warm_ns=Y warm_min_ns=Z} (ns per element; np 1 with --plain).
 */
public final class ComputeBench
{
    private static final String PROGRAM = "ComputeBench";
    private static final int TAG = 113;
    private static final String[] KERNELS = {"dot", "poly", "userfn", "userop"};

    /**
     * The user's reduction: a weighted running sum, {@code inOut[i] = in[i] + 0.5 * inOut[i]}, which stays
     * bounded however often it is applied (no overflow, no subnormals to slow it down).
     */
    static final class HalfSum extends UserFunction
    {
        @Override
        public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        {
            final double[] in = (double[])inVec;
            final double[] inOut = (double[])inOutVec;
            for (int i = 0; i < count; i++)
            {
                inOut[i] = in[i] + 0.5 * inOut[i];
            }
        }
    }

    /**
     * {@link HalfSum} again, a class of its own: {@code userop} must start cold, not with the code that
     * {@code userfn} already had compiled.
     */
    static final class HalfSumOp extends UserFunction
    {
        @Override
        public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        {
            final double[] in = (double[])inVec;
            final double[] inOut = (double[])inOutVec;
            for (int i = 0; i < count; i++)
            {
                inOut[i] = in[i] + 0.5 * inOut[i];
            }
        }
    }

    private final int n;
    private final boolean plain;
    private final double[] x;
    private final double[] y;
    private final double[] poly;
    private final double[] fnInOut;
    private final double[] opInOut;
    private final HalfSum function = new HalfSum();
    private final HalfSumOp opFunction = new HalfSumOp();
    /** The user operation of {@code userop}; null with {@code --plain}. */
    private final Op op;
    /** What {@code dot} returned, summed, printed at the end so that no call can be left out. */
    private double sink;

    private ComputeBench(final int n, final boolean plain)
    {
        this.n = n;
        this.plain = plain;
        this.x = new double[n];
        this.y = new double[n];
        this.poly = new double[n];
        this.fnInOut = new double[n];
        this.opInOut = new double[n];
        for (int i = 0; i < n; i++)
        {
            x[i] = 1.0 + (i % 7) * 0.125;
            y[i] = 0.5 + (i % 5) * 0.25;
        }
        this.op = plain ? null : new Op(opFunction, true);
    }

    public static void main(final String[] args) throws MPIException
    {
        boolean plain = false;
        int n = 1 << 20;
        int cold = 10;
        double warmSeconds = 2;
        int timed = 20;
        String kernelList = String.join(",", KERNELS);
        String error = null;
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--plain":
                        plain = true;
                        break;
                    case "-n":
                        n = positive(args, ++i);
                        break;
                    case "-c":
                        cold = positive(args, ++i);
                        break;
                    case "-w":
                        warmSeconds = Double.parseDouble(value(args, ++i));
                        break;
                    case "-r":
                        timed = positive(args, ++i);
                        break;
                    case "-k":
                        kernelList = value(args, ++i);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option: " + args[i]);
                }
            }
            for (final String k : kernelList.split(","))
            {
                if (!Arrays.asList(KERNELS).contains(k))
                {
                    throw new IllegalArgumentException("-k: not a kernel: " + k + " (" + String.join(",", KERNELS) +
                        ")");
                }
            }
            if (!(warmSeconds >= 0))
            {
                throw new IllegalArgumentException("-w must be >= 0 seconds, got " + warmSeconds);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            error = ex.getMessage();
        }
        if (plain)
        {
            if (error != null)
            {
                System.err.println(PROGRAM + ": " + error);
                System.err.println(usage());
                System.exit(2);
            }
            new ComputeBench(n, true).run(null, 0, 1, kernelList.split(","), cold, warmSeconds, timed);
            return;
        }
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        if (error != null)
        {
            if (rank == 0)
            {
                System.err.println(PROGRAM + ": " + error);
                System.err.println(usage());
            }
            MPI.Finalize();
            System.exit(2);
        }
        new ComputeBench(n, false).run(comm, rank, comm.getSize(), kernelList.split(","), cold, warmSeconds, timed);
        MPI.Finalize();
    }

    private void run(final Comm comm, final int rank, final int ranks, final String[] kernels, final int cold,
        final double warmSeconds, final int timed) throws MPIException
    {
        if (rank == 0)
        {
            System.out.println("# " + PROGRAM + ": user code in ns per element, " +
                (plain ? "plain java process (no MPI)" : ranks + " rank(s), every rank computing at the same time"));
            System.out.println("# " + n + " doubles per array; cold: mean of the first " + cold + " calls from " +
                "start-up" + (plain ? "" : " (after MPI.Init)") + "; warm: median and least of " + timed +
                " calls after " + warmSeconds + " s of calls to every kernel in turn");
            System.out.println("# dot: sum a[i]*b[i]; poly: p[i] = cubic(x[i]); userfn: a UserFunction " +
                "(inOut[i] = in[i] + 0.5*inOut[i]) called directly; userop: the same as an mpi.Op through " +
                (plain ? "(plain: no MPI, so) a direct call" : "Comm.reduceLocal"));
            System.out.println("# " + javaVersion() + ", " + Runtime.getRuntime().availableProcessors() +
                " CPUs available; JVM input arguments: " + ManagementFactory.getRuntimeMXBean().getInputArguments());
        }
        if (comm != null)
        {
            comm.barrier();
        }
        final int k = kernels.length;
        final double[] coldNs = new double[k];
        for (int j = 0; j < k; j++)
        {
            final long start = System.nanoTime();
            for (int i = 0; i < cold; i++)
            {
                call(kernels[j]);
            }
            coldNs[j] = (System.nanoTime() - start) / ((double)cold * n);
        }
        final long warmEnd = System.nanoTime() + (long)(warmSeconds * 1e9);
        do
        {
            for (final String kernel : kernels)
            {
                call(kernel);
            }
        }
        while (System.nanoTime() - warmEnd < 0);
        final double[][] callNs = new double[k][timed];
        for (int i = 0; i < timed; i++)
        {
            for (int j = 0; j < k; j++)
            {
                final long start = System.nanoTime();
                call(kernels[j]);
                callNs[j][i] = (System.nanoTime() - start) / (double)n;
            }
        }
        final List<String> lines = new ArrayList<>();
        for (int j = 0; j < k; j++)
        {
            Arrays.sort(callNs[j]);
            final double median = timed % 2 == 1 ? callNs[j][timed / 2] :
                (callNs[j][timed / 2 - 1] + callNs[j][timed / 2]) / 2;
            final double[] c = allRanks(comm, rank, coldNs[j]);
            final double[] w = allRanks(comm, rank, median);
            final double[] m = allRanks(comm, rank, callNs[j][0]);
            if (rank == 0)
            {
                if (ranks > 1)
                {
                    lines.add(String.format(Locale.ROOT, "# %s by rank: cold %s, warm %s, warm min %s", kernels[j],
                        list(c), list(w), list(m)));
                }
                lines.add(String.format(Locale.ROOT, "compute kernel=%s np=%d cold_ns=%.4f warm_ns=%.4f " +
                    "warm_min_ns=%.4f", kernels[j], ranks, mean(c), mean(w), mean(m)));
            }
        }
        final double[] sinks = allRanks(comm, rank, sink);
        if (rank == 0)
        {
            for (final String line : lines)
            {
                System.out.println(line);
            }
            System.out.println("# checksum " + mean(sinks));
            System.out.flush();
        }
    }

    private static String javaVersion()
    {
        return "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")";
    }

    /** Every rank's value at rank 0 (point-to-point, no collective); the value alone without MPI. */
    private static double[] allRanks(final Comm comm, final int rank, final double value) throws MPIException
    {
        if (comm == null)
        {
            return new double[] {value};
        }
        final double[] one = {value};
        if (rank != 0)
        {
            comm.send(one, 1, MPI.DOUBLE, 0, TAG);
            return null;
        }
        final double[] all = new double[comm.getSize()];
        all[0] = value;
        for (int r = 1; r < all.length; r++)
        {
            comm.recv(one, 1, MPI.DOUBLE, r, TAG);
            all[r] = one[0];
        }
        return all;
    }

    private void call(final String kernel) throws MPIException
    {
        switch (kernel)
        {
            case "dot":
                sink += dot(x, y, n);
                break;
            case "poly":
                poly(x, poly, n);
                break;
            case "userfn":
                function.call(x, fnInOut, n, MPI.DOUBLE);
                break;
            case "userop":
                if (op == null)
                {
                    opFunction.call(x, opInOut, n, MPI.DOUBLE);
                }
                else
                {
                    Comm.reduceLocal(x, opInOut, n, MPI.DOUBLE, op);
                }
                break;
            default:
                throw new IllegalStateException("kernel=" + kernel);
        }
    }

    private static double dot(final double[] a, final double[] b, final int n)
    {
        double sum = 0;
        for (int i = 0; i < n; i++)
        {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static void poly(final double[] in, final double[] out, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final double v = in[i];
            out[i] = ((0.25 * v - 1.5) * v + 2.0) * v + 0.75;
        }
    }

    private static double mean(final double[] values)
    {
        double sum = 0;
        for (final double v : values)
        {
            sum += v;
        }
        return sum / values.length;
    }

    private static String list(final double[] values)
    {
        final StringBuilder sb = new StringBuilder();
        for (final double v : values)
        {
            sb.append(sb.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.4f", v));
        }
        return sb.toString();
    }

    private static String value(final String[] args, final int i)
    {
        if (i >= args.length)
        {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static int positive(final String[] args, final int i)
    {
        final String s = value(args, i);
        final int v;
        try
        {
            v = Integer.parseInt(s);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(args[i - 1] + ": not a number: " + s, ex);
        }
        if (v < 1)
        {
            throw new IllegalArgumentException(args[i - 1] + " must be at least 1, got " + v);
        }
        return v;
    }

    private static String usage()
    {
        return "Usage: " + PROGRAM + " [--plain] [-n ELEMENTS] [-c COLD_CALLS] [-w WARM_SECONDS] [-r TIMED_CALLS]" +
            " [-k " + String.join(",", KERNELS) + "]";
    }
}
