package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class TopologyDomainsTest
{
    /** 2 packages; package 0 is 2 NUMA nodes; an L3 per 2 cores; 8 cores of 2 threads. */
    private static final Topology MACHINE = Topology.parse(String.join("\n",
        "cpu 0 core=0 package=0 node=0", "cpu 1 core=1 package=0 node=0",
        "cpu 2 core=2 package=0 node=1", "cpu 3 core=3 package=0 node=1",
        "cpu 4 core=0 package=1 node=2", "cpu 5 core=1 package=1 node=2",
        "cpu 6 core=2 package=1 node=2", "cpu 7 core=3 package=1 node=2",
        "cpu 8 core=0 package=0 node=0", "cpu 9 core=1 package=0 node=0",
        "cpu 10 core=2 package=0 node=1", "cpu 11 core=3 package=0 node=1",
        "cpu 12 core=0 package=1 node=2", "cpu 13 core=1 package=1 node=2",
        "cpu 14 core=2 package=1 node=2", "cpu 15 core=3 package=1 node=2",
        "cache L3 Unified 8M cpus=0-1,8-9", "cache L3 Unified 8M cpus=2-3,10-11",
        "cache L3 Unified 8M cpus=4-5,12-13", "cache L3 Unified 8M cpus=6-7,14-15",
        "cache L2 Unified 1M cpus=0,8", ""));

    @Test
    void domainsOfEachLevel()
    {
        assertEquals(List.of(CpuSet.parse("0-1,8-9"), CpuSet.parse("2-3,10-11"), CpuSet.parse("4-7,12-15")),
            MACHINE.domains(Topology.Level.NUMA));
        assertEquals(List.of(CpuSet.parse("0-3,8-11"), CpuSet.parse("4-7,12-15")),
            MACHINE.domains(Topology.Level.PACKAGE));
        assertEquals(List.of(CpuSet.parse("0-1,8-9"), CpuSet.parse("2-3,10-11"), CpuSet.parse("4-5,12-13"),
            CpuSet.parse("6-7,14-15")), MACHINE.domains(Topology.Level.L3CACHE));
        final List<CpuSet> cores = MACHINE.domains(Topology.Level.CORE);
        assertEquals(8, cores.size());
        assertEquals(CpuSet.of(0, 8), cores.get(0));
        assertEquals(CpuSet.of(7, 15), cores.get(7));
    }

    @Test
    void withoutAnL3TheL3DomainsAreThePackages()
    {
        final Topology noL3 = Topology.parse("cpu 0 package=0\ncpu 1 package=1\ncache L2 Unified 1M cpus=0\n");
        assertEquals(noL3.domains(Topology.Level.PACKAGE), noL3.domains(Topology.Level.L3CACHE));
    }

    @Test
    void aBoundProcessIsInOneDomainAnUnboundOneInEveryDomainItMayUse()
    {
        assertArrayEquals(new int[] {1}, MACHINE.domainsSpanned(Topology.Level.NUMA, CpuSet.of(10)));
        assertArrayEquals(new int[] {2}, MACHINE.domainsSpanned(Topology.Level.NUMA, CpuSet.parse("4-7")));
        assertArrayEquals(new int[] {0, 1}, MACHINE.domainsSpanned(Topology.Level.NUMA, CpuSet.parse("1-2")));
        assertArrayEquals(new int[] {0}, MACHINE.domainsSpanned(Topology.Level.PACKAGE, CpuSet.parse("1-2")));
        assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7},
            MACHINE.domainsSpanned(Topology.Level.CORE, CpuSet.parse("1-7")));
        // CPUs the topology does not know are ignored; knowing none, the process could be anywhere.
        assertArrayEquals(new int[] {0}, MACHINE.domainsSpanned(Topology.Level.NUMA, CpuSet.of(0, 99)));
        assertArrayEquals(new int[] {0, 1, 2}, MACHINE.domainsSpanned(Topology.Level.NUMA, CpuSet.of(99)));
    }
}
