package org.shmpi.shm.segment;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.shmpi.shm.Processes;

/**
 * One mapped segment file of a job (header in {@link SegmentHeaderDescriptor}), as handed out by
 * its {@link SegmentManager}: either created here (this rank is its creator) or opened from a
 * peer. Everything a user of the segment needs is the payload: {@link #address()},
 * {@link #length()} and the {@link #buffer()} view over it.
 *
 * <p>The mapping belongs to the manager, never to a garbage-collected object: it is unmapped by
 * {@link SegmentManager#remove}, {@link SegmentManager#release} (through the idle cache),
 * {@link SegmentManager#processReleases} or {@link SegmentManager#close}, and using the payload
 * after that faults. Holding a {@code Segment} does not keep the mapping alive.
 */
public final class Segment
{
    private final SegmentManager manager;
    private final SegmentKind kind;
    private final String name;
    private final Path path;
    private final int creatorRank;
    private final long creatorPid;
    private final long creatorStartMillis;
    private final boolean creator;
    private final int flags;
    private final MappedByteBuffer mapping;
    private final UnsafeBuffer payload;

    /** Times opened and not yet released (opened segments only); guarded by the manager. */
    int references;
    /** Whether the file has been unlinked (created segments only); guarded by the manager. */
    boolean unlinked;
    /** Volatile: read by any thread for diagnostics, written under the manager's lock. */
    private volatile boolean mapped = true;

    Segment(
        final SegmentManager manager,
        final SegmentKind kind,
        final String name,
        final Path path,
        final int creatorRank,
        final long creatorPid,
        final long creatorStartMillis,
        final boolean creator,
        final int flags,
        final MappedByteBuffer mapping,
        final int payloadOffset,
        final int payloadLength)
    {
        this.manager = manager;
        this.kind = kind;
        this.name = name;
        this.path = path;
        this.creatorRank = creatorRank;
        this.creatorPid = creatorPid;
        this.creatorStartMillis = creatorStartMillis;
        this.creator = creator;
        this.flags = flags;
        this.mapping = mapping;
        this.payload = new UnsafeBuffer(mapping, payloadOffset, payloadLength);
    }

    /** Address of the first payload byte in this process (128-byte aligned). */
    public long address()
    {
        return payload.addressOffset();
    }

    /** Payload length in bytes. */
    public int length()
    {
        return payload.capacity();
    }

    /**
     * The payload as an Agrona buffer (index 0 = first payload byte). Accessors name their
     * ordering; the buffer is read-only memory for peers of a kind that is not
     * {@link SegmentKind#peerWritable() peer-writable} (a write faults).
     */
    public AtomicBuffer buffer()
    {
        return payload;
    }

    /**
     * A new direct {@link ByteBuffer} over the payload, in native order, that does not own the
     * mapping (it is made by JNI's {@code NewDirectByteBuffer}, through JNA): dropping it unmaps
     * nothing, and its views ({@code slice}, {@code asIntBuffer}, ...) keep it, not the mapping,
     * reachable. That is what lets the manager, not a {@code Cleaner}, decide when the memory
     * goes: a {@code Cleaner} registered on this buffer learns when user code has dropped it and
     * every view of it.
     *
     * @throws UnsupportedOperationException when JNA's native library cannot be loaded.
     */
    public ByteBuffer newByteBufferView()
    {
        if (!mapped)
        {
            throw new IllegalStateException("segment is unmapped: name=" + name);
        }
        final ByteBuffer view;
        try
        {
            view = new com.sun.jna.Pointer(address()).getByteBuffer(0, length());
        }
        catch (final LinkageError ex)
        {
            throw new UnsupportedOperationException("cannot wrap segment memory without JNA: name=" + name, ex);
        }
        return view.order(ByteOrder.nativeOrder());
    }

    /**
     * A direct buffer (native byte order) over {@code length} bytes from byte {@code offset} of
     * this segment, made on its own: it is no view of a buffer over the whole segment, so
     * nothing reached through it (a slice, the JDK's attachment) extends past those bytes.
     */
    public ByteBuffer newByteBufferView(final long offset, final int length)
    {
        if (!mapped)
        {
            throw new IllegalStateException("segment is unmapped: name=" + name);
        }
        if (offset < 0 || length < 0 || offset + length > length())
        {
            throw new IllegalArgumentException("view outside the segment: name=" + name + ", offset=" + offset +
                ", length=" + length + ", segmentLength=" + length());
        }
        final ByteBuffer view;
        try
        {
            view = new com.sun.jna.Pointer(address() + offset).getByteBuffer(0, length);
        }
        catch (final LinkageError ex)
        {
            throw new UnsupportedOperationException("cannot wrap segment memory without JNA: name=" + name, ex);
        }
        return view.order(ByteOrder.nativeOrder());
    }

    public SegmentKind kind()
    {
        return kind;
    }

    /** File name in the job directory (see {@link SegmentNames}). */
    public String name()
    {
        return name;
    }

    public Path path()
    {
        return path;
    }

    /** World rank of the creator, or {@link SegmentHeaderDescriptor#NO_RANK}. */
    public int creatorRank()
    {
        return creatorRank;
    }

    public long creatorPid()
    {
        return creatorPid;
    }

    /** Creator's process start time, epoch ms (-1 when unknown). */
    public long creatorStartMillis()
    {
        return creatorStartMillis;
    }

    /** Whether the creating process (pid and start time) still runs. */
    public boolean isCreatorAlive()
    {
        return Processes.isAlive(creatorPid, creatorStartMillis);
    }

    /** Whether this manager created the segment (else it was opened from a peer). */
    public boolean isCreator()
    {
        return creator;
    }

    /** Whether the memory is lent to user code ({@link SegmentManager#USER_MEMORY}). */
    public boolean isUserMemory()
    {
        return (flags & SegmentManager.USER_MEMORY) != 0;
    }

    /** Whether the payload is still mapped here (volatile read). */
    public boolean isMapped()
    {
        return mapped;
    }

    SegmentManager manager()
    {
        return manager;
    }

    /** Unmaps, once; called by the manager under its lock. */
    void unmap()
    {
        if (mapped)
        {
            mapped = false;
            IoUtil.unmap(mapping);
        }
    }

    @Override
    public String toString()
    {
        return "Segment{name=" + name + ", kind=" + kind + ", creatorRank=" + creatorRank + ", length=" + length() +
            ", creator=" + creator + ", mapped=" + mapped + "}";
    }
}
