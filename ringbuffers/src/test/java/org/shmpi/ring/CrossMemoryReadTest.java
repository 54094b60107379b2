package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.shmpi.shm.CrossMemory;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * The rendezvous by cross-memory attach: a large message from a direct buffer is read by the
 * receiver straight out of the sender's process ({@code process_vm_readv}). The ranks are threads
 * of this JVM, so the "peer" process is this one (reading one's own pid goes through the same
 * kernel path); the multi-process case is {@code CrossMemoryTest} in mpi-tests. Each exchange
 * checks every byte, guard bytes past a truncated receive, and the engine's count of reads, so a
 * silent fall back to the ring fails too.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CrossMemoryReadTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final int[] SIZES = {64 * KIB + 1, 128 * KIB, MIB + 3, 4 * MIB};
    private static final byte GUARD = (byte)0xA5;

    private ThreadedJob job;

    @AfterEach
    void removeJob() throws IOException
    {
        ThreadedJob.closeAndCheckRemoved(job);
    }

    private static boolean kernelAllows()
    {
        return CrossMemory.probe() == 0;
    }

    /** A direct buffer holding {@code bytes}. */
    private static ByteBuffer direct(final byte[] bytes)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
        b.put(0, bytes);
        return b;
    }

    private static byte[] contents(final ByteBuffer b, final int length)
    {
        final byte[] out = new byte[length];
        b.get(0, out);
        return out;
    }

    private static void assertSame(final byte[] expected, final byte[] got, final String what)
    {
        final int at = Arrays.mismatch(expected, got);
        if (at >= 0)
        {
            throw new AssertionError(what + ": first differing byte at " + at + " of " + expected.length);
        }
    }

    /** The receive kinds: into a direct buffer (read at once) or into an array (through staging). */
    private static byte[] receive(
        final PointToPointEngine e, final int source, final int tag, final int length, final boolean intoDirect)
    {
        if (intoDirect)
        {
            final ByteBuffer in = ByteBuffer.allocateDirect(length);
            final RecvRequest r = e.recv(0, source, tag, null, BufferUtil.address(in), length);
            assertEquals(length, r.storedLength());
            final byte[] got = contents(in, length);
            Reference.reachabilityFence(in);
            return got;
        }
        final byte[] in = new byte[length];
        final RecvRequest r = e.recv(0, source, tag, in, BYTES, length);
        assertEquals(length, r.storedLength());
        return in;
    }

    /**
     * Every size both ways between ranks 0 and 1: first with the receive posted before the RTS
     * comes, then with the RTS waiting as an unexpected message when the receive is posted.
     */
    private void exchange(final boolean intoDirect, final boolean expectReads) throws Exception
    {
        job.runEngines(90, engine ->
        {
            final int me = engine.rank();
            final int peer = 1 - me;
            final long before = engine.crossMemoryReads();
            int received = 0;
            for (final int size : SIZES)
            {
                final byte[] mine = PointToPointEngineTest.pattern(size, me * 31 + size);
                final byte[] theirs = PointToPointEngineTest.pattern(size, peer * 31 + size);
                final ByteBuffer out = direct(mine);
                // Posted: rank 1 receives first, rank 0 sends first; then the other way.
                for (int turn = 0; turn < 2; turn++)
                {
                    if (me == turn)
                    {
                        engine.send(0, peer, 10 + turn, null, BufferUtil.address(out), size);
                    }
                    else
                    {
                        assertSame(theirs, receive(engine, peer, 10 + turn, size, intoDirect), "posted, " + size);
                        received++;
                    }
                }
                // Unexpected: the RTS is waiting when the receive is posted.
                final SendRequest s =
                    engine.isend(0, peer, 20, null, BufferUtil.address(out), size, SendRequest.MODE_STANDARD);
                engine.probeBlocking(0, peer, 20);
                assertSame(theirs, receive(engine, peer, 20, size, intoDirect), "unexpected, " + size);
                received++;
                engine.await(s);
                Reference.reachabilityFence(out);
            }
            assertEquals(expectReads ? received : 0, engine.crossMemoryReads() - before, "cross-memory reads");
            assertEquals(0, engine.sharedCopies(), "none from the shared heap");
        });
    }

    @ParameterizedTest(name = "into {0}, ring {1} KiB")
    @CsvSource({"direct, 64", "direct, 1024", "array, 64", "array, 1024"})
    void everySizeIsReadOutOfTheSenderBothWays(final String into, final int ringKib) throws Exception
    {
        assumeTrue(kernelAllows(), "process_vm_readv is refused here: probe=" + CrossMemory.probe());
        job = ThreadedJob.start("cma-" + into + "-" + ringKib, 2, ringKib * KIB);
        assertTrue(job.context(0).crossMemory() != null);
        exchange("direct".equals(into), true);
    }

    @ParameterizedTest(name = "into {0}")
    @CsvSource({"direct", "array"})
    void withTheSettingOffMessagesStreamThroughTheRing(final String into) throws Exception
    {
        final Properties off = new Properties();
        off.setProperty(ShmpiConfig.CMA_ENABLED_PROP, "false");
        job = ThreadedJob.start("cma-off-" + into, 2, 64 * KIB, off);
        assertTrue(job.context(0).crossMemory() == null);
        exchange("direct".equals(into), false);
    }

    /** A truncated message: exactly the capacity is stored, nothing past it, and the status says how long it was. */
    @ParameterizedTest(name = "into {0}")
    @CsvSource({"direct", "array"})
    void aTruncatedReadStoresExactlyTheCapacity(final String into) throws Exception
    {
        assumeTrue(kernelAllows());
        job = ThreadedJob.start("cma-truncated-" + into, 2, 64 * KIB);
        final int length = 700 * KIB + 5;
        final int room = 300 * KIB + 1;
        final byte[] message = PointToPointEngineTest.pattern(length, 77);
        job.runEngines(60, engine ->
        {
            if (engine.rank() == 0)
            {
                final ByteBuffer out = direct(message);
                engine.send(0, 1, 5, null, BufferUtil.address(out), length);
                Reference.reachabilityFence(out);
                return;
            }
            final byte[] got = new byte[room + 64];
            Arrays.fill(got, GUARD);
            final RecvRequest r;
            if ("direct".equals(into))
            {
                final ByteBuffer in = ByteBuffer.allocateDirect(room + 64);
                in.put(0, got);
                r = engine.recv(0, 0, 5, null, BufferUtil.address(in), room);
                in.get(0, got);
                Reference.reachabilityFence(in);
            }
            else
            {
                r = engine.recv(0, 0, 5, got, BYTES, room);
            }
            assertTrue(r.isTruncated());
            assertEquals(length, r.messageLength());
            assertEquals(room, r.storedLength());
            assertSame(Arrays.copyOf(message, room), Arrays.copyOf(got, room), "the part that fits");
            for (int i = room; i < got.length; i++)
            {
                assertEquals(GUARD, got[i], "guard byte " + i);
            }
            assertEquals(1, engine.crossMemoryReads());
        });
    }

    /**
     * A non-contiguous receive (every other 2-byte block of a vector) is read through the staging
     * buffer and scattered by its layout, in an array and in a direct buffer alike.
     */
    @ParameterizedTest(name = "into {0}")
    @CsvSource({"direct", "array"})
    void aStridedReceiveIsReadThroughStaging(final String into) throws Exception
    {
        assumeTrue(kernelAllows());
        job = ThreadedJob.start("cma-strided-" + into, 2, 64 * KIB);
        final int items = 400_000;
        final int packed = 2 * items;
        final byte[] message = PointToPointEngineTest.pattern(packed, 91);
        final TypeMap item = TypeMap.resized(TypeMap.contiguous(2, TypeMap.basic(BasicKind.BYTE, 1)), 0, 4);
        final DataLayout strided = item.layout();
        assertFalse(strided.isContiguous());
        job.runEngines(60, engine ->
        {
            if (engine.rank() == 0)
            {
                final ByteBuffer out = direct(message);
                engine.send(0, 1, 9, null, BufferUtil.address(out), packed);
                Reference.reachabilityFence(out);
                return;
            }
            final byte[] got = new byte[4 * items];
            Arrays.fill(got, GUARD);
            if ("direct".equals(into))
            {
                final ByteBuffer in = ByteBuffer.allocateDirect(got.length);
                in.put(0, got);
                engine.recv(0, 0, 9, null, BufferUtil.address(in), packed, strided);
                in.get(0, got);
                Reference.reachabilityFence(in);
            }
            else
            {
                engine.recv(0, 0, 9, got, BYTES, packed, strided);
            }
            for (int i = 0; i < items; i++)
            {
                if (got[4 * i] != message[2 * i] || got[4 * i + 1] != message[2 * i + 1] ||
                    got[4 * i + 2] != GUARD || got[4 * i + 3] != GUARD)
                {
                    throw new AssertionError("item " + i + " of the strided receive");
                }
            }
            assertEquals(1, engine.crossMemoryReads());
        });
    }

    /**
     * A receiver that cannot read its peer (here: no pid published for it, as when the kernel
     * refuses) answers CTS to the sender's offer, and the message streams through the ring.
     */
    @Test
    void aPeerThatCannotBeReadIsAskedForAStream() throws Exception
    {
        assumeTrue(kernelAllows());
        job = ThreadedJob.start("cma-refused", 2, 64 * KIB);
        job.job().publishStarted(0, 0, 0);
        final int length = 2 * MIB + 9;
        job.runEngines(60, engine ->
        {
            final int me = engine.rank();
            final int peer = 1 - me;
            final ByteBuffer out = direct(PointToPointEngineTest.pattern(length, me));
            final SendRequest s =
                engine.isend(0, peer, 6, null, BufferUtil.address(out), length, SendRequest.MODE_STANDARD);
            assertSame(PointToPointEngineTest.pattern(length, peer), receive(engine, peer, 6, length, me == 0), "");
            engine.await(s);
            Reference.reachabilityFence(out);
            // Rank 0 can read rank 1; rank 1 has no pid for rank 0 and must have streamed.
            assertEquals(me == 0 ? 1 : 0, engine.crossMemoryReads());
        });
    }

    /**
     * The sender's process is gone when the receiver reads (here: rank 0's slot names a process
     * that has exited): the receive fails with MPI_ERR_OTHER naming the peer, and the sender is
     * still acknowledged, so nobody hangs.
     */
    @Test
    void aGoneSenderFailsTheReceiveAndNobodyHangs() throws Exception
    {
        assumeTrue(kernelAllows());
        final Process exited = new ProcessBuilder("true").start();
        assertEquals(0, exited.waitFor());
        job = ThreadedJob.start("cma-gone", 2, 64 * KIB);
        job.job().publishStarted(0, exited.pid(), 0);
        final int length = MIB;
        job.runEngines(60, engine ->
        {
            if (engine.rank() == 0)
            {
                final ByteBuffer out = direct(PointToPointEngineTest.pattern(length, 3));
                engine.send(0, 1, 7, null, BufferUtil.address(out), length);
                Reference.reachabilityFence(out);
                return;
            }
            final ShmpiException ex = assertThrows(ShmpiException.class,
                () -> engine.recv(0, 0, 7, new byte[length], BYTES, length));
            assertEquals(ErrorClass.ERR_OTHER, ex.errorClass());
            assertTrue(ex.getMessage().contains("rank 0") && ex.getMessage().contains("ESRCH"), ex.getMessage());
            assertEquals(0, engine.matching().postedCount());
        });
    }

    /**
     * An address that is not mapped in the sender (a program that freed its buffer early): the
     * receive fails, and neither JVM touches the memory (the sender never streams from it).
     */
    @Test
    void anUnmappedSendBufferFailsTheReceiveNotTheJvm() throws Exception
    {
        assumeTrue(kernelAllows());
        job = ThreadedJob.start("cma-unmapped", 2, 64 * KIB);
        final int length = 128 * KIB;
        job.runEngines(60, engine ->
        {
            if (engine.rank() == 0)
            {
                // Below the lowest address the kernel maps (vm.mmap_min_addr): never readable.
                engine.send(0, 1, 8, null, 4096, length);
                return;
            }
            final ShmpiException ex = assertThrows(ShmpiException.class,
                () -> engine.recv(0, 0, 8, new byte[length], BYTES, length));
            assertTrue(ex.getMessage().contains("EFAULT"), ex.getMessage());
            assertFalse(ex.getMessage().contains("gone"), ex.getMessage());
        });
    }
}
