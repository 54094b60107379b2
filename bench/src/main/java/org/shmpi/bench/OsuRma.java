package org.shmpi.bench;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/**
 * OSU-style one-sided benchmarks, as {@code osu_put_latency}, {@code osu_get_latency},
 * {@code osu_put_bw}, {@code osu_get_bw}, {@code osu_acc_latency}, {@code osu_fop_latency} and
 * {@code osu_cas_latency}: rank 0 is the origin, rank 1 the target; other ranks only create and
 * free the window. Its C twin is {@code bench/native/osu_rma_lite.c} (same options, same loops).
 *
 * <pre>shmrun -np 2 -cp shmpi-bench.jar org.shmpi.bench.OsuRma TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP]
 *     [-W WINDOW] [-s lock|flush|fence|pscw] [-w allocate|create|dynamic] [-J SECONDS]
 * TEST: put_latency get_latency put_bw get_bw acc_latency fop_latency cas_latency store_latency</pre>
 *
 * Loops per synchronisation ({@code -s}), each iteration timed as a whole:
 * <ul>
 * <li>{@code lock}: lock the target exclusively, the operation, unlock;</li>
 * <li>{@code flush} (default): one shared lock around the loop; the operation, flush;</li>
 * <li>{@code fence}: fence, the operation (origin only), fence, on both ranks;</li>
 * <li>{@code pscw}: the origin starts, operates and completes, the target posts and waits.</li>
 * </ul>
 * Bandwidth tests issue {@code -W} operations (default 64) per synchronisation. Latency: µs per
 * iteration; bandwidth: MB/s (10^6 bytes). Accumulate sums {@code size/4} ints; fetch-and-op
 * adds one long; compare-and-swap swaps one long. Buffers: {@code MPI.newByteBuffer} (direct).
 * {@code store_latency} (shmpi only, the floor the issue measures puts against): {@code size}
 * bytes stored straight into the target's memory through {@code sharedQuery}, then a full
 * fence, in the place of the operation and its flush (allocate or create windows).
 */
public final class OsuRma
{
    private OsuRma()
    {
    }

