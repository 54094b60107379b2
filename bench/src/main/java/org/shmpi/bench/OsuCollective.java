package org.shmpi.bench;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.util.Locale;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Collective latency, after {@code osu_allreduce}, {@code osu_bcast}, {@code osu_reduce},
 * {@code osu_gather}, {@code osu_scatter}, {@code osu_allgather} and {@code osu_alltoall}: the first
 * argument names the collective ({@code barrier} is {@link OsuBarrier}). Per size, every rank runs
 * {@code -x} untimed then {@code -i} timed calls, each timed on its own and followed by an untimed
 * barrier (as OSU does, so that calls do not overlap); reported is the mean µs per call of every
 * rank, averaged over the ranks, and its minimum and maximum over the ranks (sent to rank 0 with
 * point-to-point messages).
 *
 * <p>The size is bytes per rank-block: what each rank contributes (allreduce, reduce, gather,
 * allgather), receives (scatter) or sends to each rank (alltoall); the whole buffer of bcast.
 * allreduce and reduce sum {@code size/8} doubles ({@code MPI.DOUBLE}, {@code MPI.SUM}; sizes
 * below 8 are skipped), the others move {@code MPI.BYTE}s. Roots are rank 0. Java arrays
 * ({@code double[]}, {@code byte[]}) by default, direct buffers with {@code -b buffer}; only calls
 * that exist in Open MPI's Java bindings, so the same class files run there. {@code --vary}
 * writes the iteration number into the first and last 8 bytes of every send block before each
 * call: one buffer reused unchanged flatters algorithms whose data stays in the cache.
 *
 * <pre>shmrun -np 4 -cp shmpi-bench.jar org.shmpi.bench.OsuCollective allreduce [-m [MIN:]MAX] [-i N] [-x N]
 *     [-j N] [-J S] [-b array|buffer|direct] [--vary]</pre>
 */
public final class OsuCollective
{
    private static final String PROGRAM = "OsuCollective";
    private static final int TIME_TAG = 109;
    private static final int ROOT = 0;
    static final String COLUMNS = "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)";

    /** The collectives, by the name of their first argument. */
    enum Op
    {
        ALLREDUCE("allreduce", "Allreduce"),
        BCAST("bcast", "Broadcast"),
        REDUCE("reduce", "Reduce"),
        GATHER("gather", "Gather"),
        SCATTER("scatter", "Scatter"),
        ALLGATHER("allgather", "Allgather"),
        ALLTOALL("alltoall", "All-to-All");

        final String argument;
        final String title;

        Op(final String argument, final String title)
        {
            this.argument = argument;
            this.title = title;
        }

        /** Whether it reduces doubles (size/8 of them) rather than moving bytes. */
        boolean reduces()
        {
            return this == ALLREDUCE || this == REDUCE;
        }

        static Op of(final String argument)
        {
            for (final Op op : values())
            {
                if (op.argument.equals(argument))
                {
                    return op;
                }
            }
            return null;
        }

        static String names()
        {
            final StringBuilder sb = new StringBuilder();
            for (final Op op : values())
            {
                sb.append(sb.length() == 0 ? "" : "|").append(op.argument);
            }
            return sb.toString();
        }
    }

    private final Comm comm;
    private final int rank;
    private final int ranks;
    private final Op op;
    private final OsuOptions o;
    /** Send buffer: blocks of the largest size, as many as the collective sends from here. */
    private final Object sendBuf;
    /** Receive buffer (bcast: the one buffer). */
    private final Object recvBuf;
    /** Rank-blocks in the send buffer: np for scatter (root) and alltoall, else 1. */
    private final int sendBlocks;

