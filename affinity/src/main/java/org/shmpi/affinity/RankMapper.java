package org.shmpi.affinity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Places ranks on CPUs of a {@link Topology} under a {@link MappingPolicy}. Only the topology's
 * allowed CPUs are used.
 *
 * <ul>
 *   <li>{@link MappingPolicy#CORE}: cores that have an allowed thread are ordered by (NUMA node,
 *       package, core id); the sequence is the first allowed thread of every core, then the
 *       second of every core, and so on, so ranks get whole cores before any two share one.
 *       Rank {@code r} gets the single CPU at {@code r mod sequenceLength}.</li>
 *   <li>{@link MappingPolicy#NUMA}: the nodes with at least one allowed CPU, ascending by id;
 *       rank {@code r} gets every allowed CPU of node {@code r mod nodeCount}.</li>
 *   <li>{@link MappingPolicy#NONE}: every rank gets the empty set (do not bind) and node -1.</li>
 * </ul>
 * Placement depends only on the rank, not on the number of ranks, so a rank can compute its own.
 */
public final class RankMapper
{
    private final Topology topology;
    private final MappingPolicy policy;
    private final int[] coreOrder;
    private final List<Integer> nodeIds;
    private final List<CpuSet> nodeCpus;

    /**
     * @param topology the machine
     * @param policy   the placement policy
     */
    public RankMapper(final Topology topology, final MappingPolicy policy)
    {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.policy = Objects.requireNonNull(policy, "policy");
        final CpuSet allowed = topology.allowedCpus();

        final List<CpuSet> allowedThreadsByCore = new ArrayList<>();
        final List<Topology.Core> cores = new ArrayList<>(topology.cores());
        cores.sort(Comparator.comparingInt(Topology.Core::nodeId)
            .thenComparingInt(Topology.Core::packageId)
            .thenComparingInt(Topology.Core::coreId));
        int maxThreads = 0;
        for (final Topology.Core core : cores)
        {
            final CpuSet threads = core.threads().intersect(allowed);
            if (!threads.isEmpty())
            {
                allowedThreadsByCore.add(threads);
                maxThreads = Math.max(maxThreads, threads.size());
            }
        }
        final int[] order = new int[allowed.size()];
        int n = 0;
        for (int t = 0; t < maxThreads; t++)
        {
            for (final CpuSet threads : allowedThreadsByCore)
            {
                if (t < threads.size())
                {
                    order[n++] = threads.get(t);
                }
            }
        }
        this.coreOrder = order;

        final List<Integer> ids = new ArrayList<>();
        final List<CpuSet> sets = new ArrayList<>();
        topology.numaNodes().forEach((node, cpus) ->
        {
            final CpuSet usable = cpus.intersect(allowed);
            if (!usable.isEmpty())
            {
                ids.add(node);
                sets.add(usable);
            }
        });
        this.nodeIds = List.copyOf(ids);
        this.nodeCpus = List.copyOf(sets);
    }

    /** @return the policy. */
    public MappingPolicy policy()
    {
        return policy;
    }

    /** @return the topology. */
    public Topology topology()
    {
        return topology;
    }

    /**
     * @param rank a rank, non-negative
     * @return the CPUs the rank is bound to; empty for {@link MappingPolicy#NONE}
     */
    public CpuSet cpusOfRank(final int rank)
    {
        checkRank(rank);
        switch (policy)
        {
            case CORE:
                return CpuSet.of(coreOrder[rank % coreOrder.length]);
            case NUMA:
                return nodeCpus.get(rank % nodeCpus.size());
            default:
                return CpuSet.empty();
        }
    }

    /**
     * @param rank a rank, non-negative
     * @return the NUMA node the rank runs on; -1 for {@link MappingPolicy#NONE}
     */
    public int numaNodeOfRank(final int rank)
    {
        checkRank(rank);
        switch (policy)
        {
            case CORE:
                return topology.numaNodeOf(coreOrder[rank % coreOrder.length]);
            case NUMA:
                return nodeIds.get(rank % nodeIds.size());
            default:
                return -1;
        }
    }

    /**
     * @param nranks number of ranks, non-negative
     * @return {@link #cpusOfRank(int)} for ranks {@code 0..nranks-1}
     */
    public List<CpuSet> map(final int nranks)
    {
        if (nranks < 0)
        {
            throw new IllegalArgumentException("negative rank count: nranks=" + nranks);
        }
        final List<CpuSet> result = new ArrayList<>(nranks);
        for (int rank = 0; rank < nranks; rank++)
        {
            result.add(cpusOfRank(rank));
        }
        return List.copyOf(result);
    }

    private static void checkRank(final int rank)
    {
        if (rank < 0)
        {
            throw new IllegalArgumentException("negative rank: rank=" + rank);
        }
    }
}
