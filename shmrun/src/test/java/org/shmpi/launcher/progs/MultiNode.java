package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.util.Arrays;

import mpi.Comm;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Status;

/**
 * A rank program for jobs spread over several nodes: the first argument picks what it does.
 * {@code all} checks point-to-point at every size from arrays and direct buffers, ANY_SOURCE,
 * a derived datatype, every collective the node-aware layer serves, split and {@code splitType}
 * (TYPE_SHARED must give exactly the ranks of this node, named by {@code SHMPI_NODE} or
 * {@code SLURM_NODEID}); it prints one {@code MULTINODE OK} line per rank. {@code die R}: rank R
 * kills itself (SIGKILL) while the others run allreduces forever. {@code throw R}: rank R throws
 * out of main. {@code io-across PATH}: every MPI-IO call on a file opened on COMM_WORLD across the
 * nodes ({@code MULTINODE IO-ACROSS OK} per rank).
 */
public final class MultiNode
{
    private MultiNode()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String delay = System.getenv("SHMPI_TEST_DELAY");
        if (delay != null)
        {
            // Comes late to the job (the tests let a stranger knock meanwhile).
            Thread.sleep(Long.parseLong(delay) * 1000);
        }
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int rank = world.getRank();
        final int size = world.getSize();
        final String mode = args.length > 0 ? args[0] : "all";
        if (mode.equals("die") || mode.equals("throw"))
        {
            final int target = Integer.parseInt(args[1]);
            final int[] one = {1};
            final int[] sum = new int[1];
            for (long i = 0; ; i++)
            {
                world.allReduce(one, sum, 1, MPI.INT, MPI.SUM);
                if (i == 200 && rank == target)
                {
                    System.out.println("rank " + rank + " ends itself now");
                    System.out.flush();
                    if (mode.equals("die"))
                    {
                        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start();
                        Thread.sleep(60_000);
                    }
                    throw new IllegalStateException("rank " + rank + " gives up on purpose");
                }
            }
        }
        if (mode.equals("node-aware"))
        {
            // Barrier, bcast and allreduce over nodes of two or more ranks: only the nodes' first
            // ranks send between nodes (MultiNodeIT checks what each rank prints).
            final int[] nodeOf = new int[size];
            world.allGather(new int[] {Integer.parseInt(System.getenv().getOrDefault("SHMPI_NODE", "0"))}, 1,
                MPI.INT, nodeOf, 1, MPI.INT);
            // The first collective makes the levels (two splits, messages of their own).
            world.barrier();
            final mpi.PeerCounters before = world.getPeerCounters();
            final long[] sentBefore = new long[size];
            for (int r = 0; r < size; r++)
            {
                sentBefore[r] = before.messagesSent(r);
            }
            final double[] v = {rank};
            for (int i = 0; i < 50; i++)
            {
                world.barrier();
                world.bcast(v, 1, MPI.DOUBLE, i % size);
                world.allReduce(new double[] {rank}, v, 1, MPI.DOUBLE, MPI.SUM);
                check(v[0] == size * (size - 1) / 2.0, "allreduce " + v[0]);
                final int[] all = new int[2 * size];
                world.allGather(new int[] {rank, i}, 2, MPI.INT, all, 2, MPI.INT);
                check(all[2 * (size - 1)] == size - 1 && all[2 * size - 1] == i, "allgather " + i);
                final int[] at = new int[2 * size];
                world.gather(new int[] {rank, -i}, 2, MPI.INT, at, 2, MPI.INT, (i + 1) % size);
                check(rank != (i + 1) % size || at[2 * (size - 1)] == size - 1 && at[1] == -i, "gather " + i);
                final double[] max = new double[1];
                world.reduce(new double[] {rank + i}, max, 1, MPI.DOUBLE, MPI.MAX, (i + 2) % size);
                check(rank != (i + 2) % size || max[0] == size - 1 + i, "reduce " + i + ": " + max[0]);
                final int[] piece = new int[2];
                world.scatter(all, 2, MPI.INT, piece, 2, MPI.INT, (i + 3) % size);
                check(piece[0] == rank && piece[1] == i, "scatter " + i + ": " + piece[0] + "," + piece[1]);
                final int[] to = new int[size];
                final int[] from = new int[size];
                for (int d = 0; d < size; d++)
                {
                    to[d] = rank * 1000 + d + i;
                }
                world.allToAll(to, 1, MPI.INT, from, 1, MPI.INT);
                for (int src = 0; src < size; src++)
                {
                    check(from[src] == src * 1000 + rank + i, "alltoall " + i + " from " + src + ": " + from[src]);
                }
            }
            final mpi.PeerCounters after = world.getPeerCounters();
            long across = 0;
            long within = 0;
            for (int r = 0; r < size; r++)
            {
                final long sent = after.messagesSent(r) - sentBefore[r];
                if (nodeOf[r] == nodeOf[rank])
                {
                    within += sent;
                }
                else
                {
                    across += sent;
                }
            }
            System.out.println("NODE-AWARE rank " + rank + " across " + across + " within " + within);
            MPI.Finalize();
            return;
        }
        if (mode.equals("ports"))
        {
            // Halves on both nodes (even and odd world ranks) joined through a port.
            final Intracomm half = world.split(rank % 2, rank);
            // The port travels through the name service: published on the last node, looked up
            // by every rank (on the first node from the files, on the others through rank 0).
            world.setErrhandler(MPI.ERRORS_RETURN);
            final String service = "multinode-ports-" + args[1];
            String port = null;
            if (rank == 0)
            {
                port = Intracomm.openPort();
            }
            final char[] name = new char[MPI.MAX_PORT_NAME];
            final int[] len = {port == null ? 0 : port.length()};
            if (port != null)
            {
                port.getChars(0, port.length(), name, 0);
            }
            world.bcast(len, 1, MPI.INT, 0);
            world.bcast(name, len[0], MPI.CHAR, 0);
            if (rank == size - 1)
            {
                Intracomm.publishName(service, new String(name, 0, len[0]));
                try
                {
                    Intracomm.publishName(service, "another");
                    throw new AssertionError("published twice");
                }
                catch (final mpi.MPIException ex)
                {
                    check(ex.getErrorClass() == MPI.ERR_SERVICE, "second publish: " + ex);
                }
            }
            world.barrier();
            final String known = Intracomm.lookupName(service);
            check(known.equals(new String(name, 0, len[0])), "looked up " + known);
            world.barrier();
            if (rank == 0)
            {
                try
                {
                    Intracomm.unpublishName(service, known);
                    throw new AssertionError("unpublished another rank's name");
                }
                catch (final mpi.MPIException ex)
                {
                    check(ex.getErrorClass() == MPI.ERR_SERVICE, "unpublish by another: " + ex);
                }
            }
            world.barrier();
            if (rank == size - 1)
            {
                Intracomm.unpublishName(service, known);
            }
            world.barrier();
            try
            {
                Intracomm.lookupName(service);
                throw new AssertionError("found an unpublished name");
            }
            catch (final mpi.MPIException ex)
            {
                check(ex.getErrorClass() == MPI.ERR_NAME, "lookup after unpublish: " + ex);
            }
            final mpi.Intercomm ic = rank % 2 == 0 ? half.accept(known, 0) : half.connect(known, 0);
            final int[] sum = new int[1];
            ic.allReduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM);
            int expect = 0;
            for (int r = rank % 2 == 0 ? 1 : 0; r < size; r += 2)
            {
                expect += r;
            }
            check(sum[0] == expect, "allReduce over the port's intercommunicator: " + sum[0] + " != " + expect);
            final int[] got = new int[1];
            if (ic.getRank() < ic.getRemoteSize())
            {
                ic.sendRecv(new int[] {rank}, 1, MPI.INT, ic.getRank(), 3, got, 1, MPI.INT, ic.getRank(), 3);
                check(got[0] == (rank % 2 == 0 ? rank + 1 : rank - 1), "p2p over the port: " + got[0]);
            }
            ic.disconnect();
            if (rank == 0)
            {
                Intracomm.closePort(port);
            }
            half.free();
            System.out.println("MULTINODE PORTS OK rank " + rank);
            MPI.Finalize();
            return;
        }
        if (mode.equals("rma-io"))
        {
            // Windows across nodes go by messages; a shared window across nodes is refused on every
            // rank; within a node, windows and files take shared memory.
            world.setErrhandler(MPI.ERRORS_RETURN);
            rma(world, rank, size);
            rmaSynchronisation(world, rank, size);
            try
            {
                new mpi.Win(64, 1, MPI.INFO_NULL, world, MPI.newByteBuffer(64), mpi.Win.FLAVOR_SHARED);
                throw new AssertionError("a shared window was made across nodes");
            }
            catch (final mpi.MPIException ex)
            {
                check(ex.getErrorClass() == MPI.ERR_RMA_SHARED, "shared window across nodes: " + ex);
            }
            final Intracomm node = world.splitType(Comm.TYPE_SHARED, rank, null);
            rma(node, node.getRank(), node.getSize());
            io(node, node.getRank(), node.getSize(), args[1] + "-" + System.getenv().getOrDefault("SHMPI_NODE", "0"));
            node.free();
            world.barrier();
            System.out.println("MULTINODE RMA-IO OK rank " + rank);
            MPI.Finalize();
            return;
        }
        if (mode.equals("io-across"))
        {
            // A file opened on COMM_WORLD, whose ranks run on several nodes: every MPI-IO call as on one node.
            world.setErrhandler(MPI.ERRORS_RETURN);
            ioAcross(world, rank, size, args[1]);
            world.barrier();
            System.out.println("MULTINODE IO-ACROSS OK rank " + rank);
            MPI.Finalize();
            return;
        }
        pointToPoint(world, rank, size);
        collectives(world, rank, size);
        // The launcher's word for the node; under mpirun (none), the host's name stands for it.
        final String given = System.getenv().getOrDefault("SHMPI_NODE", System.getenv("SLURM_NODEID"));
        final int node = given != null ? Integer.parseInt(given) : MPI.getProcessorName().hashCode() & 0x7FFFFFFF;
        final Intracomm shared = world.splitType(Comm.TYPE_SHARED, rank, null);
        final int[] nodes = new int[shared.getSize()];
        shared.allGather(new int[] {node}, 1, MPI.INT, nodes, 1, MPI.INT);
        for (final int n : nodes)
        {
            check(n == node, "TYPE_SHARED mixes nodes: " + Arrays.toString(nodes) + " on node " + node);
        }
        final int[] perNode = new int[size];
        world.allGather(new int[] {node}, 1, MPI.INT, perNode, 1, MPI.INT);
        check(shared.getSize() == Arrays.stream(perNode).filter(n -> n == node).count(),
            "TYPE_SHARED has " + shared.getSize() + " ranks, node " + node + " has " + Arrays.toString(perNode));
        // Collectives inside a node-local communicator take shared memory.
        final int[] localSum = new int[1];
        shared.allReduce(new int[] {rank}, localSum, 1, MPI.INT, MPI.SUM);
        int expect = 0;
        for (int r = 0; r < size; r++)
        {
            expect += perNode[r] == node ? r : 0;
        }
        check(localSum[0] == expect, "node allreduce " + localSum[0] + " != " + expect);
        final Intracomm halves = world.split(rank % 2, size - rank);
        final int[] hs = new int[1];
        halves.allReduce(new int[] {1}, hs, 1, MPI.INT, MPI.SUM);
        check(hs[0] == halves.getSize(), "split allreduce");
        halves.free();
        shared.free();
        world.barrier();
        System.out.println("MULTINODE OK rank " + rank + " of " + size + " node " + node + " shared " + nodes.length);
        MPI.Finalize();
    }

    private static void pointToPoint(final Intracomm world, final int rank, final int size) throws Exception
    {
        final int right = (rank + 1) % size;
        final int left = (rank + size - 1) % size;
        for (int n = 0; n <= 1 << 21; n = n == 0 ? 1 : n * 4)
        {
            final byte[] out = new byte[n];
            for (int i = 0; i < n; i++)
            {
                out[i] = (byte)(i * 7 + rank);
            }
            final byte[] in = new byte[n];
            world.sendRecv(out, n, MPI.BYTE, right, n & 0x7FFF, in, n, MPI.BYTE, left, n & 0x7FFF);
            for (int i = 0; i < n; i++)
            {
                check(in[i] == (byte)(i * 7 + left), "array message of " + n + " bytes from " + left + " at " + i);
            }
            final ByteBuffer dout = MPI.newByteBuffer(n);
            final ByteBuffer din = ByteBuffer.allocateDirect(n);
            for (int i = 0; i < n; i++)
            {
                dout.put(i, (byte)(i * 3 + rank));
            }
            final mpi.Request r = world.iRecv(din, n, MPI.BYTE, left, 5);
            world.send(dout, n, MPI.BYTE, right, 5);
            r.waitFor();
            for (int i = 0; i < n; i++)
            {
                check(din.get(i) == (byte)(i * 3 + left), "direct message of " + n + " bytes from " + left);
            }
        }
        // ANY_SOURCE: rank 0 takes one message from every other rank, in whatever order they come.
        if (rank == 0)
        {
            final boolean[] seen = new boolean[size];
            for (int i = 1; i < size; i++)
            {
                final int[] v = new int[1];
                final Status s = world.recv(v, 1, MPI.INT, MPI.ANY_SOURCE, 9);
                check(v[0] == s.getSource() * 10 && !seen[s.getSource()], "ANY_SOURCE from " + s.getSource());
                seen[s.getSource()] = true;
            }
        }
        else
        {
            world.send(new int[] {rank * 10}, 1, MPI.INT, 0, 9);
        }
        // A derived datatype: every other double of 8.
        final Datatype every2 = Datatype.createVector(4, 1, 2, MPI.DOUBLE);
        every2.commit();
        final double[] src = new double[8];
        final double[] dst = new double[8];
        Arrays.setAll(src, i -> rank * 100 + i);
        world.sendRecv(src, 1, every2, right, 11, dst, 1, every2, left, 11);
        for (int i = 0; i < 8; i += 2)
        {
            check(dst[i] == left * 100 + i && dst[i + 1] == 0, "vector from " + left + ": " + Arrays.toString(dst));
        }
        every2.free();
    }

    private static void collectives(final Intracomm world, final int rank, final int size) throws Exception
    {
        for (final int n : new int[] {1, 100, 5000, 70000})
        {
            world.barrier();
            final int root = n % size;
            final int[] b = new int[n];
            if (rank == root)
            {
                Arrays.setAll(b, i -> i + root);
            }
            world.bcast(b, n, MPI.INT, root);
            check(b[n - 1] == n - 1 + root, "bcast " + n);
            final int[] mine = new int[n];
            Arrays.setAll(mine, i -> rank + i);
            final int[] sum = new int[n];
            world.allReduce(mine, sum, n, MPI.INT, MPI.SUM);
            final int ranks = size * (size - 1) / 2;
            check(sum[n - 1] == ranks + size * (n - 1) && sum[0] == ranks, "allreduce " + n);
            final int[] red = new int[n];
            world.reduce(mine, red, n, MPI.INT, MPI.MAX, root);
            check(rank != root || red[0] == size - 1, "reduce " + n);
            final int[] all = new int[n * size];
            world.allGather(mine, n, MPI.INT, all, n, MPI.INT);
            for (int r = 0; r < size; r++)
            {
                check(all[r * n] == r && all[r * n + n - 1] == r + n - 1, "allgather " + n + " from " + r);
            }
            final int[] gathered = new int[n * size];
            world.gather(mine, n, MPI.INT, gathered, n, MPI.INT, root);
            check(rank != root || gathered[(size - 1) * n] == size - 1, "gather " + n);
            final int[] part = new int[n];
            world.scatter(all, n, MPI.INT, part, n, MPI.INT, root);
            check(part[0] == rank && part[n - 1] == rank + n - 1, "scatter " + n);
            final int[] to = new int[n * size];
            final int[] from = new int[n * size];
            for (int r = 0; r < size; r++)
            {
                Arrays.fill(to, r * n, (r + 1) * n, rank * 1000 + r);
            }
            world.allToAll(to, n, MPI.INT, from, n, MPI.INT);
            for (int r = 0; r < size; r++)
            {
                check(from[r * n] == r * 1000 + rank && from[r * n + n - 1] == r * 1000 + rank, "alltoall " + n);
            }
        }
    }

    /** Windows over an array and over allocated memory: put, get, accumulate in fences and locks. */
    private static void rma(final Intracomm world, final int rank, final int size) throws Exception
    {
        final int right = (rank + 1) % size;
        final int left = (rank + size - 1) % size;
        final int[] array = new int[16];
        final mpi.Win served = new mpi.Win(array, 16, 1, MPI.INFO_NULL, world);
        final java.nio.IntBuffer allocated = MPI.newIntBuffer(16);
        final mpi.Win alloc = new mpi.Win(16, 1, MPI.INFO_NULL, world, allocated, mpi.Win.FLAVOR_PRIVATE);
        for (final mpi.Win w : new mpi.Win[] {served, alloc})
        {
            final java.nio.IntBuffer origin = MPI.newIntBuffer(4);
            for (int i = 0; i < 4; i++)
            {
                origin.put(i, rank * 10 + i);
            }
            w.fence(0);
            w.put(origin, 4, MPI.INT, right, 0, 4, MPI.INT);
            w.fence(0);
            final java.nio.IntBuffer got = MPI.newIntBuffer(4);
            w.get(got, 4, MPI.INT, right, 0, 4, MPI.INT);
            w.fence(0);
            check(got.get(3) == rank * 10 + 3, "get back what was put at the right neighbour: " + got.get(3));
            final java.nio.IntBuffer one = MPI.newIntBuffer(1);
            one.put(0, 1);
            w.lock(MPI.LOCK_SHARED, 0, 0);
            w.accumulate(one, 1, MPI.INT, 0, 8, 1, MPI.INT, MPI.SUM);
            w.unlock(0);
            world.barrier();
            w.fence(0);
            final java.nio.IntBuffer sum = MPI.newIntBuffer(1);
            w.get(sum, 1, MPI.INT, 0, 8, 1, MPI.INT);
            w.fence(0);
            check(sum.get(0) == size, "accumulated " + sum.get(0) + " at rank 0, expected " + size);
        }
        check(array[3] == left * 10 + 3, "the array window holds what the left neighbour put: " + array[3]);
        served.free();
        alloc.free();
    }

    /**
     * Passive and active synchronisation of a window: a counter under the exclusive lock (get,
     * flush, add, put), a PSCW ring, lockAll with fetch-and-op, and a dynamic window's attachment.
     */
    private static void rmaSynchronisation(final Intracomm world, final int rank, final int size) throws Exception
    {
        final long[] memory = new long[4];
        final mpi.Win w = new mpi.Win(memory, 4, 1, MPI.INFO_NULL, world);
        final java.nio.LongBuffer v = MPI.newLongBuffer(1);
        final int rounds = 30;
        for (int i = 0; i < rounds; i++)
        {
            w.lock(MPI.LOCK_EXCLUSIVE, size - 1, 0);
            w.get(v, 1, MPI.LONG, size - 1, 0, 1, MPI.LONG);
            w.flush(size - 1);
            v.put(0, v.get(0) + 1);
            w.put(v, 1, MPI.LONG, size - 1, 0, 1, MPI.LONG);
            w.unlock(size - 1);
        }
        world.barrier();
        w.lock(MPI.LOCK_SHARED, size - 1, 0);
        w.get(v, 1, MPI.LONG, size - 1, 0, 1, MPI.LONG);
        w.unlock(size - 1);
        check(v.get(0) == (long)size * rounds, "counter under the exclusive lock: " + v.get(0));
        final int right = (rank + 1) % size;
        final int left = (rank + size - 1) % size;
        final mpi.Group group = w.getGroup();
        final mpi.Group leftGroup = group.incl(new int[] {left});
        final mpi.Group rightGroup = group.incl(new int[] {right});
        for (int epoch = 1; epoch <= 10; epoch++)
        {
            w.post(leftGroup, 0);
            w.start(rightGroup, 0);
            v.put(0, epoch * 100L + rank);
            w.put(v, 1, MPI.LONG, right, 1, 1, MPI.LONG);
            w.complete();
            w.waitFor();
            check(memory[1] == epoch * 100L + left, "PSCW epoch " + epoch + ": " + memory[1]);
        }
        final java.nio.LongBuffer one = MPI.newLongBuffer(1);
        one.put(0, 1);
        final java.nio.LongBuffer before = MPI.newLongBuffer(1);
        w.lockAll(0);
        for (int i = 0; i < 20; i++)
        {
            w.fetchAndOp(one, before, MPI.LONG, 0, 2, MPI.SUM);
            w.flush(0);
        }
        w.unlockAll();
        world.barrier();
        check(rank != 0 || memory[2] == 20L * size, "fetch-and-op total at rank 0: " + memory[2]);
        world.barrier();
        w.free();
        final mpi.Win dynamic = new mpi.Win(MPI.INFO_NULL, world);
        final java.nio.IntBuffer attached = MPI.newIntBuffer(8);
        dynamic.attach(attached, 8);
        final int[] disp = new int[size];
        world.allGather(new int[] {dynamic.getDisplacement(attached)}, 1, MPI.INT, disp, 1, MPI.INT);
        final java.nio.IntBuffer mark = MPI.newIntBuffer(1);
        mark.put(0, 1000 + rank);
        dynamic.lockAll(0);
        dynamic.put(mark, 1, MPI.INT, right, disp[right] + 4, 1, MPI.INT);
        dynamic.unlockAll();
        world.barrier();
        check(attached.get(1) == 1000 + left, "put into the right neighbour's attachment: " + attached.get(1));
        dynamic.detach(attached);
        dynamic.free();
    }

    /** A collective write of one block per rank into a file every node sees, read back by the next rank. */
    private static void io(final Intracomm world, final int rank, final int size, final String path) throws Exception
    {
        final mpi.File f = new mpi.File(world, path, MPI.MODE_CREATE | MPI.MODE_RDWR);
        final int n = 1000;
        final int[] mine = new int[n];
        Arrays.setAll(mine, i -> rank * 100_000 + i);
        f.writeAtAll((long)rank * n * 4, mine, n, MPI.INT);
        f.sync();
        world.barrier();
        f.sync();
        final int next = (rank + 1) % size;
        final int[] theirs = new int[n];
        f.readAtAll((long)next * n * 4, theirs, n, MPI.INT);
        check(theirs[n - 1] == next * 100_000 + n - 1, "read rank " + next + "'s block: " + theirs[n - 1]);
        f.close();
        check(java.nio.file.Files.size(java.nio.file.Path.of(path)) == (long)size * n * 4, "file size");
    }

    /**
     * A file on a communicator whose ranks run on several nodes: blocks written at explicit
     * offsets read by a rank of another node, appends at the shared pointer (each record once),
     * ordered accesses in rank order, collective seeks of the shared pointer, overlapping writes
     * in atomic mode, size changes, a non-contiguous view, delete-on-close and delete.
     */
    private static void ioAcross(final Intracomm world, final int rank, final int size, final String base)
        throws Exception
    {
        final int[] nodes = new int[size];
        world.allGather(new int[] {Integer.parseInt(System.getenv().getOrDefault("SHMPI_NODE", "0"))}, 1, MPI.INT,
            nodes, 1, MPI.INT);
        int other = -1;
        for (int k = 1; k < size && other < 0; k++)
        {
            other = nodes[(rank + k) % size] != nodes[rank] ? (rank + k) % size : -1;
        }
        check(other >= 0, "no rank on another node: " + Arrays.toString(nodes));
        final String path = base + "-across";
        final mpi.File f = new mpi.File(world, path, MPI.MODE_CREATE | MPI.MODE_RDWR);
        // 1. Explicit offsets, collective: a block per rank, read back by a rank of another node.
        final int n = 1000;
        final int[] mine = new int[n];
        Arrays.setAll(mine, i -> rank * 100_000 + i);
        check(f.writeAtAll((long)rank * n * 4, mine, n, MPI.INT).getCount(MPI.INT) == n, "writeAtAll count");
        f.sync();
        world.barrier();
        f.sync();
        final int[] theirs = new int[n];
        check(f.readAtAll((long)other * n * 4, theirs, n, MPI.INT).getCount(MPI.INT) == n, "readAtAll count");
        for (int i = 0; i < n; i++)
        {
            check(theirs[i] == other * 100_000 + i, "rank " + other + "'s int " + i + ": " + theirs[i]);
        }
        // 2. The shared pointer (bytes of the default view): 10 records (rank, i) from each rank.
        final long records = (long)size * n * 4;
        f.seekShared(records, MPI.SEEK_SET);
        check(f.getPositionShared() == records, "seekShared SEEK_SET: " + f.getPositionShared());
        // Nobody appends before every rank has looked.
        world.barrier();
        final int rounds = 10;
        for (int i = 0; i < rounds; i++)
        {
            f.writeShared(new int[] {rank, i}, 2, MPI.INT);
        }
        f.sync();
        world.barrier();
        f.sync();
        final long ordered = records + 8L * rounds * size;
        check(f.getPositionShared() == ordered, "shared pointer after the appends: " + f.getPositionShared());
        check(f.getSize() == ordered, "size after the appends: " + f.getSize());
        final int[] written = new int[2 * rounds * size];
        f.readAt(records, written, written.length, MPI.INT);
        checkEachRecordOnce(written, size, rounds, "appended");
        // Read back at the shared pointer: every record is read by exactly one rank.
        f.seekShared(records, MPI.SEEK_SET);
        final int[] got = new int[2 * rounds];
        final int[] one = new int[2];
        for (int i = 0; i < rounds; i++)
        {
            check(f.readShared(one, 2, MPI.INT).getCount(MPI.INT) == 2, "readShared count");
            got[2 * i] = one[0];
            got[2 * i + 1] = one[1];
        }
        final int[] gotAll = new int[2 * rounds * size];
        world.allGather(got, got.length, MPI.INT, gotAll, got.length, MPI.INT);
        checkEachRecordOnce(gotAll, size, rounds, "read shared");
        world.barrier();
        check(f.getPositionShared() == ordered, "shared pointer after the reads: " + f.getPositionShared());
        // 3. Ordered: rank r writes r + 1 ints of r, in rank order, then reads its part back.
        final int[] ord = new int[rank + 1];
        Arrays.fill(ord, rank);
        f.writeOrdered(ord, ord.length, MPI.INT);
        final int total = size * (size + 1) / 2;
        check(f.getPositionShared() == ordered + 4L * total, "after writeOrdered: " + f.getPositionShared());
        f.sync();
        world.barrier();
        f.sync();
        final int[] inOrder = new int[total];
        f.readAt(ordered, inOrder, total, MPI.INT);
        for (int r = 0, at = 0; r < size; r++)
        {
            for (int i = 0; i <= r; i++, at++)
            {
                check(inOrder[at] == r, "ordered int " + at + ": " + inOrder[at]);
            }
        }
        f.seekShared(ordered, MPI.SEEK_SET);
        final int[] myPart = new int[rank + 1];
        f.readOrdered(myPart, myPart.length, MPI.INT);
        for (final int x : myPart)
        {
            check(x == rank, "readOrdered: " + Arrays.toString(myPart));
        }
        check(f.getPositionShared() == ordered + 4L * total, "after readOrdered: " + f.getPositionShared());
        // 4. Collective seeks of the shared pointer.
        f.seekShared(-4, MPI.SEEK_CUR);
        check(f.getPositionShared() == ordered + 4L * total - 4, "SEEK_CUR: " + f.getPositionShared());
        f.seekShared(0, MPI.SEEK_END);
        check(f.getPositionShared() == f.getSize(), "SEEK_END: " + f.getPositionShared());
        world.barrier();
        // 5. Atomic mode: overlapping writes of 16 KiB from every rank; a read sees one write whole.
        f.setAtomicity(true);
        check(f.getAtomicity(), "atomicity on");
        final long overlap = 1 << 20;
        final int[] block = new int[4096];
        Arrays.fill(block, rank + 1);
        final int[] seen = new int[block.length];
        for (int i = 0; i < 20; i++)
        {
            f.writeAt(overlap, block, block.length, MPI.INT);
            f.readAt(overlap, seen, seen.length, MPI.INT);
            for (final int x : seen)
            {
                check(x == seen[0] && x >= 1 && x <= size, "atomic mode: a write seen in part (" + x + ", " +
                    seen[0] + ")");
            }
        }
        world.barrier();
        f.setAtomicity(false);
        // 6. Size changes.
        f.setSize(2 << 20);
        check(f.getSize() == 2 << 20, "setSize larger: " + f.getSize());
        world.barrier();
        f.setSize(overlap);
        check(f.getSize() == overlap, "setSize smaller: " + f.getSize());
        world.barrier();
        f.preallocate(3 << 20);
        check(f.getSize() == 3 << 20, "preallocate: " + f.getSize());
        world.barrier();
        // 7. A non-contiguous view: rank r owns ints r, r + size, ... from 4 MiB.
        final Datatype dealt = Datatype.createResized(MPI.INT, 0, 4 * size);
        dealt.commit();
        final long viewAt = 4 << 20;
        f.setView(viewAt + 4L * rank, MPI.INT, dealt, "native");
        final int[] strided = new int[100];
        Arrays.setAll(strided, i -> -(i * size + rank));
        f.writeAll(strided, strided.length, MPI.INT);
        check(f.getPosition() == strided.length, "individual pointer: " + f.getPosition());
        check(f.getByteOffset(2) == viewAt + 4L * rank + 8L * size, "byte offset: " + f.getByteOffset(2));
        f.sync();
        world.barrier();
        f.sync();
        f.setView(viewAt, MPI.INT, MPI.INT, "native");
        final int[] dealtBack = new int[100 * size];
        f.readAtAll(0, dealtBack, dealtBack.length, MPI.INT);
        for (int k = 0; k < dealtBack.length; k++)
        {
            check(dealtBack[k] == -k, "dealt int " + k + ": " + dealtBack[k]);
        }
        dealt.free();
        f.close();
        // 8. Delete: by one rank once every rank has closed it; delete-on-close across nodes.
        world.barrier();
        if (rank == 0)
        {
            mpi.File.delete(path);
        }
        world.barrier();
        check(!java.nio.file.Files.exists(java.nio.file.Path.of(path)), "deleted");
        final String temporary = base + "-across-temporary";
        final mpi.File t = new mpi.File(world, temporary, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        t.writeShared(new int[] {rank}, 1, MPI.INT);
        world.barrier();
        check(t.getSize() == 4L * size, "temporary size: " + t.getSize());
        t.close();
        world.barrier();
        check(!java.nio.file.Files.exists(java.nio.file.Path.of(temporary)), "deleted on close");
    }

    /** Records (rank, round) of {@code all}: each of {@code size} x {@code rounds} exactly once. */
    private static void checkEachRecordOnce(final int[] all, final int size, final int rounds, final String what)
    {
        final boolean[][] seen = new boolean[size][rounds];
        for (int k = 0; k < all.length; k += 2)
        {
            final int r = all[k];
            final int i = all[k + 1];
            check(r >= 0 && r < size && i >= 0 && i < rounds && !seen[r][i], what + ": record " + r + "/" + i +
                " out of place or twice");
            seen[r][i] = true;
        }
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }
}
