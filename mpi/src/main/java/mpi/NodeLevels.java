package mpi;

import org.shmpi.shm.JobFile;

/**
 * The two levels of an intra-communicator whose members run on several machines, for node-aware
 * collectives: {@link #local}, the members on this rank's node (their collectives take shared
 * memory), and {@link #leaders}, each node's first member (lowest rank), one per node, over the
 * bridge. Made on the first blocking collective that uses it, by every member at once (as the
 * collective itself), with two splits of the communicator; freed with it.
 *
 * <p>The algorithms: barrier = node barrier, leaders' barrier, node barrier; bcast = on the
 * root's node from the root, among the leaders from the root's node, on every other node from its
 * leader; allreduce (commutative operations) = node reduce to the leader, leaders' allreduce,
 * node bcast; allgather and gather = node gather to the leader, the leaders' allgather (gather)
 * of whole nodes' blocks, node bcast (or the root's leader hands it the result); reduce
 * (commutative) and scatter likewise; alltoall = node gather, one exchange per node pair among
 * the leaders, node scatter. Only the
 * leaders send between nodes. The other collectives run the flat point-to-point schedules.
 */
final class NodeLevels
{
    final Intracomm local;
    /** The leaders' communicator on a leader, else null. */
    final Intracomm leaders;
    /** Per member of the communicator: its node's index among the leaders (0 = the first node). */
    final int[] nodeIndex;
    /** Per member: its rank in its node's communicator. */
    final int[] localRank;

    private NodeLevels(final Intracomm local, final Intracomm leaders, final int[] nodeIndex, final int[] localRank)
    {
        this.local = local;
        this.leaders = leaders;
        this.nodeIndex = nodeIndex;
        this.localRank = localRank;
    }

    /**
     * Whether {@code comm} gains from two levels: an intra-communicator spanning several nodes
     * with some node holding two or more of its members. Every member computes the same.
     */
    static boolean applies(final Comm comm)
    {
        if (comm.isInter() || comm.members.length < 3)
        {
            return false;
        }
        final int first = nodeOf(comm.members[0]);
        boolean spans = false;
        final java.util.HashSet<Integer> seen = new java.util.HashSet<>();
        boolean shared = false;
        for (final int r : comm.members)
        {
            final int n = nodeOf(r);
            spans |= n != first;
            shared |= !seen.add(n);
        }
        return spans && shared;
    }

    /**
     * The node of process {@code id}: its node in the job file for a rank of this job; for a
     * process of another job (a port, a spawn) a negative number of its own per job, so that two
     * processes count as on one node exactly when they are of one job and one node (every member
     * of a communicator sees the same partition, whichever job it is in).
     */
    static int nodeOf(final int id)
    {
        final JobFile job = MPI.context().job();
        if (id < job.worldSize())
        {
            return job.node(id);
        }
        final String key = MPI.context().foreignPeers().resolve(id).job();
        synchronized (FOREIGN_JOBS)
        {
            return -1 - FOREIGN_JOBS.computeIfAbsent(key, k -> FOREIGN_JOBS.size());
        }
    }

    private static final java.util.Map<String, Integer> FOREIGN_JOBS = new java.util.HashMap<>();

