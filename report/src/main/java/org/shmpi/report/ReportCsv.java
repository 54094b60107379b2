package org.shmpi.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Writes the CSV tables of a {@link JobReport} (docs/report.md names each column). */
final class ReportCsv
{
    private ReportCsv()
    {
    }

    static void write(final JobReport r, final Path dir) throws IOException
    {
        ranks(r).writeTo(dir.resolve("ranks.csv"));
        calls(r).writeTo(dir.resolve("calls.csv"));
        matrix(r.p2p).writeTo(dir.resolve("matrix-p2p.csv"));
        matrix(r.coll).writeTo(dir.resolve("matrix-collectives.csv"));
        sizes(r).writeTo(dir.resolve("sizes.csv"));
        collectives(r).writeTo(dir.resolve("collectives.csv"));
        waiting(r).writeTo(dir.resolve("waiting.csv"));
        io(r).writeTo(dir.resolve("io.csv"));
        rma(r).writeTo(dir.resolve("rma.csv"));
        regions(r).writeTo(dir.resolve("regions.csv"));
    }

    static Csv ranks(final JobReport r)
    {
        final Csv c = new Csv("rank", "pid", "host", "recorded", "finalized", "wall_ns", "mpi_ns", "mpi_share");
        for (final JobReport.RankRow x : r.rankRows)
        {
            c.row(x.rank(), x.pid(), x.host(), x.recorded(), x.finalized(), x.wallNs(), x.mpiNs(), x.share());
        }
        return c;
    }

    static Csv calls(final JobReport r)
    {
        final Csv c = new Csv("rank", "call", "family", "count", "bytes", "time_ns", "max_ns");
        for (final RankRecord x : r.ranks)
        {
            if (x == null)
            {
                continue;
            }
            for (int k = 0; k < CallKind.count(); k++)
            {
                if (x.count.get(0)[k] > 0)
                {
                    c.row(x.rank, CallKind.of(k).callName(), CallKind.of(k).family().label(), x.count.get(0)[k],
                        x.bytes.get(0)[k], x.timeNs(0, k), x.maxNs.get(0)[k]);
                }
            }
        }
        return c;
    }

    /** The cells that are not zero. */
    static Csv matrix(final JobReport.Matrix m)
    {
        final Csv c = new Csv("sender", "receiver", "messages", "bytes");
        for (int s = 0; s < m.messages().length; s++)
        {
            for (int t = 0; t < m.messages()[s].length; t++)
            {
                if (m.messages()[s][t] != 0 || m.bytes()[s][t] != 0)
                {
                    c.row(s, t, m.messages()[s][t], m.bytes()[s][t]);
                }
            }
        }
        return c;
    }

    static Csv sizes(final JobReport r)
    {
        final Csv c = new Csv("call", "bucket", "lower_bound_bytes", "count");
        for (final Map.Entry<CallKind, long[]> e : r.sizes.entrySet())
        {
            for (int b = 0; b < SizeBuckets.COUNT; b++)
            {
                c.row(e.getKey().callName(), SizeBuckets.label(b), SizeBuckets.lowerBound(b), e.getValue()[b]);
            }
        }
        return c;
    }

    static Csv collectives(final JobReport r)
    {
        final List<String> header = new ArrayList<>(List.of("call", "count", "time_ns", "bytes"));
        for (final Algorithm a : Algorithm.values())
        {
            header.add(a.label());
        }
        final Csv c = new Csv(header.toArray(new String[0]));
        for (final JobReport.CollectiveRow x : r.collectives)
        {
            final List<Object> row = new ArrayList<>(List.of(x.kind().callName(), x.count(), x.timeNs(), x.bytes()));
            for (final long n : x.algorithms())
            {
                row.add(n);
            }
            c.row(row.toArray());
        }
        return c;
    }

    /** Per rank: a row per peer waited on, a row "other", and a row "all" with the totals and idle steps. */
    static Csv waiting(final JobReport r)
    {
        final Csv c = new Csv("rank", "on", "waits", "blocked_ns", "spins", "yields", "sleeps", "wakeups");
        for (final RankRecord x : r.ranks)
        {
            if (x == null)
            {
                continue;
            }
            for (int p = 0; p < x.blockedWaits.length; p++)
            {
                if (x.blockedWaits[p] > 0)
                {
                    c.row(x.rank, p, x.blockedWaits[p], x.blockedNs[p], null, null, null, null);
                }
            }
            c.row(x.rank, "other", x.blockedOtherWaits, x.blockedOtherNs, null, null, null, null);
            c.row(x.rank, "all", JobReport.sum(x.blockedWaits) + x.blockedOtherWaits,
                JobReport.sum(x.blockedNs) + x.blockedOtherNs, x.spins, x.yields, x.sleeps, x.wakeups);
        }
        return c;
    }

    static Csv io(final JobReport r)
    {
        final List<String> header = new ArrayList<>(List.of("file", "rank", "bytes_read", "bytes_written", "time_ns"));
        for (final String op : RankRecord.FileStats.OPS)
        {
            header.add(op);
        }
        for (int b = 0; b < SizeBuckets.COUNT; b++)
        {
            header.add("size " + SizeBuckets.label(b));
        }
        final Csv c = new Csv(header.toArray(new String[0]));
        for (final JobReport.FileRow f : r.files)
        {
            for (final Map.Entry<Integer, RankRecord.FileStats> e : f.perRank().entrySet())
            {
                final RankRecord.FileStats s = e.getValue();
                final List<Object> row = new ArrayList<>(List.of(f.name(), e.getKey(), s.bytesRead, s.bytesWritten,
                    s.timeNs));
                for (final long n : s.ops)
                {
                    row.add(n);
                }
                for (final long n : s.sizes)
                {
                    row.add(n);
                }
                c.row(row.toArray());
            }
        }
        return c;
    }

    static Csv rma(final JobReport r)
    {
        final List<String> header = new ArrayList<>(List.of("window", "rank"));
        for (final String op : RankRecord.WindowStats.OPS)
        {
            header.add(op);
        }
        header.add("bytes");
        for (final String e : RankRecord.WindowStats.EPOCHS)
        {
            header.add("epochs " + e);
        }
        header.addAll(List.of("lock_waits", "lock_wait_ns", "time_ns"));
        final Csv c = new Csv(header.toArray(new String[0]));
        for (final JobReport.WindowRow w : r.windows)
        {
            for (final Map.Entry<Integer, RankRecord.WindowStats> e : w.perRank().entrySet())
            {
                final RankRecord.WindowStats s = e.getValue();
                final List<Object> row = new ArrayList<>(List.of(w.name(), e.getKey()));
                for (final long n : s.ops)
                {
                    row.add(n);
                }
                row.add(s.bytes);
                for (final long n : s.epochs)
                {
                    row.add(n);
                }
                row.addAll(List.of(s.lockWaits, s.lockWaitNs, s.timeNs));
                c.row(row.toArray());
            }
        }
        return c;
    }

    static Csv regions(final JobReport r)
    {
        final Csv c = new Csv("region", "rank", "wall_ns", "mpi_ns");
        for (final JobReport.RegionRow g : r.regions)
        {
            for (final Map.Entry<Integer, long[]> e : g.ranks().entrySet())
            {
                c.row(g.name(), e.getKey(), e.getValue()[0], e.getValue()[1]);
            }
        }
        return c;
    }
}
