package mpi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.report.Algorithm;
import org.shmpi.report.CallKind;
import org.shmpi.report.Family;
import org.shmpi.report.RankRecord;
import org.shmpi.report.SizeBuckets;

/**
 * What one thread of a rank recorded for the job report ({@link Profile}): counts, bytes, sizes
 * and times per call kind and region, what point-to-point and collective calls delivered to each
 * world rank, and per file and window. One writer (its thread), no lock and no atomic on the
 * call path; the flush reads it from the watchdog thread, so a snapshot taken while calls run
 * may be a call behind in places (the one at Finalize is exact).
 * <p>
 * Timing: a call's own time is {@code nanoTime} at its end minus at its start, taken for the first
 * {@link #FIRST_TIMED} calls of each kind and then for one in {@code sample} (picked by a
 * multiplicative hash of the call's index, so no loop period aliases with it); the waits inside
 * calls that idle are timed always (the progress engine reports them, {@link #waited}). The report
 * estimates a kind's time as its measured waits plus the mean of the rest of its timed calls
 * times its count.
 */
final class Recorder
{
    /** The first calls of every kind are all timed, so rare calls get exact times. */
    static final int FIRST_TIMED = 16;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    static final int KINDS = CallKind.count();
    private static final int BUCKETS = SizeBuckets.COUNT;
    private static final CallKind[] KIND = CallKind.values();

    private final int sampleShift;
    private final boolean timeAll;
    private final boolean sites;

    // Per region (index region * KINDS + kind); grown by enterRegion on the owning thread.
    long[] count;
    long[] bytes;
    long[] waitNs;
    long[] sampled;
    long[] sampledNs;
    long[] maxNs;
    /** Per kind and size bucket, the whole run. */
    final long[] sizes = new long[KINDS * BUCKETS];
    final long[] algorithms = new long[KINDS * Algorithm.values().length];
    final long[] p2pMessages;
    final long[] p2pBytes;
    final long[] collMessages;
    final long[] collBytes;
    final long[] blockedNs;
    final long[] blockedWaits;
    long blockedOtherNs;
    long blockedOtherWaits;
    final Map<String, RankRecord.FileStats> files = new ConcurrentHashMap<>();
    final Map<String, RankRecord.WindowStats> windows = new ConcurrentHashMap<>();
    final Map<String, long[]> callSites = new ConcurrentHashMap<>();

    /** Waits measured so far on this thread (the progress engine adds each idling wait). */
    private long waitedTotal;
    /** The call in progress: its start ({@code 0}: not timed) and the waits before it. */
    private long start;
    private long waitMark;
    /** How many calls the timed call in progress stands for (1 or the sampling period). */
    private int weight;
    private final int sample;
    /** The call that ended last: its waits, and its time estimated from them and (if timed) the clock. */
    long lastWait;
    long lastNs;
    long lastDuration;
    /** The algorithm the collective in progress chose, or null. */
    Algorithm algorithm;
    /** The region calls are recorded into besides the whole run (0: none). */
    int region;

    Recorder(final int worldSize, final int sample, final boolean sites, final int regions)
    {
        this.timeAll = sample <= 1 || sites;
        this.sampleShift = 64 - Integer.numberOfTrailingZeros(Math.max(1, sample));
        this.sites = sites;
        this.sample = Math.max(1, sample);
        p2pMessages = new long[worldSize];
        p2pBytes = new long[worldSize];
        collMessages = new long[worldSize];
        collBytes = new long[worldSize];
        blockedNs = new long[worldSize];
        blockedWaits = new long[worldSize];
        regions(regions);
    }

    /** Makes room for {@code n} regions (the arrays are replaced; the flush reads whichever it sees). */
    void regions(final int n)
    {
        count = grow(count, n);
        bytes = grow(bytes, n);
        waitNs = grow(waitNs, n);
        sampled = grow(sampled, n);
        sampledNs = grow(sampledNs, n);
        maxNs = grow(maxNs, n);
    }

