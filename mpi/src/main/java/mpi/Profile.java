package mpi;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.shmpi.report.Algorithm;
import org.shmpi.report.JobInfo;
import org.shmpi.report.JobReport;
import org.shmpi.report.RankRecord;
import org.shmpi.report.RecordFile;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.WakeWord;
import org.shmpi.shm.settings.Setting;
import org.shmpi.shm.settings.SettingsRegistry;

/**
 * The job report's recording in a rank ({@code shmpi.report.dir}, {@code shmrun --report}).
 * Every recorded public call is bracketed:
 * <pre>
 * final Recorder r = Profile.begin(Calls.SEND);
 * ... the call ...
 * Profile.endSent(r, Calls.SEND, this, dest, count, type);
 * </pre>
 * (the ends that share a shape have a method here; the others test {@code r != null} and call the
 * recorder). With the setting unset {@link #ON} is a constant false, {@link #begin} a constant
 * null, and the compiler removes both lines: nothing is recorded. With it set, each thread records into its own
 * {@link Recorder} (no lock, no atomic); the watchdog writes the rank's {@link RankRecord} to
 * {@code DIR/ranks/} every {@code shmpi.report.flush.ms} and Finalize writes the last one, so a
 * rank that is killed leaves what it had at its last flush.
 */
final class Profile
{
    /** Whether the report is on, fixed when the class is loaded (the setting comes with the JVM). */
    static final boolean ON = dir() != null;

    private static Recorder main;
    /** {@link #main} while it records (null before Init and while paused): the call path reads only this. */
    private static Recorder active;
    private static Thread mainThread;
    private static final ThreadLocal<Recorder> OTHERS = new ThreadLocal<>();
    private static final List<Recorder> ALL = new CopyOnWriteArrayList<>();
    /** {@code MPI.pControl(0)} stops recording until {@code pControl(1)}. */
    private static boolean enabled = true;

    private static final List<String> REGIONS = new CopyOnWriteArrayList<>(List.of("all"));
    private static long[] regionWall = new long[1];
    private static long regionSince;

    private static RankProcess process;
    private static RankContext context;
    private static int sample;
    private static boolean sites;
    private static long flushNs;
    private static long lastFlush;
    private static long startNs;
    private static long startMillis;
    private static Path file;
    private static RecordFile out;
    private static int world;
    private static final Object FLUSH = new Object();
    /** The flush's record of names (reused). */
    private static RankRecord record;
    /** The flush's copy of the recorders' counters (reused). */
    private static ByteBuffer counters = ByteBuffer.allocate(0);

    private Profile()
    {
    }

    private static String dir()
    {
        final Setting s = SettingsRegistry.REPORT_DIR;
        String d = System.getProperty(s.name());
        if (d == null || d.isEmpty())
        {
            d = System.getenv(s.envName());
        }
        return d == null || d.isEmpty() ? null : d;
    }

    /** Starts recording in this rank (Init, on the main thread); does nothing with the report off. */
    static void start(final RankProcess p, final RankContext e, final ShmpiConfig config, final boolean spawned)
    {
        if (!ON)
        {
            return;
        }
        process = p;
        context = e;
        sample = (int) config.number(SettingsRegistry.REPORT_SAMPLE);
        sites = config.bool(SettingsRegistry.REPORT_SITES);
        flushNs = config.number(SettingsRegistry.REPORT_FLUSH_MS) * 1_000_000L;
        startNs = System.nanoTime();
        startMillis = System.currentTimeMillis();
        lastFlush = startNs;
        world = spawned ? (int) ProcessHandle.current().pid() : 0;
        final Path ranks = Path.of(dir()).resolve("ranks");
        try
        {
            Files.createDirectories(ranks);
        }
        catch (final IOException ex)
        {
            System.err.println("shmpi: rank " + p.rank() + ": no job report: cannot make " + ranks + ": " + ex);
            return;
        }
        file = ranks.resolve("rank-" + world + "-" + p.rank() + ".txt");
        try
        {
            out = RecordFile.create(file, 64 * 1024);
        }
        catch (final IOException ex)
        {
            System.err.println("shmpi: rank " + p.rank() + ": no job report: cannot make " + file + ": " + ex);
            file = null;
            return;
        }
        Recorder.clockNs = clockCost();
        main = new Recorder(p.worldSize(), sample, sites, 1);
        ALL.add(main);
        mainThread = Thread.currentThread();
        active = main;
        e.progress().report(Profile::waited);
        p.everyHeartbeat(Profile::maybeFlush);
        p.beforeHalt(() -> flush(false));
        // The first record now, on this thread: the classes it needs are loaded and its code run once
        // before the program starts (done later by the watchdog, it stalled the rank for ~40 ms).
        flush(false);
    }

