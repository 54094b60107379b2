package mpi;

import java.util.Arrays;
import java.util.List;

import org.shmpi.affinity.Binding;
import org.shmpi.affinity.CpuSet;
import org.shmpi.affinity.Topology;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * Where the ranks of a communicator run, for {@link Intracomm#splitType} and the
 * {@code reorder} of {@link Intracomm#createCart}. A rank runs on the CPUs the launcher placed
 * it on ({@value Binding#RANK_CPUS_PROP_NAME}, which works for a topology file describing
 * another machine too), else on the CPUs of its real affinity. Its domain at a level is the set
 * of that level's domains holding those CPUs ({@link Topology#domainsSpanned}): one domain for
 * a rank bound inside it, several for a rank that may run on several; ranks with the same set
 * group together. The topology is {@link Topology#detect} of the system properties
 * ({@code shmpi.topology.file}), read once per process.
 */
final class Locality
{
    private static volatile Topology topology;

    private Locality()
    {
    }

    static Topology topology()
    {
        Topology t = topology;
        if (t == null)
        {
            try
            {
                t = Topology.detect(System.getProperties());
            }
            catch (final RuntimeException ex)
            {
                throw new MPIException(ErrorClass.ERR_OTHER, "cannot read the machine topology: " + ex.getMessage());
            }
            topology = t;
        }
        return t;
    }

    /** @return the CPUs this rank was placed on, or may run on. */
    static CpuSet rankCpus(final Topology t)
    {
        try
        {
            return Binding.rankCpus(System.getProperties());
        }
        catch (final java.io.UncheckedIOException ex)
        {
            return t.allowedCpus(); // no /proc: as far as we know, anywhere it is allowed
        }
        catch (final IllegalArgumentException ex)
        {
            throw new MPIException(ErrorClass.ERR_OTHER, "bad placement of this rank: " + ex.getMessage());
        }
    }

    /**
     * The group of every rank of {@code comm} at {@code level}: ranks with equal values run in
     * the same domain (or span the same domains); the value is the lowest rank of {@code comm}
     * in that group. Collective over {@code comm}.
     */
    static int[] groups(final Comm comm, final Topology.Level level)
    {
        final Topology t = topology();
        final List<CpuSet> domains = t.domains(level);
        final int[] spanned = t.domainsSpanned(level, rankCpus(t));
        // Every rank must read the same machine, or the masks below would differ in meaning.
        final int[] counts = CommConstruction.allgatherInts(comm, new int[] {domains.size()}, BlockedCall.BARRIER);
        for (int r = 0; r < counts.length; r++)
        {
            if (counts[r] != domains.size())
            {
                throw new MPIException(ErrorClass.ERR_OTHER, "ranks see different topologies: level=" + level +
                    ", domains=" + domains.size() + " here, domains=" + counts[r] + " on rank " + r);
            }
        }
        final int words = (domains.size() + 31) / 32;
        final int[] mask = new int[words];
        for (final int d : spanned)
        {
            mask[d >>> 5] |= 1 << (d & 31);
        }
        final int[] all = CommConstruction.allgatherInts(comm, mask, BlockedCall.BARRIER);
        final int n = all.length / words;
        final int[] group = new int[n];
        for (int r = 0; r < n; r++)
        {
            group[r] = r;
            for (int q = 0; q < r; q++)
            {
                if (Arrays.equals(all, r * words, (r + 1) * words, all, q * words, (q + 1) * words))
                {
                    group[r] = group[q];
                    break;
                }
            }
        }
        return group;
    }

    /**
     * The group labels of {@code comm}'s members for the hierarchical shared-memory collectives
     * ({@link org.shmpi.coll.ShmCollectives#attach}), or null when they are not wanted
     * ({@link org.shmpi.coll.CollectiveSettings#hierarchyWanted}: no exchange then) or the
     * members do not span two groups. A member's label is its NUMA node when it runs inside one,
     * else -1; when every member has a NUMA node and they span two or more, those are the
     * labels. Otherwise the same by L3 domain (a machine of one NUMA node may have several;
     * a topology without L3 caches has its packages here). Otherwise null: one group. One
     * exchange of two ints per member over {@code comm}, so every member gets the same labels;
     * collective over {@code comm}.
     */
    static int[] collectiveGroups(final Comm comm, final int size)
    {
        if (!org.shmpi.coll.CollectiveSettings.of(MPI.context().settings()).hierarchyWanted(size))
        {
            return null;
        }
        final int[] mine = {-1, -1};
        try
        {
            final Topology t = topology();
            final CpuSet cpus = rankCpus(t);
            final int[] node = t.domainsSpanned(Topology.Level.NUMA, cpus);
            final int[] l3 = t.domainsSpanned(Topology.Level.L3CACHE, cpus);
            mine[0] = node.length == 1 ? node[0] : -1;
            mine[1] = l3.length == 1 ? l3[0] : -1;
        }
        catch (final RuntimeException ex)
        {
            // No topology: this member's place is unknown, so nobody groups (but it still
            // takes part in the exchange, as every member must).
        }
        final int[] all = CommConstruction.allgatherInts(comm, mine, BlockedCall.BARRIER);
        for (int level = 0; level < 2; level++)
        {
            final int[] labels = new int[size];
            boolean known = true;
            boolean several = false;
            for (int r = 0; r < size; r++)
            {
                labels[r] = all[2 * r + level];
                known &= labels[r] >= 0;
                several |= labels[r] != labels[0];
            }
            if (known && several)
            {
                return labels;
            }
        }
        return null;
    }

    /**
     * @param splitType a {@code Comm.TYPE_*} locality type other than {@code TYPE_SHARED}
     * @return its level, or null when it is not one
     */
    static Topology.Level levelOf(final int splitType)
    {
        switch (splitType)
        {
            case Comm.TYPE_CORE:
                return Topology.Level.CORE;
            case Comm.TYPE_L3CACHE:
                return Topology.Level.L3CACHE;
            case Comm.TYPE_SOCKET:
                return Topology.Level.PACKAGE;
            case Comm.TYPE_NUMA:
                return Topology.Level.NUMA;
            default:
                return null;
        }
    }
}
