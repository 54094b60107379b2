package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.InboxDescriptor.*;

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

    private Path raw(final String name, final int length, final long magic, final int version, final int owner,
        final int capacity) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC_OFFSET, magic);
        b.putInt(VERSION_OFFSET, version);
        b.putInt(OWNER_RANK_OFFSET, owner);
        b.putInt(CAPACITY_OFFSET, capacity);
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
        assertEquals(MAGIC, b.getLong(MAGIC_OFFSET));
        assertEquals(VERSION, b.getInt(VERSION_OFFSET));
        assertEquals(3, b.getInt(OWNER_RANK_OFFSET));
        assertEquals(4242, b.getLong(OWNER_PID_OFFSET));
        assertEquals(CAPACITY, b.getInt(CAPACITY_OFFSET));
        assertEquals(0, b.getInt(WAKE_WORD_OFFSET));
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
        assertTrue(b.getLong(RING_OFFSET + CAPACITY + RingBufferDescriptor.TAIL_POSITION_OFFSET) > 0);
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
        assertTrue(ex.getMessage().contains("owner=2, expectedOwner=5"), ex.getMessage());
        assertTrue(ex.getMessage().contains("path=" + p), ex.getMessage());
    }

    @Test
    void openRejectsBadMagicVersionAndLength() throws IOException
    {
        final int length = length(CAPACITY);
        final Path magic = raw("magic", length, MAGIC + 1, VERSION, 0, CAPACITY);
        final Path unready = raw("unready", length, MAGIC, 0, 0, CAPACITY);
        final Path major = raw("major", length, MAGIC, (MAJOR_VERSION + 1) << 16, 0, CAPACITY);
        final Path shortRing = raw("short-ring", length, MAGIC, VERSION, 0, CAPACITY * 2);
        final Path tiny = raw("tiny", RING_OFFSET - 1, MAGIC, VERSION, 0, CAPACITY);

        assertTrue(assertThrows(IOException.class, () -> Inbox.open(magic, 0, futex)).getMessage()
            .contains("magic=0x" + Long.toHexString(MAGIC + 1)));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(unready, 0, futex)).getMessage()
            .contains("version=0x0"));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(major, 0, futex)).getMessage()
            .contains("version=0x" + Integer.toHexString((MAJOR_VERSION + 1) << 16)));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(shortRing, 0, futex)).getMessage()
            .contains("path=" + shortRing));
        assertTrue(assertThrows(IOException.class, () -> Inbox.open(tiny, 0, futex)).getMessage()
            .contains("too short"));
        assertThrows(IOException.class, () -> Inbox.open(dir.resolve("missing"), 0, futex));
    }
}
