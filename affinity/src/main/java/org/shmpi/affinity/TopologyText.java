package org.shmpi.affinity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The text forms of a {@link Topology}: the line-based file format described in its class comment,
 * read ({@link #parse(String)}) and written ({@link #write(Topology)}), and the multi-line human
 * summary ({@link #describe(Topology)}). The model itself, and its validation, stay in
 * {@link Topology}; the live system is read by {@link TopologyReader}.
 */
final class TopologyText
{
    private TopologyText()
    {
    }

    /**
     * Parses the text format of {@link Topology}'s class comment.
     *
     * @param text the file contents
     * @return the topology
     * @throws IllegalArgumentException with {@code line=} for malformed input
     */
    static Topology parse(final String text)
    {
        final List<Topology.Cpu> cpuList = new ArrayList<>();
        final List<Topology.Cache> cacheList = new ArrayList<>();
        CpuSet allowedCpus = null;
        // Duplicates are caught here too so the message can name the line.
        final Set<Integer> cpuIds = new HashSet<>();
        final Set<List<Object>> cacheKeys = new HashSet<>();
        final String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            try
            {
                final String[] tokens = line.split("\\s+");
                switch (tokens[0])
                {
                    case "cpu":
                        final Topology.Cpu cpu = parseCpuLine(tokens);
                        if (!cpuIds.add(cpu.id()))
                        {
                            throw new IllegalArgumentException("duplicate cpu: id=" + cpu.id());
                        }
                        cpuList.add(cpu);
                        break;
                    case "cache":
                        final Topology.Cache cache = parseCacheLine(tokens);
                        if (!cacheKeys.add(List.of(cache.level(), cache.type(), cache.cpus())))
                        {
                            throw new IllegalArgumentException("duplicate cache: cache=" + cache);
                        }
                        cacheList.add(cache);
                        break;
                    case "allowed":
                        if (allowedCpus != null)
                        {
                            throw new IllegalArgumentException("second allowed line");
                        }
                        if (tokens.length != 2)
                        {
                            throw new IllegalArgumentException("expected: allowed <cpulist>");
                        }
                        allowedCpus = CpuSet.parse(tokens[1]);
                        break;
                    default:
                        throw new IllegalArgumentException(
                            "unknown directive: value=" + tokens[0] + ", allowed=cpu,cache,allowed");
                }
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException(
                    "bad topology line: line=" + (i + 1) + ", text=\"" + line + "\", " + e.getMessage(), e);
            }
        }
        return Topology.of(cpuList, cacheList, allowedCpus);
    }

    private static Topology.Cpu parseCpuLine(final String[] tokens)
    {
        if (tokens.length < 2)
        {
            throw new IllegalArgumentException("expected: cpu <id> core=<c> package=<p> node=<n>");
        }
        final int id = parseNonNegative("id", tokens[1]);
        int core = id;
        int pkg = 0;
        int node = 0;
        final Set<String> seen = new HashSet<>();
        for (int t = 2; t < tokens.length; t++)
        {
            final int eq = tokens[t].indexOf('=');
            final String key = eq < 0 ? tokens[t] : tokens[t].substring(0, eq);
            if (eq < 0 || !seen.add(key))
            {
                throw new IllegalArgumentException("bad or repeated key: value=" + tokens[t]);
            }
            final String value = tokens[t].substring(eq + 1);
            switch (key)
            {
                case "core":
                    core = parseNonNegative(key, value);
                    break;
                case "package":
                    pkg = parseNonNegative(key, value);
                    break;
                case "node":
                    node = parseNonNegative(key, value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown key: value=" + key + ", allowed=core,package,node");
            }
        }
        return new Topology.Cpu(id, core, pkg, node);
    }

    private static Topology.Cache parseCacheLine(final String[] tokens)
    {
        if (tokens.length != 5 || !tokens[1].startsWith("L") || !tokens[4].startsWith("cpus="))
        {
            throw new IllegalArgumentException("expected: cache L<level> <type> <size> cpus=<cpulist>");
        }
        final int level = parseNonNegative("level", tokens[1].substring(1));
        final Topology.CacheType type = Topology.CacheType.parse(tokens[2]);
        final long size = parseSize(tokens[3]);
        if (size < 0)
        {
            throw new IllegalArgumentException("bad cache size: value=" + tokens[3]);
        }
        return new Topology.Cache(level, type, size, CpuSet.parse(tokens[4].substring("cpus=".length())));
    }

    private static int parseNonNegative(final String name, final String value)
    {
        try
        {
            final int v = Integer.parseInt(value);
            if (v >= 0)
            {
                return v;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // reported below with the field name
        }
        throw new IllegalArgumentException("not a non-negative integer: " + name + "=" + value);
    }

    /**
     * Parses a cache size as Linux writes it ({@code "32K"}, {@code "16M"}) or plain bytes.
     *
     * @param text the size; suffixes K, M, G are binary units, any case, optional trailing "B"
     * @return bytes, or -1 when malformed (sysfs content is untrusted, callers fall back)
     */
    static long parseSize(final String text)
    {
        String s = text.strip().toUpperCase(Locale.ROOT);
        if (s.endsWith("B"))
        {
            s = s.substring(0, s.length() - 1);
        }
        long multiplier = 1;
        if (!s.isEmpty())
        {
            switch (s.charAt(s.length() - 1))
            {
                case 'K':
                    multiplier = 1L << 10;
                    break;
                case 'M':
                    multiplier = 1L << 20;
                    break;
                case 'G':
                    multiplier = 1L << 30;
                    break;
                default:
                    break;
            }
        }
        if (multiplier != 1)
        {
            s = s.substring(0, s.length() - 1);
        }
        if (s.isEmpty() || s.length() > 12 || !s.chars().allMatch(Character::isDigit))
        {
            return -1;
        }
        return Long.parseLong(s) * multiplier;
    }

    /** @return the text form of {@code t}; {@link #parse(String)} reads it back equal. */
    static String write(final Topology t)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("# shmpi topology: ").append(t.cpus().size()).append(" cpus, ").append(t.cores().size())
            .append(" cores, ").append(t.numaNodes().size()).append(" numa nodes\n");
        for (final Topology.Cpu cpu : t.cpus())
        {
            sb.append("cpu ").append(cpu.id()).append(" core=").append(cpu.coreId())
                .append(" package=").append(cpu.packageId()).append(" node=").append(cpu.nodeId()).append('\n');
        }
        for (final Topology.Cache cache : t.caches())
        {
            sb.append("cache L").append(cache.level()).append(' ').append(cache.type().label()).append(' ')
                .append(cache.sizeBytes()).append(" cpus=").append(cache.cpus()).append('\n');
        }
        sb.append("allowed ").append(t.allowedCpus()).append('\n');
        return sb.toString();
    }

    /** @return a multi-line human summary of {@code t}: counts, NUMA nodes, caches, allowed CPUs. */
    static String describe(final Topology t)
    {
        final StringBuilder sb = new StringBuilder();
        final int threadsPerCore = t.cores().stream().mapToInt(c -> c.threads().size()).max().orElse(1);
        sb.append("CPUs: ").append(t.cpuCount()).append(" (").append(t.allowedCpus().size()).append(" allowed)\n");
        sb.append("Cores: ").append(t.coreCount()).append(", up to ").append(threadsPerCore)
            .append(" thread(s) per core\n");
        sb.append("Packages: ").append(t.packageCount()).append('\n');
        sb.append("NUMA nodes: ").append(t.numaNodeCount()).append('\n');
        t.numaNodes().forEach((node, set) -> sb.append("  node ").append(node).append(": cpus ").append(set)
            .append(" (").append(set.size()).append(")\n"));
        // Group instances by (level, type, size): hybrid CPUs have same-level caches of different sizes.
        final Map<String, Integer> cacheGroups = new LinkedHashMap<>();
        for (final Topology.Cache cache : t.caches())
        {
            final String key = "L" + cache.level() + " " + cache.type().label() + ": " + formatSize(cache.sizeBytes());
            cacheGroups.merge(key, 1, Integer::sum);
        }
        sb.append("Caches:").append(cacheGroups.isEmpty() ? " unknown\n" : "\n");
        cacheGroups.forEach((key, count) -> sb.append("  ").append(key).append(" x ").append(count).append('\n'));
        sb.append("Allowed CPUs: ").append(t.allowedCpus()).append('\n');
        return sb.toString();
    }

    private static String formatSize(final long bytes)
    {
        if (bytes == 0)
        {
            return "size unknown";
        }
        if (bytes % (1L << 30) == 0)
        {
            return (bytes >> 30) + " GiB";
        }
        if (bytes % (1L << 20) == 0)
        {
            return (bytes >> 20) + " MiB";
        }
        if (bytes % (1L << 10) == 0)
        {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
