package org.shmpi.shm.segment;

import static org.shmpi.shm.segment.SegmentHeaderDescriptor.*;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.agrona.IoUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.Limits;
import org.shmpi.shm.Processes;

/**
 * Creates, names, maps, caches and removes the segment files of one rank in one job directory
 * (inboxes, heap segments, and later collective scratch, windows and file state). One manager
 * per rank per job directory; it is an object with no static state, so ranks run as threads of
 * one JVM in tests each have their own.
 *
 * <p><b>Creating</b> ({@link #create}): the file is made with mode 0600 and the creation fails
 * if it exists; it is sized, mapped read-write, optionally touched page by page (NUMA first
 * touch: the pages land on the creator's node), its header is written, the kind's initialiser
 * writes the payload's own header, and the version word is published last with a release store.
 *
 * <p><b>Opening</b> a peer's segment ({@link #open}) waits, until a deadline, for the file and
 * its version word (acquire), then checks magic, major version, kind and creator rank, and
 * fails with an {@link IOException} naming the file and the values it found. Opened segments are
 * cached by name with a reference count: a second {@code open} returns the same mapping;
 * {@link #release} gives a reference back. A segment nobody references stays mapped in an idle
 * list of at most {@code maxIdlePeerSegments} (least recently used unmapped first), so a
 * segment opened again soon costs nothing; a referenced segment is never unmapped except by
 * {@link #close}.
 *
 * <p><b>Lifetime is explicit.</b> A created segment lives until {@link #remove} (unlink and
 * unmap) or {@link #close}; no {@code Cleaner} unmaps or unlinks anything. Memory lent to user
 * code ({@link #USER_MEMORY}, the shared heap behind {@code MPI.newByteBuffer}) is the one
 * case where only the garbage collector knows when the last user reference is gone: there a
 * {@code Cleaner} may call {@link #removeLater} (any thread; it only enqueues), and the manager
 * unlinks and unmaps the segment on its next {@link #create}, {@link #processReleases} or
 * {@link #close} — on the rank's own threads, never while a call of this manager is using it.
 * {@link #close} removes every file this manager created and unmaps everything, except user
 * memory that user code may still hold: its file is removed, but its mapping stays until its
 * {@code removeLater} arrives (unmapping memory a live Java object points to would turn the
 * program's next access into a crash of the JVM, not an exception).
 *
 * <p>Thread-safe: every method may be called from any thread. {@code open} waits outside the
 * manager's lock.
 */
public final class SegmentManager implements AutoCloseable
{
    /** {@link #create} flag: write one byte of every page before publishing (NUMA first touch). */
    public static final int TOUCH_PAGES = 1;
    /**
     * {@link #create} flag: the memory is lent to user code and released through
     * {@link #removeLater}; {@link #close} removes the file but leaves such a mapping to it.
     */
    public static final int USER_MEMORY = 2;

    /** Peers' segments kept mapped while nobody references them. */
    public static final int MAX_IDLE_PEER_SEGMENTS_DEFAULT = 64;

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final long POLL_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Path directory;
    private final int rank;
    private final long pid;
    private final long startMillis;
    private final int maxIdlePeerSegments;
    private final boolean keepFiles;
    /** With keepFiles: names of removed segments whose files stayed (guarded by this). */
    private final java.util.Set<String> keptNames = new java.util.HashSet<>();

    /** Created here and not yet removed, in creation order. Guarded by this. */
    private final Map<String, Segment> created = new LinkedHashMap<>();
    /** Opened from peers and still mapped, referenced or idle. Guarded by this. */
    private final Map<String, Segment> opened = new HashMap<>();
    /** The opened segments nobody references, least recently used first. Guarded by this. */
    private final LinkedHashMap<String, Segment> idle = new LinkedHashMap<>(16, 0.75f, true);
    /** User memory still mapped after close: unmapped when its removeLater arrives. Guarded by this. */
    private final List<Segment> lentPastClose = new ArrayList<>();
    /** Filled by removeLater from any thread (e.g. a Cleaner), drained under the lock. */
    private final Queue<Segment> releases = new ConcurrentLinkedQueue<>();
    /** Volatile: with the release queue it forms a Dekker pair between close and removeLater. */
    private volatile boolean closed;

