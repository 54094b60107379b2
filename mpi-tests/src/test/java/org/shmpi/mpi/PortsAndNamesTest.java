package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.mpi.Expect.expectError;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;

/**
 * Ports inside one job (a world split in two halves joined by accept and connect, either side
 * first; every kind of traffic on the intercommunicator; merge and disconnect), a connect to a
 * closed or unknown port, and the name service (publish, lookup, unpublish and their errors).
 */
@MpiTest(np = {2, 3, 4})
class PortsAndNamesTest
{
    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** The port name from world rank 0 to world rank 1, as MPI programs pass it: a char[] message. */
    private static String passName(final String name)
    {
        final char[] buf = new char[MPI.MAX_PORT_NAME];
        final int[] len = new int[1];
        if (MPI.COMM_WORLD.getRank() == 0)
        {
            name.getChars(0, name.length(), buf, 0);
            len[0] = name.length();
            MPI.COMM_WORLD.send(len, 1, MPI.INT, 1, 41);
            MPI.COMM_WORLD.send(buf, len[0], MPI.CHAR, 1, 42);
            return name;
        }
        if (MPI.COMM_WORLD.getRank() == 1)
        {
            MPI.COMM_WORLD.recv(len, 1, MPI.INT, 0, 41);
            MPI.COMM_WORLD.recv(buf, len[0], MPI.CHAR, 0, 42);
            return new String(buf, 0, len[0]);
        }
        return null;
    }

    @Test
    void twoHalvesOfOneJobJoinThroughAPortEitherSideFirst() throws Exception
    {
        final int world = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        // Even ranks accept (their root is world rank 0), odd ranks connect (root world rank 1).
        final boolean accepting = world % 2 == 0;
        final Intracomm half = MPI.COMM_WORLD.split(world % 2, world);
        final int evens = (size + 1) / 2;
        final int odds = size / 2;
        for (int round = 0; round < 2; round++)
        {
            final String port = world == 0 ? Intracomm.openPort() : null;
            final String known = passName(port);
            if (accepting == (round == 0))
            {
                // This side comes second: the other one waits for it.
                Thread.sleep(150);
            }
            final Intercomm ic = accepting ? half.accept(known, 0) : half.connect(known, 0);
            assertEquals(accepting ? odds : evens, ic.getRemoteSize(), "remote group");
            assertEquals(half.getSize(), ic.getSize(), "local group");
            // Point-to-point: local rank i and remote rank i exchange, where both exist.
            final int me = ic.getRank();
            if (me < ic.getRemoteSize())
            {
                final int[] got = new int[1];
                ic.sendRecv(new int[] {1000 * round + world}, 1, MPI.INT, me, 7, got, 1, MPI.INT, me, 7);
                final int theirWorld = accepting ? 2 * me + 1 : 2 * me;
                assertEquals(1000 * round + theirWorld, got[0], "p2p from remote rank " + me);
            }
            // Rooted: the accepting side's rank 0 broadcasts to the connecting side.
            final int[] value = {accepting && me == 0 ? 4242 + round : -1};
            ic.bcast(value, 1, MPI.INT, accepting ? (me == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0);
            if (!accepting)
            {
                assertEquals(4242 + round, value[0], "inter bcast");
            }
            // All-to-all kinds: allReduce gives the remote group's sum.
            final int[] sum = new int[1];
            ic.allReduce(new int[] {world}, sum, 1, MPI.INT, MPI.SUM);
            int expect = 0;
            for (int r = accepting ? 1 : 0; r < size; r += 2)
            {
                expect += r;
            }
            assertEquals(expect, sum[0], "inter allReduce");
            ic.barrier();
            // Merge: the accepting side low.
            final Intracomm merged = ic.merge(!accepting);
            assertEquals(size, merged.getSize());
            final int[] all = new int[1];
            merged.allReduce(new int[] {1}, all, 1, MPI.INT, MPI.SUM);
            assertEquals(size, all[0], "merged allReduce");
            assertEquals(accepting ? me : evens + me, merged.getRank(), "merged order");
            merged.free();
            ic.disconnect();
            assertTrue(ic.isNull(), "disconnected");
            if (world == 0)
            {
                Intracomm.closePort(port);
            }
        }
        // A port opened and never used closes cleanly; a second close is ERR_PORT.
        final String unused = Intracomm.openPort();
        assertTrue(unused.length() <= MPI.MAX_PORT_NAME);
        Intracomm.closePort(unused);
        expectError(MPI.ERR_PORT, () -> Intracomm.closePort(unused));
        half.free();
    }

    @Test
    void aConnectToAClosedOrUnknownPortFailsAtOnce()
    {
        final String closed = MPI.COMM_WORLD.getRank() == 0 ? Intracomm.openPort() : null;
        final String name = passName(closed);
        if (MPI.COMM_WORLD.getRank() == 0)
        {
            Intracomm.closePort(closed);
        }
        MPI.COMM_WORLD.barrier();
        if (MPI.COMM_WORLD.getRank() == 1)
        {
            final long start = System.nanoTime();
            expectError(MPI.ERR_PORT, () -> MPI.COMM_SELF.connect(name, 0));
            expectError(MPI.ERR_PORT, () -> MPI.COMM_SELF.connect("shmpi-port:nosuchjob:0:1", 0));
            expectError(MPI.ERR_PORT, () -> MPI.COMM_SELF.connect("not a port", 0));
            assertTrue(System.nanoTime() - start < 10_000_000_000L, "refused at once, not after a timeout");
        }
        MPI.COMM_WORLD.barrier();
    }

    @Test
    void namesArePublishedLookedUpAndUnpublished()
    {
        final int world = MPI.COMM_WORLD.getRank();
        // A name of this job alone (other jobs of the user may run tests at the same time).
        final String[] service = {world == 0 ? "shmpi-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime() :
            null};
        final String port = world == 0 ? Intracomm.openPort() : null;
        final String name = passName(service[0]);
        if (world == 0)
        {
            Intracomm.publishName(service[0], port);
            expectError(MPI.ERR_SERVICE, () -> Intracomm.publishName(service[0], port));
            MPI.COMM_WORLD.send(new int[] {port.length()}, 1, MPI.INT, 1, 43);
            MPI.COMM_WORLD.send(port.toCharArray(), port.length(), MPI.CHAR, 1, 44);
        }
        MPI.COMM_WORLD.barrier();
        if (world == 1)
        {
            assertEquals(Intracomm.lookupName(name), lookupOnRankZeroOf(name), "lookup of the published port");
            expectError(MPI.ERR_SERVICE, () -> Intracomm.unpublishName(name, "shmpi-port:x:0:1"));
            expectError(MPI.ERR_NAME, () -> Intracomm.lookupName(name + "-unknown"));
        }
        MPI.COMM_WORLD.barrier();
        if (world == 0)
        {
            Intracomm.unpublishName(service[0], port);
            expectError(MPI.ERR_NAME, () -> Intracomm.lookupName(service[0]));
            expectError(MPI.ERR_SERVICE, () -> Intracomm.unpublishName(service[0], port));
            Intracomm.closePort(port);
        }
        MPI.COMM_WORLD.barrier();
    }

    /** What rank 0 says the service's port is (rank 1 compares its lookup with it). */
    private static String lookupOnRankZeroOf(final String service)
    {
        final char[] buf = new char[MPI.MAX_PORT_NAME];
        final int[] len = new int[1];
        MPI.COMM_WORLD.recv(len, 1, MPI.INT, 0, 43);
        MPI.COMM_WORLD.recv(buf, len[0], MPI.CHAR, 0, 44);
        return new String(buf, 0, len[0]);
    }
}
