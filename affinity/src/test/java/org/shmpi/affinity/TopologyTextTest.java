package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopologyTextTest
{
    private static final String HAND_WRITTEN = String.join("\n",
        "# a small two-node box, written by hand",
        "",
        "cpu 0 core=0 package=0 node=0",
        "cpu 1 node=0 package=0 core=1   ",
        "   # indented comment",
        "cpu 2 core=0 package=1 node=1",
        "cpu 3 package=1 node=1",
        "cache L1 data 32K cpus=0",
        "cache L3 Unified 8M cpus=2-3",
        "cache L3 Unified 8388608 cpus=0-1",
        "allowed 1-3",
        "");

    @TempDir
    Path tmp;

    @Test
    void twoSocketRoundTripsExactly()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp);
        final String text = t.toText();
        final Topology back = Topology.parse(text);
        assertEquals(t, back);
        assertEquals(t.hashCode(), back.hashCode());
        assertEquals(text, back.toText());
        assertEquals(t.cores(), back.cores());
        assertEquals(t.numaNodes(), back.numaNodes());
    }

    @Test
    void restrictedAllowedSetRoundTrips()
    {
        final Topology t = FakeSys.twoSocketTopology(tmp).withAllowed(CpuSet.parse("1,4-5,9"));
        final Topology back = Topology.parse(t.toText());
        assertEquals(CpuSet.parse("1,4-5,9"), back.allowedCpus());
        assertEquals(t, back);
        assertNotEquals(FakeSys.twoSocketTopology(tmp.resolve("again")), back);
    }

    @Test
    void toTextHasTheDocumentedLines()
    {
        final String text = FakeSys.twoSocketTopology(tmp).toText();
        assertTrue(text.startsWith("#"), text);
        assertTrue(text.contains("\ncpu 13 core=1 package=1 node=1\n"), text);
        assertTrue(text.contains("\ncache L1 Data 32768 cpus=0,8\n"), text);
        assertTrue(text.contains("\ncache L3 Unified 16777216 cpus=4-7,12-15\n"), text);
        assertTrue(text.endsWith("\nallowed 0-15\n"), text);
    }

    @Test
    void handWrittenFileParses()
    {
        final Topology t = Topology.parse(HAND_WRITTEN);
        assertEquals(4, t.cpuCount());
        assertEquals(4, t.coreCount());
        assertEquals(2, t.packageCount());
        assertEquals(Map.of(0, CpuSet.of(0, 1), 1, CpuSet.of(2, 3)), t.numaNodes());
        assertEquals(new Topology.Cpu(1, 1, 0, 0), t.cpu(1));
        assertEquals(new Topology.Cpu(3, 3, 1, 1), t.cpu(3)); // missing core= defaults to the cpu id
        assertEquals(List.of(
            new Topology.Cache(1, Topology.CacheType.DATA, 32768, CpuSet.of(0)),
            new Topology.Cache(3, Topology.CacheType.UNIFIED, 8L << 20, CpuSet.of(0, 1)),
            new Topology.Cache(3, Topology.CacheType.UNIFIED, 8L << 20, CpuSet.of(2, 3))), t.caches());
        assertEquals(CpuSet.parse("1-3"), t.allowedCpus());
        assertEquals(t, Topology.parse(t.toText()));
    }

    @Test
    void missingAllowedLineMeansAllCpus()
    {
        final Topology t = Topology.parse("cpu 0\ncpu 1\n");
        assertEquals(CpuSet.of(0, 1), t.allowedCpus());
        assertEquals(2, t.coreCount());
        assertEquals(Map.of(0, CpuSet.of(0, 1)), t.numaNodes());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cpu 0\\nsocket 1|line=2",
        "cpu 0\\ncpu 0|line=2",
        "cpu 1\\n# c\\ncpu 0 core=x|line=3",
        "cpu 0 colour=red|line=1",
        "cpu 0 core=1 core=2|line=1",
        "cpu|line=1",
        "cpu -1|line=1",
        "cpu 0\\ncache L1 Data 32K|line=2",
        "cpu 0\\ncache L1 Victim 32K cpus=0|line=2",
        "cpu 0\\ncache L1 Data 3Q cpus=0|line=2",
        "cpu 0\\ncache X1 Data 32K cpus=0|line=2",
        "cpu 0\\ncache L0 Data 32K cpus=0|line=2",
        "cpu 0\\nallowed 0\\nallowed 0|line=3",
        "cpu 0\\nallowed 0-|line=2",
    })
    void malformedLinesNameTheLine(final String text, final String expected)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Topology.parse(text.replace("\\n", "\n")));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void inconsistentTopologiesAreRejected()
    {
        assertThrows(IllegalArgumentException.class, () -> Topology.parse(""));
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("cpu 0\nallowed 1\n"));
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("cpu 0\nallowed \n"));
        assertThrows(IllegalArgumentException.class, () -> Topology.parse("cpu 0\ncache L2 Unified 1M cpus=0-1\n"));
        assertThrows(IllegalArgumentException.class,
            () -> Topology.parse("cpu 0\ncache L2 Unified 1M cpus=0\ncache L2 Unified 2M cpus=0\n"));
        assertThrows(IllegalArgumentException.class,
            () -> Topology.of(List.of(), List.of(), null));
        assertThrows(IllegalArgumentException.class,
            () -> Topology.of(List.of(new Topology.Cpu(0, 0, 0, 0)), List.of(), CpuSet.empty()));
    }

    @Test
    void loadAndDetectUseTheFile()
    {
        final Path file = tmp.resolve("box.topology");
        FakeSys.write(file, HAND_WRITTEN);
        final Topology expected = Topology.parse(HAND_WRITTEN);
        assertEquals(expected, Topology.load(file));
        final Properties settings = new Properties();
        settings.setProperty(Topology.TOPOLOGY_FILE_PROP_NAME, file.toString());
        assertEquals(expected, Topology.detect(settings));
    }

    @Test
    void detectWithoutFileReadsTheLiveSystem()
    {
        assertEquals(TopologyReader.live().allCpus(), Topology.detect(new Properties()).allCpus());
    }

    @Test
    void loadErrorsNameTheFile()
    {
        final Path missing = tmp.resolve("missing.topology");
        final UncheckedIOException io = assertThrows(UncheckedIOException.class, () -> Topology.load(missing));
        assertTrue(io.getMessage().contains("file=" + missing), io.getMessage());
        final Path bad = tmp.resolve("bad.topology");
        FakeSys.write(bad, "cpu 0\nbogus\n");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.load(bad));
        assertTrue(e.getMessage().contains("file=" + bad) && e.getMessage().contains("line=2"), e.getMessage());
    }

    @Test
    void describeSummarisesTheMachine()
    {
        final String d = FakeSys.twoSocketTopology(tmp).withAllowed(CpuSet.parse("0-7")).describe();
        assertTrue(d.contains("CPUs: 16 (8 allowed)"), d);
        assertTrue(d.contains("Cores: 8, up to 2 thread(s) per core"), d);
        assertTrue(d.contains("Packages: 2"), d);
        assertTrue(d.contains("NUMA nodes: 2"), d);
        assertTrue(d.contains("node 0: cpus 0-3,8-11 (8)"), d);
        assertTrue(d.contains("node 1: cpus 4-7,12-15 (8)"), d);
        assertTrue(d.contains("L1 Data: 32 KiB x 8"), d);
        assertTrue(d.contains("L1 Instruction: 32 KiB x 8"), d);
        assertTrue(d.contains("L2 Unified: 1 MiB x 8"), d);
        assertTrue(d.contains("L3 Unified: 16 MiB x 2"), d);
        assertTrue(d.contains("Allowed CPUs: 0-7"), d);
    }
}
