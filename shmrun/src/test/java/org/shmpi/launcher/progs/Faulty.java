package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import mpi.Datatype;
import mpi.File;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.UserFunction;
import mpi.Win;

/**
 * A workload for the fault campaign (FaultCampaign): runs {@code WORKLOAD} in a loop until it is
 * ended from outside, after printing {@code READY <rank> <pid>}. Workloads: {@code p2p-large}
 * (rendezvous messages of 1-4 MiB around a ring), {@code coll-small} and {@code coll-large}
 * (bcast, allReduce, allGather, allToAll, barrier; 8 B and 256 KiB), {@code coll-split} (the same on
 * two communicators from a split, so hierarchical and flat paths), {@code rma} (an exclusive lock
 * held around puts, and fences), {@code io} (a collective write at every step; the first step's
 * data is synced before READY, and its file given as {@code DIR/io.dat}), {@code nbc} (an
 * iAllReduce in flight while computing).
 *
 * <p>A rank that finds the file {@code DIR/throw-<rank>} throws from inside an MPI call (a user
 * reduction's function), one that finds {@code DIR/oom-<rank>} runs out of heap there.
 */
public final class Faulty
{
    private static Path dir;
    private static int me;

    private Faulty()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final String workload = args[0];
        dir = Path.of(args[1]);
        final Intracomm world = MPI.COMM_WORLD;
        me = world.getRank();
        final int size = world.getSize();
        // A user reduction: the way a fault gets inside an MPI call.
        final Op trap = new Op(new UserFunction()
        {
            @Override
            public void call(final Object in, final Object inOut, final int count, final Datatype type)
            {
                trap();
            }
        }, true);
        File file = null;
        if (workload.equals("io"))
        {
            file = new File(world, dir.resolve("io.dat").toString(), MPI.MODE_CREATE | MPI.MODE_RDWR);
            final ByteBuffer b = MPI.newByteBuffer(4096);
            for (int i = 0; i < 4096; i++)
            {
                b.put(i, (byte)(me * 7 + i));
            }
            file.writeAtAll((long)me * 4096, b, 4096, MPI.BYTE);
            file.sync();
            world.barrier();
        }
        Win win = null;
        if (workload.equals("rma"))
        {
            win = new Win(MPI.newByteBuffer(1 << 16), 1 << 16, 1, MPI.INFO_NULL, world);
        }
        final Intracomm half = world.split(me % 2, me);
        System.out.println("READY " + me + " " + ProcessHandle.current().pid());
        System.out.flush();
        final ByteBuffer big = MPI.newByteBuffer(4 << 20);
        final ByteBuffer bigIn = MPI.newByteBuffer(4 << 20);
        final int[] small = new int[2 * size];
        final int[] smallIn = new int[2 * size];
        final double[] mid = new double[32 * 1024];
        final double[] midIn = new double[32 * 1024 * size];
        for (long step = 0; ; step++)
        {
            world.allReduce(new int[] {1}, new int[1], 1, MPI.INT, trap);
            switch (workload)
            {
                case "p2p-large":
                {
                    final int n = (1 << 20) + (int)(step % 4) * (1 << 20) - 8;
                    final Request r = world.iRecv(bigIn, n, MPI.BYTE, (me + size - 1) % size, 5);
                    world.send(big, n, MPI.BYTE, (me + 1) % size, 5);
                    r.waitFor();
                    break;
                }
                case "coll-small":
                case "coll-split":
                {
                    final Intracomm c = workload.equals("coll-split") && step % 2 == 1 ? half : world;
                    c.bcast(small, 2, MPI.INT, 0);
                    c.allReduce(small, smallIn, 2, MPI.INT, MPI.SUM);
                    c.allGather(small, 2, MPI.INT, smallIn, 2, MPI.INT);
                    c.allToAll(small, 1, MPI.INT, smallIn, 1, MPI.INT);
                    c.barrier();
                    break;
                }
                case "coll-large":
                    world.bcast(mid, mid.length, MPI.DOUBLE, (int)(step % size));
                    world.allReduce(mid, midIn, mid.length, MPI.DOUBLE, MPI.SUM);
                    world.allGather(mid, mid.length, MPI.DOUBLE, midIn, mid.length, MPI.DOUBLE);
                    break;
                case "rma":
                {
                    final int target = (me + 1) % size;
                    final java.nio.IntBuffer v = MPI.newIntBuffer(2);
                    v.put(0, me).put(1, (int)step);
                    win.lock(MPI.LOCK_EXCLUSIVE, target, 0);
                    win.put(v, 2, MPI.INT, target, 8 * me, 2, MPI.INT);
                    win.unlock(target);
                    win.fence(0);
                    win.put(v, 1, MPI.INT, target, 0, 1, MPI.INT);
                    win.fence(0);
                    break;
                }
                case "io":
                {
                    final ByteBuffer b = MPI.newByteBuffer(4096);
                    file.writeAtAll((long)(size + (int)(step % 64) * size + me) * 4096, b, 4096, MPI.BYTE);
                    break;
                }
                case "nbc":
                {
                    final Request r = world.iAllReduce(mid, midIn, mid.length, MPI.DOUBLE, MPI.SUM);
                    double x = 0;
                    for (int i = 0; i < 100_000; i++)
                    {
                        x += Math.sqrt(i + step);
                    }
                    mid[0] = x;
                    r.waitFor();
                    break;
                }
                default:
                    throw new IllegalArgumentException(workload);
            }
        }
    }

    /** Inside MPI (a user reduction): a fault asked for by the campaign. */
    private static void trap()
    {
        if (Files.exists(dir.resolve("throw-" + me)))
        {
            throw new IllegalStateException("fault campaign: thrown inside allReduce on rank " + me);
        }
        if (Files.exists(dir.resolve("oom-" + me)))
        {
            final List<long[]> hog = new ArrayList<>();
            while (true)
            {
                hog.add(new long[1 << 20]);
            }
        }
    }
}
