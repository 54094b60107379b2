package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.mpi.Expect.expectError;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.CartComm;
import mpi.Comm;
import mpi.Datatype;
import mpi.DistGraphNeighbors;
import mpi.File;
import mpi.GraphComm;
import mpi.Group;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.ShortInt;
import mpi.Struct;
import mpi.Win;

/**
 * Behaviours of Open MPI's Java bindings that programs written for them rely on, one test per
 * behaviour, between real processes: where the behaviour crosses ranks (windows, messages,
 * collective constructors) the other rank's side is checked too. Where Open MPI is more
 * permissive than the standard, the tests also check that shmpi's permission stops where
 * memory outside the application's own buffers would be touched.
 * <p>One file, longer than the house's ~700 lines, because the methods of a class share one job
 * per rank count ({@link MpiTest}): split in two, the suite would start a second set of rank
 * JVMs at 1 and 2 ranks for the same checks.
 */
@MpiTest(np = {1, 2})
class OpenMpiBehaviourTest
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
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        Expect.nothingLeftUnreceived();
    }

    // 1 ------------------------------------------------------------------------------------------

    /** The pair types count bytes, the complex types their parts; derived types on them too. */
    @Test
    void pairTypesReportExtentAndSizeInBytes()
    {
        final Datatype[] pairs = {MPI.INT2, MPI.SHORT_INT, MPI.LONG_INT, MPI.FLOAT_INT, MPI.DOUBLE_INT};
        final int[] extents = {8, 8, 16, 8, 16};
        final int[] sizes = {8, 6, 12, 8, 12};
        // {value, index} as C lays it out: the data ends at the index's end.
        final int[] trueExtents = {8, 8, 12, 8, 12};
        for (int i = 0; i < pairs.length; i++)
        {
            final String name = pairs[i].getName();
            assertEquals(extents[i], pairs[i].getExtent(), name);
            assertEquals(0, pairs[i].getLb(), name);
            assertEquals(sizes[i], pairs[i].getSize(), name);
            assertEquals(trueExtents[i], pairs[i].getTrueExtent(), name);
            assertEquals(0, pairs[i].getTrueLb(), name);
        }
        for (final Datatype complex : new Datatype[] {MPI.FLOAT_COMPLEX, MPI.DOUBLE_COMPLEX})
        {
            assertEquals(2, complex.getExtent(), complex.getName());
            assertEquals(2, complex.getSize(), complex.getName());
            assertEquals(2, complex.getTrueExtent(), complex.getName());
        }
        // A vector of SHORT_INT: 3 blocks of 1, stride 2 pairs: spans 5 pairs of 8 bytes.
        final Datatype v = Datatype.createVector(3, 1, 2, MPI.SHORT_INT);
        v.commit();
        assertEquals(40, v.getExtent());
        assertEquals(18, v.getSize());
        final Datatype three = Datatype.createContiguous(3, MPI.LONG_INT);
        assertEquals(48, three.getExtent());
        assertEquals(44, three.getTrueExtent(), "the last pair's padding is not data");
        assertEquals(36, three.getSize());
        final Datatype c = Datatype.createContiguous(4, MPI.DOUBLE_COMPLEX);
        c.commit();
        assertEquals(8, c.getExtent());
        assertEquals(8, c.getSize());
        v.free();
        c.free();
        three.free();

        // MINLOC as programs write it: a buffer of getExtent() * n bytes, filled through Struct.Data.
        final int n = 5;
        final ByteBuffer in = MPI.newByteBuffer(MPI.SHORT_INT.getExtent() * n);
        final ByteBuffer out = MPI.newByteBuffer(MPI.SHORT_INT.getExtent() * n);
        for (int i = 0; i < n; i++)
        {
            final ShortInt.Data d = MPI.shortInt.getData(in, i);
            d.putValue((short)(10 * i - rank));
            d.putIndex(rank);
        }
        world.allReduce(in, out, n, MPI.SHORT_INT, MPI.MINLOC);
        for (int i = 0; i < n; i++)
        {
            final ShortInt.Data d = MPI.shortInt.getData(out, i);
            assertEquals(10 * i - (size - 1), d.getValue(), "value " + i);
            assertEquals(size - 1, d.getIndex(), "index " + i);
        }
    }

    // 2 ------------------------------------------------------------------------------------------

    /**
     * dupWithInfo(MPI.INFO_NULL) gives a duplicate without hints on every kind of communicator;
     * a freed info is MPI.ERR_INFO, raised before anything collective starts (rank 0 alone calls
     * it: had it begun the dup, it would wait for the others forever).
     */
    @Test
    void dupWithInfoNullMeansNoHints()
    {
        final Info hints = new Info();
        hints.set("shmpi_test_hint", "on");
        final List<Comm> comms = new ArrayList<>();
        comms.add(world);
        comms.add(MPI.COMM_SELF);
        final CartComm cart = world.createCart(new int[] {size}, new boolean[] {true}, false);
        comms.add(cart);
        final GraphComm graph = world.createGraph(ring(size), ringEdges(size), false);
        comms.add(graph);
        final GraphComm dist = world.createDistGraph(new int[] {rank}, new int[] {1}, new int[] {right},
            MPI.INFO_NULL, false);
        comms.add(dist);
        Intracomm half = null;
        Intercomm inter = null;
        if (size >= 2)
        {
            half = world.split(rank % 2, rank);
            inter = world.createIntercomm(half, 0, rank % 2 == 0 ? 1 : 0, 27);
            comms.add(inter);
        }
        final Info freed = new Info();
        freed.free();
        for (final Comm c : comms)
        {
            c.setInfo(hints);
            final Comm d = c.dupWithInfo(MPI.INFO_NULL);
            assertEquals(c.getClass(), d.getClass(), "dupWithInfo keeps the kind of communicator");
            assertEquals(0, d.getInfo().size(), "no hints on the dup of " + c.getName());
            assertEquals("on", c.getInfo().get("shmpi_test_hint"), "the original keeps its hints");
            final Comm h = c.dupWithInfo(hints);
            assertEquals("on", h.getInfo().get("shmpi_test_hint"));
            assertEquals(MPI.CONGRUENT, Comm.compare(c, d));
            c.setErrhandler(MPI.ERRORS_RETURN);
            try
            {
                expectError(MPI.ERR_INFO, () -> c.setInfo(MPI.INFO_NULL));
                if (rank == 0)
                {
                    expectError(MPI.ERR_INFO, () -> c.dupWithInfo(freed));
                    expectError(MPI.ERR_INFO, () -> c.dupWithInfo(null));
                }
            }
            finally
            {
                c.setErrhandler(c == world || c == MPI.COMM_SELF ? MPI.ERRORS_ARE_FATAL : MPI.ERRORS_RETURN);
            }
            c.setInfo(new Info());
            d.free();
            h.free();
            world.barrier();
        }
        cart.free();
        graph.free();
        dist.free();
        if (inter != null)
        {
            inter.free();
            half.free();
        }
    }

    private static int[] ring(final int n)
    {
        final int[] index = new int[n];
        for (int i = 0; i < n; i++)
        {
            index[i] = i + 1;
        }
        return index;
    }

    private static int[] ringEdges(final int n)
    {
        final int[] edges = new int[n];
        for (int i = 0; i < n; i++)
        {
            edges[i] = (i + 1) % n;
        }
        return edges;
    }

    // 3 ------------------------------------------------------------------------------------------

    /**
     * A type with a negative lower bound over MPI.slice(buf, k) reaches back into buf, as in Open
     * MPI, for direct, heap and view buffers and slices of slices, sent and received; reaching
     * before (or past) the whole allocation is MPI.ERR_BUFFER, before any message moves.
     */
    @Test
    void negativeLowerBoundOverASliceReachesIntoTheBuffer()
    {
        // Item: the int before the buffer's first element, then the first.
        final Datatype back = Datatype.createIndexed(new int[] {1, 1}, new int[] {-1, 0}, MPI.INT);
        back.commit();
        assertEquals(-1, back.getLb());
        final List<Supplier<IntBuffer>> kinds = List.of(
            () -> MPI.newIntBuffer(16),
            () -> IntBuffer.allocate(16),
            () -> ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder()).asIntBuffer(),
            () -> IntBuffer.wrap(new int[16]));
        for (int k = 0; k < kinds.size(); k++)
        {
            final IntBuffer data = kinds.get(k).get();
            final IntBuffer into = kinds.get(k).get();
            for (int i = 0; i < 16; i++)
            {
                data.put(i, 100 * rank + i);
                into.put(i, -1);
            }
            // From ints 3 and 4 of the sender into ints 5 and 6 of the receiver; then a slice of a
            // slice: ints 7, 8 into 9, 10.
            final Request s = world.iSend(MPI.slice(data, 4), 1, back, right, 31);
            world.recv(MPI.slice(into, 6), 1, back, left, 31);
            s.waitFor();
            final Request s2 = world.iSend(MPI.slice(MPI.slice(data, 4), 4), 1, back, right, 32);
            world.recv(MPI.slice(MPI.slice(into, 5), 5), 1, back, left, 32);
            s2.waitFor();
            final int[] got = new int[16];
            into.get(0, got);
            final int l = 100 * left;
            assertArrayEquals(new int[] {-1, -1, -1, -1, -1, l + 3, l + 4, -1, -1, l + 7, l + 8, -1, -1, -1, -1, -1},
                got, "buffer kind " + k);
            world.setErrhandler(MPI.ERRORS_RETURN);
            expectError(MPI.ERR_BUFFER, () -> world.send(MPI.slice(data, 0), 1, back, right, 33));
            expectError(MPI.ERR_BUFFER, () -> world.recv(MPI.slice(into, 0), 1, back, left, 33));
            // Past the end: two items from the last int reach one int past the allocation.
            expectError(MPI.ERR_BUFFER, () -> world.send(MPI.slice(data, 15), 2, back, right, 33));
            world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        }
        // A window's memory is its own allocation: the window's control words before it and the
        // next member's region after it are out of reach.
        for (final int flavor : new int[] {Win.FLAVOR_PRIVATE, Win.FLAVOR_SHARED})
        {
            final Win w = new Win(16, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), flavor);
            final IntBuffer mine = ((ByteBuffer)w.getAttr(MPI.WIN_BASE)).order(ByteOrder.nativeOrder()).asIntBuffer();
            world.setErrhandler(MPI.ERRORS_RETURN);
            expectError(MPI.ERR_BUFFER, () -> world.send(MPI.slice(mine, 0), 1, back, right, 34));
            expectError(MPI.ERR_BUFFER, () -> world.send(MPI.slice(mine, 15), 2, back, right, 34));
            if (flavor == Win.FLAVOR_SHARED)
            {
                final IntBuffer peer = w.sharedQuery(right).getBuffer().order(ByteOrder.nativeOrder()).asIntBuffer();
                expectError(MPI.ERR_BUFFER, () -> world.recv(MPI.slice(peer, 0), 1, back, left, 34));
            }
            world.setErrhandler(MPI.ERRORS_ARE_FATAL);
            world.barrier();
            w.free();
        }
        back.free();
    }

    // 4 ------------------------------------------------------------------------------------------

    /**
     * File.callErrhandler runs the file's handler and returns under ERRORS_RETURN and a user
     * handler (the job abort under ERRORS_ARE_FATAL is launcher's PointToPointApiIT).
     */
    @Test
    void fileCallErrhandlerCallsTheHandlerAndReturns()
    {
        final String name = System.getProperty("java.io.tmpdir") + "/shmpi-callerrhandler-" +
            ProcessHandle.current().pid() + ".dat";
        final File f = new File(MPI.COMM_SELF, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        assertEquals(MPI.ERRORS_RETURN, f.getErrhandler());
        f.callErrhandler(MPI.ERR_IO);
        final int[] seen = {0, 0};
        final mpi.Errhandler mine = Comm.createErrhandler((comm, error) ->
        {
            seen[0]++;
            seen[1] = error.getErrorClass();
        });
        f.setErrhandler(mine);
        f.callErrhandler(MPI.ERR_ACCESS);
        assertEquals(1, seen[0]);
        assertEquals(MPI.ERR_ACCESS, seen[1]);
        f.close();
        MPI.FILE_NULL.callErrhandler(MPI.ERR_FILE);
        mine.free();
        assertTrue(!new java.io.File(name).exists(), "the file is deleted on close");
    }

    // 5 ------------------------------------------------------------------------------------------

    /** Range triplets: the ranks produced are checked, not last. */
    @Test
    void rangeTripletsCheckTheRanksTheyName()
    {
        final Group all = world.getGroup();
        // {0, n, n+1}: last is outside the group; only 0 is named (as {5, 8, 2} names 5 and 7 in
        // a group of 8).
        final Group first = all.rangeIncl(new int[][] {{0, size, size + 1}});
        assertEquals(1, first.getSize());
        assertEquals(rank == 0 ? 0 : MPI.UNDEFINED, first.getRank());
        // {n-1, -1, -(n+1)}: last is -1; only n-1 is named.
        final Group last = all.rangeIncl(new int[][] {{size - 1, -1, -(size + 1)}});
        assertArrayEquals(new int[] {size - 1}, Group.translateRanks(last, new int[] {0}, all));
        final Group rest = all.rangeExcl(new int[][] {{0, size, size + 1}});
        assertEquals(size - 1, rest.getSize());
        // {0, n, 1} names n: outside the group.
        world.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_RANK, () -> all.rangeIncl(new int[][] {{0, size, 1}}));
        expectError(MPI.ERR_RANK, () -> all.rangeExcl(new int[][] {{size - 1, size + 5, 1}}));
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        for (final Group g : new Group[] {all, first, last, rest})
        {
            g.free();
        }
    }

    // 6 ------------------------------------------------------------------------------------------

    /** MPI.INFO_ENV has Open MPI's keys. */
    @Test
    void infoEnvHasOpenMpisKeys()
    {
        assertEquals("1", MPI.INFO_ENV.get("ompi_num_apps"));
        assertEquals("0", MPI.INFO_ENV.get("ompi_first_rank"));
        assertEquals(Integer.toString(size), MPI.INFO_ENV.get("ompi_np"));
    }

    // 7 ------------------------------------------------------------------------------------------

    /** A window with this rank's memory as an IntBuffer, and how to address int i of a member. */
    private final class Exposed
    {
        final String what;
        final Win win;
        final IntBuffer mine;
        /** Displacement of int 0 on each member, and displacement units per int. */
        final int[] base;
        final int perInt;
        final List<Object> keep = new ArrayList<>();

        Exposed(final String what, final Win win, final IntBuffer mine, final int[] base, final int perInt)
        {
            this.what = what;
            this.win = win;
            this.mine = mine;
            this.base = base;
            this.perInt = perInt;
        }

        int disp(final int target, final int i)
        {
            return base[target] + perInt * i;
        }
    }

    /** Every kind of window memory, 16 ints (at least) per member; a window on each. */
    private List<Exposed> everyWindowKind(final int ints)
    {
        final List<Exposed> out = new ArrayList<>();
        final int[] zero = new int[size];
        for (final int flavor : new int[] {Win.FLAVOR_PRIVATE, Win.FLAVOR_SHARED})
        {
            final Win w = new Win(ints, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), flavor);
            final IntBuffer mine = ((ByteBuffer)w.getAttr(MPI.WIN_BASE)).duplicate().order(ByteOrder.nativeOrder())
                .asIntBuffer();
            out.add(new Exposed(flavor == Win.FLAVOR_SHARED ? "allocated shared" : "allocated", w, mine, zero, 1));
        }
        // 64 KiB of MPI.newIntBuffer: in the shared heap, mapped by the others.
        final IntBuffer heap = MPI.newIntBuffer(Math.max(ints, 16384));
        out.add(new Exposed("created over shared heap", new Win(heap, ints, 1, MPI.INFO_NULL, world), heap, zero, 1));
        final IntBuffer small = MPI.newIntBuffer(ints);
        out.add(new Exposed("created over a small direct buffer (served)", new Win(small, ints, 1, MPI.INFO_NULL,
            world), small, zero, 1));
        final int[] array = new int[ints];
        out.add(new Exposed("created over an array (served)", new Win(array, ints, 1, MPI.INFO_NULL, world),
            IntBuffer.wrap(array), zero, 1));
        for (final int capacity : new int[] {Math.max(ints, 16384), ints})
        {
            final Win dyn = new Win(MPI.INFO_NULL, world);
            final IntBuffer attached = MPI.newIntBuffer(capacity);
            dyn.attach(attached, capacity);
            final int[] bases = new int[size];
            world.allGather(new int[] {dyn.getDisplacement(attached)}, 1, MPI.INT, bases, 1, MPI.INT);
            final Exposed e = new Exposed(capacity > ints ? "dynamic, mapped" : "dynamic, served", dyn, attached,
                bases, 4);
            e.keep.add(attached);
            out.add(e);
        }
        return out;
    }

    private static void free(final Exposed e)
    {
        if (e.perInt == 4)
        {
            e.win.detach((IntBuffer)e.keep.get(0));
        }
        e.win.free();
    }

    /**
     * Every fetching operation (fetchAndOp, getAccumulate, rGetAccumulate, with NO_OP too, and
     * compareAndSwap) lands its value in a heap and in a direct result buffer, on every kind of
     * window memory, the target the next rank.
     */
    @Test
    void fetchingOperationsFillDirectAndHeapResults()
    {
        for (final Exposed e : everyWindowKind(16))
        {
            for (final boolean direct : new boolean[] {false, true})
            {
                final String what = e.what + (direct ? ", direct result" : ", heap result");
                for (int i = 0; i < 16; i++)
                {
                    e.mine.put(i, 1000 * rank + i);
                }
                world.barrier();
                final Win w = e.win;
                final int t = 1000 * right;
                w.lock(MPI.LOCK_SHARED, right, 0);
                IntBuffer r = result(direct, 2);
                w.fetchAndOp(ints(direct, 5), r, MPI.INT, right, e.disp(right, 0), MPI.SUM);
                assertEquals(t, r.get(0), what + ": fetchAndOp SUM");
                r = result(direct, 2);
                w.fetchAndOp(ints(direct, 0), r, MPI.INT, right, e.disp(right, 0), MPI.NO_OP);
                assertEquals(t + 5, r.get(0), what + ": fetchAndOp NO_OP");
                r = result(direct, 2);
                w.getAccumulate(ints(direct, 1, 2), 2, MPI.INT, r, 2, MPI.INT, right, e.disp(right, 1), 2, MPI.INT,
                    MPI.SUM);
                assertArrayEquals(new int[] {t + 1, t + 2}, values(r, 2), what + ": getAccumulate SUM");
                r = result(direct, 2);
                w.getAccumulate(ints(direct, 0, 0), 2, MPI.INT, r, 2, MPI.INT, right, e.disp(right, 1), 2, MPI.INT,
                    MPI.NO_OP);
                assertArrayEquals(new int[] {t + 2, t + 4}, values(r, 2), what + ": getAccumulate NO_OP");
                r = result(direct, 2);
                w.rGetAccumulate(ints(direct, 10), 1, MPI.INT, r, 1, MPI.INT, right, e.disp(right, 3), 1, MPI.INT,
                    MPI.SUM).waitFor();
                assertEquals(t + 3, r.get(0), what + ": rGetAccumulate SUM");
                r = result(direct, 2);
                w.rGetAccumulate(ints(direct, 0), 1, MPI.INT, r, 1, MPI.INT, right, e.disp(right, 3), 1, MPI.INT,
                    MPI.NO_OP).waitFor();
                assertEquals(t + 13, r.get(0), what + ": rGetAccumulate NO_OP");
                r = result(direct, 2);
                w.compareAndSwap(ints(direct, -4), ints(direct, t + 4), r, MPI.INT, right, e.disp(right, 4));
                assertEquals(t + 4, r.get(0), what + ": compareAndSwap");
                r = result(direct, 2);
                w.fetchAndOp(ints(direct, 0), r, MPI.INT, right, e.disp(right, 4), MPI.NO_OP);
                assertEquals(-4, r.get(0), what + ": fetchAndOp after compareAndSwap");
                w.unlock(right);
                world.barrier();
                final int m = 1000 * rank;
                assertArrayEquals(new int[] {m + 5, m + 2, m + 4, m + 13, -4, m + 5}, values(e.mine, 6),
                    what + ": this rank's memory after the left rank's operations");
                world.barrier();
            }
            free(e);
        }
    }

    private static IntBuffer result(final boolean direct, final int n)
    {
        final IntBuffer b = direct ? MPI.newIntBuffer(n) : IntBuffer.allocate(n);
        for (int i = 0; i < n; i++)
        {
            b.put(i, -99);
        }
        return b;
    }

    private static IntBuffer ints(final boolean direct, final int... v)
    {
        final IntBuffer b = direct ? MPI.newIntBuffer(v.length) : IntBuffer.allocate(v.length);
        for (int i = 0; i < v.length; i++)
        {
            b.put(i, v[i]);
        }
        return b;
    }

    private static int[] values(final IntBuffer b, final int n)
    {
        final int[] out = new int[n];
        for (int i = 0; i < n; i++)
        {
            out[i] = b.get(i);
        }
        return out;
    }

    // 8 ------------------------------------------------------------------------------------------

    /** Info no_locks=true at creation: lock and lockAll are MPI.ERR_RMA_SYNC for the window's life. */
    @Test
    void noLocksHintRefusesLocks()
    {
        final Info info = new Info();
        info.set("no_locks", "true");
        final Win w = new Win(4, 1, info, world, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
        info.set("no_locks", "false");   // the window keeps what it was made with
        w.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_RMA_SYNC, () -> w.lock(MPI.LOCK_SHARED, right, 0));
        expectError(MPI.ERR_RMA_SYNC, () -> w.lock(MPI.LOCK_EXCLUSIVE, rank, 0));
        expectError(MPI.ERR_RMA_SYNC, () -> w.lockAll(0));
        w.setInfo(info);
        expectError(MPI.ERR_RMA_SYNC, () -> w.lockAll(0));
        // Fence still works.
        w.fence(0);
        w.put(ints(true, 7 + rank), 1, MPI.INT, right, 0, 1, MPI.INT);
        w.fence(0);
        final IntBuffer mine = ((ByteBuffer)w.getAttr(MPI.WIN_BASE)).order(ByteOrder.nativeOrder()).asIntBuffer();
        assertEquals(7 + left, mine.get(0));
        w.free();
        // Without the hint the same window locks.
        final Win plain = new Win(4, 1, MPI.INFO_NULL, world, MPI.newIntBuffer(1), Win.FLAVOR_PRIVATE);
        plain.lock(MPI.LOCK_SHARED, right, 0);
        plain.unlock(right);
        plain.free();
    }

    // 9 ------------------------------------------------------------------------------------------

    /**
     * rPut, rGet, rAccumulate and rGetAccumulate in fence and in post/start/complete/wait
     * epochs, on every kind of window memory; a fetched value is there when its request is done.
     */
    @Test
    void requestOperationsInActiveTargetEpochs()
    {
        final Group toRight = world.getGroup().incl(new int[] {right});
        final Group fromLeft = world.getGroup().incl(new int[] {left});
        for (final Exposed e : everyWindowKind(16))
        {
            for (int i = 0; i < 16; i++)
            {
                e.mine.put(i, 1000 * rank + i);
            }
            world.barrier();
            final Win w = e.win;
            final int t = 1000 * right;
            w.fence(0);
            final IntBuffer got = result(true, 1);
            final IntBuffer old = result(false, 1);
            final Request[] rs = {
                w.rPut(ints(true, 7), 1, MPI.INT, right, e.disp(right, 0), 1, MPI.INT),
                w.rGet(got, 1, MPI.INT, right, e.disp(right, 1), 1, MPI.INT),
                w.rAccumulate(ints(false, 3), 1, MPI.INT, right, e.disp(right, 2), 1, MPI.INT, MPI.SUM),
                w.rGetAccumulate(ints(true, 4), 1, MPI.INT, old, 1, MPI.INT, right, e.disp(right, 3), 1, MPI.INT,
                    MPI.SUM)};
            Request.waitAll(rs);
            assertEquals(t + 1, got.get(0), e.what + ": rGet in a fence epoch");
            assertEquals(t + 3, old.get(0), e.what + ": rGetAccumulate in a fence epoch");
            w.fence(MPI.MODE_NOSUCCEED);
            final int m = 1000 * rank;
            assertArrayEquals(new int[] {7, m + 1, m + 5, m + 7}, values(e.mine, 4), e.what + ": after the fence");
            world.barrier();
            w.post(fromLeft, 0);
            w.start(toRight, 0);
            final IntBuffer got2 = result(false, 1);
            final Request[] ps = {
                w.rPut(ints(false, 8), 1, MPI.INT, right, e.disp(right, 4), 1, MPI.INT),
                w.rGet(got2, 1, MPI.INT, right, e.disp(right, 1), 1, MPI.INT),
                w.rAccumulate(ints(true, 9), 1, MPI.INT, right, e.disp(right, 5), 1, MPI.INT, MPI.SUM),
                w.rGetAccumulate(ints(false, 0), 1, MPI.INT, old, 1, MPI.INT, right, e.disp(right, 2), 1, MPI.INT,
                    MPI.NO_OP)};
            Request.waitAll(ps);
            assertEquals(t + 1, got2.get(0), e.what + ": rGet in a start epoch");
            assertEquals(t + 5, old.get(0), e.what + ": rGetAccumulate in a start epoch");
            w.complete();
            w.waitFor();
            assertArrayEquals(new int[] {8, m + 14}, new int[] {e.mine.get(4), e.mine.get(5)},
                e.what + ": after complete and wait");
            world.barrier();
            // Outside any epoch they stay MPI.ERR_RMA_SYNC.
            w.setErrhandler(MPI.ERRORS_RETURN);
            expectError(MPI.ERR_RMA_SYNC, () -> w.rPut(ints(true, 1), 1, MPI.INT, right, e.disp(right, 0), 1,
                MPI.INT));
            expectError(MPI.ERR_RMA_SYNC, () -> w.rGet(result(true, 1), 1, MPI.INT, right, e.disp(right, 0), 1,
                MPI.INT));
            free(e);
        }
        toRight.free();
        fromLeft.free();
    }

    // 10 -----------------------------------------------------------------------------------------

    /**
     * A window declared larger than its buffer is made (WIN_SIZE the size given); accesses within
     * the buffer work, accesses past it are MPI.ERR_RMA_RANGE and write nothing.
     */
    @Test
    void windowLargerThanItsBuffer()
    {
        final List<Object> memories = List.of(MPI.newIntBuffer(8), new int[8], MPI.newIntBuffer(16384),
            MPI.newIntBuffer(0));
        for (final Object memory : memories)
        {
            final int real = memory instanceof int[] ? 8 : ((IntBuffer)memory).capacity();
            final Win w = new Win(memory, real + 8, 1, MPI.INFO_NULL, world);
            assertEquals(4 * (real + 8), w.getAttr(MPI.WIN_SIZE));
            w.setErrhandler(MPI.ERRORS_RETURN);
            w.lockAll(0);
            if (real > 0)
            {
                w.put(ints(true, 40 + rank), 1, MPI.INT, right, real - 1, 1, MPI.INT);
            }
            expectError(MPI.ERR_RMA_RANGE, () -> w.put(ints(true, 99), 1, MPI.INT, right, real, 1, MPI.INT));
            expectError(MPI.ERR_RMA_RANGE, () -> w.put(ints(true, 99, 99), 2, MPI.INT, right, Math.max(0, real - 1),
                2, MPI.INT));
            expectError(MPI.ERR_RMA_RANGE, () -> w.get(result(true, 1), 1, MPI.INT, right, real + 7, 1, MPI.INT));
            expectError(MPI.ERR_RMA_RANGE, () -> w.fetchAndOp(ints(true, 1), result(true, 1), MPI.INT, right,
                real + 2, MPI.SUM));
            w.flushAll();
            w.unlockAll();
            world.barrier();
            if (real > 0)
            {
                final int lastInt = memory instanceof int[] ? ((int[])memory)[real - 1] :
                    ((IntBuffer)memory).get(real - 1);
                assertEquals(40 + left, lastInt, "the last int of the buffer took the put");
            }
            world.barrier();
            w.free();
        }
    }

    // 11 -----------------------------------------------------------------------------------------

    /**
     * bSend and ibSend without an attached buffer send a message within the eager limit at once
     * (the caller's buffer is free on return); a larger one is MPI.ERR_BUFFER, nothing sent.
     */
    @Test
    void bufferedSendWithoutBufferWithinEagerLimit()
    {
        final int[] out = {1, 2, 3, rank};
        world.bSend(out, 4, MPI.INT, right, 41);
        out[0] = -1;   // free at once
        final IntBuffer direct = ints(true, 5, 6, rank);
        final Request r = world.ibSend(direct, 3, MPI.INT, right, 42);
        assertTrue(r.test(), "ibSend without a buffer completes at once");
        direct.put(0, -1);
        final byte[] kib = new byte[4096];
        kib[4095] = (byte)rank;
        world.bSend(kib, kib.length, MPI.BYTE, right, 43);
        final int[] in = new int[4];
        world.recv(in, 4, MPI.INT, left, 41);
        assertArrayEquals(new int[] {1, 2, 3, left}, in);
        final int[] in2 = new int[3];
        world.recv(in2, 3, MPI.INT, left, 42);
        assertArrayEquals(new int[] {5, 6, left}, in2);
        final byte[] in3 = new byte[4096];
        world.recv(in3, in3.length, MPI.BYTE, left, 43);
        assertEquals((byte)left, in3[4095]);
        world.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_BUFFER, () -> world.bSend(new byte[1 << 22], 1 << 22, MPI.BYTE, right, 44));
        expectError(MPI.ERR_BUFFER, () -> world.ibSend(new byte[1 << 22], 1 << 22, MPI.BYTE, right, 44));
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        world.barrier();
    }

    // 12 -----------------------------------------------------------------------------------------

    /** CartComm.sub reads the first ndims flags of a longer array; 0-dimensional grids too. */
    @Test
    void cartSubReadsTheFirstNdimsFlags()
    {
        final CartComm cart = world.createCart(new int[] {size}, new boolean[] {true}, false);
        final CartComm kept = cart.sub(new boolean[] {true, false, true});
        assertEquals(1, kept.getTopo().getDimCount());
        assertEquals(size, kept.getSize());
        final CartComm point = cart.sub(new boolean[] {false, true, true});
        assertEquals(0, point.getTopo().getDimCount());
        assertEquals(1, point.getSize());
        cart.setErrhandler(MPI.ERRORS_RETURN);
        expectError(MPI.ERR_ARG, () -> cart.sub(new boolean[0]));
        final CartComm zero = world.createCart(new int[0], new boolean[0], false);
        if (rank == 0)
        {
            assertEquals(1, zero.getSize());
            final CartComm sub = zero.sub(new boolean[] {true, true});
            assertEquals(0, sub.getTopo().getDimCount());
            assertEquals(1, sub.getSize());
            sub.free();
            zero.free();
        }
        else
        {
            assertTrue(zero.isNull());
        }
        kept.free();
        point.free();
        cart.free();
    }

    // 13 -----------------------------------------------------------------------------------------

    /**
     * createDistGraph reads sources.length degrees and the first sum(degrees) destinations and
     * weights; what follows (even a negative degree or a rank outside) is not read.
     */
    @Test
    void distGraphReadsOnlyWhatTheDegreesSay()
    {
        final GraphComm g = world.createDistGraph(new int[] {rank}, new int[] {1, 7, -3}, new int[] {right, 99, -5},
            new int[] {10 + rank, -1, 500}, MPI.INFO_NULL, false);
        final DistGraphNeighbors n = g.getDistGraphNeighbors();
        assertEquals(1, n.getOutDegree());
        assertEquals(right, n.getDestination(0));
        assertEquals(10 + rank, n.getDestinationWeight(0));
        assertEquals(1, n.getInDegree());
        assertEquals(left, n.getSource(0));
        assertEquals(10 + left, n.getSourceWeight(0));
        g.free();
        final GraphComm u = world.createDistGraph(new int[] {rank}, new int[] {1, 1}, new int[] {right, right},
            MPI.INFO_NULL, false);
        assertEquals(1, u.getDistGraphNeighbors().getOutDegree());
        u.free();
    }

    // 14 -----------------------------------------------------------------------------------------

    /** {int id; double values[3]}: C layout, extent 32. */
    static final class Cell extends Struct
    {
        final int id = addInt();
        final int values = addDouble(3);

        @Override
        protected Data newData()
        {
            return new Data();
        }

        final class Data extends Struct.Data
        {
            void set(final int v, final double base)
            {
                putInt(id, v);
                for (int i = 0; i < 3; i++)
                {
                    putDouble(values, i, base + i);
                }
            }

            ByteBuffer idBuffer()
            {
                return getBuffer(MPI.INT, id);
            }

            ByteBuffer valuesFrom(final int index)
            {
                return getBuffer(MPI.DOUBLE, values, index);
            }
        }
    }

    /**
     * Struct.Data.getBuffer(type, field[, index]) gives the buffer at the field (the buffer itself
     * at byte 0, else a slice), getBuffer() the buffer at the item: sends from them send the
     * field's and the item's data.
     */
    @Test
    void structDataBuffersStartAtTheirFieldAndItem()
    {
        final Cell cell = new Cell();
        assertEquals(32, cell.getExtent());
        final ByteBuffer buf = MPI.newByteBuffer(4 * cell.getExtent());
        for (int i = 0; i < 4; i++)
        {
            final Cell.Data d = cell.getData(buf, i);
            d.set(100 * rank + i, 10 * rank + 0.5 * i);
        }
        final Cell.Data first = cell.getData(buf, 0);
        assertSame(buf, first.idBuffer());
        assertSame(buf, first.getBuffer());
        final Cell.Data third = cell.getData(buf, 2);
        assertEquals(100 * rank + 2, third.idBuffer().getInt(0));
        assertEquals(buf.capacity() - 64, third.idBuffer().capacity());
        assertEquals(10 * rank + 1 + 1, third.valuesFrom(1).getDouble(0));
        assertEquals(100 * rank + 2, third.getBuffer().getInt(0));
        // Two doubles from values[1] of item 1; item 3 whole, as one item of the struct type.
        final Cell.Data second = cell.getData(buf, 1);
        final Request s1 = world.iSend(second.valuesFrom(1), 2, MPI.DOUBLE, right, 51);
        final Request s2 = world.iSend(cell.getData(buf, 3).getBuffer(), 1, cell.getType(), right, 52);
        final double[] two = new double[2];
        world.recv(two, 2, MPI.DOUBLE, left, 51);
        assertArrayEquals(new double[] {10 * left + 0.5 + 1, 10 * left + 0.5 + 2}, two);
        final ByteBuffer in = MPI.newByteBuffer(cell.getExtent());
        world.recv(in, 1, cell.getType(), left, 52);
        assertEquals(100 * left + 3, in.order(ByteOrder.nativeOrder()).getInt(0));
        assertEquals(10 * left + 1.5 + 2, in.getDouble(8 + 16));
        s1.waitFor();
        s2.waitFor();
        world.setErrhandler(MPI.ERRORS_RETURN);
        final Cell.Data fourth = cell.getData(buf, 3);
        expectError(MPI.ERR_BUFFER, () -> fourth.valuesFrom(100));
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
    }
}
