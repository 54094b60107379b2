package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Host files, host lists and the rank-to-host mapping, in Open MPI's syntax and choices. */
class HostsTest
{
    @Test
    void hostFileLinesCommentsAndRepeats(@TempDir final Path dir) throws Exception
    {
        final Path f = dir.resolve("hosts");
        Files.writeString(f, "# cluster\nnode1 slots=4\nnode2   slots=2 max_slots=8 # two\n\nnode1\nnode3\n");
        final Hosts h = Hosts.parseFile(f);
        assertEquals(List.of(new Hosts.Host("node1", 5), new Hosts.Host("node2", 2), new Hosts.Host("node3", 1)),
            h.hosts());
        assertEquals(8, h.slots());
        Files.writeString(f, "node1 cpus=4\n");
        assertTrue(assertThrows(LaunchOptions.UsageException.class, () -> Hosts.parseFile(f)).getMessage()
            .contains(":1: unknown word 'cpus=4'"));
        Files.writeString(f, "# nothing\n");
        assertThrows(LaunchOptions.UsageException.class, () -> Hosts.parseFile(f));
    }

    @Test
    void hostListsCountSlots()
    {
        assertEquals(List.of(new Hosts.Host("a", 4), new Hosts.Host("b", 2)), Hosts.parseList("a:4,b,b").hosts());
        assertThrows(LaunchOptions.UsageException.class, () -> Hosts.parseList("a:0"));
    }

    @Test
    void mappingBySlotByNodeAndPerNode()
    {
        final Hosts h = Hosts.parseList("a:2,b:2,c:1");
        assertArrayEquals(new int[] {0, 0, 1, 1, 2}, h.map(-1, false, 0, false), "by slot, -np from the slots");
        assertArrayEquals(new int[] {0, 0, 1}, h.map(3, false, 0, false));
        assertArrayEquals(new int[] {0, 1, 2, 0, 1}, h.map(5, true, 0, false), "by node");
        assertArrayEquals(new int[] {0, 1, 2, 0, 1, 1}, Hosts.parseList("a:2,b:3,c:1").map(6, true, 0, false),
            "by node skips full hosts");
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2}, h.map(-1, false, 2, false), "two per node");
        assertArrayEquals(new int[] {0, 0, 1, 1, 2, 0, 0}, h.map(7, false, 0, true), "oversubscribed wraps");
        assertTrue(assertThrows(LaunchOptions.UsageException.class, () -> h.map(6, false, 0, false)).getMessage()
            .contains("not enough slots: 6 ranks, 5 slots on 3 hosts"));
    }

    @Test
    void theOperatorsDefaultHostFileIsHonoured(@TempDir final Path dir) throws Exception
    {
        final Path f = dir.resolve("hostfile");
        Files.writeString(f, "w-0 slots=1\nw-1 slots=1\n");
        final LaunchOptions o = LaunchOptions.parse(new String[] {"-cp", "x", "Main"},
            Map.of(LaunchOptions.DEFAULT_HOSTFILE_ENV, f.toString()));
        assertTrue(o.isMultiHost());
        assertEquals(f.toString(), o.hostfile);
        assertArrayEquals(new int[] {0, 1}, HostJob.plan(o).hostOf());
        assertArrayEquals(new int[] {0, 1}, HostJob.plan(o).nodeOf());
    }

    @Test
    void theRankShellKeepsArgumentsIntact()
    {
        final String s = HostJob.script(Map.of("K", "a b'c"), List.of("java", "-cp", "x", "Main", "it's two words"));
        assertTrue(s.contains(" K='a b'\\''c' 'java' '-cp' 'x' 'Main' 'it'\\''s two words' </dev/null &"), s);
    }
}
