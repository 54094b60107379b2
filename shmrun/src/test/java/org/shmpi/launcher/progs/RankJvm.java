package org.shmpi.launcher.progs;

import java.lang.management.ManagementFactory;

import mpi.MPI;
import org.shmpi.affinity.Binding;

/**
 * Prints, for each rank, the CPUs it may run on and the JVM options it was started with:
 * {@code JVM rank=R cpus=LIST args=OPTION OPTION ...}. For the tests of shmrun's defaults.
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
        System.out.println("JVM rank=" + rank + " cpus=" + Binding.currentAffinity() + " args=" +
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        MPI.Finalize();
    }
}
