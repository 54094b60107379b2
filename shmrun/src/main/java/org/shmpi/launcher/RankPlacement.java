package org.shmpi.launcher;

import java.util.List;

import org.shmpi.affinity.CpuSet;
import org.shmpi.affinity.MappingPolicy;
import org.shmpi.affinity.RankMapper;
import org.shmpi.affinity.Topology;

/**
 * Where a job's ranks run. {@code --bind-to core|numa|none} decides when given; by default, as
 * {@code mpirun} does, each rank is bound to a core of its own when the ranks fit (no more ranks
 * than cores with an allowed CPU), and nothing is bound when there are more ranks than cores:
 * pinned ranks that must share a core cannot move to one that is idle, which costs far more than
 * binding saves.
 */
final class RankPlacement
{
    private final MappingPolicy policy;
    private final List<CpuSet> cpus;
    private final String why;

    private RankPlacement(final MappingPolicy policy, final List<CpuSet> cpus, final String why)
    {
        this.policy = policy;
        this.cpus = cpus;
        this.why = why;
    }

    /**
     * @param requested the policy of {@code --bind-to}, or {@code null} for the default
     * @param topology  the machine (only its allowed CPUs count)
     * @param np        the number of ranks
     * @return the placement of ranks {@code 0..np-1}
     */
    static RankPlacement decide(final MappingPolicy requested, final Topology topology, final int np)
    {
        if (requested != null)
        {
            return new RankPlacement(requested, new RankMapper(topology, requested).map(np),
                "--bind-to " + requested.label());
        }
        final int cores = allowedCores(topology);
        if (np <= cores)
        {
            return new RankPlacement(MappingPolicy.CORE, new RankMapper(topology, MappingPolicy.CORE).map(np),
                "default: " + np + " rank" + (np == 1 ? "" : "s") + " on " + cores + " core" + (cores == 1 ? "" : "s"));
        }
        return new RankPlacement(MappingPolicy.NONE, new RankMapper(topology, MappingPolicy.NONE).map(np),
            "default: " + np + " ranks > " + cores + " core" + (cores == 1 ? "" : "s"));
    }

    /** @return ranks not bound, for the reason given (e.g. {@code --bind-to none}); no topology needed. */
    static RankPlacement unbound(final String why)
    {
        return new RankPlacement(MappingPolicy.NONE, List.of(), why);
    }

    /** @return the number of cores that have at least one CPU this process may run on. */
    static int allowedCores(final Topology topology)
    {
        final CpuSet allowed = topology.allowedCpus();
        int n = 0;
        for (final Topology.Core core : topology.cores())
        {
            if (!core.threads().intersect(allowed).isEmpty())
            {
                n++;
            }
        }
        return n;
    }

    MappingPolicy policy()
    {
        return policy;
    }

    boolean binds()
    {
        return policy != MappingPolicy.NONE;
    }

    /** @return the CPUs of {@code rank}; empty when not bound. */
    CpuSet cpusOf(final int rank)
    {
        return binds() ? cpus.get(rank) : CpuSet.empty();
    }

    /** @return what {@code --report-bindings} says of {@code rank}. */
    String describe(final int rank)
    {
        return binds() ? "bound to CPUs " + cpus.get(rank) + " (" + why + ")" : "not bound (" + why + ")";
    }
}
