package org.shmpi.shm.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.*;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.shmpi.shm.Processes;

/**
 * The segment manager over a real directory in /dev/shm, ranks as managers (and threads) of
 * this JVM, and once across two processes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SegmentManagerTest
{
    private static final long SELF = ProcessHandle.current().pid();

    private Path dir;
    private String testName;
    private final List<SegmentManager> managers = new ArrayList<>();

    @BeforeEach
    void makeDir(final TestInfo info) throws IOException
    {
        dir = Files.createDirectory(Path.of("/dev/shm", "shmpi-test-segments-" + UUID.randomUUID()));
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    @AfterEach
    void closeAndDelete() throws IOException
    {
        for (final SegmentManager m : managers)
        {
            m.close();
        }
        try (var files = Files.list(dir))
        {
            final List<Path> left = files.toList();
            for (final Path f : left)
            {
                Files.delete(f);
            }
            Files.delete(dir);
            assertEquals(List.of(), left, "files left behind after every manager closed");
        }
    }

    private SegmentManager manager(final int rank)
    {
        final SegmentManager m = new SegmentManager(dir, rank);
        managers.add(m);
        return m;
    }

    private SegmentManager manager(final int rank, final int maxIdle, final boolean keepFiles)
    {
        final SegmentManager m =
            new SegmentManager(dir, rank, SELF, Processes.selfStartMillis(), maxIdle, keepFiles);
        managers.add(m);
        return m;
    }

    private static long now()
    {
        return System.nanoTime();
    }

    private static long inSeconds(final int seconds)
    {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    /** A hand-made segment file (for headers no manager would write); the test deletes it. */
    private Path raw(
        final String name, final long magic, final int version, final int kind, final int rank,
        final int payloadOffset, final long payloadLength, final int fileLength) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(fileLength).order(ByteOrder.LITTLE_ENDIAN);
        if (fileLength >= HEADER_LENGTH)
        {
            b.putLong(MAGIC_OFFSET, magic);
            b.putInt(VERSION_OFFSET, version);
            b.putInt(KIND_OFFSET, kind);
            b.putLong(CREATOR_PID_OFFSET, SELF);
            b.putInt(CREATOR_RANK_OFFSET, rank);
            b.putInt(PAYLOAD_OFFSET_OFFSET, payloadOffset);
            b.putLong(PAYLOAD_LENGTH_OFFSET, payloadLength);
        }
        final Path p = dir.resolve(name);
        Files.write(p, b.array());
        return p;
    }

    // ------------------------------------------------------------------------------------------

    @Test
    void createWritesTheDescribedHeaderWithTheVersionLast() throws IOException
    {
        final SegmentManager m = manager(0);
        final Segment s = m.create(SegmentKind.WINDOW, SegmentNames.window(1, 0), 1000, 0, b -> b.putInt(0, 77));
        final Path p = dir.resolve("win-1-0");
        assertEquals(p, s.path());
        assertEquals("win-1-0", s.name());
        assertEquals(SegmentKind.WINDOW, s.kind());
        assertEquals(1000, s.length());
        assertEquals(0, s.creatorRank());
        assertEquals(SELF, s.creatorPid());
        assertEquals(Processes.selfStartMillis(), s.creatorStartMillis());
        assertTrue(s.isCreator() && s.isMapped() && s.isCreatorAlive());
        assertEquals(0, s.address() % 128, "payloads are 128-byte aligned");
        assertEquals(1128, Files.size(p));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        assertEquals(List.of("win-1-0"), m.createdNames());

        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(MAGIC, b.getLong(MAGIC_OFFSET));
        assertEquals(VERSION, b.getInt(VERSION_OFFSET));
        assertEquals(KIND_WINDOW, b.getInt(KIND_OFFSET));
        assertEquals(SELF, b.getLong(CREATOR_PID_OFFSET));
        assertEquals(Processes.selfStartMillis(), b.getLong(CREATOR_START_TIME_OFFSET));
        assertEquals(0, b.getInt(CREATOR_RANK_OFFSET));
        assertEquals(HEADER_LENGTH, b.getInt(PAYLOAD_OFFSET_OFFSET));
        assertEquals(1000, b.getLong(PAYLOAD_LENGTH_OFFSET));
        assertEquals(77, b.getInt(HEADER_LENGTH), "the initializer wrote the payload before publication");
    }

    @Test
    void twoRanksAsThreadsCreateOpenShareAndRemove() throws Exception
    {
        final SegmentManager rank0 = manager(0);
        final SegmentManager rank1 = manager(1);
        final ExecutorService pool = Executors.newSingleThreadExecutor();
        try
        {
            // Rank 1 opens before rank 0 has created: open waits for the file and its version.
            final Future<Segment> opening =
                pool.submit(() -> rank1.open(SegmentKind.INBOX, SegmentNames.inbox(0), 0, inSeconds(20)));
            Thread.sleep(100);
            assertFalse(opening.isDone(), "nothing to open yet");
            final Segment mine = rank0.create(SegmentKind.INBOX, SegmentNames.inbox(0), 8192,
                SegmentManager.TOUCH_PAGES, b -> b.putInt(0, 7));
            final Segment theirs = opening.get(20, TimeUnit.SECONDS);

            assertNotSame(mine, theirs);
            assertFalse(theirs.isCreator());
            assertEquals(0, theirs.creatorRank());
            assertEquals(SELF, theirs.creatorPid());
            assertEquals(8192, theirs.length());
            assertEquals(7, theirs.buffer().getIntAcquire(0));
            theirs.buffer().putIntRelease(64, 42);
            assertEquals(42, mine.buffer().getIntAcquire(64), "one memory, two mappings");
            assertEquals(List.of("inbox-0"), rank1.openedNames());

            // A second open is the cached mapping with one more reference.
            assertSame(theirs, rank1.open(SegmentKind.INBOX, SegmentNames.inbox(0), 0, now()));
            assertEquals(2, rank1.referenceCount(theirs));
            rank1.release(theirs);
            rank1.release(theirs);
            assertEquals(0, rank1.referenceCount(theirs));
            assertTrue(theirs.isMapped(), "unreferenced segments stay mapped in the idle list");
            assertThrows(IllegalStateException.class, () -> rank1.release(theirs));

            // The creator removes it: the file goes, the peer's mapping stays valid memory.
            rank0.remove(mine);
            assertFalse(mine.isMapped());
            assertFalse(Files.exists(dir.resolve("inbox-0")));
            assertEquals(List.of(), rank0.createdNames());
            assertEquals(42, theirs.buffer().getIntAcquire(64));
            assertThrows(IllegalArgumentException.class, () -> rank1.remove(theirs), "only the creator removes");
            rank1.close();
            assertFalse(theirs.isMapped());
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /**
     * A name the creator reuses for a new file (a collective segment after its context id comes
     * back): a peer that forgot the old mapping maps the new file; one that only released it
     * would get the stale mapping from its idle cache.
     */
    @Test
    void forgetLetsTheNextOpenMapANewFileOfTheSameName() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final SegmentManager rank1 = manager(1);
        final String name = SegmentNames.collective(5, 0);
        final Segment first = rank0.create(SegmentKind.COLLECTIVE, name, 4096);
        first.buffer().putIntVolatile(0, 11);
        final Segment seen = rank1.open(SegmentKind.COLLECTIVE, name, 0, System.nanoTime());
        assertEquals(11, seen.buffer().getIntVolatile(0));
        rank1.forget(seen);
        assertFalse(seen.isMapped(), "the last reference forgotten: unmapped at once");
        rank0.remove(first);
        final Segment second = rank0.create(SegmentKind.COLLECTIVE, name, 4096);
        second.buffer().putIntVolatile(0, 22);
        final Segment again = rank1.open(SegmentKind.COLLECTIVE, name, 0, System.nanoTime());
        assertEquals(22, again.buffer().getIntVolatile(0), "the new file, not a cached mapping of the old one");
        rank1.forget(again);
        rank0.remove(second);
    }

    @Test
    void idleCacheIsBoundedAndNeverUnmapsAReferencedSegment() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final SegmentManager rank1 = manager(1, 2, false);
        for (int id = 0; id < 6; id++)
        {
            final int value = id;
            rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, id), 4096, 0, b -> b.putInt(0, 100 + value));
        }
        final Segment held = rank1.open(SegmentKind.HEAP, SegmentNames.heap(0, 0), 0, now());
        final List<Segment> released = new ArrayList<>();
        for (int id = 1; id < 6; id++)
        {
            final Segment s = rank1.open(SegmentKind.HEAP, SegmentNames.heap(0, id), 0, now());
            assertEquals(100 + id, s.buffer().getInt(0));
            rank1.release(s);
            released.add(s);
        }
        assertTrue(held.isMapped(), "a referenced segment is never evicted");
        assertEquals(100, held.buffer().getInt(0));
        assertEquals(List.of(false, false, false, true, true), released.stream().map(Segment::isMapped).toList(),
            "only the two most recently used idle segments stay mapped");
        assertEquals(3, rank1.openedNames().size(), rank1.openedNames()::toString);

        // An evicted segment is mapped afresh on the next open.
        final Segment again = rank1.open(SegmentKind.HEAP, SegmentNames.heap(0, 1), 0, now());
        assertNotSame(released.get(0), again);
        assertEquals(101, again.buffer().getInt(0));
        rank1.release(again);
        rank1.release(held);
        assertEquals(2, rank1.openedNames().size(), "held joined the idle list and pushed the eldest out");
    }

    @Test
    void openRejectsWrongMagicMajorVersionKindAndCreatorNamingTheFileAndValues() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final SegmentManager rank1 = manager(1);
        rank0.create(SegmentKind.INBOX, SegmentNames.inbox(0), 4096);
        final Path inbox = dir.resolve("inbox-0");

        String msg = assertThrows(IOException.class, () -> rank1.open(SegmentKind.INBOX, "inbox-0", 5, now()))
            .getMessage();
        assertTrue(msg.contains("path=" + inbox) && msg.contains("creatorRank=0, expectedCreatorRank=5"), msg);
        msg = assertThrows(IOException.class, () -> rank1.open(SegmentKind.HEAP, "inbox-0", 0, now())).getMessage();
        assertTrue(msg.contains("path=" + inbox) && msg.contains("kind=INBOX(1), expectedKind=HEAP(2)"), msg);

        final List<Path> bad = new ArrayList<>();
        final Path magic = raw("magic", MAGIC + 1, VERSION, KIND_INBOX, 0, 128, 0, 128);
        final Path major = raw("major", MAGIC, (MAJOR_VERSION + 1) << 16, KIND_INBOX, 0, 128, 0, 128);
        final Path kind = raw("kind", MAGIC, VERSION, 99, 0, 128, 0, 128);
        final Path payload = raw("payload", MAGIC, VERSION, KIND_INBOX, 0, 128, 4096, 256);
        final Path offset = raw("offset", MAGIC, VERSION, KIND_INBOX, 0, 100, 0, 256);
        final Path unready = raw("unready", MAGIC, 0, KIND_INBOX, 0, 128, 0, 128);
        final Path tiny = raw("tiny", 0, 0, 0, 0, 0, 0, 10);
        bad.addAll(List.of(magic, major, kind, payload, offset, unready, tiny));

        msg = openFails(rank1, "magic");
        assertTrue(msg.contains("path=" + magic) && msg.contains("magic=0x" + Long.toHexString(MAGIC + 1)) &&
            msg.contains("expectedMagic=0x" + Long.toHexString(MAGIC)), msg);
        msg = openFails(rank1, "major");
        assertTrue(msg.contains("path=" + major) && msg.contains("version=0x20000, major=2, expectedMajor=1"), msg);
        msg = openFails(rank1, "kind");
        assertTrue(msg.contains("path=" + kind) && msg.contains("kind=99, expectedKind=INBOX(1)"), msg);
        msg = openFails(rank1, "payload");
        assertTrue(msg.contains("path=" + payload) && msg.contains("payloadLength=4096, fileLength=256"), msg);
        msg = openFails(rank1, "offset");
        assertTrue(msg.contains("path=" + offset) && msg.contains("payloadOffset=100"), msg);
        final long before = System.nanoTime();
        msg = assertThrows(IOException.class,
            () -> rank1.open(SegmentKind.INBOX, "unready", 0, now() + TimeUnit.MILLISECONDS.toNanos(50))).getMessage();
        assertTrue(System.nanoTime() - before >= TimeUnit.MILLISECONDS.toNanos(50), "waited for the deadline");
        assertTrue(msg.contains("never became ready") && msg.contains("path=" + unready) &&
            msg.contains("version=0x0"), msg);
        msg = openFails(rank1, "tiny");
        assertTrue(msg.contains("too short") && msg.contains("path=" + tiny) && msg.contains("length=10"), msg);
        final NoSuchFileException missing = assertThrows(NoSuchFileException.class,
            () -> rank1.open(SegmentKind.INBOX, "inbox-9", 9, now()));
        assertEquals(dir.resolve("inbox-9").toString(), missing.getFile());
        assertTrue(missing.getMessage().contains("kind=INBOX, expectedCreatorRank=9"), missing.getMessage());

        assertEquals(List.of(), rank1.openedNames(), "a failed open keeps nothing mapped");
        for (final Path p : bad)
        {
            Files.delete(p);
        }
    }

    private static String openFails(final SegmentManager m, final String name)
    {
        return assertThrows(IOException.class, () -> m.open(SegmentKind.INBOX, name, 0, now())).getMessage();
    }

    @Test
    void aReaderWaitsForTheVersionWordThenSeesTheHeader() throws Exception
    {
        final SegmentManager rank1 = manager(1);
        final Path p = raw("inbox-0", MAGIC, 0, KIND_INBOX, 0, 128, 64, 192);
        final CompletableFuture<Void> publisher = CompletableFuture.runAsync(() ->
        {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 192);
                Thread.sleep(100);
                new UnsafeBuffer(m).putIntRelease(VERSION_OFFSET, VERSION);
                IoUtil.unmap(m);
            }
            catch (final IOException | InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        final Segment s = rank1.open(SegmentKind.INBOX, "inbox-0", 0, inSeconds(20));
        publisher.get(20, TimeUnit.SECONDS);
        assertEquals(64, s.length());
        assertEquals(SELF, s.creatorPid());
        rank1.close();
        Files.delete(p);
    }

    /**
     * Forbidden outcome: a reader sees the version word but not the header or the payload the
     * creator wrote before it. Writer and reader go in lockstep: the reader already retries the
     * open of segment {@code i} (no waiting, as fast as it can) while the writer creates it, so it
     * meets files in the middle of creation; how often is counted.
     */
    @Test
    void aReaderNeverSeesAHalfWrittenHeader() throws Exception
    {
        final int segments = 300;
        final SegmentManager writer = manager(0);
        final SegmentManager reader = manager(1, 0, false);
        final AtomicReference<Throwable> forbidden = new AtomicReference<>();
        final AtomicInteger readerDone = new AtomicInteger();
        final int[] retries = new int[2];
        final Thread readerThread = new Thread(() ->
        {
            try
            {
                for (int i = 0; i < segments && forbidden.get() == null; i++)
                {
                    final Segment s = openEventually(reader, i, retries);
                    final long pid = s.creatorPid();
                    final int length = s.length();
                    final int first = s.buffer().getInt(0);
                    final long second = s.buffer().getLong(8);
                    if (pid != SELF || length != 64 + i || first != i || second != ~(long)i)
                    {
                        forbidden.set(new AssertionError("half-written segment " + i + ": pid=" + pid +
                            ", length=" + length + ", first=" + first + ", second=" + second));
                    }
                    reader.release(s);
                    readerDone.set(i + 1);
                }
            }
            catch (final Throwable t)
            {
                forbidden.set(t);
            }
        }, "segment-reader");
        readerThread.start();
        final long deadline = inSeconds(60);
        for (int i = 0; i < segments && forbidden.get() == null; i++)
        {
            while (readerDone.get() < i && forbidden.get() == null && System.nanoTime() - deadline < 0)
            {
                Thread.onSpinWait();
            }
            final int n = i;
            writer.create(SegmentKind.COLLECTIVE, SegmentNames.collective(n, 0), 64 + n, 0, b ->
            {
                b.putInt(0, n);
                b.putLong(8, ~(long)n);
            });
        }
        readerThread.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(readerThread.isAlive(), "reader stuck");
        if (forbidden.get() != null)
        {
            throw new AssertionError(forbidden.get());
        }
        System.out.println("aReaderNeverSeesAHalfWrittenHeader: opens that met a missing file " + retries[0] +
            ", a file in creation " + retries[1]);
    }

    private static Segment openEventually(final SegmentManager m, final int i, final int[] retries)
        throws IOException
    {
        final long deadline = inSeconds(30);
        while (true)
        {
            try
            {
                return m.open(SegmentKind.COLLECTIVE, SegmentNames.collective(i, 0), 0, System.nanoTime());
            }
            catch (final NoSuchFileException ex)
            {
                retries[0]++;
            }
            catch (final IOException ex)
            {
                final String msg = ex.getMessage();
                if (!msg.startsWith("segment never became ready") && !msg.startsWith("segment file too short"))
                {
                    throw ex;
                }
                retries[1]++;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("segment " + i + " never appeared");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void closeRemovesEveryCreatedFileAndUnmapsEverything() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final SegmentManager rank1 = manager(1);
        final Segment inbox = rank0.create(SegmentKind.INBOX, SegmentNames.inbox(0), 4096);
        final Segment heap = rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 0), 70_000);
        final Segment window = rank0.create(SegmentKind.WINDOW, SegmentNames.window(3, 0), 100);
        final Segment peerInbox = rank1.open(SegmentKind.INBOX, SegmentNames.inbox(0), 0, now());
        final Segment peerHeap = rank1.open(SegmentKind.HEAP, SegmentNames.heap(0, 0), 0, now());
        final Segment own = rank1.create(SegmentKind.INBOX, SegmentNames.inbox(1), 4096);
        assertSame(own, rank1.open(SegmentKind.INBOX, SegmentNames.inbox(1), 1, now()), "its own segment, as is");

        rank0.close();
        assertFalse(inbox.isMapped() || heap.isMapped() || window.isMapped());
        try (var files = Files.list(dir))
        {
            assertEquals(List.of(dir.resolve("inbox-1")), files.toList(), "only rank 1's file is left");
        }
        assertTrue(peerInbox.isMapped() && peerHeap.isMapped(), "a peer's close does not unmap ours");
        rank1.close();
        assertFalse(peerInbox.isMapped() || peerHeap.isMapped() || own.isMapped());
        assertTrue(rank1.isClosed());
        rank1.close();

        assertThrows(IllegalStateException.class, () -> rank0.create(SegmentKind.HEAP, "heap-0-1", 10));
        assertThrows(IllegalStateException.class, () -> rank0.open(SegmentKind.INBOX, "inbox-1", 1, now()));
    }

    @Test
    void keepFilesLeavesTheFilesOfWhatWasOpenAtCloseButUnmaps() throws IOException
    {
        final SegmentManager keeping = manager(0, 4, true);
        final Segment a = keeping.create(SegmentKind.INBOX, SegmentNames.inbox(0), 4096);
        final Segment b = keeping.create(SegmentKind.HEAP, SegmentNames.heap(0, 0), 4096);
        final Segment c = keeping.create(SegmentKind.COLLECTIVE, SegmentNames.collective(6, 0), 4096);
        keeping.remove(c);
        // A removed segment's name can be used again (a freed communicator's context id is reused).
        final Segment again = keeping.create(SegmentKind.COLLECTIVE, SegmentNames.collective(6, 0), 8192);
        keeping.close();
        assertFalse(a.isMapped() || b.isMapped() || c.isMapped() || again.isMapped());
        assertTrue(Files.exists(a.path()) && Files.exists(b.path()) && Files.exists(again.path()));
        Files.delete(a.path());
        Files.delete(b.path());
        Files.delete(again.path());
    }

    @Test
    void userMemoryOutlivesCloseUntilItsRemoveLater() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final Segment s = rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 0), 4096, SegmentManager.USER_MEMORY,
            null);
        final ByteBuffer view = s.newByteBufferView();
        view.putInt(0, 5);
        rank0.close();
        assertFalse(Files.exists(s.path()), "close removes the file");
        assertTrue(s.isMapped(), "but user code may still hold the memory");
        assertEquals(5, view.getInt(0));
        rank0.removeLater(s);
        assertFalse(s.isMapped(), "after close, removeLater unmaps at once");
    }

    @Test
    void removeLaterFromAnotherThreadIsAppliedByTheManager() throws Exception
    {
        final SegmentManager rank0 = manager(0);
        final Segment a = rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 0), 4096, SegmentManager.USER_MEMORY,
            null);
        final Segment b = rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 1), 4096, SegmentManager.USER_MEMORY,
            null);
        final Thread cleaner = new Thread(() -> rank0.removeLater(a));
        cleaner.start();
        cleaner.join();
        assertTrue(a.isMapped() && Files.exists(a.path()), "only enqueued: the manager removes it");
        assertEquals(1, rank0.processReleases());
        assertFalse(a.isMapped() || Files.exists(a.path()));
        assertEquals(0, rank0.processReleases());

        rank0.removeLater(b);
        rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 2), 4096, SegmentManager.USER_MEMORY, null);
        assertFalse(b.isMapped() || Files.exists(b.path()), "the next create applies pending releases");
        assertEquals(List.of("heap-0-2"), rank0.createdNames());
    }

    @Test
    void aByteBufferViewDoesNotOwnTheMapping() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        final Segment s = rank0.create(SegmentKind.HEAP, SegmentNames.heap(0, 0), 70_000, SegmentManager.USER_MEMORY,
            null);
        ByteBuffer view = s.newByteBufferView();
        assertTrue(view.isDirect());
        assertEquals(70_000, view.capacity());
        assertEquals(ByteOrder.nativeOrder(), view.order());
        assertEquals(s.address(), BufferUtil.address(view));
        view.putLong(8, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, s.buffer().getLong(8));
        view = null;
        for (int i = 0; i < 3; i++)
        {
            System.gc();
        }
        assertTrue(s.isMapped());
        assertEquals(0x1122334455667788L, s.buffer().getLong(8), "dropping the view unmapped nothing");
        rank0.remove(s);
        assertThrows(IllegalStateException.class, s::newByteBufferView);
    }

    @Test
    void createRefusesExistingFilesBadNamesLengthsAndFlagsLeavingNothing() throws IOException
    {
        final SegmentManager rank0 = manager(0);
        rank0.create(SegmentKind.INBOX, SegmentNames.inbox(0), 4096);
        assertThrows(FileAlreadyExistsException.class,
            () -> rank0.create(SegmentKind.INBOX, SegmentNames.inbox(0), 4096));
        assertThrows(IllegalArgumentException.class, () -> rank0.create(SegmentKind.HEAP, "../x", 10));
        assertThrows(IllegalArgumentException.class, () -> rank0.create(SegmentKind.HEAP, "heap-0-0", -1));
        assertThrows(IllegalArgumentException.class, () -> rank0.create(SegmentKind.HEAP, "heap-0-0", 10, 8, null));
        assertThrows(IllegalStateException.class, () -> rank0.create(SegmentKind.HEAP, "heap-0-0", 10, 0, b ->
        {
            throw new IllegalStateException("initializer failed");
        }));
        assertFalse(Files.exists(dir.resolve("heap-0-0")), "a failed create leaves no file");
        assertEquals(List.of("inbox-0"), rank0.createdNames());
        try (var files = Files.list(dir))
        {
            assertEquals(1, files.count());
        }
    }

    @Test
    void touchPagesAllocatesEveryPageBeforePublication() throws Exception
    {
        final SegmentManager rank0 = manager(0);
        final int length = 1 << 20;
        final Segment touched = rank0.create(SegmentKind.HEAP, "heap-0-0", length, SegmentManager.TOUCH_PAGES, null);
        final Segment lazy = rank0.create(SegmentKind.HEAP, "heap-0-1", length, 0, null);
        assertTrue(allocatedBytes(touched.path()) >= length, "every page allocated by the creator");
        assertTrue(allocatedBytes(lazy.path()) < length / 2, "pages left for the first write to place");
    }

    /** st_blocks * 512 of a file, from stat(1): NIO has no way to ask. */
    private static long allocatedBytes(final Path p) throws Exception
    {
        final Process stat = new ProcessBuilder("stat", "--format=%b %B", p.toString()).start();
        final String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, stat.waitFor(), out);
        final String[] parts = out.split(" ");
        return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    }

    @Test
    void segmentsWorkAcrossProcesses() throws Exception
    {
        final SegmentManager rank0 = manager(0);
        final Segment mine = rank0.create(SegmentKind.WINDOW, SegmentNames.window(0, 0), 4096, 0,
            b -> b.putInt(0, 12345));
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (arg.startsWith("--add-exports") || arg.startsWith("--add-opens") || arg.startsWith("--enable-native"))
            {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SegmentPeerMain.class.getName(),
            dir.toString(), Long.toString(SELF)));
        final Path errors = Files.createTempFile("segment-peer", ".err");
        final Process child = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        try (BufferedReader out =
            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            OutputStream in = child.getOutputStream())
        {
            final String ready = CompletableFuture.supplyAsync(() -> readLine(out)).get(60, TimeUnit.SECONDS);
            assertEquals("ready " + child.pid(), ready, () -> "child said: " + ready + ", stderr: " + read(errors));
            assertEquals(12346, mine.buffer().getIntAcquire(4), "the child answered in our segment");

            final Segment theirs = rank0.open(SegmentKind.WINDOW, SegmentNames.window(0, 1), 1, inSeconds(10));
            assertEquals(child.pid(), theirs.creatorPid());
            assertEquals(1, theirs.creatorRank());
            assertTrue(theirs.isCreatorAlive());
            assertEquals(child.pid(), theirs.buffer().getLong(0));
            rank0.release(theirs);

            in.write('\n');
            in.flush();
            assertEquals("closed", CompletableFuture.supplyAsync(() -> readLine(out)).get(60, TimeUnit.SECONDS));
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not exit");
            assertEquals(0, child.exitValue(), () -> "stderr: " + read(errors));
            assertFalse(Files.exists(dir.resolve("win-0-1")), "the child's close removed its file");
            assertFalse(theirs.isCreatorAlive(), "the creator is gone");
        }
        catch (final Exception | AssertionError ex)
        {
            keepForInspection();
            throw ex;
        }
        finally
        {
            child.destroyForcibly();
            Files.deleteIfExists(errors);
        }
    }

    private static String readLine(final BufferedReader reader)
    {
        try
        {
            return reader.readLine();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static String read(final Path p)
    {
        try
        {
            return Files.readString(p);
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }

    private void keepForInspection()
    {
        try
        {
            final Path target = Path.of(System.getProperty("basedir", "."), "target", "failed-segments",
                testName + "-" + System.currentTimeMillis());
            Files.createDirectories(target);
            try (var files = Files.list(dir))
            {
                for (final Path f : files.toList())
                {
                    Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
            System.err.println("segment test: directory of the failed test copied to " + target);
        }
        catch (final IOException ex)
        {
            fail("could not keep the failed test's directory: " + ex);
        }
    }
}
