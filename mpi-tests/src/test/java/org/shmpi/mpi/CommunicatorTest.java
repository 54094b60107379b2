package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Intracomm;
import mpi.Keyval;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/** Communicator duplication: context isolation, what a dup inherits, many communicators alive and freed. */
@MpiTest(np = {1, 2, 3, 4, 6})
class CommunicatorTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** The ring step every test body runs: send my rank to next, receive prev's, on {@code comm}. */
    private static void ring(final Comm comm, final int tag)
    {
        final int n = comm.getSize();
        final int me = comm.getRank();
        final int[] got = new int[1];
        comm.sendRecv(new int[] {me * 10 + tag}, 1, MPI.INT, (me + 1) % n, tag, got, 1, MPI.INT, (me + n - 1) % n, tag);
        assertEquals(((me + n - 1) % n) * 10 + tag, got[0]);
    }

    @Test
    void dupIsCongruentAndIsolated()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final Intracomm d = world.dup();
        assertEquals(MPI.CONGRUENT, Comm.compare(world, d));
        assertEquals(world.getSize(), d.getSize());
        assertEquals(world.getRank(), d.getRank());
        assertEquals("", d.getName(), "a dup has no name until set");
        ring(d, 3);
        // A receive posted on the world with ANY_TAG does not take a message sent on the dup.
        final int n = world.getSize();
        final int me = world.getRank();
        final int[] onWorld = new int[1];
        final Request r = world.iRecv(onWorld, 1, MPI.INT, (me + n - 1) % n, MPI.ANY_TAG);
        d.send(new int[] {42}, 1, MPI.INT, (me + 1) % n, 5);
        final int[] onDup = new int[1];
        final Status st = d.recv(onDup, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
        assertEquals(42, onDup[0]);
        assertEquals(5, st.getTag());
        // (The world's receive may already hold prev's world message, which can be on its way.)
        world.send(new int[] {7}, 1, MPI.INT, (me + 1) % n, 6);
        r.waitFor();
        assertEquals(7, onWorld[0], "the world's receive took the world's message, not the dup's");
        d.free();
        assertTrue(d.isNull());
        assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class, d::getSize).getErrorClass());
        assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class, MPI.COMM_WORLD::free).getErrorClass());
    }

    /**
     * A duplicate of an intra-communicator takes the shared-memory collectives as its parent does:
     * its first barrier makes its collective segment (made by its rank 0, named coll-...-(world
     * rank of its rank 0)). A duplicate once came out with point-to-point collectives only, which
     * doubled the latency of every window fence (a window runs on a private duplicate).
     */
    @Test
    void dupTakesSharedMemoryCollectives() throws Exception
    {
        final Intracomm world = MPI.COMM_WORLD;
        if (world.getSize() < 2)
        {
            return;
        }
        final java.nio.file.Path dir = java.nio.file.Path.of(System.getenv("SHMPI_JOB_DIR"));
        world.barrier();
        final List<String> before = collectiveSegments(dir);
        final Intracomm dup = world.dup();
        dup.barrier();
        final List<String> made = collectiveSegments(dir);
        made.removeAll(before);
        dup.barrier();
        dup.free();
        if (world.getRank() == 0)
        {
            assertEquals(1, made.size(), "segments made by the duplicate's first barrier: " + made);
        }
    }

    private static List<String> collectiveSegments(final java.nio.file.Path dir) throws java.io.IOException
    {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir))
        {
            final List<String> names = new ArrayList<>();
            files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("coll-") && n.endsWith("-0"))
                .forEach(names::add);
            return names;
        }
    }

    @Test
    void dupInheritsHandlerAndInfoAndCopiesAttributesByCallback()
    {
        final List<String> log = new ArrayList<>();
        final int copied = Comm.createKeyval((o, k, v) -> { log.add("copy " + v); return v + "'"; },
            (o, k, v) -> log.add("delete " + v));
        final int notCopied = Comm.createKeyval(Keyval.NO_COPY, (o, k, v) -> log.add("delete " + v));
        final Intracomm base = MPI.COMM_WORLD.dup();
        base.setName("base");
        base.setAttr(copied, "a");
        base.setAttr(notCopied, "b");
        final mpi.Info hints = new mpi.Info();
        hints.set("k", "v");
        base.setInfo(hints);
        hints.free();
        final Intracomm d = base.dup();
        assertEquals(MPI.ERRORS_RETURN, d.getErrhandler(), "the error handler is inherited");
        assertEquals("v", d.getInfo().get("k"));
        assertEquals("a'", d.getAttr(copied));
        assertEquals(null, d.getAttr(notCopied));
        assertEquals(List.of("copy a"), log);
        d.free();
        assertEquals(List.of("copy a", "delete a'"), log);
        base.free();
        assertEquals(List.of("copy a", "delete a'", "delete b", "delete a"), log, "the last set is deleted first");
        Comm.freeKeyval(copied);
        Comm.freeKeyval(notCopied);
    }

    /**
     * split into rows of a grid of width 2 (uneven at odd sizes) with keys that reverse the
     * order, then columns; the ring runs on each; UNDEFINED gives a null communicator.
     */
    @Test
    void splitIntoRowsAndColumns()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final Intracomm row = world.split(me / 2, -me);
        final int rowSize = Math.min(2, n - (me / 2) * 2);
        assertEquals(rowSize, row.getSize());
        // Keys -me: the higher world rank comes first.
        assertEquals(rowSize == 1 ? 0 : 1 - me % 2, row.getRank());
        ring(row, 1);
        final Intracomm column = world.split(me % 2, me);
        assertEquals((n + 1 - me % 2) / 2, column.getSize());
        assertEquals(me / 2, column.getRank());
        ring(column, 2);
        final mpi.Group g = column.getGroup();
        for (int r = 0; r < column.getSize(); r++)
        {
            assertEquals(me % 2 + 2 * r, mpi.Group.translateRanks(g, new int[] {r}, world.getGroup())[0]);
        }
        g.free();
        assertEquals(MPI.ERRORS_RETURN, row.getErrhandler(), "a split inherits the error handler");
        final Intracomm none = world.split(me == 0 ? MPI.UNDEFINED : 1, 0);
        assertEquals(me == 0, none.isNull());
        if (!none.isNull())
        {
            assertEquals(n - 1, none.getSize());
            ring(none, 3);
            none.free();
        }
        final Intracomm shared = world.splitType(Comm.TYPE_SHARED, me, null);
        assertEquals(MPI.CONGRUENT, Comm.compare(world, shared));
        shared.free();
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class, () -> world.split(-5, 0)).getErrorClass());
        row.free();
        column.free();
    }

    /** create over the whole world with the even ranks' group; createGroup by the odd ranks only. */
    @Test
    void createAndCreateGroup()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final mpi.Group all = world.getGroup();
        final mpi.Group evens = all.rangeIncl(new int[][] {{0, n - 1 - (n - 1) % 2, 2}});
        final Intracomm e = world.create(evens);
        assertEquals(me % 2 == 1, e.isNull());
        if (!e.isNull())
        {
            assertEquals(me / 2, e.getRank());
            assertEquals(evens.getSize(), e.getSize());
            ring(e, 4);
            e.free();
        }
        if (n > 1)
        {
            final mpi.Group odds = mpi.Group.difference(all, evens);
            if (me % 2 == 1)
            {
                final Intracomm o = world.createGroup(odds, 9);
                assertEquals(odds.getSize(), o.getSize());
                assertEquals(me / 2, o.getRank());
                ring(o, 5);
                o.free();
            }
            else
            {
                assertEquals(MPI.ERR_GROUP, assertThrows(MPIException.class, () -> world.createGroup(odds, 9))
                    .getErrorClass());
            }
            odds.free();
        }
        evens.free();
        all.free();
    }

    /** createDims against balanced factorisations worked out by hand, fixed entries kept, impossible ones ERR_DIMS. */
    @Test
    void createDimsFactorsEvenly()
    {
        final int[][][] cases = {
            {{6}, {0, 0}, {3, 2}}, {{7}, {0, 0}, {7, 1}}, {{12}, {0, 0, 0}, {3, 2, 2}}, {{24}, {0, 0}, {6, 4}},
            {{16}, {0, 0, 0, 0}, {2, 2, 2, 2}}, {{12}, {0, 3, 0}, {2, 3, 2}}, {{6}, {2, 3}, {2, 3}},
            {{1}, {0, 0}, {1, 1}}, {{30}, {0, 0, 0}, {5, 3, 2}}, {{36}, {0, 0}, {6, 6}}};
        for (final int[][] c : cases)
        {
            final int[] dims = c[1].clone();
            mpi.CartComm.createDims(c[0][0], dims);
            assertEquals(java.util.Arrays.toString(c[2]), java.util.Arrays.toString(dims), c[0][0] + " over " +
                java.util.Arrays.toString(c[1]));
        }
        assertEquals(MPI.ERR_DIMS, assertThrows(MPIException.class, () -> mpi.CartComm.createDims(6, new int[] {4, 0}))
            .getErrorClass());
        assertEquals(MPI.ERR_DIMS, assertThrows(MPIException.class, () -> mpi.CartComm.createDims(6, new int[] {2, 2}))
            .getErrorClass());
        assertEquals(MPI.ERR_DIMS, assertThrows(MPIException.class, () -> mpi.CartComm.createDims(6, new int[] {-1, 0}))
            .getErrorClass());
    }

    /** A 2-D grid of the world, periodic in dimension 0: coordinates, ranks, shifts, sub-grids, dup. */
    @Test
    void cartesianGrid()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int[] dims = {0, 0};
        mpi.CartComm.createDims(n, dims);
        final int d0 = dims[0];
        final int d1 = dims[1];
        final mpi.CartComm cart = world.createCart(dims, new boolean[] {true, false}, false);
        assertEquals(MPI.CART, cart.getTopology());
        assertEquals(MPI.UNDEFINED, world.getTopology());
        final int c0 = me / d1;
        final int c1 = me % d1;
        final mpi.CartParms t = cart.getTopo();
        assertEquals(2, t.getDimCount());
        assertEquals(d0, t.getDim(0));
        assertEquals(true, t.getPeriod(0));
        assertEquals(false, t.getPeriod(1));
        assertEquals(c0, t.getCoord(0));
        assertEquals(c1, t.getCoord(1));
        assertEquals(java.util.List.of(c0, c1), java.util.Arrays.stream(cart.getCoords(me)).boxed().toList());
        assertEquals(me, cart.getRank(new int[] {c0, c1}));
        assertEquals(me, cart.getRank(new int[] {c0 + d0, c1}), "dimension 0 wraps");
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class, () -> cart.getRank(new int[] {c0, d1}))
            .getErrorClass());
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class, () -> cart.getCoords(n)).getErrorClass());

        final mpi.ShiftParms down = cart.shift(0, 1);
        assertEquals(Math.floorMod(c0 - 1, d0) * d1 + c1, down.getRankSource());
        assertEquals(((c0 + 1) % d0) * d1 + c1, down.getRankDest());
        final mpi.ShiftParms right = cart.shift(1, 1);
        assertEquals(c1 > 0 ? me - 1 : MPI.PROC_NULL, right.getRankSource());
        assertEquals(c1 < d1 - 1 ? me + 1 : MPI.PROC_NULL, right.getRankDest());
        // A halo exchange along the non-periodic dimension: the edges talk to PROC_NULL.
        final int[] got = {-1};
        cart.sendRecv(new int[] {me}, 1, MPI.INT, right.getRankDest(), 8, got, 1, MPI.INT, right.getRankSource(), 8);
        assertEquals(c1 > 0 ? me - 1 : -1, got[0]);
        assertEquals(MPI.ERR_DIMS, assertThrows(MPIException.class, () -> cart.shift(2, 1)).getErrorClass());

        final mpi.CartComm row = cart.sub(new boolean[] {false, true});
        assertEquals(d1, row.getSize());
        assertEquals(c1, row.getRank());
        assertEquals(1, row.getTopo().getDimCount());
        ring(row, 6);
        final mpi.CartComm column = cart.sub(new boolean[] {true, false});
        assertEquals(d0, column.getSize());
        assertEquals(c0, column.getRank());
        ring(column, 7);
        final mpi.CartComm copy = cart.dup();
        assertEquals(d1, copy.getTopo().getDim(1));
        assertEquals(MPI.CONGRUENT, Comm.compare(cart, copy));
        assertEquals(me, cart.map(dims, new boolean[] {false, false}));
        copy.free();
        row.free();
        column.free();
        cart.free();

        // A grid of one process: the others get a null communicator; too large a grid is ERR_ARG (as Open MPI).
        final mpi.CartComm one = world.createCart(new int[] {1}, new boolean[] {false}, true);
        assertEquals(me != 0, one.isNull());
        if (!one.isNull())
        {
            one.free();
        }
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class,
            () -> world.createCart(new int[] {n + 1}, new boolean[] {false}, false)).getErrorClass());
    }

    /**
     * Thousands of communicators: dups of dups, of COMM_SELF and of the world interleaved in a
     * random order that every rank draws alike (the collective order must agree), with
     * traffic on each and random frees between; then 1500 alive at once.
     */
    @Test
    void manyCommunicatorsInterleavedAndIdsReused()
    {
        final Random random = new Random(424242);
        final List<Comm> alive = new ArrayList<>();
        alive.add(MPI.COMM_WORLD);
        int made = 0;
        for (int step = 0; step < 600; step++)
        {
            final int what = random.nextInt(4);
            if (what < 2 || alive.size() < 3)
            {
                final Comm from = alive.get(random.nextInt(alive.size()));
                final Comm d = random.nextInt(5) == 0 ? MPI.COMM_SELF.dup() : from.dup();
                alive.add(d);
                made++;
                ring(d, step % 7);
            }
            else if (what == 2)
            {
                final Comm c = alive.remove(1 + random.nextInt(alive.size() - 1));
                c.free();
            }
            else
            {
                ring(alive.get(random.nextInt(alive.size())), 1);
            }
        }
        assertTrue(made > 200, "made " + made);
        // Keep 1500 alive at once, then free them all.
        final List<Comm> many = new ArrayList<>();
        for (int i = 0; i < 1500; i++)
        {
            many.add(MPI.COMM_WORLD.dup());
        }
        ring(many.get(many.size() - 1), 2);
        for (final Comm c : many)
        {
            c.free();
        }
        for (final Comm c : alive.subList(1, alive.size()))
        {
            c.free();
        }
        final Comm last = MPI.COMM_WORLD.dup();
        ring(last, 4);
        last.free();
    }
}
