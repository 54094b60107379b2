package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.shmpi.affinity.Binding;
import org.shmpi.affinity.CpuSet;
import org.shmpi.affinity.Topology;
import org.shmpi.junit.MpiTest;

import mpi.CartComm;
import mpi.GraphComm;
import mpi.Comm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@code Intracomm.splitType} by NUMA node, package, L3 cache and core, and
 * {@code createCart(..., reorder = true)}, against the placement {@code shmrun} chose: on a
 * made-up machine of 2 NUMA nodes ({@code src/test/resources/topology/two-numa-nodes.txt}: one
 * package; node 0 holds cores 0 and 1 = CPUs 0,4 and 1,5; node 1 cores 2 and 3 = CPUs 2,6 and
 * 3,7; an L3 per node), where the launcher only simulates binding and tells each rank its CPUs,
 * and on this machine's own topology.
 */
class LocalityTest
{
    private static final String TOPOLOGY = "-Dshmpi.topology.file=src/test/resources/topology/two-numa-nodes.txt";

    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** The world ranks of {@code comm}'s members, in its rank order. */
    private static int[] worldRanks(final Comm comm)
    {
        final Group g = comm.getGroup();
        final Group world = MPI.COMM_WORLD.getGroup();
        final int[] ranks = new int[comm.getSize()];
        Arrays.setAll(ranks, i -> i);
        final int[] out = Group.translateRanks(g, ranks, world);
        g.free();
        world.free();
        return out;
    }

    /**
     * splitType(type) must give each rank the group of {@code groups} that holds it, ordered by
     * the key; the key is minus the world rank, so the order is descending.
     */
    private static void expectGroups(final int type, final int[][] groups)
    {
        final int me = MPI.COMM_WORLD.getRank();
        int[] expected = null;
        for (final int[] g : groups)
        {
            if (Arrays.stream(g).anyMatch(r -> r == me))
            {
                expected = Arrays.stream(g).boxed().sorted((a, b) -> b - a).mapToInt(Integer::intValue).toArray();
            }
        }
        final Intracomm split = MPI.COMM_WORLD.splitType(type, -me, null);
        assertArrayEquals(expected, worldRanks(split), "splitType " + type + " on rank " + me);
        split.free();
    }

    private static int[][] all(final int n)
    {
        final int[] all = new int[n];
        Arrays.setAll(all, i -> i);
        return new int[][] {all};
    }

    private static void expectCpus(final String... cpusByRank)
    {
        final int me = MPI.COMM_WORLD.getRank();
        assertEquals(cpusByRank[me], System.getProperty(Binding.RANK_CPUS_PROP_NAME), "placement of rank " + me);
    }

    /** 4 ranks fit the 4 cores: the default binds by core, ranks 0,1 on node 0 and 2,3 on node 1. */
    @MpiTest(np = {4}, shmrunArgs = {TOPOLOGY})
    void defaultPlacementByCore()
    {
        expectCpus("0", "1", "2", "3");
        expectGroups(Comm.TYPE_NUMA, new int[][] {{0, 1}, {2, 3}});
        expectGroups(Comm.TYPE_L3CACHE, new int[][] {{0, 1}, {2, 3}});
        expectGroups(Comm.TYPE_SOCKET, all(4));
        expectGroups(Comm.TYPE_CORE, new int[][] {{0}, {1}, {2}, {3}});
        expectGroups(Comm.TYPE_SHARED, all(4));
        // Already in node blocks: reorder keeps the order.
        final CartComm cart = MPI.COMM_WORLD.createCart(new int[] {1, 4}, new boolean[] {false, false}, true);
        assertEquals(MPI.COMM_WORLD.getRank(), cart.getRank());
        cart.free();
    }

    /** 6 ranks bound by core: the 5th and 6th take the second threads of cores 0 and 1. */
    @MpiTest(np = {6}, shmrunArgs = {TOPOLOGY, "--bind-to", "core"})
    void coreBindingSharesCores()
    {
        expectCpus("0", "1", "2", "3", "4", "5");
        expectGroups(Comm.TYPE_NUMA, new int[][] {{0, 1, 4, 5}, {2, 3}});
        expectGroups(Comm.TYPE_L3CACHE, new int[][] {{0, 1, 4, 5}, {2, 3}});
        expectGroups(Comm.TYPE_SOCKET, all(6));
        expectGroups(Comm.TYPE_CORE, new int[][] {{0, 4}, {1, 5}, {2}, {3}});
    }

