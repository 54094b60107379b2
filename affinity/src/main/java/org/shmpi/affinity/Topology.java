package org.shmpi.affinity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable description of a machine: its CPUs (hardware threads) with their core, package
 * and NUMA node, the derived NUMA nodes and cores, the caches, and the CPUs this process may
 * run on.
 *
 * <p>Built from the live system by {@link TopologyReader}, or loaded from a text file so that
 * multi-NUMA logic can be exercised on any machine. The text format is line-based:
 * <pre>
 * # comment (a line whose first non-blank character is '#'); blank lines are ignored
 * cpu &lt;id&gt; core=&lt;coreId&gt; package=&lt;packageId&gt; node=&lt;numaNode&gt;
 * cache L&lt;level&gt; &lt;Data|Instruction|Unified&gt; &lt;size&gt; cpus=&lt;cpulist&gt;
 * allowed &lt;cpulist&gt;
 * </pre>
 * Example, one socket with two cores of two threads:
 * <pre>
 * cpu 0 core=0 package=0 node=0
 * cpu 1 core=1 package=0 node=0
 * cpu 2 core=0 package=0 node=0
 * cpu 3 core=1 package=0 node=0
 * cache L1 Data 32768 cpus=0,2
 * cache L3 Unified 8M cpus=0-3
 * allowed 0-3
 * </pre>
 * In {@code cpu} lines the {@code key=value} pairs may come in any order; a missing one takes the
 * same fallback as a missing {@code /sys} file (core = cpu id, package 0, node 0). A cache size is
 * bytes, or a number with suffix {@code K}, {@code M} or {@code G} (binary units). A missing
 * {@code allowed} line means every CPU is allowed. {@link #toText()} writes cpus by id, caches
 * by level, type and CPUs, and sizes in bytes, so {@code parse(t.toText()).equals(t)} and
 * {@code parse(t.toText()).toText().equals(t.toText())} hold.
 *
 * <p>This class is the model: its parts, their validation and the queries on them. Reading and
 * writing the text forms ({@link #parse(String)}, {@link #toText()}, {@link #describe()}) is done by
 * the package-private {@code TopologyText}.
 */
public final class Topology
{
    /** Property naming a topology file to use instead of the live system. */
    public static final String TOPOLOGY_FILE_PROP_NAME = "shmpi.topology.file";

    /** Kind of cache, spelled as Linux spells it in {@code cache/indexK/type}. */
    public enum CacheType
    {
        /** Data cache. */
        DATA("Data"),
        /** Instruction cache. */
        INSTRUCTION("Instruction"),
        /** Unified data and instruction cache. */
        UNIFIED("Unified");

        private final String label;

        CacheType(final String label)
        {
            this.label = label;
        }

        /** @return the Linux spelling, e.g. {@code "Data"}. */
        public String label()
        {
            return label;
        }

        /**
         * @param text {@code "Data"}, {@code "Instruction"} or {@code "Unified"}, any case
         * @return the type
         * @throws IllegalArgumentException naming the value and the allowed ones
         */
        public static CacheType parse(final String text)
        {
            for (final CacheType type : values())
            {
                if (type.label.equalsIgnoreCase(text.strip()))
                {
                    return type;
                }
            }
            throw new IllegalArgumentException(
                "unknown cache type: value=" + text + ", allowed=Data,Instruction,Unified");
        }
    }

    /**
     * One hardware thread.
     *
     * @param id        the CPU id the kernel uses
     * @param coreId    core id, unique within its package
     * @param packageId physical package (socket) id
     * @param nodeId    NUMA node id
     */
    public record Cpu(int id, int coreId, int packageId, int nodeId)
    {
        /** Validates that every id is non-negative and the CPU id is in range. */
        public Cpu
        {
            if (id < 0 || id > CpuSet.MAX_CPU_ID || coreId < 0 || packageId < 0 || nodeId < 0)
            {
                throw new IllegalArgumentException("invalid cpu: id=" + id + ", core=" + coreId
                    + ", package=" + packageId + ", node=" + nodeId);
            }
        }
    }

    /**
     * One physical core: a distinct (package, core id) pair.
     *
     * @param packageId physical package id
     * @param coreId    core id within the package
     * @param nodeId    NUMA node of the core's first hardware thread
     * @param threads   the core's hardware threads
     */
    public record Core(int packageId, int coreId, int nodeId, CpuSet threads)
    {
    }

    /**
     * One cache instance.
     *
     * @param level     1 for L1, ...
     * @param type      data, instruction or unified
     * @param sizeBytes size in bytes; 0 when unknown
     * @param cpus      the CPUs sharing this instance
     */
    public record Cache(int level, CacheType type, long sizeBytes, CpuSet cpus)
    {
        /** Validates level, size and that the CPU set is non-empty. */
        public Cache
        {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(cpus, "cpus");
            if (level < 1 || sizeBytes < 0 || cpus.isEmpty())
            {
                throw new IllegalArgumentException("invalid cache: level=" + level + ", type=" + type
                    + ", sizeBytes=" + sizeBytes + ", cpus=" + cpus);
            }
        }
    }

    private static final Comparator<Cache> CACHE_ORDER = Comparator
        .comparingInt(Cache::level)
        .thenComparing(Cache::type)
        .thenComparing((a, b) -> Arrays.compare(a.cpus().toArray(), b.cpus().toArray()));

    private final List<Cpu> cpus;
    private final Map<Integer, Cpu> cpuById;
    private final CpuSet allCpus;
    private final CpuSet allowed;
    private final SortedMap<Integer, CpuSet> numaNodes;
    private final List<Core> cores;
    private final List<Cache> caches;

    private Topology(final Collection<Cpu> cpuList, final Collection<Cache> cacheList, final CpuSet allowedCpus)
    {
        final List<Cpu> sorted = new ArrayList<>(cpuList);
        sorted.sort(Comparator.comparingInt(Cpu::id));
        if (sorted.isEmpty())
        {
            throw new IllegalArgumentException("topology needs at least one cpu: cpus=0");
        }
        final Map<Integer, Cpu> byId = new HashMap<>();
        for (final Cpu cpu : sorted)
        {
            if (byId.put(cpu.id(), cpu) != null)
            {
                throw new IllegalArgumentException("duplicate cpu: id=" + cpu.id());
            }
        }
        this.cpus = List.copyOf(sorted);
        this.cpuById = Map.copyOf(byId);
        this.allCpus = CpuSet.of(sorted.stream().mapToInt(Cpu::id).toArray());

        final CpuSet allowedSet = allowedCpus == null ? allCpus : allowedCpus;
        if (allowedSet.isEmpty() || !allCpus.containsAll(allowedSet))
        {
            throw new IllegalArgumentException(
                "allowed cpus must be a non-empty subset of the cpus: allowed=" + allowedSet + ", cpus=" + allCpus);
        }
        this.allowed = allowedSet;

        final SortedMap<Integer, List<Integer>> nodeMembers = new TreeMap<>();
        final Map<List<Integer>, List<Integer>> coreMembers = new LinkedHashMap<>();
        for (final Cpu cpu : sorted)
        {
            nodeMembers.computeIfAbsent(cpu.nodeId(), k -> new ArrayList<>()).add(cpu.id());
            coreMembers.computeIfAbsent(List.of(cpu.packageId(), cpu.coreId()), k -> new ArrayList<>()).add(cpu.id());
        }
        final SortedMap<Integer, CpuSet> nodes = new TreeMap<>();
        nodeMembers.forEach((node, ids) -> nodes.put(node, toSet(ids)));
        this.numaNodes = Collections.unmodifiableSortedMap(nodes);

        final List<Core> coreList = new ArrayList<>();
        coreMembers.forEach((key, ids) -> coreList.add(
            new Core(key.get(0), key.get(1), byId.get(ids.get(0)).nodeId(), toSet(ids))));
        coreList.sort(Comparator.comparingInt(Core::packageId).thenComparingInt(Core::coreId));
        this.cores = List.copyOf(coreList);

        final Set<List<Object>> cacheKeys = new HashSet<>();
        final List<Cache> cacheSorted = new ArrayList<>(cacheList);
        for (final Cache cache : cacheSorted)
        {
            if (!allCpus.containsAll(cache.cpus()))
            {
                throw new IllegalArgumentException(
                    "cache cpus not in topology: cache=" + cache + ", cpus=" + allCpus);
            }
            if (!cacheKeys.add(List.of(cache.level(), cache.type(), cache.cpus())))
            {
                throw new IllegalArgumentException("duplicate cache: cache=" + cache);
            }
        }
        cacheSorted.sort(CACHE_ORDER);
        this.caches = List.copyOf(cacheSorted);
    }

    private static CpuSet toSet(final List<Integer> ids)
    {
        return CpuSet.of(ids.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * A topology from explicit parts.
     *
     * @param cpus        the CPUs, at least one, distinct ids
     * @param caches      the caches, distinct by (level, type, CPUs), over known CPUs
     * @param allowedCpus the CPUs this process may use, a non-empty subset; {@code null} for all
     * @return the topology
     */
    public static Topology of(final Collection<Cpu> cpus, final Collection<Cache> caches, final CpuSet allowedCpus)
    {
        return new Topology(cpus, caches, allowedCpus);
    }

    /**
     * @param allowedCpus a non-empty subset of {@link #allCpus()}
     * @return this topology with a different allowed set
     */
    public Topology withAllowed(final CpuSet allowedCpus)
    {
        return new Topology(cpus, caches, Objects.requireNonNull(allowedCpus, "allowedCpus"));
    }

    /**
     * The topology to use under the given settings: the file named by
     * {@value #TOPOLOGY_FILE_PROP_NAME} if set, otherwise {@link TopologyReader#live()}.
     *
     * @param settings configuration properties
     * @return the topology
     */
    public static Topology detect(final Properties settings)
    {
        final String file = settings.getProperty(TOPOLOGY_FILE_PROP_NAME);
        if (file != null && !file.isBlank())
        {
            return load(Path.of(file.strip()));
        }
        return TopologyReader.live();
    }

    /**
     * Loads a topology file in the format of the class comment.
     *
     * @param file the file
     * @return the topology
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException naming the file and line if it is malformed
     */
    public static Topology load(final Path file)
    {
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read topology file: file=" + file, e);
        }
        try
        {
            return parse(text);
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("bad topology file: file=" + file + ", " + e.getMessage(), e);
        }
    }

    /**
     * Parses the text format of the class comment.
     *
     * @param text the file contents
     * @return the topology
     * @throws IllegalArgumentException with {@code line=} for malformed input
     */
    public static Topology parse(final String text)
    {
        return TopologyText.parse(text);
    }

    /** @return the text form described in the class comment; {@link #parse(String)} reads it back equal. */
    public String toText()
    {
        return TopologyText.write(this);
    }

    /** @return a multi-line human summary: counts, NUMA nodes, caches, allowed CPUs. */
    public String describe()
    {
        return TopologyText.describe(this);
    }

    /** @return every CPU, ascending by id. */
    public List<Cpu> cpus()
    {
        return cpus;
    }

    /** @return the ids of every CPU. */
    public CpuSet allCpus()
    {
        return allCpus;
    }

    /**
     * @param id a CPU id
     * @return that CPU, or {@code null} if the topology has no such CPU
     */
    public Cpu cpu(final int id)
    {
        return cpuById.get(id);
    }

    /** @return NUMA node id to its CPUs, ascending by node id; only nodes with CPUs appear. */
    public SortedMap<Integer, CpuSet> numaNodes()
    {
        return numaNodes;
    }

    /** @return the cores, ascending by (package, core id). */
    public List<Core> cores()
    {
        return cores;
    }

    /** @return the distinct cache instances, ascending by (level, type, CPUs). */
    public List<Cache> caches()
    {
        return caches;
    }

    /** @return the CPUs this process may run on, a non-empty subset of {@link #allCpus()}. */
    public CpuSet allowedCpus()
    {
        return allowed;
    }

    /**
     * @param cpu a CPU id
     * @return its NUMA node, or -1 if the topology has no such CPU
     */
    public int numaNodeOf(final int cpu)
    {
        final Cpu c = cpuById.get(cpu);
        return c == null ? -1 : c.nodeId();
    }

    /**
     * A kind of locality domain: a set of CPUs that share a resource. The domains of one level
     * are disjoint on real machines; {@link #domains(Level)} lists them.
     */
    public enum Level
    {
        /** One physical core: its hardware threads. */
        CORE,
        /** One level-3 cache instance (data or unified); a package when the topology lists no L3. */
        L3CACHE,
        /** One physical package (socket). */
        PACKAGE,
        /** One NUMA node. */
        NUMA
    }

    /**
     * The domains of a level, each as its CPUs, in a fixed order that every process reading the
     * same topology sees: cores by (package, core id), caches by their CPUs, packages and NUMA
     * nodes by id. A topology that lists no level-3 data or unified cache has the packages as
     * its {@link Level#L3CACHE} domains.
     *
     * @param level the kind of domain
     * @return the domains, non-empty
     */
    public List<CpuSet> domains(final Level level)
    {
        Objects.requireNonNull(level, "level");
        final List<CpuSet> result = new ArrayList<>();
        switch (level)
        {
            case CORE:
                cores.forEach(core -> result.add(core.threads()));
                break;
            case L3CACHE:
                for (final Cache cache : caches)
                {
                    if (cache.level() == 3 && cache.type() != CacheType.INSTRUCTION)
                    {
                        result.add(cache.cpus());
                    }
                }
                if (result.isEmpty())
                {
                    return domains(Level.PACKAGE);
                }
                break;
            case PACKAGE:
                final SortedMap<Integer, List<Integer>> byPackage = new TreeMap<>();
                cpus.forEach(c -> byPackage.computeIfAbsent(c.packageId(), k -> new ArrayList<>()).add(c.id()));
                byPackage.values().forEach(ids -> result.add(toSet(ids)));
                break;
            default:
                result.addAll(numaNodes.values());
                break;
        }
        return List.copyOf(result);
    }

    /**
     * Which domains of a level a process that may run on {@code cpus} runs in: the indexes (into
     * {@link #domains(Level)}) of the domains that hold at least one of those CPUs, ascending. A
     * process bound inside one domain gets that domain alone; one that may run on CPUs of several
     * domains gets all of them, the smallest union of domains that contains every CPU it may run
     * on. CPUs the topology does not know are ignored; when none is known the answer is every
     * domain (the process could be anywhere).
     *
     * @param level the kind of domain
     * @param cpus  the CPUs the process is bound to, or may run on
     * @return domain indexes, non-empty, ascending
     */
    public int[] domainsSpanned(final Level level, final CpuSet cpus)
    {
        Objects.requireNonNull(cpus, "cpus");
        final List<CpuSet> all = domains(level);
        final CpuSet known = cpus.intersect(allCpus);
        final int[] spanned = new int[all.size()];
        int n = 0;
        for (int i = 0; i < all.size(); i++)
        {
            if (known.isEmpty() || !all.get(i).intersect(known).isEmpty())
            {
                spanned[n++] = i;
            }
        }
        return Arrays.copyOf(spanned, n);
    }

    /** @return the number of CPUs (hardware threads). */
    public int cpuCount()
    {
        return cpus.size();
    }

    /** @return the number of physical cores. */
    public int coreCount()
    {
        return cores.size();
    }

    /** @return the number of NUMA nodes that have CPUs. */
    public int numaNodeCount()
    {
        return numaNodes.size();
    }

    /** @return the number of physical packages (sockets). */
    public int packageCount()
    {
        final Set<Integer> packages = new TreeSet<>();
        cpus.forEach(c -> packages.add(c.packageId()));
        return packages.size();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof Topology))
        {
            return false;
        }
        final Topology other = (Topology)o;
        return cpus.equals(other.cpus) && caches.equals(other.caches) && allowed.equals(other.allowed);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(cpus, caches, allowed);
    }

    /** @return a one-line summary; {@link #describe()} and {@link #toText()} give the detail. */
    @Override
    public String toString()
    {
        return "Topology{cpus=" + allCpus + ", cores=" + cores.size() + ", numaNodes=" + numaNodes.size()
            + ", caches=" + caches.size() + ", allowed=" + allowed + "}";
    }
}
