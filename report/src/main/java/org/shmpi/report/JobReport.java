package org.shmpi.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The report of one job, made from the rank files in {@code DIR/ranks/}: {@link #build} reads
 * them, merges them and writes {@code DIR/report.json}, the CSV tables and {@code DIR/index.html}
 * ({@code docs/report.md} describes each). The records of world 0 are the job's ranks; records of
 * other worlds (processes the job spawned) are listed, not merged.
 */
public final class JobReport
{
    /** The value of the report's {@code "schema"} field. */
    public static final String SCHEMA = "shmpi-report/1";
    /** The folder of the rank files, inside the report's folder. */
    public static final String RANKS_DIR = "ranks";
    /** How many calls the summary names. */
    private static final int SUMMARY_CALLS = 5;

    final Path dir;
    final JobInfo info;
    final List<String> warnings = new ArrayList<>();
    /** The job's ranks, by rank: null where a rank left no record. */
    final RankRecord[] ranks;
    /** Records of other worlds (spawned processes), by world and rank. */
    final List<RankRecord> others = new ArrayList<>();
    final int sampleEvery;
    final long wallNs;
    final String started;

    final List<RankRow> rankRows = new ArrayList<>();
    final List<CallRow> calls = new ArrayList<>();
    final List<RegionRow> regions = new ArrayList<>();
    final List<SiteRow> sites = new ArrayList<>();
    final Matrix p2p;
    final Matrix coll;
    /** Kinds with any size counted, in kind order, and their buckets summed over ranks. */
    final Map<CallKind, long[]> sizes = new LinkedHashMap<>();
    final List<CollectiveRow> collectives = new ArrayList<>();
    final List<FileRow> files = new ArrayList<>();
    final List<WindowRow> windows = new ArrayList<>();
    final long totalMpiNs;

    /** One rank's line of the report. */
    record RankRow(int rank, long pid, String host, boolean recorded, boolean finalized, long wallNs, long mpiNs)
    {
        /** MPI time over wall time, 0..1 (0 when the wall time is 0). */
        double share()
        {
            return wallNs <= 0 ? 0 : Math.min(1.0, (double) mpiNs / wallNs);
        }
    }

    /** One call kind over the whole run (region 0), summed over ranks, and each rank's part. */
    record CallRow(CallKind kind, long count, long bytes, long timeNs, long maxNs, List<PerRank> perRank)
    {
        long meanNs()
        {
            return count == 0 ? 0 : Math.round((double) timeNs / count);
        }
    }

    /** One rank's part of a call kind. */
    record PerRank(int rank, long count, long bytes, long timeNs, long maxNs)
    {
    }

    /** A region (matched by name across ranks): each rank's times in it, and its calls summed over ranks. */
    record RegionRow(String name, Map<Integer, long[]> ranks, List<RegionCall> calls)
    {
    }

    /** A call kind in a region: calls and time summed over ranks. */
    record RegionCall(CallKind kind, long count, long timeNs)
    {
    }

    /** One call site of one rank. */
    record SiteRow(String call, String site, int rank, long count, long timeNs, long bytes)
    {
    }

    /** Who sent how much to whom: row = sender, column = receiver. */
    record Matrix(long[][] messages, long[][] bytes, long totalMessages, long totalBytes)
    {
    }

    /** A collective kind summed over ranks, with how often each algorithm ran. */
    record CollectiveRow(CallKind kind, long count, long timeNs, long bytes, long[] algorithms)
    {
    }

    /** A file: its statistics summed over ranks, and each rank's. */
    record FileRow(String name, RankRecord.FileStats total, Map<Integer, RankRecord.FileStats> perRank)
    {
    }

    /** A window: its statistics summed over ranks, and each rank's. */
    record WindowRow(String name, RankRecord.WindowStats total, Map<Integer, RankRecord.WindowStats> perRank)
    {
    }

    private JobReport(final Path dir, final JobInfo info, final List<RankRecord> records, final List<String> read)
    {
        this.dir = dir;
        this.info = info;
        warnings.addAll(read);
        int n = info.ranks();
        for (final RankRecord r : records)
        {
            if (r.world == 0)
            {
                n = Math.max(n, Math.max(r.size, r.rank + 1));
            }
        }
        ranks = new RankRecord[n];
        int every = 0;
        long longest = 0;
        long firstStart = Long.MAX_VALUE;
        for (final RankRecord r : records)
        {
            every = Math.max(every, r.sampleEvery);
            if (r.world != 0)
            {
                others.add(r);
                continue;
            }
            if (r.rank < 0)
            {
                warnings.add("a record of rank " + r.rank + " was ignored");
                continue;
            }
            if (ranks[r.rank] != null)
            {
                warnings.add("rank " + r.rank + " has two records (pids " + ranks[r.rank].pid + " and " + r.pid
                    + "); the one of pid " + r.pid + " is used");
            }
            ranks[r.rank] = r;
            longest = Math.max(longest, r.wallNs);
            firstStart = Math.min(firstStart, r.startMillis);
        }
        others.sort(Comparator.comparingInt((RankRecord r) -> r.world).thenComparingInt(r -> r.rank));
        sampleEvery = Math.max(1, every);
        wallNs = info.wallNs() > 0 ? info.wallNs() : longest;
        final long start = info.startMillis() > 0 ? info.startMillis()
            : firstStart == Long.MAX_VALUE ? 0 : firstStart;
        started = Instant.ofEpochMilli(start).toString();

        long mpi = 0;
        for (int i = 0; i < n; i++)
        {
            final RankRecord r = ranks[i];
            if (r == null)
            {
                rankRows.add(new RankRow(i, 0, "", false, false, 0, 0));
            }
            else
            {
                final long m = r.mpiNs(0);
                mpi += m;
                rankRows.add(new RankRow(i, r.pid, r.host, true, r.finalized, r.wallNs, m));
            }
        }
        totalMpiNs = mpi;
        mergeCalls();
        mergeRegions();
        mergeSites();
        p2p = matrix(true);
        coll = matrix(false);
        mergeSizesAndCollectives();
        mergeFilesAndWindows();
    }

    /**
     * Reads the rank files of {@code dir/ranks}, makes the report and writes it into {@code dir}:
     * {@code report.json}, the CSV tables and {@code index.html}. A rank file that cannot be read is
     * named in the report's warnings.
     */
    public static JobReport build(final Path dir, final JobInfo info) throws IOException
    {
        final List<RankRecord> records = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final Path ranksDir = dir.resolve(RANKS_DIR);
        if (Files.isDirectory(ranksDir))
        {
            final List<Path> paths = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(ranksDir, "*.txt"))
            {
                ds.forEach(paths::add);
            }
            paths.sort(Comparator.comparing(Path::toString));
            for (final Path p : paths)
            {
                try
                {
                    records.add(RankRecord.read(p));
                }
                catch (final IOException | RuntimeException ex)
                {
                    problems.add("cannot read " + p.getFileName() + ": " + ex.getMessage());
                }
            }
        }
        else
        {
            problems.add("no rank files: " + ranksDir + " does not exist");
        }
        final JobReport report = new JobReport(dir, info, records, problems);
        report.write();
        return report;
    }

    /** The folder the report was written to. */
    public Path dir()
    {
        return dir;
    }

    /** Every rank finalized (and so every rank was recorded). */
    public boolean complete()
    {
        for (final RankRow r : rankRows)
        {
            if (!r.finalized())
            {
                return false;
            }
        }
        return true;
    }

    /** What went wrong reading the rank files, and ranks recorded twice. */
    public List<String> warnings()
    {
        return List.copyOf(warnings);
    }

    /** The report as JSON (what {@code report.json} holds). */
    public String json()
    {
        return ReportJson.of(this);
    }

    /** The report as one HTML page (what {@code index.html} holds). */
    public String html()
    {
        return HtmlReport.of(this);
    }

    /** The few lines the launcher prints when the job ends. */
    public String summary()
    {
        final StringBuilder b = new StringBuilder();
        final long recorded = rankRows.stream().filter(RankRow::recorded).count();
        b.append("shmrun: report of ").append(ranks.length).append(ranks.length == 1 ? " rank" : " ranks");
        if (recorded != ranks.length)
        {
            b.append(" (").append(recorded).append(" recorded)");
        }
        b.append(" in ").append(dir.resolve("index.html")).append('\n');
        final List<RankRow> shares = new ArrayList<>(rankRows.stream().filter(RankRow::recorded).toList());
        if (!shares.isEmpty())
        {
            shares.sort(Comparator.comparingDouble(RankRow::share).thenComparingInt(RankRow::rank));
            final RankRow min = shares.get(0);
            final RankRow max = shares.get(shares.size() - 1);
            final int mid = shares.size() / 2;
            final double median = shares.size() % 2 == 1 ? shares.get(mid).share()
                : (shares.get(mid - 1).share() + shares.get(mid).share()) / 2;
            b.append("  MPI share of time per rank: min ").append(Units.percent(min.share())).append(" (rank ")
                .append(min.rank()).append("), median ").append(Units.percent(median)).append(", max ")
                .append(Units.percent(max.share())).append(" (rank ").append(max.rank()).append(")\n");
        }
        if (!calls.isEmpty())
        {
            b.append("  top calls:");
            for (int i = 0; i < Math.min(SUMMARY_CALLS, calls.size()); i++)
            {
                final CallRow c = calls.get(i);
                b.append(i == 0 ? " " : ", ").append(c.kind().callName()).append(' ').append(Units.time(c.timeNs()))
                    .append(" (").append(Units.count(c.count())).append(c.count() == 1 ? " call" : " calls");
                if (totalMpiNs > 0)
                {
                    b.append(", ").append(Math.round(100.0 * c.timeNs() / totalMpiNs)).append(" %");
                }
                b.append(')');
            }
            b.append('\n');
        }
        else
        {
            b.append("  no MPI calls were recorded\n");
        }
        final Matrix m = p2p.totalBytes() > 0 || p2p.totalMessages() > 0 ? p2p : coll;
        final int[] pair = heaviest(m);
        if (pair != null)
        {
            b.append("  heaviest pair: rank ").append(pair[0]).append(" -> ").append(pair[1]).append(", ")
                .append(Units.count(m.messages()[pair[0]][pair[1]])).append(" messages, ")
                .append(Units.bytes(m.bytes()[pair[0]][pair[1]]))
                .append(m == p2p ? " (point-to-point)\n" : " (collectives)\n");
        }
        final List<Integer> missing = new ArrayList<>();
        final List<Integer> unfinished = new ArrayList<>();
        for (final RankRow r : rankRows)
        {
            if (!r.recorded())
            {
                missing.add(r.rank());
            }
            else if (!r.finalized())
            {
                unfinished.add(r.rank());
            }
        }
        if (!missing.isEmpty())
        {
            b.append("  not recorded (ended before its first flush): ").append(rankList(missing)).append('\n');
        }
        if (!unfinished.isEmpty())
        {
            b.append("  did not finalize (recorded up to its last flush): ").append(rankList(unfinished)).append('\n');
        }
        for (final String w : warnings)
        {
            b.append("  warning: ").append(w).append('\n');
        }
        return b.toString();
    }

    /** The sender and receiver of the most bytes (then messages), or null when nothing was sent. */
    static int[] heaviest(final Matrix m)
    {
        int[] best = null;
        for (int s = 0; s < m.bytes().length; s++)
        {
            for (int r = 0; r < m.bytes()[s].length; r++)
            {
                final long by = m.bytes()[s][r];
                final long ms = m.messages()[s][r];
                if (by == 0 && ms == 0)
                {
                    continue;
                }
                if (best == null || by > m.bytes()[best[0]][best[1]]
                    || by == m.bytes()[best[0]][best[1]] && ms > m.messages()[best[0]][best[1]])
                {
                    best = new int[] {s, r};
                }
            }
        }
        return best;
    }

    private static String rankList(final List<Integer> ranks)
    {
        return (ranks.size() == 1 ? "rank " : "ranks ")
            + String.join(", ", ranks.stream().map(String::valueOf).toList());
    }

    // ------------------------------------------------------------------------------------------
    // Merging

    private void mergeCalls()
    {
        for (int k = 0; k < CallKind.count(); k++)
        {
            long count = 0;
            long bytes = 0;
            long time = 0;
            long max = 0;
            final List<PerRank> per = new ArrayList<>();
            for (final RankRecord r : ranks)
            {
                if (r == null || r.count.get(0)[k] == 0)
                {
                    continue;
                }
                final PerRank p = new PerRank(r.rank, r.count.get(0)[k], r.bytes.get(0)[k], r.timeNs(0, k),
                    r.maxNs.get(0)[k]);
                per.add(p);
                count += p.count();
                bytes += p.bytes();
                time += p.timeNs();
                max = Math.max(max, p.maxNs());
            }
            if (count > 0)
            {
                calls.add(new CallRow(CallKind.of(k), count, bytes, time, max, per));
            }
        }
        calls.sort(Comparator.comparingLong(CallRow::timeNs).reversed()
            .thenComparing(c -> c.kind().callName()));
    }

    private void mergeRegions()
    {
        final Map<String, Map<Integer, long[]>> times = new LinkedHashMap<>();
        final Map<String, long[][]> perKind = new LinkedHashMap<>();
        times.put("all", new TreeMap<>());
        perKind.put("all", new long[2][CallKind.count()]);
        for (final RankRecord r : ranks)
        {
            if (r == null)
            {
                continue;
            }
            for (int g = 0; g < r.regions.size(); g++)
            {
                final String name = g == 0 ? "all" : r.regions.get(g);
                final long[][] sums = perKind.computeIfAbsent(name, x -> new long[2][CallKind.count()]);
                final long[] t = times.computeIfAbsent(name, x -> new TreeMap<>())
                    .computeIfAbsent(r.rank, x -> new long[2]);
                t[0] += g == 0 ? r.wallNs : r.regionWallNs.get(g);
                t[1] += r.mpiNs(g);
                for (int k = 0; k < CallKind.count(); k++)
                {
                    sums[0][k] += r.count.get(g)[k];
                    sums[1][k] += r.timeNs(g, k);
                }
            }
        }
        for (final Map.Entry<String, Map<Integer, long[]>> e : times.entrySet())
        {
            final long[][] sums = perKind.get(e.getKey());
            final List<RegionCall> rc = new ArrayList<>();
            for (int k = 0; k < CallKind.count(); k++)
            {
                if (sums[0][k] > 0)
                {
                    rc.add(new RegionCall(CallKind.of(k), sums[0][k], sums[1][k]));
                }
            }
            rc.sort(Comparator.comparingLong(RegionCall::timeNs).reversed().thenComparing(c -> c.kind().callName()));
            regions.add(new RegionRow(e.getKey(), e.getValue(), rc));
        }
    }

    private void mergeSites()
    {
        for (final RankRecord r : ranks)
        {
            if (r == null)
            {
                continue;
            }
            for (final Map.Entry<String, long[]> e : r.sites.entrySet())
            {
                final String key = e.getKey();
                final int tab = key.indexOf('\t');
                final long[] v = e.getValue();
                sites.add(new SiteRow(tab < 0 ? key : key.substring(0, tab), tab < 0 ? "" : key.substring(tab + 1),
                    r.rank, v[0], v[1], v[2]));
            }
        }
        sites.sort(Comparator.comparingLong(SiteRow::timeNs).reversed().thenComparing(SiteRow::call)
            .thenComparing(SiteRow::site).thenComparingInt(SiteRow::rank));
    }

    private Matrix matrix(final boolean pointToPoint)
    {
        final int n = ranks.length;
        final long[][] messages = new long[n][n];
        final long[][] bytes = new long[n][n];
        long tm = 0;
        long tb = 0;
        for (final RankRecord r : ranks)
        {
            if (r == null)
            {
                continue;
            }
            final long[] m = pointToPoint ? r.p2pMessages : r.collMessages;
            final long[] by = pointToPoint ? r.p2pBytes : r.collBytes;
            for (int to = 0; to < Math.min(n, m.length); to++)
            {
                messages[r.rank][to] = m[to];
                bytes[r.rank][to] = by[to];
                tm += m[to];
                tb += by[to];
            }
        }
        return new Matrix(messages, bytes, tm, tb);
    }

    private void mergeSizesAndCollectives()
    {
        for (int k = 0; k < CallKind.count(); k++)
        {
            final long[] buckets = new long[SizeBuckets.COUNT];
            boolean any = false;
            for (final RankRecord r : ranks)
            {
                if (r == null)
                {
                    continue;
                }
                for (int b = 0; b < SizeBuckets.COUNT; b++)
                {
                    buckets[b] += r.sizes[k][b];
                    any |= r.sizes[k][b] != 0;
                }
            }
            if (any)
            {
                sizes.put(CallKind.of(k), buckets);
            }
        }
        for (final CallRow c : calls)
        {
            if (c.kind().family() != Family.COLLECTIVE)
            {
                continue;
            }
            final long[] alg = new long[Algorithm.values().length];
            for (final RankRecord r : ranks)
            {
                if (r != null)
                {
                    for (int a = 0; a < alg.length; a++)
                    {
                        alg[a] += r.algorithms[c.kind().ordinal()][a];
                    }
                }
            }
            collectives.add(new CollectiveRow(c.kind(), c.count(), c.timeNs(), c.bytes(), alg));
        }
    }

    private void mergeFilesAndWindows()
    {
        final Map<String, FileRow> fs = new LinkedHashMap<>();
        final Map<String, WindowRow> ws = new LinkedHashMap<>();
        for (final RankRecord r : ranks)
        {
            if (r == null)
            {
                continue;
            }
            for (final Map.Entry<String, RankRecord.FileStats> e : r.files.entrySet())
            {
                final FileRow row = fs.computeIfAbsent(e.getKey(),
                    name -> new FileRow(name, new RankRecord.FileStats(), new TreeMap<>()));
                final RankRecord.FileStats s = e.getValue();
                final RankRecord.FileStats t = row.total();
                t.bytesRead += s.bytesRead;
                t.bytesWritten += s.bytesWritten;
                t.timeNs += s.timeNs;
                add(t.ops, s.ops);
                add(t.sizes, s.sizes);
                row.perRank().put(r.rank, s);
            }
            for (final Map.Entry<String, RankRecord.WindowStats> e : r.windows.entrySet())
            {
                final WindowRow row = ws.computeIfAbsent(e.getKey(),
                    name -> new WindowRow(name, new RankRecord.WindowStats(), new TreeMap<>()));
                final RankRecord.WindowStats s = e.getValue();
                final RankRecord.WindowStats t = row.total();
                add(t.ops, s.ops);
                add(t.epochs, s.epochs);
                t.bytes += s.bytes;
                t.lockWaits += s.lockWaits;
                t.lockWaitNs += s.lockWaitNs;
                t.timeNs += s.timeNs;
                row.perRank().put(r.rank, s);
            }
        }
        files.addAll(fs.values());
        windows.addAll(ws.values());
    }

    private static void add(final long[] into, final long[] from)
    {
        for (int i = 0; i < into.length; i++)
        {
            into[i] += from[i];
        }
    }

    // ------------------------------------------------------------------------------------------
    // Writing

    private void write() throws IOException
    {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("report.json"), json(), StandardCharsets.UTF_8);
        ReportCsv.write(this, dir);
        Files.writeString(dir.resolve("index.html"), html(), StandardCharsets.UTF_8);
    }

    /** The sum of {@code values}. */
    static long sum(final long[] values)
    {
        return Arrays.stream(values).sum();
    }
}