    /** The levels of {@code comm}, made now if not yet (collective over {@code comm}). */
    static NodeLevels of(final Comm comm)
    {
        NodeLevels l = comm.nodeLevels;
        if (l != null)
        {
            return l;
        }
        final int n = comm.members.length;
        final int[] node = new int[n];
        for (int i = 0; i < n; i++)
        {
            node[i] = nodeOf(comm.members[i]);
        }
        // Nodes numbered in the order of their first member; a node's leader is that member.
        final java.util.LinkedHashMap<Integer, Integer> index = new java.util.LinkedHashMap<>();
        final int[] nodeIndex = new int[n];
        final int[] localRank = new int[n];
        final java.util.HashMap<Integer, Integer> count = new java.util.HashMap<>();
        for (int i = 0; i < n; i++)
        {
            nodeIndex[i] = index.computeIfAbsent(node[i], k -> index.size());
            localRank[i] = count.merge(node[i], 1, Integer::sum) - 1;
        }
        final Intracomm self = (Intracomm)comm;
        final int me = comm.myRank;
        final Intracomm local = self.split(nodeIndex[me], me);
        final Intracomm split = self.split(localRank[me] == 0 ? 0 : MPI.UNDEFINED, nodeIndex[me]);
        final Intracomm leaders = split == null || split.isNull() ? null : split;
        local.setErrhandler(MPI.ERRORS_RETURN);
        if (leaders != null)
        {
            leaders.setErrhandler(MPI.ERRORS_RETURN);
        }
        l = new NodeLevels(local, leaders, nodeIndex, localRank);
        comm.nodeLevels = l;
        return l;
    }

    void barrier()
    {
        local.barrier();
        if (leaders != null)
        {
            leaders.barrier();
        }
        local.barrier();
    }

    void bcast(final Object buf, final int count, final Datatype type, final int root, final int me)
    {
        final boolean rootsNode = nodeIndex[me] == nodeIndex[root];
        if (rootsNode && local.getSize() > 1)
        {
            local.bcast(buf, count, type, localRank[root]);
        }
        if (leaders != null && leaders.getSize() > 1)
        {
            leaders.bcast(buf, count, type, nodeIndex[root]);
        }
        if (!rootsNode && local.getSize() > 1)
        {
            local.bcast(buf, count, type, 0);
        }
    }

    /** Allreduce of a commutative {@code op}: node reduce, leaders' allreduce, node bcast. */
    void allReduce(final Object sendbuf, final Object recvbuf, final int count, final Datatype type, final Op op,
        final boolean inPlace)
    {
        if (local.getSize() > 1)
        {
            if (inPlace)
            {
                local.reduce(recvbuf, count, type, op, 0);
            }
            else
            {
                local.reduce(sendbuf, recvbuf, count, type, op, 0);
            }
        }
        else if (!inPlace)
        {
            local.reduce(sendbuf, recvbuf, count, type, op, 0);
        }
        if (leaders != null && leaders.getSize() > 1)
        {
            leaders.allReduce(recvbuf, count, type, op);
        }
        if (local.getSize() > 1)
        {
            local.bcast(recvbuf, count, type, 0);
        }
    }

    /**
     * Allgather (root < 0) or gather to {@code root} of one packed block of {@code sent} bytes
     * per member: node gather to the leader, the leaders' allgather (gather to the root's node's
     * leader) of whole nodes' blocks, then the node bcast (the leader hands the root its result).
     * Returns every block in member order (allgather: on every member; gather: at the root, null
     * elsewhere).
     */
    byte[] gatherPacked(final byte[] mine, final int sent, final int me, final int n, final int root)
    {
        final boolean leader = leaders != null;
        final int localSize = local.getSize();
        final byte[] nodeBlocks = leader ? new byte[localSize * sent] : null;
        local.gather(mine, sent, MPI.BYTE, nodeBlocks, sent, MPI.BYTE, 0);
        final byte[] all = root < 0 || me == root || leader ? new byte[n * sent] : null;
        if (leader)
        {
            final int[] counts = nodeBytes(sent);
            final int[] displs = Collectives.prefix(counts);
            final byte[] byNode = new byte[n * sent];
            if (root < 0)
            {
                leaders.allGatherv(nodeBlocks, nodeBlocks.length, MPI.BYTE, byNode, counts, displs, MPI.BYTE);
            }
            else
            {
                leaders.gatherv(nodeBlocks, nodeBlocks.length, MPI.BYTE, byNode, counts, displs, MPI.BYTE,
                    nodeIndex[root]);
            }
            if (root < 0 || nodeIndex[root] == nodeIndex[me])
            {
                // Node-major (each node's members in order) to member order.
                for (int r = 0; r < n; r++)
                {
                    System.arraycopy(byNode, displs[nodeIndex[r]] + localRank[r] * sent, all, r * sent, sent);
                }
            }
        }
        if (root < 0)
        {
            if (localSize > 1)
            {
                local.bcast(all, n * sent, MPI.BYTE, 0);
            }
        }
        else if (nodeIndex[root] == nodeIndex[me] && localRank[root] != 0)
        {
            if (leader)
            {
                local.send(all, n * sent, MPI.BYTE, localRank[root], 0);
            }
            else if (me == root)
            {
                local.recv(all, n * sent, MPI.BYTE, 0, 0);
            }
        }
        return root < 0 || me == root ? all : null;
    }

