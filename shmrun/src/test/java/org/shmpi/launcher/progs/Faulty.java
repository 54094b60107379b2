package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import mpi.Comm;
import mpi.Datatype;
import mpi.File;
import mpi.Intercomm;
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
 * iAllReduce in flight while computing), {@code spawn} (the world spawns 1 or 2 children, which
 * print {@code CHILD <pid>} before their {@code MPI.Init}; parents and children exchange for
 * {@link #CHILD_EXCHANGE_MS} (point-to-point, an inter-communicator bcast, a merged allReduce, a
 * reduce rooted at each child in turn, a local reduction in each child), print {@code CHILD-END
 * <pid>}, disconnect; the children finalize), {@code connect} (two jobs: {@code connect DIR
 * server} opens a port at rank 0, writes it to {@code DIR/port} and accepts on its world, {@code
 * connect DIR client} connects to it; that first connection stays open and carries an exchange
 * each step, and each step joins the two worlds once more through the port, exchanges, merges and
 * disconnects).
 *
 * <p>A process that finds the file {@code DIR/throw-<pid>} throws from inside an MPI call (a user
 * reduction's function), one that finds {@code DIR/oom-<pid>} runs out of heap there; first it
 * writes the time (ms) into {@code DIR/fired-<pid>}.
 */
public final class Faulty
{
    /** The first argument of a spawned child. */
    static final String CHILD = "spawn-child";
    /** How long parents and children of one spawn exchange before they disconnect. */
    static final long CHILD_EXCHANGE_MS = 1_000;

    private static Path dir;
    private static long pid;

    private Faulty()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String workload = args[0];
        dir = Path.of(args[1]);
        pid = ProcessHandle.current().pid();
        if (workload.equals(CHILD))
        {
            // Before Init: a fault may come while the child starts and connects to its parents.
            System.out.println("CHILD " + pid);
            System.out.flush();
            MPI.Init(args);
            exchange(Intercomm.getParent(), false, trapOp());
            MPI.Finalize();
            return;
        }
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int me = world.getRank();
        final int size = world.getSize();
        final Op trap = trapOp();
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
        final boolean server = workload.equals("connect") && args[2].equals("server");
        String port = null;
        Intercomm anchor = null;
        if (workload.equals("connect"))
        {
            port = me == 0 ? (server ? openPort() : readPort()) : null;
            anchor = server ? world.accept(port, 0) : world.connect(port, 0);
        }
        System.out.println("READY " + me + " " + pid);
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
                case "spawn":
                {
                    final Intercomm children = world.spawn("java", new String[] {Faulty.class.getName(), CHILD,
                        dir.toString()}, 1 + (int)(step % 2), MPI.INFO_NULL, 0, null);
                    exchange(children, true, trap);
                    break;
                }
                case "connect":
                {
                    final int[] v = {(int)step};
                    anchor.allReduce(v, new int[1], 1, MPI.INT, MPI.SUM);
                    anchor.sendRecv(v, 1, MPI.INT, me, 3, new int[1], 1, MPI.INT, me, 3);
                    final Intercomm ic = server ? world.accept(port, 0) : world.connect(port, 0);
                    final Intracomm merged = ic.merge(!server);
                    ic.bcast(v, 1, MPI.INT, server ? (me == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
                    merged.allReduce(v, new int[1], 1, MPI.INT, trap);
                    merged.reduce(v, new int[1], 1, MPI.INT, trap, (int)(step % merged.getSize()));
                    merged.free();
                    ic.disconnect();
                    break;
                }
                default:
                    throw new IllegalArgumentException(workload);
            }
        }
    }

    /** A user reduction: the way a fault gets inside an MPI call. */
    private static Op trapOp()
    {
        return new Op(new UserFunction()
        {
            @Override
            public void call(final Object in, final Object inOut, final int count, final Datatype type)
            {
                trap();
            }
        }, true);
    }

    /**
     * Parents and children of one spawn, on both sides: for {@link #CHILD_EXCHANGE_MS} (the
     * parents' root decides) rounds of point-to-point between each child and one parent, a merged
     * allReduce and a reduce rooted at a child, a local reduction in the children (so that the trap
     * surely runs there), an inter-communicator bcast; then the children print {@code CHILD-END
     * <pid>}, and both disconnect.
     */
    private static void exchange(final Intercomm ic, final boolean parent, final Op trap)
    {
        final Intracomm merged = ic.merge(!parent);
        final int parents = parent ? ic.getSize() : ic.getRemoteSize();
        final int children = parent ? ic.getRemoteSize() : ic.getSize();
        final int rank = ic.getRank();
        final long start = System.nanoTime();
        final int[] go = {1};
        for (int round = 0; go[0] == 1; round++)
        {
            final int[] v = {round};
            for (int c = 0; c < children; c++)
            {
                final int p = (c + round) % parents;
                if (parent && rank == p)
                {
                    ic.sendRecv(v, 1, MPI.INT, c, 4, new int[1], 1, MPI.INT, c, 4);
                }
                else if (!parent && rank == c)
                {
                    ic.sendRecv(v, 1, MPI.INT, p, 4, new int[1], 1, MPI.INT, p, 4);
                }
            }
            merged.allReduce(v, new int[1], 1, MPI.INT, trap);
            merged.reduce(v, new int[1], 1, MPI.INT, trap, parents + round % children);
            if (!parent)
            {
                // Where a collective runs the reduction depends on its algorithm; here it surely runs in the child.
                Comm.reduceLocal(v, new int[1], 1, MPI.INT, trap);
            }
            ic.bcast(v, 1, MPI.INT, parent ? (rank == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
            if (parent && rank == 0)
            {
                go[0] = System.nanoTime() - start < CHILD_EXCHANGE_MS * 1_000_000 ? 1 : 0;
            }
            merged.bcast(go, 1, MPI.INT, 0);
        }
        merged.free();
        if (!parent)
        {
            System.out.println("CHILD-END " + pid);
            System.out.flush();
        }
        ic.disconnect();
    }

    /** Server's rank 0: opens the port and hands it to the client job through {@code DIR/port}. */
    private static String openPort() throws java.io.IOException
    {
        final String port = Intracomm.openPort();
        final Path tmp = dir.resolve("port.tmp");
        Files.writeString(tmp, port);
        Files.move(tmp, dir.resolve("port"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return port;
    }

    /** Client's rank 0: the server's port (waits for it, at most 60 s). */
    private static String readPort() throws java.io.IOException, InterruptedException
    {
        final Path f = dir.resolve("port");
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(f))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("no port in " + f);
            }
            Thread.sleep(10);
        }
        return Files.readString(f);
    }

    /** The moment the fault happens, for the campaign's time to end: {@code DIR/fired-<pid>} holds it (ms). */
    private static void fired()
    {
        try
        {
            Files.writeString(dir.resolve("fired-" + pid), Long.toString(System.currentTimeMillis()));
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /** Inside MPI (a user reduction): a fault asked for by the campaign. */
    private static void trap()
    {
        if (Files.exists(dir.resolve("throw-" + pid)))
        {
            fired();
            throw new IllegalStateException("fault campaign: thrown inside a reduction in pid " + pid);
        }
        if (Files.exists(dir.resolve("oom-" + pid)))
        {
            fired();
            final List<long[]> hog = new ArrayList<>();
            while (true)
            {
                hog.add(new long[1 << 20]);
            }
        }
    }
}
