package org.shmpi.ring;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.PeerTable;
import org.shmpi.shm.Processes;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.SegmentNames;

/**
 * This rank's view of the processes of other jobs on the machine (a port between two jobs, a
 * spawned job and its parents): ids from the world size up, job-wide through the job's
 * {@link PeerTable}. A frame to a process of another job goes straight into its inbox in that
 * job's directory and carries, as its source, the id the receiving job knows this rank by: this
 * rank registers itself in that job's table before its first frame there.
 */
public final class ForeignPeers
{
    /** A process of another job as this rank addresses it. */
    public record Peer(String job, int rank, long pid, long startMillis, Path inbox, int selfId)
    {
        public PeerTable.Entry entry()
        {
            return new PeerTable.Entry(job, rank, pid, startMillis);
        }
    }

    private final Path userRoot;
    private final String ownJob;
    private final int ownRank;
    private final JobFile ownJobFile;
    private final PeerTable own;
    private final Map<String, PeerTable> tables = new HashMap<>();
    private final Map<String, Integer> selfIds = new HashMap<>();
    private final Peer[] peers;

    public ForeignPeers(final Path userRoot, final Path jobDir, final JobFile job, final int rank)
    {
        this.userRoot = userRoot;
        this.ownJob = userRoot.relativize(jobDir).toString();
        this.ownRank = rank;
        this.ownJobFile = job;
        this.own = new PeerTable(jobDir, job.worldSize());
        this.tables.put(ownJob, own);
        this.peers = new Peer[PeerTable.MAX_ENTRIES];
    }

    /** The key other jobs know this job by (its directory under the user root). */
    public String jobKey()
    {
        return ownJob;
    }

    public int worldSize()
    {
        return own.worldSize();
    }

    /** The directory of job {@code job}. */
    public Path jobDirectory(final String job)
    {
        return userRoot.resolve(job);
    }

    /** Process {@code id} of this rank's numbering: a rank of this job or of another. */
    public synchronized PeerTable.Entry describe(final int id)
    {
        if (id < own.worldSize())
        {
            return new PeerTable.Entry(ownJob, id, ownJobFile.pid(id), ownJobFile.pidStartMillis(id));
        }
        return resolve(id).entry();
    }

    /**
     * The id of process {@code e} in job {@code job}'s numbering (registered there when new); the
     * rank itself when {@code e} belongs to {@code job}.
     */
    public synchronized int idIn(final String job, final PeerTable.Entry e)
    {
        if (e.job().equals(job))
        {
            return e.rank();
        }
        try
        {
            return table(job).idOf(e);
        }
        catch (final IOException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_OTHER, "cannot register a process in job " + job + ": " +
                ex.getMessage(), ex);
        }
    }

    /** Rank {@code rank} of job {@code job}, with the pid its job file has, as a process. */
    public PeerTable.Entry processOf(final String job, final int rank)
    {
        if (job.equals(ownJob))
        {
            return describe(rank);
        }
        try
        {
            final long[] w = PeerTable.peekJob(jobDirectory(job), rank);
            if (rank < 0 || rank >= w[0] || w[1] <= 0)
            {
                throw new ShmpiException(ErrorClass.ERR_PORT, "job " + job + " has no running rank " + rank);
            }
            return new PeerTable.Entry(job, rank, w[1], w[2]);
        }
        catch (final IOException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_PORT, "no job " + job + " on this machine: " + ex.getMessage(), ex);
        }
    }

    /** The peer with id {@code id} (at least the world size); this rank registers itself in its job. */
    public synchronized Peer resolve(final int id)
    {
        final int i = id - own.worldSize();
        if (i < 0 || i >= peers.length)
        {
            throw new ShmpiException(ErrorClass.ERR_RANK, "no process with id " + id);
        }
        Peer p = peers[i];
        if (p == null)
        {
            final PeerTable.Entry e;
            try
            {
                e = own.entry(id);
            }
            catch (final IOException ex)
            {
                throw new ShmpiException(ErrorClass.ERR_OTHER, "cannot read the job's peer table: " + ex.getMessage(),
                    ex);
            }
            if (e == null)
            {
                throw new ShmpiException(ErrorClass.ERR_RANK, "no process with id " + id + " in this job's table");
            }
            Integer self = selfIds.get(e.job());
            if (self == null)
            {
                self = idIn(e.job(), new PeerTable.Entry(ownJob, ownRank, ProcessHandle.current().pid(),
                    Processes.selfStartMillis()));
                selfIds.put(e.job(), self);
            }
            p = new Peer(e.job(), e.rank(), e.pid(), e.startMillis(),
                jobDirectory(e.job()).resolve(SegmentNames.inbox(e.rank())), self);
            peers[i] = p;
        }
        return p;
    }

    private PeerTable table(final String job) throws IOException
    {
        PeerTable t = tables.get(job);
        if (t == null)
        {
            t = new PeerTable(jobDirectory(job), (int)PeerTable.peekJob(jobDirectory(job), 0)[0]);
            tables.put(job, t);
        }
        return t;
    }
}
