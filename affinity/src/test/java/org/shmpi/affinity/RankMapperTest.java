package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RankMapperTest
{
    @TempDir
    Path tmp;

    private static List<CpuSet> singles(final int... cpus)
    {
        final List<CpuSet> sets = new ArrayList<>();
        for (final int cpu : cpus)
        {
            sets.add(CpuSet.of(cpu));
        }
        return sets;
    }

    @Test
    void coreWithFourRanksTakesFirstThreadsOfNodeZero()
    {
        final RankMapper m = new RankMapper(FakeSys.twoSocketTopology(tmp), MappingPolicy.CORE);
        assertEquals(singles(0, 1, 2, 3), m.map(4));
        for (int r = 0; r < 4; r++)
        {
            assertEquals(0, m.numaNodeOfRank(r));
        }
    }

    @Test
    void coreWithSixteenRanksFillsCoresBeforeSiblings()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        final RankMapper m = new RankMapper(t, MappingPolicy.CORE);
        final List<CpuSet> map = m.map(16);
        assertEquals(singles(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), map);
        assertEquals(16, new HashSet<>(map).size());
        // The first 8 ranks land on 8 distinct cores.
        final HashSet<Topology.Core> cores = new HashSet<>();
        for (int r = 0; r < 8; r++)
        {
            final int cpu = map.get(r).first();
            t.cores().stream().filter(c -> c.threads().contains(cpu)).forEach(cores::add);
        }
        assertEquals(8, cores.size());
        assertEquals(1, m.numaNodeOfRank(4));
        assertEquals(0, m.numaNodeOfRank(8));
        assertEquals(1, m.numaNodeOfRank(15));
    }

    @Test
    void coreWithTwentyRanksWrapsAround()
    {
        final RankMapper m = new RankMapper(FakeSys.twoSocketTopology(tmp), MappingPolicy.CORE);
        final List<CpuSet> map = m.map(20);
        assertEquals(20, map.size());
        assertEquals(singles(0, 1, 2, 3), map.subList(16, 20));
        assertEquals(map.subList(0, 16), m.map(16));
        assertEquals(CpuSet.of(5), m.cpusOfRank(16 * 3 + 5));
    }

    @Test
    void coreUsesOnlyAllowedCpus()
    {
        // cpu1 and its sibling 9 are core (0,1) on node 0; 4 and 5 are cores (1,0) and (1,1) on node 1.
        final Topology t = FakeSys.twoSocketTopology(tmp).withAllowed(CpuSet.parse("1,4-5,9"));
        final RankMapper m = new RankMapper(t, MappingPolicy.CORE);
        assertEquals(singles(1, 4, 5, 9, 1), m.map(5));
        assertEquals(List.of(0, 1, 1, 0), List.of(m.numaNodeOfRank(0), m.numaNodeOfRank(1),
            m.numaNodeOfRank(2), m.numaNodeOfRank(3)));
    }

    @Test
    void coreOrdersByNodeBeforePackage()
    {
        // Node ids cross packages: package 0 on node 1, package 1 on node 0.
        final Topology t = Topology.parse(String.join("\n",
            "cpu 0 core=0 package=0 node=1",
            "cpu 1 core=1 package=0 node=1",
            "cpu 2 core=0 package=1 node=0",
            "cpu 3 core=1 package=1 node=0"));
        assertEquals(singles(2, 3, 0, 1), new RankMapper(t, MappingPolicy.CORE).map(4));
    }

    @Test
    void numaWithThreeRanksAlternatesNodes()
    {
        final RankMapper m = new RankMapper(FakeSys.twoSocketTopology(tmp), MappingPolicy.NUMA);
        final CpuSet node0 = CpuSet.parse("0-3,8-11");
        final CpuSet node1 = CpuSet.parse("4-7,12-15");
        assertEquals(List.of(node0, node1, node0), m.map(3));
        assertEquals(0, m.numaNodeOfRank(0));
        assertEquals(1, m.numaNodeOfRank(1));
        assertEquals(0, m.numaNodeOfRank(2));
    }

    @Test
    void numaSkipsNodesWithoutAllowedCpusAndTrimsToAllowed()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp).withAllowed(CpuSet.parse("5,12-13"));
        final RankMapper m = new RankMapper(t, MappingPolicy.NUMA);
        assertEquals(List.of(CpuSet.parse("5,12-13"), CpuSet.parse("5,12-13")), m.map(2));
        assertEquals(1, m.numaNodeOfRank(0));
        assertEquals(1, m.numaNodeOfRank(1));
    }

    @Test
    void noneBindsNothing()
    {
        final RankMapper m = new RankMapper(FakeSys.twoSocketTopology(tmp), MappingPolicy.NONE);
        final List<CpuSet> map = m.map(3);
        assertEquals(3, map.size());
        assertTrue(map.stream().allMatch(CpuSet::isEmpty));
        assertEquals(-1, m.numaNodeOfRank(0));
        assertEquals(-1, m.numaNodeOfRank(2));
    }

    @Test
    void badRanksAreRejected()
    {
        final RankMapper m = new RankMapper(FakeSys.twoSocketTopology(tmp), MappingPolicy.CORE);
        assertTrue(m.map(0).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> m.map(-1));
        assertThrows(IllegalArgumentException.class, () -> m.cpusOfRank(-1));
        assertThrows(IllegalArgumentException.class, () -> m.numaNodeOfRank(-1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"core", "CORE", " Core ", "numa", "Numa", "none", "NONE"})
    void policyNamesParse(final String text)
    {
        assertEquals(text.strip().toLowerCase(java.util.Locale.ROOT), MappingPolicy.parse(text).label());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "socket", "cores", "numa-node"})
    void unknownPolicyNamesTheValueAndTheChoices(final String text)
    {
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> MappingPolicy.parse(text));
        assertTrue(e.getMessage().contains("value=" + text), e.getMessage());
        assertTrue(e.getMessage().contains("core,numa,none"), e.getMessage());
    }
}
