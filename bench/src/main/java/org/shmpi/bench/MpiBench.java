package org.shmpi.bench;

import java.nio.Buffer;
import java.util.Arrays;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * What the MPI benchmarks share: option parsing on every rank (rank 0 reports), buffers, and
 * the OSU "exactly two processes" check. Uses package {@code mpi} only, so the benchmarks run
 * on any implementation of the Open MPI Java API.
 */
final class MpiBench
{
    /** Set when the options were bad or the rank count wrong: the process exits 1 after Finalize. */
    private static boolean failed;

    /** Tag of the JIT warm-up's "another chunk?" message from rank 0 to rank 1. */
    private static final int JIT_CONTROL_TAG = 7777;

    /** One chunk of the JIT warm-up: the benchmark's own loop at a small size. */
    interface Chunk
    {
        void run() throws MPIException;
    }

    private MpiBench()
    {
    }

    /**
     * The one-off JIT warm-up before the first size: chunks of the benchmark's loop until at
     * least {@code -j} messages have gone and {@code -J} seconds have passed. Rank 0 decides and
     * tells the other ranks after every chunk, so all run the same number of chunks, and both then enter
     * a barrier (as between sizes). The time bound is
     * what matters on a small machine: compiler threads compete with the ranks for the CPUs, and
     * the first fraction of a second is slow whatever the count.
     */
    static void jitWarmup(final Comm comm, final int rank, final OsuOptions o, final Chunk chunk) throws MPIException
    {
        if (!o.jitWarmup())
        {
            return;
        }
        final int[] more = new int[1];
        final int ranks = comm.getSize();
        final double end = MPI.wtime() + o.jitSeconds;
        long messages = 0;
        do
        {
            chunk.run();
            messages += o.jitChunkMessages();
            if (rank == 0)
            {
                more[0] = messages < o.jitPrelude || MPI.wtime() < end ? 1 : 0;
                for (int r = 1; r < ranks; r++)
                {
                    comm.send(more, 1, MPI.INT, r, JIT_CONTROL_TAG);
                }
            }
            else
            {
                comm.recv(more, 1, MPI.INT, 0, JIT_CONTROL_TAG);
            }
            // The timed loops are surrounded by barriers: their code must be warm too, or the
            // first barrier after the warm-up deoptimizes the shared receive path.
            comm.barrier();
        }
        while (more[0] != 0);
    }

    /**
     * Parses the options after {@code MPI.Init}. Returns null when the program should just
     * finalize and leave: help was asked for (printed by rank 0), or the options are bad (rank 0
     * prints why and the exit status is set to 1 by {@link #finish}).
     */
    static OsuOptions options(final String[] args, final OsuOptions.Kind kind, final String program, final int rank)
    {
        try
        {
            final OsuOptions o = OsuOptions.parse(args, kind);
            if (o.help)
            {
                if (rank == 0)
                {
                    System.out.print(OsuOptions.usage(program, kind));
                }
                return null;
            }
            return o;
        }
        catch (final IllegalArgumentException ex)
        {
            if (rank == 0)
            {
                System.err.println(program + ": " + ex.getMessage());
                System.err.print(OsuOptions.usage(program, kind));
            }
            failed = true;
            return null;
        }
    }

    /** A bad command line found outside {@link #options}: rank 0 says why; the exit status will be 1. */
    static void usageError(final int rank, final String program, final OsuOptions.Kind kind, final String message)
    {
        if (rank == 0)
        {
            System.err.println(program + ": " + message);
            System.err.print(OsuOptions.usage(program, kind));
        }
        failed = true;
    }

    /** Finalizes MPI, then exits 1 if the options were bad. */
    static void finish() throws MPIException
    {
        MPI.Finalize();
        if (failed)
        {
            System.exit(1);
        }
    }

    /** OSU benchmarks of one pair need exactly two ranks. */
    static boolean requireTwoRanks(final int size, final int rank, final String program)
    {
        if (size != 2)
        {
            if (rank == 0)
            {
                System.err.println(program + ": this test requires exactly two processes, got " + size);
            }
            failed = true;
            return false;
        }
        return true;
    }

    /** Multi-pair benchmarks (osu_mbw_mr, osu_multi_lat) need an even number of ranks, at least 2. */
    static boolean requireEvenRanks(final int size, final int rank, final String program)
    {
        if (size < 2 || size % 2 != 0)
        {
            if (rank == 0)
            {
                System.err.println(program + ": this test requires an even number of processes, got " + size);
            }
            failed = true;
            return false;
        }
        return true;
    }

    /**
     * {@code comm.iSend}, calling the {@code Buffer} overload for direct buffers: Open MPI's Java
     * bindings have only that one, so with {@code -b buffer} these class files run on them too.
     */
    static Request iSend(final Comm comm, final Object buf, final int count, final int dest, final int tag)
        throws MPIException
    {
        if (buf instanceof Buffer)
        {
            return comm.iSend((Buffer)buf, count, MPI.BYTE, dest, tag);
        }
        return comm.iSend(buf, count, MPI.BYTE, dest, tag);
    }

    /** {@code comm.iRecv}, as {@link #iSend}. */
    static Request iRecv(final Comm comm, final Object buf, final int count, final int source, final int tag)
        throws MPIException
    {
        if (buf instanceof Buffer)
        {
            return comm.iRecv((Buffer)buf, count, MPI.BYTE, source, tag);
        }
        return comm.iRecv(buf, count, MPI.BYTE, source, tag);
    }

    /**
     * Gathers one double from every rank at rank 0 with point-to-point messages (no collectives
     * needed); rank 0 gets all values, the others get null.
     */
    static double[] gatherToZero(final Comm comm, final int rank, final double value, final int tag)
        throws MPIException
    {
        final double[] one = {value};
        if (rank != 0)
        {
            comm.send(one, 1, MPI.DOUBLE, 0, tag);
            return null;
        }
        final double[] all = new double[comm.getSize()];
        all[0] = value;
        for (int r = 1; r < all.length; r++)
        {
            comm.recv(one, 1, MPI.DOUBLE, r, tag);
            all[r] = one[0];
        }
        return all;
    }

    /** A send or receive buffer of {@code bytes} bytes, filled with {@code fill}. */
    static Object buffer(final OsuOptions o, final int bytes, final byte fill) throws MPIException
    {
        if (o.directBuffers)
        {
            // -b direct: memory outside shmpi's shared heap, as any library would hand a program.
            final java.nio.ByteBuffer b = o.plainDirect ?
                java.nio.ByteBuffer.allocateDirect(bytes).order(java.nio.ByteOrder.nativeOrder()) :
                MPI.newByteBuffer(bytes);
            for (int i = 0; i < bytes; i++)
            {
                b.put(i, fill);
            }
            return b;
        }
        final byte[] a = new byte[bytes];
        Arrays.fill(a, fill);
        return a;
    }
}
