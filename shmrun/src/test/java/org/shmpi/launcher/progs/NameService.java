package org.shmpi.launcher.progs;

import java.nio.file.Files;
import java.nio.file.Path;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * One side of the name service between two jobs (NamesAcrossJobsIT):
 * <ul>
 * <li>{@code publish SERVICE DIR}: rank 0 publishes a port as SERVICE, prints it, waits for
 *     DIR/found, then unpublishes;</li>
 * <li>{@code publish-and-wait SERVICE DIR}: rank 0 publishes, prints it, and waits to be killed;</li>
 * <li>{@code lookup SERVICE DIR}: rank 0 looks SERVICE up until it is there (printing it), writes
 *     DIR/found, then looks it up until it is gone ({@code MPI.ERR_NAME});</li>
 * <li>{@code lookup-once SERVICE DIR}: rank 0 looks it up once: FOUND and the port, or NONE.</li>
 * </ul>
 */
public final class NameService
{
    private NameService()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        // The name functions report through COMM_WORLD's error handler, connect through COMM_SELF's: exceptions.
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        final String mode = args[0];
        final String service = args[1];
        final Path dir = Path.of(args[2]);
        if (mode.equals("connect-timeout"))
        {
            connectTimeout();
            MPI.Finalize();
            return;
        }
        if (MPI.COMM_WORLD.getRank() == 0)
        {
            final long deadline = System.currentTimeMillis() + 60_000;
            switch (mode)
            {
                case "publish":
                case "publish-and-wait":
                {
                    final String port = Intracomm.openPort();
                    Intracomm.publishName(service, port);
                    System.out.println("PUBLISHED " + port);
                    System.out.flush();
                    while (mode.equals("publish-and-wait") || !Files.exists(dir.resolve("found")))
                    {
                        if (System.currentTimeMillis() > deadline)
                        {
                            throw new AssertionError("nobody found " + service);
                        }
                        Thread.sleep(20);
                    }
                    Intracomm.unpublishName(service, port);
                    Intracomm.closePort(port);
                    System.out.println("UNPUBLISHED");
                    break;
                }
                case "lookup":
                {
                    final String port = lookUntil(service, true, deadline);
                    System.out.println("FOUND " + port);
                    System.out.flush();
                    Files.writeString(dir.resolve("found"), port);
                    lookUntil(service, false, deadline);
                    System.out.println("GONE");
                    break;
                }
                case "lookup-once":
                    try
                    {
                        System.out.println("FOUND " + Intracomm.lookupName(service));
                    }
                    catch (final MPIException ex)
                    {
                        System.out.println(ex.getErrorClass() == MPI.ERR_NAME ? "NONE" : "ERROR " + ex);
                    }
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }

    /**
     * Rank 1 connects to rank 0's open port while rank 0 does not accept: ERR_PORT after
     * shmpi.connect.timeout.ms (the job sets it short); then rank 0 accepts and rank 1 connects
     * again, and the connection works (the timed-out request was withdrawn, not taken).
     */
    private static void connectTimeout()
    {
        final int rank = MPI.COMM_WORLD.getRank();
        final char[] name = new char[MPI.MAX_PORT_NAME];
        final int[] len = new int[1];
        String port = null;
        if (rank == 0)
        {
            port = Intracomm.openPort();
            port.getChars(0, port.length(), name, 0);
            len[0] = port.length();
        }
        MPI.COMM_WORLD.bcast(len, 1, MPI.INT, 0);
        MPI.COMM_WORLD.bcast(name, len[0], MPI.CHAR, 0);
        final String known = new String(name, 0, len[0]);
        if (rank == 1)
        {
            final long start = System.nanoTime();
            try
            {
                MPI.COMM_SELF.connect(known, 0);
                throw new AssertionError("connected without an accept");
            }
            catch (final MPIException ex)
            {
                final long ms = (System.nanoTime() - start) / 1_000_000;
                if (ex.getErrorClass() != MPI.ERR_PORT)
                {
                    throw ex;
                }
                System.out.println("TIMED OUT after " + ms + " ms: " + ex.getMessage());
            }
        }
        MPI.COMM_WORLD.barrier();
        final mpi.Intercomm ic = rank == 0 ? MPI.COMM_SELF.accept(port, 0) : rank == 1 ?
            MPI.COMM_SELF.connect(known, 0) : null;
        if (ic != null)
        {
            final int[] got = new int[1];
            ic.sendRecv(new int[] {rank}, 1, MPI.INT, 0, 5, got, 1, MPI.INT, 0, 5);
            if (got[0] != 1 - rank)
            {
                throw new AssertionError("rank " + rank + " got " + got[0]);
            }
            ic.disconnect();
            System.out.println("CONNECTED rank " + rank);
        }
        if (rank == 0)
        {
            Intracomm.closePort(port);
        }
        MPI.COMM_WORLD.barrier();
    }

    /** Looks {@code service} up until it is there ({@code present}) or gone; returns the last port seen. */
    private static String lookUntil(final String service, final boolean present, final long deadline)
        throws InterruptedException
    {
        while (true)
        {
            String port = null;
            try
            {
                port = Intracomm.lookupName(service);
            }
            catch (final MPIException ex)
            {
                if (ex.getErrorClass() != MPI.ERR_NAME)
                {
                    throw ex;
                }
            }
            if ((port != null) == present)
            {
                return port;
            }
            if (System.currentTimeMillis() > deadline)
            {
                throw new AssertionError(service + (present ? " never came" : " never went"));
            }
            Thread.sleep(20);
        }
    }
}
