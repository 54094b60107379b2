package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;

import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.Win;

/**
 * A short job that leaves a segment of every kind behind (run with {@code shmrun --keep-shm},
 * then read by {@code SegmentCheck}): point-to-point of every frame type (whole eager messages,
 * fragments, synchronous sends, rendezvous from a plain array and from the shared heap),
 * collectives small and large, blocking and not, on the world, a split and a split made again
 * after the first is freed; a window over the shared heap with exclusive and shared locks,
 * accumulates, fences and post/start/complete/wait, and an allocated one; a file with
 * explicit-offset, shared-pointer and atomic-mode writes. Every result is checked; a wrong one
 * ends the job. Prints {@code SEGMENTS OK rank <r>} before {@code MPI.Finalize}.
 *
 * <p>Arguments: the path of a file to write (deleted at close), rounds.
 */
public final class SegmentWorkload
{
    /** Empty, whole-frame, fragmented eager, rendezvous, and a rendezvous as large as the ring. */
    private static final int[] SIZES = {0, 8, 1_000, 70_000, 1 << 20};

    private SegmentWorkload()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int me = world.getRank();
        final int n = world.getSize();
        final String path = args[0];
        final int rounds = Integer.parseInt(args[1]);
        // Shared-heap buffers (large ones are heap segments), made once: the heap's files stay with --keep-shm.
        final ByteBuffer[] heapOut = new ByteBuffer[SIZES.length];
        final ByteBuffer[] heapIn = new ByteBuffer[SIZES.length];
        for (int i = 0; i < SIZES.length; i++)
        {
            heapOut[i] = MPI.newByteBuffer(Math.max(1, SIZES[i]));
            heapIn[i] = MPI.newByteBuffer(Math.max(1, SIZES[i]));
        }
        for (int round = 0; round < rounds; round++)
        {
            pointToPoint(world, me, n, round, heapOut, heapIn);
            collectives(world, round);
            final Intracomm half = world.split(me % 2, me);
            collectives(half, round);
            half.free();
            // A communicator made after a free: context ids are reused once freed.
            final Intracomm again = world.split(me % 2, -me);
            collectives(again, round);
            again.free();
        }
        windows(world, me, n, rounds);
        file(world, me, n, path);
        world.barrier();
        System.out.println("SEGMENTS OK rank " + me);
        System.out.flush();
        MPI.Finalize();
    }

    private static void pointToPoint(final Intracomm world, final int me, final int n, final int round,
        final ByteBuffer[] heapOut, final ByteBuffer[] heapIn)
    {
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        for (int s = 0; s < SIZES.length; s++)
        {
            final int size = SIZES[s];
            final byte[] out = new byte[size];
            final byte[] in = new byte[size];
            fill(out, me, round);
            Request r = world.iRecv(in, size, MPI.BYTE, left, 1);
            world.send(out, size, MPI.BYTE, right, 1);
            r.waitFor();
            expect(in, left, round, "send of " + size + " bytes");
            // Synchronous mode: the sender waits for the ACK frame.
            r = world.iRecv(in, size, MPI.BYTE, left, 2);
            world.sSend(out, size, MPI.BYTE, right, 2);
            r.waitFor();
            expect(in, left, round, "sSend of " + size + " bytes");
            // From the shared heap: a large one goes by single copy out of the sender's segment.
            heapOut[s].put(0, out, 0, size);
            r = world.iRecv(heapIn[s], size, MPI.BYTE, left, 3);
            world.iSend(heapOut[s], size, MPI.BYTE, right, 3).waitFor();
            r.waitFor();
            final byte[] got = new byte[size];
            heapIn[s].get(0, got, 0, size);
            expect(got, left, round, "heap send of " + size + " bytes");
        }
    }

    private static void collectives(final Intracomm c, final int round)
    {
        final int me = c.getRank();
        final int n = c.getSize();
        c.barrier();
        for (final int count : new int[] {1, 100, 200_000})
        {
            final long[] mine = new long[count];
            final long[] sum = new long[count];
            for (int i = 0; i < count; i++)
            {
                mine[i] = me * 1_000L + i + round;
            }
            c.allReduce(mine, sum, count, MPI.LONG, MPI.SUM);
            check(sum[count - 1] == n * (n - 1) / 2 * 1_000L + (long)n * (count - 1 + round), "allReduce " + count);
            final long[] b = new long[count];
            final int root = (round + count) % n;
            if (me == root)
            {
                System.arraycopy(mine, 0, b, 0, count);
            }
            c.bcast(b, count, MPI.LONG, root);
            check(b[count - 1] == root * 1_000L + count - 1 + round, "bcast " + count);
            final long[] reduced = new long[count];
            c.reduce(mine, reduced, count, MPI.LONG, MPI.MAX, root);
            check(me != root || reduced[0] == (n - 1) * 1_000L + round, "reduce " + count);
        }
        final long[] all = new long[n];
        c.allGather(new long[] {me + round}, 1, MPI.LONG, all, 1, MPI.LONG);
        final long[] send = new long[n];
        final long[] swapped = new long[n];
        for (int i = 0; i < n; i++)
        {
            check(all[i] == i + round, "allGather " + i);
            send[i] = me * 100L + i;
        }
        c.allToAll(send, 1, MPI.LONG, swapped, 1, MPI.LONG);
        for (int i = 0; i < n; i++)
        {
            check(swapped[i] == i * 100L + me, "allToAll " + i);
        }
        // Nonblocking: the steps forms.
        final long[] one = {me + 1};
        final long[] total = new long[1];
        final Request r = c.iAllReduce(one, total, 1, MPI.LONG, MPI.SUM);
        c.iBarrier().waitFor();
        r.waitFor();
        check(total[0] == (long)n * (n + 1) / 2, "iAllReduce");
    }

    private static void windows(final Intracomm world, final int me, final int n, final int rounds)
    {
        final ByteBuffer memory = MPI.newByteBuffer(1 << 12);
        final Win win = new Win(memory, 1 << 12, 1, MPI.INFO_NULL, world);
        final int right = (me + 1) % n;
        final int left = (me + n - 1) % n;
        final ByteBuffer v = MPI.newByteBuffer(16);
        for (int round = 0; round < rounds; round++)
        {
            v.putLong(0, round).putLong(8, me);
            win.lock(MPI.LOCK_EXCLUSIVE, right, 0);
            win.put(v, 16, MPI.BYTE, right, 16 * round, 16, MPI.BYTE);
            win.unlock(right);
            final ByteBuffer add = MPI.newByteBuffer(8);
            add.putLong(0, 1);
            win.lock(MPI.LOCK_SHARED, 0, 0);
            win.accumulate(add, 1, MPI.LONG, 0, 2048, 1, MPI.LONG, MPI.SUM);
            win.unlock(0);
            win.fence(0);
            win.fence(0);
            check(memory.getLong(16 * round) == round && memory.getLong(16 * round + 8) == left, "window put");
        }
        check(me != 0 || memory.getLong(2048) == (long)rounds * n, "window accumulate");
        // Post/start/complete/wait with the neighbours: left puts into me, I put into right.
        final Group group = win.getGroup();
        final Group origins = group.incl(new int[] {left});
        final Group targets = group.incl(new int[] {right});
        win.post(origins, 0);
        win.start(targets, 0);
        v.putLong(0, -1).putLong(8, me);
        win.put(v, 16, MPI.BYTE, right, 3072, 16, MPI.BYTE);
        win.complete();
        win.waitFor();
        check(memory.getLong(3072) == -1 && memory.getLong(3080) == left, "pscw put");
        win.free();
        // An allocated window: data regions in the window segment.
        final ByteBuffer base = ByteBuffer.allocate(1);
        final Win allocated = new Win(64, 1, MPI.INFO_NULL, world, base, Win.FLAVOR_PRIVATE);
        allocated.lock(MPI.LOCK_EXCLUSIVE, right, 0);
        allocated.put(v, 16, MPI.BYTE, right, 0, 16, MPI.BYTE);
        allocated.unlock(right);
        allocated.fence(0);
        allocated.free();
    }

    private static void file(final Intracomm world, final int me, final int n, final String path)
    {
        final mpi.File f = new mpi.File(world, path, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        final byte[] block = new byte[4096];
        java.util.Arrays.fill(block, (byte)(me + 1));
        f.writeAt((long)me * block.length, block, block.length, MPI.BYTE);
        f.writeShared(block, 16, MPI.BYTE);
        f.setAtomicity(true);
        f.writeAt((long)(n + me) * block.length, block, block.length, MPI.BYTE);
        f.setAtomicity(false);
        f.sync();
        world.barrier();
        final byte[] back = new byte[block.length];
        f.readAt((long)me * block.length, back, back.length, MPI.BYTE);
        check(back[back.length - 1] == me + 1, "file readAt");
        f.close();
    }

    private static void fill(final byte[] buf, final int src, final int round)
    {
        for (int i = 0; i < buf.length; i++)
        {
            buf[i] = (byte)(src * 31 + round * 7 + i);
        }
    }

    private static void expect(final byte[] buf, final int src, final int round, final String what)
    {
        for (int i = 0; i < buf.length; i++)
        {
            check(buf[i] == (byte)(src * 31 + round * 7 + i), what + ": byte " + i + " from " + src);
        }
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError("segment workload: wrong result: " + what);
        }
    }
}
