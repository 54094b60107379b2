package org.shmpi.ring;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * A rank's shared-memory heap: buffers ({@code MPI.newByteBuffer} and friends) that live in
 * segments of the job directory, {@code heap-<rank>-<id>} (kind
 * {@link SegmentKind#HEAP HEAP}), so that a peer can map them and copy a large message straight
 * out of the sender's buffer (one copy instead of two through the ring). Each allocation is one
 * segment of the rank's {@link SegmentManager}.
 *
 * <p><b>Lifetime.</b> The buffer handed to user code does not own the mapping
 * ({@link org.shmpi.shm.segment.Segment#newByteBufferView()}); the manager does. When the buffer
 * and every view of it are unreachable, a {@code Cleaner} forgets the address range here and
 * asks the manager to remove the segment ({@link SegmentManager#removeLater}); the manager
 * unlinks and unmaps it on its next allocation, {@link #processReleases()} or close. So:
 * <ul>
 * <li>a segment is never unmapped while the engine may still copy from or to it by raw address:
 *     a pending request holds the user's buffer (the engine retains it until completion), so
 *     the Cleaner cannot have run;</li>
 * <li>the files go at the latest when the manager closes (MPI.Finalize closes the engine);
 *     memory user code still holds then stays mapped until it is dropped, because unmapping it
 *     would crash the JVM on the next access;</li>
 * <li>a program that allocates and drops buffers in a loop stays bounded: heap segments are
 *     invisible to the Java heap's sizing, so when the bytes not yet released pass a threshold,
 *     an allocation first applies pending releases, then asks for a collection
 *     ({@code System.gc()}) and waits briefly for the Cleaner, as {@code ByteBuffer.allocateDirect}
 *     does at its limit. If the memory is really live the threshold grows to twice the live
 *     bytes, so a program with a large live heap does not collect on every allocation.</li>
 * </ul>
 */
public final class SharedHeap implements AutoCloseable
{
    /** Bytes of heap segments not yet released above which an allocation collects first. */
    public static final long RELEASE_THRESHOLD_DEFAULT = 256L * 1024 * 1024;

    /** How long an allocation over the threshold waits for the Cleaner, at most (doubling naps). */
    private static final int MAX_COLLECT_NAPS = 9;

    /** An allocation: where its payload is mapped here, how long, and its id in the file name. */
    public static final class Segment
    {
        final long id;
        final long address;
        final long length;
        final org.shmpi.shm.segment.Segment segment;

        Segment(final long id, final long address, final long length, final org.shmpi.shm.segment.Segment segment)
        {
            this.id = id;
            this.address = address;
            this.length = length;
            this.segment = segment;
        }

        /** Segment id: the {@code <id>} of {@code heap-<rank>-<id>}. */
        public long id()
        {
            return id;
        }

        /** Address of the first byte of the buffer in this process. */
        public long address()
        {
            return address;
        }

        public long length()
        {
            return length;
        }
    }

    private final SegmentManager manager;
    private final boolean ownsManager;
    private final int rank;
    private final long initialThreshold;
    private final AtomicLong nextId = new AtomicLong();
    /** Bytes allocated and not yet dropped by user code (the Cleaner subtracts). */
    private final AtomicLong unreleasedBytes = new AtomicLong();
    private volatile long threshold;
    private final ConcurrentSkipListMap<Long, Segment> byAddress = new ConcurrentSkipListMap<>();
    /** Made on first allocation: a Cleaner is a thread, and most heaps never allocate. Guarded by this. */
    private Cleaner cleaner;

    /** The peer segment {@link #peerAddress} returned last, still referenced. Progress thread only. */
    private org.shmpi.shm.segment.Segment pinnedPeer;

    /**
     * A heap with its own segment manager for {@code rank} in {@code directory}, closed with it.
     * Prefer {@link #SharedHeap(SegmentManager)} with the rank's one manager.
     */
    public SharedHeap(final JobDirectory directory, final int rank)
    {
        this(new SegmentManager(directory, rank), true, RELEASE_THRESHOLD_DEFAULT);
    }

    /** A heap over the rank's segment manager (which outlives it and removes what is left). */
    public SharedHeap(final SegmentManager manager)
    {
        this(manager, false, RELEASE_THRESHOLD_DEFAULT);
    }

    /** As {@link #SharedHeap(SegmentManager)}, collecting when more than {@code releaseThreshold} bytes are held. */
    public SharedHeap(final SegmentManager manager, final long releaseThreshold)
    {
        this(manager, false, releaseThreshold);
    }

    private SharedHeap(final SegmentManager manager, final boolean ownsManager, final long releaseThreshold)
    {
        if (releaseThreshold <= 0)
        {
            throw new IllegalArgumentException("release threshold must be positive: releaseThreshold=" +
                releaseThreshold);
        }
        this.manager = manager;
        this.ownsManager = ownsManager;
        this.rank = manager.rank();
        this.initialThreshold = releaseThreshold;
        this.threshold = releaseThreshold;
    }

    /** The segment manager the heap allocates from. */
    public SegmentManager manager()
    {
        return manager;
    }

    /**
     * Allocates a buffer of {@code bytes} in a new segment (0600), native byte order. Applies
     * pending releases first, and collects when the unreleased bytes pass the threshold.
     *
     * @throws IOException when the segment cannot be made (e.g. /dev/shm is full), mapped
     *                     memory cannot be wrapped, or the heap's manager is closed; callers
     *                     fall back to an ordinary buffer.
     */
    public ByteBuffer allocate(final int bytes) throws IOException
    {
        if (bytes < 0)
        {
            throw new IllegalArgumentException("negative heap allocation: bytes=" + bytes);
        }
        reserve(bytes);
        final long id = nextId.getAndIncrement();
        final org.shmpi.shm.segment.Segment segment;
        try
        {
            segment = manager.create(SegmentKind.HEAP, SegmentNames.heap(rank, id), bytes,
                SegmentManager.USER_MEMORY, null);
        }
        catch (final IOException | RuntimeException ex)
        {
            unreleasedBytes.addAndGet(-bytes);
            if (ex instanceof IllegalStateException && manager.isClosed())
            {
                // Raced with MPI.Finalize closing the engine: the caller falls back to an ordinary buffer.
                throw new IOException("the shared heap is closed: rank=" + rank, ex);
            }
            throw ex;
        }
        final ByteBuffer buffer;
        try
        {
            buffer = segment.newByteBufferView();
        }
        catch (final UnsupportedOperationException ex)
        {
            manager.remove(segment);
            unreleasedBytes.addAndGet(-bytes);
            throw new IOException(ex.getMessage(), ex);
        }
        final Segment allocation = new Segment(id, segment.address(), bytes, segment);
        byAddress.put(allocation.address, allocation);
        cleaner().register(buffer, new Release(this, allocation));
        return buffer;
    }

    /** The allocation holding {@code [address, address + length)}, or null when it is not ours. */
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
     * Address where heap segment {@code id} of rank {@code source} is mapped here (mapped
     * read-only on first use and cached by the manager). The address stays valid until the next
     * {@code peerAddress} call or {@link #close}: the segment stays referenced until then.
     * Progress thread only.
     */
    public long peerAddress(final int source, final long id)
    {
        final org.shmpi.shm.segment.Segment peer = openPeer(source, id);
        if (pinnedPeer != null)
        {
            manager.release(pinnedPeer);
        }
        pinnedPeer = peer;
        return peer.address();
    }

    /**
     * Maps heap segment {@code id} of rank {@code source} (cached; read-only) and takes a
     * reference on it: the mapping stays until {@link #releasePeer}. Any thread.
     */
    public org.shmpi.shm.segment.Segment openPeer(final int source, final long id)
    {
        try
        {
            // The owner keeps the segment while its send is pending, so it exists: no waiting.
            return manager.open(SegmentKind.HEAP, SegmentNames.heap(source, id), source, System.nanoTime());
        }
        catch (final IOException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "cannot map the heap segment of rank " + source +
                ": id=" + id + ": " + ex.getMessage(), ex);
        }
    }

    /** Gives back a reference taken by {@link #openPeer}. */
    public void releasePeer(final org.shmpi.shm.segment.Segment peer)
    {
        manager.release(peer);
    }

    /** Removes the segments whose buffers user code has dropped; returns how many. */
    public int processReleases()
    {
        return manager.processReleases();
    }

    /** Bytes allocated here whose buffers are still reachable (or not yet seen unreachable). */
    public long unreleasedBytes()
    {
        return unreleasedBytes.get();
    }

    /**
     * Gives back the pinned peer segment; with its own manager, closes it (every heap file goes,
     * memory user code still holds stays mapped until it is dropped).
     */
    @Override
    public void close()
    {
        if (pinnedPeer != null)
        {
            manager.release(pinnedPeer);
            pinnedPeer = null;
        }
        if (ownsManager)
        {
            manager.close();
        }
    }

    private synchronized Cleaner cleaner()
    {
        if (cleaner == null)
        {
            cleaner = Cleaner.create();
        }
        return cleaner;
    }

    private void reserve(final int bytes)
    {
        final long wanted = unreleasedBytes.addAndGet(bytes);
        if (wanted <= threshold)
        {
            return;
        }
        // Over the threshold: first what the Cleaner already reported, then ask for a collection.
        manager.processReleases();
        if (unreleasedBytes.get() > threshold)
        {
            System.gc();
            long napNs = TimeUnit.MILLISECONDS.toNanos(1);
            for (int i = 0; i < MAX_COLLECT_NAPS && unreleasedBytes.get() > threshold; i++)
            {
                LockSupport.parkNanos(napNs);
                napNs <<= 1;
            }
            manager.processReleases();
        }
        // Benign race: concurrent allocations may each move the threshold; any value they pick is sane.
        threshold = Math.max(initialThreshold, 2 * unreleasedBytes.get());
    }

    /** Runs when a heap buffer and all its views are unreachable: forget it, ask for removal. */
    private static final class Release implements Runnable
    {
        private final SharedHeap heap;
        private final Segment allocation;

        Release(final SharedHeap heap, final Segment allocation)
        {
            this.heap = heap;
            this.allocation = allocation;
        }

        @Override
        public void run()
        {
            // Only our entry: forget the range before the manager may unmap it and reuse the address.
            heap.byAddress.remove(allocation.address, allocation);
            heap.unreleasedBytes.addAndGet(-allocation.length);
            heap.manager.removeLater(allocation.segment);
        }
    }
}
