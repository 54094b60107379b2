package org.shmpi.launcher.progs;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import mpi.MPI;
import mpi.MPIException;
import mpi.Win;

/**
 * Runs in a small shared-memory directory (ExhaustionIT): a 64 MiB direct buffer still comes
 * (an ordinary one when the directory has no room), a 64 MiB window allocation fails with
 * ERR_NO_MEM on every rank naming shmpi.shm.dir, and the job goes on (a barrier, a small
 * allReduce) and finalizes.
 */
public final class Exhaust
{
    private Exhaust()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("fds"))
        {
            fds(args);
            return;
        }
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        final int rank = MPI.COMM_WORLD.getRank();
        final ByteBuffer b = MPI.newByteBuffer(64 << 20);
        b.put(b.capacity() - 1, (byte)1);
        System.out.println("BUFFER " + rank + " " + b.capacity());
        try
        {
            final Win w = new Win(64 << 20, 1, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newByteBuffer(1), Win.FLAVOR_SHARED);
            w.free();
            System.out.println("WINDOW " + rank + " made");
        }
        catch (final MPIException ex)
        {
            System.out.println("WINDOW " + rank + " class " + ex.getErrorClass() + " " + ex.getMessage());
        }
        MPI.COMM_WORLD.barrier();
        final int[] sum = new int[1];
        MPI.COMM_WORLD.allReduce(new int[] {1}, sum, 1, MPI.INT, MPI.SUM);
        System.out.println("DONE " + rank + " " + sum[0]);
        MPI.Finalize();
    }

    /**
     * Every rank takes all the file descriptors its limit allows, then creates a window, opens a
     * file, duplicates the world and reduces 1 MiB on the copy (its collective segment): each
     * either works or fails with an MPIException naming the open-file limit, on every rank alike;
     * with the descriptors given back, the same calls work and the job finalizes.
     */
    private static void fds(final String[] args) throws Exception
    {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        final int rank = MPI.COMM_WORLD.getRank();
        final String path = args[1] + "/fds-" + MPI.COMM_WORLD.getSize() + ".dat";
        MPI.COMM_WORLD.barrier();
        // The calls are made (their classes loaded) before the descriptors are taken.
        final Call window = () -> new Win(4096, 1, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newByteBuffer(1),
            Win.FLAVOR_SHARED).free();
        final Call file = () -> new mpi.File(MPI.COMM_WORLD, path, MPI.MODE_RDWR | MPI.MODE_CREATE).close();
        final Call reduce = () ->
        {
            final mpi.Intracomm c = MPI.COMM_WORLD.dup();
            c.setErrhandler(MPI.ERRORS_RETURN);
            final double[] in = new double[1 << 17];
            final double[] out = new double[1 << 17];
            java.util.Arrays.fill(in, 1);
            c.allReduce(in, out, in.length, MPI.DOUBLE, MPI.SUM);
            if (out[out.length - 1] != MPI.COMM_WORLD.getSize())
            {
                throw new IllegalStateException("wrong sum " + out[out.length - 1]);
            }
            c.free();
        };
        attempt(rank, "BEFORE", MPI.COMM_WORLD::barrier);
        final List<FileInputStream> held = new ArrayList<>();
        try
        {
            while (true)
            {
                held.add(new FileInputStream("/dev/null"));
            }
        }
        catch (final IOException ex)
        {
            System.out.println("HELD " + rank + " " + held.size() + " " + ex.getMessage());
        }
        attempt(rank, "WINDOW", window);
        attempt(rank, "FILE", file);
        attempt(rank, "REDUCE", reduce);
        for (final FileInputStream f : held)
        {
            f.close();
        }
        MPI.COMM_WORLD.barrier();
        attempt(rank, "AFTER WINDOW", window);
        attempt(rank, "AFTER REDUCE", reduce);
        attempt(rank, "AFTER FILE", () ->
            new mpi.File(MPI.COMM_WORLD, path, MPI.MODE_RDWR | MPI.MODE_CREATE | MPI.MODE_DELETE_ON_CLOSE).close());
        final int[] sum = new int[1];
        MPI.COMM_WORLD.allReduce(new int[] {1}, sum, 1, MPI.INT, MPI.SUM);
        System.out.println("DONE " + rank + " " + sum[0]);
        MPI.Finalize();
    }

    /** A call of {@link #fds}. */
    private interface Call
    {
        void run() throws MPIException;
    }

    private static void attempt(final int rank, final String what, final Call call)
    {
        try
        {
            call.run();
            System.out.println(what + " " + rank + " ok");
        }
        catch (final MPIException ex)
        {
            System.out.println(what + " " + rank + " class " + ex.getErrorClass() + " " + ex.getMessage());
        }
        catch (final RuntimeException | Error ex)
        {
            System.out.println(what + " " + rank + " DEFECT " + ex);
        }
    }
}