    private static final int LARGE = 8192;

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int rank = world.getRank();
        if (args.length == 0)
        {
            throw new IllegalArgumentException("usage: OsuRma TEST [options]");
        }
        final String test = args[0];
        int min = -1;
        int max = 1 << 22;
        int iterations = -1;
        int warmup = -1;
        int window = 64;
        String sync = "flush";
        String winType = "allocate";
        double jitSeconds = 1.0;
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
                case "-W" -> window = Integer.parseInt(args[++i]);
                case "-s" -> sync = args[++i];
                case "-w" -> winType = args[++i];
                case "-J" -> jitSeconds = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final boolean atomic = test.equals("fop_latency") || test.equals("cas_latency");
        final boolean bandwidth = test.endsWith("_bw");
        final boolean accumulate = test.equals("acc_latency");
        if (!List.of("put_latency", "get_latency", "put_bw", "get_bw", "acc_latency", "fop_latency", "cas_latency",
            "store_latency").contains(test))
        {
            throw new IllegalArgumentException("not a test: " + test);
        }
        if (!List.of("lock", "flush", "fence", "pscw").contains(sync))
        {
            throw new IllegalArgumentException("not a synchronisation: " + sync);
        }
        if (atomic)
        {
            min = 8;
            max = 8;
        }
        if (min < 0)
        {
            min = accumulate ? 4 : 1;
        }
        if (world.getSize() < 2)
        {
            throw new IllegalArgumentException("OsuRma needs 2 ranks or more");
        }
        final List<Integer> sizes = new ArrayList<>();
        for (int s = Math.max(min, 1); s <= max; s *= 2)
        {
            sizes.add(s);
        }
        final int bytes = max;
        final ByteBuffer origin = MPI.newByteBuffer(Math.max(bytes, 8));
        final ByteBuffer result = MPI.newByteBuffer(Math.max(bytes, 8));
        final ByteBuffer memory = MPI.newByteBuffer(Math.max(bytes, 8));
        final Win win = switch (winType)
        {
            case "allocate" -> new Win(Math.max(bytes, 8), 1, MPI.INFO_NULL, world, origin, Win.FLAVOR_PRIVATE);
            case "create" -> new Win(memory, Math.max(bytes, 8), 1, MPI.INFO_NULL, world);
            case "dynamic" -> new Win(MPI.INFO_NULL, world);
            default -> throw new IllegalArgumentException("not a window type: " + winType);
        };
        int disp = 0;
        if (winType.equals("dynamic"))
        {
            win.attach(memory, Math.max(bytes, 8));
            final int[] d = {win.getDisplacement(memory)};
            world.bcast(d, 1, MPI.INT, 1);
            disp = d[0];
        }
        if (rank == 0)
        {
            System.out.println("# OSU MPI-style " + test + " (shmpi-bench OsuRma, " + world.getSize() + " ranks)");
            System.out.println("# window: " + winType + ", synchronisation: " + sync +
                (bandwidth ? ", window of " + window + " operations" : ""));
            System.out.println(bandwidth ? "# Size      Bandwidth (MB/s)" : "# Size          Latency (us)");
        }
        final Group self = world.getGroup();
        final Group target = self.incl(new int[] {1});
        final Group originGroup = self.incl(new int[] {0});
        final Runner r = new Runner(test, sync, win, rank, disp, origin, result, target, originGroup, window);
        // JIT warm-up on the smallest size, then the run.
        final long until = System.nanoTime() + (long)(jitSeconds * 1e9);
        final int[] go = {1};
        while (go[0] == 1)
        {
            r.loop(sizes.get(0), 200);
            go[0] = System.nanoTime() < until ? 1 : 0;
            world.bcast(go, 1, MPI.INT, 0);
        }
        for (final int size : sizes)
        {
            final boolean large = size > LARGE;
            final int iters = iterations > 0 ? iterations : atomic || !large ? (bandwidth ? 1000 : 10000) :
                (bandwidth ? 100 : 1000);
            final int skip = warmup >= 0 ? warmup : large ? 10 : 100;
            r.loop(size, skip);
            world.barrier();
            final double t = r.loop(size, iters);
            if (rank == 0)
            {
                if (bandwidth)
                {
                    System.out.println(String.format(Locale.ROOT, "%-10d%18.2f", size,
                        (double)size * window * iters / t / 1e6));
                }
                else
                {
                    System.out.println(String.format(Locale.ROOT, "%-10d%18.3f", size, t * 1e6 / iters));
                }
                System.out.flush();
            }
        }
        world.barrier();
        if (winType.equals("dynamic"))
        {
            win.detach(memory);
        }
        target.free();
        originGroup.free();
        self.free();
        win.free();
        MPI.Finalize();
    }

    /** One benchmark's loop. */
    private static final class Runner
    {
        private final String test;
        private final String sync;
        private final Win win;
        private final int rank;
        private final int disp;
        private final ByteBuffer origin;
        private final ByteBuffer result;
        private final Group target;
        private final Group originGroup;
        private final int window;
        private final LongBuffer one = MPI.newLongBuffer(1).put(0, 1);
        private final LongBuffer compare = MPI.newLongBuffer(1);
        private final LongBuffer fetched = MPI.newLongBuffer(1);
        private final IntBuffer ints;
        private ByteBuffer peer;

        Runner(final String test, final String sync, final Win win, final int rank, final int disp,
            final ByteBuffer origin, final ByteBuffer result, final Group target, final Group originGroup,
            final int window)
        {
            this.test = test;
            this.sync = sync;
            this.win = win;
            this.rank = rank;
            this.disp = disp;
            this.origin = origin;
            this.result = result;
            this.target = target;
            this.originGroup = originGroup;
            this.window = window;
            this.ints = origin.asIntBuffer();
        }

        private void operate(final int size, final int count)
        {
            for (int k = 0; k < count; k++)
            {
                switch (test)
                {
                    case "put_latency", "put_bw" -> win.put(origin, size, MPI.BYTE, 1, disp, size, MPI.BYTE);
                    case "get_latency", "get_bw" -> win.get(result, size, MPI.BYTE, 1, disp, size, MPI.BYTE);
                    case "acc_latency" ->
                        win.accumulate(ints, size / 4, MPI.INT, 1, disp, size / 4, MPI.INT, MPI.SUM);
                    case "fop_latency" -> win.fetchAndOp(one, fetched, MPI.LONG, 1, disp, MPI.SUM);
                    case "cas_latency" -> win.compareAndSwap(one, compare, fetched, MPI.LONG, 1, disp);
                    case "store_latency" ->
                    {
                        if (peer == null)
                        {
                            peer = win.sharedQuery(1).getBuffer();
                        }
                        for (int b = 0; b + 8 <= size; b += 8)
                        {
                            peer.putLong(b, b);
                        }
                        for (int b = size & ~7; b < size; b++)
                        {
                            peer.put(b, (byte)b);
                        }
                    }
                    default -> throw new IllegalStateException(test);
                }
            }
        }

        /** {@code iterations} iterations at {@code size}; the seconds they took (on rank 0). */
        double loop(final int size, final int iterations)
        {
            final int count = test.endsWith("_bw") ? window : 1;
            final long t0 = System.nanoTime();
            switch (sync)
            {
                case "lock" ->
                {
                    if (rank == 0)
                    {
                        for (int i = 0; i < iterations; i++)
                        {
                            win.lock(MPI.LOCK_EXCLUSIVE, 1, 0);
                            operate(size, count);
                            win.unlock(1);
                        }
                    }
                }
                case "flush" ->
                {
                    if (rank == 0)
                    {
                        win.lock(MPI.LOCK_SHARED, 1, 0);
                        for (int i = 0; i < iterations; i++)
                        {
                            operate(size, count);
                            if (test.equals("store_latency"))
                            {
                                java.lang.invoke.VarHandle.fullFence();
                            }
                            else
                            {
                                win.flush(1);
                            }
                        }
                        win.unlock(1);
                    }
                }
                case "fence" ->
                {
                    for (int i = 0; i < iterations; i++)
                    {
                        win.fence(0);
                        if (rank == 0)
                        {
                            operate(size, count);
                        }
                        win.fence(0);
                    }
                }
                case "pscw" ->
                {
                    for (int i = 0; i < iterations; i++)
                    {
                        if (rank == 0)
                        {
                            win.start(target, 0);
                            operate(size, count);
                            win.complete();
                        }
                        else if (rank == 1)
                        {
                            win.post(originGroup, 0);
                            win.waitFor();
                        }
                    }
                }
                default -> throw new IllegalStateException(sync);
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            MPI.COMM_WORLD.barrier();
            return seconds;
        }
    }
}
