package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.SegmentManager;

/** The shared heap over segment managers: allocation, lookup, peers' mappings, and release. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SharedHeapTest
{
    private static final int KIB = 1024;
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private Path dir;
    private ThreadedJob job;

    @BeforeEach
    void makeDir() throws IOException
    {
        dir = Files.createDirectory(Path.of("/dev/shm", "shmpi-test-heap-" + UUID.randomUUID()));
    }

    @AfterEach
    void removeDir() throws IOException
    {
        if (job != null)
        {
            job.close();
        }
        final List<Path> left = heapFiles();
        ThreadedJob.deleteRecursively(dir);
        assertEquals(List.of(), left, "heap files left after the managers closed");
    }

    private List<Path> heapFiles() throws IOException
    {
        try (var files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().startsWith("heap-")).sorted().toList();
        }
    }

    /** Drops garbage until {@code done} holds, applying releases each time; false after ~10 s. */
    private static boolean collectUntil(final SharedHeap heap, final BooleanSupplier done)
    {
        for (int i = 0; i < 200; i++)
        {
            heap.processReleases();
            if (done.getAsBoolean())
            {
                return true;
            }
            System.gc();
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @Test
    void allocateMapsAHeapSegmentAndFindLocatesIt() throws IOException
    {
        try (SegmentManager manager = new SegmentManager(dir, 0))
        {
            final SharedHeap heap = new SharedHeap(manager);
            final ByteBuffer b = heap.allocate(100 * KIB);
            assertTrue(b.isDirect());
            assertEquals(100 * KIB, b.capacity());
            assertEquals(ByteOrder.nativeOrder(), b.order());
            final Path file = dir.resolve("heap-0-0");
            assertEquals(List.of(file), heapFiles());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

            final long address = BufferUtil.address(b);
            final SharedHeap.Segment found = heap.find(address + 10, 1000);
            assertNotNull(found);
            assertEquals(0, found.id());
            assertEquals(address, found.address());
            assertEquals(100 * KIB, found.length());
            assertSame(found, heap.find(address, 100 * KIB));
            assertNull(heap.find(address, 100 * KIB + 1), "past the end");
            assertNull(heap.find(address - 1, 10), "before the start");
            final ByteBuffer ordinary = ByteBuffer.allocateDirect(4096);
            assertNull(heap.find(BufferUtil.address(ordinary), 10));

            final ByteBuffer second = heap.allocate(64 * KIB);
            assertEquals(1, heap.find(BufferUtil.address(second), 1).id());
            assertEquals(164L * KIB, heap.unreleasedBytes());
            heap.close();
            assertEquals(2, heapFiles().size(), "with the rank's manager, the manager removes them");
        }
        assertEquals(List.of(), heapFiles());
    }

    @Test
    void peerAddressMapsThePeersSegmentAndKeepsTheLastOnePinned() throws IOException
    {
        try (SegmentManager rank0 = new SegmentManager(dir, 0);
            SegmentManager rank1 = new SegmentManager(dir, 1, ProcessHandle.current().pid(), 0, 0, false))
        {
            final SharedHeap heap0 = new SharedHeap(rank0);
            final SharedHeap heap1 = new SharedHeap(rank1);
            final IntBuffer a = heap0.allocate(64 * KIB).asIntBuffer();
            final IntBuffer b = heap0.allocate(64 * KIB).asIntBuffer();
            a.put(5, 55);
            b.put(6, 66);

            final long first = heap1.peerAddress(0, 0);
            assertEquals(55, new UnsafeBuffer(first, 64 * KIB).getInt(5 * 4));
            assertEquals(List.of("heap-0-0"), rank1.openedNames());
            final long second = heap1.peerAddress(0, 1);
            assertEquals(66, new UnsafeBuffer(second, 64 * KIB).getInt(6 * 4));
            assertEquals(List.of("heap-0-1"), rank1.openedNames(),
                "the previous one was released (and, with no idle list, unmapped)");

            final ShmpiException missing = assertThrows(ShmpiException.class, () -> heap1.peerAddress(0, 9));
            assertTrue(missing.getMessage().contains("heap-0-9"), missing.getMessage());
            heap1.close();
            assertEquals(List.of(), rank1.openedNames());
        }
    }

    /**
     * A long program that allocates and drops buffers: without the threshold, the files would
     * only go when the garbage collector happens to run (heap segments are invisible to it).
     */
    @Test
    void allocatingAndDroppingManyBuffersKeepsTheFileCountBounded() throws IOException
    {
        final int size = 64 * KIB;
        final long threshold = 4L * 1024 * KIB;
        final int allocations = 1000;
        int maxFiles = 0;
        try (SegmentManager manager = new SegmentManager(dir, 0))
        {
            final SharedHeap heap = new SharedHeap(manager, threshold);
            for (int i = 0; i < allocations; i++)
            {
                final ByteBuffer b = heap.allocate(size);
                b.putInt(0, i);
                maxFiles = Math.max(maxFiles, manager.createdNames().size());
            }
            final int bound = (int)(threshold / size) * 2;
            assertTrue(maxFiles <= bound, "files grew to " + maxFiles + " (bound " + bound + ") over " +
                allocations + " allocations");
            assertTrue(collectUntil(heap, () -> manager.createdNames().isEmpty()), "dropped buffers never released");
            assertEquals(0, heap.unreleasedBytes());
        }
        assertEquals(List.of(), heapFiles());
    }

    @Test
    void liveBuffersRaiseTheThresholdInsteadOfCollectingOnEveryAllocation() throws IOException
    {
        final int size = 64 * KIB;
        try (SegmentManager manager = new SegmentManager(dir, 0))
        {
            final SharedHeap heap = new SharedHeap(manager, 4L * size);
            final ByteBuffer[] live = new ByteBuffer[40];
            for (int i = 0; i < live.length; i++)
            {
                live[i] = heap.allocate(size);
            }
            assertEquals(40L * size, heap.unreleasedBytes());
            assertEquals(40, heapFiles().size(), "live buffers are never released");
            // Doubling: about log2(40 / 4) collections (past 4, 8, 16, 32 buffers), not 36 of them.
            assertTrue(heap.collections() <= 5, "collected " + heap.collections() + " times for 40 live buffers");
            for (int i = 0; i < live.length; i++)
            {
                live[i].putInt(0, i);
            }
        }
    }

    @Test
    void memoryUserCodeStillHoldsSurvivesCloseAndIsUnmappedWhenDropped() throws Exception
    {
        final SegmentManager manager = new SegmentManager(dir, 0);
        final SharedHeap heap = new SharedHeap(manager);
        ByteBuffer held = heap.allocate(64 * KIB);
        held.putLong(8, 42);
        final org.shmpi.shm.segment.Segment segment = heap.find(BufferUtil.address(held), 1).segment;
        heap.close();
        manager.close();
        assertEquals(List.of(), heapFiles(), "the file goes with the manager");
        assertEquals(42, held.getLong(8), "memory still held stays mapped");
        final WeakReference<ByteBuffer> ref = new WeakReference<>(held);
        held = null;
        assertTrue(collectUntil(heap, () -> ref.get() == null && !segment.isMapped()),
            "dropped after close, the segment is unmapped");
    }

    /**
     * The engine reads a single-copy send by raw address between RTS and ACK; the request keeps
     * the user's buffer reachable until then, so its segment stays mapped and its file stays
     * (the receiver maps it by name) however hard the collector runs.
     */
    @Test
    void aPendingOperationsSegmentStaysMappedUntilItCompletes() throws Exception
    {
        job = ThreadedJob.start("heap-pending", 2, 64 * KIB);
        final int length = 1024 * KIB;
        final byte[] expected = PointToPointEngineTest.pattern(length, 7);
        job.runEngines(60, engine ->
        {
            if (engine.rank() == 0)
            {
                final SharedHeap heap = job.context(engine.rank()).heap();
                ByteBuffer buffer = heap.allocate(length);
                buffer.put(0, expected);
                final long address = BufferUtil.address(buffer);
                final SendRequest s = engine.isend(0, 1, 3, null, address, length, SendRequest.MODE_STANDARD);
                s.retain(buffer);
                final org.shmpi.shm.segment.Segment segment = heap.find(address, length).segment;
                final WeakReference<ByteBuffer> ref = new WeakReference<>(buffer);
                buffer = null;
                for (int i = 0; i < 5; i++)
                {
                    System.gc();
                    Thread.sleep(20);
                    heap.processReleases();
                }
                assertNotNull(ref.get(), "the pending request keeps the buffer reachable");
                assertTrue(segment.isMapped() && Files.exists(segment.path()));
                job.signal(0, 1);
                engine.await(s);
                assertTrue(collectUntil(heap, () -> !segment.isMapped() && !Files.exists(segment.path())),
                    "completed and dropped, the segment is removed");
            }
            else
            {
                job.awaitSignal(engine, 0, 1);
                final byte[] in = new byte[length];
                final RecvRequest r = engine.recv(0, 0, 3, in, BYTES, length);
                assertEquals(length, r.storedLength());
                assertTrue(java.util.Arrays.equals(expected, in), "payload corrupted");
                assertEquals(1, engine.sharedCopies(), "copied once, straight out of the sender's segment");
            }
        });
    }
}
