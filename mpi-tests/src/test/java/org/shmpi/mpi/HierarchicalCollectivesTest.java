package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.shmpi.coll.ReductionOrder;
import org.shmpi.coll.ShmCollectiveDescriptor;
import org.shmpi.junit.MpiTest;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;

import mpi.Intracomm;
import mpi.MPI;
import mpi.Prequest;
import mpi.Request;

/**
 * The NUMA-hierarchical shared-memory barrier, allreduce, reduce and bcast in real processes, on
 * made-up machines of 2, 4 and 8 NUMA nodes ({@code src/test/resources/topology/}), ranks bound
 * by node round robin (rank r on node r mod nodes; shmrun only simulates the binding and tells
 * each rank its CPUs) and the hierarchy forced on, so that 4 and 8 ranks take it: groups
 * {0,2,4,6} {1,3,5,7} on 2 nodes, {0,4} {1,5} {2,6} {3,7} on 4, one rank each on 8. Each run
 * first checks, in the communicator's segment, that the members agreed on those groups, then
 * runs every operation, inline and in the data slot, from every root, against results
 * computed here: a double sum must be the bits of {@link ReductionOrder}'s tree. Nonblocking
 * and persistent collectives of a hierarchical communicator take the point-to-point schedules,
 * beside blocking ones on the segment: right results, and the segment counts only the blocking
 * ones.
 */
class HierarchicalCollectivesTest
{
    private static final String ON = "-Dshmpi.coll.shm.hierarchy=on";
    private static final String TOPOLOGIES = "-Dshmpi.topology.file=src/test/resources/topology/";

    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    @MpiTest(np = {4, 8}, shmrunArgs = {TOPOLOGIES + "two-numa-nodes.txt", "--bind-to", "numa", ON})
    void twoNumaNodes()
    {
        everyOperation(2);
    }

    @MpiTest(np = {4, 8}, shmrunArgs = {TOPOLOGIES + "four-numa-nodes.txt", "--bind-to", "numa", ON})
    void fourNumaNodes()
    {
        everyOperation(4);
    }

    /** At 4 ranks, 8 nodes group as 4 do; 8 ranks on 8 nodes make 8 leaders. */
    @MpiTest(np = {8}, shmrunArgs = {TOPOLOGIES + "eight-numa-nodes.txt", "--bind-to", "numa", ON})
    void eightNumaNodes()
    {
        everyOperation(8);
    }