    /**
     * Bound by NUMA node, round robin: even ranks on node 0, odd on node 1; each spans its node's
     * two cores, so by core the ranks group as by node. Reorder gives each node a block of rows.
     */
    @MpiTest(np = {4, 6}, shmrunArgs = {TOPOLOGY, "--bind-to", "numa"})
    void numaBindingAndReorder()
    {
        final int n = MPI.COMM_WORLD.getSize();
        final int me = MPI.COMM_WORLD.getRank();
        assertEquals(me % 2 == 0 ? "0-1,4-5" : "2-3,6-7", System.getProperty(Binding.RANK_CPUS_PROP_NAME));
        final int[] even = n == 4 ? new int[] {0, 2} : new int[] {0, 2, 4};
        final int[] odd = n == 4 ? new int[] {1, 3} : new int[] {1, 3, 5};
        expectGroups(Comm.TYPE_NUMA, new int[][] {even, odd});
        expectGroups(Comm.TYPE_CORE, new int[][] {even, odd});
        expectGroups(Comm.TYPE_L3CACHE, new int[][] {even, odd});
        expectGroups(Comm.TYPE_SOCKET, all(n));

        // A chain 1 x n and a grid 2 x n/2: node 0's processes take the first half of the grid
        // ranks, in rank order, node 1's the second half.
        for (final int[] dims : new int[][] {{1, n}, {2, n / 2}})
        {
            final boolean[] periods = {false, false};
            final CartComm plain = MPI.COMM_WORLD.createCart(dims, periods, false);
            final CartComm reordered = MPI.COMM_WORLD.createCart(dims, periods, true);
            assertEquals(me, plain.getRank());
            final int cutPlain = crossNodeNeighbours(plain);
            final int cutReordered = crossNodeNeighbours(reordered);
            if (dims[0] == 2 && n == 4)
            {
                // A 2 x 2 grid with alternating nodes: blocks of rows cut as many pairs as columns
                // do, so nothing moves.
                assertEquals(me, reordered.getRank(), Arrays.toString(dims));
                assertEquals(cutPlain, cutReordered);
            }
            else
            {
                assertEquals(me % 2 == 0 ? me / 2 : n / 2 + me / 2, reordered.getRank(), Arrays.toString(dims));
                assertTrue(cutReordered < cutPlain, Arrays.toString(dims) + ": plain " + cutPlain + ", reordered " +
                    cutReordered);
            }
            // Along a row (the last dimension), the right neighbour is on my node, except across
            // the boundary between the two nodes' blocks in the middle of the chain.
            final int right = reordered.shift(1, 1).getRankDest();
            final boolean boundary = dims[0] == 1 && reordered.getRank() == n / 2 - 1;
            if (right != MPI.PROC_NULL && !boundary && !(dims[0] == 2 && n == 4))
            {
                assertEquals(me % 2, worldRanks(reordered)[right] % 2, "right neighbour of " + me);
            }
            plain.free();
            reordered.free();
        }

        // A chain graph 0 - 1 - ... - n-1 with reorder: node 0's processes take the first half
        // of the chain, node 1's the second, so one edge crosses between nodes instead of n - 1.
        final int[] index = new int[n];
        final int[] edges = new int[2 * (n - 1)];
        for (int v = 0, e = 0; v < n; v++)
        {
            if (v > 0)
            {
                edges[e++] = v - 1;
            }
            if (v < n - 1)
            {
                edges[e++] = v + 1;
            }
            index[v] = e;
        }
        final GraphComm chain = MPI.COMM_WORLD.createGraph(index, edges, true);
        assertEquals(me % 2 == 0 ? me / 2 : n / 2 + me / 2, chain.getRank(), "graph rank after reorder");
        final int[] world = worldRanks(chain);
        int cut = 0;
        for (int v = 0; v + 1 < n; v++)
        {
            cut += world[v] % 2 != world[v + 1] % 2 ? 1 : 0;
        }
        assertEquals(1, cut, "chain edges between the two nodes");
        assertArrayEquals(new int[] {1}, chain.getNeighbors(0), "the topology is the one given");
        chain.free();
    }

