package org.shmpi.bench;

import java.util.Locale;

import mpi.File;
import mpi.Intracomm;
import mpi.MPI;

/**
 * How a fresh job's MPI-IO calls speed up: every rank makes {@code -n} calls of {@code -s} bytes
 * straight after {@code MPI.Init} (no warm-up), then the same again on a second file in the same
 * JVM, and prints the mean time per call of each bucket of {@code -k} calls for both passes. The
 * first pass is what a short job sees; the second, with the path compiled, what the calls
 * themselves cost. {@code OsuIo} times one stretch of the first pass.
 *
 * <pre>shmrun -np N -cp shmpi-bench.jar org.shmpi.bench.IoWarmupCurve TEST [-s 65536] [-n 2048] [-k 256] [-d DIR]
 * TEST: ind_write ind_read shared_append</pre>
 *
 * Prints, per rank and pass, {@code pass P rank R us/call per K: <mean of each bucket> total_ms T};
 * with {@code -t} also {@code starts_ns} and each bucket's start ({@code System.nanoTime()}, the
 * clock of the JVM log decorator {@code timenanos}, to line buckets up with e.g.
 * {@code -Xlog:jit+compilation=debug:file=F:timenanos}).
 * Files: {@code DIR/io_warmup.<pass>.<pid of rank 0>.dat}, deleted on close.
 */
public final class IoWarmupCurve
{
    private IoWarmupCurve()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int rank = world.getRank();
        if (args.length == 0)
        {
            throw new IllegalArgumentException("usage: IoWarmupCurve TEST [-s SIZE] [-n CALLS] [-k BUCKET] [-d DIR]");
        }
        final String test = args[0];
        if (!test.equals("ind_write") && !test.equals("ind_read") && !test.equals("shared_append"))
        {
            throw new IllegalArgumentException("not a test: " + test);
        }
        int size = 65536;
        int n = 2048;
        int k = 256;
        String dir = "/dev/shm";
        boolean stamps = false;
        for (int i = 1; i < args.length; i++)
        {
            switch (args[i])
            {
                case "-s" -> size = Integer.parseInt(args[++i]);
                case "-n" -> n = Integer.parseInt(args[++i]);
                case "-k" -> k = Integer.parseInt(args[++i]);
                case "-d" -> dir = args[++i];
                case "-t" -> stamps = true;
                default -> throw new IllegalArgumentException("unknown option: " + args[i]);
            }
        }
        final long[] id = {ProcessHandle.current().pid()};
        world.bcast(id, 1, MPI.LONG, 0);
        final byte[] buf = new byte[size];
        final StringBuilder out = new StringBuilder();
        for (int pass = 0; pass < 2; pass++)
        {
            final File f = new File(world, dir + "/io_warmup." + pass + "." + id[0] + ".dat",
                MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
            if (test.equals("ind_read"))
            {
                f.writeAt((long)rank * size, buf, size, MPI.BYTE);
            }
            world.barrier();
            final long[] t = new long[(n + k - 1) / k + 1];
            int b = 0;
            final long start = System.nanoTime();
            t[b++] = start;
            final int kind = test.equals("ind_write") ? 0 : test.equals("ind_read") ? 1 : 2;
            for (int i = 0; i < n; i += k)
            {
                calls(f, kind, buf, size, rank, Math.min(k, n - i));
                t[b++] = System.nanoTime();
            }
            out.setLength(0);
            out.append("pass ").append(pass).append(" rank ").append(rank).append(" us/call per ").append(k)
                .append(':');
            for (int j = 1; j < b; j++)
            {
                out.append(String.format(Locale.ROOT, " %.1f", (t[j] - t[j - 1]) / 1e3 / k));
            }
            out.append(" total_ms ").append((t[b - 1] - start) / 1_000_000);
            if (stamps)
            {
                out.append(" starts_ns");
                for (int j = 0; j < b; j++)
                {
                    out.append(' ').append(t[j]);
                }
            }
            System.out.println(out);
            f.close();
        }
        MPI.Finalize();
    }

    /** {@code calls} calls of one kind, in a small method (see {@code OsuIo.timed}). */
    private static void calls(final File f, final int kind, final byte[] buf, final int size, final int rank,
        final int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            switch (kind)
            {
                case 0 -> f.writeAt((long)rank * size, buf, size, MPI.BYTE);
                case 1 -> f.readAt((long)rank * size, buf, size, MPI.BYTE);
                default -> f.writeShared(buf, size, MPI.BYTE);
            }
        }
    }
}
