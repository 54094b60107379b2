package org.shmpi.report;

import java.util.Map;

/** Writes a {@link JobReport} as {@code report.json} (schema {@value JobReport#SCHEMA}, docs/report.md). */
final class ReportJson
{
    private ReportJson()
    {
    }

    static String of(final JobReport r)
    {
        final Json j = new Json().beginObject();
        j.field("schema", JobReport.SCHEMA);
        job(j, r);
        ranks(j, r);
        calls(j, r);
        regions(j, r);
        sites(j, r);
        j.name("matrix").beginObject();
        matrix(j.name("p2p"), r.p2p);
        matrix(j.name("collectives"), r.coll);
        j.endObject();
        sizes(j, r);
        collectives(j, r);
        waiting(j, r);
        io(j, r);
        rma(j, r);
        others(j, r);
        return j.endObject().text();
    }

    private static void job(final Json j, final JobReport r)
    {
        j.name("job").beginObject()
            .field("command", r.info.command())
            .field("ranks", r.info.ranks())
            .field("recordedRanks", r.rankRows.stream().filter(JobReport.RankRow::recorded).count());
        j.name("exitCode").value(r.info.exitCode());
        j.field("started", r.started)
            .field("wallNs", r.wallNs)
            .field("complete", r.complete())
            .field("sampleEvery", r.sampleEvery);
        j.name("warnings").beginArray();
        for (final String w : r.warnings)
        {
            j.value(w);
        }
        j.endArray().endObject();
    }

    private static void ranks(final Json j, final JobReport r)
    {
        j.name("ranks").beginArray();
        for (final JobReport.RankRow x : r.rankRows)
        {
            j.beginObject().field("rank", x.rank()).field("pid", x.pid()).field("host", x.host())
                .field("recorded", x.recorded()).field("finalized", x.finalized()).field("wallNs", x.wallNs())
                .field("mpiNs", x.mpiNs()).field("mpiShare", x.share()).endObject();
        }
        j.endArray();
    }

    private static void calls(final Json j, final JobReport r)
    {
        j.name("calls").beginArray();
        for (final JobReport.CallRow c : r.calls)
        {
            j.beginObject().field("call", c.kind().callName()).field("family", c.kind().family().label())
                .field("count", c.count()).field("bytes", c.bytes()).field("timeNs", c.timeNs())
                .field("meanNs", c.meanNs()).field("maxNs", c.maxNs());
            j.name("perRank").beginArray();
            for (final JobReport.PerRank p : c.perRank())
            {
                j.beginObject().field("rank", p.rank()).field("count", p.count()).field("bytes", p.bytes())
                    .field("timeNs", p.timeNs()).field("maxNs", p.maxNs()).endObject();
            }
            j.endArray().endObject();
        }
        j.endArray();
    }

    private static void regions(final Json j, final JobReport r)
    {
        j.name("regions").beginArray();
        for (final JobReport.RegionRow g : r.regions)
        {
            j.beginObject().field("name", g.name());
            j.name("ranks").beginArray();
            for (final Map.Entry<Integer, long[]> e : g.ranks().entrySet())
            {
                j.beginObject().field("rank", e.getKey()).field("wallNs", e.getValue()[0])
                    .field("mpiNs", e.getValue()[1]).endObject();
            }
            j.endArray();
            j.name("calls").beginArray();
            for (final JobReport.RegionCall c : g.calls())
            {
                j.beginObject().field("call", c.kind().callName()).field("count", c.count())
                    .field("timeNs", c.timeNs()).endObject();
            }
            j.endArray().endObject();
        }
        j.endArray();
    }

    private static void sites(final Json j, final JobReport r)
    {
        j.name("sites").beginArray();
        for (final JobReport.SiteRow s : r.sites)
        {
            j.beginObject().field("call", s.call()).field("site", s.site()).field("rank", s.rank())
                .field("count", s.count()).field("timeNs", s.timeNs()).field("bytes", s.bytes()).endObject();
        }
        j.endArray();
    }

    private static void matrix(final Json j, final JobReport.Matrix m)
    {
        j.beginObject();
        j.name("messages").beginArray();
        for (final long[] row : m.messages())
        {
            j.values(row);
        }
        j.endArray();
        j.name("bytes").beginArray();
        for (final long[] row : m.bytes())
        {
            j.values(row);
        }
        j.endArray();
        j.field("totalMessages", m.totalMessages()).field("totalBytes", m.totalBytes()).endObject();
    }

