package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.mpi.Expect.expectError;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Datatype;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.Win;

/**
 * One-sided communication between real processes: every flavor and synchronisation mode, data
 * checked where it lands (also by plain loads on the window's memory), concurrent atomics with
 * exact totals, a counter under the exclusive lock, and misuse with its error class.
 */
@MpiTest(np = {1, 2, 4})
class WindowTest
{
    private Intracomm world;
    private int rank;
    private int size;
    private int right;
    private int left;

    @BeforeEach
    void setUp()
    {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        size = world.getSize();
        right = (rank + 1) % size;
        left = (rank - 1 + size) % size;
    }

    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    @Test
    void allocatedWindowsFenceAndAttributes()
    {
        for (final int flavor : new int[] {Win.FLAVOR_PRIVATE, Win.FLAVOR_SHARED})
        {
            // 10 + rank ints per member, displacement unit 1 int.
            final Win win = new Win(10 + rank, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), flavor);
            assertEquals(4 * (10 + rank), win.getAttr(MPI.WIN_SIZE));
            assertEquals(4, win.getAttr(MPI.WIN_DISP_UNIT));
            assertEquals(flavor == Win.FLAVOR_SHARED ? MPI.WIN_FLAVOR_SHARED : MPI.WIN_FLAVOR_ALLOCATE,
                win.getAttr(MPI.WIN_CREATE_FLAVOR));
            assertEquals(MPI.WIN_UNIFIED, win.getAttr(MPI.WIN_MODEL));
            final ByteBuffer mine = (ByteBuffer)win.getAttr(MPI.WIN_BASE);
            assertEquals(4 * (10 + rank), mine.capacity());
            assertEquals(size, win.getGroup().getSize());
            win.fence(MPI.MODE_NOPRECEDE);
            final IntBuffer out = MPI.newIntBuffer(3);
            out.put(0, 1000 * rank).put(1, 1000 * rank + 1).put(2, 1000 * rank + 2);
            win.put(out, 3, MPI.INT, right, 5, 3, MPI.INT);
            win.fence(0);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(1000 * left + i, mine.getInt(4 * (5 + i)), "put from the left, int " + i);
            }
            // Read the right neighbour's memory by get and by loads through sharedQuery.
            final IntBuffer in = MPI.newIntBuffer(3);
            win.get(in, 3, MPI.INT, right, 5, 3, MPI.INT);
            win.fence(MPI.MODE_NOSUCCEED);
            final Win.SharedMemory peer = win.sharedQuery(right);
            assertEquals(4L * (10 + right), peer.getSize());
            assertEquals(4, peer.getDispUnit());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(1000 * rank + i, in.get(i), "get from the right, int " + i);
                assertEquals(1000 * rank + i, peer.getBuffer().getInt(4 * (5 + i)), "load from the right, int " + i);
            }
            win.free();
            assertTrue(win.isNull());
        }
    }

    @Test
    void windowOverTheCallersHeapBufferIsWrittenInPlace()
    {
        // 64 KiB and more: MPI.newIntBuffer gives shared-heap memory that the others map.
        final IntBuffer memory = MPI.newIntBuffer(16 * 1024);
        final Win win = new Win(memory, 16 * 1024, 1, MPI.INFO_NULL, world);
        assertEquals(MPI.WIN_FLAVOR_CREATE, win.getAttr(MPI.WIN_CREATE_FLAVOR));
        win.fence(0);
        final IntBuffer stamp = MPI.newIntBuffer(100);
        for (int i = 0; i < 100; i++)
        {
            stamp.put(i, rank * 100_000 + i);
        }
        // Strided target: 100 ints, every 3rd, starting at 16 * 1024 - 300 of the right neighbour.
        final Datatype every3 = Datatype.createVector(100, 1, 3, MPI.INT);
        every3.commit();
        win.put(stamp, 100, MPI.INT, right, 16 * 1024 - 300, 1, every3);
        win.fence(0);
        for (int i = 0; i < 100; i++)
        {
            assertEquals(left * 100_000 + i, memory.get(16 * 1024 - 300 + 3 * i),
                "int " + i + " of the caller's buffer");
        }
        every3.free();
        win.fence(MPI.MODE_NOSUCCEED);
        win.free();
    }

    @Test
    void atomicsFromEveryMemberGiveExactTotals()
    {
        final int rounds = 2000;
        final Win win = new Win(8, 1, MPI.INFO_NULL, world, MPI.newLongBuffer(1), Win.FLAVOR_PRIVATE);
        final LongBuffer one = MPI.newLongBuffer(1).put(0, 1);
        final LongBuffer fetched = MPI.newLongBuffer(1);
        final DoubleBuffer quarter = MPI.newDoubleBuffer(1).put(0, 0.25);
        final IntBuffer pair = MPI.newIntBuffer(2);
        win.lockAll(0);
        for (int i = 0; i < rounds; i++)
        {
            win.fetchAndOp(one, fetched, MPI.LONG, 0, 0, MPI.SUM);
            assertTrue(fetched.get(0) >= 0 && fetched.get(0) < (long)size * rounds);
            win.accumulate(quarter, 1, MPI.DOUBLE, 0, 1, 1, MPI.DOUBLE, MPI.SUM);
            // MAXLOC on (value, index) pairs: 8 bytes, one compare-and-set.
            pair.put(0, (i * 7 + rank * 13) % 1000).put(1, rank);
            win.accumulate(pair, 1, MPI.INT2, 0, 2, 1, MPI.INT2, MPI.MAXLOC);
        }
        win.flushAll();
        win.unlockAll();
        world.barrier();
        win.lock(MPI.LOCK_SHARED, 0, 0);
        final LongBuffer total = MPI.newLongBuffer(1);
        win.get(total, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
        final DoubleBuffer sum = MPI.newDoubleBuffer(1);
        win.get(sum, 1, MPI.DOUBLE, 0, 1, 1, MPI.DOUBLE);
        final IntBuffer best = MPI.newIntBuffer(2);
        win.get(best, 1, MPI.INT2, 0, 2, 1, MPI.INT2);
        win.unlock(0);
        assertEquals((long)size * rounds, total.get(0), "fetch-and-add total");
        assertEquals(size * rounds * 0.25, sum.get(0), "double sum");
        // The largest value any member offered, with the smallest rank that offered it.
        int max = -1;
        int at = -1;
        for (int r = 0; r < size; r++)
        {
            for (int i = 0; i < rounds; i++)
            {
                final int v = (i * 7 + r * 13) % 1000;
                if (v > max)
                {
                    max = v;
                    at = r;
                }
            }
        }
        assertEquals(max, best.get(0), "MAXLOC value");
        assertEquals(at, best.get(1), "MAXLOC index");
        // Compare-and-swap race on a fresh word: exactly one member sees 0.
        world.barrier();
        final LongBuffer mine = MPI.newLongBuffer(1).put(0, rank + 1);
        final LongBuffer zero = MPI.newLongBuffer(1);
        final LongBuffer before = MPI.newLongBuffer(1);
        win.lock(MPI.LOCK_SHARED, 0, 0);
        win.compareAndSwap(mine, zero, before, MPI.LONG, 0, 4);
        win.unlock(0);
        final int[] winners = {before.get(0) == 0 ? 1 : 0};
        world.allReduce(winners, 1, MPI.INT, MPI.SUM);
        assertEquals(1, winners[0], "members that won the swap");
        win.free();
    }

    @Test
    void exclusiveLockCounter()
    {
        // 10^5 read-modify-writes in all, each a get, an add and a put under the exclusive lock.
        final int rounds = 100_000 / size;
        final Win win = new Win(1, 1, MPI.INFO_NULL, world, MPI.newLongBuffer(1), Win.FLAVOR_PRIVATE);
        final LongBuffer v = MPI.newLongBuffer(1);
        for (int i = 0; i < rounds; i++)
        {
            win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            win.get(v, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
            v.put(0, v.get(0) + 1);
            win.put(v, 1, MPI.LONG, 0, 0, 1, MPI.LONG);
            win.unlock(0);
        }
        world.barrier();
        if (rank == 0)
        {
            assertEquals((long)rounds * size, ((ByteBuffer)win.getAttr(MPI.WIN_BASE)).getLong(0));
        }
        world.barrier();
        win.free();
    }

    @Test
    void postStartCompleteWaitAndRequestOperations()
    {
        final Win win = new Win(4, 1, MPI.INFO_NULL, world, MPI.newLongBuffer(1), Win.FLAVOR_SHARED);
        final Group all = win.getGroup();
        final Group toLeft = all.incl(new int[] {left});
        final Group toRight = all.incl(new int[] {right});
        final LongBuffer value = MPI.newLongBuffer(1);
        for (int epoch = 1; epoch <= 10; epoch++)
        {
            win.post(toLeft, 0);
            win.start(toRight, 0);
            value.put(0, 100L * epoch + rank);
            win.put(value, 1, MPI.LONG, right, epoch % 4, 1, MPI.LONG);
            win.complete();
            if (epoch % 2 == 0)
            {
                while (!win.test())
                {
                    Thread.onSpinWait();
                }
            }
            else
            {
                win.waitFor();
            }
            assertEquals(100L * epoch + left, ((ByteBuffer)win.getAttr(MPI.WIN_BASE)).getLong(8 * (epoch % 4)));
        }
        world.barrier();
        // Request-based operations inside a passive-target epoch.
        win.lock(MPI.LOCK_SHARED, right, 0);
        final LongBuffer got = MPI.newLongBuffer(1);
        final Request r = win.rGet(got, 1, MPI.LONG, right, 10 % 4, 1, MPI.LONG);
        r.waitFor();
        win.unlock(right);
        assertEquals(100L * 10 + rank, got.get(0));
        toLeft.free();
        toRight.free();
        world.barrier();
        win.free();
    }

    @Test
    void windowOnCommSelfAndOnASplit()
    {
        final Win self = new Win(2, 1, MPI.INFO_NULL, MPI.COMM_SELF, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
        self.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
        final IntBuffer v = MPI.newIntBuffer(2).put(0, 7).put(1, 8);
        self.put(v, 2, MPI.INT, 0, 0, 2, MPI.INT);
        self.unlock(0);
        assertEquals(8, ((ByteBuffer)self.getAttr(MPI.WIN_BASE)).getInt(4));
        if (size > 1)
        {
            // A process outside the window in a start group.
            self.setErrhandler(MPI.ERRORS_RETURN);
            final Group others = world.getGroup().incl(new int[] {right});
            expectError(MPI.ERR_GROUP, () -> self.start(others, 0));
            others.free();
        }
        self.free();
        final Intracomm half = world.split(rank % 2, rank);
        final Win w = new Win(1, 1, MPI.INFO_NULL, half, MPI.newIntBuffer(1), Win.FLAVOR_SHARED);
        w.fence(0);
        final IntBuffer mine = MPI.newIntBuffer(1).put(0, rank);
        w.accumulate(mine, 1, MPI.INT, 0, 0, 1, MPI.INT, MPI.SUM);
        w.fence(0);
        if (half.getRank() == 0)
        {
            int expected = 0;
            for (int r = rank % 2; r < size; r += 2)
            {
                expected += r;
            }
            assertEquals(expected, ((ByteBuffer)w.getAttr(MPI.WIN_BASE)).getInt(0));
        }
        w.fence(MPI.MODE_NOSUCCEED);
        w.free();
        half.free();
    }

    @Test
    void namesInfoAndAttributes()
    {
        final Info info = new Info();
        info.set("accumulate_ordering", "none");
        final Win win = new Win(8, 1, info, world, MPI.newByteBuffer(1), Win.FLAVOR_PRIVATE);
        assertEquals("", win.getName());
        win.setName("cells");
        assertEquals("cells", win.getName());
        assertEquals("none", win.getInfo().get("accumulate_ordering"));
        final int key = Win.createKeyval();
        win.setAttr(key, "payload");
        assertEquals("payload", win.getAttr(key));
        win.deleteAttr(key);
        assertEquals(null, win.getAttr(key));
        Win.freeKeyval(key);
        assertEquals(MPI.ERRORS_ARE_FATAL, win.getErrhandler());
        // A user handler runs on the window's errors (with the window's communicator), then the error is thrown.
        final int[] calls = {0, 0};
        final mpi.Errhandler mine = Comm.createErrhandler((comm, error) ->
        {
            calls[0]++;
            calls[1] = error.getErrorClass();
        });
        win.setErrhandler(mine);
        assertEquals(mine, win.getErrhandler());
        expectError(MPI.ERR_RMA_SYNC, () -> win.unlock(0));
        assertEquals(1, calls[0]);
        assertEquals(MPI.ERR_RMA_SYNC, calls[1]);
        // callErrhandler runs the handler, as on a communicator.
        win.callErrhandler(MPI.ERR_OTHER);
        assertEquals(2, calls[0]);
        assertEquals(MPI.ERR_OTHER, calls[1]);
        // + A window handler receives the window itself.
        final Win[] seen = {null};
        final mpi.Errhandler forWindows = Win.createErrhandler((w, error) ->
        {
            seen[0] = w;
            calls[1] = error.getErrorClass();
        });
        win.setErrhandler(forWindows);
        expectError(MPI.ERR_RMA_RANGE, () ->
        {
            win.lock(MPI.LOCK_SHARED, 0, 0);
            try
            {
                win.put(MPI.newLongBuffer(2), 2, MPI.LONG, 0, 1, 2, MPI.LONG);
            }
            finally
            {
                win.unlock(0);
            }
        });
        assertTrue(seen[0] == win, "the handler got the window");
        assertEquals(MPI.ERR_RMA_RANGE, calls[1]);
        win.callErrhandler(MPI.ERR_WIN);
        assertEquals(MPI.ERR_WIN, calls[1]);
        world.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_ARG, () -> world.setErrhandler(forWindows));
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        win.free();
        forWindows.free();
        mine.free();
        info.free();
    }

    @Test
    void memoryTheOthersCannotMapIsServedByItsOwner()
    {
        // A Java array, an ordinary direct buffer and a small MPI.newIntBuffer (below the heap's 64 KiB).
        final int[] array = new int[32];
        final IntBuffer direct = ByteBuffer.allocateDirect(128).order(ByteOrder.nativeOrder()).asIntBuffer();
        final IntBuffer small = MPI.newIntBuffer(32);
        for (final Object memory : new Object[] {array, direct, small})
        {
            final Win win = memory instanceof int[] ? new Win(memory, 32, 1, MPI.INFO_NULL, world) :
                new Win((java.nio.Buffer)memory, 32, 1, MPI.INFO_NULL, world);
            assertTrue(win.getAttr(MPI.WIN_BASE) == memory, "WIN_BASE is the caller's memory");
            win.fence(0);
            final IntBuffer stamp = MPI.newIntBuffer(4);
            for (int i = 0; i < 4; i++)
            {
                stamp.put(i, 1000 * rank + i);
            }
            win.put(stamp, 4, MPI.INT, right, 2, 4, MPI.INT);
            win.fence(0);
            for (int i = 0; i < 4; i++)
            {
                final int v = memory instanceof int[] ? ((int[])memory)[2 + i] : ((IntBuffer)memory).get(2 + i);
                assertEquals(1000 * left + i, v, "int " + (2 + i) + " put by the left neighbour");
            }
            final IntBuffer back = MPI.newIntBuffer(4);
            win.get(back, 4, MPI.INT, right, 2, 4, MPI.INT);
            win.fence(0);
            assertEquals(1000 * rank + 3, back.get(3), "get from the right neighbour's served memory");
            // Passive target: sums from everyone into int 0 of member 0, and a fetch-and-op.
            final IntBuffer one = MPI.newIntBuffer(1).put(0, 1);
            final IntBuffer before = MPI.newIntBuffer(1);
            for (int i = 0; i < 20; i++)
            {
                win.lock(MPI.LOCK_SHARED, 0, 0);
                win.accumulate(one, 1, MPI.INT, 0, 0, 1, MPI.INT, MPI.SUM);
                win.fetchAndOp(one, before, MPI.INT, 0, 1, MPI.SUM);
                win.unlock(0);
            }
            win.fence(0);
            if (rank == 0)
            {
                final int sum = memory instanceof int[] ? ((int[])memory)[0] : ((IntBuffer)memory).get(0);
                final int fetched = memory instanceof int[] ? ((int[])memory)[1] : ((IntBuffer)memory).get(1);
                assertEquals(20 * size, sum, "accumulated sum");
                assertEquals(20 * size, fetched, "fetch-and-op sum");
            }
            win.fence(MPI.MODE_NOSUCCEED);
            win.free();
        }
    }

    @Test
    void dynamicWindowReachesAttachedBuffers()
    {
        final Win win = new Win(MPI.INFO_NULL, world);
        assertEquals(MPI.WIN_FLAVOR_DYNAMIC, win.getAttr(MPI.WIN_CREATE_FLAVOR));
        // A heap buffer (mapped) on even ranks, a small one (served) on odd ranks.
        final LongBuffer mine = rank % 2 == 0 ? MPI.newLongBuffer(16 * 1024) : MPI.newLongBuffer(16);
        win.attach(mine, 16);
        final int[] disps = new int[size];
        disps[rank] = win.getDisplacement(mine);
        world.allGather(disps, 1, MPI.INT);
        win.lockAll(0);
        final LongBuffer value = MPI.newLongBuffer(1).put(0, 100 + rank);
        win.put(value, 1, MPI.LONG, right, disps[right] + 8 * 3, 1, MPI.LONG);
        win.flush(right);
        win.unlockAll();
        world.barrier();
        assertEquals(100 + left, mine.get(3), "put by the left neighbour into the attached buffer");
        world.barrier();
        win.detach(mine);
        // Every rank has detached before anyone puts again.
        world.barrier();
        win.setErrhandler(MPI.ERRORS_RETURN);
        win.lockAll(0);
        expectError(MPI.ERR_RMA_RANGE, () -> win.put(value, 1, MPI.LONG, right, disps[right], 1, MPI.LONG));
        win.unlockAll();
        expectError(MPI.ERR_RMA_ATTACH, () -> win.detach(mine));
        win.free();
    }

    @Test
    void loadsAndStoresThroughSharedQueryAfterSyncAndBarrier()
    {
        final Win win = new Win(16, 1, MPI.INFO_NULL, world, MPI.newLongBuffer(1), Win.FLAVOR_SHARED);
        win.lockAll(MPI.MODE_NOCHECK);
        for (int round = 1; round <= 50; round++)
        {
            // Plain stores into this rank's part, sync, barrier, then plain loads of the right neighbour's.
            final ByteBuffer mine = win.sharedQuery(rank).getBuffer();
            for (int i = 0; i < 16; i++)
            {
                mine.putLong(8 * i, 1000L * round + 16 * rank + i);
            }
            win.sync();
            world.barrier();
            win.sync();
            final ByteBuffer theirs = win.sharedQuery(right).getBuffer();
            for (int i = 0; i < 16; i++)
            {
                assertEquals(1000L * round + 16 * right + i, theirs.getLong(8 * i), "round " + round + ", long " + i);
            }
            world.barrier();
        }
        win.unlockAll();
        win.free();
    }

    @Test
    void misuseRaisesItsErrorClass()
    {
        final Win win = new Win(16, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
        win.setErrhandler(MPI.ERRORS_RETURN);
        final IntBuffer v = MPI.newIntBuffer(4);
        expectError(MPI.ERR_RMA_SYNC, () -> win.put(v, 1, MPI.INT, 0, 0, 1, MPI.INT));
        expectError(MPI.ERR_RMA_SYNC, () -> win.unlock(0));
        expectError(MPI.ERR_RMA_SYNC, () -> win.complete());
        expectError(MPI.ERR_RMA_SYNC, () -> win.rPut(v, 1, MPI.INT, 0, 0, 1, MPI.INT));
        expectError(MPI.ERR_LOCKTYPE, () -> win.lock(99, 0, 0));
        expectError(MPI.ERR_ASSERT, () -> win.fence(MPI.MODE_NOCHECK));
        expectError(MPI.ERR_RANK, () -> win.lock(MPI.LOCK_SHARED, size, 0));
        win.lock(MPI.LOCK_SHARED, 0, 0);
        expectError(MPI.ERR_RMA_RANGE, () -> win.put(v, 4, MPI.INT, 0, 13, 4, MPI.INT));
        expectError(MPI.ERR_DISP, () -> win.put(v, 1, MPI.INT, 0, -1, 1, MPI.INT));
        expectError(MPI.ERR_TYPE, () -> win.put(v, 2, MPI.INT, 0, 0, 1, MPI.INT));
        expectError(MPI.ERR_TYPE, () -> win.compareAndSwap(MPI.newDoubleBuffer(1), MPI.newDoubleBuffer(1),
            MPI.newDoubleBuffer(1), MPI.DOUBLE, 0, 0));
        final Op user = new Op(new mpi.UserFunction()
        {
        }, true);
        expectError(MPI.ERR_OP, () -> win.accumulate(v, 1, MPI.INT, 0, 0, 1, MPI.INT, user));
        expectError(MPI.ERR_OP, () -> win.accumulate(MPI.newDoubleBuffer(1), 1, MPI.DOUBLE, 0, 0, 1, MPI.DOUBLE,
            MPI.BAND));
        expectError(MPI.ERR_RMA_SYNC, () -> win.free());
        win.unlock(0);
        win.lockAll(0);
        expectError(MPI.ERR_RMA_CONFLICT, () -> win.lock(MPI.LOCK_EXCLUSIVE, 0, 0));
        win.unlockAll();
        user.free();
        win.free();
        expectError(MPI.ERR_WIN, () -> win.fence(0));
        // Memory the others cannot map is served, not shared: no buffer reaches it.
        final IntBuffer plain = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder()).asIntBuffer();
        final Win served = new Win(plain, 16, 1, MPI.INFO_NULL, world);
        served.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_RMA_SHARED, () -> served.sharedQuery(right));
        served.free();
        world.setErrhandler(MPI.ERRORS_RETURN);
        try
        {
            expectError(MPI.ERR_BUFFER, () -> new Win("not memory", 16, 1, MPI.INFO_NULL, world));
            expectError(MPI.ERR_BASE, () -> new Win(MPI.newIntBuffer(16).asReadOnlyBuffer(), 16, 1, MPI.INFO_NULL,
                world));
            expectError(MPI.ERR_ARG, () -> new Win(4, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), 7));
            expectError(MPI.ERR_SIZE, () -> new Win(-1, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1),
                Win.FLAVOR_PRIVATE));
        }
        finally
        {
            world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        }
        assertNotNull(world.getErrhandler());
    }
}