    /**
     * Reduce to {@code root} of packed data with a commutative reducer: node reduce to the leader
     * (shared memory where the node's communicator has it), the leaders' reduce to the root's
     * node, the leader hands the root the result. Returns the result at the root, null elsewhere.
     */
    byte[] reducePacked(final byte[] data, final int bytes, final int count, final org.shmpi.coll.Reducer r,
        final int me, final int root)
    {
        final byte[] nodeResult = reduceOver(local, data, bytes, count, r, 0);
        byte[] result = null;
        if (leaders != null)
        {
            result = reduceOver(leaders, nodeResult, bytes, count, r, nodeIndex[root]);
        }
        if (nodeIndex[root] == nodeIndex[me] && localRank[root] != 0)
        {
            if (leaders != null)
            {
                local.send(result, bytes, MPI.BYTE, localRank[root], 0);
            }
            else if (me == root)
            {
                result = new byte[bytes];
                local.recv(result, bytes, MPI.BYTE, 0, 0);
            }
        }
        return me == root ? result : null;
    }

    /** Reduces packed data over {@code c} to its member {@code root} (the result there, null elsewhere). */
    private static byte[] reduceOver(final Comm c, final byte[] data, final int bytes, final int count,
        final org.shmpi.coll.Reducer r, final int root)
    {
        final boolean isRoot = c.getRank() == root;
        final byte[] out = isRoot ? new byte[bytes] : null;
        if (c.getSize() == 1)
        {
            System.arraycopy(data, 0, out, 0, bytes);
            return out;
        }
        final org.shmpi.coll.ShmCollectives shm = c.coll().shmFor(org.shmpi.coll.CollectiveOp.REDUCE, bytes);
        if (shm != null)
        {
            shm.reduce(root, data, bytes, count, r, out);
            return out;
        }
        final org.shmpi.coll.Members m = c.coll().nextMembers();
        Collectives.run(c, m, new org.shmpi.coll.Reduce(m, root, data, bytes, count, r, out, 0), "reduce", true);
        return out;
    }

    /**
     * Scatter from {@code root} of one packed block of {@code block} bytes per member ({@code all}
     * at the root, in member order): the root hands its leader everything, the leaders scatter
     * whole nodes' blocks, each node scatters its own. Returns this member's block.
     */
    byte[] scatterPacked(final byte[] all, final int block, final int me, final int n, final int root)
    {
        byte[] source = all;
        if (nodeIndex[root] == nodeIndex[me] && localRank[root] != 0)
        {
            if (me == root)
            {
                local.send(all, n * block, MPI.BYTE, 0, 0);
            }
            else if (leaders != null)
            {
                source = new byte[n * block];
                local.recv(source, n * block, MPI.BYTE, localRank[root], 0);
            }
        }
        final int localSize = local.getSize();
        byte[] nodeBlocks = null;
        if (leaders != null)
        {
            final int[] counts = nodeBytes(block);
            final int[] displs = Collectives.prefix(counts);
            byte[] byNode = null;
            if (nodeIndex[root] == nodeIndex[me])
            {
                // Member order to node-major (each node's members in order).
                byNode = new byte[n * block];
                for (int r = 0; r < n; r++)
                {
                    System.arraycopy(source, r * block, byNode, displs[nodeIndex[r]] + localRank[r] * block, block);
                }
            }
            nodeBlocks = new byte[localSize * block];
            leaders.scatterv(byNode == null ? new byte[0] : byNode, counts, displs, MPI.BYTE, nodeBlocks,
                nodeBlocks.length, MPI.BYTE, nodeIndex[root]);
        }
        final byte[] mine = new byte[block];
        local.scatter(nodeBlocks, block, MPI.BYTE, mine, block, MPI.BYTE, 0);
        return mine;
    }

