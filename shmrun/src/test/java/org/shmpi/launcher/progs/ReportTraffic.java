package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import mpi.File;
import mpi.MPI;
import mpi.Win;

/**
 * A job whose traffic is known exactly, for the report's tests (ReportIT). At np ranks, rank r:
 * <ul>
 * <li>sends {@code r + 1} messages of {@code (q + 1) * 100} bytes to every other rank q (send,
 *     byte arrays) and receives the others' (recv);</li>
 * <li>in region {@code "solve"} ({@code MPI.pControl(1, "solve")} ... {@code pControl(-1, "solve")}):
 *     5 allReduce of 8 doubles, 3 bcast of 1,000 bytes from rank 0, 2 barriers;</li>
 * <li>a gather of 3 ints to the last rank, a scan of one long;</li>
 * <li>writes 4 blocks of 4,096 bytes at its own offsets (writeAt), one collective block of 10,000
 *     bytes (writeAtAll), reads its 4 blocks back (readAt) and checks them, in {@code DIR/report.dat};</li>
 * <li>on a window of 1,024 bytes: fence, one put of 16 bytes to every other rank, fence; then a
 *     lock of rank 0, a get of 8 bytes, unlock.</li>
 * </ul>
 * With {@code p2p} as the second argument only the messages and the region's collectives run (for
 * jobs across nodes). With {@code kill} as the second argument, rank 1 (np at least 2) first sends 7 messages of 64
 * bytes to rank 0, sleeps 1.5 s (several report flushes), prints {@code KILL <pid>} and kills itself
 * with SIGKILL; rank 0 receives those 7 and then waits in a receive that never completes.
 */
public final class ReportTraffic
{
    private ReportTraffic()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int np = MPI.COMM_WORLD.getSize();
        final Path dir = Path.of(args[0]);
        if (args.length > 1 && args[1].equals("kill"))
        {
            killed(rank);
            return;
        }
        for (int q = 0; q < np; q++)
        {
            if (q == rank)
            {
                continue;
            }
            // Lower rank sends first, so pairs never wait on each other.
            if (rank < q)
            {
                sendTo(rank, q);
                recvFrom(q, rank);
            }
            else
            {
                recvFrom(q, rank);
                sendTo(rank, q);
            }
        }
        MPI.pControl(1, "solve");
        final double[] in = new double[8];
        final double[] out = new double[8];
        for (int i = 0; i < 5; i++)
        {
            in[0] = rank + i;
            MPI.COMM_WORLD.allReduce(in, out, 8, MPI.DOUBLE, MPI.SUM);
        }
        final byte[] b = new byte[1000];
        for (int i = 0; i < 3; i++)
        {
            MPI.COMM_WORLD.bcast(b, 1000, MPI.BYTE, 0);
        }
        MPI.COMM_WORLD.barrier();
        MPI.COMM_WORLD.barrier();
        MPI.pControl(-1, "solve");
        if (args.length > 1 && args[1].equals("p2p"))
        {
            if (rank == 0)
            {
                System.out.println("REPORT-TRAFFIC OK " + np);
            }
            MPI.Finalize();
            return;
        }

        // Outside the region: a gather of 3 ints to the last rank and a scan of one long.
        final int[] all = new int[3 * np];
        MPI.COMM_WORLD.gather(new int[] {rank, rank, rank}, 3, MPI.INT, all, 3, MPI.INT, np - 1);
        MPI.COMM_WORLD.scan(new long[] {rank}, new long[1], 1, MPI.LONG, MPI.SUM);

        final File f = new File(MPI.COMM_WORLD, dir.resolve("report.dat").toString(), MPI.MODE_CREATE | MPI.MODE_RDWR);
        final byte[] block = new byte[4096];
        final long base = (long) rank * (4 * 4096 + 10_000);
        for (int i = 0; i < 4; i++)
        {
            java.util.Arrays.fill(block, (byte) (rank * 4 + i));
            f.writeAt(base + i * 4096L, block, 4096, MPI.BYTE);
        }
        f.writeAtAll(base + 4 * 4096L, new byte[10_000], 10_000, MPI.BYTE);
        for (int i = 0; i < 4; i++)
        {
            f.readAt(base + i * 4096L, block, 4096, MPI.BYTE);
            if (block[0] != (byte) (rank * 4 + i) || block[4095] != (byte) (rank * 4 + i))
            {
                throw new IllegalStateException("rank " + rank + " read back the wrong block " + i);
            }
        }
        f.close();

        final ByteBuffer mem = MPI.newByteBuffer(1024);
        final Win win = new Win(mem, 1024, 1, MPI.INFO_NULL, MPI.COMM_WORLD);
        final ByteBuffer origin = MPI.newByteBuffer(16);
        win.fence(0);
        for (int q = 0; q < np; q++)
        {
            if (q != rank)
            {
                win.put(origin, 16, MPI.BYTE, q, rank * 16, 16, MPI.BYTE);
            }
        }
        win.fence(0);
        win.lock(MPI.LOCK_SHARED, 0, 0);
        win.get(origin, 8, MPI.BYTE, 0, 0, 8, MPI.BYTE);
        win.unlock(0);
        win.free();
        if (rank == 0)
        {
            System.out.println("REPORT-TRAFFIC OK " + np);
        }
        MPI.Finalize();
    }

    private static void sendTo(final int rank, final int q) throws Exception
    {
        final byte[] msg = new byte[(q + 1) * 100];
        for (int m = 0; m <= rank; m++)
        {
            MPI.COMM_WORLD.send(msg, msg.length, MPI.BYTE, q, 3);
        }
    }

    private static void recvFrom(final int q, final int rank) throws Exception
    {
        final byte[] msg = new byte[(rank + 1) * 100];
        for (int m = 0; m <= q; m++)
        {
            MPI.COMM_WORLD.recv(msg, msg.length, MPI.BYTE, q, 3);
        }
    }

    private static void killed(final int rank) throws Exception
    {
        final byte[] msg = new byte[64];
        if (rank == 1)
        {
            for (int i = 0; i < 7; i++)
            {
                MPI.COMM_WORLD.send(msg, 64, MPI.BYTE, 0, 5);
            }
            Thread.sleep(1_500);
            final long pid = ProcessHandle.current().pid();
            System.out.println("KILL " + pid);
            System.out.flush();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            Thread.sleep(60_000);
        }
        else if (rank == 0)
        {
            for (int i = 0; i < 7; i++)
            {
                MPI.COMM_WORLD.recv(msg, 64, MPI.BYTE, 1, 5);
            }
            MPI.COMM_WORLD.recv(msg, 64, MPI.BYTE, 1, 6);
        }
        else
        {
            MPI.COMM_WORLD.barrier();
        }
        MPI.Finalize();
    }
}
