package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;

import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Two jobs joined through a port (NamesAcrossJobsIT): {@code server SERVICE} opens a port at rank
 * 0, publishes it as SERVICE and accepts on COMM_WORLD; {@code client SERVICE} looks SERVICE up at
 * rank 0 (until it is there) and connects on COMM_WORLD. Both then check traffic on the
 * intercommunicator (point-to-point both ways, a 1 MiB message from root to root, a bcast from
 * the server's root, an allReduce), merge it (server first), check an allReduce and a barrier on
 * the merged communicator, disconnect, and print {@code OK <role> <rank>}. {@code server-waits}
 * and {@code client-dies}: after the connection the client's rank 0 ends without Finalize while
 * every other process waits for a message from the other side.
 */
public final class JobPorts
{
    private JobPorts()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        final boolean server = args[0].startsWith("server");
        final String service = args[1];
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        String port = null;
        if (rank == 0)
        {
            final boolean byFile = service.startsWith("file:");
            if (server)
            {
                port = Intracomm.openPort();
                if (byFile)
                {
                    final java.nio.file.Path f = java.nio.file.Path.of(service.substring(5));
                    java.nio.file.Files.writeString(f.resolveSibling(f.getFileName() + ".tmp"), port);
                    java.nio.file.Files.move(f.resolveSibling(f.getFileName() + ".tmp"), f);
                }
                else
                {
                    Intracomm.publishName(service, port);
                }
                System.out.println("PUBLISHED " + port);
            }
            else
            {
                port = byFile ? readPort(java.nio.file.Path.of(service.substring(5))) : lookUp(service);
            }
        }
        final Intercomm ic = server ? MPI.COMM_WORLD.accept(port, 0) : MPI.COMM_WORLD.connect(port, 0);
        if (args[0].equals("client-dies"))
        {
            // The client's rank 0 ends without Finalize; its job ends; the server must not wait forever.
            System.out.println("CONNECTED " + rank);
            System.out.flush();
            if (rank == 0)
            {
                Runtime.getRuntime().halt(9);
            }
            ic.recv(new int[1], 1, MPI.INT, 0, 99);
        }
        if (args[0].equals("server-waits"))
        {
            System.out.println("ACCEPTED " + rank);
            System.out.flush();
            ic.recv(new int[1], 1, MPI.INT, 0, 99);
        }
        final int remote = ic.getRemoteSize();
        // Point-to-point both ways: rank i of each side to rank i % remote of the other.
        final int mine = (server ? 100 : 200) + rank;
        final int[] got = new int[1];
        final mpi.Request sent = ic.iSend(new int[] {mine}, 1, MPI.INT, rank % remote, 7);
        for (int r = 0; r < remote; r++)
        {
            if (r % size == rank)
            {
                ic.recv(got, 1, MPI.INT, r, 7);
                check(got[0] == (server ? 200 : 100) + r, "p2p from remote " + r + ": " + got[0]);
            }
        }
        sent.waitFor();
        // A large message (rendezvous) from root to root, direct buffers.
        final int big = 1 << 20;
        if (rank == 0)
        {
            final ByteBuffer b = MPI.newByteBuffer(big);
            if (server)
            {
                for (int i = 0; i < big; i++)
                {
                    b.put(i, (byte)(i * 31 + 7));
                }
                ic.send(b, big, MPI.BYTE, 0, 8);
            }
            else
            {
                ic.recv(b, big, MPI.BYTE, 0, 8);
                for (int i = 0; i < big; i++)
                {
                    check(b.get(i) == (byte)(i * 31 + 7), "byte " + i + " of the large message");
                }
            }
        }
        // Inter-communicator bcast from the server's rank 0.
        final int[] value = {server && rank == 0 ? 4242 : 0};
        ic.bcast(value, 1, MPI.INT, server ? (rank == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
        check(server || value[0] == 4242, "bcast got " + value[0]);
        // Inter-communicator allReduce: each side gets the sum over the other side.
        final int[] sum = new int[1];
        ic.allReduce(new int[] {mine}, sum, 1, MPI.INT, MPI.SUM);
        int expected = 0;
        for (int r = 0; r < remote; r++)
        {
            expected += (server ? 200 : 100) + r;
        }
        check(sum[0] == expected, "inter allReduce " + sum[0] + " != " + expected);
        final Intracomm merged = ic.merge(!server);
        check(merged.getSize() == size + remote, "merged size " + merged.getSize());
        check(merged.getRank() == (server ? rank : remote + rank), "merged rank " + merged.getRank());
        final int[] all = new int[1];
        merged.allReduce(new int[] {merged.getRank()}, all, 1, MPI.INT, MPI.SUM);
        final int n = merged.getSize();
        check(all[0] == n * (n - 1) / 2, "merged allReduce " + all[0]);
        merged.barrier();
        merged.free();
        ic.disconnect();
        if (server && rank == 0)
        {
            if (!service.startsWith("file:"))
            {
                Intracomm.unpublishName(service, port);
            }
            Intracomm.closePort(port);
        }
        System.out.println("OK " + args[0] + " " + rank);
        MPI.Finalize();
    }

    /** The port a server on another "machine" wrote into {@code file} (waits for it, at most 60 s). */
    private static String readPort(final java.nio.file.Path file) throws Exception
    {
        final long deadline = System.currentTimeMillis() + 60_000;
        while (!java.nio.file.Files.exists(file))
        {
            if (System.currentTimeMillis() > deadline)
            {
                throw new AssertionError("no port in " + file);
            }
            Thread.sleep(20);
        }
        return java.nio.file.Files.readString(file);
    }

    private static String lookUp(final String service) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + 60_000;
        while (true)
        {
            try
            {
                return Intracomm.lookupName(service);
            }
            catch (final MPIException ex)
            {
                if (ex.getErrorClass() != MPI.ERR_NAME || System.currentTimeMillis() > deadline)
                {
                    throw ex;
                }
                Thread.sleep(20);
            }
        }
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }
}
