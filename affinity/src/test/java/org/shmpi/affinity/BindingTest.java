package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BindingTest
{
    @TempDir
    Path tmp;

    @Test
    void tasksetPrefixUsesCanonicalList()
    {
        assertEquals(List.of("taskset", "-c", "0-3,8,10-11"), Binding.taskset(CpuSet.of(0, 1, 2, 3, 8, 10, 11)));
        assertEquals(List.of("taskset", "-c", "5"), Binding.taskset(CpuSet.of(5)));
        assertThrows(UnsupportedOperationException.class, () -> Binding.taskset(CpuSet.of(1)).add("java"));
    }

    @Test
    void tasksetRejectsEmptySet()
    {
        assertThrows(IllegalArgumentException.class, () -> Binding.taskset(CpuSet.empty()));
    }

    @Test
    void currentAffinityReadsAllowedList()
    {
        final Path status = tmp.resolve("status");
        FakeSys.write(status, FakeSys.status("0-2,7"));
        assertEquals(CpuSet.parse("0-2,7"), Binding.currentAffinity(status));
    }

    @Test
    void currentAffinityFailsClearly()
    {
        final Path status = tmp.resolve("status");
        FakeSys.write(status, "Name:\tjava\nCpus_allowed:\t3\n");
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> Binding.currentAffinity(status));
        assertTrue(e.getMessage().contains("Cpus_allowed_list"), e.getMessage());
        assertThrows(UncheckedIOException.class, () -> Binding.currentAffinity(tmp.resolve("absent")));
        assertTrue(Binding.parseCpusAllowedList("Cpus_allowed_list:\tzz\n").isEmpty());
    }

    @Test
    void liveAffinityMatchesLiveTopology()
    {
        final CpuSet live = Binding.currentAffinity();
        assertFalse(live.isEmpty());
        final Topology t = TopologyReader.live();
        assertEquals(live.intersect(t.allCpus()), t.allowedCpus());
    }
}
