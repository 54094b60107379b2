package org.shmpi.launcher.progs;

import java.lang.management.ManagementFactory;

import mpi.MPI;
import org.shmpi.affinity.Binding;

/**
 * Prints, for each rank, the CPUs it may run on and the JVM options it was started with:
 * {@code JVM rank=R cpus=LIST args=OPTION OPTION ...}. For the tests of shmrun's defaults. With
 * the argument {@code allreduce} it first sums the ranks with {@code allReduce}.
 */
public final class RankJvm
{
    private RankJvm()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        if (args.length > 0 && args[0].equals("allreduce"))
        {
            final int[] sum = new int[1];
            MPI.COMM_WORLD.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
            final int size = MPI.COMM_WORLD.getSize();
            if (sum[0] != size * (size - 1) / 2)
            {
                throw new IllegalStateException("allReduce: " + sum[0]);
            }
        }
        System.out.println("JVM rank=" + rank + " cpus=" + Binding.currentAffinity() + " args=" +
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        MPI.Finalize();
    }
}
