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
    /** A timed call longer than this (plus 1 ns a byte) outside its waits is not scaled beyond it. */
    static final long OUTLIER_NS = 100_000;

    static final int KINDS = CallKind.count();
    private static final int BUCKETS = SizeBuckets.COUNT;
    private static final CallKind[] KIND = CallKind.values();

    /** Longs per kind in {@link #stats}: one cache line. */
    static final int STRIDE = 8;
    private static final int COUNT = 0;
    private static final int BYTES = 1;
    private static final int WAIT = 2;
    private static final int SAMPLED = 3;
    private static final int SAMPLED_NS = 4;
    private static final int MAX = 5;
    private static final boolean[] COLLECTIVE = new boolean[KINDS];

    static
    {
        for (int k = 0; k < KINDS; k++)
        {
            COLLECTIVE[k] = KIND[k].family() == Family.COLLECTIVE;
        }
    }

    private final int sampleShift;
    /** Calls of a kind timed before sampling starts ({@code Long.MAX_VALUE}: every call is timed). */
    private final long firstTimed;
    private final boolean sites;
    private final int sample;

    /**
     * Per region and kind ({@code (region * KINDS + kind) * STRIDE}): count, bytes, measured waits,
     * timed calls, their time outside waits, the longest call. Grown by {@link #regions} on the
     * owning thread.
     */
    long[] stats;
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

    /** Waits measured in the call in progress (the progress engine's). */
    private long pendingWait;
    /** The kind of the call in progress (its waits are charged to it as they end). */
    private int current;
    /** The start of the call in progress, when it is timed. */
    private long start;
    /** The time of the call that ended last through the slow path. */
    private long lastNs;
    /** What one clock reading costs (subtracted from every timed call); measured at Init. */
    static long clockNs;
    /** The algorithm the collective in progress chose, or null. */
    Algorithm algorithm;
    /** The region calls are recorded into besides the whole run (0: none). */
    int region;

    Recorder(final int worldSize, final int sample, final boolean sites, final int regions)
    {
        final boolean timeAll = sample <= 1 || sites;
        this.firstTimed = timeAll ? Long.MAX_VALUE : FIRST_TIMED;
        this.sampleShift = 64 - Integer.numberOfTrailingZeros(Math.max(2, sample));
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

    /** Makes room for {@code n} regions (the array is replaced; the flush reads whichever it sees). */
    void regions(final int n)
    {
        final long[] b = new long[n * KINDS * STRIDE];
        if (stats != null)
        {
            System.arraycopy(stats, 0, b, 0, Math.min(stats.length, b.length));
        }
        stats = b;
    }

    /** How many regions there is room for. */
    int regionCapacity()
    {
        return stats.length / (KINDS * STRIDE);
    }

    // ------------------------------------------------------------------------------------------
    // The call path

    /** A call of {@code kind} starts on this thread: the clock is read if the call is to be timed. */
    void begin(final int kind)
    {
        current = kind;
        pendingWait = 0;
        if (isTimed(stats[kind * STRIDE]))
        {
            start = System.nanoTime();
        }
    }

    /**
     * Whether the call of a kind that had {@code c} calls before it is timed: the first ones, then
     * one in {@code sample} picked by a multiplicative hash of its index (so no loop period aliases
     * with it). Computed at the call's start and again at its end, so the untimed call stores
     * nothing.
     */
    private boolean isTimed(final long c)
    {
        // Without branches: the two tests are 0 or 1 each, and the one branch on their sum is taken
        // both early (the first calls) and later (the samples), so the compiler keeps it (a branch
        // it saw one way only becomes a trap that throws the caller's compiled code away).
        return (first(c) | (((c * GOLDEN) >>> sampleShift) - 1) >>> 63) != 0;
    }

    /** 1 while {@code c} is below {@link #firstTimed}, else 0 (no branch). */
    private long first(final long c)
    {
        return (c - firstTimed) >>> 63;
    }

    /** A call of {@code kind} starts that is timed whatever the sampling (window locks; see {@link #endObserved}). */
    void beginTimed(final int kind)
    {
        current = kind;
        pendingWait = 0;
        start = System.nanoTime();
    }

    /** The call of {@code kind} ends: counted, and timed if it was picked. */
    void end(final int kind)
    {
        final long[] s = stats;
        final int i = kind * STRIDE;
        final long c = s[i + COUNT];
        s[i + COUNT] = c + 1;
        if (region != 0 || isTimed(c))
        {
            slow(kind, 0, isTimed(c), c);
        }
    }

    /** A collective call of {@code kind} that moved {@code n} bytes ends (its algorithm is counted). */
    void endCollective(final int kind, final long n)
    {
        final long c = counted(kind, n);
        slow(kind, n, isTimed(c), c);
    }

    /** A collective call of {@code kind} that moves no data (barrier) ends. */
    void endCollective(final int kind)
    {
        final long c = stats[kind * STRIDE + COUNT]++;
        slow(kind, 0, isTimed(c), c);
    }

    /** The call of {@code kind} that moved {@code n} bytes ends. */
    void end(final int kind, final long n)
    {
        final long c = counted(kind, n);
        if (region != 0 || isTimed(c))
        {
            slow(kind, n, isTimed(c), c);
        }
    }

    /** Counts a call of {@code kind} that moved {@code n} bytes, its size bucket too; returns its index. */
    private long counted(final int kind, final long n)
    {
        final long[] s = stats;
        final int i = kind * STRIDE;
        final long c = s[i + COUNT];
        s[i + COUNT] = c + 1;
        s[i + BYTES] += n;
        sizes[kind * BUCKETS + SizeBuckets.of(n)]++;
        return c;
    }

    /**
     * As {@link #end(int, long)} for the calls whose own statistics (a file's, a window's) take the
     * call's time: it is there in {@link #lastNs()} afterwards. {@code forced}: begun with
     * {@link #beginTimed}.
     */
    void endObserved(final int kind, final long n, final boolean forced)
    {
        // Calls that move no data (open, fence, lock) have no size.
        final long c = n > 0 || kind == Calls.WIN_GET || kind == Calls.WIN_PUT ? counted(kind, n) :
            stats[kind * STRIDE + COUNT]++;
        slow(kind, n, forced || isTimed(c), forced ? 0 : c);
    }

    /** The time of the call that ended last through {@link #endObserved}. */
    long lastNs()
    {
        return lastNs;
    }

    private void slow(final int kind, final long n, final boolean timed, final long c)
    {
        final long w = pendingWait;
        final long[] s = stats;
        final int i = kind * STRIDE;
        final int g = region == 0 ? -1 : (region * KINDS + kind) * STRIDE;
        if (g >= 0)
        {
            s[g + COUNT]++;
            s[g + BYTES] += n;
        }
        lastNs = w;
        if (timed)
        {
            final long d = Math.max(0, System.nanoTime() - start - clockNs);
            // The call's time outside its measured waits stands for `weight` calls; beyond 100 µs and
            // 1 ns a byte it was something else (the thread preempted, a segment made), counted once.
            final long weight = sample - (sample - 1) * first(c);
            final long f = Math.max(0, d - w);
            final long cap = OUTLIER_NS + n;
            // With weight 1 this is f.
            final long scaled = Math.min(f, cap) * weight + Math.max(0, f - cap);
            lastNs = w + scaled;
            timed(s, i, scaled, d);
            if (g >= 0)
            {
                timed(s, g, scaled, d);
            }
        }
        if (COLLECTIVE[kind])
        {
            algorithms[kind * Algorithm.values().length + (algorithm == null ? Algorithm.P2P : algorithm).ordinal()]++;
            algorithm = null;
        }
        if (sites)
        {
            site(kind, lastNs, n);
        }
    }

    private void wait(final int i, final long ns)
    {
        final long[] s = stats;
        s[i + WAIT] += ns;
        if (ns > s[i + MAX])
        {
            s[i + MAX] = ns;
        }
    }

    private static void timed(final long[] s, final int i, final long scaled, final long d)
    {
        s[i + SAMPLED]++;
        s[i + SAMPLED_NS] += scaled;
        if (d > s[i + MAX])
        {
            s[i + MAX] = d;
        }
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
        pendingWait += ns;
        // Charged to the call in progress now, so that its end needs no test for waits.
        final int k = current;
        wait(k * STRIDE, ns);
        if (region != 0)
        {
            wait((region * KINDS + k) * STRIDE, ns);
        }
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
        final long[] st = stats;
        final int regions = Math.min(r.regions.size(), st.length / (KINDS * STRIDE));
        for (int g = 0; g < regions; g++)
        {
            for (int k = 0; k < KINDS; k++)
            {
                final int i = (g * KINDS + k) * STRIDE;
                r.count.get(g)[k] += st[i + COUNT];
                r.bytes.get(g)[k] += st[i + BYTES];
                r.waitNs.get(g)[k] += st[i + WAIT];
                r.sampled.get(g)[k] += st[i + SAMPLED];
                r.sampledNs.get(g)[k] += st[i + SAMPLED_NS];
                r.maxNs.get(g)[k] = Math.max(r.maxNs.get(g)[k], st[i + MAX]);
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
