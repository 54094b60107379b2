package org.shmpi.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

/**
 * Windows whose members say they share no memory (as members on different machines say), with
 * ranks as threads: no window segment is made, every member serves its own memory and every
 * synchronisation is a message ({@link MessageControl}). Data through every flavor, atomics with
 * exact totals, the exclusive lock's exclusion and its queue, PSCW with test, an operation that
 * fails at the target reported at the origin's flush, and the shared flavor refused.
 */
@Timeout(120)
class WindowsAcrossMachinesTest
{
    private static final int CONTEXT = 44;
    private static final long LONGS = UnsafeApi.arrayBaseOffset(long[].class);
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    /** Members over point-to-point schedules that share no memory. */
    private static WindowMembers members(final RankContext ctx, final int n)
    {
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        final ScheduleMembers m = new ScheduleMembers(ctx, world, ctx.rank(), CONTEXT);
        return new WindowMembers()
        {
            @Override
            public int[] world()
            {
                return m.world();
            }

            @Override
            public int rank()
            {
                return m.rank();
            }

            @Override
            public int context()
            {
                return m.context();
            }

            @Override
            public void barrier()
            {
                m.barrier();
            }

            @Override
            public long[] allgather(final long[] mine)
            {
                return m.allgather(mine);
            }

            @Override
            public boolean sharesMemory()
            {
                return false;
            }
        };
    }

    private static ShmWindow make(final RankContext ctx, final WindowMembers m, final int flavor, final long[] array)
    {
        switch (flavor)
        {
            case ShmWindow.FLAVOR_CREATE:
                return ShmWindow.create(ctx, m, array, LONGS, 8L * array.length, 8);
            case ShmWindow.FLAVOR_ALLOCATE:
                return ShmWindow.allocate(ctx, m, 8L * array.length, 8, ShmWindow.FLAVOR_ALLOCATE, false);
            default:
                throw new IllegalArgumentException("flavor " + flavor);
        }
    }

