package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.CartComm;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Neighbourhood collectives on Cartesian (periodic, not, and dimensions of size 1 and 2),
 * graph and distributed-graph communicators; and the collectives of an inter-communicator
 * (MPI.ROOT and PROC_NULL on the root's side, results from the other group).
 */
@MpiTest(np = {1, 2, 3, 4, 5, 8})
class NeighborAndInterCollectivesTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** What rank r sends to its i-th destination in the all-to-all tests. */
    private static int payload(final int r, final int i)
    {
        return 100 * r + i;
    }

    /** Checks a neighbourhood: allGather and allToAll against the neighbour lists, -1 for PROC_NULL blocks. */
    private static void checkNeighbourhood(final Intracomm c, final int[] sources, final int[] destinations,
        final int[][] destinationsOf)
    {
        final int me = c.getRank();
        final int ins = sources.length;
        final int[] gathered = new int[2 * ins];
        Arrays.fill(gathered, -1);
        c.neighborAllGather(new int[] {me, -me}, 2, MPI.INT, gathered, 2, MPI.INT);
        for (int i = 0; i < ins; i++)
        {
            final int s = sources[i];
            assertEquals(s == MPI.PROC_NULL ? -1 : s, gathered[2 * i], "allGather block " + i);
        }
        // allToAll: destination i gets payload(me, i); from source i I expect what it sent to the
        // destination slot that names me (the k-th occurrence of me among its destinations, for
        // the k-th occurrence of it among my sources).
        final int outs = destinations.length;
        final int[] send = new int[outs];
        for (int i = 0; i < outs; i++)
        {
            send[i] = payload(me, i);
        }
        final int[] recv = new int[ins];
        Arrays.fill(recv, -1);
        final Request r = c.iNeighborAllToAll(send, 1, MPI.INT, recv, 1, MPI.INT);
        r.waitFor();
        for (int i = 0; i < ins; i++)
        {
            final int s = sources[i];
            if (s == MPI.PROC_NULL)
            {
                assertEquals(-1, recv[i], "a PROC_NULL neighbour's block is left alone");
                continue;
            }
            assertEquals(s, recv[i] / 100, "allToAll block " + i + " comes from source " + s);
            final int slot = recv[i] % 100;
            assertEquals(me, destinationsOf[s][slot], "source " + s + " sent it to a slot naming me");
        }
        // allGatherv into reversed, spaced blocks.
        final int[] counts = new int[ins];
        final int[] displs = new int[ins];
        for (int i = 0; i < ins; i++)
        {
            counts[i] = 1;
            displs[i] = 2 * (ins - 1 - i);
        }
        final int[] v = new int[2 * Math.max(ins, 1)];
        Arrays.fill(v, -7);
        c.neighborAllGatherv(new int[] {me + 1000}, 1, MPI.INT, v, counts, displs, MPI.INT);
        for (int i = 0; i < ins; i++)
        {
            assertEquals(sources[i] == MPI.PROC_NULL ? -7 : sources[i] + 1000, v[displs[i]]);
        }
    }

    @Test
    void cartesianNeighbourhoods()
    {
        final int n = MPI.COMM_WORLD.getSize();
        for (final boolean periodic : new boolean[] {true, false})
        {
            // A ring of n (size 1 and 2 make both neighbours one process), and a 2 x n/2 grid.
            for (final int[] dims : new int[][] {{n}, {n >= 2 ? 2 : 1, Math.max(1, n / 2)}})
            {
                final boolean[] periods = new boolean[dims.length];
                Arrays.fill(periods, periodic);
                final CartComm cart = MPI.COMM_WORLD.createCart(dims, periods, false);
                if (cart.isNull())
                {
                    continue;
                }
                final int size = cart.getSize();
                final int[][] neighbours = new int[size][];
                for (int r = 0; r < size; r++)
                {
                    final int[] coords = cart.getCoords(r);
                    neighbours[r] = new int[2 * dims.length];
                    for (int d = 0; d < dims.length; d++)
                    {
                        neighbours[r][2 * d] = step(coords, dims, periodic, d, -1, cart);
                        neighbours[r][2 * d + 1] = step(coords, dims, periodic, d, 1, cart);
                    }
                }
                final int me = cart.getRank();
                // What I receive from my negative neighbour is what it sent to its positive one.
                final int[][] destinationsOf = neighbours;
                checkNeighbourhoodCart(cart, neighbours[me], destinationsOf);
                cart.free();
            }
        }
    }

    private static int step(final int[] coords, final int[] dims, final boolean periodic, final int d, final int by,
        final CartComm cart)
    {
        final int[] c = coords.clone();
        c[d] += by;
        if (c[d] < 0 || c[d] >= dims[d])
        {
            if (!periodic)
            {
                return MPI.PROC_NULL;
            }
            c[d] = Math.floorMod(c[d], dims[d]);
        }
        return cart.getRank(c);
    }

    /** As checkNeighbourhood, with the Cartesian rule for which slot a block comes from. */
    private static void checkNeighbourhoodCart(final CartComm c, final int[] neighbours, final int[][] neighboursOf)
    {
        final int me = c.getRank();
        final int k = neighbours.length;
        final int[] send = new int[k];
        for (int i = 0; i < k; i++)
        {
            send[i] = payload(me, i);
        }
        final int[] recv = new int[k];
        Arrays.fill(recv, -1);
        c.neighborAllToAll(send, 1, MPI.INT, recv, 1, MPI.INT);
        for (int i = 0; i < k; i++)
        {
            final int s = neighbours[i];
            if (s == MPI.PROC_NULL)
            {
                assertEquals(-1, recv[i]);
                continue;
            }
            // Slot 2d (negative neighbour) gets what it sent in slot 2d + 1 (to its positive neighbour), and back.
            final int expectedSlot = i % 2 == 0 ? i + 1 : i - 1;
            assertEquals(payload(s, expectedSlot), recv[i], "block " + i + " at rank " + me);
        }
        final int[] gathered = new int[k];
        Arrays.fill(gathered, -1);
        c.neighborAllGather(new int[] {me}, 1, MPI.INT, gathered, 1, MPI.INT);
        for (int i = 0; i < k; i++)
        {
            assertEquals(neighbours[i] == MPI.PROC_NULL ? -1 : neighbours[i], gathered[i]);
        }
    }

    @Test
    void graphAndDistributedGraphNeighbourhoods()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        // A ring as a graph (both directions; at n = 2 the two edges join the same pair twice).
        final int[] index = new int[n];
        final int[] edges = new int[2 * n];
        for (int v = 0; v < n; v++)
        {
            edges[2 * v] = (v + n - 1) % n;
            edges[2 * v + 1] = (v + 1) % n;
            index[v] = 2 * v + 2;
        }
        final GraphComm graph = world.createGraph(index, edges, false);
        final int[][] destinationsOf = new int[n][];
        for (int v = 0; v < n; v++)
        {
            destinationsOf[v] = graph.getNeighbors(v);
        }
        if (n > 2)
        {
            checkNeighbourhood(graph, graph.getNeighbors(me), graph.getNeighbors(me), destinationsOf);
        }
        graph.free();
        // A distributed graph: i -> i + 1 and i -> i + 2 (mod n).
        final int[] dsts = {(me + 1) % n, (me + 2) % n};
        final GraphComm dist = world.createDistGraph(new int[] {me}, new int[] {2}, dsts, MPI.INFO_NULL, false);
        final DistGraphNeighbors nb = dist.getDistGraphNeighbors();
        final int[] sources = new int[nb.getInDegree()];
        for (int i = 0; i < sources.length; i++)
        {
            sources[i] = nb.getSource(i);
        }
        final int[][] outs = new int[n][];
        for (int v = 0; v < n; v++)
        {
            outs[v] = new int[] {(v + 1) % n, (v + 2) % n};
        }
        if (n > 2)
        {
            checkNeighbourhood(dist, sources, dsts, outs);
        }
        // allToAllv with r + 1 ints to each destination.
        final int[] scounts = {1, 2};
        final int[] sdispls = {0, 1};
        final int[] send = {me, me, me};
        final int[] rcounts = new int[sources.length];
        final int[] rdispls = new int[sources.length];
        int at = 0;
        for (int i = 0; i < sources.length; i++)
        {
            // The source sent me its first destination slot (1 int) if I am source + 1, else 2 ints.
            rcounts[i] = (sources[i] + 1) % n == me && (n > 2 || i == 0) ? 1 : 2;
            rdispls[i] = at;
            at += rcounts[i];
        }
        final int[] recv = new int[at];
        if (n > 2)
        {
            dist.neighborAllToAllv(send, scounts, sdispls, MPI.INT, recv, rcounts, rdispls, MPI.INT);
            for (int i = 0; i < sources.length; i++)
            {
                for (int j = 0; j < rcounts[i]; j++)
                {
                    assertEquals(sources[i], recv[rdispls[i] + j]);
                }
            }
        }
        dist.free();
        assertEquals(MPI.ERR_TOPOLOGY, assertThrows(MPIException.class,
            () -> world.neighborAllGather(new int[1], 1, MPI.INT, new int[1], 1, MPI.INT)).getErrorClass());
    }

    @Test
    void interCommunicatorCollectives()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        if (n < 2)
        {
            return;
        }
        final int me = world.getRank();
        final int parity = me % 2;
        final Intracomm half = world.split(parity, me);
        final Intercomm ic = world.createIntercomm(half, 0, parity == 0 ? 1 : 0, 5);
        final int local = ic.getRank();
        final int remoteSize = ic.getRemoteSize();
        // World rank of remote rank r: the other parity's r-th.
        final int[] remoteWorld = new int[remoteSize];
        for (int r = 0; r < remoteSize; r++)
        {
            remoteWorld[r] = 2 * r + (1 - parity);
        }
        // Bcast from the evens' rank 1 (if any, else 0) to the odds.
        final int evensSize = (n + 1) / 2;
        final int bRoot = evensSize > 1 ? 1 : 0;
        final int[] b = new int[2];
        if (parity == 0)
        {
            if (local == bRoot)
            {
                b[0] = 42;
                b[1] = 43;
                ic.bcast(b, 2, MPI.INT, MPI.ROOT);
            }
            else
            {
                ic.bcast(b, 2, MPI.INT, MPI.PROC_NULL);
                assertArrayEquals(new int[2], b, "the root's group receives nothing");
            }
        }
        else
        {
            ic.bcast(b, 2, MPI.INT, bRoot);
            assertArrayEquals(new int[] {42, 43}, b);
        }
        // Reduce to the odds' rank 0 of the evens' world ranks.
        final int[] sum = {-1};
        if (parity == 1)
        {
            ic.reduce(new int[] {me}, sum, 1, MPI.INT, MPI.SUM, local == 0 ? MPI.ROOT : MPI.PROC_NULL);
            if (local == 0)
            {
                int expected = 0;
                for (final int w : remoteWorld)
                {
                    expected += w;
                }
                assertEquals(expected, sum[0]);
            }
        }
        else
        {
            ic.reduce(new int[] {me}, sum, 1, MPI.INT, MPI.SUM, 0);
        }
        // Allreduce: each group gets the other's sum.
        final int[] all = new int[1];
        ic.allReduce(new int[] {me}, all, 1, MPI.INT, MPI.SUM);
        int otherSum = 0;
        for (final int w : remoteWorld)
        {
            otherSum += w;
        }
        assertEquals(otherSum, all[0], "allReduce gives the other group's reduction");
        // Gather to the evens' rank 0 from the odds; scatter back.
        if (parity == 0)
        {
            final int[] g = new int[remoteSize];
            ic.gather(null, 0, MPI.INT, g, 1, MPI.INT, local == 0 ? MPI.ROOT : MPI.PROC_NULL);
            if (local == 0)
            {
                assertArrayEquals(remoteWorld, g);
                final int[] back = new int[remoteSize];
                Arrays.setAll(back, r -> g[r] * 10);
                ic.scatter(back, 1, MPI.INT, null, 0, MPI.INT, MPI.ROOT);
            }
            else
            {
                ic.scatter(null, 0, MPI.INT, null, 0, MPI.INT, MPI.PROC_NULL);
            }
        }
        else
        {
            ic.gather(new int[] {me}, 1, MPI.INT, null, 0, MPI.INT, 0);
            final int[] mine = new int[1];
            ic.scatter(null, 0, MPI.INT, mine, 1, MPI.INT, 0);
            assertEquals(me * 10, mine[0]);
        }
        // allGather: every process gets the other group's world ranks; allToAll: block r to remote rank r.
        final int[] ag = new int[remoteSize];
        ic.allGather(new int[] {me}, 1, MPI.INT, ag, 1, MPI.INT);
        assertArrayEquals(remoteWorld, ag);
        final int[] send = new int[remoteSize];
        Arrays.setAll(send, r -> me * 1000 + r);
        final int[] recv = new int[remoteSize];
        ic.allToAll(send, 1, MPI.INT, recv, 1, MPI.INT);
        for (int r = 0; r < remoteSize; r++)
        {
            assertEquals(remoteWorld[r] * 1000 + local, recv[r], "allToAll from remote " + r);
        }
        // reduceScatterBlock: the other group's vectors summed, one int per process of mine.
        // Both groups must agree on the total: use the larger group's size per process.
        final int size = ic.getSize();
        if (size == remoteSize)
        {
            final int[] vec = new int[size];
            Arrays.setAll(vec, k -> me + k);
            final int[] part = new int[1];
            ic.reduceScatterBlock(vec, part, 1, MPI.INT, MPI.SUM);
            assertEquals(otherSum + remoteSize * local, part[0], "reduceScatterBlock");
        }
        ic.barrier();
        ic.iBarrier().waitFor();
        ic.free();
        half.free();
    }
}
