package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The name service between two jobs of one user on one machine, each started by its own
 * {@code shmrun}: a name one job publishes is looked up by the other, and is gone after it is
 * unpublished; a name whose publishing job was killed is gone for the next lookup, and nothing is
 * left in the user's shmpi directory. Also a connect nobody accepts on, ended by the timeout.
 */
@Timeout(180)
class NamesAcrossJobsIT
{
    private static final String PROG = "org.shmpi.launcher.progs.NameService";
    private static final String PORTS_PROG = "org.shmpi.launcher.progs.JobPorts";

    private static String[] args(final String mode, final String service, final Path dir)
    {
        return new String[] {"-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PROG, mode, service,
            dir.toString()};
    }

    @Test
    void aNamePublishedByOneJobIsFoundByAnotherUntilItIsUnpublished(@TempDir final Path dir) throws Exception
    {
        final String service = "names-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final ShmrunHarness.Running publisher = ShmrunHarness.start("names-publish", List.of(), null,
            args("publish", service, dir));
        final String published = publisher.awaitLines("PUBLISHED ", 1, 60_000).get(0).substring(10);
        final ShmrunHarness.Result lookup = ShmrunHarness.run("names-lookup", 90, args("lookup", service, dir));
        final ShmrunHarness.Result pub = publisher.finish(60);
        assertEquals(0, lookup.exit, lookup::toString);
        assertEquals(0, pub.exit, pub::toString);
        assertTrue(lookup.out.contains("FOUND " + published + "\n"), lookup::toString);
        assertTrue(lookup.out.contains("GONE"), lookup::toString);
        assertTrue(published.startsWith("shmpi-port:"), published);
        assertFalse(service(service), "nothing of the name left");
    }

    @Test
    void aNameOfAKilledJobIsGoneForTheNextLookup(@TempDir final Path dir) throws Exception
    {
        final String service = "names-it-killed-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final ShmrunHarness.Running publisher = ShmrunHarness.start("names-killed", List.of(), null,
            args("publish-and-wait", service, dir));
        publisher.awaitLines("PUBLISHED ", 1, 60_000);
        assertTrue(service(service), "published");
        // SIGKILL the whole job: the ranks get no chance to unpublish.
        for (final ProcessHandle p : publisher.process.descendants().toList())
        {
            p.destroyForcibly();
        }
        publisher.process.destroyForcibly();
        publisher.process.waitFor();
        final ShmrunHarness.Result lookup = ShmrunHarness.run("names-after-kill", 90,
            args("lookup-once", service, dir));
        // The publisher is gone: the lookup finds no name, and removes the file.
        assertEquals(0, lookup.exit, lookup::toString);
        assertTrue(lookup.out.contains("NONE"), lookup::toString);
        assertFalse(service(service), "the killed job's name is removed");
    }

    /** An open port nobody accepts on: ERR_PORT after the connect timeout, and the port still works after. */
    @Test
    void aConnectNobodyAcceptsEndsWithErrPortAfterTheTimeout(@TempDir final Path dir) throws Exception
    {
        final ShmrunHarness.Result r = ShmrunHarness.run("connect-timeout", 90, "--mca", "connect.timeout.ms", "700",
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PROG, "connect-timeout", "-", dir.toString());
        assertEquals(0, r.exit, r::toString);
        final String line = r.outLines().stream().filter(l -> l.startsWith("TIMED OUT after ")).findFirst()
            .orElseThrow(() -> new AssertionError(r.toString()));
        final long ms = Long.parseLong(line.split(" ")[3]);
        assertTrue(ms >= 600 && ms < 10_000, line);
        assertTrue(r.out.contains("CONNECTED rank 0") && r.out.contains("CONNECTED rank 1"), r::toString);
    }

    /**
     * Two jobs joined through a published port: a server job of 2 ranks accepts, a client job of
     * 3 connects; traffic both ways over shared memory (a 1 MiB message included), inter-
     * communicator collectives, merge, disconnect; both end cleanly and leave nothing.
     */
    @Test
    void twoJobsJoinThroughAPublishedPort() throws Exception
    {
        final String service = "ports-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final ShmrunHarness.Running server = ShmrunHarness.start("ports-server", List.of(), null,
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, "server", service);
        final ShmrunHarness.Result client = ShmrunHarness.run("ports-client", 90,
            "-np", "3", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, "client", service);
        final ShmrunHarness.Result srv = server.finish(60);
        assertEquals(0, client.exit, client::toString);
        assertEquals(0, srv.exit, srv::toString);
        for (int r = 0; r < 3; r++)
        {
            assertTrue(client.out.contains("OK client " + r + "\n"), client::toString);
        }
        for (int r = 0; r < 2; r++)
        {
            assertTrue(srv.out.contains("OK server " + r + "\n"), srv::toString);
        }
        assertFalse(service(service), "the name is gone");
    }

    /**
     * The client job's rank 0 ends without Finalize after the connection: its job ends, and the
     * server job, whose ranks wait for a message from it, ends too (its watchdog finds the
     * connected process gone), naming it; neither leaves anything behind.
     */
    @Test
    void aConnectedJobThatDiesEndsTheOther() throws Exception
    {
        final String service = "ports-dies-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final ShmrunHarness.Running server = ShmrunHarness.start("ports-server-waits", List.of(), null,
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, "server-waits", service);
        final ShmrunHarness.Result client = ShmrunHarness.run("ports-client-dies", 90,
            "-np", "2", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, "client-dies", service);
        final ShmrunHarness.Result srv = server.finish(60);
        assertTrue(client.exit != 0, client::toString);
        assertTrue(srv.exit != 0, srv::toString);
        assertTrue(srv.err.contains("connected to this one, ended without MPI_Finalize"), srv::toString);
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(srv.pid), "server job left its directory");
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(client.pid), "client job left its directory");
        removeLeftoverName(service);
    }

    /** The server never unpublished (its job was ended): its name goes with the next lookup; here by hand. */
    private static void removeLeftoverName(final String service) throws Exception
    {
        final Path names = ShmrunHarness.USER_ROOT.resolve("names");
        if (Files.isDirectory(names))
        {
            try (var files = Files.list(names))
            {
                for (final Path f : (Iterable<Path>)files::iterator)
                {
                    final List<String> lines = Files.readAllLines(f);
                    if (!lines.isEmpty() && lines.get(0).equals(service))
                    {
                        Files.deleteIfExists(f);
                    }
                }
            }
        }
    }

    /**
     * Two jobs on two "machines" (each its own shared-memory directory, so neither sees the
     * other's files): the port's name carries its owner's address (loopback here), the connect
     * goes through a TCP gateway between the two roots; the same traffic as between two jobs on
     * one machine; then a client that dies ends the server job, whose ranks wait on it.
     */
    @Test
    void twoJobsOnTwoMachinesJoinThroughAPort(@TempDir final Path dir) throws Exception
    {
        final Path a = Path.of("/dev/shm/shmpi-it-" + ProcessHandle.current().pid() + "-a");
        final Path b = Path.of("/dev/shm/shmpi-it-" + ProcessHandle.current().pid() + "-b");
        Files.createDirectories(a);
        Files.createDirectories(b);
        try
        {
            for (final String[] modes : new String[][] {{"server", "client"}, {"server-waits", "client-dies"}})
            {
                final String file = "file:" + dir.resolve(modes[0] + ".port");
                // One "machine" given by --mca (the launcher takes it too), the other by the environment.
                final ShmrunHarness.Running server = ShmrunHarness.start("machines-" + modes[0],
                    List.of(), null, "--mca", "shm.dir", a.toString(), "--mca", "port.address", "127.0.0.1", "-np", "2",
                    "-cp", ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, modes[0], file);
                final ShmrunHarness.Result client = ShmrunHarness.start("machines-" + modes[1],
                    List.of("env", "SHMPI_SHM_DIR=" + b), null, "-np", "3", "-cp",
                    ShmrunHarness.TEST_CLASSES.toString(), PORTS_PROG, modes[1], file).finish(90);
                final ShmrunHarness.Result srv = server.finish(60);
                assertTrue(srv.out.contains(":127.0.0.1:"), srv::toString);
                if (modes[0].equals("server"))
                {
                    assertEquals(0, client.exit, client::toString);
                    assertEquals(0, srv.exit, srv::toString);
                    for (int r = 0; r < 3; r++)
                    {
                        assertTrue(client.out.contains("OK client " + r + "\n"), client::toString);
                    }
                }
                else
                {
                    assertTrue(client.exit != 0 && srv.exit != 0, () -> client + "\n" + srv);
                    assertTrue(srv.err.contains("of the job on another machine connected through"), srv::toString);
                }
                for (final Path root : new Path[] {a, b})
                {
                    assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(root.resolve(
                        ShmrunHarness.USER_ROOT.getFileName()), srv.pid), "server job left " + root);
                    assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(root.resolve(
                        ShmrunHarness.USER_ROOT.getFileName()), client.pid), "client job left " + root);
                }
            }
        }
        finally
        {
            ShmrunHarness.deleteTree(a);
            ShmrunHarness.deleteTree(b);
        }
    }

    /** Whether a file for {@code service} is in the names directory. */
    private static boolean service(final String service) throws Exception
    {
        final Path names = ShmrunHarness.USER_ROOT.resolve("names");
        if (!Files.isDirectory(names))
        {
            return false;
        }
        try (var files = Files.list(names))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                final List<String> lines = Files.readAllLines(f);
                if (!lines.isEmpty() && lines.get(0).equals(service))
                {
                    return true;
                }
            }
        }
        return false;
    }
}
