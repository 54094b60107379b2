package org.shmpi.ring;

import java.io.IOException;

import org.shmpi.shm.CrossMemory;
import org.shmpi.shm.Futex;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.segment.SegmentManager;

/**
 * Everything one rank runs on, made once (by {@code MPI.Init}, or per thread-rank by the tests'
 * harness) and handed to every engine: the settings, the segment manager through which every
 * file of the rank is created or mapped, the rank's inbox and the {@link Wakeups} of peers, the
 * {@link ProgressEngine} whose duty cycle drives every engine, the {@link SharedHeap}, the
 * {@link ContextIds} in use, cross-memory attach ({@link CrossMemory}, when the settings allow it and the
 * kernel does), and the point-to-point {@link Transport}. Engines take what they need
 * from here; none reaches another engine's services through the transport.
 *
 * <p>Made in dependency order (segments, inbox, progress, heap, transport) and closed in reverse:
 * the segment manager last, which unmaps what is still mapped and removes every file the rank
 * created.
 */
public final class RankContext implements AutoCloseable
{
    private final int rank;
    private final JobFile job;
    private final ShmpiConfig settings;
    private final boolean threadSafe;
    private final SegmentManager segments;
    private final InboxTransport inboxes;
    private final Wakeups wakeups;
    private final ProgressEngine progress;
    private final SharedHeap heap;
    private final ContextIds contexts = new ContextIds();
    private final CrossMemory crossMemory;
    private Transport transport;

    private RankContext(
        final JobDirectory directory, final JobFile job, final int rank, final ShmpiConfig settings, final Futex futex,
        final boolean threadSafe) throws IOException
    {
        this.rank = rank;
        this.job = job;
        this.settings = settings;
        this.threadSafe = threadSafe;
        this.segments = new SegmentManager(directory.path(), rank, ProcessHandle.current().pid(),
            Processes.selfStartMillis(), SegmentManager.MAX_IDLE_PEER_SEGMENTS_DEFAULT, settings.shmKeep());
        try
        {
            this.inboxes = new InboxTransport(segments, job.worldSize(), job.ringCapacity(), futex);
            final java.nio.file.Path root = JobDirectory.userRoot(settings.shmDir()).toAbsolutePath();
            final java.nio.file.Path dir = directory.path().toAbsolutePath();
            if (dir.startsWith(root))
            {
                // Jobs of the user on this machine can reach each other (ports, spawn).
                inboxes.foreignPeers(new ForeignPeers(root, dir, job, rank));
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            segments.close();
            throw ex;
        }
        this.wakeups = new Wakeups(rank, inboxes);
        this.progress = new ProgressEngine(job, inboxes.wakeWord(), inboxes::hasPending, settings, threadSafe);
        this.heap = new SharedHeap(segments);
        // Also makes this process readable by its peers (prctl), before any of them can want to.
        this.crossMemory = settings.cmaEnabled() ? CrossMemory.open() : null;
    }

    /** Opens rank {@code rank}'s context with the shared-memory transport. */
    public static RankContext open(
        final JobDirectory directory, final JobFile job, final int rank, final ShmpiConfig settings, final Futex futex,
        final boolean threadSafe) throws IOException
    {
        return open(directory, job, rank, settings, futex, threadSafe, TransportFactory.SHARED_MEMORY);
    }

    /** Opens rank {@code rank}'s context with the transport {@code factory} makes. */
    public static RankContext open(
        final JobDirectory directory, final JobFile job, final int rank, final ShmpiConfig settings, final Futex futex,
        final boolean threadSafe, final TransportFactory factory) throws IOException
    {
        final RankContext context = new RankContext(directory, job, rank, settings, futex, threadSafe);
        try
        {
            context.transport = factory.create(context, context.inboxes);
        }
        catch (final IOException | RuntimeException ex)
        {
            context.close();
            throw ex;
        }
        return context;
    }

    /** This rank's world rank. */
    public int rank()
    {
        return rank;
    }

    /** Ranks in the job. */
    /**
     * Unmaps the inboxes of {@code ids} that are processes of other jobs (a disconnect): mapped
     * again should a frame go to one later.
     */
    public void forgetForeign(final int[] ids)
    {
        progress.lock();
        try
        {
            for (final int id : ids)
            {
                inboxes.forget(id);
            }
        }
        finally
        {
            progress.unlock();
        }
    }

    /** Processes of other jobs this rank can address; null when it can address none (a job over nodes). */
    public ForeignPeers foreignPeers()
    {
        return inboxes.foreignPeers();
    }

    public int worldSize()
    {
        return job.worldSize();
    }

    /** The job file shared by every rank of the job. */
    public JobFile job()
    {
        return job;
    }

    /** The settings this rank runs with. */
    public ShmpiConfig settings()
    {
        return settings;
    }

    /** Whether several threads may call into the rank at once (MPI_THREAD_MULTIPLE). */
    public boolean isThreadSafe()
    {
        return threadSafe;
    }

    /** The manager of every segment file this rank creates or maps. */
    public SegmentManager segments()
    {
        return segments;
    }

    /** The duty cycle, idling and waiting of every engine of the rank. */
    public ProgressEngine progress()
    {
        return progress;
    }

    /** This rank's shared-memory heap (buffers peers can copy from directly). */
    public SharedHeap heap()
    {
        return heap;
    }

    /**
     * Reading peers' memory with {@code process_vm_readv}, for the point-to-point engine's progress
     * thread; null when {@code shmpi.cma.enabled} is false or the kernel refuses it here.
     */
    public CrossMemory crossMemory()
    {
        return crossMemory;
    }

    /** The context ids in use on this rank. */
    public ContextIds contexts()
    {
        return contexts;
    }

    /** Waking peers that sleep on their wake words. */
    public Wakeups wakeups()
    {
        return wakeups;
    }

    /** Point-to-point messaging. */
    public Transport transport()
    {
        return transport;
    }

    @Override
    public void close()
    {
        if (transport != null)
        {
            transport.close();
        }
        heap.close();
        inboxes.close();
        // Last: unmaps everything still mapped and removes every file this rank created.
        segments.close();
    }
}