    /**
     * iAllReduce, iBcast and iBarrier outstanding while blocking allReduce, bcast and barrier
     * run, and a persistent allReduce started beside blocking barriers, on a hierarchical
     * COMM_WORLD: every result right (the double sums the bits of {@link ReductionOrder}'s
     * tree, which the point-to-point allreduce evaluates too), and the done words of this rank
     * on the segment count exactly the blocking collectives, so the nonblocking ones went
     * point-to-point.
     */
    @MpiTest(np = {4}, shmrunArgs = {TOPOLOGIES + "two-numa-nodes.txt", "--bind-to", "numa", ON})
    void nonblockingCollectivesGoPointToPointBesideBlockingOnes()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        // The first blocking collective sets the hierarchical segment up.
        world.barrier();
        expectGroups(n, 2);
        final long before = operationsOnSegment(n, me);
        long blocking = 0;
        for (int k = 0; k < 12; k++)
        {
            final int round = k;
            final int root = round % n;
            final double[] sum = new double[3];
            final Request a = world.iAllReduce(doubles(me, 3, round), sum, 3, MPI.DOUBLE, MPI.SUM);
            final int[] cast = new int[5];
            if (me == root)
            {
                Arrays.setAll(cast, i -> round * 100 + i);
            }
            final Request b = world.iBcast(cast, 5, MPI.INT, root);
            final Request c = world.iBarrier();
            // Blocking ones while the three are outstanding: inline and in the data slot.
            final double[] blockingSum = new double[100];
            world.allReduce(doubles(me, 100, round + 50), blockingSum, 100, MPI.DOUBLE, MPI.SUM);
            final int[] blockingCast = new int[3];
            final int blockingRoot = (root + 1) % n;
            if (me == blockingRoot)
            {
                Arrays.setAll(blockingCast, i -> -round * 10 - i);
            }
            world.bcast(blockingCast, 3, MPI.INT, blockingRoot);
            world.barrier();
            blocking += 3;
            Request.waitAll(new Request[] {c, b, a});
            assertBits(treeSum(n, 3, round), sum, "iAllReduce, round " + round);
            assertBits(treeSum(n, 100, round + 50), blockingSum, "allReduce beside it, round " + round);
            for (int i = 0; i < 5; i++)
            {
                assertEquals(round * 100 + i, cast[i], "iBcast from " + root + ", item " + i);
            }
            for (int i = 0; i < 3; i++)
            {
                assertEquals(-round * 10 - i, blockingCast[i], "bcast from " + blockingRoot + ", item " + i);
            }
        }
        final int[] in = new int[1];
        final int[] out = new int[1];
        final Prequest persistent = world.allReduceInit(in, out, 1, MPI.INT, MPI.SUM);
        for (int k = 0; k < 5; k++)
        {
            in[0] = me * k;
            persistent.start();
            world.barrier();
            blocking++;
            persistent.waitFor();
            assertEquals(k * n * (n - 1) / 2, out[0], "persistent allReduce, start " + k);
        }
        persistent.free();
        assertEquals(before + blocking, operationsOnSegment(n, me),
            "operations on the segment: only the blocking collectives");
        world.barrier();
    }

    private static void everyOperation(final int nodes)
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();

        // Barrier: nobody leaves before the last one arrived. nanoTime is one clock for every
        // process of this machine (CLOCK_MONOTONIC).
        for (int round = 0; round < 4; round++)
        {
            LockSupport.parkNanos((me * 3L + round) % n * 500_000L);
            final long arrived = System.nanoTime();
            world.barrier();
            final long left = System.nanoTime();
            final long[] times = new long[2 * n];
            world.allGather(new long[] {arrived, left}, 2, MPI.LONG, times, 2, MPI.LONG);
            long lastArrival = Long.MIN_VALUE;
            long firstLeaving = Long.MAX_VALUE;
            for (int r = 0; r < n; r++)
            {
                lastArrival = Math.max(lastArrival, times[2 * r]);
                firstLeaving = Math.min(firstLeaving, times[2 * r + 1]);
            }
            assertTrue(lastArrival - firstLeaving <= 0, "a rank left barrier " + round + " before the last arrived");
        }
        expectGroups(n, nodes);

        // 3 doubles (24 bytes) ride in the flag line, 100 (800 bytes) in the data slot.
        for (final int count : new int[] {3, 100})
        {
            for (int round = 0; round < 3; round++)
            {
                final double[] expected = treeSum(n, count, round);
                final double[] sum = new double[count];
                world.allReduce(doubles(me, count, round), sum, count, MPI.DOUBLE, MPI.SUM);
                assertBits(expected, sum, "allreduce of " + count + " doubles, round " + round);

                final int[] max = new int[count];
                final int[] mine = new int[count];
                for (int i = 0; i < count; i++)
                {
                    mine[i] = (me * 7919 + i * 31 + round) % 1000;
                }
                world.allReduce(mine, max, count, MPI.INT, MPI.MAX);
                for (int i = 0; i < count; i++)
                {
                    int m = Integer.MIN_VALUE;
                    for (int r = 0; r < n; r++)
                    {
                        m = Math.max(m, (r * 7919 + i * 31 + round) % 1000);
                    }
                    assertEquals(m, max[i], "allreduce MAX, item " + i);
                }
            }
            for (int root = 0; root < n; root++)
            {
                final double[] out = new double[count];
                world.reduce(doubles(me, count, root + 10), out, count, MPI.DOUBLE, MPI.SUM, root);
                if (me == root)
                {
                    assertBits(treeSum(n, count, root + 10), out, "reduce of " + count + " doubles to " + root);
                }

                final int[] buf = new int[count];
                if (me == root)
                {
                    for (int i = 0; i < count; i++)
                    {
                        buf[i] = root * 1000 + i + count;
                    }
                }
                world.bcast(buf, count, MPI.INT, root);
                for (int i = 0; i < count; i++)
                {
                    assertEquals(root * 1000 + i + count, buf[i], "bcast of " + count + " ints from " + root);
                }
            }
        }
        world.barrier();
    }

    /** Rank r's doubles in a round: magnitudes from 2^-30 to 2^30, so the association shows in the bits. */
    private static double[] doubles(final int r, final int count, final int round)
    {
        final Random random = new Random(1000L * round + r);
        final double[] d = new double[count];
        for (int i = 0; i < count; i++)
        {
            d[i] = Math.scalb(random.nextDouble() - 0.5, random.nextInt(61) - 30);
        }
        return d;
    }

    /** Every rank's doubles summed in the order of {@link ReductionOrder}, here. */
    private static double[] treeSum(final int n, final int count, final int round)
    {
        final double[][] slots = new double[n][];
        for (int r = 0; r < n; r++)
        {
            slots[r] = doubles(r, count, round);
        }
        return slots[ReductionOrder.fold(n, (in, inout) ->
        {
            for (int i = 0; i < count; i++)
            {
                slots[inout][i] = slots[in][i] + slots[inout][i];
            }
        })];
    }

    private static void assertBits(final double[] expected, final double[] actual, final String what)
    {
        final long[] e = new long[expected.length];
        final long[] a = new long[actual.length];
        for (int i = 0; i < e.length; i++)
        {
            e[i] = Double.doubleToRawLongBits(expected[i]);
            a[i] = Double.doubleToRawLongBits(actual[i]);
        }
        assertArrayEquals(e, a, what);
    }

    /**
     * The collective segment of {@code COMM_WORLD} (made by world rank 0, in the job directory)
     * describes min(n, nodes) groups, rank r in group r mod nodes, as every member checked
     * against its own when it attached.
     */
    private static void expectGroups(final int n, final int nodes)
    {
        final MappedByteBuffer b = worldSegment(n);
        final int payload = b.getInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET);
        final int dataBytes = b.getInt(payload + ShmCollectiveDescriptor.DATA_BYTES_OFFSET);
        final int groups = b.getInt(payload + ShmCollectiveDescriptor.GROUPS_OFFSET);
        final int gatherBytes = b.getInt(payload + ShmCollectiveDescriptor.GATHER_BYTES_OFFSET);
        assertEquals(Math.min(n, nodes), groups, "groups");
        final int map = payload + (int)ShmCollectiveDescriptor.groupMapOffset(n, dataBytes, groups, gatherBytes);
        for (int r = 0; r < n; r++)
        {
            assertEquals(r % nodes, b.getInt(map + 4 * r), "group of rank " + r);
        }
    }

    /**
     * The operations rank {@code me} has finished on the collective segment of
     * {@code COMM_WORLD}: the larger of its two done words (each holds the last finished
     * operation of its parity; every operation here is blocking, so they run in order).
     */
    private static long operationsOnSegment(final int n, final int me)
    {
        final MappedByteBuffer b = worldSegment(n);
        final int payload = b.getInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET);
        final int dataBytes = b.getInt(payload + ShmCollectiveDescriptor.DATA_BYTES_OFFSET);
        final long block = payload + ShmCollectiveDescriptor.blockOffset(me, dataBytes);
        return Math.max(b.getLong((int)(block + ShmCollectiveDescriptor.doneOffset(0))),
            b.getLong((int)(block + ShmCollectiveDescriptor.doneOffset(1))));
    }

    /** The one collective segment of n ranks made by world rank 0 in the job directory: COMM_WORLD's. */
    private static MappedByteBuffer worldSegment(final int n)
    {
        final Path dir = Path.of(System.getenv("SHMPI_JOB_DIR"));
        final List<Path> segments;
        try (Stream<Path> files = Files.list(dir))
        {
            segments = files.filter(p -> p.getFileName().toString().startsWith("coll-") &&
                p.getFileName().toString().endsWith("-0")).collect(Collectors.toList());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        MappedByteBuffer found = null;
        for (final Path p : segments)
        {
            try (FileChannel channel = FileChannel.open(p, StandardOpenOption.READ))
            {
                final MappedByteBuffer b = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
                b.order(ByteOrder.nativeOrder());
                final int payload = b.getInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET);
                if (b.getInt(payload + ShmCollectiveDescriptor.RANKS_OFFSET) == n)
                {
                    assertTrue(found == null, "two collective segments of " + n + " ranks in " + dir + ": " + segments);
                    found = b;
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        assertTrue(found != null, "no collective segment of " + n + " ranks in " + dir + ": " + segments);
        return found;
    }
}
