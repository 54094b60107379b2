package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.InboxDescriptor.*;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.HEADER_LENGTH;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.KIND_INBOX;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.MAJOR_VERSION;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmpi.shm.Futex;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

class InboxTest
{
    private static final int CAPACITY = 64 * 1024;

    @TempDir
    Path tmp;

    private Path dir;
    private final Futex futex = Futex.open(true);
    private final List<Inbox> open = new ArrayList<>();

    @BeforeEach
    void makeDir() throws IOException
    {
        dir = Files.createDirectory(tmp.resolve("job"));
    }

    @AfterEach
    void unmapAndDelete() throws IOException
    {
        for (final Inbox i : open)
        {
            i.close();
        }
        try (var files = Files.list(dir))
        {
            for (final Path f : files.toList())
            {
                Files.delete(f);
            }
        }
        Files.delete(dir);
        assertFalse(Files.exists(dir));
    }

    private Inbox track(final Inbox inbox)
    {
        open.add(inbox);
        return inbox;
    }

    /** A hand-made inbox file: segment header, then the capacity; the rest zero. */
    private Path raw(final String name, final int length, final long magic, final int version, final int owner,
        final int capacity) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        if (length >= HEADER_LENGTH + 4)
        {
            b.putLong(SegmentHeaderDescriptor.MAGIC_OFFSET, magic);
            b.putInt(SegmentHeaderDescriptor.VERSION_OFFSET, version);
            b.putInt(SegmentHeaderDescriptor.KIND_OFFSET, KIND_INBOX);
            b.putInt(SegmentHeaderDescriptor.CREATOR_RANK_OFFSET, owner);
            b.putInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET, HEADER_LENGTH);
            b.putLong(SegmentHeaderDescriptor.PAYLOAD_LENGTH_OFFSET, length - HEADER_LENGTH);
            b.putInt(HEADER_LENGTH + CAPACITY_OFFSET, capacity);
        }
        final Path p = dir.resolve(name);
        Files.write(p, b.array());
        return p;
    }

    @Test
    void createWritesTheDescribedHeader() throws IOException
    {
        final Path p = dir.resolve("inbox-3");
        final Inbox inbox = track(Inbox.create(p, 3, 4242, CAPACITY, futex));
        assertEquals(3, inbox.ownerRank());
        assertEquals(p, inbox.path());
        assertEquals(CAPACITY, inbox.ring().capacity());
        assertFalse(inbox.hasPending());
        assertEquals(length(CAPACITY), Files.size(p));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));

        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(SegmentHeaderDescriptor.MAGIC, b.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET));
        assertEquals(SegmentHeaderDescriptor.VERSION, b.getInt(SegmentHeaderDescriptor.VERSION_OFFSET));
        assertEquals(KIND_INBOX, b.getInt(SegmentHeaderDescriptor.KIND_OFFSET));
        assertEquals(3, b.getInt(SegmentHeaderDescriptor.CREATOR_RANK_OFFSET));
        assertEquals(4242, b.getLong(SegmentHeaderDescriptor.CREATOR_PID_OFFSET));
        assertEquals(HEADER_LENGTH, b.getInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET));
        assertEquals(payloadLength(CAPACITY), b.getLong(SegmentHeaderDescriptor.PAYLOAD_LENGTH_OFFSET));
        assertEquals(CAPACITY, b.getInt(HEADER_LENGTH + CAPACITY_OFFSET));
        assertEquals(0, b.getInt(HEADER_LENGTH + WAKE_WORD_OFFSET));
    }

    @Test
    void peerMappingSharesTheRingAndTheWakeWord() throws IOException
    {
        final Path p = dir.resolve("inbox-1");
        final Inbox owner = track(Inbox.create(p, 1, 1, CAPACITY, futex));
        final Inbox peer = track(Inbox.open(p, 1, futex));
        assertEquals(1, peer.ownerRank());
        assertEquals(CAPACITY, peer.ring().capacity());

        final UnsafeBuffer msg = new UnsafeBuffer(new byte[] {1, 2, 3});
        assertTrue(peer.ring().write(FrameDescriptor.TYPE_DATA, msg, 0, 3));
        assertTrue(owner.hasPending());
        final byte[] got = new byte[3];
        assertEquals(1, owner.ring().read((type, buffer, index, length) -> buffer.getBytes(index, got)));
        assertEquals(List.of((byte)1, (byte)2, (byte)3), List.of(got[0], got[1], got[2]));
        assertFalse(owner.hasPending());

        owner.wakeWord().prepareSleep();
        assertTrue(peer.wakeWord().isSleeping(), "the peer sees the owner's announcement");
        peer.wakeWord().wakeIfSleeping();
        assertFalse(owner.wakeWord().isSleeping());

        // Agrona's trailer (where its positions live) is inside the file, past the ring.
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        assertTrue(b.getLong(HEADER_LENGTH + RING_OFFSET + CAPACITY + RingBufferDescriptor.TAIL_POSITION_OFFSET) > 0);
    }

    @Test
    void createRefusesBadCapacityAndExistingFile() throws IOException
    {
        assertThrows(IllegalArgumentException.class, () -> Inbox.create(dir.resolve("bad"), 0, 1, 5000, futex));
        assertFalse(Files.exists(dir.resolve("bad")), "nothing created for a bad capacity");
        track(Inbox.create(dir.resolve("inbox-0"), 0, 1, CAPACITY, futex));
        assertThrows(FileAlreadyExistsException.class,
            () -> Inbox.create(dir.resolve("inbox-0"), 0, 1, CAPACITY, futex));
    }

    @Test
    void openChecksTheOwner() throws IOException
    {
        final Path p = dir.resolve("inbox-2");
        track(Inbox.create(p, 2, 1, CAPACITY, futex));
        final IOException ex = assertThrows(IOException.class, () -> Inbox.open(p, 5, futex));
        assertTrue(ex.getMessage().contains("creatorRank=2, expectedCreatorRank=5"), ex.getMessage());
        assertTrue(ex.getMessage().contains("path=" + p), ex.getMessage());
    }

    @Test
    void throughTheRanksManagersTheOwnersCloseRemovesAndThePeersReleases() throws Exception
    {
        final SegmentManager owner = new SegmentManager(dir, 0);
        final SegmentManager peer = new SegmentManager(dir, 1);
        try
        {
            // The peer may open first: it waits for the owner to create and publish.
            final var opening = java.util.concurrent.CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return Inbox.open(peer, 0, System.nanoTime() + 20_000_000_000L, futex);
                }
                catch (final IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            final Inbox mine = Inbox.create(owner, CAPACITY, futex);
            final Inbox theirs = opening.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(dir.resolve(SegmentNames.inbox(0)), mine.path());
            assertEquals(0, theirs.ownerRank());
            assertEquals(CAPACITY, theirs.ring().capacity());
            assertTrue(theirs.ring().write(FrameDescriptor.TYPE_DATA, new UnsafeBuffer(new byte[8]), 0, 8));
            assertTrue(mine.hasPending());

            final Inbox again = Inbox.open(peer, 0, futex);
            assertEquals(2, peer.referenceCount(theirs.segment()), "one cached mapping, two references");
            again.close();
            theirs.close();
            theirs.close();
            assertEquals(0, peer.referenceCount(theirs.segment()));

            mine.close();
            assertFalse(Files.exists(dir.resolve("inbox-0")), "the owner's close removes its inbox");
            assertTrue(theirs.segment().isMapped(), "the peer's idle mapping stays valid memory until evicted");
        }
        finally
        {
            peer.close();
            owner.close();
        }
    }

    @Test
    void anInboxIsASegmentOfKindInbox() throws IOException
    {
        final Path p = dir.resolve("inbox-4");
        track(Inbox.create(p, 4, ProcessHandle.current().pid(), CAPACITY, futex));
        final SegmentManager peer = new SegmentManager(dir, 1);
        try
        {
            final var s = peer.open(SegmentKind.INBOX, "inbox-4", 4, System.nanoTime());
            assertEquals(ProcessHandle.current().pid(), s.creatorPid());
            assertTrue(s.isCreatorAlive());
            assertEquals(payloadLength(CAPACITY), s.length());
            assertTrue(assertThrows(IOException.class, () -> peer.open(SegmentKind.HEAP, "inbox-4", 4,
                System.nanoTime())).getMessage().contains("kind=INBOX(1), expectedKind=HEAP(2)"));
        }
        finally
        {
            peer.close();
        }
    }

    @Test
    void openRejectsBadMagicVersionAndLength() throws IOException
    {
        final int length = (int)length(CAPACITY);
        final long magicValue = SegmentHeaderDescriptor.MAGIC;
        final int version = SegmentHeaderDescriptor.VERSION;
        final Path magic = raw("magic", length, magicValue + 1, version, 0, CAPACITY);
        final Path unready = raw("unready", length, magicValue, 0, 0, CAPACITY);
        final Path major = raw("major", length, magicValue, (MAJOR_VERSION + 1) << 16, 0, CAPACITY);
        final Path shortRing = raw("short-ring", length, magicValue, version, 0, CAPACITY * 2);
        final Path badCapacity = raw("bad-capacity", length, magicValue, version, 0, 5000);
        final Path tiny = raw("tiny", HEADER_LENGTH - 1, magicValue, version, 0, CAPACITY);

        assertTrue(assertThrows(IOException.class, () -> Inbox.open(magic, 0, futex)).getMessage()
            .contains("magic=0x" + Long.toHexString(magicValue + 1)));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(unready, 0, futex)).getMessage()
            .contains("version=0x0"));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(major, 0, futex)).getMessage()
            .contains("version=0x" + Integer.toHexString((MAJOR_VERSION + 1) << 16)));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(shortRing, 0, futex)).getMessage()
            .contains("path=" + shortRing));
        final String bad = assertThrows(IOException.class, () -> Inbox.open(badCapacity, 0, futex)).getMessage();
        assertTrue(bad.contains("path=" + badCapacity) && bad.contains("capacity=5000"), bad);
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(tiny, 0, futex)).getMessage()
            .contains("too short"));
        assertThrows(IOException.class, () -> Inbox.open(dir.resolve("missing"), 0, futex));
    }

    /**
     * Stand-ins of one remote node share a doorbell: a producer of the second wakes the wake word of
     * the first, which the bridge thread that forwards both sleeps on; the second's own word is left
     * alone. A plain inbox and the first stand-in keep their own words.
     */
    @Test
    void standInsOfOneNodeRingTheFirstOnesWakeWord() throws Exception
    {
        final long pid = ProcessHandle.current().pid();
        final Inbox first = track(Inbox.createForwarded(dir.resolve(SegmentNames.inbox(4)), 4, pid, CAPACITY, futex,
            4));
        final Inbox second = track(Inbox.createForwarded(dir.resolve(SegmentNames.inbox(7)), 7, pid, CAPACITY, futex,
            4));
        assertTrue(first.isForwarded() && second.isForwarded());
        final Inbox producer = track(Inbox.open(dir.resolve(SegmentNames.inbox(7)), 7, futex));
        first.wakeWord().prepareSleep();
        second.wakeWord().prepareSleep();
        producer.wakeWord().wakeIfSleeping();
        assertFalse(first.wakeWord().isSleeping(), "the doorbell was rung");
        assertTrue(second.wakeWord().isSleeping(), "the second stand-in's own word is not the doorbell");
        second.wakeWord().awake();
        final Inbox producerOfFirst = track(Inbox.open(dir.resolve(SegmentNames.inbox(4)), 4, futex));
        first.wakeWord().prepareSleep();
        producerOfFirst.wakeWord().wakeIfSleeping();
        assertFalse(first.wakeWord().isSleeping(), "the first stand-in's producers ring its own word");
        final Inbox plain = track(Inbox.create(dir.resolve(SegmentNames.inbox(9)), 9, pid, CAPACITY, futex));
        final Inbox peer = track(Inbox.open(dir.resolve(SegmentNames.inbox(9)), 9, futex));
        assertFalse(plain.isForwarded());
        plain.wakeWord().prepareSleep();
        peer.wakeWord().wakeIfSleeping();
        assertFalse(plain.wakeWord().isSleeping(), "a plain inbox's producers ring its owner");
    }
}
