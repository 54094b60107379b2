package org.shmpi.launcher;

import java.util.List;

import org.shmpi.affinity.Binding;
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
 *
 * <p>Every rank is told where it was placed ({@value Binding#RANK_CPUS_PROP_NAME}: its CPUs, or
 * every allowed CPU when not bound), so that {@code Intracomm.splitType} and {@code reorder} see
 * the placement. When the topology is a file describing another machine
 * ({@code shmpi.topology.file}) and the planned CPUs are not all CPUs this launcher may run on,
 * nothing is bound for real ({@code taskset} would fail): the placement is only simulated, and
 * the ranks learn it from that property alone.
 */
final class RankPlacement
{
    private final MappingPolicy policy;
    private final List<CpuSet> cpus;
    private final String why;
    /** The CPUs unbound ranks may run on; null when the topology is unknown. */
    private final CpuSet allowed;
    private final boolean simulated;

    private RankPlacement(final MappingPolicy policy, final List<CpuSet> cpus, final String why, final CpuSet allowed,
        final boolean simulated)
    {
        this.policy = policy;
        this.cpus = cpus;
        this.why = why;
        this.allowed = allowed;
        this.simulated = simulated;
    }

    private static RankPlacement of(final MappingPolicy policy, final Topology topology, final int np, final String why,
        final CpuSet here)
    {
        final List<CpuSet> planned = new RankMapper(topology, policy).map(np);
        boolean simulated = false;
        if (policy != MappingPolicy.NONE && here != null)
        {
            for (final CpuSet set : planned)
            {
                simulated |= !here.containsAll(set);
            }
        }
        return new RankPlacement(policy, planned, why, topology.allowedCpus(), simulated);
    }

    /** @return the CPUs this process may run on; null when unknown (not Linux-like /proc). */
    private static CpuSet currentAffinityOrNull()
    {
        try
        {
            return Binding.currentAffinity();
        }
        catch (final RuntimeException ex)
        {
            return null; // bind as planned and let taskset say what is wrong
        }
    }

    /**
     * @param requested the policy of {@code --bind-to}, or {@code null} for the default
     * @param topology  the machine (only its allowed CPUs count)
     * @param np        the number of ranks
     * @return the placement of ranks {@code 0..np-1}
     */
    static RankPlacement decide(final MappingPolicy requested, final Topology topology, final int np)
    {
        return decide(requested, topology, np, currentAffinityOrNull());
    }

    /**
     * {@link #decide(MappingPolicy, Topology, int)} on a launcher that may run on {@code here}:
     * a placement on CPUs outside it is simulated.
     *
     * @param here the CPUs the launcher may run on; null: unknown, bind as planned
     */
    static RankPlacement decide(final MappingPolicy requested, final Topology topology, final int np, final CpuSet here)
    {
        if (requested != null)
        {
            return of(requested, topology, np, "--bind-to " + requested.label(), here);
        }
        final int cores = allowedCores(topology);
        if (np <= cores)
        {
            return of(MappingPolicy.CORE, topology, np, "default: " + np + " rank" + (np == 1 ? "" : "s") + " on " +
                cores + " core" + (cores == 1 ? "" : "s"), here);
        }
        return of(MappingPolicy.NONE, topology, np, "default: " + np + " ranks > " + cores + " core" +
            (cores == 1 ? "" : "s"), here);
    }

    /** @return ranks not bound, for the reason given (e.g. {@code --bind-to none}); no topology needed. */
    static RankPlacement unbound(final String why)
    {
        return new RankPlacement(MappingPolicy.NONE, List.of(), why, null, false);
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

    /** @return true when ranks are placed on CPUs but not bound (the topology describes another machine). */
    boolean simulated()
    {
        return simulated;
    }

    /** @return true when the ranks are to be started under {@code taskset}. */
    boolean bindsForReal()
    {
        return binds() && !simulated;
    }

    /** @return the CPUs of {@code rank}; empty when not bound. */
    CpuSet cpusOf(final int rank)
    {
        return binds() ? cpus.get(rank) : CpuSet.empty();
    }

    /**
     * @return what the rank is told of its placement ({@value Binding#RANK_CPUS_PROP_NAME}): its
     *         CPUs when placed, else every allowed CPU; null when the topology is unknown
     */
    CpuSet placedCpus(final int rank)
    {
        return binds() ? cpus.get(rank) : allowed;
    }

    /** @return what {@code --report-bindings} says of {@code rank}. */
    String describe(final int rank)
    {
        if (simulated)
        {
            return "placed on CPUs " + cpus.get(rank) + " of the topology file, not bound: those CPUs are not " +
                "all available here (" + why + ")";
        }
        return binds() ? "bound to CPUs " + cpus.get(rank) + " (" + why + ")" : "not bound (" + why + ")";
    }
}