    /** Neighbour pairs (each counted once, from its lower grid rank) on different nodes (world rank parity). */
    private static int crossNodeNeighbours(final CartComm cart)
    {
        final int[] world = worldRanks(cart);
        final int[] dims = new int[cart.getTopo().getDimCount()];
        Arrays.setAll(dims, d -> cart.getTopo().getDim(d));
        int cut = 0;
        for (int r = 0; r < world.length; r++)
        {
            final int[] coords = cart.getCoords(r);
            for (int d = 0; d < dims.length; d++)
            {
                if (coords[d] + 1 < dims[d])
                {
                    final int[] next = coords.clone();
                    next[d]++;
                    cut += world[r] % 2 != world[cart.getRank(next)] % 2 ? 1 : 0;
                }
            }
        }
        return cut;
    }

    /**
     * Not bound: every rank may run on all 8 CPUs, so it spans both nodes and all cores, and all
     * ranks form one group at every level; reorder changes nothing.
     */
    @MpiTest(np = {3}, shmrunArgs = {TOPOLOGY, "--bind-to", "none"})
    void unboundRanksGroupTogether()
    {
        expectCpus("0-7", "0-7", "0-7");
        for (final int type : new int[] {Comm.TYPE_NUMA, Comm.TYPE_SOCKET, Comm.TYPE_L3CACHE, Comm.TYPE_CORE})
        {
            expectGroups(type, all(3));
        }
        final CartComm cart = MPI.COMM_WORLD.createCart(new int[] {3}, new boolean[] {true}, true);
        assertEquals(MPI.COMM_WORLD.getRank(), cart.getRank());
        cart.free();
    }

    /** This machine's own topology; here one NUMA node and one package, so those give the whole job. */
    @MpiTest(np = {1, 2, 3})
    void realTopology()
    {
        final int n = MPI.COMM_WORLD.getSize();
        final int me = MPI.COMM_WORLD.getRank();
        final Topology machine = Topology.detect(System.getProperties());
        if (machine.numaNodeCount() == 1)
        {
            expectGroups(Comm.TYPE_NUMA, all(n));
        }
        if (machine.packageCount() == 1)
        {
            expectGroups(Comm.TYPE_SOCKET, all(n));
        }
        // By core: the ranks that span the same cores, as each one's placement says.
        final CpuSet mine = Binding.rankCpus(System.getProperties());
        final int cores = machine.domains(Topology.Level.CORE).size();
        final int[] myCores = new int[cores];
        for (final int c : machine.domainsSpanned(Topology.Level.CORE, mine))
        {
            myCores[c] = 1;
        }
        final int[][] coresOf = new int[n][];
        coresOf[me] = myCores;
        for (int k = 1; k < n; k++)
        {
            final int[] got = new int[cores];
            MPI.COMM_WORLD.sendRecv(myCores, cores, MPI.INT, (me + k) % n, 40,
                got, cores, MPI.INT, (me + n - k) % n, 40);
            coresOf[(me + n - k) % n] = got;
        }
        final int[] group = java.util.stream.IntStream.range(0, n)
            .filter(r -> Arrays.equals(coresOf[r], myCores)).toArray();
        final int[][] groups = {group};
        final Intracomm byCore = MPI.COMM_WORLD.splitType(Comm.TYPE_CORE, me, null);
        assertArrayEquals(groups[0], worldRanks(byCore));
        byCore.free();
        final CartComm cart = MPI.COMM_WORLD.createCart(new int[] {n}, new boolean[] {false}, true);
        assertEquals(me, cart.getRank(), "one node: reorder changes nothing");
        cart.free();
    }

    @MpiTest(np = {2})
    void undefinedAndUnknownTypes()
    {
        final Intracomm none = MPI.COMM_WORLD.splitType(MPI.UNDEFINED, 0, null);
        assertTrue(none.isNull());
        final MPIException bad = assertThrows(MPIException.class, () -> MPI.COMM_WORLD.splitType(99, 0, null));
        assertEquals(MPI.ERR_ARG, bad.getErrorClass());
        assertTrue(bad.getMessage().contains("splitType=99"), bad.getMessage());
        assertEquals(7, Comm.TYPE_NUMA);
        assertEquals(6, Comm.TYPE_SOCKET);
        assertEquals(5, Comm.TYPE_L3CACHE);
        assertEquals(2, Comm.TYPE_CORE);
    }
}
