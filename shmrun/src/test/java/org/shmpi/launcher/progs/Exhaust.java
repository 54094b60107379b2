package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;

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

    public static void main(final String[] args)
    {
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
}