    /** A manager for {@code rank} in a job directory, this process as creator. */
    public SegmentManager(final JobDirectory directory, final int rank)
    {
        this(directory.path(), rank);
    }

    /** A manager for {@code rank} in {@code directory}, this process as creator. */
    public SegmentManager(final Path directory, final int rank)
    {
        this(directory, rank, ProcessHandle.current().pid(), Processes.selfStartMillis(),
            MAX_IDLE_PEER_SEGMENTS_DEFAULT, false);
    }

    /**
     * @param directory           where the segment files live (the job directory)
     * @param rank                creator rank written into created segments, or
     *                            {@link SegmentHeaderDescriptor#NO_RANK}
     * @param pid                 creator pid written into created segments
     * @param startMillis         creator process start time (epoch ms) written into created segments
     * @param maxIdlePeerSegments peers' segments kept mapped while unreferenced (0: unmap on release)
     * @param keepFiles           remove and close unmap but do not unlink (debugging: the files stay; a name
     *                            used again, e.g. a freed communicator's context id, replaces its old file)
     */
    public SegmentManager(
        final Path directory,
        final int rank,
        final long pid,
        final long startMillis,
        final int maxIdlePeerSegments,
        final boolean keepFiles)
    {
        if (rank < NO_RANK)
        {
            throw new IllegalArgumentException("rank out of range: rank=" + rank);
        }
        if (maxIdlePeerSegments < 0)
        {
            throw new IllegalArgumentException("negative idle bound: maxIdlePeerSegments=" + maxIdlePeerSegments);
        }
        this.directory = Objects.requireNonNull(directory, "directory");
        this.rank = rank;
        this.pid = pid;
        this.startMillis = startMillis;
        this.maxIdlePeerSegments = maxIdlePeerSegments;
        this.keepFiles = keepFiles;
    }

    public Path directory()
    {
        return directory;
    }

    /** The rank this manager creates segments for ({@link SegmentHeaderDescriptor#NO_RANK}: it only opens). */
    public int rank()
    {
        return rank;
    }

    /** Path of the segment file {@code name} in this manager's directory. */
    public Path pathOf(final String name)
    {
        return directory.resolve(SegmentNames.checkName(name));
    }

    /** Creates a segment with the kind's default flags and no payload initialisation. */
    public Segment create(final SegmentKind kind, final String name, final long payloadLength) throws IOException
    {
        return create(kind, name, payloadLength, kind.touchByDefault() ? TOUCH_PAGES : 0, null);
    }

