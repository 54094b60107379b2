package org.shmpi.affinity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@link Topology} from the Linux sysfs tree and {@code /proc/self/status}.
 *
 * <p>Files read, relative to the sysfs root:
 * <ul>
 *   <li>{@code devices/system/cpu/online}, else the {@code cpuN} directories, else
 *       {@code 0..availableProcessors-1};</li>
 *   <li>{@code devices/system/cpu/cpuN/topology/{core_id,physical_package_id}}, else core = cpu id
 *       and package 0;</li>
 *   <li>{@code devices/system/node/nodeN/cpulist}; CPUs in no node (or no node directory at all,
 *       a kernel without NUMA) go to node 0;</li>
 *   <li>{@code devices/system/cpu/cpuN/cache/indexK/{level,type,size,shared_cpu_list}}; every CPU
 *       lists the caches it shares, so instances are deduplicated by (level, type, CPUs). An index
 *       without a readable level or type is skipped; a missing size is recorded as 0.</li>
 * </ul>
 * The allowed CPUs are {@code Cpus_allowed_list} of the status file intersected with the online
 * CPUs (the mask may name CPUs that are possible but offline); all CPUs when it is unreadable.
 * Nothing here throws for a missing or garbled file: containers and odd kernels hide parts of
 * sysfs, and a degraded topology is better than none.
 */
public final class TopologyReader
{
    private static final Pattern CPU_DIR = Pattern.compile("cpu(\\d+)");
    private static final Pattern NODE_DIR = Pattern.compile("node(\\d+)");
    private static final Pattern INDEX_DIR = Pattern.compile("index(\\d+)");

    private TopologyReader()
    {
    }

    /** @return the topology of this machine, from {@code /sys} and {@code /proc/self/status}. */
    public static Topology live()
    {
        return fromSys(Path.of("/sys"), Path.of("/proc/self/status"));
    }

    /**
     * Reads a topology from a sysfs tree, real or fake.
     *
     * @param sysRoot        the sysfs root, normally {@code /sys}
     * @param procSelfStatus the status file giving {@code Cpus_allowed_list}, normally
     *                       {@code /proc/self/status}
     * @return the topology
     */
    public static Topology fromSys(final Path sysRoot, final Path procSelfStatus)
    {
        final Path cpuRoot = sysRoot.resolve("devices/system/cpu");
        final CpuSet online = onlineCpus(cpuRoot);

        final Map<Integer, Integer> nodeOfCpu = new TreeMap<>();
        // Ascending node order: should a CPU appear in two node lists, the lower node wins.
        for (final Map.Entry<Integer, Path> node :
            numberedEntries(sysRoot.resolve("devices/system/node"), NODE_DIR).entrySet())
        {
            final CpuSet members = readFile(node.getValue().resolve("cpulist"))
                .flatMap(TopologyReader::parseCpuList).orElse(CpuSet.empty());
            members.stream().forEach(cpu -> nodeOfCpu.putIfAbsent(cpu, node.getKey()));
        }

        final List<Topology.Cpu> cpus = new ArrayList<>();
        final Map<List<Object>, Topology.Cache> caches = new LinkedHashMap<>();
        for (final int id : online.toArray())
        {
            final Path cpuDir = cpuRoot.resolve("cpu" + id);
            final int core = readNonNegativeInt(cpuDir.resolve("topology/core_id")).orElse(id);
            final int pkg = readNonNegativeInt(cpuDir.resolve("topology/physical_package_id")).orElse(0);
            cpus.add(new Topology.Cpu(id, core, pkg, nodeOfCpu.getOrDefault(id, 0)));
            for (final Path index : numberedEntries(cpuDir.resolve("cache"), INDEX_DIR).values())
            {
                readCache(index, id, online).ifPresent(
                    cache -> caches.putIfAbsent(List.of(cache.level(), cache.type(), cache.cpus()), cache));
            }
        }

        CpuSet allowed = readFile(procSelfStatus).flatMap(Binding::parseCpusAllowedList)
            .map(set -> set.intersect(online)).orElse(online);
        if (allowed.isEmpty())
        {
            allowed = online;
        }
        return Topology.of(cpus, caches.values(), allowed);
    }

    private static CpuSet onlineCpus(final Path cpuRoot)
    {
        CpuSet online = readFile(cpuRoot.resolve("online")).flatMap(TopologyReader::parseCpuList)
            .orElse(CpuSet.empty());
        if (online.isEmpty())
        {
            online = CpuSet.of(numberedEntries(cpuRoot, CPU_DIR).keySet().stream()
                .mapToInt(Integer::intValue).toArray());
        }
        if (online.isEmpty())
        {
            online = CpuSet.range(0, Math.max(1, Runtime.getRuntime().availableProcessors()) - 1);
        }
        return online;
    }

    private static Optional<Topology.Cache> readCache(final Path index, final int cpu, final CpuSet online)
    {
        final Optional<Integer> level = readNonNegativeInt(index.resolve("level")).filter(l -> l >= 1);
        final Optional<Topology.CacheType> type = readFile(index.resolve("type")).flatMap(text ->
        {
            try
            {
                return Optional.of(Topology.CacheType.parse(text));
            }
            catch (final IllegalArgumentException e)
            {
                return Optional.empty();
            }
        });
        if (level.isEmpty() || type.isEmpty())
        {
            return Optional.empty();
        }
        final long size = readFile(index.resolve("size")).map(TopologyText::parseSize).filter(s -> s >= 0).orElse(0L);
        CpuSet shared = readFile(index.resolve("shared_cpu_list")).flatMap(TopologyReader::parseCpuList)
            .orElse(CpuSet.of(cpu)).intersect(online);
        if (shared.isEmpty())
        {
            shared = CpuSet.of(cpu);
        }
        return Optional.of(new Topology.Cache(level.get(), type.get(), size, shared));
    }

    private static Optional<CpuSet> parseCpuList(final String text)
    {
        try
        {
            return Optional.of(CpuSet.parse(text));
        }
        catch (final IllegalArgumentException e)
        {
            return Optional.empty();
        }
    }

    private static Optional<Integer> readNonNegativeInt(final Path file)
    {
        return readFile(file).flatMap(text ->
        {
            try
            {
                final int value = Integer.parseInt(text.strip());
                return value >= 0 ? Optional.of(value) : Optional.empty();
            }
            catch (final NumberFormatException e)
            {
                return Optional.empty();
            }
        });
    }

    private static Optional<String> readFile(final Path file)
    {
        try
        {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        }
        catch (final IOException e)
        {
            // Missing, unreadable (sysfs can answer EINVAL) or not UTF-8: the caller falls back.
            return Optional.empty();
        }
    }

    /** Entries of {@code dir} whose names match {@code pattern} (one number group), by that number. */
    private static TreeMap<Integer, Path> numberedEntries(final Path dir, final Pattern pattern)
    {
        final TreeMap<Integer, Path> entries = new TreeMap<>();
        if (!Files.isDirectory(dir))
        {
            return entries;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir))
        {
            for (final Path entry : stream)
            {
                final Matcher m = pattern.matcher(entry.getFileName().toString());
                if (m.matches() && m.group(1).length() <= 9)
                {
                    entries.put(Integer.parseInt(m.group(1)), entry);
                }
            }
        }
        catch (final IOException e)
        {
            // Treated as an empty directory, like a missing one.
            entries.clear();
        }
        return entries;
    }
}