    /** What one reading of the clock costs here: the least of many back-to-back pairs. */
    private static long clockCost()
    {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 2_000; i++)
        {
            final long a = System.nanoTime();
            final long b = System.nanoTime();
            least = Math.min(least, b - a);
        }
        return least;
    }

    /** The recorder of the calling thread, or null (report off, before Init, paused by pControl). */
    static Recorder current()
    {
        if (!ON || !enabled)
        {
            return null;
        }
        final Thread t = Thread.currentThread();
        if (t == mainThread)
        {
            return main;
        }
        if (main == null)
        {
            return null;
        }
        Recorder r = OTHERS.get();
        if (r == null)
        {
            r = new Recorder(main.world, sample, sites, REGIONS.size());
            r.region = main.region;
            OTHERS.set(r);
            ALL.add(r);
        }
        return r;
    }

    /** As {@link #begin}, for a call timed whatever the sampling (window locks). */
    static Recorder beginTimed(final int kind)
    {
        if (!ON)
        {
            return null;
        }
        final Recorder r = current();
        if (r != null)
        {
            r.beginTimed(kind);
        }
        return r;
    }

    /** A call of {@code kind} starts: the thread's recorder, or null when nothing is recorded. */
    static Recorder begin(final int kind)
    {
        if (!ON)
        {
            return null;
        }
        final Recorder a = active;
        if (a != null && a.owner == Thread.currentThread())
        {
            a.begin(kind);
            return a;
        }
        final Recorder r = current();
        if (r != null)
        {
            r.begin(kind);
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // The ends of the calls that share a shape (the argument expressions are locals: with the
    // report off nothing is left of these)

    /** The call of {@code kind} begun with {@code r} ends. */
    static void end(final Recorder r, final int kind)
    {
        if (ON && r != null)
        {
            r.end(kind);
        }
    }

    /** A send of {@code count} items of {@code type} to {@code comm}'s rank {@code dest} ends. */
    static void endSent(final Recorder r, final int kind, final Comm comm, final int dest, final int count,
        final Datatype type)
    {
        if (ON && r != null)
        {
            r.sent(kind, bytes(count, type), peer(comm, dest));
        }
    }

    /** A collective that delivers {@code count} items of {@code type} to every other member ends. */
    static void endToAll(final Recorder r, final int kind, final Comm comm, final int count, final Datatype type)
    {
        if (ON && r != null)
        {
            final long n = bytes(count, type);
            toAll(r, comm, n);
            r.endCollective(kind, n);
        }
    }

    /** A collective that delivers {@code count} items of {@code type} to every higher member (scan) ends. */
    static void endToHigher(final Recorder r, final int kind, final Comm comm, final int count, final Datatype type)
    {
        if (ON && r != null)
        {
            final long n = bytes(count, type);
            toHigher(r, comm, n);
            r.endCollective(kind, n);
        }
    }

    /** A collective that delivers {@code count} items of {@code type} to {@code root} ends. */
    static void endToRoot(final Recorder r, final int kind, final Comm comm, final int root, final int count,
        final Datatype type)
    {
        if (ON && r != null)
        {
            final long n = bytes(count, type);
            toRoot(r, comm, root, n);
            r.endCollective(kind, n);
        }
    }

    /** A collective in which {@code root} delivers {@code count} items of {@code type} to every member ends. */
    static void endFromRoot(final Recorder r, final int kind, final Comm comm, final int root, final int count,
        final Datatype type)
    {
        if (ON && r != null)
        {
            final long n = bytes(count, type);
            fromRoot(r, comm, root, n);
            r.endCollective(kind, n);
        }
    }

    /** A call of {@code kind} on file {@code f} that moves no data (open, close, set size) ends. */
    static void endFile(final Recorder r, final int kind, final File f)
    {
        if (ON && r != null)
        {
            r.endObserved(kind, 0);
            file(r, f, -1, 0, false);
        }
    }

    /**
     * A read ({@code read}) or write of file {@code f} ends that moved what its status {@code s}
     * says; {@code op}: its kind ({@link RankRecord.FileStats#OPS}).
     */
    static void endFileData(final Recorder r, final int kind, final File f, final int op, final Status s,
        final boolean read)
    {
        if (ON && r != null)
        {
            final long n = s.bytes;
            r.endObserved(kind, n);
            file(r, f, op, n, read);
        }
    }

    /** As {@link #endFileData(Recorder, int, File, int, Status, boolean)}, of {@code count} items of {@code type}. */
    static void endFileData(final Recorder r, final int kind, final File f, final int op, final int count,
        final Datatype type, final boolean read)
    {
        if (ON && r != null)
        {
            final long n = bytes(count, type);
            r.endObserved(kind, n);
            file(r, f, op, n, read);
        }
    }

    /** A call of {@code kind} on window {@code w} that moves no data ends; {@code epoch}: the epoch it opens, or -1. */
    static void endWindow(final Recorder r, final int kind, final Win w, final int epoch)
    {
        if (ON && r != null)
        {
            r.endObserved(kind, 0);
            window(r, w, -1, 0, epoch);
        }
    }

    /** The collective in progress runs {@code a}. */
    static void algorithm(final Algorithm a)
    {
        if (ON)
        {
            final Recorder r = current();
            if (r != null)
            {
                r.algorithm = a;
            }
        }
    }

    private static void waited(final int peer, final long ns)
    {
        final Recorder r = current();
        if (r != null)
        {
            r.waited(peer, ns);
        }
    }

    // ------------------------------------------------------------------------------------------
    // What calls move

    /** The bytes of {@code count} elements of {@code type} (0 without a type). */
    static long bytes(final int count, final Datatype type)
    {
        return type == null ? 0 : (long) count * type.size;
    }

    /** The world rank of {@code comm}'s point-to-point rank {@code rank}, or -1 (PROC_NULL, out of range). */
    static int peer(final Comm comm, final int rank)
    {
        final int[] p = comm.peers;
        return p != null && rank >= 0 && rank < p.length ? p[rank] : -1;
    }

    // ------------------------------------------------------------------------------------------
    // What collectives deliver, by their definition

    /** At the root, member i receives {@code counts[i]} elements (scatterv); returns the bytes sent. */
    static long fromRootV(final Recorder r, final Comm comm, final int root, final int[] counts, final Datatype type)
    {
        return comm.myRank == root ? toEachV(r, comm, counts, type) : 0;
    }

    /** Member i receives {@code counts[i]} elements of {@code type} (allToAllv, reduceScatter); returns the bytes. */
    static long toEachV(final Recorder r, final Comm comm, final int[] counts, final Datatype type)
    {
        final int[] m = comm.members;
        long total = 0;
        if (m == null || counts == null || type == null)
        {
            return 0;
        }
        for (int i = 0; i < m.length && i < counts.length; i++)
        {
            final long n = (long) counts[i] * type.size;
            total += n;
            if (i != comm.myRank && !comm.isInter())
            {
                r.delivered(m[i], n);
            }
        }
        return total;
    }

    /** Member i receives {@code counts[i]} elements of {@code types[i]} (allToAllw); returns the bytes. */
    static long toEachW(final Recorder r, final Comm comm, final int[] counts, final Datatype[] types)
    {
        final int[] m = comm.members;
        long total = 0;
        if (m == null || counts == null || types == null)
        {
            return 0;
        }
        for (int i = 0; i < m.length && i < counts.length && i < types.length; i++)
        {
            final long n = bytes(counts[i], types[i]);
            total += n;
            if (i != comm.myRank && !comm.isInter())
            {
                r.delivered(m[i], n);
            }
        }
        return total;
    }

    /** Each other member of {@code comm} receives {@code n} bytes from this rank (allReduce, allGather...). */
    static void toAll(final Recorder r, final Comm comm, final long n)
    {
        final int[] m = comm.members;
        if (m == null || comm.isInter())
        {
            return;
        }
        for (int i = 0; i < m.length; i++)
        {
            if (i != comm.myRank)
            {
                r.delivered(m[i], n);
            }
        }
    }

    /** The members after this one receive {@code n} bytes (scan, exScan). */
    static void toHigher(final Recorder r, final Comm comm, final long n)
    {
        final int[] m = comm.members;
        if (m == null || comm.isInter())
        {
            return;
        }
        for (int i = comm.myRank + 1; i < m.length; i++)
        {
            r.delivered(m[i], n);
        }
    }

    /** At the root, each other member receives {@code n} bytes (bcast, scatter). */
    static void fromRoot(final Recorder r, final Comm comm, final int root, final long n)
    {
        if (comm.myRank == root)
        {
            toAll(r, comm, n);
        }
    }

    /** Every member but the root sends {@code n} bytes to it (reduce, gather). */
    static void toRoot(final Recorder r, final Comm comm, final int root, final long n)
    {
        final int[] m = comm.members;
        if (m != null && !comm.isInter() && comm.myRank != root && root >= 0 && root < m.length)
        {
            r.delivered(m[root], n);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Windows and files

    /**
     * The call on {@code win} that just ended: operation {@code op} of {@code n} bytes (-1: none;
     * -2: a lock, whose time counts as lock waiting), opening an epoch of kind {@code epoch} (-1: none).
     */
    static void window(final Recorder r, final Win win, final int op, final long n, final int epoch)
    {
        final RankRecord.WindowStats s = r.window(win.reportName());
        if (op >= 0)
        {
            s.ops[op]++;
            s.bytes += n;
        }
        else if (op == -2)
        {
            s.lockWaits++;
            s.lockWaitNs += r.lastNs();
        }
        if (epoch >= 0)
        {
            s.epochs[epoch]++;
        }
        s.timeNs += r.lastNs();
    }

    /** The call on {@code f} that just ended: operation {@code op} (-1: none) of {@code n} bytes. */
    static void file(final Recorder r, final File f, final int op, final long n, final boolean read)
    {
        final RankRecord.FileStats s = r.file(f.reportName);
        if (op >= 0)
        {
            s.ops[op]++;
            s.sizes[org.shmpi.report.SizeBuckets.of(n)]++;
            if (read)
            {
                s.bytesRead += n;
            }
            else
            {
                s.bytesWritten += n;
            }
        }
        s.timeNs += r.lastNs();
    }

    // ------------------------------------------------------------------------------------------
    // Regions: MPI.pControl

    /**
     * {@code MPI.pControl(level, obj)}: 0 stops recording, 1 resumes it; 1 with a name enters the
     * region of that name, -1 with a name leaves it (one region at a time; entering another leaves
     * the current one).
     */
    static void pControl(final int level, final Object obj)
    {
        if (!ON || main == null)
        {
            return;
        }
        synchronized (FLUSH)
        {
            if (level == 0)
            {
                enabled = false;
                active = null;
                return;
            }
            enabled = true;
            active = main;
            final String name = obj == null ? null : obj.toString();
            if (name == null || name.isEmpty())
            {
                return;
            }
            final long now = System.nanoTime();
            final Recorder r = current();
            leaveRegion(now);
            if (level > 0)
            {
                int idx = REGIONS.indexOf(name);
                if (idx < 0)
                {
                    REGIONS.add(name);
                    idx = REGIONS.size() - 1;
                    final long[] w = new long[REGIONS.size()];
                    System.arraycopy(regionWall, 0, w, 0, regionWall.length);
                    regionWall = w;
                }
                if (r != null)
                {
                    if (r.regionCapacity() < REGIONS.size())
                    {
                        r.regions(REGIONS.size());
                    }
                    r.region = idx;
                }
                regionSince = now;
            }
        }
    }

    private static void leaveRegion(final long now)
    {
        final Recorder r = current();
        if (r != null && r.region != 0)
        {
            regionWall[r.region] += now - regionSince;
            r.region = 0;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Flushing

    private static void maybeFlush()
    {
        if (System.nanoTime() - lastFlush >= flushNs)
        {
            flush(false);
        }
    }

    /**
     * Writes this rank's record (Finalize: {@code finalized}, the last one).
     *
     * @return at Finalize, whether this rank's world must build the report itself (no launcher will)
     */
    static boolean flush(final boolean finalized)
    {
        if (!ON || file == null)
        {
            return false;
        }
        synchronized (FLUSH)
        {
            final long now = System.nanoTime();
            lastFlush = now;
            // One record, reused: a flush allocates and formats little (it runs on the rank's core).
            if (record == null)
            {
                record = new RankRecord();
            }
            final RankRecord rec = record;
            rec.files.clear();
            rec.windows.clear();
            rec.sites.clear();
            rec.world = world;
            rec.rank = process.rank();
            rec.size = process.worldSize();
            rec.pid = ProcessHandle.current().pid();
            rec.host = host();
            rec.startMillis = startMillis;
            rec.wallNs = now - startNs;
            rec.finalized = finalized;
            rec.sampleEvery = sample;
            for (int g = rec.regions.size(); g < REGIONS.size(); g++)
            {
                rec.regions.add(REGIONS.get(g));
                rec.regionWallNs.add(0L);
            }
            rec.regionWallNs.set(0, rec.wallNs);
            for (int g = 1; g < REGIONS.size() && g < regionWall.length; g++)
            {
                final long open = main != null && main.region == g ? now - regionSince : 0;
                rec.regionWallNs.set(g, regionWall[g] + open);
            }
            int need = 0;
            for (final Recorder r : ALL)
            {
                r.addNamed(rec);
                need += r.counterBytes();
            }
            if (counters.capacity() < need)
            {
                counters = ByteBuffer.allocate(need + need / 2).order(ByteOrder.LITTLE_ENDIAN);
            }
            counters.clear();
            for (final Recorder r : ALL)
            {
                r.putCounters(counters);
            }
            counters.flip();
            final long[] idle = context.progress().idleCounts();
            rec.spins = idle[0];
            rec.yields = idle[1];
            rec.sleeps = idle[2];
            rec.wakeups = WakeWord.wakeupsSent();
            try
            {
                out.write(rec.namesText().getBytes(StandardCharsets.UTF_8), counters);
            }
            catch (final IOException | RuntimeException ex)
            {
                System.err.println("shmpi: rank " + rec.rank + ": cannot write the job report's record " + file + ": " +
                    ex);
            }
        }
        return finalized && world == 0 && System.getenv(BY_LAUNCHER_ENV) == null;
    }

    /** Set by shmrun: it builds the report after the job. */
    private static final String BY_LAUNCHER_ENV = "SHMPI_REPORT_BY_LAUNCHER";

    /** Rank 0 of a job no launcher reports on builds the report from every rank's last record. */
    static void buildReport()
    {
        if (process.rank() != 0)
        {
            return;
        }
        try
        {
            final String command = System.getProperty("sun.java.command", "");
            final JobReport report = JobReport.build(Path.of(dir()), new JobInfo("java " + command,
                process.worldSize(), null, startMillis, System.nanoTime() - startNs));
            System.err.print(report.summary());
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("shmpi: rank 0: cannot write the job report in " + dir() + ": " + ex);
        }
    }

    private static String hostName;

    private static String host()
    {
        if (hostName == null)
        {
            try
            {
                hostName = InetAddress.getLocalHost().getHostName();
            }
            catch (final IOException ex)
            {
                hostName = "localhost";
            }
        }
        return hostName;
    }
}
