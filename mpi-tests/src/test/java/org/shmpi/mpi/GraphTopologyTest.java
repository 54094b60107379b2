package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Graph ({@code MPI_GRAPH}) and distributed-graph ({@code MPI_DIST_GRAPH}) topologies: every
 * rank's view checked against tables built from the MPI definitions, traffic along the neighbour
 * lists, dups, null communicators for ranks outside the graph, and each bad argument's error class.
 */
@MpiTest(np = {1, 2, 3, 4, 6})
class GraphTopologyTest
{
    @BeforeEach
    void errorsReturn()
    {
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
    }

    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    // ------------------------------------------------------------------------------------------
    // Tables from the definitions

    /** MPI_GRAPH_CREATE's {@code index}: {@code index[i]} is the degree of nodes 0 to i summed. */
    private static int[] indexOf(final int[][] adjacency)
    {
        final int[] index = new int[adjacency.length];
        int sum = 0;
        for (int i = 0; i < adjacency.length; i++)
        {
            sum += adjacency[i].length;
            index[i] = sum;
        }
        return index;
    }

    /** MPI_GRAPH_CREATE's {@code edges}: the adjacency lists one after the other. */
    private static int[] edgesOf(final int[][] adjacency)
    {
        return Arrays.stream(adjacency).flatMapToInt(Arrays::stream).toArray();
    }

    /** Node i's neighbours are i - 1 and i + 1 around a ring of {@code n}. */
    private static int[][] ring(final int n)
    {
        final int[][] a = new int[n][];
        for (int i = 0; i < n; i++)
        {
            a[i] = new int[] {(i + n - 1) % n, (i + 1) % n};
        }
        return a;
    }

    /** Node 0 is joined to every other node; each other node to 0 only. */
    private static int[][] star(final int n)
    {
        final int[][] a = new int[n][];
        a[0] = new int[n - 1];
        for (int i = 1; i < n; i++)
        {
            a[0][i - 1] = i;
            a[i] = new int[] {0};
        }
        return a;
    }

    /**
     * Sends {@code me * 1000 + weight} along each out-edge and receives along each in-edge, the
     * receives posted in in-edge order; each must hold {@code source * 1000 + weight}.
     */
    private static void trafficAlongEdges(final Comm comm, final DistGraphNeighbors nb, final int tag)
    {
        final int me = comm.getRank();
        final List<Request> requests = new ArrayList<>();
        final int[][] got = new int[nb.getInDegree()][1];
        for (int i = 0; i < nb.getInDegree(); i++)
        {
            got[i][0] = -1;
            requests.add(comm.iRecv(got[i], 1, MPI.INT, nb.getSource(i), tag));
        }
        for (int i = 0; i < nb.getOutDegree(); i++)
        {
            requests.add(comm.iSend(new int[] {me * 1000 + nb.getDestinationWeight(i)}, 1, MPI.INT,
                nb.getDestination(i), tag));
        }
        Request.waitAll(requests.toArray(new Request[0]));
        for (int i = 0; i < nb.getInDegree(); i++)
        {
            assertEquals(nb.getSource(i) * 1000 + nb.getSourceWeight(i), got[i][0], "in-edge " + i + " from " +
                nb.getSource(i));
        }
    }

