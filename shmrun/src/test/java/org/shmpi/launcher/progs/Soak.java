package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.util.Random;

import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.Win;

/**
 * The soak workload ({@code bench/soak}): rounds of randomized point-to-point (every pair, sizes
 * from 0 to 2 MiB, contents checked byte by byte), collectives (allReduce, bcast, allGather,
 * allToAll, on the world and on a split, results checked) and RMA (locked puts into the
 * neighbour's window, fences, contents checked) for {@code SECONDS}, with every round's sizes from
 * a seed all ranks share. A wrong byte ends the job at once. Prints a line a minute (rank 0) and
 * {@code SOAK OK rounds .. bytes .. errors 0} at the end.
 *
 * <p>Arguments: seconds, seed.
 */
public final class Soak
{
    private static final int MAX = 2 << 20;

    private Soak()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int me = world.getRank();
        final int n = world.getSize();
        final long seconds = Long.parseLong(args[0]);
        final long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
        final Intracomm half = world.split(me % 2, me);
        final ByteBuffer windowMemory = MPI.newByteBuffer(1 << 16);
        final Win win = new Win(windowMemory, 1 << 16, 1, MPI.INFO_NULL, world);
        final byte[][] out = new byte[n][MAX];
        final byte[][] in = new byte[n][MAX];
        final long start = System.nanoTime();
        long bytes = 0;
        long rounds = 0;
        long nextReport = 60;
        final int[] go = {1};
        while (go[0] == 1)
        {
            final Random r = new Random(seed * 1_000_003 + rounds);
            // Point-to-point: every ordered pair, one message each, sizes known to both sides.
            final int[][] sizes = new int[n][n];
            for (int s = 0; s < n; s++)
            {
                for (int d = 0; d < n; d++)
                {
                    final int p = r.nextInt(100);
                    sizes[s][d] = p < 5 ? r.nextInt(MAX + 1) : p < 30 ? r.nextInt(65_537) : r.nextInt(257);
                }
            }
            final Request[] reqs = new Request[2 * n];
            for (int s = 0; s < n; s++)
            {
                reqs[s] = world.iRecv(in[s], sizes[s][me], MPI.BYTE, s, 1);
            }
            for (int d = 0; d < n; d++)
            {
                fill(out[d], me, d, rounds, sizes[me][d]);
                reqs[n + d] = world.iSend(out[d], sizes[me][d], MPI.BYTE, d, 1);
                bytes += sizes[me][d];
            }
            Request.waitAll(reqs);
            final byte[] expect = new byte[MAX];
            for (int s = 0; s < n; s++)
            {
                fill(expect, s, me, rounds, sizes[s][me]);
                for (int i = 0; i < sizes[s][me]; i++)
                {
                    check(in[s][i] == expect[i], "p2p byte " + i + " from " + s + " in round " + rounds);
                }
            }
            // Collectives, results checked.
            final Intracomm c = rounds % 2 == 0 ? world : half;
            final int cn = c.getSize();
            final int count = 1 + r.nextInt(rounds % 7 == 0 ? 65_536 : 64);
            final long[] mine = new long[count];
            final long[] sum = new long[count];
            for (int i = 0; i < count; i++)
            {
                mine[i] = (long)c.getRank() * 1_000 + i;
            }
            c.allReduce(mine, sum, count, MPI.LONG, MPI.SUM);
            for (int i = 0; i < count; i++)
            {
                check(sum[i] == (long)cn * (cn - 1) / 2 * 1_000 + (long)cn * i, "allReduce element " + i);
            }
            final int root = (int)(rounds % cn);
            final long[] b = new long[count];
            if (c.getRank() == root)
            {
                System.arraycopy(mine, 0, b, 0, count);
            }
            c.bcast(b, count, MPI.LONG, root);
            check(b[count - 1] == (long)root * 1_000 + count - 1, "bcast");
            final long[] all = new long[cn];
            c.allGather(new long[] {c.getRank() + rounds}, 1, MPI.LONG, all, 1, MPI.LONG);
            final long[] swapped = new long[cn];
            final long[] send = new long[cn];
            for (int i = 0; i < cn; i++)
            {
                check(all[i] == i + rounds, "allGather " + i);
                send[i] = c.getRank() * 100L + i;
            }
            c.allToAll(send, 1, MPI.LONG, swapped, 1, MPI.LONG);
            for (int i = 0; i < cn; i++)
            {
                check(swapped[i] == i * 100L + c.getRank(), "allToAll " + i);
            }
            // RMA: a locked put into the right neighbour's window, then a fence, then a check.
            final int right = (me + 1) % n;
            final ByteBuffer v = MPI.newByteBuffer(16);
            v.putLong(0, rounds).putLong(8, me);
            win.lock(MPI.LOCK_EXCLUSIVE, right, 0);
            win.put(v, 16, MPI.BYTE, right, 16 * (int)(rounds % 64), 16, MPI.BYTE);
            win.unlock(right);
            win.fence(0);
            win.fence(0);
            final int at = 16 * (int)(rounds % 64);
            check(windowMemory.getLong(at) == rounds && windowMemory.getLong(at + 8) == (me + n - 1) % n,
                "window in round " + rounds);
            rounds++;
            final long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
            go[0] = elapsed < seconds ? 1 : 0;
            world.bcast(go, 1, MPI.INT, 0);
            if (me == 0 && elapsed >= nextReport)
            {
                System.out.println("SOAK minute " + elapsed / 60 + " rounds " + rounds + " bytes " + bytes);
                System.out.flush();
                nextReport += 60;
            }
        }
        win.free();
        half.free();
        System.out.println("SOAK OK rank " + me + " rounds " + rounds + " bytes " + bytes + " errors 0");
        MPI.Finalize();
    }

    private static void fill(final byte[] buf, final int src, final int dest, final long round, final int size)
    {
        long x = ((((long)src << 40) ^ ((long)dest << 20)) + round) * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < size; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            buf[i] = (byte)x;
        }
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError("soak: wrong data: " + what);
        }
    }
}
