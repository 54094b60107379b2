package org.shmpi.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import mpi.Datatype;
import mpi.File;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * MPI-IO bandwidth, in the OSU style: every rank moves {@code size} bytes per call, the file in
 * the page cache (written once before a read test; overwritten in place by a write test). Its C
 * twin is {@code bench/native/osu_io_lite.c} (same options, same calls).
 *
 * <pre>shmrun -np N -cp shmpi-bench.jar org.shmpi.bench.OsuIo TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP]
 *     [-b BLOCK] [-d DIR]
 * TEST: coll_write coll_read ind_write ind_read shared_append</pre>
 *
 * <ul>
 * <li>{@code coll_write}/{@code coll_read}: a 1-D block-cyclic view (blocks of {@code -b}
 * bytes, default 4096, dealt round-robin to the ranks), {@code writeAtAll}/{@code readAtAll}
 * at offset 0;</li>
 * <li>{@code ind_write}/{@code ind_read}: each rank's contiguous region, {@code writeAt}/{@code readAt};</li>
 * <li>{@code shared_append}: {@code writeShared}, the file growing (at most 256 MiB per size).</li>
 * </ul>
 * Calls per size: {@code -i}, default max(10, min(5000, 256 MiB / size)), so that the timed
 * stretch lasts tens of milliseconds (at 200 calls of 64 KiB it lasted half a millisecond, and
 * one descheduling of either rank decided the figure); {@code -x} untimed calls first, default a
 * tenth. Output: MB/s (10^6 bytes) of all ranks together, between two barriers. Buffers: Java
 * {@code byte[]}. Files: {@code DIR/osu_io_TEST.<pid of rank 0>.dat}, deleted on close.
 */
public final class OsuIo
{
    /** The tests, in the order of {@link #step}'s cases. */
    private static final List<String> KINDS =
        List.of("coll_write", "coll_read", "ind_write", "ind_read", "shared_append");

    private OsuIo()
    {
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int rank = world.getRank();
        final int np = world.getSize();
        if (args.length == 0)
        {
            throw new IllegalArgumentException("usage: OsuIo TEST [options]");
        }
        final String test = args[0];
        if (!KINDS.contains(test))
        {
            throw new IllegalArgumentException("not a test: " + test);
        }
        int min = 4096;
        int max = 4 << 20;
        int iterations = -1;
        int warmup = -1;
        int block = 4096;
        String dir = "/dev/shm";
        for (int i = 1; i < args.length; i++)
        {
            switch (args[i])
            {
                case "-m" ->
                {
                    final String v = args[++i];
                    final int colon = v.indexOf(':');
                    if (colon >= 0)
                    {
                        min = Integer.parseInt(v.substring(0, colon));
                        max = Integer.parseInt(v.substring(colon + 1));
                    }
                    else
                    {
                        max = Integer.parseInt(v);
                    }
                }
                case "-i" -> iterations = Integer.parseInt(args[++i]);
                case "-x" -> warmup = Integer.parseInt(args[++i]);
                case "-b" -> block = Integer.parseInt(args[++i]);
                case "-d" -> dir = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final long[] tag = {ProcessHandle.current().pid()};
        world.bcast(tag, 1, MPI.LONG, 0);
        final String name = dir + "/osu_io_" + test + "." + tag[0] + ".dat";
        if (rank == 0)
        {
            System.out.println("# OsuIo " + test + ", np " + np + ", dir " + dir + ", block " + block);
            System.out.println("# Size          MB/s");
        }
        final List<Integer> sizes = new ArrayList<>();
        for (int s = min; s <= max; s *= 2)
        {
            sizes.add(s);
        }
        for (final int size : sizes)
        {
            int iters = iterations > 0 ? iterations : Math.max(10, Math.min(5000, (256 << 20) / size));
            int warm = warmup >= 0 ? warmup : Math.max(2, iters / 10);
            if (test.equals("shared_append"))
            {
                final int bound = (int)Math.max(1, (256L << 20) / ((long)np * size));
                iters = Math.min(iters, bound);
                warm = Math.min(warm, bound);
            }
            final int b = Math.min(block, size);
            final byte[] buf = new byte[size];
            for (int i = 0; i < size; i++)
            {
                buf[i] = (byte)(rank + i);
            }
            final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
            Datatype filetype = null;
            if (test.startsWith("coll_"))
            {
                filetype = Datatype.createResized(Datatype.createContiguous(b, MPI.BYTE), 0, np * b);
                filetype.commit();
                f.setView((long)rank * b, MPI.BYTE, filetype, "native");
            }
            if (test.endsWith("_read"))
            {
                step(f, KINDS.indexOf(test.replace("_read", "_write")), buf, size, rank);
            }
            final int kind = KINDS.indexOf(test);
            repeat(f, kind, buf, size, rank, warm);
            final double seconds = timed(world, f, kind, buf, size, rank, iters);
            if (rank == 0)
            {
                System.out.println(String.format(Locale.ROOT, "%-10d %18.2f", size,
                    (double)size * np * iters / seconds / 1e6));
            }
            f.close();
            if (filetype != null)
            {
                filetype.free();
            }
        }
        MPI.Finalize();
    }

    /**
     * The timed stretch, between two barriers. The loops are in a method of their own: a loop in {@code main}
     * gets an on-stack-replacement compile of all of {@code main} (about 1 KB of bytecode, 20 to
     * 40 ms of compiler time on the rank's core) inside the stretch, which a fresh job's figure
     * would carry; the loop here costs a small method's compile.
     */
    private static double timed(final Intracomm world, final File f, final int kind, final byte[] buf, final int size,
        final int rank, final int iters)
    {
        world.barrier();
        final double t0 = MPI.wtime();
        repeat(f, kind, buf, size, rank, iters);
        world.barrier();
        return MPI.wtime() - t0;
    }

    private static void repeat(final File f, final int kind, final byte[] buf, final int size, final int rank,
        final int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            step(f, kind, buf, size, rank);
        }
    }

    /** One call of the test {@code KINDS.get(kind)} (an index, not the name: no string switch per call). */
    private static void step(final File f, final int kind, final byte[] buf, final int size, final int rank)
    {
        switch (kind)
        {
            case 0 -> f.writeAtAll(0, buf, size, MPI.BYTE);
            case 1 -> f.readAtAll(0, buf, size, MPI.BYTE);
            case 2 -> f.writeAt((long)rank * size, buf, size, MPI.BYTE);
            case 3 -> f.readAt((long)rank * size, buf, size, MPI.BYTE);
            case 4 -> f.writeShared(buf, size, MPI.BYTE);
            default -> throw new IllegalStateException("test " + kind);
        }
    }
}
