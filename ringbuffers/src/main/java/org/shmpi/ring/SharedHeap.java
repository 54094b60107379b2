package org.shmpi.ring;

import java.io.IOException;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
 * and every view of it are unreachable, the garbage collector enqueues a phantom reference to
 * it; the next allocation, {@link #processReleases()} or close drains that queue on the calling
 * thread (no cleaner thread to wait for: on a crowded machine one was starved for seconds),
 * forgets the address range here and has the manager unlink and unmap the segment. So:
 * <ul>
 * <li>a segment is never unmapped while the engine may still copy from or to it by raw address:
 *     a pending request holds the user's buffer (the engine retains it until completion), so
 *     its reference cannot have been enqueued;</li>
 * <li>the files go at the latest when the manager closes (MPI.Finalize closes the engine);
 *     memory user code still holds then stays mapped until it is dropped, because unmapping it
 *     would crash the JVM on the next access;</li>
 * <li>a program that allocates and drops buffers in a loop stays bounded: heap segments are
 *     invisible to the Java heap's sizing, so when the bytes not yet released pass a threshold,
 *     an allocation first applies pending releases, then asks for a collection
 *     ({@code System.gc()}) and waits for the references it frees, as {@code ByteBuffer.allocateDirect}
 *     does at its limit. If the memory is really live the threshold grows to twice the live
 *     bytes, so a program with a large live heap does not collect on every allocation.</li>
 * </ul>
 */
public final class SharedHeap implements AutoCloseable
{
    /** Bytes of heap segments not yet released above which an allocation collects first. */
    public static final long RELEASE_THRESHOLD_DEFAULT = 256L * 1024 * 1024;

    /** How long an allocation over the threshold waits for released references after a collection, at most. */
    private static final long COLLECT_WAIT_NS = TimeUnit.SECONDS.toNanos(2);

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
    /** Bytes allocated and not yet dropped by user code (draining the queue subtracts). */
    private final AtomicLong unreleasedBytes = new AtomicLong();
    private volatile long threshold;
    private final AtomicLong collections = new AtomicLong();
    private final ConcurrentSkipListMap<Long, Segment> byAddress = new ConcurrentSkipListMap<>();
    /** Where the collector puts the references of dropped buffers. */
    private final ReferenceQueue<ByteBuffer> dropped = new ReferenceQueue<>();
    /** Keeps each buffer's phantom reference reachable until it is drained. */
    private final Set<Release> pending = ConcurrentHashMap.newKeySet();

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
        pending.add(new Release(buffer, dropped, allocation));
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
        drain();
        return manager.processReleases();
    }

    /** How many times an allocation over the threshold asked for a garbage collection. */
    public long collections()
    {
        return collections.get();
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
        drain();
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

    /** Forgets every buffer the collector found dropped and has the manager remove its segment; returns how many. */
    private int drain()
    {
        int n = 0;
        for (Reference<? extends ByteBuffer> r; (r = dropped.poll()) != null; )
        {
            release((Release)r);
            n++;
        }
        return n;
    }

    private void release(final Release r)
    {
        if (pending.remove(r))
        {
            // Forget the range before the manager may unmap it and the address be reused.
            byAddress.remove(r.allocation.address, r.allocation);
            unreleasedBytes.addAndGet(-r.allocation.length);
            manager.removeLater(r.allocation.segment);
        }
    }

    private void reserve(final int bytes)
    {
        drain();
        final long wanted = unreleasedBytes.addAndGet(bytes);
        if (wanted <= threshold)
        {
            return;
        }
        // Over the threshold: ask for a collection, then take the references it frees as they
        // arrive. Under the threshold, keep taking them until none comes for a moment, so that
        // what stays unreleased is what is really live (the new threshold is twice that); over
        // it, wait longer, up to a deadline, in case the machine is crowded.
        collections.incrementAndGet();
        System.gc();
        final long deadline = System.nanoTime() + COLLECT_WAIT_NS;
        long quietMs = 20;
        while (deadline - System.nanoTime() > 0)
        {
            final boolean under = unreleasedBytes.get() <= threshold;
            final Reference<? extends ByteBuffer> r;
            try
            {
                r = dropped.remove(under ? 2 : quietMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
            if (r == null)
            {
                if (under || quietMs >= 320)
                {
                    break;
                }
                quietMs *= 2; // nothing for a while: the collection freed nothing more, or the machine is crowded
                continue;
            }
            release((Release)r);
            drain();
        }
        manager.processReleases();
        // Benign race: concurrent allocations may each move the threshold; any value they pick is sane.
        threshold = Math.max(initialThreshold, 2 * unreleasedBytes.get());
    }

    /** A heap buffer's phantom reference, with the allocation to release when it is enqueued. */
    private static final class Release extends PhantomReference<ByteBuffer>
    {
        final Segment allocation;

        Release(final ByteBuffer buffer, final ReferenceQueue<ByteBuffer> queue, final Segment allocation)
        {
            super(buffer, queue);
            this.allocation = allocation;
        }
    }
}
