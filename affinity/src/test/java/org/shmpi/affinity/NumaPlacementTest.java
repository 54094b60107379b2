package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NumaPlacementTest
{
    private static int[] identity(final int n)
    {
        final int[] id = new int[n];
        Arrays.setAll(id, i -> i);
        return id;
    }

    /** Node of each process when the launcher deals processes to nodes round robin (--bind-to numa). */
    private static int[] roundRobin(final int processes, final int nodes)
    {
        final int[] node = new int[processes];
        Arrays.setAll(node, p -> p % nodes);
        return node;
    }

    private static void assertPermutation(final int[] perm)
    {
        final int[] sorted = perm.clone();
        Arrays.sort(sorted);
        assertArrayEquals(identity(perm.length), sorted, "not a permutation: " + Arrays.toString(perm));
    }

    /** The nodes of the new ranks, in new-rank order. */
    private static int[] nodesOfRanks(final int[] nodeOfProcess, final int[] processOfRank)
    {
        final int[] nodes = new int[processOfRank.length];
        for (int r = 0; r < nodes.length; r++)
        {
            nodes[r] = nodeOfProcess[processOfRank[r]];
        }
        return nodes;
    }

    @Test
    void cartesianGraphHasOneEdgePerNeighbourPair()
    {
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {3, 4}, new boolean[] {false, false});
        assertEquals(12, g.size());
        assertEquals(1, g.weight(0, 1));
        assertEquals(1, g.weight(0, 4));
        assertEquals(0, g.weight(0, 5));
        assertEquals(0, g.weight(3, 4)); // no wrap along a row
        // 3 rows of 3 horizontal edges, 2 row gaps of 4 vertical edges.
        assertEquals(17, countEdges(g));
        final NumaPlacement.Graph torus = NumaPlacement.cartesian(new int[] {2, 3}, new boolean[] {true, true});
        assertEquals(2, torus.weight(0, 3)); // periodic dimension of 2: both directions
        assertEquals(1, torus.weight(0, 2)); // wrap along a row of 3
    }

    private static long countEdges(final NumaPlacement.Graph g)
    {
        final int[] node = identity(g.size()); // every rank alone: every edge is cut
        return NumaPlacement.cutWeight(node, identity(g.size()), g);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5, 16})
    void oneNodeChangesNothing(final int n)
    {
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {n}, new boolean[] {true});
        assertArrayEquals(identity(n), NumaPlacement.place(new int[n], g));
        final int[] allOnSeven = new int[n];
        Arrays.fill(allOnSeven, 7);
        assertArrayEquals(identity(n), NumaPlacement.place(allOnSeven, g));
    }

    @Test
    void blockPlacementIsAlreadyBestAndKept()
    {
        // Ranks 0-7 on node 0, 8-15 on node 1, as the launcher places by core: rows stay.
        final int[] node = new int[16];
        Arrays.fill(node, 8, 16, 1);
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {4, 4}, new boolean[] {false, false});
        assertArrayEquals(identity(16), NumaPlacement.place(node, g));
    }

    @Test
    void twoNodesRoundRobinGetRowBlocks()
    {
        final int[] node = roundRobin(16, 2);
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {4, 4}, new boolean[] {false, false});
        final long before = NumaPlacement.cutWeight(node, identity(16), g);
        final int[] perm = NumaPlacement.place(node, g);
        assertPermutation(perm);
        final long after = NumaPlacement.cutWeight(node, perm, g);
        // Alternating nodes cut every horizontal edge (12) and no vertical one; two row blocks cut 4.
        assertEquals(12, before);
        assertEquals(4, after);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, nodesOfRanks(node, perm));
        // Processes keep their order inside a node: node 0's even processes take ranks 0-7.
        assertArrayEquals(new int[] {0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}, perm);
    }

    @Test
    void fourNodesRoundRobinGetTwoRowsEach()
    {
        final int[] node = roundRobin(16, 4);
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {8, 2}, new boolean[] {false, false});
        final long before = NumaPlacement.cutWeight(node, identity(16), g);
        final int[] perm = NumaPlacement.place(node, g);
        assertPermutation(perm);
        final long after = NumaPlacement.cutWeight(node, perm, g);
        // Round robin over 4 nodes cuts all 14 vertical edges and the 8 horizontal ones; blocks
        // of two rows cut only the 2 vertical edges at each of the 3 block boundaries.
        assertEquals(22, before);
        assertEquals(6, after);
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, nodesOfRanks(node, perm));
    }

    @Test
    void fourNodesOfUnequalSizeOnAThreeDimensionalGrid()
    {
        // 24 processes on 4 nodes of 8, 8, 4 and 4, scattered; a 2x3x4 grid.
        final int[] node = new int[24];
        final int[] sizes = {8, 8, 4, 4};
        int p = 0;
        for (int round = 0; p < 24; round++)
        {
            for (int k = 0; k < 4 && p < 24; k++)
            {
                if (round < sizes[k])
                {
                    node[p++] = k;
                }
            }
        }
        final NumaPlacement.Graph g = NumaPlacement.cartesian(new int[] {2, 3, 4}, new boolean[] {false, false, false});
        final long before = NumaPlacement.cutWeight(node, identity(24), g);
        final int[] perm = NumaPlacement.place(node, g);
        assertPermutation(perm);
        final long after = NumaPlacement.cutWeight(node, perm, g);
        assertTrue(after < before, "before=" + before + ", after=" + after);
        final int[] count = new int[4];
        for (final int n : nodesOfRanks(node, perm))
        {
            count[n]++;
        }
        assertArrayEquals(sizes, count);
    }

    @Test
    void neverWorseThanIdentity()
    {
        // A ring where nodes already hold contiguous arcs: the greedy could not beat it; kept.
        final int[] node = {0, 0, 0, 1, 1, 1};
        final NumaPlacement.Graph ring = NumaPlacement.cartesian(new int[] {6}, new boolean[] {true});
        assertArrayEquals(identity(6), NumaPlacement.place(node, ring));
        // Random labels on random graphs: the cut never grows.
        final java.util.Random random = new java.util.Random(42);
        for (int trial = 0; trial < 200; trial++)
        {
            final int n = 1 + random.nextInt(20);
            final int[] labels = new int[n];
            Arrays.setAll(labels, i -> random.nextInt(3) - 1); // -1: a process bound to no single node
            final NumaPlacement.Graph g = new NumaPlacement.Graph(n);
            for (int e = 0; e < 2 * n; e++)
            {
                g.addEdge(random.nextInt(n), random.nextInt(n), 1 + random.nextInt(5));
            }
            final int[] perm = NumaPlacement.place(labels, g);
            assertPermutation(perm);
            assertTrue(NumaPlacement.cutWeight(labels, perm, g) <= NumaPlacement.cutWeight(labels, identity(n), g));
        }
    }

    @Test
    void badInputSaysWhat()
    {
        final IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
            () -> NumaPlacement.place(new int[3], new NumaPlacement.Graph(4)));
        assertEquals("graph and processes differ in size: vertices=4, processes=3", size.getMessage());
        final IllegalArgumentException weight = assertThrows(IllegalArgumentException.class,
            () -> new NumaPlacement.Graph(2).addEdge(0, 1, 0));
        assertEquals("weight must be positive: a=0, b=1, weight=0", weight.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new NumaPlacement.Graph(2).addEdge(0, 2, 1));
        assertThrows(IllegalArgumentException.class,
            () -> NumaPlacement.cartesian(new int[] {2, 0}, new boolean[] {false, false}));
    }
}
