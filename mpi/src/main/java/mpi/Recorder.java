package mpi;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.report.Algorithm;
import org.shmpi.report.CallKind;
import org.shmpi.report.Counters;
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
    /** A timed call longer than this (plus 1 ns a byte) outside its waits is not scaled beyond it. */
    static final long OUTLIER_NS = 100_000;

    static final int KINDS = CallKind.count();
    private static final int BUCKETS = SizeBuckets.COUNT;
    private static final CallKind[] KIND = CallKind.values();

    /** Longs per kind in {@link #stats}: one cache line. */
    static final int STRIDE = Counters.STRIDE;
    private static final int COUNT = Counters.COUNT;
    private static final int BYTES = Counters.BYTES;
    private static final int WAIT = Counters.WAIT;
    private static final int SAMPLED = Counters.SAMPLED;
    private static final int SAMPLED_NS = Counters.SAMPLED_NS;
    private static final int MAX = Counters.MAX;
    /** Calls of the kind still to come before the next timed one (negative: time the next). */
    private static final int NEXT = 6;
    /** The calls the next timed call of the kind stands for. */
    private static final int WEIGHT = 7;
    private static final int ALGORITHMS = Algorithm.values().length;

    /** Calls of a kind timed before sampling starts ({@code Long.MAX_VALUE}: every call is timed). */
    private final long firstTimed;
    private final boolean sites;
    private final int sample;
    /** The thread that records here (the one that made it). */
    final Thread owner = Thread.currentThread();

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
    /** The per-peer arrays in {@link Counters}' order. */
    private final long[][] peers;
    /**
     * The world's size, and the index of the extra slot at the end of each per-peer array: no
     * single peer (a wait on any source, a barrier, a window), or none (PROC_NULL).
     */
    final int world;
    final Map<String, RankRecord.FileStats> files = new ConcurrentHashMap<>();
    final Map<String, RankRecord.WindowStats> windows = new ConcurrentHashMap<>();
    final Map<String, long[]> callSites = new ConcurrentHashMap<>();

    /** Waits measured in the call in progress (the progress engine's). */
    private long pendingWait;
    /** The kind of the call in progress (its waits are charged to it as they end). */
    private int current;
    /** Whether the call in progress is timed. */
    private boolean timing;
    /** The start of the call in progress, when it is timed. */
    private long start;
    /** Whether the call in progress is timed whatever the sampling ({@link #beginTimed}). */
    private boolean forced;
    /** The sampling's random state (xorshift). */
    private long random = 0x9E3779B97F4A7C15L;
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
        this.sites = sites;
        this.sample = Math.max(1, sample);
        world = worldSize;
        p2pMessages = new long[worldSize + 1];
        p2pBytes = new long[worldSize + 1];
        collMessages = new long[worldSize + 1];
        collBytes = new long[worldSize + 1];
        blockedNs = new long[worldSize + 1];
        blockedWaits = new long[worldSize + 1];
        peers = new long[][] {p2pMessages, p2pBytes, collMessages, collBytes, blockedNs, blockedWaits};
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
        else
        {
            for (int k = 0; k < KINDS; k++)
            {
                b[k * STRIDE + WEIGHT] = 1;
            }
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

    /**
     * A call of {@code kind} starts on this thread. Its kind's countdown decides whether it is
     * timed: 0 for the first calls of a kind (all timed), then a random interval of mean
     * {@code sample}, so that no loop period aliases with the samples.
     */
    void begin(final int kind)
    {
        current = kind;
        pendingWait = 0;
        final long[] s = stats;
        final int i = kind * STRIDE + NEXT;
        final long n = s[i] - 1;
        s[i] = n;
        if (n < 0)
        {
            // Little code here, as this is inlined into every call: the next sample is drawn at the end.
            timing = true;
            start = System.nanoTime();
        }
    }

    /**
     * The timed call of {@code kind} that ends (already counted) stands for the calls this returns;
     * draws when the next one of its kind is timed.
     */
    private long resample(final int kind)
    {
        final long[] s = stats;
        final int i = kind * STRIDE;
        final long weight = s[i + WEIGHT];
        if (s[i + COUNT] < firstTimed)
        {
            s[i + NEXT] = 0;
            s[i + WEIGHT] = 1;
        }
        else
        {
            // xorshift: the next timed call of this kind comes 1 to 2 * sample - 1 calls later.
            long x = random;
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            random = x;
            final long interval = 1 + (x >>> 1) % (2L * sample - 1);
            s[i + NEXT] = interval - 1;
            s[i + WEIGHT] = interval;
        }
        return weight;
    }

    /** A call of {@code kind} starts that is timed whatever the sampling (window locks; see {@link #endObserved}). */
    void beginTimed(final int kind)
    {
        current = kind;
        pendingWait = 0;
        forced = true;
        timing = true;
        start = System.nanoTime();
    }

    /** The call of {@code kind} ends: counted, and timed if it was picked. */
    void end(final int kind)
    {
        stats[kind * STRIDE + COUNT]++;
        if (timing || region != 0)
        {
            slow(kind, 0);
        }
    }

    /** A collective call of {@code kind} that moved {@code n} bytes ends (its algorithm is counted). */
    void endCollective(final int kind, final long n)
    {
        counted(kind, n);
        collectiveEnded(kind, n);
    }

    /** A collective call of {@code kind} that moves no data (barrier) ends. */
    void endCollective(final int kind)
    {
        stats[kind * STRIDE + COUNT]++;
        collectiveEnded(kind, 0);
    }

    /** Counts the algorithm the collective of {@code kind} that ends ran. */
    private void collectiveEnded(final int kind, final long n)
    {
        final Algorithm a = algorithm;
        algorithms[kind * ALGORITHMS + (a == null ? Algorithm.P2P : a).ordinal()]++;
        algorithm = null;
        if (timing || region != 0)
        {
            slow(kind, n);
        }
    }

    /** The call of {@code kind} that moved {@code n} bytes ends. */
    void end(final int kind, final long n)
    {
        counted(kind, n);
        if (timing || region != 0)
        {
            slow(kind, n);
        }
    }

    /** Counts a call of {@code kind} that moved {@code n} bytes, its size bucket too. */
    private void counted(final int kind, final long n)
    {
        final long[] s = stats;
        final int i = kind * STRIDE;
        s[i + COUNT]++;
        s[i + BYTES] += n;
        sizes[kind * BUCKETS + SizeBuckets.of(n)]++;
    }

    /**
     * As {@link #end(int, long)} for the calls whose own statistics (a file's, a window's) take the
     * call's time: it is there in {@link #lastNs()} afterwards (its waits only, when it was not
     * timed).
     */
    void endObserved(final int kind, final long n)
    {
        // Calls that move no data (open, fence, lock) have no size.
        if (n > 0 || kind == Calls.WIN_GET || kind == Calls.WIN_PUT)
        {
            counted(kind, n);
        }
        else
        {
            stats[kind * STRIDE + COUNT]++;
        }
        lastNs = pendingWait;
        if (timing || region != 0)
        {
            slow(kind, n);
        }
    }

    /** The time of the call that ended last through {@link #endObserved}. */
    long lastNs()
    {
        return lastNs;
    }

    private void slow(final int kind, final long n)
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
        if (timing)
        {
            timing = false;
            final long weight = forced ? 1 : resample(kind);
            forced = false;
            final long d = Math.max(0, System.nanoTime() - start - clockNs);
            // The call's time outside its measured waits stands for `weight` calls; beyond 100 µs and
            // 1 ns a byte it was something else (the thread preempted, a segment made), counted once.
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
        if (sites)
        {
            site(kind, lastNs, n);
        }
    }

    private void wait(final int i, final long ns)
    {
        final long[] s = stats;
        s[i + WAIT] += ns;
        // Without a branch: one taken more and more rarely becomes a trap that throws the compiled
        // caller away (here the progress engine's wait loop) when it is taken at last.
        s[i + MAX] = Math.max(s[i + MAX], ns);
    }

    private static void timed(final long[] s, final int i, final long scaled, final long d)
    {
        s[i + SAMPLED]++;
        s[i + SAMPLED_NS] += scaled;
        s[i + MAX] = Math.max(s[i + MAX], d);
    }

    /**
     * The per-peer slot of world rank {@code peer}: itself, or {@link #world} for none (negative or
     * beyond the world), computed without a branch.
     */
    private int slot(final int peer)
    {
        return (int) Math.min(peer & 0xFFFF_FFFFL, world);
    }

    /** A send of {@code n} bytes to world rank {@code peer} ends. */
    void sent(final int kind, final long n, final int peer)
    {
        final int p = slot(peer);
        p2pMessages[p]++;
        p2pBytes[p] += n;
        end(kind, n);
    }

    /** A collective delivered {@code n} bytes to world rank {@code peer} (by the call's definition). */
    void delivered(final int peer, final long n)
    {
        final int p = slot(peer);
        collMessages[p]++;
        collBytes[p] += n;
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
        final int p = slot(peer);
        blockedNs[p] += ns;
        blockedWaits[p]++;
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

    /** The bytes {@link #putCounters} writes. */
    int counterBytes()
    {
        return Counters.bytes(stats.length / (KINDS * STRIDE), world);
    }

    /** Appends this thread's counters to {@code out} ({@link Counters}: a copy, no formatting). */
    void putCounters(final ByteBuffer out)
    {
        Counters.put(out, stats, sizes, algorithms, peers, world, blockedNs[world], blockedWaits[world]);
    }

    /** Adds what this thread recorded per file, window and call site into {@code r}. */
    void addNamed(final RankRecord r)
    {
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