    /** Every rank's view of a graph communicator over the whole world against {@code adjacency}. */
    private static void checkGraph(final GraphComm g, final int[][] adjacency)
    {
        final int me = MPI.COMM_WORLD.getRank();
        assertFalse(g.isNull());
        assertEquals(adjacency.length, g.getSize());
        assertEquals(me, g.getRank(), "reorder is not acted on: ranks keep their order");
        assertEquals(MPI.GRAPH, g.getTopology());
        final GraphParms p = g.getDims();
        final int[] index = indexOf(adjacency);
        final int[] edges = edgesOf(adjacency);
        assertEquals(index.length, p.getIndexCount());
        for (int i = 0; i < index.length; i++)
        {
            assertEquals(index[i], p.getIndex(i), "index[" + i + "]");
        }
        assertEquals(edges.length, p.getEdgeCount());
        for (int i = 0; i < edges.length; i++)
        {
            assertEquals(edges[i], p.getEdge(i), "edges[" + i + "]");
        }
        for (int r = 0; r < adjacency.length; r++)
        {
            assertArrayEquals(adjacency[r], g.getNeighbors(r), "neighbours of " + r);
        }
        // MPI_DIST_GRAPH_NEIGHBORS on a graph: the neighbours are sources and destinations alike.
        final DistGraphNeighbors nb = g.getDistGraphNeighbors();
        assertFalse(nb.isWeighted());
        assertEquals(adjacency[me].length, nb.getInDegree());
        assertEquals(adjacency[me].length, nb.getOutDegree());
        for (int i = 0; i < adjacency[me].length; i++)
        {
            assertEquals(adjacency[me][i], nb.getSource(i));
            assertEquals(adjacency[me][i], nb.getDestination(i));
            assertEquals(1, nb.getSourceWeight(i));
        }
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class, () -> g.getNeighbors(adjacency.length))
            .getErrorClass());
        assertEquals(MPI.ERR_RANK, assertThrows(MPIException.class, () -> g.getNeighbors(-1)).getErrorClass());
        // Both graphs are symmetric, so each neighbour sends as many messages as it receives.
        trafficAlongEdges(g, nb, 21);
    }

    private static void checkNeighbours(final DistGraphNeighbors nb, final boolean weighted, final int[][] in,
        final int[][] out)
    {
        assertEquals(weighted, nb.isWeighted());
        assertEquals(in.length, nb.getInDegree(), "indegree");
        assertEquals(out.length, nb.getOutDegree(), "outdegree");
        for (int i = 0; i < in.length; i++)
        {
            assertEquals(in[i][0], nb.getSource(i), "source " + i);
            assertEquals(in[i][1], nb.getSourceWeight(i), "source weight " + i);
        }
        for (int i = 0; i < out.length; i++)
        {
            assertEquals(out[i][0], nb.getDestination(i), "destination " + i);
            assertEquals(out[i][1], nb.getDestinationWeight(i), "destination weight " + i);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Graphs

    @Test
    void ringAndStarGraphs()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        assertEquals(MPI.UNDEFINED, world.getTopology());
        for (final int[][] adjacency : new int[][][] {ring(n), star(n)})
        {
            final GraphComm g = world.createGraph(indexOf(adjacency), edgesOf(adjacency), false);
            checkGraph(g, adjacency);
            g.free();
            assertTrue(g.isNull());
        }
    }

    @Test
    void graphOnFewerNodesGivesNullOnTheOthers()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        for (int nnodes = 0; nnodes <= n; nnodes++)
        {
            final int[][] adjacency = nnodes == 0 ? new int[0][] : ring(nnodes);
            // Extra entries past index[nnodes - 1] are ignored.
            final int[] edges = Arrays.copyOf(edgesOf(adjacency), edgesOf(adjacency).length + 3);
            final GraphComm g = world.createGraph(indexOf(adjacency), edges, true);
            assertEquals(me >= nnodes, g.isNull(), "nnodes=" + nnodes);
            if (!g.isNull())
            {
                assertEquals(nnodes, g.getSize());
                assertEquals(me, g.getRank());
                assertEquals(MPI.GRAPH, g.getTopology());
                assertEquals(2 * nnodes, g.getDims().getEdgeCount());
                trafficAlongEdges(g, g.getDistGraphNeighbors(), 22);
                g.free();
            }
            else
            {
                assertEquals(MPI.ERR_COMM, assertThrows(MPIException.class, g::getSize).getErrorClass());
            }
        }
    }

    @Test
    void graphMap()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final GraphComm g = world.createGraph(indexOf(star(n)), edgesOf(star(n)), false);
        for (int nnodes = 0; nnodes <= n; nnodes++)
        {
            final int[][] adjacency = nnodes == 0 ? new int[0][] : ring(nnodes);
            assertEquals(me < nnodes ? me : MPI.UNDEFINED, g.map(indexOf(adjacency), edgesOf(adjacency)),
                "nnodes=" + nnodes);
        }
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class,
            () -> g.map(new int[n + 1], new int[0])).getErrorClass());
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class,
            () -> g.map(new int[] {1}, new int[] {1})).getErrorClass());
        assertEquals(MPI.ERR_ARG, assertThrows(MPIException.class, () -> g.map(null, new int[0])).getErrorClass());
        g.free();
    }

    @Test
    void dupKeepsTheTopology()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int[][] star = star(n);
        final GraphComm g = world.createGraph(indexOf(star), edgesOf(star), false);
        final GraphComm d = g.dup();
        assertEquals(MPI.CONGRUENT, Comm.compare(g, d));
        assertEquals(MPI.ERRORS_RETURN, d.getErrhandler());
        checkGraph(d, star);
        final GraphComm c = g.clone();
        checkGraph(c, star);
        final Info hints = new Info();
        hints.set("k", "v");
        final GraphComm i = g.dupWithInfo(hints);
        hints.free();
        assertEquals("v", i.getInfo().get("k"));
        checkGraph(i, star);
        for (final GraphComm x : new GraphComm[] {d, c, i, g})
        {
            x.free();
        }

        final GraphComm dist = world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {(me + 1) % n},
            new int[] {me + 5}, MPI.INFO_NULL, false);
        final GraphComm dd = dist.dup();
        assertEquals(MPI.DIST_GRAPH, dd.getTopology());
        checkNeighbours(dd.getDistGraphNeighbors(), true, new int[][] {{(me + n - 1) % n, (me + n - 1) % n + 5}},
            new int[][] {{(me + 1) % n, me + 5}});
        trafficAlongEdges(dd, dd.getDistGraphNeighbors(), 23);
        dd.free();
        dist.free();
    }

    // ------------------------------------------------------------------------------------------
    // Distributed graphs

    /**
     * Each rank r declares r -> r + 1 (weight 10r + 1) and r -> r + 2 (weight 10r + 2), modulo n.
     * Neighbour order (documented): every rank's edges concatenated in rank order.
     */
    @Test
    void distGraphFromEachRanksOwnEdges()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final GraphComm g = world.createDistGraph(new int[] {me}, new int[] {2}, new int[] {(me + 1) % n, (me + 2) % n},
            new int[] {10 * me + 1, 10 * me + 2}, MPI.INFO_NULL, false);
        assertEquals(MPI.DIST_GRAPH, g.getTopology());
        assertEquals(n, g.getSize());
        assertEquals(me, g.getRank());
        final List<int[]> in = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            if ((r + 1) % n == me)
            {
                in.add(new int[] {r, 10 * r + 1});
            }
            if ((r + 2) % n == me)
            {
                in.add(new int[] {r, 10 * r + 2});
            }
        }
        checkNeighbours(g.getDistGraphNeighbors(), true, in.toArray(new int[0][]),
            new int[][] {{(me + 1) % n, 10 * me + 1}, {(me + 2) % n, 10 * me + 2}});
        trafficAlongEdges(g, g.getDistGraphNeighbors(), 31);
        assertEquals(MPI.ERR_TOPOLOGY, assertThrows(MPIException.class, g::getDims).getErrorClass());
        assertEquals(MPI.ERR_TOPOLOGY, assertThrows(MPIException.class, () -> g.getNeighbors(0)).getErrorClass());
        g.free();
    }

    /** Rank 0 declares a whole ring, with edges in reverse order; the others declare nothing. Unweighted. */
    @Test
    void distGraphDeclaredByOneRank()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int[] sources = new int[me == 0 ? n : 0];
        final int[] degrees = new int[sources.length];
        final int[] destinations = new int[sources.length];
        for (int i = 0; i < sources.length; i++)
        {
            sources[i] = n - 1 - i;
            degrees[i] = 1;
            destinations[i] = (n - i) % n;
        }
        final GraphComm g = world.createDistGraph(sources, degrees, destinations, null, false);
        assertEquals(MPI.DIST_GRAPH, g.getTopology());
        checkNeighbours(g.getDistGraphNeighbors(), false, new int[][] {{(me + n - 1) % n, 1}},
            new int[][] {{(me + 1) % n, 1}});
        trafficAlongEdges(g, g.getDistGraphNeighbors(), 32);
        g.free();

        // Every rank declares the edges into itself, one source with two destinations in a list.
        final GraphComm h = world.createDistGraph(new int[] {(me + n - 1) % n, me}, new int[] {1, 0},
            new int[] {me}, MPI.INFO_NULL, true);
        checkNeighbours(h.getDistGraphNeighbors(), false, new int[][] {{(me + n - 1) % n, 1}},
            new int[][] {{(me + 1) % n, 1}});
        h.free();
    }

    /** A two-way ring, weight of a -> b being 7a + b + 1, each rank giving its lists in its own order. */
    @Test
    void distGraphAdjacentWeightedAndUnweighted()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int next = (me + 1) % n;
        final int prev = (me + n - 1) % n;
        final int[] sources = {prev, next};
        final int[] sourceWeights = {7 * prev + me + 1, 7 * next + me + 1};
        final int[] destinations = {next, prev};
        final int[] destWeights = {7 * me + next + 1, 7 * me + prev + 1};
        final GraphComm g = world.createDistGraphAdjacent(sources, sourceWeights, destinations, destWeights,
            MPI.INFO_NULL, false);
        assertEquals(MPI.DIST_GRAPH, g.getTopology());
        checkNeighbours(g.getDistGraphNeighbors(), true,
            new int[][] {{prev, sourceWeights[0]}, {next, sourceWeights[1]}},
            new int[][] {{next, destWeights[0]}, {prev, destWeights[1]}});
        trafficAlongEdges(g, g.getDistGraphNeighbors(), 41);
        g.free();

        // Unweighted, out-neighbours in an order unlike the in-neighbours'.
        final int after = (me + 2) % n;
        final int before = (me + n - 2) % n;
        final GraphComm u = world.createDistGraphAdjacent(new int[] {before, prev}, new int[] {next, after},
            new Info(), true);
        checkNeighbours(u.getDistGraphNeighbors(), false, new int[][] {{before, 1}, {prev, 1}},
            new int[][] {{next, 1}, {after, 1}});
        assertEquals(MPI.ERR_TOPOLOGY, assertThrows(MPIException.class, u::getDims).getErrorClass());
        u.free();
    }

    // ------------------------------------------------------------------------------------------
    // Errors

    private static void expectClass(final int errorClass, final Executable call)
    {
        assertEquals(errorClass, assertThrows(MPIException.class, call).getErrorClass());
    }

    @Test
    void badGraphArguments()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        expectClass(MPI.ERR_ARG, () -> world.createGraph(null, new int[0], false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {0}, null, false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[n + 1], new int[0], false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {-1}, new int[0], false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {1}, new int[] {1}, false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {1}, new int[] {-1}, false));
        expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {2}, new int[] {0}, false));
        if (n >= 2)
        {
            expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {2, 1}, new int[] {1, 0}, false));
            // Only rank 0 gives a bad edge: every rank gets the error.
            expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {1, 2}, new int[] {1, me == 0 ? 2 : 0}, false));
            // The members disagree on the graph.
            expectClass(MPI.ERR_ARG, () -> world.createGraph(new int[] {1, 2}, new int[] {1, me == n - 1 ? 1 : 0},
                false));
        }
        // The world still works and a good graph can still be made.
        final GraphComm g = world.createGraph(indexOf(ring(n)), edgesOf(ring(n)), false);
        checkGraph(g, ring(n));
        g.free();
    }

    @Test
    void badDistGraphArguments()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int next = (me + 1) % n;
        final Info none = MPI.INFO_NULL;
        // Ranks outside the communicator, on rank 0 only: all get ERR_RANK.
        expectClass(MPI.ERR_RANK, () -> world.createDistGraph(new int[] {me}, new int[] {1},
            new int[] {me == 0 ? n : next}, none, false));
        expectClass(MPI.ERR_RANK, () -> world.createDistGraph(new int[] {me == 0 ? -1 : me}, new int[] {1},
            new int[] {next}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me}, new int[] {-1}, new int[0], none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me, me}, new int[] {1}, new int[] {next, next},
            none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me}, new int[] {2}, new int[] {next}, none,
            false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(null, new int[0], new int[0], none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {next},
            new int[] {me == 0 ? -1 : 1}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me}, new int[] {2}, new int[] {next, next},
            new int[] {1}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {next},
            null, none, false));
        if (n >= 2)
        {
            // Weights on rank 0 only (MPI_UNWEIGHTED on the others).
            expectClass(MPI.ERR_ARG, () ->
            {
                if (me == 0)
                {
                    world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {next}, new int[] {1}, none, false);
                }
                else
                {
                    world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {next}, none, false);
                }
            });
        }
        final GraphComm g = world.createDistGraph(new int[] {me}, new int[] {1}, new int[] {next}, none, false);
        checkNeighbours(g.getDistGraphNeighbors(), false, new int[][] {{(me + n - 1) % n, 1}},
            new int[][] {{next, 1}});
        g.free();
    }

    @Test
    void badDistGraphAdjacentArguments()
    {
        final Intracomm world = MPI.COMM_WORLD;
        final int n = world.getSize();
        final int me = world.getRank();
        final int next = (me + 1) % n;
        final int prev = (me + n - 1) % n;
        final Info none = MPI.INFO_NULL;
        // An out-edge its destination does not declare as an in-edge.
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(new int[0], new int[] {next}, none, false));
        // Only rank 0 declares its in-edge.
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(me == 0 ? new int[] {prev} : new int[0],
            new int[0], none, false));
        // The two ends give an edge different weights.
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(new int[] {prev}, new int[] {1},
            new int[] {next}, new int[] {2}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(new int[] {prev}, new int[] {-1},
            new int[] {next}, new int[] {-1}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(new int[] {prev}, new int[0],
            new int[] {next}, new int[] {1}, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(new int[] {prev}, null,
            new int[] {next}, null, none, false));
        expectClass(MPI.ERR_ARG, () -> world.createDistGraphAdjacent(null, new int[] {next}, none, false));
        expectClass(MPI.ERR_RANK, () -> world.createDistGraphAdjacent(new int[] {prev},
            new int[] {me == 0 ? n : next}, none, false));
        expectClass(MPI.ERR_RANK, () -> world.createDistGraphAdjacent(new int[] {me == 0 ? -5 : prev},
            new int[] {next}, none, false));
        final GraphComm g = world.createDistGraphAdjacent(new int[] {prev}, new int[] {next}, none, false);
        trafficAlongEdges(g, g.getDistGraphNeighbors(), 42);
        g.free();
    }
}
