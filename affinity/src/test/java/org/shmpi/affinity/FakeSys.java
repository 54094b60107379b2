package org.shmpi.affinity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds fake sysfs trees in a temporary directory. The main one is a two-socket machine laid
 * out like real Linux numbers it: 2 packages = 2 NUMA nodes, 4 cores per package, 2 threads per
 * core, cpu0..7 the first threads and cpu8..15 their siblings.
 */
final class FakeSys
{
    static final String STATUS_FILE = "status";

    private FakeSys()
    {
    }

    static void write(final Path file, final String content)
    {
        try
        {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static void mkdirs(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    static String status(final String allowedList)
    {
        return "Name:\tjava\nUmask:\t0022\nCpus_allowed:\tffff\nCpus_allowed_list:\t" + allowedList
            + "\nMems_allowed_list:\t0-1\n";
    }

    /** Writes the two-socket tree under {@code root/sys} and a status file; returns the sys root. */
    static Path twoSocket(final Path root, final String allowedList)
    {
        final Path sys = root.resolve("sys");
        final Path cpuRoot = sys.resolve("devices/system/cpu");
        write(cpuRoot.resolve("online"), "0-15\n");
        write(cpuRoot.resolve("possible"), "0-15\n");
        mkdirs(cpuRoot.resolve("cpufreq"));
        mkdirs(cpuRoot.resolve("cpuidle"));
        final Path nodeRoot = sys.resolve("devices/system/node");
        write(nodeRoot.resolve("node0/cpulist"), "0-3,8-11\n");
        write(nodeRoot.resolve("node1/cpulist"), "4-7,12-15\n");
        write(nodeRoot.resolve("possible"), "0-1\n");
        write(nodeRoot.resolve("has_cpu"), "0-1\n");
        for (int cpu = 0; cpu < 16; cpu++)
        {
            final int firstThread = cpu % 8;
            final int pkg = firstThread / 4;
            final int core = firstThread % 4;
            final String siblings = firstThread + "," + (firstThread + 8);
            final String packageCpus = pkg == 0 ? "0-3,8-11" : "4-7,12-15";
            final Path dir = cpuRoot.resolve("cpu" + cpu);
            write(dir.resolve("topology/core_id"), core + "\n");
            write(dir.resolve("topology/physical_package_id"), pkg + "\n");
            writeCache(dir.resolve("cache/index0"), 1, "Data", "32K", siblings);
            writeCache(dir.resolve("cache/index1"), 1, "Instruction", "32K", siblings);
            writeCache(dir.resolve("cache/index2"), 2, "Unified", "1024K", siblings);
            writeCache(dir.resolve("cache/index3"), 3, "Unified", "16M", packageCpus);
            write(dir.resolve("cache/uevent"), "");
        }
        write(root.resolve(STATUS_FILE), status(allowedList));
        return sys;
    }

    static void writeCache(final Path index, final int level, final String type, final String size,
        final String shared)
    {
        write(index.resolve("level"), level + "\n");
        write(index.resolve("type"), type + "\n");
        write(index.resolve("size"), size + "\n");
        write(index.resolve("shared_cpu_list"), shared + "\n");
        write(index.resolve("coherency_line_size"), "64\n");
    }

    /** The two-socket topology with every CPU allowed. */
    static Topology twoSocketTopology(final Path root)
    {
        return TopologyReader.fromSys(twoSocket(root, "0-15"), root.resolve(STATUS_FILE));
    }
}
