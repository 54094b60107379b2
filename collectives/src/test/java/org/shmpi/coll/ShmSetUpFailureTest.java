package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.shm.segment.SegmentNames;

/**
 * When a communicator's shared collective state cannot be made (here: a file of that name is in
 * the way, as a full /dev/shm would refuse it), every member learns it through the agreement
 * and gets null, together: none is left waiting for a segment that will not come, nothing is
 * left behind, and the next attempt with another name succeeds on all.
 */
class ShmSetUpFailureTest
{
    private static final int CONTEXT = 31;
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    @ParameterizedTest(name = "large={0}")
    @ValueSource(booleans = {false, true})
    void everyMemberFallsBackTogether(final boolean large) throws Exception
    {
        final int n = 3;
        job = ThreadedJob.start("shmfail-" + large, n, 64 * 1024);
        final AtomicIntegerArray gotNull = new AtomicIntegerArray(n);
        final Path[] blocker = new Path[1];
        job.run(60, ctx ->
        {
            final int me = ctx.rank();
            final int[] world = {0, 1, 2};
            final AtomicInteger tags = new AtomicInteger(1);
            final java.util.function.IntUnaryOperator agree =
                Agreement.maxOf(() -> new Members(ctx, world, me, CONTEXT + 1, tags.getAndIncrement()));
            final String name = large ? SegmentNames.collectiveLarge(CONTEXT, 0) : SegmentNames.collective(CONTEXT, 0);
            if (me == 0)
            {
                blocker[0] = ctx.segments().pathOf(name);
                try
                {
                    Files.write(blocker[0], new byte[] {1});
                }
                catch (final java.io.IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            }
            // Nobody attaches before the blocker exists.
            agree.applyAsInt(0);
            final Object attached = attach(ctx, world, me, CONTEXT, large, agree);
            if (attached == null)
            {
                gotNull.set(me, 1);
            }
            // Another context: set up everywhere, and it works.
            final Object other = attach(ctx, world, me, CONTEXT + 2, large, agree);
            assertNotNull(other, "the next communicator's state is set up");
            if (large)
            {
                final byte[] out = new byte[8192];
                ((ShmLargeCollectives)other).bcast(0, PackedData.of(out), out.length);
                ((ShmLargeCollectives)other).close();
            }
            else
            {
                ((ShmCollectives)other).barrier();
                ((ShmCollectives)other).close();
            }
            agree.applyAsInt(0);
            if (me == 0)
            {
                try
                {
                    Files.delete(blocker[0]);
                }
                catch (final java.io.IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            }
        });
        for (int r = 0; r < n; r++)
        {
            assertEquals(1, gotNull.get(r), "rank " + r + " fell back");
        }
        assertFalse(Files.exists(blocker[0]));
    }

    private static Object attach(final RankContext ctx, final int[] world, final int me, final int context,
        final boolean large, final java.util.function.IntUnaryOperator agree)
    {
        return large ? ShmLargeCollectives.attachOrNull(ctx, world, me, context, 4096, agree) :
            ShmCollectives.attachOrNull(ctx, world, me, context, 1024, null, agree);
    }
}
