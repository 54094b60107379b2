package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.CartComm;
import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Inter-communicators (create, remote group, point-to-point to the remote group, barrier, dup,
 * merge, compare), the nonblocking dup and its request, disconnect, and their bad input.
 * Groups: the even world ranks and the odd ones, of uneven sizes at odd rank counts.
 */
@MpiTest(np = {1, 2, 3, 4, 6})
class IntercommTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    private static int[] worldRanksWithParity(final int parity)
    {
        final int n = MPI.COMM_WORLD.getSize();
        final int[] out = new int[(n + 1 - parity) / 2];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = 2 * i + parity;
        }
        return out;
    }

    /** The evens and odds joined through COMM_WORLD, leaders world ranks 0 and 1; null below 2 ranks. */
    private static Intercomm evensAndOdds(final Intracomm[] localOut)
    {
        final Intracomm world = MPI.COMM_WORLD;
        if (world.getSize() < 2)
        {
            return null;
        }
        final int parity = world.getRank() % 2;
        final Intracomm local = world.split(parity, world.getRank());
        localOut[0] = local;
        return world.createIntercomm(local, 0, parity == 0 ? 1 : 0, 77);
    }

    @Test
    void groupsAndPointToPointAddressTheRemoteGroup()
    {
        final Intracomm[] local = new Intracomm[1];
        final Intercomm ic = evensAndOdds(local);
        if (ic == null)
        {
            return;
        }
        final int me = MPI.COMM_WORLD.getRank();
        final int parity = me % 2;
        final int[] mine = worldRanksWithParity(parity);
        final int[] theirs = worldRanksWithParity(1 - parity);
        assertTrue(ic.isInter());
        assertFalse(MPI.COMM_WORLD.isInter());
        assertEquals(mine.length, ic.getSize());
        assertEquals(me / 2, ic.getRank());
        assertEquals(theirs.length, ic.getRemoteSize());
        assertEquals(MPI.UNDEFINED, ic.getTopology());
        final Group worldGroup = MPI.COMM_WORLD.getGroup();
        final Group remote = ic.getRemoteGroup();
        final int[] ranks = new int[theirs.length];
        for (int i = 0; i < ranks.length; i++)
        {
            ranks[i] = i;
        }
        assertArrayEquals(theirs, Group.translateRanks(remote, ranks, worldGroup));
        final Group localGroup = ic.getGroup();
        final int[] localRanks = new int[mine.length];
        for (int i = 0; i < localRanks.length; i++)
        {
            localRanks[i] = i;
        }
        assertArrayEquals(mine, Group.translateRanks(localGroup, localRanks, worldGroup));
        assertEquals(mine.length, localGroup.getSize());
        assertEquals(me / 2, localGroup.getRank());

        // Each process sends its world rank to every remote process, and receives from each, by remote rank.
        final Request[] sends = new Request[theirs.length];
        for (int r = 0; r < theirs.length; r++)
        {
            sends[r] = ic.iSend(new int[] {me * 100 + r}, 1, MPI.INT, r, 5);
        }
        for (int r = 0; r < theirs.length; r++)
        {
            final int[] got = new int[1];
            final Status st = ic.recv(got, 1, MPI.INT, r, 5);
            assertEquals(theirs[r] * 100 + ic.getRank(), got[0], "from remote rank " + r);
            assertEquals(r, st.getSource(), "the source is a rank of the remote group");
        }
        Request.waitAll(sends);
        // ANY_SOURCE: the status names the remote rank.
        if (ic.getRank() == 0)
        {
            ic.send(new int[] {me}, 1, MPI.INT, 0, 6);
        }
        if (ic.getRank() == 0)
        {
            final int[] got = new int[1];
            final Status st = ic.recv(got, 1, MPI.INT, MPI.ANY_SOURCE, 6);
            assertEquals(theirs[0], got[0]);
            assertEquals(0, st.getSource());
        }
        // A rank of the local group that the remote group lacks is ERR_RANK.
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class,
            () -> ic.send(new int[1], 1, MPI.INT, theirs.length, 1)).getErrorClass());
        ic.barrier();
        ic.free();
        assertTrue(ic.isNull());
        local[0].free();
    }

    @Test
    void mergeOrdersTheGroupsByHighThenByLeader()
    {
        final Intracomm[] local = new Intracomm[1];
        final Intercomm ic = evensAndOdds(local);
        if (ic == null)
        {
            return;
        }
        final int me = MPI.COMM_WORLD.getRank();
        final int n = MPI.COMM_WORLD.getSize();
        final int evens = (n + 1) / 2;
        final boolean odd = me % 2 == 1;
        // Odds low: odds first.
        final Intracomm oddsFirst = ic.merge(!odd);
        assertEquals(n, oddsFirst.getSize());
        final int odds = n / 2;
        assertEquals(odd ? me / 2 : odds + me / 2, oddsFirst.getRank());
        ring(oddsFirst, 4);
        // Same value on both sides: the group whose leader has the lower world rank (evens) first.
        final Intracomm evensFirst = ic.merge(true);
        assertEquals(odd ? evens + me / 2 : me / 2, evensFirst.getRank());
        ring(evensFirst, 8);
        assertEquals(MPI.SIMILAR, Comm.compare(oddsFirst, MPI.COMM_WORLD));
        assertEquals(n == 2 ? MPI.CONGRUENT : MPI.SIMILAR, Comm.compare(evensFirst, MPI.COMM_WORLD));
        oddsFirst.free();
        evensFirst.free();
        ic.free();
        local[0].free();
    }

    @Test
    void dupOfAnIntercommIsCongruentAndIsolated()
    {
        final Intracomm[] local = new Intracomm[1];
        final Intercomm ic = evensAndOdds(local);
        if (ic == null)
        {
            return;
        }
        final Intercomm d = ic.dup();
        assertTrue(d.isInter());
        assertEquals(MPI.IDENT, Comm.compare(ic, ic));
        assertEquals(MPI.CONGRUENT, Comm.compare(ic, d));
        assertEquals(MPI.UNEQUAL, Comm.compare(ic, MPI.COMM_WORLD));
        assertEquals(ic.getRemoteSize(), d.getRemoteSize());
        // A receive on the original does not take a message sent on the dup.
        final int[] onIc = new int[1];
        final Request r = ic.iRecv(onIc, 1, MPI.INT, 0, MPI.ANY_TAG);
        // Every process sends to remote rank 0 on the dup, then on the original.
        final int myRemote0 = 0;
        d.send(new int[] {11}, 1, MPI.INT, myRemote0, 3);
        final int[] onDup = new int[1];
        // Remote rank 0 receives one message from every process of this group on each communicator.
        if (ic.getRank() == 0)
        {
            for (int i = 0; i < ic.getRemoteSize(); i++)
            {
                d.recv(onDup, 1, MPI.INT, i, 3);
                assertEquals(11, onDup[0]);
            }
        }
        ic.send(new int[] {22}, 1, MPI.INT, myRemote0, 3);
        if (ic.getRank() == 0)
        {
            r.waitFor();
            assertEquals(22, onIc[0], "the original's receive took the original's message");
            for (int i = 1; i < ic.getRemoteSize(); i++)
            {
                ic.recv(onIc, 1, MPI.INT, i, 3);
                assertEquals(22, onIc[0]);
            }
        }
        else
        {
            r.cancel();
            r.waitFor();
        }
        final Intercomm viaIdup = ic.iDup();
        viaIdup.getRequest().waitFor();
        assertTrue(viaIdup.isInter());
        assertEquals(MPI.CONGRUENT, Comm.compare(ic, viaIdup));
        viaIdup.barrier();
        viaIdup.free();
        d.free();
        ic.free();
        local[0].free();
    }

    /**
     * iDup does not block: rank 0 starts it, then sends to rank 1, which receives before it
     * starts its own. A dup that waited for every member inside the call would deadlock here.
     */
    @Test
    void iDupLetsTheCallerCommunicateBeforeTheOthersJoin()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int me = world.getRank();
        final int n = world.getSize();
        final Intracomm d;
        if (me == 0)
        {
            d = world.iDup();
            world.send(new int[] {5}, 1, MPI.INT, n - 1, 12);
        }
        else if (me == n - 1)
        {
            final int[] got = new int[1];
            world.recv(got, 1, MPI.INT, 0, 12);
            assertEquals(5, got[0]);
            d = world.iDup();
        }
        else
        {
            d = world.iDup();
        }
        if (n == 1)
        {
            final int[] got = new int[1];
            world.recv(got, 1, MPI.INT, 0, 12);
        }
        final Request r = d.getRequest();
        assertFalse(r.isNull());
        r.waitFor();
        assertEquals(MPI.CONGRUENT, Comm.compare(world, d));
        ring(d, 2);
        assertTrue(world.getRequest().isNull(), "a communicator not made by iDup has a null request");
        // Several outstanding at once, completed in any order, and a Cartesian one.
        final Intracomm a = world.iDup();
        final Intracomm b = d.iDup();
        final CartComm cart = world.createCart(new int[] {n}, new boolean[] {true}, false);
        final CartComm cartDup = cart.iDup();
        Request.waitAll(new Request[] {b.getRequest(), cartDup.getRequest(), a.getRequest()});
        ring(a, 1);
        ring(b, 1);
        assertEquals(cart.getTopo().getDim(0), cartDup.getTopo().getDim(0));
        ring(cartDup, 1);
        for (final Comm c : new Comm[] {a, b, cartDup, cart, d})
        {
            c.free();
        }
    }

    @Test
    void disconnectFreesAfterEveryMemberCame()
    {
        final Intracomm d = MPI.COMM_WORLD.dup();
        ring(d, 1);
        d.disconnect();
        assertTrue(d.isNull());
        assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class, MPI.COMM_WORLD::disconnect).getErrorClass());
        assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class, MPI.COMM_SELF::disconnect).getErrorClass());
        final Intercomm parent = Intercomm.getParent();
        assertNotNull(parent);
        assertTrue(parent.isNull(), "no process was spawned: getParent is MPI_COMM_NULL");
    }

    @Test
    void badArgumentsFailOnEveryMemberWithTheirClass()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        // The remote leader inside the local group: every process fails, none waits.
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class,
            () -> world.createIntercomm(world, 0, n - 1, 3))
            .getErrorClass());
        // A remote leader that is no rank of the peer communicator.
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class,
            () -> world.createIntercomm(world, 0, n, 3)).getErrorClass());
        // A local leader outside the local communicator.
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class,
            () -> world.createIntercomm(world, n, 0, 3)).getErrorClass());
        assertEquals(MPI.ERR_TAG, assertThrows(MPIException.class,
            () -> world.createIntercomm(world, 0, 0, -1)).getErrorClass());
        if (n >= 2)
        {
            final Intracomm[] local = new Intracomm[1];
            final Intercomm ic = evensAndOdds(local);
            // An inter-communicator is no local communicator.
            assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class,
                () -> world.createIntercomm(ic, 0, 0, 3)).getErrorClass());
            ic.free();
            local[0].free();
        }
        world.barrier();
        assertEquals(me, world.getRank());
    }

    private static void ring(final Comm comm, final int tag)
    {
        final int n = comm.getSize();
        final int me = comm.getRank();
        final int[] got = new int[1];
        comm.sendRecv(new int[] {me * 10 + tag}, 1, MPI.INT, (me + 1) % n, tag, got, 1, MPI.INT, (me + n - 1) % n, tag);
        assertEquals(((me + n - 1) % n) * 10 + tag, got[0]);
    }
}
