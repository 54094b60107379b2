package mpi;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.ring.ForeignPeers;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankState;

/**
 * The processes of other jobs this rank is connected to (through a port or a spawn), watched by
 * the rank's watchdog: one that has gone without finalizing ends this job too, so that no rank
 * waits forever on a peer that is not there. Their job files stay mapped while connected (an
 * ended job's directory may already be removed; the mapping still says whether the rank
 * finalized). Added at accept and connect, removed at disconnect; counted per communicator.
 */
final class Connections
{
    private record Watched(String job, int rank, long pid, long start)
    {
    }

    private static final Map<Integer, Integer> COUNTS = new ConcurrentHashMap<>();
    private static final Map<Integer, Watched> PEERS = new ConcurrentHashMap<>();
    private static final Map<String, JobFile> JOBS = new ConcurrentHashMap<>();

    private Connections()
    {
    }

    /** A communicator with {@code ids} among its processes now exists. */
    static synchronized void add(final int[] ids)
    {
        final ForeignPeers fp = MPI.context().foreignPeers();
        for (final int id : ids)
        {
            if (fp == null || id < MPI.context().worldSize())
            {
                continue;
            }
            if (COUNTS.merge(id, 1, Integer::sum) == 1)
            {
                final ForeignPeers.Peer p = fp.resolve(id);
                JOBS.computeIfAbsent(p.job(), k ->
                {
                    try
                    {
                        return JobFile.attach(fp.jobDirectory(k).resolve(org.shmpi.shm.JobDirectory.JOB_FILE_NAME),
                            1_000);
                    }
                    catch (final IOException ex)
                    {
                        return null;
                    }
                });
                PEERS.put(id, new Watched(p.job(), p.rank(), p.pid(), p.startMillis()));
            }
        }
    }

    /** The communicator with {@code ids} among its processes was disconnected. */
    static synchronized void remove(final int[] ids)
    {
        for (final int id : ids)
        {
            final Integer left = COUNTS.computeIfPresent(id, (k, v) -> v > 1 ? v - 1 : null);
            if (left == null)
            {
                final Watched w = PEERS.remove(id);
                if (w != null && PEERS.values().stream().noneMatch(o -> o.job().equals(w.job())))
                {
                    final JobFile jf = JOBS.remove(w.job());
                    if (jf != null)
                    {
                        jf.close();
                    }
                }
            }
        }
    }

    /**
     * For the watchdog: why the job must end (a connected process died without finalizing), or null.
     * Synchronized with {@link #remove} and {@link #stop}, which unmap the job files it reads (a
     * disconnect on the main thread unmapped one under it: SIGSEGV, 1 in 200 spawns).
     */
    static synchronized String check()
    {
        for (final Map.Entry<Integer, Watched> e : PEERS.entrySet())
        {
            final Watched w = e.getValue();
            final JobFile jf = JOBS.get(w.job());
            final int state = jf == null ? RankState.NONE : jf.state(w.rank());
            // FAILED: a process on another machine whose connection broke (its gateway says so).
            if (state != RankState.FAILED && Processes.isAlive(w.pid(), w.start()))
            {
                continue;
            }
            if (state != RankState.FINALIZED && PEERS.containsKey(e.getKey()))
            {
                if (JobGateway.looksLikeMirror(w.job()))
                {
                    return "rank " + w.rank() + " of the job on another machine connected through " + w.job() +
                        ", connected to this one, ended without MPI_Finalize (the connection broke)";
                }
                return "rank " + w.rank() + " of job " + w.job() + " (pid " + w.pid() + "), connected to this one, " +
                    "ended without MPI_Finalize" + (jf != null && jf.isAborted() ? " (its job: " + jf.abortReason() +
                    ")" : "");
            }
        }
        return null;
    }

    /** At Finalize: forgets everything and unmaps the job files. */
    static synchronized void stop()
    {
        COUNTS.clear();
        PEERS.clear();
        for (final JobFile jf : JOBS.values())
        {
            jf.close();
        }
        JOBS.clear();
    }
}