    private static void sizes(final Json j, final JobReport r)
    {
        j.name("sizes").beginObject();
        j.name("buckets").beginArray();
        for (int b = 0; b < SizeBuckets.COUNT; b++)
        {
            j.value(SizeBuckets.label(b));
        }
        j.endArray();
        j.name("lowerBounds").beginArray();
        for (int b = 0; b < SizeBuckets.COUNT; b++)
        {
            j.value(SizeBuckets.lowerBound(b));
        }
        j.endArray();
        j.name("calls").beginArray();
        for (final Map.Entry<CallKind, long[]> e : r.sizes.entrySet())
        {
            j.beginObject().field("call", e.getKey().callName());
            j.name("counts").values(e.getValue()).endObject();
        }
        j.endArray().endObject();
    }

    private static void collectives(final Json j, final JobReport r)
    {
        j.name("collectives").beginArray();
        for (final JobReport.CollectiveRow c : r.collectives)
        {
            j.beginObject().field("call", c.kind().callName()).field("count", c.count()).field("timeNs", c.timeNs())
                .field("bytes", c.bytes());
            j.name("algorithms").beginObject();
            for (final Algorithm a : Algorithm.values())
            {
                if (c.algorithms()[a.ordinal()] != 0)
                {
                    j.field(a.label(), c.algorithms()[a.ordinal()]);
                }
            }
            j.endObject().endObject();
        }
        j.endArray();
    }

    private static void waiting(final Json j, final JobReport r)
    {
        j.name("waiting").beginArray();
        for (final RankRecord x : r.ranks)
        {
            if (x == null)
            {
                continue;
            }
            j.beginObject().field("rank", x.rank).field("blockedNs", JobReport.sum(x.blockedNs) + x.blockedOtherNs)
                .field("waits", JobReport.sum(x.blockedWaits) + x.blockedOtherWaits);
            j.name("on").beginArray();
            for (int p = 0; p < x.blockedWaits.length; p++)
            {
                if (x.blockedWaits[p] > 0)
                {
                    j.beginObject().field("peer", p).field("ns", x.blockedNs[p]).field("waits", x.blockedWaits[p])
                        .endObject();
                }
            }
            j.endArray();
            j.field("otherNs", x.blockedOtherNs).field("otherWaits", x.blockedOtherWaits).field("spins", x.spins)
                .field("yields", x.yields).field("sleeps", x.sleeps).field("wakeups", x.wakeups).endObject();
        }
        j.endArray();
    }

    private static void io(final Json j, final JobReport r)
    {
        j.name("io").beginArray();
        for (final JobReport.FileRow f : r.files)
        {
            final RankRecord.FileStats t = f.total();
            j.beginObject().field("file", f.name()).field("bytesRead", t.bytesRead)
                .field("bytesWritten", t.bytesWritten).field("timeNs", t.timeNs);
            j.name("ops").beginObject();
            for (int i = 0; i < RankRecord.FileStats.OPS.length; i++)
            {
                j.field(RankRecord.FileStats.OPS[i], t.ops[i]);
            }
            j.endObject();
            j.name("sizes").values(t.sizes);
            j.name("perRank").beginArray();
            for (final Map.Entry<Integer, RankRecord.FileStats> e : f.perRank().entrySet())
            {
                final RankRecord.FileStats s = e.getValue();
                j.beginObject().field("rank", e.getKey()).field("bytesRead", s.bytesRead)
                    .field("bytesWritten", s.bytesWritten).field("timeNs", s.timeNs).endObject();
            }
            j.endArray().endObject();
        }
        j.endArray();
    }

    private static void rma(final Json j, final JobReport r)
    {
        j.name("rma").beginArray();
        for (final JobReport.WindowRow w : r.windows)
        {
            final RankRecord.WindowStats t = w.total();
            j.beginObject().field("window", w.name());
            j.name("ops").beginObject();
            for (int i = 0; i < RankRecord.WindowStats.OPS.length; i++)
            {
                j.field(RankRecord.WindowStats.OPS[i], t.ops[i]);
            }
            j.endObject();
            j.field("bytes", t.bytes);
            j.name("epochs").beginObject();
            for (int i = 0; i < RankRecord.WindowStats.EPOCHS.length; i++)
            {
                j.field(RankRecord.WindowStats.EPOCHS[i], t.epochs[i]);
            }
            j.endObject();
            j.field("lockWaits", t.lockWaits).field("lockWaitNs", t.lockWaitNs).field("timeNs", t.timeNs).endObject();
        }
        j.endArray();
    }

    private static void others(final Json j, final JobReport r)
    {
        j.name("otherProcesses").beginArray();
        for (final RankRecord x : r.others)
        {
            j.beginObject().field("world", x.world).field("rank", x.rank).field("pid", x.pid)
                .field("wallNs", x.wallNs).field("mpiNs", x.mpiNs(0)).endObject();
        }
        j.endArray();
    }
}
