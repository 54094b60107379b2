package org.shmpi.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import mpi.MPI;

/**
 * CPU time of the message path with no waiting in it: a rank sends a small message to itself and
 * receives it, {@code -n} times per block, and prints the thread CPU time per send+receive of each
 * block. Thread CPU time (not wall time) makes it readable on a loaded machine; run it under
 * {@code -Xint} to see what a cold JVM pays per message, and with default flags to see how fast
 * the JIT takes the cost down.
 *
 * <pre>shmrun -np 1 -cp shmpi-bench.jar org.shmpi.bench.SelfSendCost [-n perBlock] [-b blocks] [-s bytes]</pre>
 */
public final class SelfSendCost
{
    private SelfSendCost()
    {
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        int perBlock = 1000;
        int blocks = 20;
        int bytes = 8;
        for (int i = 0; i + 1 < args.length; i++)
        {
            switch (args[i])
            {
                case "-n": perBlock = Integer.parseInt(args[i + 1]); break;
                case "-b": blocks = Integer.parseInt(args[i + 1]); break;
                case "-s": bytes = Integer.parseInt(args[i + 1]); break;
                default: break;
            }
        }
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final byte[] out = new byte[bytes];
        final byte[] in = new byte[bytes];
        final int self = MPI.COMM_WORLD.getRank();
        final StringBuilder line = new StringBuilder("self-send bytes=" + bytes + " ns_cpu_per_msg");
        long total = 0;
        for (int b = 0; b < blocks; b++)
        {
            final long t0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < perBlock; i++)
            {
                MPI.COMM_WORLD.send(out, bytes, MPI.BYTE, self, 1);
                MPI.COMM_WORLD.recv(in, bytes, MPI.BYTE, self, 1);
            }
            final long ns = (threads.getCurrentThreadCpuTime() - t0) / perBlock;
            total += ns;
            line.append(' ').append(ns);
        }
        System.out.println(line);
        MPI.Finalize();
    }
}
