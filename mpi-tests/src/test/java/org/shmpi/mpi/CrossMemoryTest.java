package org.shmpi.mpi;

import static org.shmpi.mpi.Expect.expect;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;
import org.shmpi.shm.CrossMemory;

import mpi.Comm;
import mpi.Datatype;
import mpi.MPI;
import mpi.Request;

/**
 * Large messages from plain direct buffers ({@code ByteBuffer.allocateDirect}, outside the shared
 * heap) between rank processes: with {@code shmpi.cma.enabled} (the default) the receiver reads
 * each one out of the sender's process with {@code process_vm_readv}, once; {@link CrossMemoryOffTest}
 * runs the same checks with the setting off, where every message streams through the ring. Every
 * byte is checked, both directions, posted and unexpected, into direct buffers and arrays, and the
 * engine's count of cross-memory reads says which path was taken.
 */
@MpiTest(np = {2})
class CrossMemoryTest
{
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int[] SIZES = {64 * KIB + 1, 128 * KIB, 256 * KIB + 7, MIB + 3, 4 * MIB};

    private Comm world;
    private int rank;
    private int peer;

    @BeforeEach
    void setUp()
    {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        peer = 1 - rank;
    }

    @AfterEach
    void nothingLeftUnreceived()
    {
        Expect.nothingLeftUnreceived();
    }

    /** Whether this configuration reads messages across processes (the subclass turns it off). */
    boolean expectReads()
    {
        return CrossMemory.probe() == 0;
    }

    private static Object transport() throws Exception
    {
        final java.lang.reflect.Method m = MPI.class.getDeclaredMethod("context");
        m.setAccessible(true);
        final Object context = m.invoke(null);
        return context.getClass().getMethod("transport").invoke(context);
    }

    private static long counter(final String name) throws Exception
    {
        final Object transport = transport();
        return (Long)transport.getClass().getMethod(name).invoke(transport);
    }

    /** The byte at {@code i} of the message {@code from} sends with {@code seed}. */
    private static byte expected(final int from, final int seed, final int i)
    {
        return (byte)(i * 31 + (i >>> 11) + from * 7 + seed);
    }

    private static ByteBuffer filled(final int length, final int from, final int seed)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(length).order(ByteOrder.nativeOrder());
        for (int i = 0; i < length; i++)
        {
            b.put(i, expected(from, seed, i));
        }
        return b;
    }

    private static void check(final ByteBuffer got, final int length, final int from, final int seed, final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (got.get(i) != expected(from, seed, i))
            {
                throw new AssertionError(what + ": byte " + i + " of " + length + " from rank " + from);
            }
        }
    }

    private static void check(final byte[] got, final int length, final int from, final int seed, final String what)
    {
        for (int i = 0; i < length; i++)
        {
            if (got[i] != expected(from, seed, i))
            {
                throw new AssertionError(what + ": byte " + i + " of " + length + " from rank " + from);
            }
        }
    }

    @Test
    void theSettingIsWhatTheJobAskedFor() throws Exception
    {
        final Object t = transport();
        final boolean enabled = (Boolean)t.getClass().getMethod("crossMemoryEnabled").invoke(t);
        if (enabled != expectReads())
        {
            throw new AssertionError("crossMemoryEnabled=" + enabled + ", probe=" + CrossMemory.probe());
        }
    }

    /** Both directions at once (sendRecv), into direct buffers and into arrays. */
    @Test
    void directBuffersBothWays() throws Exception
    {
        final long reads = counter("crossMemoryReads");
        final long shared = counter("sharedCopies");
        int messages = 0;
        for (final int size : SIZES)
        {
            final ByteBuffer out = filled(size, rank, size);
            final ByteBuffer in = ByteBuffer.allocateDirect(size);
            world.sendRecv(out, size, MPI.BYTE, peer, 300, in, size, MPI.BYTE, peer, 300);
            check(in, size, peer, size, "into a direct buffer");
            final byte[] array = new byte[size];
            world.sendRecv(out, size, MPI.BYTE, peer, 301, array, size, MPI.BYTE, peer, 301);
            check(array, size, peer, size, "into an array");
            messages += 2;
        }
        expect(counter("crossMemoryReads") - reads == (expectReads() ? messages : 0),
            "cross-memory reads: " + (counter("crossMemoryReads") - reads) + " of " + messages);
        expect(counter("sharedCopies") == shared, "nothing from the shared heap");
    }

    /** One way at a time, blocking: rank 0 sends while rank 1 receives, then the other way. */
    @Test
    void blockingOneWayThenTheOther() throws Exception
    {
        final long reads = counter("crossMemoryReads");
        for (final int size : SIZES)
        {
            for (int sender = 0; sender < 2; sender++)
            {
                if (rank == sender)
                {
                    world.send(filled(size, rank, 3), size, MPI.BYTE, peer, 310);
                }
                else
                {
                    final ByteBuffer in = ByteBuffer.allocateDirect(size);
                    world.recv(in, size, MPI.BYTE, peer, 310);
                    check(in, size, peer, 3, "blocking");
                }
            }
        }
        expect(counter("crossMemoryReads") - reads == (expectReads() ? SIZES.length : 0), "cross-memory reads");
    }

    /** The announcement waits as an unexpected message (probed) before the receive; and synchronous mode. */
    @Test
    void unexpectedAndSynchronous() throws Exception
    {
        final long reads = counter("crossMemoryReads");
        final int size = MIB + 5;
        final ByteBuffer out = filled(size, rank, 9);
        final Request s = world.iSend(out, size, MPI.BYTE, peer, 320);
        world.probe(peer, 320);
        final ByteBuffer in = ByteBuffer.allocateDirect(size);
        world.recv(in, size, MPI.BYTE, peer, 320);
        s.waitFor();
        check(in, size, peer, 9, "unexpected");
        final Request r = world.iRecv(in, size, MPI.BYTE, peer, 321);
        world.sSend(out, size, MPI.BYTE, peer, 321);
        r.waitFor();
        check(in, size, peer, 9, "synchronous");
        expect(counter("crossMemoryReads") - reads == (expectReads() ? 2 : 0), "cross-memory reads");
    }

    /** A non-contiguous send (a vector of a direct buffer) takes the ring, whatever the setting. */
    @Test
    void aVectorSendStreams() throws Exception
    {
        final long reads = counter("crossMemoryReads");
        final int blocks = 100_000;
        final Datatype vector = Datatype.createVector(blocks, 2, 3, MPI.BYTE);
        vector.commit();
        final ByteBuffer out = filled(3 * blocks, rank, 1);
        final byte[] in = new byte[2 * blocks];
        world.sendRecv(out, 1, vector, peer, 330, in, in.length, MPI.BYTE, peer, 330);
        for (int b = 0; b < blocks; b++)
        {
            expect(in[2 * b] == expected(peer, 1, 3 * b) && in[2 * b + 1] == expected(peer, 1, 3 * b + 1),
                "vector block " + b);
        }
        vector.free();
        expect(counter("crossMemoryReads") == reads, "a vector is never read across");
    }
}
