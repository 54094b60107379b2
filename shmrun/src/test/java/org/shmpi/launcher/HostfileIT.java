package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code shmrun --hostfile} and {@code --host} with a launch agent that stands in for ssh on this
 * machine: it gives each "host" (127.0.0.2, 127.0.0.3, ...: other loopback addresses, so the ranks'
 * bridges listen on addresses of their own) a shared-memory directory of its own and runs the
 * command there, as ssh runs it on another machine. The real ssh in network namespaces is
 * {@code SshHostsIT}'s. Checked: placement by slot, by node and per node; every rank's output back
 * line by line; SIGTERM to shmrun stops every rank and leaves nothing; a killed rank ends the job.
 */
@Timeout(value = 300)
class HostfileIT
{
    private Path work;
    private Path agent;
    private final List<Path> hostDirs = new ArrayList<>();

    @BeforeEach
    void makeAgent() throws IOException
    {
        work = Files.createTempDirectory("shmpi-hostfile-");
        final String id = UUID.randomUUID().toString().substring(0, 8);
        for (int h = 2; h <= 4; h++)
        {
            hostDirs.add(Path.of("/dev/shm", "shmpi-host-test-" + id + "-127.0.0." + h));
        }
        agent = work.resolve("fake-ssh");
        Files.writeString(agent, String.join("\n",
            "#!/bin/sh",
            "# ssh HOST COMMAND, on this machine: HOST gets a shared-memory directory of its own.",
            "host=$1; shift",
            "dir=/dev/shm/shmpi-host-test-" + id + "-$host",
            "mkdir -p $dir",
            "echo \"$host\" >> " + work.resolve("agent.log"),
            "SHMPI_SHM_DIR=$dir exec sh -c \"$1\"",
            ""));
        Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
    }

    @AfterEach
    void removeHosts() throws IOException
    {
        for (final Path d : hostDirs)
        {
            delete(d);
        }
        delete(work);
    }

    private static void delete(final Path d) throws IOException
    {
        if (!Files.exists(d))
        {
            return;
        }
        try (Stream<Path> s = Files.walk(d))
        {
            for (final Path p : s.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    private List<Path> leftovers() throws IOException
    {
        final List<Path> left = new ArrayList<>();
        for (final Path d : hostDirs)
        {
            if (Files.exists(d))
            {
                try (Stream<Path> s = Files.walk(d))
                {
                    s.filter(p -> p.getNameCount() > d.getNameCount() + 1).forEach(left::add);
                }
            }
        }
        return left;
    }

    private String[] args(final String... rest)
    {
        final List<String> a = new ArrayList<>(List.of("--launch-agent", agent.toString()));
        a.addAll(List.of(rest));
        return a.toArray(new String[0]);
    }

    @Test
    void aHostFileFillsSlotsAndEveryRankSpeaks() throws Exception
    {
        final Path hostfile = work.resolve("hosts");
        Files.writeString(hostfile, "# two hosts\n127.0.0.2 slots=2\n\n127.0.0.3 slots=2 max_slots=4  # second\n");
        final ShmrunHarness.Result r = ShmrunHarness.run("hostfile-slots", 180, args("--hostfile", hostfile.toString(),
            "--tag-output", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.MultiNode", "all"));
        assertEquals(0, r.exit, r::toString);
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(r.out.contains("[1," + rank + "]<stdout>:MULTINODE OK rank " + rank + " of 4 node " + rank / 2 +
                " shared 2\n"), r::toString);
        }
        assertEquals(List.of("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"),
            Files.readAllLines(work.resolve("agent.log")).stream().sorted().toList());
        assertEquals(List.of(), leftovers(), r::toString);
    }

    @Test
    void mapByNodeAndPerNode() throws Exception
    {
        final ShmrunHarness.Result byNode = ShmrunHarness.run("hostfile-by-node", 180, args("--host",
            "127.0.0.2:2,127.0.0.3:2", "--map-by", "node", "-cp", ShmrunHarness.TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.MultiNode", "all"));
        assertEquals(0, byNode.exit, byNode::toString);
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(byNode.out.contains("MULTINODE OK rank " + rank + " of 4 node " + rank % 2 + " shared 2"),
                byNode::toString);
        }
        final ShmrunHarness.Result perNode = ShmrunHarness.run("hostfile-per-node", 180, args("--host",
            "127.0.0.2:4,127.0.0.3:4,127.0.0.4:4", "-npernode", "1", "-cp", ShmrunHarness.TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.MultiNode", "all"));
        assertEquals(0, perNode.exit, perNode::toString);
        for (int rank = 0; rank < 3; rank++)
        {
            assertTrue(perNode.out.contains("MULTINODE OK rank " + rank + " of 3 node " + rank + " shared 1"),
                perNode::toString);
        }
        assertEquals(List.of(), leftovers());
    }

    @Test
    void tooFewSlotsIsAUsageError() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("hostfile-too-few", 60, args("--host", "127.0.0.2:1",
            "-np", "3", "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.MultiNode"));
        assertEquals(2, r.exit, r::toString);
        assertTrue(r.err.contains("not enough slots: 3 ranks, 1 slots on 1 host (add slots, or --oversubscribe)"),
            r::toString);
        assertFalse(Files.exists(work.resolve("agent.log")), "nothing started");
    }

    @Test
    void sigtermStopsEveryRankOnEveryHostAndLeavesNothing() throws Exception
    {
        final ShmrunHarness.Running job = ShmrunHarness.start("hostfile-sigterm", List.of(), null, args("--host",
            "127.0.0.2:2,127.0.0.3:2", "-cp", ShmrunHarness.TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.MultiNode", "die", "99"));
        // The ranks run allreduces until stopped; wait until all four JVMs run.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ranksOf(job.pid()).size() < 4 && System.nanoTime() < deadline)
        {
            Thread.sleep(100);
        }
        final List<ProcessHandle> ranks = ranksOf(job.pid());
        assertEquals(4, ranks.size());
        Thread.sleep(1_000);
        new ProcessBuilder("kill", "-TERM", Long.toString(job.pid())).start().waitFor();
        final ShmrunHarness.Result r = job.finish(60);
        assertEquals(143, r.exit, r::toString);
        for (final ProcessHandle p : ranks)
        {
            p.onExit().get(10, TimeUnit.SECONDS);
        }
        assertEquals(List.of(), leftovers(), r::toString);
    }

    @Test
    void aKilledRankEndsTheJob() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("hostfile-kill", 120, args("--host",
            "127.0.0.2:2,127.0.0.3:2", "-cp", ShmrunHarness.TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.MultiNode", "die", "1"));
        assertTrue(r.exit != 0, r::toString);
        assertTrue(r.err.contains("shmpi: rank 1 (node 0") && r.err.contains(") died; ending the job"), r::toString);
        assertEquals(List.of(), leftovers(), r::toString);
    }

    @Test
    void printJvmFlagsGivesWhatARankNeeds() throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("print-jvm-flags", 60, "--print-jvm-flags");
        assertEquals(0, r.exit, r::toString);
        assertTrue(r.out.startsWith("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"), r::toString);
        assertEquals(1, r.outLines().size(), r::toString);
    }

    /** The rank JVMs below {@code pid} (through the agent's shells). */
    private static List<ProcessHandle> ranksOf(final long pid)
    {
        return ProcessHandle.of(pid).map(h -> h.descendants()
            .filter(d -> d.info().commandLine().orElse("").contains("progs.MultiNode") &&
                !d.info().commandLine().orElse("").contains("org.shmpi.launcher.Shmrun") &&
                d.info().command().orElse("").endsWith("java"))
            .toList()).orElse(List.of());
    }
}