    private static long[] grow(final long[] a, final int regions)
    {
        final long[] b = new long[regions * KINDS];
        if (a != null)
        {
            System.arraycopy(a, 0, b, 0, Math.min(a.length, b.length));
        }
        return b;
    }

    // ------------------------------------------------------------------------------------------
    // The call path

    /** A call of {@code kind} starts on this thread. */
    void begin(final int kind)
    {
        waitMark = waitedTotal;
        final long c = count[kind];
        if (timeAll || c < FIRST_TIMED)
        {
            weight = 1;
            start = System.nanoTime();
        }
        else if ((c * GOLDEN) >>> sampleShift == 0)
        {
            weight = sample;
            start = System.nanoTime();
        }
        else
        {
            start = 0;
        }
    }

    /** A call of {@code kind} starts that is timed whatever the sampling (window locks). */
    void beginTimed(final int kind)
    {
        waitMark = waitedTotal;
        weight = 1;
        start = System.nanoTime();
    }

    /** The call of {@code kind} ends: counted, and timed if it was picked. */
    void end(final int kind)
    {
        finish(kind, 0);
    }

    private void finish(final int kind, final long n)
    {
        final long w = waitedTotal - waitMark;
        final long t0 = start;
        final long d = t0 != 0 ? System.nanoTime() - t0 : 0;
        lastWait = w;
        lastDuration = d;
        lastNs = t0 != 0 ? w + (d - w) * weight : w;
        add(kind, w, t0, d);
        if (region != 0)
        {
            add(region * KINDS + kind, w, t0, d);
        }
        if (algorithm != null || KIND[kind].family() == Family.COLLECTIVE)
        {
            algorithms[kind * Algorithm.values().length + (algorithm == null ? Algorithm.P2P : algorithm).ordinal()]++;
            algorithm = null;
        }
        if (sites)
        {
            site(kind, d, n);
        }
    }

    private void add(final int i, final long w, final long t0, final long d)
    {
        count[i]++;
        if (w != 0)
        {
            waitNs[i] += w;
            if (w > maxNs[i])
            {
                maxNs[i] = w;
            }
        }
        if (t0 != 0)
        {
            sampled[i]++;
            sampledNs[i] += d - w;
            if (d > maxNs[i])
            {
                maxNs[i] = d;
            }
        }
    }

    /** The call of {@code kind} that moved {@code n} bytes ends. */
    void end(final int kind, final long n)
    {
        bytes[kind] += n;
        if (region != 0)
        {
            bytes[region * KINDS + kind] += n;
        }
        sizes[kind * BUCKETS + SizeBuckets.of(n)]++;
        finish(kind, n);
    }

    /** A send of {@code n} bytes to world rank {@code peer} ends. */
    void sent(final int kind, final long n, final int peer)
    {
        if (peer >= 0 && peer < p2pMessages.length)
        {
            p2pMessages[peer]++;
            p2pBytes[peer] += n;
        }
        end(kind, n);
    }

    /** A collective delivered {@code n} bytes to world rank {@code peer} (by the call's definition). */
    void delivered(final int peer, final long n)
    {
        if (peer >= 0 && peer < collMessages.length)
        {
            collMessages[peer]++;
            collBytes[peer] += n;
        }
    }

    /** The progress engine: a wait of this thread that idled lasted {@code ns}, on world rank {@code peer}. */
    void waited(final int peer, final long ns)
    {
        waitedTotal += ns;
        if (peer >= 0 && peer < blockedNs.length)
        {
            blockedNs[peer] += ns;
            blockedWaits[peer]++;
        }
        else
        {
            blockedOtherNs += ns;
            blockedOtherWaits++;
        }
    }

    /** The call of a file operation. */
    RankRecord.FileStats file(final String name)
    {
        return files.computeIfAbsent(name, k -> new RankRecord.FileStats());
    }

    /** The statistics of a window. */
    RankRecord.WindowStats window(final String name)
    {
        return windows.computeIfAbsent(name, k -> new RankRecord.WindowStats());
    }

