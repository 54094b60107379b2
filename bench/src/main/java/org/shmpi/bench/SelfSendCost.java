package org.shmpi.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import mpi.MPI;

/**
 * CPU time of the message path with no waiting in it: a rank sends a small message to itself and
 * receives it, {@code -n} times per block, and prints the thread CPU time per send+receive of each
 * block. Thread CPU time (not wall time) makes it readable on a loaded machine; run it under
 * {@code -Xint} to see what a cold JVM pays per message, and with default flags to see how fast
 * the JIT takes the cost down. Also prints the bytes the thread allocated per message in the last
 * block, for blocking send/recv and for {@code iSend}/{@code iRecv} + {@code waitFor}, on arrays
 * and on direct buffers (HotSpot's per-thread allocation counter).
 *
 * <pre>shmrun -np 1 -cp shmpi-bench.jar org.shmpi.bench.SelfSendCost [-n perBlock] [-b blocks] [-s bytes]</pre>
 */
public final class SelfSendCost
{
    private SelfSendCost()
    {
    }

    private static long allocated()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
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
        final java.nio.ByteBuffer dOut = MPI.newByteBuffer(bytes);
        final java.nio.ByteBuffer dIn = MPI.newByteBuffer(bytes);
        for (int mode = 0; mode < 4; mode++)
        {
            final boolean nonblocking = mode >= 2;
            final Object o = (mode & 1) == 0 ? out : dOut;
            final Object n = (mode & 1) == 0 ? in : dIn;
            long perMessage = 0;
            for (int b = 0; b < blocks; b++)
            {
                final long a0 = allocated();
                for (int i = 0; i < perBlock; i++)
                {
                    if (nonblocking)
                    {
                        final mpi.Request r = o instanceof byte[] ?
                            MPI.COMM_WORLD.iRecv(n, bytes, MPI.BYTE, self, 2) :
                            MPI.COMM_WORLD.iRecv((java.nio.Buffer)n, bytes, MPI.BYTE, self, 2);
                        final mpi.Request s = o instanceof byte[] ?
                            MPI.COMM_WORLD.iSend(o, bytes, MPI.BYTE, self, 2) :
                            MPI.COMM_WORLD.iSend((java.nio.Buffer)o, bytes, MPI.BYTE, self, 2);
                        s.waitFor();
                        r.waitFor();
                    }
                    else
                    {
                        MPI.COMM_WORLD.send(o, bytes, MPI.BYTE, self, 2);
                        MPI.COMM_WORLD.recv(n, bytes, MPI.BYTE, self, 2);
                    }
                }
                perMessage = (allocated() - a0) / perBlock;
            }
            System.out.println("alloc bytes per send+receive, last block: " +
                (nonblocking ? "iSend/iRecv+waitFor" : "send/recv") + " on " +
                ((mode & 1) == 0 ? "byte[]" : "direct buffer") + ": " + perMessage);
        }
        MPI.Finalize();
    }
}
