package org.shmpi.report;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one rank recorded, as it writes it to {@code DIR/ranks/} (a text file of one record per
 * line, replaced atomically at every flush) and as the report reads it back. A rank fills one
 * from its own counters; nothing here is shared between processes while the job runs.
 * <p>
 * Call statistics are kept per region ({@code MPI.pControl} regions; region 0 is the whole run)
 * and call kind. A call's time is what was measured exactly (every wait that idled, see
 * {@link #waitNs}) plus the estimate of the rest ({@link #sampledNs}): each timed call's time
 * outside its waits, times the number of calls it stands for ({@link #timeNs(int, int)}).
 */
public final class RankRecord
{
    /** The first line of every rank file. */
    public static final String MAGIC = "shmpi-report-rank 1";

    /** The world this process belongs to: 0 for the job's first world, else the spawn that made it. */
    public int world;
    public int rank;
    public int size;
    public long pid;
    public String host = "";
    /** When the rank started recording (MPI.Init), milliseconds since the epoch. */
    public long startMillis;
    /** Wall time from Init to the last flush (Finalize for a rank that finished). */
    public long wallNs;
    public boolean finalized;
    /** One call in this many is timed with the clock (1: every call). */
    public int sampleEvery = 1;

    /** Region names; index 0 is the whole run ({@code "all"}). */
    public final List<String> regions = new ArrayList<>(List.of("all"));
    /** Wall time spent inside each region. */
    public final List<Long> regionWallNs = new ArrayList<>(List.of(0L));

    /** Per region, per kind: calls. */
    public final List<long[]> count = new ArrayList<>();
    /** Per region, per kind: bytes the calls moved (sent, received, read or written by this rank). */
    public final List<long[]> bytes = new ArrayList<>();
    /** Per region, per kind: time measured exactly in waits that idled (every call). */
    public final List<long[]> waitNs = new ArrayList<>();
    /** Per region, per kind: calls timed with the clock. */
    public final List<long[]> sampled = new ArrayList<>();
    /**
     * Per region, per kind: the estimated time outside idling waits of all calls: each timed call's
     * own, times the calls it stands for (1 for the first calls of a kind, else the sampling period;
     * beyond 100 µs and 1 ns a byte, once).
     */
    public final List<long[]> sampledNs = new ArrayList<>();
    /** Per region, per kind: the longest call seen (timed calls, and waits of the others). */
    public final List<long[]> maxNs = new ArrayList<>();

    /** Per kind, per {@link SizeBuckets} bucket: calls by size (whole run). */
    public long[][] sizes = new long[CallKind.count()][SizeBuckets.COUNT];

    /** Point-to-point messages and bytes this rank sent to each world rank. */
    public long[] p2pMessages = new long[0];
    public long[] p2pBytes = new long[0];
    /** What this rank's collective calls delivered to each world rank (by the call's definition). */
    public long[] collMessages = new long[0];
    public long[] collBytes = new long[0];

    /** Per kind, per {@link Algorithm}: how often each algorithm ran. */
    public long[][] algorithms = new long[CallKind.count()][Algorithm.values().length];

    /** Time blocked and waits on each world rank (waits that idled, naming one peer). */
    public long[] blockedNs = new long[0];
    public long[] blockedWaits = new long[0];
    /** Time blocked and waits with no single peer (any source, barriers, windows, files). */
    public long blockedOtherNs;
    public long blockedOtherWaits;
    /** Idle steps that spun, yielded, slept on the futex; wake-ups this rank sent to sleepers. */
    public long spins;
    public long yields;
    public long sleeps;
    public long wakeups;

    public final Map<String, FileStats> files = new LinkedHashMap<>();
    public final Map<String, WindowStats> windows = new LinkedHashMap<>();
    /** Per (call, call site), when call sites are recorded: key {@code kind + '\t' + site}. */
    public final Map<String, long[]> sites = new LinkedHashMap<>();

    /** One file's statistics at one rank. */
    public static final class FileStats
    {
        /** Operation kinds, the index of {@link #ops}. */
        public static final String[] OPS = {
            "individual read", "individual write", "collective read", "collective write", "shared read",
            "shared write"};

        public long bytesRead;
        public long bytesWritten;
        public long timeNs;
        public final long[] ops = new long[OPS.length];
        public final long[] sizes = new long[SizeBuckets.COUNT];
    }

    /** One window's statistics at one rank (as origin, and its epochs). */
    public static final class WindowStats
    {
        /** Operation kinds, the index of {@link #ops}. */
        public static final String[] OPS = {"put", "get", "accumulate", "get_accumulate", "fetch_and_op",
            "compare_and_swap"};
        /** Epoch kinds, the index of {@link #epochs}. */
        public static final String[] EPOCHS = {"fence", "lock", "lock_all", "post/start"};

        public final long[] ops = new long[OPS.length];
        public long bytes;
        public final long[] epochs = new long[EPOCHS.length];
        public long lockWaits;
        public long lockWaitNs;
        public long timeNs;
    }

    /** An empty record for {@code regions} regions. */
    public RankRecord()
    {
        addRegionArrays();
    }

    /** Adds a region's arrays (the caller adds its name and wall time). */
    public void addRegionArrays()
    {
        final int k = CallKind.count();
        count.add(new long[k]);
        bytes.add(new long[k]);
        waitNs.add(new long[k]);
        sampled.add(new long[k]);
        sampledNs.add(new long[k]);
        maxNs.add(new long[k]);
    }

    /** Sizes the per-peer arrays for a world of {@code n} ranks. */
    public void peers(final int n)
    {
        p2pMessages = new long[n];
        p2pBytes = new long[n];
        collMessages = new long[n];
        collBytes = new long[n];
        blockedNs = new long[n];
        blockedWaits = new long[n];
    }

    /** The time of {@code kind}'s calls in {@code region}: measured waits plus the estimate of the rest. */
    public long timeNs(final int region, final int kind)
    {
        return waitNs.get(region)[kind] + sampledNs.get(region)[kind];
    }

    /** Time inside MPI in {@code region}, every kind. */
    public long mpiNs(final int region)
    {
        long t = 0;
        for (int k = 0; k < CallKind.count(); k++)
        {
            t += timeNs(region, k);
        }
        return t;
    }

    // ------------------------------------------------------------------------------------------
    // The file

    /** Writes this record to {@code file} (a temporary file, then an atomic move). */
    public void writeTo(final Path file) throws IOException
    {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text(), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The record as text. */
    public String text()
    {
        return text(true);
    }

    /**
     * The record as text without what {@link Counters} holds (calls, sizes, algorithms, peers,
     * blocked time on no single peer): what a rank's flush writes before its counters.
     */
    public String namesText()
    {
        return text(false);
    }

    private String text(final boolean counters)
    {
        final StringBuilder b = new StringBuilder(counters ? 4096 : 512);
        b.append(MAGIC).append('\n');
        b.append("rank ").append(world).append(' ').append(rank).append(' ').append(size).append(' ').append(pid)
            .append(' ').append(startMillis).append(' ').append(wallNs).append(' ').append(finalized ? 1 : 0)
            .append(' ').append(sampleEvery).append(' ').append(clean(host)).append('\n');
        for (int r = 0; r < regions.size(); r++)
        {
            b.append("region ").append(r).append(' ').append(regionWallNs.get(r)).append(' ')
                .append(clean(regions.get(r))).append('\n');
            for (int k = 0; counters && k < CallKind.count(); k++)
            {
                if (count.get(r)[k] != 0)
                {
                    b.append("call ").append(r).append(' ').append(CallKind.of(k).callName()).append(' ')
                        .append(count.get(r)[k]).append(' ').append(bytes.get(r)[k]).append(' ')
                        .append(waitNs.get(r)[k]).append(' ').append(sampled.get(r)[k]).append(' ')
                        .append(sampledNs.get(r)[k]).append(' ').append(maxNs.get(r)[k]).append('\n');
                }
            }
        }
        for (int k = 0; counters && k < CallKind.count(); k++)
        {
            if (nonZero(sizes[k]))
            {
                line(b.append("sizes ").append(CallKind.of(k).callName()), sizes[k]).append('\n');
            }
            for (int a = 0; a < Algorithm.values().length; a++)
            {
                if (algorithms[k][a] != 0)
                {
                    b.append("alg ").append(CallKind.of(k).callName()).append(' ').append(Algorithm.values()[a].name())
                        .append(' ').append(algorithms[k][a]).append('\n');
                }
            }
        }
        for (int p = 0; counters && p < p2pMessages.length; p++)
        {
            b.append("peer ").append(p).append(' ').append(p2pMessages[p]).append(' ').append(p2pBytes[p]).append(' ')
                .append(collMessages[p]).append(' ').append(collBytes[p]).append(' ').append(blockedWaits[p])
                .append(' ').append(blockedNs[p]).append('\n');
        }
        b.append("idle ").append(blockedOtherWaits).append(' ').append(blockedOtherNs).append(' ').append(spins)
            .append(' ').append(yields).append(' ').append(sleeps).append(' ').append(wakeups).append('\n');
        for (final Map.Entry<String, FileStats> e : files.entrySet())
        {
            final FileStats f = e.getValue();
            b.append("file ").append(f.bytesRead).append(' ').append(f.bytesWritten).append(' ').append(f.timeNs);
            line(line(b, f.ops).append(' ').append("|"), f.sizes).append(' ').append(clean(e.getKey())).append('\n');
        }
        for (final Map.Entry<String, WindowStats> e : windows.entrySet())
        {
            final WindowStats w = e.getValue();
            b.append("win ").append(w.bytes).append(' ').append(w.lockWaits).append(' ').append(w.lockWaitNs)
                .append(' ').append(w.timeNs);
            line(line(b, w.ops).append(" |"), w.epochs).append(' ').append(clean(e.getKey())).append('\n');
        }
        for (final Map.Entry<String, long[]> e : sites.entrySet())
        {
            final long[] v = e.getValue();
            final int tab = e.getKey().indexOf('\t');
            b.append("site ").append(e.getKey(), 0, tab).append(' ').append(v[0]).append(' ').append(v[1]).append(' ')
                .append(v[2]).append(' ').append(clean(e.getKey().substring(tab + 1))).append('\n');
        }
        return b.toString();
    }

    /** Reads a rank file; a file cut short (the rank died while writing) reads up to its last whole line. */
    public static RankRecord read(final Path file) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        if (RecordFile.isRecordFile(bytes))
        {
            final RecordFile.Published p = RecordFile.published(bytes);
            if (p == null)
            {
                throw new IllegalArgumentException("nothing recorded yet (the rank ended before its first flush)");
            }
            final RankRecord r = parse(p.text());
            if (p.counters() != null)
            {
                Counters.addTo(r, p.counters());
            }
            return r;
        }
        return parse(new String(bytes, StandardCharsets.UTF_8));
    }

    /** Parses {@link #text()}. */
    public static RankRecord parse(final String text)
    {
        final RankRecord r = new RankRecord();
        try (BufferedReader in = new BufferedReader(new StringReader(text)))
        {
            String line = in.readLine();
            if (!MAGIC.equals(line))
            {
                throw new IllegalArgumentException("not a shmpi rank record: " + line);
            }
            int peer = 0;
            while ((line = in.readLine()) != null)
            {
                final String[] f = line.split(" ");
                switch (f[0])
                {
                    case "rank":
                        r.world = Integer.parseInt(f[1]);
                        r.rank = Integer.parseInt(f[2]);
                        r.size = Integer.parseInt(f[3]);
                        r.pid = Long.parseLong(f[4]);
                        r.startMillis = Long.parseLong(f[5]);
                        r.wallNs = Long.parseLong(f[6]);
                        r.finalized = "1".equals(f[7]);
                        r.sampleEvery = Integer.parseInt(f[8]);
                        r.host = rest(line, 9);
                        r.peers(r.size);
                        break;
                    case "region":
                    {
                        final int idx = Integer.parseInt(f[1]);
                        while (r.regions.size() <= idx)
                        {
                            r.regions.add("");
                            r.regionWallNs.add(0L);
                            r.addRegionArrays();
                        }
                        r.regionWallNs.set(idx, Long.parseLong(f[2]));
                        r.regions.set(idx, rest(line, 3));
                        break;
                    }
                    case "call":
                    {
                        final int reg = Integer.parseInt(f[1]);
                        final CallKind k = CallKind.named(f[2]);
                        if (k != null)
                        {
                            final int i = k.ordinal();
                            r.count.get(reg)[i] = Long.parseLong(f[3]);
                            r.bytes.get(reg)[i] = Long.parseLong(f[4]);
                            r.waitNs.get(reg)[i] = Long.parseLong(f[5]);
                            r.sampled.get(reg)[i] = Long.parseLong(f[6]);
                            r.sampledNs.get(reg)[i] = Long.parseLong(f[7]);
                            r.maxNs.get(reg)[i] = Long.parseLong(f[8]);
                        }
                        break;
                    }
                    case "sizes":
                    {
                        final CallKind k = CallKind.named(f[1]);
                        if (k != null)
                        {
                            longs(f, 2, r.sizes[k.ordinal()]);
                        }
                        break;
                    }
                    case "alg":
                    {
                        final CallKind k = CallKind.named(f[1]);
                        if (k != null)
                        {
                            r.algorithms[k.ordinal()][Algorithm.valueOf(f[2]).ordinal()] = Long.parseLong(f[3]);
                        }
                        break;
                    }
                    case "peer":
                        peer = Integer.parseInt(f[1]);
                        r.p2pMessages[peer] = Long.parseLong(f[2]);
                        r.p2pBytes[peer] = Long.parseLong(f[3]);
                        r.collMessages[peer] = Long.parseLong(f[4]);
                        r.collBytes[peer] = Long.parseLong(f[5]);
                        r.blockedWaits[peer] = Long.parseLong(f[6]);
                        r.blockedNs[peer] = Long.parseLong(f[7]);
                        break;
                    case "idle":
                        r.blockedOtherWaits = Long.parseLong(f[1]);
                        r.blockedOtherNs = Long.parseLong(f[2]);
                        r.spins = Long.parseLong(f[3]);
                        r.yields = Long.parseLong(f[4]);
                        r.sleeps = Long.parseLong(f[5]);
                        r.wakeups = Long.parseLong(f[6]);
                        break;
                    case "file":
                    {
                        final FileStats s = new FileStats();
                        s.bytesRead = Long.parseLong(f[1]);
                        s.bytesWritten = Long.parseLong(f[2]);
                        s.timeNs = Long.parseLong(f[3]);
                        longs(f, 4, s.ops);
                        longs(f, 5 + s.ops.length, s.sizes);
                        r.files.put(rest(line, 5 + s.ops.length + s.sizes.length), s);
                        break;
                    }
                    case "win":
                    {
                        final WindowStats w = new WindowStats();
                        w.bytes = Long.parseLong(f[1]);
                        w.lockWaits = Long.parseLong(f[2]);
                        w.lockWaitNs = Long.parseLong(f[3]);
                        w.timeNs = Long.parseLong(f[4]);
                        longs(f, 5, w.ops);
                        longs(f, 6 + w.ops.length, w.epochs);
                        r.windows.put(rest(line, 6 + w.ops.length + w.epochs.length), w);
                        break;
                    }
                    case "site":
                        r.sites.put(f[1] + '\t' + rest(line, 5),
                            new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])});
                        break;
                    default:
                        break;
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final RuntimeException ex)
        {
            // A line cut short by a dying writer: keep what was read before it.
            if (r.size == 0)
            {
                throw ex;
            }
        }
        return r;
    }

    private static StringBuilder line(final StringBuilder b, final long[] values)
    {
        for (final long v : values)
        {
            b.append(' ').append(v);
        }
        return b;
    }

    private static void longs(final String[] f, final int from, final long[] into)
    {
        for (int i = 0; i < into.length; i++)
        {
            into[i] = Long.parseLong(f[from + i]);
        }
    }

    private static boolean nonZero(final long[] values)
    {
        for (final long v : values)
        {
            if (v != 0)
            {
                return true;
            }
        }
        return false;
    }

    /** The rest of {@code line} after {@code fields} space-separated fields. */
    private static String rest(final String line, final int fields)
    {
        int at = 0;
        for (int i = 0; i < fields; i++)
        {
            at = line.indexOf(' ', at) + 1;
            if (at == 0)
            {
                return "";
            }
        }
        return line.substring(at);
    }

    /** A name on one line, without the 0 byte that ends the text of a record file's slot. */
    private static String clean(final String s)
    {
        return s.replace('\n', ' ').replace('\r', ' ').replace('\0', ' ');
    }
}
