package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;

import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * Large messages between rank pairs, up to 256 MiB by default, from arrays and direct buffers,
 * every byte verified. Prints {@code BIG OK rank=.. bytes=..}.
 *
 * <p>Argument: the largest size in MiB (default 256).
 */
public final class Big
{
    private Big()
    {
    }

    private static byte expected(final int src, final long i)
    {
        return (byte)(i * 31 + (i >>> 13) + src * 7);
    }

    public static void main(final String[] args)
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int maxMib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        final int peer = size == 1 ? 0 : rank ^ 1;
        long total = 0;
        final int[] sizes = {0, 1, (1 << 20) - 1, (64 << 20) + 3, maxMib << 20};
        for (final int n : sizes)
        {
            for (final boolean direct : new boolean[] {false, true})
            {
                if (direct && n > (64 << 20) + 3)
                {
                    continue;   // one direct buffer run of 64 MiB is enough; keeps memory modest
                }
                final Object out;
                final Object in;
                if (direct)
                {
                    final ByteBuffer o = MPI.newByteBuffer(n);
                    for (int i = 0; i < n; i++)
                    {
                        o.put(i, expected(rank, i));
                    }
                    out = o;
                    in = MPI.newByteBuffer(n);
                }
                else
                {
                    final byte[] o = new byte[n];
                    for (int i = 0; i < n; i++)
                    {
                        o[i] = expected(rank, i);
                    }
                    out = o;
                    in = new byte[n];
                }
                final Request r = MPI.COMM_WORLD.iRecv(in, n, MPI.BYTE, peer, 1);
                final Request s = MPI.COMM_WORLD.iSend(out, n, MPI.BYTE, peer, 1);
                final Status st = r.waitStatus();
                s.waitFor();
                if (st.getCount(MPI.BYTE) != n)
                {
                    throw new IllegalStateException("count " + st.getCount(MPI.BYTE) + " for " + n);
                }
                for (int i = 0; i < n; i++)
                {
                    final byte b = direct ? ((ByteBuffer)in).get(i) : ((byte[])in)[i];
                    if (b != expected(peer, i))
                    {
                        throw new IllegalStateException("size " + n + " direct=" + direct + ": byte " + i + " wrong");
                    }
                }
                total += n;
            }
        }
        MPI.COMM_WORLD.barrier();
        System.out.println("BIG OK rank=" + rank + " bytes=" + total);
        MPI.Finalize();
    }
}