    /**
     * Creates, maps and publishes a segment file. {@code initializer} (may be null) writes the
     * payload's own header into the zeroed payload before the version word is published, so a
     * peer that opens the segment sees it.
     *
     * @param flags {@link #TOUCH_PAGES}, {@link #USER_MEMORY}, or 0
     * @throws FileAlreadyExistsException when the file exists (names are never reused).
     */
    public Segment create(
        final SegmentKind kind,
        final String name,
        final long payloadLength,
        final int flags,
        final Consumer<AtomicBuffer> initializer) throws IOException
    {
        Objects.requireNonNull(kind, "kind");
        final Path path = pathOf(name);
        final long fileLength = SegmentHeaderDescriptor.fileLength(payloadLength);
        if ((flags & ~(TOUCH_PAGES | USER_MEMORY)) != 0)
        {
            throw new IllegalArgumentException("unknown segment flags: flags=0x" + Integer.toHexString(flags));
        }
        synchronized (this)
        {
            checkNotClosed();
            drainReleases();
        }

        // Outside the lock: touching a large segment takes a while, and peers' opens need not wait.
        synchronized (this)
        {
            if (keptNames.remove(name))
            {
                // Kept for inspection after its removal; the name is used again (names of live segments never
                // are): the old file goes, with the kept files of the same object (coll-6-0 and coll-6-0-large).
                Files.deleteIfExists(path);
                for (final java.util.Iterator<String> it = keptNames.iterator(); it.hasNext(); )
                {
                    final String sibling = it.next();
                    if (sibling.startsWith(name + "-"))
                    {
                        Files.deleteIfExists(directory.resolve(sibling));
                        it.remove();
                    }
                }
            }
        }
        try
        {
            Files.createFile(path, OWNER_ONLY);
        }
        catch (final IOException ex)
        {
            throw Limits.explain(ex);
        }
        MappedByteBuffer mapping = null;
        try
        {
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
            {
                file.setLength(fileLength);
                // Before the mapping: a full file system is an error here, not SIGBUS at a store.
                // Pages the creator touches anyway are allocated now; the others are left for
                // their first writer to place (NUMA first touch), with the free space checked.
                final String what = kind.name().toLowerCase(java.util.Locale.ROOT) + " segment " + name;
                if ((flags & TOUCH_PAGES) != 0)
                {
                    org.shmpi.shm.Space.reserve(path, fileLength, what);
                }
                else
                {
                    org.shmpi.shm.Space.check(path, fileLength, what);
                }
                mapping = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, fileLength);
            }
            final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
            if ((flags & TOUCH_PAGES) != 0)
            {
                touchPages(new UnsafeBuffer(mapping));
            }
            // Plain stores: nobody reads the header before the version word below is published.
            header.putLong(MAGIC_OFFSET, MAGIC);
            header.putInt(KIND_OFFSET, kind.code());
            header.putLong(CREATOR_PID_OFFSET, pid);
            header.putLong(CREATOR_START_TIME_OFFSET, startMillis);
            header.putInt(CREATOR_RANK_OFFSET, rank);
            header.putInt(PAYLOAD_OFFSET_OFFSET, HEADER_LENGTH);
            header.putLong(PAYLOAD_LENGTH_OFFSET, payloadLength);
            final Segment segment = new Segment(this, kind, name, path, rank, pid, startMillis, true, flags, mapping,
                HEADER_LENGTH, (int)payloadLength);
            if (initializer != null)
            {
                initializer.accept(segment.buffer());
            }
            // Release: a reader that sees the version sees the header and what the initializer wrote.
            header.putIntRelease(VERSION_OFFSET, VERSION);
            synchronized (this)
            {
                checkNotClosed();
                created.put(name, segment);
            }
            return segment;
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            if (mapping != null)
            {
                IoUtil.unmap(mapping);
            }
            try
            {
                Files.deleteIfExists(path);
            }
            catch (final IOException suppressed)
            {
                ex.addSuppressed(suppressed);
            }
            if (ex instanceof IOException)
            {
                throw Limits.explain((IOException)ex);
            }
            throw ex;
        }
    }

    /**
     * Maps a segment a peer created (or returns the mapping already cached here, with one more
     * reference; a segment this manager created is returned as is). Waits until
     * {@code deadlineNs} ({@code System.nanoTime()} based; "now" means no waiting) for the file
     * to exist and its version word to be published, then checks the header.
     *
     * @throws NoSuchFileException when the file does not exist by the deadline.
     * @throws IOException         when the file is not ready by the deadline, or its magic, major
     *                             version, kind, creator rank or payload placement is wrong.
     */
    public Segment open(
        final SegmentKind kind, final String name, final int expectedCreatorRank, final long deadlineNs)
        throws IOException
    {
        Objects.requireNonNull(kind, "kind");
        final Path path = pathOf(name);
        synchronized (this)
        {
            checkNotClosed();
            final Segment known = created.containsKey(name) ? created.get(name) : opened.get(name);
            if (known != null)
            {
                checkIdentity(known, kind, expectedCreatorRank);
                reference(known);
                return known;
            }
        }

        final Segment fresh = map(kind, name, path, expectedCreatorRank, deadlineNs);
        synchronized (this)
        {
            final Segment raced = opened.get(name);
            if (closed || raced != null)
            {
                fresh.unmap();
                checkNotClosed();
                reference(raced);
                return raced;
            }
            fresh.references = 1;
            opened.put(name, fresh);
            return fresh;
        }
    }

    /**
     * Gives back one reference taken by {@link #open}. A segment nobody references joins the idle
     * list; beyond {@code maxIdlePeerSegments} the least recently used idle segment is unmapped.
     * Releasing a segment this manager created does nothing (see {@link #remove}).
     */
    public synchronized void release(final Segment segment)
    {
        if (dropReference(segment))
        {
            idle.put(segment.name(), segment);
            while (idle.size() > maxIdlePeerSegments)
            {
                final Iterator<Segment> eldest = idle.values().iterator();
                final Segment victim = eldest.next();
                eldest.remove();
                opened.remove(victim.name());
                victim.unmap();
            }
        }
    }

    /**
     * As {@link #release}, but when that was the last reference the segment is unmapped at once
     * and forgotten rather than kept idle: for segments whose name the creator will reuse for a
     * new file (a collective segment is named by its communicator's context id, which is reused
     * once freed), so that the next {@link #open} of the name maps the new file.
     */
    public synchronized void forget(final Segment segment)
    {
        if (dropReference(segment))
        {
            opened.remove(segment.name());
            idle.remove(segment.name());
            segment.unmap();
        }
    }

    /**
     * Gives back one reference to a segment a peer created and this manager opened; true when it
     * was the last. A segment this manager created, or one it no longer has open, is left alone.
     */
    private boolean dropReference(final Segment segment)
    {
        checkOwned(segment);
        if (segment.isCreator() || opened.get(segment.name()) != segment)
        {
            return false;
        }
        if (segment.references <= 0)
        {
            throw new IllegalStateException("segment released more often than opened: name=" + segment.name());
        }
        return --segment.references == 0;
    }

    /**
     * Removes a segment this manager created: unlinks the file (peers that mapped it keep valid
     * memory until they unmap) and unmaps it here. Using its payload afterwards faults.
     *
     * @throws UncheckedIOException when the file cannot be unlinked (it is unmapped anyway).
     */
    public synchronized void remove(final Segment segment)
    {
        checkOwned(segment);
        if (!segment.isCreator())
        {
            throw new IllegalArgumentException("only the creator removes a segment: name=" + segment.name() +
                ", creatorRank=" + segment.creatorRank() + ", rank=" + rank);
        }
        if (created.remove(segment.name(), segment))
        {
            segment.unmap();
            unlink(segment);
        }
    }

    /**
     * Asks for a created segment to be removed by the manager's next {@link #create},
     * {@link #processReleases} or {@link #close} (after close: at once). Any thread, never
     * blocks on the manager: meant for a {@code Cleaner} that saw user code drop the memory.
     */
    public void removeLater(final Segment segment)
    {
        checkOwned(segment);
        releases.offer(segment);
        // Dekker with close(): it stores closed then drains; we enqueue then load closed.
        if (closed)
        {
            processReleases();
        }
    }

    /** Removes the segments {@link #removeLater} asked for; returns how many. */
    public synchronized int processReleases()
    {
        return drainReleases();
    }

    /** Names of the segments created here and not yet removed, in creation order. */
    public synchronized List<String> createdNames()
    {
        return new ArrayList<>(created.keySet());
    }

    /** Names of the peers' segments mapped here (referenced or idle). */
    public synchronized List<String> openedNames()
    {
        return new ArrayList<>(opened.keySet());
    }

    /** References held on an opened segment (0 when idle or not opened here). */
    public synchronized int referenceCount(final Segment segment)
    {
        return opened.get(segment.name()) == segment ? segment.references : 0;
    }

    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Removes every file this manager created and unmaps every segment, created or opened,
     * except user memory that has not been released yet: its file goes, its mapping stays until
     * its {@link #removeLater}. Idempotent.
     *
     * @throws UncheckedIOException when a file cannot be unlinked (every other one still is).
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        drainReleases();
        UncheckedIOException failure = null;
        for (final Segment s : created.values())
        {
            if (!s.isUserMemory())
            {
                s.unmap();
            }
            else
            {
                lentPastClose.add(s);
            }
            try
            {
                unlink(s);
            }
            catch (final UncheckedIOException ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        created.clear();
        for (final Segment s : opened.values())
        {
            s.unmap();
        }
        opened.clear();
        idle.clear();
        if (failure != null)
        {
            throw failure;
        }
    }

    @Override
    public String toString()
    {
        return "SegmentManager{directory=" + directory + ", rank=" + rank + ", closed=" + closed + "}";
    }

    // ------------------------------------------------------------------------------------------

    private int drainReleases()
    {
        int removed = 0;
        Segment s;
        while ((s = releases.poll()) != null)
        {
            if (created.remove(s.name(), s))
            {
                s.unmap();
                unlink(s);
                removed++;
            }
            else if (lentPastClose.remove(s))
            {
                s.unmap();
                removed++;
            }
        }
        return removed;
    }

    /** Unlinks the file; with {@code keepFiles} leaves it, and remembers its name for a reuse to replace it. */
    private void unlink(final Segment segment)
    {
        if (keepFiles)
        {
            keptNames.add(segment.name());
            return;
        }
        if (segment.unlinked)
        {
            return;
        }
        segment.unlinked = true;
        try
        {
            Files.deleteIfExists(segment.path());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot remove segment file: path=" + segment.path(), ex);
        }
    }

    private static void touchPages(final UnsafeBuffer all)
    {
        final int page = UnsafeApi.pageSize();
        // Plain stores before publication; a write (not a read) makes the kernel allocate the page here.
        for (long i = 0; i < all.capacity(); i += page)
        {
            all.putByte((int)i, (byte)0);
        }
    }

    private Segment map(
        final SegmentKind kind,
        final String name,
        final Path path,
        final int expectedCreatorRank,
        final long deadlineNs) throws IOException
    {
        final long begin = System.nanoTime();
        long size;
        while ((size = sizeOf(path)) < HEADER_LENGTH)
        {
            if (System.nanoTime() - deadlineNs >= 0)
            {
                if (size < 0)
                {
                    throw new NoSuchFileException(path.toString(), null, "no such segment: kind=" + kind +
                        ", expectedCreatorRank=" + expectedCreatorRank + ", waitedMs=" + millisSince(begin));
                }
                throw new IOException("segment file too short: path=" + path + ", length=" + size +
                    ", minLength=" + HEADER_LENGTH + ", waitedMs=" + millisSince(begin));
            }
            pause(deadlineNs, path);
        }
        if (size > Integer.MAX_VALUE)
        {
            throw new IOException("segment file too long to map: path=" + path + ", length=" + size);
        }

        final boolean writable = kind.peerWritable();
        final MappedByteBuffer mapping;
        try (FileChannel channel = writable ?
            FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE) :
            FileChannel.open(path, StandardOpenOption.READ))
        {
            size = channel.size();
            mapping = channel.map(writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0, size);
        }
        try
        {
            final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
            int version;
            while ((version = header.getIntAcquire(VERSION_OFFSET)) == 0)
            {
                if (System.nanoTime() - deadlineNs >= 0)
                {
                    throw new IOException("segment never became ready: path=" + path + ", version=0x0, kind=" + kind +
                        ", waitedMs=" + millisSince(begin));
                }
                pause(deadlineNs, path);
            }
            // Plain loads, ordered after the acquire of the version word above.
            final long magic = header.getLong(MAGIC_OFFSET);
            if (magic != MAGIC)
            {
                throw new IOException("not a shmpi segment: path=" + path + ", magic=0x" + Long.toHexString(magic) +
                    ", expectedMagic=0x" + Long.toHexString(MAGIC));
            }
            if (majorVersion(version) != MAJOR_VERSION)
            {
                throw new IOException("incompatible segment version: path=" + path + ", version=0x" +
                    Integer.toHexString(version) + ", major=" + majorVersion(version) + ", expectedMajor=" +
                    MAJOR_VERSION);
            }
            final int kindCode = header.getInt(KIND_OFFSET);
            if (kindCode != kind.code())
            {
                final SegmentKind actual = SegmentKind.ofCode(kindCode);
                throw new IOException("segment of the wrong kind: path=" + path + ", kind=" +
                    (actual != null ? actual + "(" + kindCode + ")" : Integer.toString(kindCode)) +
                    ", expectedKind=" + kind + "(" + kind.code() + ")");
            }
            final int creatorRank = header.getInt(CREATOR_RANK_OFFSET);
            if (creatorRank != expectedCreatorRank)
            {
                throw new IOException("segment has the wrong creator: path=" + path + ", creatorRank=" + creatorRank +
                    ", expectedCreatorRank=" + expectedCreatorRank);
            }
            final int payloadOffset = header.getInt(PAYLOAD_OFFSET_OFFSET);
            final long payloadLength = header.getLong(PAYLOAD_LENGTH_OFFSET);
            final String bad = SegmentHeaderDescriptor.checkPayload(payloadOffset, payloadLength, size);
            if (bad != null)
            {
                throw new IOException("corrupt segment header: path=" + path + ", " + bad);
            }
            return new Segment(this, kind, name, path, creatorRank, header.getLong(CREATOR_PID_OFFSET),
                header.getLong(CREATOR_START_TIME_OFFSET), false, 0, mapping, payloadOffset, (int)payloadLength);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            IoUtil.unmap(mapping);
            if (ex instanceof IOException)
            {
                throw Limits.explain((IOException)ex);
            }
            throw ex;
        }
    }

    private static long sizeOf(final Path path) throws IOException
    {
        try
        {
            return Files.size(path);
        }
        catch (final NoSuchFileException ex)
        {
            return -1;
        }
    }

    private static void pause(final long deadlineNs, final Path path) throws InterruptedIOException
    {
        LockSupport.parkNanos(Math.max(1, Math.min(POLL_INTERVAL_NS, deadlineNs - System.nanoTime())));
        if (Thread.currentThread().isInterrupted())
        {
            throw new InterruptedIOException("interrupted while waiting for a segment: path=" + path);
        }
    }

    private static long millisSince(final long startNs)
    {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    private static void checkIdentity(final Segment segment, final SegmentKind kind, final int expectedCreatorRank)
        throws IOException
    {
        if (segment.kind() != kind)
        {
            throw new IOException("segment of the wrong kind: path=" + segment.path() + ", kind=" + segment.kind() +
                "(" + segment.kind().code() + "), expectedKind=" + kind + "(" + kind.code() + ")");
        }
        if (segment.creatorRank() != expectedCreatorRank)
        {
            throw new IOException("segment has the wrong creator: path=" + segment.path() + ", creatorRank=" +
                segment.creatorRank() + ", expectedCreatorRank=" + expectedCreatorRank);
        }
    }

    private void reference(final Segment segment)
    {
        if (!segment.isCreator() && segment.references++ == 0)
        {
            idle.remove(segment.name());
        }
    }

    private void checkOwned(final Segment segment)
    {
        if (segment.manager() != this)
        {
            throw new IllegalArgumentException("segment belongs to another manager: name=" + segment.name());
        }
    }

    private void checkNotClosed()
    {
        if (closed)
        {
            throw new IllegalStateException("segment manager is closed: directory=" + directory + ", rank=" + rank);
        }
    }
}
