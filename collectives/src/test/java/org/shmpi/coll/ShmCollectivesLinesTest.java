package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;

/**
 * The cost model of docs/collectives.md, checked against the code: every member reads the
 * segment through a view that records which 64-byte lines written by another member it reads
 * (polls and copies alike, each line once per operation), and the counts per operation, in a
 * steady loop of one operation, must be the model's: for allreduce of 8 bytes flat, n - 1
 * per member (every flag line; the finished words of the previous allreduce answer the wait for
 * done words, so no done line); hierarchical, 1 per member (its leader's
 * release line) and (g - 1) + (N - 1)(1 + ceil(8g / 64)) per leader (its group's flag lines,
 * the other leaders' gather lines and areas); for barrier n - 1 flat (its flag lines: with no
 * nonblocking operation pending it reads no done line), 1 and (g - 1) + (N - 1) hierarchical.
 * Lines of another group count as crossing nodes. Ranks are threads, n of them on this machine's
 * cores: only the counts are meant, not the time.
 */
@Timeout(120)
class ShmCollectivesLinesTest
{
    private static final int CONTEXT = 21;
    private static final int WARM_UP = 6;
    private static final int MEASURED = 6;
    private static final Reducer LONG_SUM = (in, io, inout, ioo, items) ->
    {
        for (int i = 0; i < items; i++)
        {
            putLong(inout, ioo + 8 * i, getLong(in, io + 8 * i) + getLong(inout, ioo + 8 * i));
        }
    };
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    private static long getLong(final byte[] b, final int at)
    {
        return java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.nativeOrder()).getLong(at);
    }

    private static void putLong(final byte[] b, final int at, final long v)
    {
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.nativeOrder()).putLong(at, v);
    }

    /** A member's view of the segment that records the lines of other members it reads. */
    private static final class LineCounter extends UnsafeBuffer
    {
        private final int me;
        private final int stride;
        private final int leaders;
        private final int leaderStride;
        private final MemberGroups groups;
        private final int groupCount;
        final Set<Integer> lines = new HashSet<>();
        int crossing;

        LineCounter(final AtomicBuffer segment, final int me, final int n, final int dataBytes,
            final MemberGroups groups, final boolean hierarchical)
        {
            super(segment.addressOffset(), segment.capacity());
            this.me = me;
            this.stride = ShmCollectiveDescriptor.stride(dataBytes);
            this.groups = groups;
            this.groupCount = hierarchical ? groups.count() : 0;
            final int gather = hierarchical ? ShmCollectiveDescriptor.gatherBytes(groups.maxSize) : 0;
            this.leaders = (int)ShmCollectiveDescriptor.leaderOffset(0, n, dataBytes, Math.max(gather, 128));
            this.leaderStride = ShmCollectiveDescriptor.leaderStride(dataBytes, Math.max(gather, 128));
        }

        /** The member that writes the line at {@code offset}, or -1 (header, map). */
        private int writer(final int offset)
        {
            if (offset < ShmCollectiveDescriptor.BLOCKS_OFFSET)
            {
                return -1;
            }
            if (offset < leaders)
            {
                return (offset - ShmCollectiveDescriptor.BLOCKS_OFFSET) / stride;
            }
            final int g = (offset - leaders) / leaderStride;
            return g < groupCount ? groups.leader(g) : -1;
        }

        private void record(final int index, final int length)
        {
            for (int line = index / 64; line <= (index + Math.max(length, 1) - 1) / 64; line++)
            {
                final int w = writer(line * 64);
                if (w >= 0 && w != me && lines.add(line) && groups.groupOf[w] != groups.groupOf[me])
                {
                    crossing++;
                }
            }
        }

        void clear()
        {
            lines.clear();
            crossing = 0;
        }

        @Override
        public long getLongVolatile(final int index)
        {
            record(index, 8);
            return super.getLongVolatile(index);
        }

        @Override
        public void getBytes(final int index, final byte[] dst, final int offset, final int length)
        {
            record(index, length);
            super.getBytes(index, dst, offset, length);
        }

        @Override
        public void putBytes(final int index, final DirectBuffer src, final int srcIndex, final int length)
        {
            if (src == this)
            {
                record(srcIndex, length);
            }
            super.putBytes(index, src, srcIndex, length);
        }
    }

    @ParameterizedTest(name = "n={0}, groups={1}")
    @CsvSource({"16, 2", "32, 2", "32, 4", "32, 8", "64, 8"})
    void linesReadPerOperationAreTheModels(final int n, final int nodes) throws Exception
    {
        final int[] labels = new int[n];
        Arrays.setAll(labels, r -> r % nodes);
        final MemberGroups groups = MemberGroups.of(labels, n);
        final int g = n / nodes;
        // Per operation kind, flat then hierarchical: the lines each rank read (sum over the
        // measured operations), and how many of them were another group's.
        final String[] kinds = {"barrier", "allreduce 8 B"};
        final AtomicLongArray read = new AtomicLongArray(2 * kinds.length * n);
        final AtomicLongArray crossed = new AtomicLongArray(2 * kinds.length * n);
        job = ThreadedJob.start("shmlines-" + n, n, 64 * 1024);
        job.run(110, ctx -> count(ctx, n, labels, groups, kinds.length, read, crossed));

        final StringBuilder table = new StringBuilder();
        for (int kind = 0; kind < kinds.length; kind++)
        {
            for (int hier = 0; hier < 2; hier++)
            {
                long leaderSum = 0;
                long memberSum = 0;
                long leaderCross = 0;
                long totalCross = 0;
                for (int r = 0; r < n; r++)
                {
                    final int at = (2 * kind + hier) * n + r;
                    final boolean leader = groups.leader(groups.groupOf[r]) == r;
                    final long perOp = read.get(at) / MEASURED;
                    assertEquals(0, read.get(at) % MEASURED, "the same lines in every operation, rank " + r);
                    if (hier == 1 && leader)
                    {
                        leaderSum += perOp;
                        leaderCross += crossed.get(at) / MEASURED;
                    }
                    else
                    {
                        memberSum += perOp;
                    }
                    totalCross += crossed.get(at) / MEASURED;
                    final long expected;
                    if (hier == 0)
                    {
                        // The others' flag lines; an allreduce reads no done word, because the
                        // finished words of the previous operation's flag lines answer its wait.
                        expected = n - 1;
                    }
                    else if (!leader)
                    {
                        expected = 1;
                    }
                    else
                    {
                        expected = kind == 0 ? (g - 1) + (nodes - 1) : (g - 1) + (nodes - 1) * (1 + (8 * g + 63) / 64);
                    }
                    assertEquals(expected, perOp, kinds[kind] + (hier == 0 ? " flat" : " hierarchical") +
                        ", lines read by rank " + r);
                }
                final long total = memberSum + leaderSum;
                table.append(String.format(
                    "n=%d N=%d %-14s %-12s lines/op: total %6d, per member %s, crossing nodes %5d%n", n, nodes,
                    kinds[kind], hier == 0 ? "flat" : "hierarchical", total,
                    hier == 0 ? String.valueOf(memberSum / n) : "1 (leaders " + leaderSum / nodes + ")", totalCross));
                if (hier == 1)
                {
                    assertEquals(totalCross, leaderCross, "only leaders read across groups");
                }
            }
        }
        System.out.print(table);
    }

    private static void count(final RankContext ctx, final int n, final int[] labels,
        final MemberGroups groups, final int kinds, final AtomicLongArray read, final AtomicLongArray crossed)
    {
        final int me = ctx.rank();
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        for (int hier = 0; hier < 2; hier++)
        {
            final boolean hierarchical = hier == 1;
            final int context = CONTEXT + 4 * hier;
            final Members attaching = new Members(ctx, world, me, context + 1, 1);
            final LineCounter[] view = new LineCounter[1];
            final ShmCollectives shm = ShmCollectives.attach(ctx, world, me, context, 128,
                hierarchical ? labels : null, b -> view[0] = new LineCounter(b, me, n, 128, groups, hierarchical),
                () -> new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
            final byte[] out = new byte[8];
            for (int kind = 0; kind < kinds; kind++)
            {
                long lines = 0;
                long cross = 0;
                for (int op = 0; op < WARM_UP + MEASURED; op++)
                {
                    view[0].clear();
                    if (kind == 0)
                    {
                        shm.barrier();
                    }
                    else
                    {
                        final byte[] mine = new byte[8];
                        putLong(mine, 0, me + op);
                        shm.allreduce(mine, 8, 1, LONG_SUM, out);
                        assertEquals((long)n * (n - 1) / 2 + (long)n * op, getLong(out, 0));
                    }
                    if (op >= WARM_UP)
                    {
                        lines += view[0].lines.size();
                        cross += view[0].crossing;
                    }
                }
                read.set((2 * kind + hier) * n + me, lines);
                crossed.set((2 * kind + hier) * n + me, cross);
            }
            shm.close();
        }
    }
}
