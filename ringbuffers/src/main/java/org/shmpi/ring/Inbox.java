package org.shmpi.ring;

import static org.shmpi.ring.InboxDescriptor.*;

import java.io.IOException;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.shmpi.shm.Futex;
import org.shmpi.shm.Processes;
import org.shmpi.shm.WakeWord;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * A rank's inbox (layout in {@link InboxDescriptor}), a segment of the rank's
 * {@link SegmentManager}: the owner creates and consumes it, every peer maps it and produces
 * into it.
 *
 * <p>Two ways in. {@link #create(SegmentManager, int, Futex)} and
 * {@link #open(SegmentManager, int, long, Futex)} use the rank's manager: the owner's inbox
 * lives until {@link #close} (which removes it) or until the manager closes; a peer's inbox is a
 * reference on the manager's cached mapping, given back by {@link #close}. The older
 * {@link #create(Path, int, long, int, Futex)} and {@link #open(Path, int, Futex)} keep their
 * meaning: each makes a private manager for the one file, and {@link #close} only unmaps (the
 * file stays until the job directory is removed).
 */
public final class Inbox implements AutoCloseable
{
    private final SegmentManager manager;
    private final boolean ownsManager;
    private final Segment segment;
    private final ManyToOneRingBuffer ring;
    private final WakeWord wakeWord;
    /** A producer's mapping of the stand-in whose wake word is this forwarded inbox's doorbell; else null. */
    private final Segment doorbell;
    private final boolean forwarded;
    private boolean closed;
    private boolean foreign;

    /**
     * Sends what a process's ranks wrote into forwarded inboxes in the writing thread, where the
     * process runs the bridge: {@link #forward} returns whether everything it found went out.
     */
    public interface Forwarder
    {
        /** Whether it forwards the stand-in at {@code inbox} (one of its node's directory). */
        boolean serves(Path inbox);

        /** Sends what the stand-ins of {@code rank}'s node hold; true when nothing is left. */
        boolean forward(int rank);
    }

    /** This process's forwarder (the bridge, in the process that runs it); null elsewhere. */
    private static volatile Forwarder forwarder;
    /** The forwarder this producer's mapping last asked whether it serves it, and its answer. */
    private Forwarder askedForwarder;
    private boolean forwardedHere;

    /** Installs this process's {@link Forwarder}. */
    public static synchronized void forwarder(final Forwarder f)
    {
        forwarder = f;
    }

    /** Removes {@code f} if it is this process's {@link Forwarder}. */
    public static synchronized void removeForwarder(final Forwarder f)
    {
        if (forwarder == f)
        {
            forwarder = null;
        }
    }

    private Inbox(
        final SegmentManager manager, final boolean ownsManager, final Segment segment, final int capacity,
        final Futex futex)
    {
        this.manager = manager;
        this.ownsManager = ownsManager;
        this.segment = segment;
        this.ring = new ManyToOneRingBuffer(
            new UnsafeBuffer(segment.buffer(), RING_OFFSET, capacity + RingBufferDescriptor.TRAILER_LENGTH));
        // Plain loads: written before the version word, which create() published and open() read
        // with acquire.
        this.forwarded = segment.buffer().getInt(FORWARDED_OFFSET) != 0;
        final int bell = segment.buffer().getInt(DOORBELL_OFFSET) - 1;
        Segment d = null;
        if (forwarded && bell >= 0 && bell != segment.creatorRank() && !segment.isCreator())
        {
            // A stand-in of a rank on another node: its producers ring the bridge thread's doorbell,
            // the wake word of the first stand-in of that node (the bridge made it first).
            try
            {
                d = manager.open(SegmentKind.INBOX, SegmentNames.inbox(bell), bell, System.nanoTime());
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException("the doorbell stand-in of rank " + bell + " is missing", ex);
            }
        }
        this.doorbell = d;
        this.wakeWord = new WakeWord(d != null ? d.buffer() : segment.buffer(), WAKE_WORD_OFFSET, futex);
    }

    /**
     * Owner: creates this rank's inbox {@code inbox-<rank>} (0600) through its segment manager,
     * touching every page (first touch places it on this rank's NUMA node); the capacity is
     * written before the version word is published (release).
     */
    public static Inbox create(final SegmentManager manager, final int capacity, final Futex futex)
        throws IOException
    {
        return create(manager, false, SegmentNames.inbox(manager.rank()), capacity, futex, Integer.MIN_VALUE);
    }

    /** Peer: maps the inbox of {@code ownerRank} now (no waiting) and checks it. */
    public static Inbox open(final SegmentManager manager, final int ownerRank, final Futex futex)
        throws IOException
    {
        return open(manager, ownerRank, System.nanoTime(), futex);
    }

    /**
     * Peer: maps the inbox of {@code ownerRank}, waiting until {@code deadlineNs}
     * ({@code System.nanoTime()} based) for it to be created and published, and checks it.
     */
    public static Inbox open(
        final SegmentManager manager, final int ownerRank, final long deadlineNs, final Futex futex) throws IOException
    {
        return open(manager, false, SegmentNames.inbox(ownerRank), ownerRank, deadlineNs, futex);
    }

    /**
     * Owner: creates the inbox file {@code path} (0600) for {@code ownerRank}, touching every
     * page, and publishes it. Its own manager; {@link #close} unmaps and leaves the file.
     */
    public static Inbox create(
        final Path path, final int ownerRank, final long ownerPid, final int capacity, final Futex futex)
        throws IOException
    {
        return create(path, ownerRank, ownerPid, capacity, futex, Integer.MIN_VALUE);
    }

    /**
     * A bridge: creates {@code path}, the stand-in inbox of {@code ownerRank}, a rank on another
     * node, marked forwarded ({@link InboxDescriptor#FORWARDED_OFFSET}); the bridge reads its frames
     * and sends them on. Its own manager; {@link #close} unmaps and leaves the file.
     */
    public static Inbox createForwarded(
        final Path path, final int ownerRank, final long bridgePid, final int capacity, final Futex futex)
        throws IOException
    {
        return create(path, ownerRank, bridgePid, capacity, futex, -1);
    }

    /**
     * As {@link #createForwarded(Path, int, long, int, Futex)}, its producers waking the wake word
     * of the stand-in of {@code doorbellRank} (created before this one, in the same directory):
     * the bridge thread that forwards several stand-ins sleeps on one word.
     */
    public static Inbox createForwarded(
        final Path path, final int ownerRank, final long bridgePid, final int capacity, final Futex futex,
        final int doorbellRank) throws IOException
    {
        return create(path, ownerRank, bridgePid, capacity, futex, doorbellRank);
    }

    /** {@code doorbell}: {@link Integer#MIN_VALUE} not forwarded; -1 forwarded, its own wake word; else the rank. */
    private static Inbox create(
        final Path path, final int ownerRank, final long ownerPid, final int capacity, final Futex futex,
        final int doorbell) throws IOException
    {
        checkCapacity(capacity);
        final long startMillis = ownerPid == ProcessHandle.current().pid() ?
            Processes.selfStartMillis() : Processes.startMillis(ownerPid);
        final SegmentManager own = new SegmentManager(path.toAbsolutePath().getParent(), ownerRank, ownerPid,
            startMillis, 0, true);
        try
        {
            return create(own, true, path.getFileName().toString(), capacity, futex, doorbell);
        }
        catch (final IOException | RuntimeException ex)
        {
            own.close();
            throw ex;
        }
    }

    /**
     * Peer: maps the existing, published inbox {@code path} of {@code expectedOwner} (no waiting)
     * and checks its header. Its own manager; {@link #close} unmaps.
     */
    public static Inbox open(final Path path, final int expectedOwner, final Futex futex) throws IOException
    {
        final SegmentManager own = new SegmentManager(path.toAbsolutePath().getParent(),
            SegmentHeaderDescriptor.NO_RANK, ProcessHandle.current().pid(), Processes.selfStartMillis(), 0, true);
        try
        {
            return open(own, true, path.getFileName().toString(), expectedOwner, System.nanoTime(), futex);
        }
        catch (final IOException | RuntimeException ex)
        {
            own.close();
            throw ex;
        }
    }

    private static Inbox create(
        final SegmentManager manager, final boolean ownsManager, final String name, final int capacity,
        final Futex futex, final int doorbell) throws IOException
    {
        final Segment segment = manager.create(SegmentKind.INBOX, name, payloadLength(capacity),
            SegmentManager.TOUCH_PAGES, payload ->
            {
                payload.putInt(CAPACITY_OFFSET, capacity);
                payload.putInt(FORWARDED_OFFSET, doorbell != Integer.MIN_VALUE ? 1 : 0);
                payload.putInt(DOORBELL_OFFSET, doorbell >= 0 ? doorbell + 1 : 0);
            });
        return new Inbox(manager, ownsManager, segment, capacity, futex);
    }

    private static Inbox open(
        final SegmentManager manager,
        final boolean ownsManager,
        final String name,
        final int expectedOwner,
        final long deadlineNs,
        final Futex futex) throws IOException
    {
        final Segment segment = manager.open(SegmentKind.INBOX, name, expectedOwner, deadlineNs);
        // Plain load: written before the version word, which open() read with acquire.
        final int capacity = segment.buffer().getInt(CAPACITY_OFFSET);
        if (!isValidCapacity(capacity) || segment.length() < payloadLength(capacity))
        {
            manager.release(segment);
            throw new IOException("not a valid shmpi inbox: path=" + segment.path() + ", capacity=" + capacity +
                ", payloadLength=" + segment.length() + ", expectedPayloadLength=" +
                (isValidCapacity(capacity) ? Integer.toString(payloadLength(capacity)) : "(a power of two >= 4096)"));
        }
        return new Inbox(manager, ownsManager, segment, capacity, futex);
    }

    public ManyToOneRingBuffer ring()
    {
        return ring;
    }

    public WakeWord wakeWord()
    {
        return wakeWord;
    }

    /**
     * A producer committed frames: wakes the owner if it sleeps. For a stand-in of a rank on
     * another node the owner is the bridge: in the process that runs it the frames go out at once
     * in this thread ({@link #forwarder(Forwarder)}); elsewhere, or when that left some behind,
     * the bridge's sending thread is woken through the doorbell.
     */
    public void afterCommit()
    {
        if (forwarded)
        {
            final Forwarder f = forwarder;
            if (f != null)
            {
                if (f != askedForwarder)
                {
                    forwardedHere = f.serves(segment.path());
                    askedForwarder = f;
                }
                if (forwardedHere && f.forward(segment.creatorRank()))
                {
                    return;
                }
            }
        }
        wakeWord.wakeIfSleepingAfterClaim();
    }

    /** Rank that owns (created) the inbox. */
    public int ownerRank()
    {
        return segment.creatorRank();
    }

    public Path path()
    {
        return segment.path();
    }

    /** The segment the inbox lives in. */
    public Segment segment()
    {
        return segment;
    }

    /**
     * Whether this inbox stands in for a rank on another node (a bridge forwards its frames):
     * frames for it must carry no address of shared memory or of the producer's process.
     */
    public boolean isForwarded()
    {
        return forwarded;
    }

    /** Marks this inbox as one of a process of another job (its shared heap is not mapped here). */
    void markForeign()
    {
        foreign = true;
    }

    /** Whether this inbox belongs to a process of another job. */
    public boolean isForeign()
    {
        return foreign;
    }

    /** Whether any frame is waiting to be read (two volatile loads). */
    public boolean hasPending()
    {
        return ring.producerPosition() != ring.consumerPosition();
    }

    /**
     * Owner: removes the inbox (unlinks and unmaps; with the {@link #create(Path, int, long, int, Futex)}
     * form only unmaps). Peer: gives the mapping back to the manager's cache (with the
     * {@link #open(Path, int, Futex)} form: unmaps). Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (doorbell != null)
        {
            manager.release(doorbell);
        }
        if (segment.isCreator())
        {
            manager.remove(segment);
        }
        else
        {
            manager.release(segment);
        }
        if (ownsManager)
        {
            manager.close();
        }
    }
}