    private OsuCollective(final Comm comm, final Op op, final OsuOptions o) throws MPIException
    {
        this.comm = comm;
        this.rank = comm.getRank();
        this.ranks = comm.getSize();
        this.op = op;
        this.o = o;
        final int max = Math.max(o.maxSize, 8);
        final boolean root = rank == ROOT;
        final int sendBytes;
        final int recvBytes;
        switch (op)
        {
            case GATHER:
                // Receive buffers and the root's send blocks matter at the root only; elsewhere
                // a token buffer, so no implementation copies what it never reads.
                sendBytes = max;
                recvBytes = root ? Math.multiplyExact(max, ranks) : 8;
                break;
            case SCATTER:
                sendBytes = root ? Math.multiplyExact(max, ranks) : 8;
                recvBytes = max;
                break;
            case ALLGATHER:
                sendBytes = max;
                recvBytes = Math.multiplyExact(max, ranks);
                break;
            case ALLTOALL:
                sendBytes = Math.multiplyExact(max, ranks);
                recvBytes = sendBytes;
                break;
            case BCAST:
                sendBytes = 8;
                recvBytes = max;
                break;
            default:
                sendBytes = max;
                recvBytes = max;
                break;
        }
        this.sendBlocks = op == Op.ALLTOALL || op == Op.SCATTER && root ? ranks : 1;
        this.sendBuf = buffer(sendBytes, (byte)'a');
        this.recvBuf = buffer(recvBytes, (byte)'b');
    }

    public static void main(final String[] args) throws MPIException
    {
        MPI.Init(args);
        final Comm comm = MPI.COMM_WORLD;
        final int rank = comm.getRank();
        final Op op = args.length > 0 ? Op.of(args[0]) : null;
        if (op == null)
        {
            MpiBench.usageError(rank, PROGRAM + " " + Op.names(), OsuOptions.Kind.COLLECTIVE,
                "the first argument names the collective (" + Op.names() + "), got " +
                    (args.length > 0 ? args[0] : "nothing"));
        }
        else
        {
            final String[] rest = new String[args.length - 1];
            System.arraycopy(args, 1, rest, 0, rest.length);
            final OsuOptions o = MpiBench.options(rest, OsuOptions.Kind.COLLECTIVE, PROGRAM + " " + op.argument, rank);
            if (o != null)
            {
                new OsuCollective(comm, op, o).run();
            }
        }
        MpiBench.finish();
    }

