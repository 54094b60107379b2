package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.CartComm;
import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.ShiftParms;
import mpi.Status;

/**
 * One test body, many communicators (the mpi4py way): each check runs on {@code COMM_WORLD}, on
 * a dup of it, on a split that reverses the rank order, and on the merge of an
 * inter-communicator between the odd and the even world ranks (odds first: another order
 * again), at every rank count.
 */
@MpiTest(np = {1, 2, 3, 4, 6})
class CommVariantsTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** Runs {@code body} on every variant, then frees the ones made here. */
    private static void onEveryVariant(final Consumer<Intracomm> body)
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final List<Intracomm> made = new ArrayList<>();
        final List<Comm> helpers = new ArrayList<>();
        made.add(world.dup());
        made.add(world.split(0, n - 1 - me));
        if (n >= 2)
        {
            final Intracomm half = world.split(me % 2, me);
            final Intercomm ic = world.createIntercomm(half, 0, me % 2 == 0 ? 1 : 0, 40);
            made.add(ic.merge(me % 2 == 0));
            helpers.add(ic);
            helpers.add(half);
        }
        body.accept(world);
        for (final Intracomm c : made)
        {
            body.accept(c);
        }
        for (final Comm c : made)
        {
            c.free();
        }
        for (final Comm c : helpers)
        {
            c.free();
        }
    }

    /** World rank of each rank of {@code comm}. */
    private static int[] worldRanks(final Comm comm)
    {
        final int n = comm.getSize();
        final int[] ranks = new int[n];
        for (int i = 0; i < n; i++)
        {
            ranks[i] = i;
        }
        return Group.translateRanks(comm.getGroup(), ranks, MPI.COMM_WORLD.getGroup());
    }

    @Test
    void ranksGroupsAndPointToPoint()
    {
        onEveryVariant(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            assertEquals(MPI.COMM_WORLD.getSize(), n);
            assertEquals(me, c.getGroup().getRank());
            // Every member agrees on the rank -> world rank table.
            final int[] table = worldRanks(c);
            assertEquals(MPI.COMM_WORLD.getRank(), table[me]);
            final int[] all = new int[n * n];
            for (int r = 0; r < n; r++)
            {
                c.sendRecv(table, n, MPI.INT, r, 1, all, n, MPI.INT, r, 1);
                assertArrayEquals(table, java.util.Arrays.copyOf(all, n), "rank " + r + " sees another order");
            }
            // A ring, then ANY_SOURCE / ANY_TAG receives that must name the right rank and tag.
            final int[] got = new int[1];
            c.sendRecv(new int[] {me}, 1, MPI.INT, (me + 1) % n, 2, got, 1, MPI.INT, (me + n - 1) % n, 2);
            assertEquals((me + n - 1) % n, got[0]);
            c.send(new int[] {me}, 1, MPI.INT, (me + 1) % n, 100 + me);
            final Status st = c.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            assertEquals((me + n - 1) % n, st.getSource());
            assertEquals(100 + st.getSource(), st.getTag());
            assertEquals(st.getSource(), got[0]);
            c.barrier();
        });
    }

    @Test
    void constructorsOnTheVariant()
    {
        onEveryVariant(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final Intracomm d = c.dup();
            assertEquals(MPI.CONGRUENT, Comm.compare(c, d));
            assertSame(c.getErrhandler(), d.getErrhandler());
            final Intracomm viaI = c.iDup();
            viaI.getRequest().waitFor();
            assertEquals(MPI.CONGRUENT, Comm.compare(c, viaI));
            // Halves by rank parity, keyed backwards.
            final Intracomm half = c.split(me % 2, -me);
            assertEquals(me % 2 == 0 ? (n + 1) / 2 : n / 2, half.getSize());
            assertEquals((half.getSize() - 1) - me / 2, half.getRank());
            // The first ceil(n/2) ranks by create; the rest get a null communicator.
            final Group first = c.getGroup().rangeIncl(new int[][] {{0, (n - 1) / 2, 1}});
            final Intracomm created = c.create(first);
            if (me <= (n - 1) / 2)
            {
                assertEquals(me, created.getRank());
                created.barrier();
                created.free();
            }
            else
            {
                assertTrue(created.isNull());
            }
            // Isolation: a receive on c for any source and tag ignores what travels on d.
            final int[] onC = new int[1];
            final mpi.Request r = c.iRecv(onC, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
            d.send(new int[] {1}, 1, MPI.INT, (me + 1) % n, 0);
            viaI.send(new int[] {2}, 1, MPI.INT, (me + 1) % n, 0);
            final int[] got = new int[1];
            d.recv(got, 1, MPI.INT, (me + n - 1) % n, 0);
            assertEquals(1, got[0]);
            viaI.recv(got, 1, MPI.INT, (me + n - 1) % n, 0);
            assertEquals(2, got[0]);
            c.send(new int[] {3}, 1, MPI.INT, (me + 1) % n, 0);
            r.waitFor();
            assertEquals(3, onC[0]);
            half.free();
            viaI.free();
            d.free();
        });
    }

    @Test
    void topologiesNamesAndAttributes()
    {
        final int key = Comm.createKeyval();
        onEveryVariant(c ->
        {
            final int n = c.getSize();
            final int me = c.getRank();
            final CartComm ring = c.createCart(new int[] {n}, new boolean[] {true}, false);
            assertEquals(MPI.CART, ring.getTopology());
            final ShiftParms s = ring.shift(0, 1);
            assertEquals((me + n - 1) % n, s.getRankSource());
            assertEquals((me + 1) % n, s.getRankDest());
            assertArrayEquals(worldRanks(c), worldRanks(ring), "reorder = false keeps the order");
            ring.free();
            c.setAttr(key, "on " + me);
            final Intracomm d = c.dup();
            assertEquals("on " + me, d.getAttr(key), "createKeyval() copies the value on dup");
            assertEquals("on " + me, c.getAttr(key));
            c.deleteAttr(key);
            assertNull(c.getAttr(key));
            final String name = c.getName();
            d.setName("variant " + n);
            assertEquals("variant " + n, d.getName());
            assertEquals(name, c.getName(), "naming the dup leaves the original's name");
            assertEquals(MPI.ANY_SOURCE, d.getAttr(MPI.IO));
            assertEquals(Integer.MAX_VALUE, d.getAttr(MPI.TAG_UB));
            d.free();
        });
        Comm.freeKeyval(key);
    }
}