    /** What {@code w} holds at long {@code index} of {@code target}, read by a get under a shared lock. */
    private static long read(final ShmWindow w, final int target, final int index)
    {
        final long[] v = new long[1];
        w.lock(ShmWindow.LOCK_SHARED, target, 0);
        w.get(v, LONGS, DataLayout.CONTIGUOUS, 8, target, index, null, 1);
        w.unlock(target);
        return v[0];
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void putGetAndAccumulateInFencesThroughEveryFlavor(final int n) throws Exception
    {
        job = ThreadedJob.start("win-across-data-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final int right = (me + 1) % n;
            final int left = (me - 1 + n) % n;
            for (final int flavor : new int[] {ShmWindow.FLAVOR_CREATE, ShmWindow.FLAVOR_ALLOCATE})
            {
                final long[] array = new long[32];
                final ShmWindow w = make(ctx, m, flavor, array);
                assertTrue(w.isServed(me) && w.isServed(right), "every member serves its memory");
                w.fence(0);
                final long[] three = {10L * me, 10L * me + 1, 10L * me + 2};
                w.put(three, LONGS, DataLayout.CONTIGUOUS, 24, right, 0, null, 3);
                final TypeMap every2 = TypeMap.hvector(4, 1, 16, TypeMap.basic(BasicKind.LONG, 8));
                final long[] four = {100L + me, 200L + me, 300L + me, 400L + me};
                w.put(four, LONGS, DataLayout.CONTIGUOUS, 32, right, 8, every2, 1);
                final long[] one = {me + 1};
                w.accumulate(one, LONGS, DataLayout.CONTIGUOUS, 8, 0, 30, null, 1, Reductions.SUM, BasicKind.LONG,
                    null, 0, null);
                w.fence(0);
                final ByteBuffer mine = flavor == ShmWindow.FLAVOR_ALLOCATE ? w.region(me) : null;
                final long[] got = new long[32];
                for (int i = 0; i < 32; i++)
                {
                    got[i] = mine != null ? mine.getLong(8 * i) : array[i];
                }
                assertEquals(10L * left + 2, got[2]);
                assertEquals(100L + left, got[8]);
                assertEquals(0, got[9], "gap of the strided put");
                assertEquals(400L + left, got[14]);
                if (me == 0)
                {
                    assertEquals((long)n * (n + 1) / 2, got[30], "accumulated by every member");
                }
                final long[] back = new long[4];
                w.get(back, LONGS, DataLayout.CONTIGUOUS, 32, right, 8, every2, 1);
                w.fence(ShmWindow.MODE_NOSUCCEED);
                assertArrayEquals(four, back);
                final ShmpiException notShared = assertThrows(ShmpiException.class, () -> w.region(right));
                assertEquals(ErrorClass.ERR_RMA_SHARED, notShared.errorClass());
                w.free();
            }
            final ShmpiException shared = assertThrows(ShmpiException.class, () ->
                ShmWindow.allocate(ctx, m, 64, 1, ShmWindow.FLAVOR_SHARED, true));
            assertEquals(ErrorClass.ERR_RMA_SHARED, shared.errorClass());
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void atomicsGiveExactTotalsAndTheExclusiveLockExcludes(final int n) throws Exception
    {
        final int rounds = 200;
        job = ThreadedJob.start("win-across-atomics-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ShmWindow w = ShmWindow.allocate(ctx, m, 64, 8, ShmWindow.FLAVOR_ALLOCATE, false);
            final long[] one = {1};
            final long[] fetched = new long[1];
            long previous = -1;
            w.lockAll(0);
            for (int i = 0; i < rounds; i++)
            {
                // Fetch-and-add at long 0 of the last member: this member's fetches increase.
                w.fetchAndOp(one, LONGS, fetched, LONGS, Reductions.SUM, BasicKind.LONG, n - 1, 0);
                assertTrue(fetched[0] > previous && fetched[0] < (long)n * rounds, "fetched " + fetched[0]);
                previous = fetched[0];
                w.accumulate(one, LONGS, DataLayout.CONTIGUOUS, 8, 0, 1, null, 1, Reductions.SUM, BasicKind.LONG,
                    null, 0, null);
            }
            w.unlockAll();
            // get, add, put under the exclusive lock: no update lost.
            final long[] v = new long[1];
            for (int i = 0; i < rounds / 4; i++)
            {
                w.lock(ShmWindow.LOCK_EXCLUSIVE, 0, 0);
                w.get(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 2, null, 1);
                w.flush(0);
                v[0]++;
                Thread.yield();
                w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 2, null, 1);
                w.unlock(0);
            }
            // Compare-and-swap race at long 3 of member 0: exactly one member wins.
            w.lock(ShmWindow.LOCK_SHARED, 0, 0);
            final long[] mine = {me + 1};
            final long[] zero = {0};
            final long[] seen = new long[1];
            w.compareAndSwap(mine, LONGS, zero, LONGS, seen, LONGS, 8, 0, 3);
            w.unlock(0);
            m.barrier();
            assertEquals((long)n * rounds, read(w, n - 1, 0), "fetch-and-add total");
            assertEquals((long)n * rounds, read(w, 0, 1), "accumulate total");
            assertEquals((long)n * (rounds / 4), read(w, 0, 2), "counter under the exclusive lock");
            final long winner = read(w, 0, 3);
            assertTrue(winner >= 1 && winner <= n, "someone won the swap: " + winner);
            final long[] won = m.allgather(new long[] {seen[0] == 0 ? 1 : 0});
            assertEquals(1, Arrays.stream(won).sum(), "members that won the swap");
            m.barrier();
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void postStartCompleteWaitAndTest(final int n) throws Exception
    {
        job = ThreadedJob.start("win-across-pscw-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final long[] array = new long[4];
            final ShmWindow w = ShmWindow.create(ctx, m, array, LONGS, 32, 8);
            final int right = (me + 1) % n;
            final int left = (me - 1 + n) % n;
            for (int epoch = 1; epoch <= 20; epoch++)
            {
                w.post(new int[] {left}, 0);
                w.start(new int[] {right}, 0);
                final long[] v = {epoch * 100L + me};
                w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, right, epoch % 4, null, 1);
                w.complete();
                if (epoch % 2 == 0)
                {
                    while (!w.test())
                    {
                        Thread.onSpinWait();
                    }
                }
                else
                {
                    w.waitFor();
                }
                assertEquals(epoch * 100L + left, array[epoch % 4], "epoch " + epoch);
            }
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void dynamicWindowServesAttachmentsAndReportsDetachedOnesAtTheFlush(final int n) throws Exception
    {
        job = ThreadedJob.start("win-across-dyn-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final int right = (me + 1) % n;
            final ShmWindow w = ShmWindow.createDynamic(ctx, m);
            final long[] region = new long[8];
            w.attach(region, region, LONGS, 64);
            final long[] disp = m.allgather(new long[] {w.displacementOf(region)});
            final long[] v = {1};
            w.lockAll(0);
            for (int i = 0; i < 40; i++)
            {
                w.accumulate(v, LONGS, DataLayout.CONTIGUOUS, 8, right, disp[right] + 8 * (i % 8), null, 1,
                    Reductions.SUM, BasicKind.LONG, null, 0, null);
            }
            w.unlockAll();
            m.barrier();
            assertEquals(40, Arrays.stream(region).sum(), "accumulated into the attachment by the left neighbour");
            m.barrier();
            w.detach(region);
            m.barrier();
            // The origin cannot see the target's attachments: the target refuses, the flush says so.
            w.lockAll(0);
            w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, right, disp[right], null, 1);
            final long[] into = new long[1];
            final ShmpiException atFlush = assertThrows(ShmpiException.class, () -> w.flush(right));
            assertEquals(ErrorClass.ERR_RMA_RANGE, atFlush.errorClass(), atFlush.getMessage());
            final ShmpiException fetch = assertThrows(ShmpiException.class, () -> w.fetchAndOp(v, LONGS, into, LONGS,
                Reductions.SUM, BasicKind.LONG, right, disp[right]));
            assertEquals(ErrorClass.ERR_RMA_RANGE, fetch.errorClass(), fetch.getMessage());
            w.flushAll();
            w.unlockAll();
            m.barrier();
            w.free();
        });
    }
}
