package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyReaderTest
{
    @TempDir
    Path tmp;

    @Test
    void twoSocketCounts()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        assertEquals(16, t.cpuCount());
        assertEquals(8, t.coreCount());
        assertEquals(2, t.numaNodeCount());
        assertEquals(2, t.packageCount());
        assertEquals(CpuSet.range(0, 15), t.allCpus());
        assertEquals(CpuSet.range(0, 15), t.allowedCpus());
    }

    @Test
    void twoSocketNumaMembership()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        assertEquals(Map.of(0, CpuSet.parse("0-3,8-11"), 1, CpuSet.parse("4-7,12-15")), t.numaNodes());
        for (int cpu = 0; cpu < 16; cpu++)
        {
            final int expectedNode = (cpu % 8) / 4;
            assertEquals(expectedNode, t.numaNodeOf(cpu), "cpu=" + cpu);
            assertEquals(expectedNode, t.cpu(cpu).packageId(), "cpu=" + cpu);
            assertEquals(cpu % 4, t.cpu(cpu).coreId(), "cpu=" + cpu);
        }
        assertEquals(-1, t.numaNodeOf(16));
    }

    @Test
    void twoSocketCoresPairSiblings()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        final List<Topology.Core> cores = t.cores();
        for (int i = 0; i < 8; i++)
        {
            final Topology.Core core = cores.get(i);
            assertEquals(i / 4, core.packageId(), "core index " + i);
            assertEquals(i % 4, core.coreId(), "core index " + i);
            assertEquals(i / 4, core.nodeId(), "core index " + i);
            assertEquals(CpuSet.of(i, i + 8), core.threads(), "core index " + i);
        }
    }

    @Test
    void twoSocketCachesAreDeduplicated()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        // 8 cores x (L1d + L1i + L2) + 2 packages x L3; each read 2 or 8 times from /sys.
        assertEquals(26, t.caches().size());
        final Map<String, Long> counts = t.caches().stream()
            .collect(Collectors.groupingBy(c -> "L" + c.level() + c.type().label(), Collectors.counting()));
        assertEquals(Map.of("L1Data", 8L, "L1Instruction", 8L, "L2Unified", 8L, "L3Unified", 2L), counts);
        for (final Topology.Cache cache : t.caches())
        {
            switch (cache.level())
            {
                case 1:
                    assertEquals(32 * 1024, cache.sizeBytes());
                    assertEquals(2, cache.cpus().size());
                    break;
                case 2:
                    assertEquals(1024 * 1024, cache.sizeBytes());
                    assertEquals(CpuSet.of(cache.cpus().first(), cache.cpus().first() + 8), cache.cpus());
                    break;
                default:
                    assertEquals(3, cache.level());
                    assertEquals(16L * 1024 * 1024, cache.sizeBytes());
                    assertEquals(8, cache.cpus().size());
            }
        }
        final List<CpuSet> l3 = t.caches().stream().filter(c -> c.level() == 3)
            .map(Topology.Cache::cpus).collect(Collectors.toList());
        assertEquals(List.of(CpuSet.parse("0-3,8-11"), CpuSet.parse("4-7,12-15")), l3);
    }

    @Test
    void allowedListIsIntersectedWithOnlineCpus()
    {
        final Path sys = FakeSys.twoSocket(tmp, "2-5,20-23");
        final Topology t = TopologyReader.fromSys(sys, tmp.resolve(FakeSys.STATUS_FILE));
        assertEquals(CpuSet.parse("2-5"), t.allowedCpus());
        assertEquals(16, t.cpuCount());
    }

    @Test
    void missingStatusFileAllowsEveryCpu()
    {
        final Path sys = FakeSys.twoSocket(tmp, "0");
        final Topology t = TopologyReader.fromSys(sys, tmp.resolve("no-such-status"));
        assertEquals(CpuSet.range(0, 15), t.allowedCpus());
    }

    @Test
    void statusWithoutAllowedLineAllowsEveryCpu()
    {
        final Path sys = FakeSys.twoSocket(tmp, "0");
        FakeSys.write(tmp.resolve("status2"), "Name:\tjava\n");
        assertEquals(CpuSet.range(0, 15), TopologyReader.fromSys(sys, tmp.resolve("status2")).allowedCpus());
    }

    @Test
    void missingNodeAndCacheDirsAndTopologyFilesFallBack()
    {
        final Path sys = tmp.resolve("sys");
        final Path cpuRoot = sys.resolve("devices/system/cpu");
        FakeSys.write(cpuRoot.resolve("online"), "0-3\n");
        FakeSys.write(cpuRoot.resolve("cpu0/topology/core_id"), "0\n");
        FakeSys.write(cpuRoot.resolve("cpu0/topology/physical_package_id"), "0\n");
        FakeSys.write(cpuRoot.resolve("cpu1/topology/core_id"), "0\n");   // sibling of cpu0
        FakeSys.write(cpuRoot.resolve("cpu1/topology/physical_package_id"), "0\n");
        FakeSys.mkdirs(cpuRoot.resolve("cpu2"));                          // no topology dir at all
        FakeSys.write(cpuRoot.resolve("cpu3/topology/core_id"), "garbage\n");
        FakeSys.write(cpuRoot.resolve("cpu3/topology/physical_package_id"), "-1\n");

        final Topology t = TopologyReader.fromSys(sys, tmp.resolve("absent"));
        assertEquals(4, t.cpuCount());
        assertEquals(1, t.numaNodeCount());
        assertEquals(Map.of(0, CpuSet.range(0, 3)), t.numaNodes());
        assertEquals(1, t.packageCount());
        assertEquals(3, t.coreCount());
        assertEquals(CpuSet.of(0, 1), t.cores().get(0).threads());
        assertEquals(new Topology.Cpu(2, 2, 0, 0), t.cpu(2));
        assertEquals(new Topology.Cpu(3, 3, 0, 0), t.cpu(3));
        assertTrue(t.caches().isEmpty());
        assertEquals(CpuSet.range(0, 3), t.allowedCpus());
    }

    @Test
    void withoutOnlineFileCpuDirectoriesAreUsed()
    {
        final Path cpuRoot = tmp.resolve("sys/devices/system/cpu");
        FakeSys.mkdirs(cpuRoot.resolve("cpu0"));
        FakeSys.mkdirs(cpuRoot.resolve("cpu1"));
        FakeSys.mkdirs(cpuRoot.resolve("cpu10"));
        FakeSys.mkdirs(cpuRoot.resolve("cpufreq"));
        FakeSys.mkdirs(cpuRoot.resolve("cpuidle"));
        FakeSys.write(cpuRoot.resolve("online"), "not a list\n");
        final Topology t = TopologyReader.fromSys(tmp.resolve("sys"), tmp.resolve("absent"));
        assertEquals(CpuSet.of(0, 1, 10), t.allCpus());
    }

    @Test
    void emptySysRootFallsBackToAvailableProcessors()
    {
        final Topology t = TopologyReader.fromSys(tmp.resolve("nothing"), tmp.resolve("absent"));
        assertEquals(Runtime.getRuntime().availableProcessors(), t.cpuCount());
        assertEquals(1, t.numaNodeCount());
    }

    @Test
    void incompleteCacheIndexesDegradeGracefully()
    {
        final Path sys = tmp.resolve("sys");
        final Path cpuRoot = sys.resolve("devices/system/cpu");
        FakeSys.write(cpuRoot.resolve("online"), "0-1\n");
        FakeSys.write(sys.resolve("devices/system/node/node0/cpulist"), "0\n");
        FakeSys.write(sys.resolve("devices/system/node/node3/cpulist"), "1\n");
        for (int cpu = 0; cpu < 2; cpu++)
        {
            final Path cache = cpuRoot.resolve("cpu" + cpu + "/cache");
            FakeSys.write(cache.resolve("index0/level"), "1\n");            // no type: skipped
            FakeSys.write(cache.resolve("index1/level"), "2\n");
            FakeSys.write(cache.resolve("index1/type"), "Unified\n");       // no size, no shared list
            FakeSys.write(cache.resolve("index2/level"), "3\n");
            FakeSys.write(cache.resolve("index2/type"), "Unified\n");
            FakeSys.write(cache.resolve("index2/size"), "8M\n");
            FakeSys.write(cache.resolve("index2/shared_cpu_list"), "0-1,64\n"); // 64 is not online
            FakeSys.write(cache.resolve("index3/level"), "4\n");
            FakeSys.write(cache.resolve("index3/type"), "Trace\n");         // unknown type: skipped
        }
        final Topology t = TopologyReader.fromSys(sys, tmp.resolve("absent"));
        assertEquals(List.of(
            new Topology.Cache(2, Topology.CacheType.UNIFIED, 0, CpuSet.of(0)),
            new Topology.Cache(2, Topology.CacheType.UNIFIED, 0, CpuSet.of(1)),
            new Topology.Cache(3, Topology.CacheType.UNIFIED, 8L << 20, CpuSet.of(0, 1))), t.caches());
        assertEquals(Map.of(0, CpuSet.of(0), 3, CpuSet.of(1)), t.numaNodes());
        assertEquals(3, t.numaNodeOf(1));
    }

    @Test
    void cacheSizesParse()
    {
        assertEquals(32 * 1024, TopologyText.parseSize("32K"));
        assertEquals(1024 * 1024, TopologyText.parseSize("1024K\n"));
        assertEquals(16L << 20, TopologyText.parseSize("16M"));
        assertEquals(1L << 30, TopologyText.parseSize("1G"));
        assertEquals(48 * 1024, TopologyText.parseSize("48KB"));
        assertEquals(512, TopologyText.parseSize("512"));
        assertEquals(512, TopologyText.parseSize("512B"));
        assertEquals(-1, TopologyText.parseSize(""));
        assertEquals(-1, TopologyText.parseSize("K"));
        assertEquals(-1, TopologyText.parseSize("12X"));
        assertEquals(-1, TopologyText.parseSize("-4K"));
    }

    @Test
    void liveTopologyIsConsistent()
    {
        final Topology t = TopologyReader.live();
        assertTrue(t.cpuCount() >= 1);
        assertTrue(t.coreCount() >= 1 && t.coreCount() <= t.cpuCount());
        assertTrue(t.numaNodeCount() >= 1);
        assertFalse(t.allowedCpus().isEmpty());
        assertTrue(t.allCpus().containsAll(t.allowedCpus()));
        assertEquals(t, Topology.parse(t.toText()));
    }
}
