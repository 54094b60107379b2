package org.shmpi.ring;

import static org.shmpi.ring.InboxDescriptor.*;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.shmpi.shm.Futex;
import org.shmpi.shm.WakeWord;

/**
 * A rank's inbox (layout in {@link InboxDescriptor}): the owner creates and consumes it, every
 * peer maps it and produces into it.
 */
public final class Inbox implements AutoCloseable
{
    private final Path path;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final ManyToOneRingBuffer ring;
    private final WakeWord wakeWord;
    private final int ownerRank;

    private Inbox(final Path path, final MappedByteBuffer mapped, final int capacity, final Futex futex)
    {
        this.path = path;
        this.mapped = mapped;
        this.header = new UnsafeBuffer(mapped, 0, RING_OFFSET);
        this.ring = new ManyToOneRingBuffer(
            new UnsafeBuffer(mapped, RING_OFFSET, capacity + RingBufferDescriptor.TRAILER_LENGTH));
        this.wakeWord = new WakeWord(header, WAKE_WORD_OFFSET, futex);
        this.ownerRank = header.getInt(OWNER_RANK_OFFSET);
    }

    /**
     * Owner: creates the inbox file (0600), touches every page (first touch places it on this
     * rank's NUMA node), writes the header and publishes the version word last (release).
     */
    public static Inbox create(
        final Path path, final int ownerRank, final long ownerPid, final int capacity, final Futex futex)
        throws IOException
    {
        final int length = InboxDescriptor.length(capacity);
        Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        final MappedByteBuffer mapped;
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
        {
            file.setLength(length);
            mapped = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        final UnsafeBuffer all = new UnsafeBuffer(mapped);
        all.setMemory(0, length, (byte)0);
        all.putLong(MAGIC_OFFSET, MAGIC);
        all.putInt(OWNER_RANK_OFFSET, ownerRank);
        all.putLong(OWNER_PID_OFFSET, ownerPid);
        all.putInt(CAPACITY_OFFSET, capacity);
        // Release: a peer that reads the version sees the header and the zeroed ring.
        all.putIntRelease(VERSION_OFFSET, VERSION);
        return new Inbox(path, mapped, capacity, futex);
    }

    /** Peer: maps an existing, published inbox and checks its header. */
    public static Inbox open(final Path path, final int expectedOwner, final Futex futex) throws IOException
    {
        final MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final long size = channel.size();
            if (size < RING_OFFSET)
            {
                throw new IOException("inbox file too short: path=" + path + ", length=" + size);
            }
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
        final UnsafeBuffer b = new UnsafeBuffer(mapped);
        final int version = b.getIntAcquire(VERSION_OFFSET);
        final long magic = b.getLong(MAGIC_OFFSET);
        final int owner = b.getInt(OWNER_RANK_OFFSET);
        final int capacity = b.getInt(CAPACITY_OFFSET);
        if (magic != MAGIC || (version >>> 16) != MAJOR_VERSION || owner != expectedOwner ||
            capacity < 4096 || Integer.bitCount(capacity) != 1 || mapped.capacity() < InboxDescriptor.length(capacity))
        {
            IoUtil.unmap(mapped);
            throw new IOException("not a ready shmpi inbox: path=" + path + ", magic=0x" + Long.toHexString(magic) +
                ", version=0x" + Integer.toHexString(version) + ", owner=" + owner + ", expectedOwner=" +
                expectedOwner);
        }
        return new Inbox(path, mapped, capacity, futex);
    }

    public ManyToOneRingBuffer ring()
    {
        return ring;
    }

    public WakeWord wakeWord()
    {
        return wakeWord;
    }

    public int ownerRank()
    {
        return ownerRank;
    }

    public Path path()
    {
        return path;
    }

    /** Whether any frame is waiting to be read (two volatile loads). */
    public boolean hasPending()
    {
        return ring.producerPosition() != ring.consumerPosition();
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapped);
    }
}
