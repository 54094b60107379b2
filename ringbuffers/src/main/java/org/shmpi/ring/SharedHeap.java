package org.shmpi.ring;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.JobDirectory;

/**
 * A rank's shared-memory heap: buffers ({@code MPI.newByteBuffer} and friends) that live in
 * files of the job directory, {@code heap-<rank>-<segment>}, so that a peer can map them and copy
 * a large message straight out of the sender's buffer (one copy instead of two through the ring).
 * Each allocation is one segment file, removed when its buffer becomes unreachable (a peer that
 * still has it mapped keeps reading valid memory: the file is only unlinked).
 */
public final class SharedHeap implements AutoCloseable
{
    /** A segment: where it is mapped here, how long, and its id in file names. */
    public static final class Segment
    {
        final int id;
        final long address;
        final long length;

        Segment(final int id, final long address, final long length)
        {
            this.id = id;
            this.address = address;
            this.length = length;
        }
    }

    private final JobDirectory directory;
    private final int rank;
    private final AtomicInteger nextSegment = new AtomicInteger();
    private final ConcurrentSkipListMap<Long, Segment> byAddress = new ConcurrentSkipListMap<>();
    private final Cleaner cleaner = Cleaner.create();

    /**
     * Peers' heap segments mapped here, least recently used first; at most 64 stay mapped, so a
     * segment its owner has freed does not keep its memory alive for long. Progress thread only.
     */
    private final LinkedHashMap<Long, MappedByteBuffer> peerSegments = new LinkedHashMap<>(16, 0.75f, true)
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(final Map.Entry<Long, MappedByteBuffer> eldest)
        {
            if (size() > 64)
            {
                IoUtil.unmap(eldest.getValue());
                return true;
            }
            return false;
        }
    };

    public SharedHeap(final JobDirectory directory, final int rank)
    {
        this.directory = directory;
        this.rank = rank;
    }

    /** Path of a segment file of a rank. */
    public static Path segmentFile(final JobDirectory directory, final int rank, final long segment)
    {
        return directory.path().resolve("heap-" + rank + "-" + segment);
    }

    /** Allocates a buffer of {@code bytes} in a new segment file (0600), native byte order. */
    public ByteBuffer allocate(final int bytes) throws IOException
    {
        final int id = nextSegment.getAndIncrement();
        final Path path = segmentFile(directory, rank, id);
        Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        final MappedByteBuffer mapped;
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
        {
            file.setLength(Math.max(1, bytes));
            mapped = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes);
        }
        final long address = BufferUtil.address(mapped);
        final Segment segment = new Segment(id, address, bytes);
        byAddress.put(address, segment);
        cleaner.register(mapped, new Release(byAddress, address, segment, path));
        return mapped.order(ByteOrder.nativeOrder());
    }

    /** The segment holding {@code [address, address + length)}, or null when it is not ours. */
    public Segment find(final long address, final long length)
    {
        final Map.Entry<Long, Segment> e = byAddress.floorEntry(address);
        if (e == null)
        {
            return null;
        }
        final Segment s = e.getValue();
        return address + length <= s.address + s.length ? s : null;
    }

    /**
     * Address where segment {@code segment} of rank {@code source} is mapped here (mapped on
     * first use, read-only, and cached). Progress thread only.
     */
    public long peerAddress(final int source, final long segment)
    {
        final long key = ((long)source << 40) | segment;
        MappedByteBuffer mapped = peerSegments.get(key);
        if (mapped == null)
        {
            final Path path = segmentFile(directory, source, segment);
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
            {
                mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            }
            catch (final IOException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the heap segment of rank " + source +
                    ": path=" + path + ": " + ex.getMessage(), ex);
            }
            peerSegments.put(key, mapped);
        }
        return BufferUtil.address(mapped);
    }

    /** Unmaps the peers' segments mapped here. */
    @Override
    public void close()
    {
        for (final MappedByteBuffer m : peerSegments.values())
        {
            IoUtil.unmap(m);
        }
        peerSegments.clear();
    }

    /** Runs when a heap buffer is unreachable: forget the range, unlink the file. */
    private static final class Release implements Runnable
    {
        private final Map<Long, Segment> byAddress;
        private final long address;
        private final Segment segment;
        private final Path path;

        Release(final Map<Long, Segment> byAddress, final long address, final Segment segment, final Path path)
        {
            this.byAddress = byAddress;
            this.address = address;
            this.segment = segment;
            this.path = path;
        }

        @Override
        public void run()
        {
            // Only our entry: the same address may already belong to a newer mapping.
            byAddress.remove(address, segment);
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException ignore)
            {
                // The job directory is removed at the end of the job anyway.
            }
        }
    }
}