    /**
     * Alltoall of packed blocks ({@code mine}: n blocks of {@code block} bytes, by destination):
     * the node's members hand their blocks to the leader, the leaders exchange one message per
     * node pair (every block from one node to the other), each leader hands its members theirs.
     * Returns n blocks by source.
     */
    byte[] allToAllPacked(final byte[] mine, final int block, final int me, final int n)
    {
        final int localSize = local.getSize();
        final int row = n * block;
        byte[] fromMembers = null;
        if (leaders != null)
        {
            fromMembers = new byte[localSize * row];
        }
        local.gather(mine, row, MPI.BYTE, fromMembers, row, MPI.BYTE, 0);
        byte[] toMembers = null;
        if (leaders != null)
        {
            final int nodes = leaders.getSize();
            final int[] sizeOf = new int[nodes];
            final int[][] membersOf = new int[nodes][];
            for (int r = 0; r < n; r++)
            {
                sizeOf[nodeIndex[r]]++;
            }
            for (int k = 0; k < nodes; k++)
            {
                membersOf[k] = new int[sizeOf[k]];
            }
            for (int r = 0; r < n; r++)
            {
                membersOf[nodeIndex[r]][localRank[r]] = r;
            }
            final int[] sendCounts = new int[nodes];
            final int[] recvCounts = new int[nodes];
            final int[] sendDispls = new int[nodes];
            final int[] recvDispls = new int[nodes];
            for (int k = 0; k < nodes; k++)
            {
                sendCounts[k] = localSize * sizeOf[k] * block;
                recvCounts[k] = sizeOf[k] * localSize * block;
                if (k > 0)
                {
                    sendDispls[k] = sendDispls[k - 1] + sendCounts[k - 1];
                    recvDispls[k] = recvDispls[k - 1] + recvCounts[k - 1];
                }
            }
            // To node k: for each member l here, for each member d there, l's block for d.
            final byte[] out = new byte[localSize * row];
            for (int k = 0; k < nodes; k++)
            {
                int at = sendDispls[k];
                for (int l = 0; l < localSize; l++)
                {
                    for (final int d : membersOf[k])
                    {
                        System.arraycopy(fromMembers, l * row + d * block, out, at, block);
                        at += block;
                    }
                }
            }
            final byte[] in = new byte[localSize * row];
            leaders.allToAllv(out, sendCounts, sendDispls, MPI.BYTE, in, recvCounts, recvDispls, MPI.BYTE);
            // From node k: for each member s there, for each member d here, s's block for d.
            toMembers = new byte[localSize * row];
            for (int r = 0; r < n; r++)
            {
                final int k = nodeIndex[r];
                for (int d = 0; d < localSize; d++)
                {
                    System.arraycopy(in, recvDispls[k] + (localRank[r] * localSize + d) * block, toMembers,
                        d * row + r * block, block);
                }
            }
        }
        final byte[] result = new byte[row];
        local.scatter(toMembers, row, MPI.BYTE, result, row, MPI.BYTE, 0);
        return result;
    }

    /** Bytes of each node's blocks, nodes in order, at {@code block} bytes per member. */
    private int[] nodeBytes(final int block)
    {
        final int[] counts = new int[leaders.getSize()];
        for (final int k : nodeIndex)
        {
            counts[k] += block;
        }
        return counts;
    }

    /** Frees both levels (when their communicator is freed). */
    void free()
    {
        local.free();
        if (leaders != null)
        {
            leaders.free();
        }
    }
}