    private void run() throws MPIException
    {
        if (rank == 0)
        {
            OsuReport.headerWithColumns(String.format(Locale.ROOT,
                "# OSU MPI-style %s Latency Test (shmpi-bench %s %s, %d ranks)", op.title, PROGRAM, op.argument, ranks),
                o, COLUMNS,
                op.reduces() ? "MPI.DOUBLE, MPI.SUM: size/8 doubles per rank; sizes below 8 B skipped"
                    : "MPI.BYTE; size = bytes per rank-block; root 0",
                "Each call timed on its own, then an untimed barrier; mean us per call of every rank, " +
                    "averaged over the ranks (Avg), and its least and largest rank (Min, Max)",
                OsuReport.javaVersion());
        }
        comm.barrier();
        // The JIT warm-up cycles through every size of the run: a collective takes other code paths
        // at other sizes (inline payloads, data slots, pipelined rounds), and code first compiled
        // inside a timed loop of 100 calls would be measured half interpreted.
        final int prelude = Math.max(o.preludeSize(), op.reduces() ? 8 : 1);
        MpiBench.jitWarmup(comm, rank, o, () ->
        {
            calls(prelude, 0, o.jitChunk());
            for (final int size : o.sizes())
            {
                if (size >= (op.reduces() ? 8 : 1) && size != prelude)
                {
                    calls(size, 0, size <= OsuOptions.LARGE_MESSAGE_SIZE ? 100 : 10);
                }
            }
        });
        for (final int size : o.sizes())
        {
            if (op.reduces() && size < 8)
            {
                continue;
            }
            comm.barrier();
            final int iterations = o.iterations(size);
            final double seconds = calls(size, o.warmup(size), iterations);
            final double[] all = MpiBench.gatherToZero(comm, rank, seconds * 1e6 / iterations, TIME_TAG);
            if (rank == 0)
            {
                double sum = 0;
                double min = Double.MAX_VALUE;
                double max = 0;
                for (final double v : all)
                {
                    sum += v;
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
                System.out.println(String.format(Locale.ROOT, "%-10d%18.2f%18.2f%18.2f", size, sum / ranks, min, max));
                System.out.flush();
            }
        }
        comm.barrier();
    }

    /**
     * Runs {@code warmup} untimed then {@code iterations} timed calls at {@code size}, each followed
     * by a barrier outside the timing; returns the timed seconds.
     */
    private double calls(final int size, final int warmup, final int iterations) throws MPIException
    {
        double seconds = 0;
        for (int i = 0; i < warmup + iterations; i++)
        {
            if (o.vary)
            {
                stamp(size, i);
            }
            final double start = MPI.wtime();
            call(size);
            final double end = MPI.wtime();
            if (i >= warmup)
            {
                seconds += end - start;
            }
            comm.barrier();
        }
        return seconds;
    }

    private void call(final int size) throws MPIException
    {
        switch (op)
        {
            case ALLREDUCE:
                comm.allReduce(sendBuf, recvBuf, size / 8, MPI.DOUBLE, MPI.SUM);
                break;
            case REDUCE:
                comm.reduce(sendBuf, recvBuf, size / 8, MPI.DOUBLE, MPI.SUM, ROOT);
                break;
            case BCAST:
                comm.bcast(recvBuf, size, MPI.BYTE, ROOT);
                break;
            case GATHER:
                comm.gather(sendBuf, size, MPI.BYTE, recvBuf, size, MPI.BYTE, ROOT);
                break;
            case SCATTER:
                comm.scatter(sendBuf, size, MPI.BYTE, recvBuf, size, MPI.BYTE, ROOT);
                break;
            case ALLGATHER:
                comm.allGather(sendBuf, size, MPI.BYTE, recvBuf, size, MPI.BYTE);
                break;
            case ALLTOALL:
                comm.allToAll(sendBuf, size, MPI.BYTE, recvBuf, size, MPI.BYTE);
                break;
            default:
                throw new IllegalStateException("op=" + op);
        }
    }

    /**
     * {@code --vary}: the iteration number into the first and last 8 bytes of every block this rank
     * sends (reductions: the first and last double). bcast sends from the root's one buffer;
     * a non-root's scatter send buffer is not read.
     */
    private void stamp(final int size, final int iteration)
    {
        if (op == Op.BCAST)
        {
            if (rank == ROOT)
            {
                stampBytes(recvBuf, 0, size, iteration);
            }
            return;
        }
        if (op == Op.SCATTER && rank != ROOT)
        {
            return;
        }
        if (op.reduces())
        {
            final int count = size / 8;
            if (sendBuf instanceof double[])
            {
                final double[] a = (double[])sendBuf;
                a[0] = iteration;
                a[count - 1] = iteration;
            }
            else
            {
                final DoubleBuffer b = (DoubleBuffer)sendBuf;
                b.put(0, iteration);
                b.put(count - 1, iteration);
            }
            return;
        }
        for (int block = 0; block < sendBlocks; block++)
        {
            stampBytes(sendBuf, block * size, size, iteration);
        }
    }

    /** The iteration number (little-endian long) at the start and the end of {@code [offset, offset+size)}. */
    private static void stampBytes(final Object buf, final int offset, final int size, final long value)
    {
        final int head = Math.min(8, size);
        for (int k = 0; k < head; k++)
        {
            put(buf, offset + k, (byte)(value >>> (8 * k)));
        }
        if (size > 8)
        {
            final int tail = offset + size - 8;
            for (int k = 0; k < 8; k++)
            {
                put(buf, tail + k, (byte)(value >>> (8 * k)));
            }
        }
    }

    private static void put(final Object buf, final int index, final byte value)
    {
        if (buf instanceof byte[])
        {
            ((byte[])buf)[index] = value;
        }
        else
        {
            ((ByteBuffer)buf).put(index, value);
        }
    }

    /**
     * A buffer of {@code bytes} bytes filled with {@code fill}: for the reductions {@code double[]}
     * or a direct {@code DoubleBuffer} (holding 1.0s), else as {@link MpiBench#buffer}.
     */
    private Object buffer(final int bytes, final byte fill) throws MPIException
    {
        if (!op.reduces())
        {
            return MpiBench.buffer(o, bytes, fill);
        }
        final int count = bytes / 8;
        if (o.directBuffers)
        {
            final DoubleBuffer b = MPI.newDoubleBuffer(count);
            for (int i = 0; i < count; i++)
            {
                b.put(i, 1.0);
            }
            return b;
        }
        final double[] a = new double[count];
        java.util.Arrays.fill(a, 1.0);
        return a;
    }
}