    /** The time of the call in progress so far (0 when it is not timed). */
    long elapsed()
    {
        return start != 0 ? System.nanoTime() - start : 0;
    }

    private static final StackWalker WALKER = StackWalker.getInstance();

    private void site(final int kind, final long ns, final long n)
    {
        final String where = WALKER.walk(s -> s.filter(f -> !f.getClassName().startsWith("mpi.") &&
            !f.getClassName().startsWith("org.shmpi.")).findFirst().map(f -> f.getClassName() + "." +
            f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")").orElse("?"));
        final long[] v = callSites.computeIfAbsent(KIND[kind].callName() + '\t' + where, k -> new long[3]);
        v[0]++;
        v[1] += ns;
        v[2] += n;
    }

    // ------------------------------------------------------------------------------------------
    // The flush

    /** Adds what this thread recorded into {@code r} (which has room for every region). */
    void addTo(final RankRecord r)
    {
        final long[] c = count;
        final long[] b = bytes;
        final long[] w = waitNs;
        final long[] s = sampled;
        final long[] sn = sampledNs;
        final long[] m = maxNs;
        final int regions = Math.min(r.regions.size(), c.length / KINDS);
        for (int g = 0; g < regions; g++)
        {
            for (int k = 0; k < KINDS; k++)
            {
                final int i = g * KINDS + k;
                r.count.get(g)[k] += c[i];
                r.bytes.get(g)[k] += b[i];
                r.waitNs.get(g)[k] += w[i];
                r.sampled.get(g)[k] += s[i];
                r.sampledNs.get(g)[k] += sn[i];
                r.maxNs.get(g)[k] = Math.max(r.maxNs.get(g)[k], m[i]);
            }
        }
        final int algs = Algorithm.values().length;
        for (int k = 0; k < KINDS; k++)
        {
            for (int x = 0; x < BUCKETS; x++)
            {
                r.sizes[k][x] += sizes[k * BUCKETS + x];
            }
            for (int a = 0; a < algs; a++)
            {
                r.algorithms[k][a] += algorithms[k * algs + a];
            }
        }
        for (int p = 0; p < p2pMessages.length && p < r.p2pMessages.length; p++)
        {
            r.p2pMessages[p] += p2pMessages[p];
            r.p2pBytes[p] += p2pBytes[p];
            r.collMessages[p] += collMessages[p];
            r.collBytes[p] += collBytes[p];
            r.blockedNs[p] += blockedNs[p];
            r.blockedWaits[p] += blockedWaits[p];
        }
        r.blockedOtherNs += blockedOtherNs;
        r.blockedOtherWaits += blockedOtherWaits;
        for (final Map.Entry<String, RankRecord.FileStats> e : files.entrySet())
        {
            final RankRecord.FileStats from = e.getValue();
            final RankRecord.FileStats to = r.files.computeIfAbsent(e.getKey(), k -> new RankRecord.FileStats());
            to.bytesRead += from.bytesRead;
            to.bytesWritten += from.bytesWritten;
            to.timeNs += from.timeNs;
            sum(to.ops, from.ops);
            sum(to.sizes, from.sizes);
        }
        for (final Map.Entry<String, RankRecord.WindowStats> e : windows.entrySet())
        {
            final RankRecord.WindowStats from = e.getValue();
            final RankRecord.WindowStats to = r.windows.computeIfAbsent(e.getKey(), k -> new RankRecord.WindowStats());
            sum(to.ops, from.ops);
            sum(to.epochs, from.epochs);
            to.bytes += from.bytes;
            to.lockWaits += from.lockWaits;
            to.lockWaitNs += from.lockWaitNs;
            to.timeNs += from.timeNs;
        }
        for (final Map.Entry<String, long[]> e : callSites.entrySet())
        {
            sum(r.sites.computeIfAbsent(e.getKey(), k -> new long[3]), e.getValue());
        }
    }

    private static void sum(final long[] to, final long[] from)
    {
        for (int i = 0; i < to.length; i++)
        {
            to[i] += from[i];
        }
    }
}
