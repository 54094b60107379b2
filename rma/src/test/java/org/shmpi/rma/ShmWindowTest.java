package org.shmpi.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

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
 * Windows with ranks as threads of this JVM (more threads than cores at 3, 4 and 8, so waiting
 * must sleep and be woken): data movement through every flavor, concurrent atomics with exact
 * results, mutual exclusion of the exclusive lock, PSCW, and the error classes of misuse.
 * <p>One file of ~750 lines because the cases share the thread-ranks harness and the window
 * builders below; by engine part they are the window as a whole, which the split classes of
 * {@code ShmWindow} serve together.
 */
@Timeout(120)
class ShmWindowTest
{
    private static final int CONTEXT = 40;
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long LONGS = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long INTS = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long DOUBLES = UnsafeApi.arrayBaseOffset(double[].class);
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    private static WindowMembers members(final RankContext ctx, final int n)
    {
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        return new ScheduleMembers(ctx, world, ctx.rank(), CONTEXT);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 8})
    void putGetAndSharedLoadsInEveryAllocatingLayout(final int n) throws Exception
    {
        job = ThreadedJob.start("win-data-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            for (final boolean contiguous : new boolean[] {false, true})
            {
                // Uneven sizes: member r has 64 + 8r bytes (8 + r longs).
                final ShmWindow w = ShmWindow.allocate(ctx, m, 8L * (8 + me), 8,
                    contiguous ? ShmWindow.FLAVOR_SHARED : ShmWindow.FLAVOR_ALLOCATE, contiguous);
                for (int r = 0; r < n; r++)
                {
                    assertEquals(8L * (8 + r), w.regionSize(r));
                    assertEquals(8, w.dispUnit(r));
                    if (contiguous && r > 0)
                    {
                        assertEquals(w.address(r - 1) + w.regionSize(r - 1), w.address(r), "contiguous regions");
                    }
                }
                w.fence(ShmWindow.MODE_NOPRECEDE);
                // Each member writes longs 1..3 of every member's region: 1000 * me + target.
                for (int t = 0; t < n; t++)
                {
                    final long[] v = {1000L * me + t, -1, 7};
                    w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, t, 1 + (me % 3), null, 1);
                }
                w.fence(0);
                // Everyone reads everyone's region with get and with loads through region().
                for (int t = 0; t < n; t++)
                {
                    final long[] got = new long[3];
                    w.get(got, LONGS, DataLayout.CONTIGUOUS, 24, t, 1, null, 3);
                    final ByteBuffer view = w.region(t);
                    for (int i = 0; i < 3; i++)
                    {
                        assertEquals(got[i], view.getLong(8 * (1 + i)), "load and get agree");
                        // Slot 1 + i was written by the members with me % 3 == i; the last of them wins
                        // only among equal slots, so check that the value names a writer of that slot.
                        if (got[i] != 0)
                        {
                            assertEquals(t, got[i] % 1000, "target part");
                            assertEquals(i, (got[i] / 1000) % 3, "writer slot");
                        }
                    }
                }
                w.fence(ShmWindow.MODE_NOSUCCEED);
                w.free();
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void derivedTargetTypesAndStridedOrigins(final int n) throws Exception
    {
        job = ThreadedJob.start("win-types-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ShmWindow w = ShmWindow.allocate(ctx, m, 4 * 64, 4, ShmWindow.FLAVOR_ALLOCATE, false);
            // Target: every other int (vector of 8 blocks of 1 int, stride 2 ints); origin contiguous.
            final TypeMap every2 = TypeMap.hvector(8, 1, 8, TypeMap.basic(BasicKind.INT, 4));
            final int right = (me + 1) % n;
            final int[] values = new int[8];
            Arrays.setAll(values, i -> 100 * me + i);
            w.fence(0);
            w.put(values, INTS, DataLayout.CONTIGUOUS, 32, right, 4, every2, 1);
            w.fence(0);
            final int left = (me - 1 + n) % n;
            final ByteBuffer mine = w.region(me);
            for (int i = 0; i < 8; i++)
            {
                assertEquals(100 * left + i, mine.getInt(4 * (4 + 2 * i)), "strided put, element " + i);
                assertEquals(0, mine.getInt(4 * (5 + 2 * i)), "gap untouched, element " + i);
            }
            // Get back through the same map into a strided origin (every other int of a 16-int array).
            final int[] back = new int[16];
            w.get(back, INTS, every2.layout(), 32, me, 4, every2, 1);
            for (int i = 0; i < 8; i++)
            {
                assertEquals(100 * left + i, back[2 * i]);
                assertEquals(0, back[2 * i + 1]);
            }
            // Accumulate through the map: SUM of 1 onto every element, in the next epoch (the
            // checks above read this member's memory while the others may already move on).
            w.fence(0);
            final int[] ones = new int[8];
            Arrays.fill(ones, 1);
            w.accumulate(ones, INTS, DataLayout.CONTIGUOUS, 32, right, 4, every2, 1, Reductions.SUM, BasicKind.INT,
                null, 0, null);
            w.fence(ShmWindow.MODE_NOSUCCEED);
            for (int i = 0; i < 8; i++)
            {
                assertEquals(100 * left + i + 1, mine.getInt(4 * (4 + 2 * i)));
            }
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8})
    void concurrentAtomicsGiveExactResults(final int n) throws Exception
    {
        final int rounds = 500;
        job = ThreadedJob.start("win-atomics-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ShmWindow w = ShmWindow.allocate(ctx, m, 64, 1, ShmWindow.FLAVOR_ALLOCATE, false);
            final long[] one = {1};
            final long[] fetched = new long[1];
            final double[] half = {0.5};
            final long seen = 0;
            w.lockAll(0);
            long previous = -1;
            for (int i = 0; i < rounds; i++)
            {
                // fetch-and-add on a long at byte 0 of member 0: every fetched value is distinct.
                w.fetchAndOp(one, LONGS, fetched, LONGS, Reductions.SUM, BasicKind.LONG, 0, 0);
                assertTrue(fetched[0] >= 0 && fetched[0] < (long)n * rounds, "fetched " + fetched[0]);
                // double sum by compare-and-set at byte 8, int max at 16, short sum at 20 (2-byte CAS)
                w.accumulate(half, DOUBLES, DataLayout.CONTIGUOUS, 8, 0, 8, null, 1, Reductions.SUM, BasicKind.DOUBLE,
                    null, 0, null);
                final int[] cand = {me * rounds + i};
                w.accumulate(cand, INTS, DataLayout.CONTIGUOUS, 4, 0, 16, null, 1, Reductions.MAX, BasicKind.INT,
                    null, 0, null);
                final short[] s1 = {1};
                w.accumulate(s1, UnsafeApi.arrayBaseOffset(short[].class), DataLayout.CONTIGUOUS, 2, 0, 20, null, 1,
                    Reductions.SUM, BasicKind.SHORT, null, 0, null);
                // get-accumulate (fetch of the running sum) on a long at 24: increasing for this member
                final long[] old = new long[1];
                w.accumulate(one, LONGS, DataLayout.CONTIGUOUS, 8, 0, 24, null, 1, Reductions.SUM, BasicKind.LONG, old,
                    LONGS, DataLayout.CONTIGUOUS);
                assertTrue(old[0] > previous, "fetched sums increase");
                previous = old[0];
            }
            w.unlockAll();
            // Compare-and-swap race: 0 -> me + 1 at byte 32; exactly one member wins.
            w.lockAll(0);
            final long[] mine = {me + 1};
            final long[] zero = {0};
            final long[] result = new long[1];
            w.compareAndSwap(mine, LONGS, zero, LONGS, result, LONGS, 8, 0, 32);
            w.unlockAll();
            w.fence(0);
            w.fence(ShmWindow.MODE_NOSUCCEED);
            final ByteBuffer r0 = w.region(0);
            assertEquals((long)n * rounds, r0.getLong(0), "fetch-and-add total");
            assertEquals(n * rounds * 0.5, r0.getDouble(8), "double sum");
            assertEquals((n - 1) * rounds + rounds - 1, r0.getInt(16), "int max");
            assertEquals((short)(n * rounds), r0.getShort(20), "short sum");
            assertEquals((long)n * rounds, r0.getLong(24), "get-accumulate total");
            final long winner = r0.getLong(32);
            assertTrue(winner >= 1 && winner <= n, "someone won the swap: " + winner);
            assertEquals(result[0] == 0, winner == me + 1, "the member that saw 0 is the winner");
            assertEquals(0, seen);
            w.free();
        });
    }

    /**
     * Large accumulates (one plain loop under the exclusive accumulate word) against
     * fetch-and-adds and small accumulates (atomic instructions under the shared word) on the
     * same elements: no update is lost. (A plain loop that took no word would lose some.)
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8})
    void largeAccumulatesAndAtomicsOnTheSameElements(final int n) throws Exception
    {
        final int rounds = 300;
        final int items = 4 * WindowAccess.BULK_ELEMENTS;
        job = ThreadedJob.start("win-bulk-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final ShmWindow w = ShmWindow.allocate(ctx, m, 8L * items, 8, ShmWindow.FLAVOR_ALLOCATE, false);
            final long[] ones = new long[items];
            Arrays.fill(ones, 1);
            final long[] fetched = new long[1];
            w.lockAll(0);
            for (int i = 0; i < rounds; i++)
            {
                w.accumulate(ones, LONGS, DataLayout.CONTIGUOUS, 8L * items, 0, 0, null, items, Reductions.SUM,
                    BasicKind.LONG, null, 0, null);
                w.fetchAndOp(ones, LONGS, fetched, LONGS, Reductions.SUM, BasicKind.LONG, 0, i % items);
                w.accumulate(ones, LONGS, DataLayout.CONTIGUOUS, 8, 0, (i + 1) % items, null, 1, Reductions.SUM,
                    BasicKind.LONG, null, 0, null);
            }
            w.unlockAll();
            m.barrier();
            if (m.rank() == 0)
            {
                final ByteBuffer r = w.region(0);
                long total = 0;
                for (int e = 0; e < items; e++)
                {
                    total += r.getLong(8 * e);
                }
                assertEquals((long)n * rounds * (items + 2), total, "no update lost");
            }
            m.barrier();
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void exclusiveLockSerialisesReadModifyWrite(final int n) throws Exception
    {
        final int rounds = 300;
        job = ThreadedJob.start("win-excl-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final ShmWindow w = ShmWindow.allocate(ctx, m, 8, 8, ShmWindow.FLAVOR_ALLOCATE, false);
            final long[] v = new long[1];
            for (int i = 0; i < rounds; i++)
            {
                // get, add, put: lost updates unless the lock excludes the others
                w.lock(ShmWindow.LOCK_EXCLUSIVE, n - 1, 0);
                w.get(v, LONGS, DataLayout.CONTIGUOUS, 8, n - 1, 0, null, 1);
                v[0]++;
                Thread.yield();
                w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, n - 1, 0, null, 1);
                w.unlock(n - 1);
            }
            m.barrier();
            w.lock(ShmWindow.LOCK_SHARED, n - 1, 0);
            w.get(v, LONGS, DataLayout.CONTIGUOUS, 8, n - 1, 0, null, 1);
            w.unlock(n - 1);
            assertEquals((long)n * rounds, v[0], "counter under the exclusive lock");
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void postStartCompleteWaitRing(final int n) throws Exception
    {
        job = ThreadedJob.start("win-pscw-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ShmWindow w = ShmWindow.allocate(ctx, m, 8 * 4, 8, ShmWindow.FLAVOR_ALLOCATE, false);
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
                assertEquals(epoch * 100L + left, w.region(me).getLong(8 * (epoch % 4)), "epoch " + epoch);
            }
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void windowOverSharedHeapMemory(final int n) throws Exception
    {
        job = ThreadedJob.start("win-heap-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ByteBuffer memory = ctx.heap().allocate(4096 * (me + 1));
            final long address = org.agrona.BufferUtil.address(memory);
            final ShmWindow w = ShmWindow.create(ctx, m, null, address, 4096L * (me + 1), 1);
            assertEquals(ShmWindow.FLAVOR_CREATE, w.flavor());
            w.fence(0);
            final byte[] stamp = new byte[16];
            Arrays.fill(stamp, (byte)(me + 1));
            for (int t = 0; t < n; t++)
            {
                w.put(stamp, BYTES, DataLayout.CONTIGUOUS, 16, t, 4096L * (t + 1) - 16L * (me + 1), null, 16);
            }
            w.fence(0);
            for (int r = 0; r < n; r++)
            {
                final byte[] expect = new byte[16];
                Arrays.fill(expect, (byte)(r + 1));
                final byte[] got = new byte[16];
                memory.get(memory.capacity() - 16 * (r + 1), got);
                assertArrayEquals(expect, got, "what member " + r + " put into this member's own buffer");
            }
            // Beyond the window: ERR_RMA_RANGE, before anything is written.
            final ShmpiException range = assertThrows(ShmpiException.class, () ->
                w.put(stamp, BYTES, DataLayout.CONTIGUOUS, 16, 0, 4096 - 8, null, 16));
            assertEquals(ErrorClass.ERR_RMA_RANGE, range.errorClass());
            w.fence(ShmWindow.MODE_NOSUCCEED);
            w.free();
            // Memory outside the heap is served by its owner: no buffer reaches it from here.
            final ByteBuffer plain = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            final ShmWindow s = ShmWindow.create(ctx, m, null, org.agrona.BufferUtil.address(plain), 64, 1);
            assertTrue(s.isServed(me));
            final ShmpiException shared = assertThrows(ShmpiException.class, () -> s.region((me + 1) % n));
            assertEquals(ErrorClass.ERR_RMA_SHARED, shared.errorClass());
            s.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void memoryServedByItsOwnersProgressEngine(final int n) throws Exception
    {
        job = ThreadedJob.start("win-served-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final int right = (me + 1) % n;
            final int left = (me - 1 + n) % n;
            // Even members expose a long[] (served), odd ones shared-heap memory (mapped): both kinds meet.
            final long[] array = new long[64];
            final ByteBuffer heap = ctx.heap().allocate(8 * 64);
            final ShmWindow w = me % 2 == 0 ? ShmWindow.create(ctx, m, array, LONGS, 8 * 64, 8) :
                ShmWindow.create(ctx, m, null, org.agrona.BufferUtil.address(heap), 8 * 64, 8);
            assertEquals(me % 2 == 0, w.isServed(me));
            // Fence epoch: a put of 3 longs and a strided put (every other long) to the right.
            w.fence(0);
            final long[] three = {10L * me, 10L * me + 1, 10L * me + 2};
            w.put(three, LONGS, DataLayout.CONTIGUOUS, 24, right, 0, null, 3);
            final TypeMap every2 = TypeMap.hvector(4, 1, 16, TypeMap.basic(BasicKind.LONG, 8));
            final long[] four = {100L + me, 200L + me, 300L + me, 400L + me};
            w.put(four, LONGS, DataLayout.CONTIGUOUS, 32, right, 8, every2, 1);
            w.fence(0);
            final long[] got = new long[12];
            for (int i = 0; i < 12; i++)
            {
                got[i] = me % 2 == 0 ? array[i] : heap.getLong(8 * i);
            }
            assertEquals(10L * left, got[0]);
            assertEquals(10L * left + 2, got[2]);
            assertEquals(100L + left, got[8]);
            assertEquals(0, got[9], "gap of the strided put");
            assertEquals(200L + left, got[10]);
            // Get back from the right what this member put there, through the map.
            final long[] back = new long[4];
            w.get(back, LONGS, DataLayout.CONTIGUOUS, 32, right, 8, every2, 1);
            w.fence(0);
            assertArrayEquals(four, back);
            // Passive target: every member adds to long 20 of member 0, fetch-and-adds long 21, and
            // races a compare-and-swap on long 22.
            for (int i = 0; i < 50; i++)
            {
                w.lock(ShmWindow.LOCK_SHARED, 0, 0);
                final long[] one = {1};
                w.accumulate(one, LONGS, DataLayout.CONTIGUOUS, 8, 0, 20, null, 1, Reductions.SUM, BasicKind.LONG, null,
                    0, null);
                final long[] before = new long[1];
                w.fetchAndOp(one, LONGS, before, LONGS, Reductions.SUM, BasicKind.LONG, 0, 21);
                assertTrue(before[0] >= 0 && before[0] < 50L * n);
                w.unlock(0);
            }
            w.lock(ShmWindow.LOCK_EXCLUSIVE, 0, 0);
            final long[] mine = {me + 1};
            final long[] zero = {0};
            final long[] seen = new long[1];
            w.compareAndSwap(mine, LONGS, zero, LONGS, seen, LONGS, 8, 0, 22);
            w.unlock(0);
            w.fence(0);
            w.fence(ShmWindow.MODE_NOSUCCEED);
            if (me == 0)
            {
                assertEquals(50L * n, array[20], "accumulated through the service");
                assertEquals(50L * n, array[21], "fetch-and-added through the service");
                assertTrue(array[22] >= 1 && array[22] <= n);
            }
            final long[] winners = new long[1];
            winners[0] = seen[0] == 0 ? 1 : 0;
            final long[] all = m.allgather(winners);
            assertEquals(1, java.util.Arrays.stream(all).sum(), "members that won the swap");
            w.free();
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void dynamicWindowWithAttachAndDetachDuringTraffic(final int n) throws Exception
    {
        job = ThreadedJob.start("win-dyn-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final int right = (me + 1) % n;
            final ShmWindow w = ShmWindow.createDynamic(ctx, m);
            assertEquals(ShmWindow.FLAVOR_DYNAMIC, w.flavor());
            // Region A: shared-heap memory on even members, a long[] on odd ones.
            final ByteBuffer heapA = ctx.heap().allocate(8 * 16);
            final long[] arrayA = new long[16];
            final Object keyA = me % 2 == 0 ? heapA : arrayA;
            if (me % 2 == 0)
            {
                w.attach(keyA, null, org.agrona.BufferUtil.address(heapA), 8 * 16);
            }
            else
            {
                w.attach(keyA, arrayA, LONGS, 8 * 16);
            }
            final long[] dispA = m.allgather(new long[] {w.displacementOf(keyA)});
            w.lockAll(0);
            final long[] v = {1};
            for (int i = 0; i < 30; i++)
            {
                w.accumulate(v, LONGS, DataLayout.CONTIGUOUS, 8, right, dispA[right] + 8 * (i % 4), null, 1,
                    Reductions.SUM, BasicKind.LONG, null, 0, null);
                if (i == 10)
                {
                    // Region B joins while the others still work on A.
                    final long[] arrayB = new long[4];
                    w.attach(arrayB, arrayB, LONGS, 32);
                    assertTrue(w.displacementOf(arrayB) >= dispA[me] + 8 * 16, "displacements never overlap");
                    w.detach(arrayB);
                }
            }
            w.flushAll();
            w.unlockAll();
            m.barrier();
            long sum = 0;
            for (int i = 0; i < 4; i++)
            {
                sum += me % 2 == 0 ? heapA.getLong(8 * i) : arrayA[i];
            }
            assertEquals(30, sum, "accumulated into region A by the left neighbour");
            // Past the end of A, and after A is detached: ERR_RMA_RANGE.
            w.lockAll(0);
            final ShmpiException past = assertThrows(ShmpiException.class, () -> w.put(v, LONGS,
                DataLayout.CONTIGUOUS, 8, right, dispA[right] + 8 * 16, null, 1));
            assertEquals(ErrorClass.ERR_RMA_RANGE, past.errorClass());
            w.unlockAll();
            m.barrier();
            w.detach(keyA);
            m.barrier();
            w.lockAll(0);
            final ShmpiException gone = assertThrows(ShmpiException.class, () -> w.put(v, LONGS,
                DataLayout.CONTIGUOUS, 8, right, dispA[right], null, 1));
            assertEquals(ErrorClass.ERR_RMA_RANGE, gone.errorClass());
            w.unlockAll();
            final ShmpiException flavor = assertThrows(ShmpiException.class, () -> w.region(me));
            assertEquals(ErrorClass.ERR_RMA_FLAVOR, flavor.errorClass());
            w.free();
        });
    }

    /**
     * Every pair of predefined op and basic kind that accumulates take, from every member onto
     * member 0 at once, through mapped memory and through served memory, under lockAll, in a
     * fence epoch or under an exclusive lock (taking turns from pair to pair): the target ends as
     * the kernel applied to every contribution (the ops are commutative and the values small
     * integers, so any order gives the same bits), REPLACE leaves one member's value, NO_OP the
     * initial one; get-accumulate returns values the target held.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void everyOpOnEveryKindItAllows(final int n) throws Exception
    {
        final int rounds = 4;
        final int items = 3;
        job = ThreadedJob.start("win-ops-" + n, n, 64 * 1024);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final byte[] array = new byte[16 * items];
            int pairs = 0;
            for (final boolean servedMemory : new boolean[] {false, true})
            {
                final ShmWindow w = servedMemory ? ShmWindow.create(ctx, m, array, BYTES, array.length, 1) :
                    ShmWindow.allocate(ctx, m, 16 * items, 1, ShmWindow.FLAVOR_ALLOCATE, false);
                for (int kind = BasicKind.BYTE; kind < BasicKind.COUNT; kind++)
                {
                    for (int op = 0; op < Reductions.COUNT; op++)
                    {
                        final Reductions.Kernel kernel = Reductions.kernel(op, kind);
                        if (kernel == null || kind == BasicKind.PACKED)
                        {
                            continue;
                        }
                        pairs++;
                        final int es = BasicKind.size(kind);
                        final byte[] initial = new byte[es * items];
                        for (int i = 0; i < items; i++)
                        {
                            element(initial, i * es, kind, 2 + i, 99);
                        }
                        if (me == 0)
                        {
                            w.lock(ShmWindow.LOCK_EXCLUSIVE, 0, 0);
                            w.put(initial, BYTES, DataLayout.CONTIGUOUS, initial.length, 0, 0, null, initial.length);
                            w.unlock(0);
                        }
                        m.barrier();
                        // The synchronisation changes from pair to pair: lockAll, a fence epoch, or an
                        // exclusive lock around each accumulate (the plain loop without the word).
                        final int sync = pairs % 3;
                        if (sync == 0)
                        {
                            w.lockAll(0);
                        }
                        else if (sync == 1)
                        {
                            w.fence(0);
                        }
                        for (int k = 0; k < rounds; k++)
                        {
                            final byte[] in = new byte[es * items];
                            for (int i = 0; i < items; i++)
                            {
                                contribution(in, i * es, kind, op, me, k, i);
                            }
                            final byte[] old = new byte[es * items];
                            if (sync == 2)
                            {
                                w.lock(ShmWindow.LOCK_EXCLUSIVE, 0, 0);
                            }
                            w.accumulate(in, BYTES, DataLayout.CONTIGUOUS, in.length, 0, 0, null, in.length, op, kind,
                                k % 2 == 0 ? null : old, BYTES, k % 2 == 0 ? null : DataLayout.CONTIGUOUS);
                            if (sync == 2)
                            {
                                w.unlock(0);
                            }
                        }
                        if (sync == 0)
                        {
                            w.unlockAll();
                        }
                        else if (sync == 1)
                        {
                            w.fence(ShmWindow.MODE_NOSUCCEED);
                        }
                        m.barrier();
                        if (me == 0)
                        {
                            final byte[] got = new byte[es * items];
                            w.lock(ShmWindow.LOCK_SHARED, 0, 0);
                            w.get(got, BYTES, DataLayout.CONTIGUOUS, got.length, 0, 0, null, got.length);
                            w.unlock(0);
                            final String what = Reductions.name(op) + " on kind " + kind +
                                (servedMemory ? ", served" : ", mapped");
                            if (op == Reductions.NO_OP)
                            {
                                assertArrayEquals(initial, got, what);
                            }
                            else if (op == Reductions.REPLACE)
                            {
                                for (int i = 0; i < items; i++)
                                {
                                    boolean someone = false;
                                    for (int r = 0; r < n; r++)
                                    {
                                        final byte[] e = new byte[es];
                                        contribution(e, 0, kind, op, r, rounds - 1, i);
                                        someone |= Arrays.equals(e, Arrays.copyOfRange(got, i * es, (i + 1) * es));
                                    }
                                    assertTrue(someone, what + ": element " + i + " is some member's last value");
                                }
                            }
                            else
                            {
                                final byte[] expect = initial.clone();
                                for (int r = 0; r < n; r++)
                                {
                                    for (int k = 0; k < rounds; k++)
                                    {
                                        final byte[] in = new byte[es * items];
                                        for (int i = 0; i < items; i++)
                                        {
                                            contribution(in, i * es, kind, op, r, k, i);
                                        }
                                        kernel.apply(in, BYTES, expect, BYTES, items);
                                    }
                                }
                                assertArrayEquals(expect, got, what);
                            }
                        }
                        m.barrier();
                    }
                }
                w.free();
            }
            // MPI's table: 12 numeric kinds for SUM and PROD, ... (counted, mapped and served alike).
            assertTrue(pairs >= 2 * 105, "op and kind pairs tried: " + pairs);
        });
    }

    /**
     * Member r's item i of round k: small integers, so that any order of combining gives the
     * same bits; products of 1s and 2s only, and of real complex numbers, so that 32 factors stay
     * exact in a float.
     */
    private static void contribution(final byte[] b, final int at, final int kind, final int op, final int r,
        final int k, final int i)
    {
        final boolean prod = op == Reductions.PROD;
        final boolean complex = kind == BasicKind.FLOAT_COMPLEX || kind == BasicKind.DOUBLE_COMPLEX;
        element(b, at, kind, prod ? 1 + (r + k + i) % 2 : 1 + (r + k + i) % 3, prod && complex ? 0 : r);
    }

    /** Element {@code value} (with index {@code index} for the pair kinds) of {@code kind} at {@code at}. */
    private static void element(final byte[] b, final int at, final int kind, final int value, final int index)
    {
        final ByteBuffer v = ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
        switch (kind)
        {
            case BasicKind.BYTE -> v.put(at, (byte)value);
            case BasicKind.BOOLEAN -> v.put(at, (byte)(value % 2));
            case BasicKind.CHAR, BasicKind.SHORT -> v.putShort(at, (short)value);
            case BasicKind.INT -> v.putInt(at, value);
            case BasicKind.LONG -> v.putLong(at, value);
            case BasicKind.FLOAT -> v.putFloat(at, value);
            case BasicKind.DOUBLE -> v.putDouble(at, value);
            case BasicKind.INT2 -> v.putInt(at, value).putInt(at + 4, index);
            case BasicKind.SHORT_INT -> v.putShort(at, (short)value).putInt(at + 4, index);
            case BasicKind.LONG_INT -> v.putLong(at, value).putInt(at + 8, index);
            case BasicKind.FLOAT_INT -> v.putFloat(at, value).putInt(at + 4, index);
            case BasicKind.DOUBLE_INT -> v.putDouble(at, value).putInt(at + 8, index);
            case BasicKind.FLOAT_COMPLEX -> v.putFloat(at, value).putFloat(at + 4, index);
            case BasicKind.DOUBLE_COMPLEX -> v.putDouble(at, value).putDouble(at + 8, index);
            default -> throw new IllegalArgumentException("kind " + kind);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void misuseRaisesItsErrorClass(final int n) throws Exception
    {
        job = ThreadedJob.start("win-errors-" + n, n, 64 * 1024);
        final AtomicIntegerArray done = new AtomicIntegerArray(n);
        job.run(100, ctx ->
        {
            final WindowMembers m = members(ctx, n);
            final int me = m.rank();
            final ShmWindow w = ShmWindow.allocate(ctx, m, 64, 1, ShmWindow.FLAVOR_ALLOCATE, false);
            final long[] v = {me};
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 0, null, 1));
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.unlock(0));
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.unlockAll());
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.complete());
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.waitFor());
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.flush(0));
            expect(ErrorClass.ERR_LOCKTYPE, () -> w.lock(3, 0, 0));
            expect(ErrorClass.ERR_ASSERT, () -> w.lock(ShmWindow.LOCK_SHARED, 0, ShmWindow.MODE_NOSUCCEED));
            expect(ErrorClass.ERR_ASSERT, () -> w.fence(1 << 10));
            expect(ErrorClass.ERR_RANK, () -> w.lock(ShmWindow.LOCK_SHARED, n, 0));
            w.lockAll(0);
            expect(ErrorClass.ERR_RMA_CONFLICT, () -> w.lock(ShmWindow.LOCK_EXCLUSIVE, 0, 0));
            w.unlockAll();
            w.lock(ShmWindow.LOCK_SHARED, 0, 0);
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.lock(ShmWindow.LOCK_SHARED, 0, 0));
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.fence(0));
            expect(ErrorClass.ERR_RMA_SYNC, () -> w.free());
            expect(ErrorClass.ERR_DISP, () -> w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, -1, null, 1));
            expect(ErrorClass.ERR_RMA_RANGE, () -> w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 57, null, 1));
            expect(ErrorClass.ERR_TYPE, () -> w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 0,
                TypeMap.basic(BasicKind.INT, 4), 1));
            w.put(v, LONGS, DataLayout.CONTIGUOUS, 8, 0, 56, null, 1);
            w.flush(0);
            w.unlock(0);
            expect(ErrorClass.ERR_SIZE, () -> ShmWindow.allocate(ctx, m, -1, 1, ShmWindow.FLAVOR_ALLOCATE, false));
            expect(ErrorClass.ERR_DISP, () -> ShmWindow.allocate(ctx, m, 8, 0, ShmWindow.FLAVOR_ALLOCATE, false));
            w.free();
            expect(ErrorClass.ERR_WIN, () -> w.fence(0));
            done.set(me, 1);
        });
        for (int r = 0; r < n; r++)
        {
            assertEquals(1, done.get(r));
        }
    }

    private static void expect(final int errorClass, final Runnable call)
    {
        final ShmpiException ex = assertThrows(ShmpiException.class, call::run);
        assertEquals(ErrorClass.name(errorClass), ErrorClass.name(ex.errorClass()), ex.getMessage());
    }
}
