package org.shmpi.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of {@link SyntheticJob}: every number of report.json, the CSV tables, the summary and the page. */
class JobReportTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private JsonNode build(final int missing) throws IOException
    {
        SyntheticJob.write(dir, missing);
        JobReport.build(dir, SyntheticJob.info());
        return JSON.readTree(dir.resolve("report.json").toFile());
    }

    /** Rank r's MPI time: recv, allReduce, send, File.writeAt, Win.put, Win.fence (rank 0: barrier, readAt). */
    private static long mpiNs(final int r)
    {
        final long f = r + 1;
        return 51_000_000 * f + 102_000_000 + 2_000_000 * f + 3_000_000 + 5000 + 400 + (r == 0 ? 3337 + 1000 : 0);
    }

    @Test
    void jobAndRanks() throws IOException
    {
        final JsonNode j = build(-1);
        assertEquals(JobReport.SCHEMA, j.get("schema").asText());
        final JsonNode job = j.get("job");
        assertEquals(SyntheticJob.COMMAND, job.get("command").asText());
        assertEquals(4, job.get("ranks").asInt());
        assertEquals(4, job.get("recordedRanks").asInt());
        assertEquals(0, job.get("exitCode").asInt());
        assertEquals("2023-11-14T22:13:20Z", job.get("started").asText());
        assertEquals(5 * SyntheticJob.SECOND, job.get("wallNs").asLong());
        assertFalse(job.get("complete").asBoolean(), "rank 3 did not finalize");
        assertEquals(10, job.get("sampleEvery").asInt());
        assertEquals(1, job.get("warnings").size(), job::toString);
        assertTrue(job.get("warnings").get(0).asText().contains("rank-0-7.txt"), job::toString);

        final JsonNode ranks = j.get("ranks");
        assertEquals(4, ranks.size());
        for (int r = 0; r < 4; r++)
        {
            final JsonNode x = ranks.get(r);
            assertEquals(r, x.get("rank").asInt());
            assertEquals(1000 + r, x.get("pid").asLong());
            assertEquals("node" + r, x.get("host").asText());
            assertTrue(x.get("recorded").asBoolean());
            assertEquals(r != 3, x.get("finalized").asBoolean());
            assertEquals(SyntheticJob.SECOND * (r + 1), x.get("wallNs").asLong());
            assertEquals(mpiNs(r), x.get("mpiNs").asLong());
            assertEquals((double) mpiNs(r) / (SyntheticJob.SECOND * (r + 1)), x.get("mpiShare").asDouble(), 1e-12);
        }
        assertEquals(158_009_737L, ranks.get(0).get("mpiNs").asLong());

        final JsonNode others = j.get("otherProcesses");
        assertEquals(1, others.size());
        assertEquals(1, others.get(0).get("world").asInt());
        assertEquals(2000, others.get(0).get("pid").asLong());
        assertEquals(7000, others.get(0).get("mpiNs").asLong());
        assertEquals(SyntheticJob.SECOND / 2, others.get(0).get("wallNs").asLong());
    }

    @Test
    void callsAreSortedByTimeWithExactNumbers() throws IOException
    {
        final JsonNode calls = build(-1).get("calls");
        final List<String> names = new ArrayList<>();
        calls.forEach(c -> names.add(c.get("call").asText()));
        assertEquals(List.of("recv", "allReduce", "send", "File.writeAt", "Win.put", "barrier", "Win.fence",
            "File.readAt"), names);
        final JsonNode recv = calls.get(0);
        assertEquals("point-to-point", recv.get("family").asText());
        assertEquals(10_000, recv.get("count").asLong());
        assertEquals(80_000_000, recv.get("bytes").asLong());
        assertEquals(510_000_000, recv.get("timeNs").asLong());
        assertEquals(51_000, recv.get("meanNs").asLong());
        assertEquals(900_000, recv.get("maxNs").asLong());
        assertEquals(4, recv.get("perRank").size());
        assertEquals(153_000_000, recv.get("perRank").get(2).get("timeNs").asLong());
        assertEquals(3000, recv.get("perRank").get(2).get("count").asLong());
        // send: one in ten timed at 2,000 ns, the mean applied to every call.
        assertEquals(20_000_000, calls.get(2).get("timeNs").asLong());
        assertEquals(10_003, calls.get(2).get("maxNs").asLong());
        // barrier: 1,001 ns over 3 timed calls of 10 is 3,336.67, rounded.
        final JsonNode barrier = calls.get(5);
        assertEquals(3337, barrier.get("timeNs").asLong());
        assertEquals(334, barrier.get("meanNs").asLong());
        assertEquals("collective", barrier.get("family").asText());
        assertEquals(1, barrier.get("perRank").size());
        assertEquals(0, barrier.get("perRank").get(0).get("rank").asInt());
    }

    @Test
    void regionsAreMatchedByName() throws IOException
    {
        final JsonNode regions = build(-1).get("regions");
        assertEquals(3, regions.size());
        assertEquals("all", regions.get(0).get("name").asText());
        assertEquals("io", regions.get(1).get("name").asText());
        assertEquals("solve", regions.get(2).get("name").asText());
        final JsonNode solve = regions.get(2);
        assertEquals(4, solve.get("ranks").size(), "rank 0 has solve at index 2, the others at 1");
        for (final JsonNode x : solve.get("ranks"))
        {
            assertEquals(500_000_000, x.get("wallNs").asLong());
            assertEquals(1_000_000, x.get("mpiNs").asLong());
        }
        assertEquals("recv", solve.get("calls").get(0).get("call").asText());
        assertEquals(400, solve.get("calls").get(0).get("count").asLong());
        assertEquals(4_000_000, solve.get("calls").get(0).get("timeNs").asLong());
        final JsonNode io = regions.get(1);
        assertEquals(1, io.get("ranks").size());
        assertEquals(100_000_000, io.get("ranks").get(0).get("wallNs").asLong());
        assertEquals(3_000_000, io.get("ranks").get(0).get("mpiNs").asLong());
        final JsonNode all = regions.get(0);
        assertEquals(SyntheticJob.SECOND * 4, all.get("ranks").get(3).get("wallNs").asLong());
        assertEquals(mpiNs(3), all.get("ranks").get(3).get("mpiNs").asLong());
    }

    @Test
    void sitesMatrixSizesAndCollectives() throws IOException
    {
        final JsonNode j = build(-1);
        final JsonNode sites = j.get("sites");
        assertEquals(2, sites.size());
        assertEquals("recv", sites.get(0).get("call").asText());
        assertEquals("Ring.run(Ring.java:42)", sites.get(0).get("site").asText());
        assertEquals(51_000_000, sites.get(0).get("timeNs").asLong());
        assertEquals("Ring.run(Ring.java:40) <main>", sites.get(1).get("site").asText());
        assertEquals(1, sites.get(1).get("rank").asInt());
        assertEquals(2000, sites.get(1).get("count").asLong());
        assertEquals(16_000_000, sites.get(1).get("bytes").asLong());

        final JsonNode p2p = j.get("matrix").get("p2p");
        for (int s = 0; s < 4; s++)
        {
            for (int t = 0; t < 4; t++)
            {
                final boolean ring = t == (s + 1) % 4;
                assertEquals(ring ? 1000L * (s + 1) : 0, p2p.get("messages").get(s).get(t).asLong(), s + "->" + t);
                assertEquals(ring ? 8_000_000L * (s + 1) : 0, p2p.get("bytes").get(s).get(t).asLong(), s + "->" + t);
            }
        }
        assertEquals(10_000, p2p.get("totalMessages").asLong());
        assertEquals(80_000_000, p2p.get("totalBytes").asLong());
        final JsonNode coll = j.get("matrix").get("collectives");
        assertEquals(0, coll.get("bytes").get(2).get(2).asLong());
        assertEquals(32_000, coll.get("bytes").get(2).get(1).asLong());
        assertEquals(500, coll.get("messages").get(0).get(3).asLong());
        assertEquals(6000, coll.get("totalMessages").asLong());
        assertEquals(384_000, coll.get("totalBytes").asLong());

        final JsonNode sizes = j.get("sizes");
        assertEquals(SizeBuckets.COUNT, sizes.get("buckets").size());
        assertEquals("4-16 KiB", sizes.get("buckets").get(4).asText());
        assertEquals(4096, sizes.get("lowerBounds").get(4).asLong());
        assertEquals(3, sizes.get("calls").size());
        assertEquals("send", sizes.get("calls").get(0).get("call").asText());
        assertEquals(10_000, sizes.get("calls").get(0).get("counts").get(4).asLong());
        assertEquals("allReduce", sizes.get("calls").get(2).get("call").asText());
        assertEquals(2000, sizes.get("calls").get(2).get("counts").get(1).asLong());
        assertEquals(0, sizes.get("calls").get(2).get("counts").get(0).asLong());

        final JsonNode collectives = j.get("collectives");
        assertEquals(2, collectives.size());
        final JsonNode allReduce = collectives.get(0);
        assertEquals("allReduce", allReduce.get("call").asText());
        assertEquals(2000, allReduce.get("count").asLong());
        assertEquals(408_000_000, allReduce.get("timeNs").asLong());
        assertEquals(128_000, allReduce.get("bytes").asLong());
        assertEquals(1600, allReduce.get("algorithms").get(Algorithm.FLAT.label()).asLong());
        assertEquals(400, allReduce.get("algorithms").get(Algorithm.P2P.label()).asLong());
        assertEquals(2, allReduce.get("algorithms").size());
        assertEquals("barrier", collectives.get(1).get("call").asText());
        assertEquals(0, collectives.get(1).get("algorithms").size());
    }

    @Test
    void waitingFilesAndWindows() throws IOException
    {
        final JsonNode j = build(-1);
        final JsonNode w = j.get("waiting");
        assertEquals(4, w.size());
        final JsonNode w2 = w.get(2);
        assertEquals(2, w2.get("rank").asInt());
        assertEquals(250_000_000, w2.get("blockedNs").asLong());
        assertEquals(530, w2.get("waits").asLong());
        assertEquals(1, w2.get("on").size());
        assertEquals(1, w2.get("on").get(0).get("peer").asInt());
        assertEquals(150_000_000, w2.get("on").get(0).get("ns").asLong());
        assertEquals(30, w2.get("on").get(0).get("waits").asLong());
        assertEquals(100_000_000, w2.get("otherNs").asLong());
        assertEquals(500, w2.get("otherWaits").asLong());
        assertEquals(2000, w2.get("spins").asLong());
        assertEquals(10, w2.get("yields").asLong());
        assertEquals(5, w2.get("sleeps").asLong());
        assertEquals(7, w2.get("wakeups").asLong());

        final JsonNode io = j.get("io");
        assertEquals(1, io.size());
        final JsonNode f = io.get(0);
        assertEquals(SyntheticJob.FILE, f.get("file").asText());
        assertEquals(4096, f.get("bytesRead").asLong());
        assertEquals(4L << 20, f.get("bytesWritten").asLong());
        assertEquals(12_001_000, f.get("timeNs").asLong());
        assertEquals(1, f.get("ops").get("individual read").asLong());
        assertEquals(64, f.get("ops").get("individual write").asLong());
        assertEquals(0, f.get("ops").get("shared write").asLong());
        assertEquals(RankRecord.FileStats.OPS.length, f.get("ops").size());
        assertEquals(64, f.get("sizes").get(SizeBuckets.of(65536)).asLong());
        assertEquals(1, f.get("sizes").get(SizeBuckets.of(4096)).asLong());
        assertEquals(4, f.get("perRank").size());
        assertEquals(3_001_000, f.get("perRank").get(0).get("timeNs").asLong());
        assertEquals(0, f.get("perRank").get(1).get("bytesRead").asLong());

        final JsonNode rma = j.get("rma");
        assertEquals(1, rma.size());
        final JsonNode win = rma.get(0);
        assertEquals(SyntheticJob.WINDOW, win.get("window").asText());
        assertEquals(100, win.get("ops").get("put").asLong());
        assertEquals(0, win.get("ops").get("compare_and_swap").asLong());
        assertEquals(8000, win.get("bytes").asLong());
        assertEquals(16, win.get("epochs").get("fence").asLong());
        assertEquals(0, win.get("epochs").get("post/start").asLong());
        assertEquals(6, win.get("lockWaits").asLong());
        assertEquals(6000, win.get("lockWaitNs").asLong());
        assertEquals(21_600, win.get("timeNs").asLong());
    }

    @Test
    void aMissingRankIsListedAsNotRecorded() throws IOException
    {
        final JsonNode j = build(2);
        assertEquals(4, j.get("job").get("ranks").asInt());
        assertEquals(3, j.get("job").get("recordedRanks").asInt());
        assertFalse(j.get("job").get("complete").asBoolean());
        final JsonNode r2 = j.get("ranks").get(2);
        assertEquals(2, r2.get("rank").asInt());
        assertFalse(r2.get("recorded").asBoolean());
        assertFalse(r2.get("finalized").asBoolean());
        assertEquals(0, r2.get("wallNs").asLong());
        assertEquals(0, r2.get("mpiShare").asDouble());
        // Its row of the matrix is empty; what others sent to it is still there.
        assertEquals(0, j.get("matrix").get("p2p").get("messages").get(2).get(3).asLong());
        assertEquals(2000, j.get("matrix").get("p2p").get("messages").get(1).get(2).asLong());
        assertEquals(3, j.get("waiting").size());
        assertEquals(7000, j.get("calls").get(0).get("count").asLong(), "recv of ranks 0, 1 and 3");
    }

    @Test
    void anEmptyFolderStillMakesAReport() throws IOException
    {
        final JobReport r = JobReport.build(dir, new JobInfo("x", 2, null, 0, 0));
        final JsonNode j = JSON.readTree(dir.resolve("report.json").toFile());
        assertTrue(j.get("job").get("exitCode").isNull());
        assertEquals(0, j.get("job").get("recordedRanks").asInt());
        assertEquals(2, j.get("ranks").size());
        assertEquals(1, j.get("job").get("warnings").size());
        assertTrue(r.summary().startsWith("shmrun: report of 2 ranks (0 recorded) in "), r.summary());
        final String html = Files.readString(dir.resolve("index.html"));
        assertTrue(html.contains("No MPI calls were recorded."), html);
        assertTrue(html.contains("No point-to-point messages were recorded."), html);
    }

    @Test
    void csvTables() throws IOException
    {
        build(-1);
        for (final String name : List.of("ranks", "calls", "matrix-p2p", "matrix-collectives", "sizes", "collectives",
            "waiting", "io", "rma", "regions"))
        {
            assertTrue(Files.size(dir.resolve(name + ".csv")) > 0, name);
        }
        final List<String> p2p = lines("matrix-p2p.csv");
        assertEquals(List.of("sender,receiver,messages,bytes", "0,1,1000,8000000", "1,2,2000,16000000",
            "2,3,3000,24000000", "3,0,4000,32000000"), p2p);
        final List<String> ranks = lines("ranks.csv");
        assertEquals("rank,pid,host,recorded,finalized,wall_ns,mpi_ns,mpi_share", ranks.get(0));
        assertTrue(ranks.get(4).startsWith("3,1003,node3,true,false,4000000000,317005400,"), ranks.get(4));
        // A file name with a quote and a comma is quoted, its quotes doubled.
        final List<String> io = lines("io.csv");
        assertTrue(io.get(1).startsWith("\"/data/run \"\"a\"\" & <b>, part 1.dat\",0,4096,1048576,3001000,1,16,"),
            io.get(1));
        assertTrue(lines("calls.csv").contains("0,barrier,collective,10,0,3337,500"));
        assertTrue(lines("regions.csv").contains("solve,3,500000000,1000000"));
        assertTrue(lines("waiting.csv").contains("2,1,30,150000000,,,,"));
        assertTrue(lines("waiting.csv").contains("2,all,530,250000000,2000,10,5,7"));
        assertTrue(lines("collectives.csv").contains("allReduce,2000,408000000,128000,1600,0,0,400"));
        assertTrue(lines("sizes.csv").contains("allReduce,64-256 B,64,2000"));
        assertTrue(Files.readString(dir.resolve("rma.csv")).contains("\r\n"), "RFC 4180 line ends");
    }

    private List<String> lines(final String csv) throws IOException
    {
        return List.of(Files.readString(dir.resolve(csv), StandardCharsets.UTF_8).split("\r\n"));
    }

    @Test
    void summaryLines() throws IOException
    {
        SyntheticJob.write(dir, -1);
        final String[] lines = JobReport.build(dir, SyntheticJob.info()).summary().split("\n");
        assertEquals("shmrun: report of 4 ranks in " + dir.resolve("index.html"), lines[0]);
        assertEquals("  MPI share of time per rank: min 7.9 % (rank 3), median 9.7 %, max 15.8 % (rank 0)", lines[1]);
        assertEquals("  top calls: recv 510 ms (10,000 calls, 54 %), allReduce 408 ms (2,000 calls, 43 %), "
            + "send 20.0 ms (10,000 calls, 2 %), File.writeAt 12.0 ms (64 calls, 1 %), "
            + "Win.put 20.0 \u00b5s (100 calls, 0 %)", lines[2]);
        assertEquals("  heaviest pair: rank 3 -> 0, 4,000 messages, 30.5 MiB (point-to-point)", lines[3]);
        assertEquals("  did not finalize (recorded up to its last flush): rank 3", lines[4]);
        assertTrue(lines[5].startsWith("  warning: cannot read rank-0-7.txt"), lines[5]);
        assertEquals(6, lines.length);
    }

    @Test
    void thePageIsSelfContainedAndEscaped() throws IOException
    {
        build(-1);
        final String html = Files.readString(dir.resolve("index.html"), StandardCharsets.UTF_8);
        assertFalse(html.contains("http://"), "no URL");
        assertFalse(html.contains("https://"), "no URL");
        assertFalse(html.contains("src="), "no outside resource");
        assertFalse(html.contains("<link"), "no outside style sheet");
        assertEquals(count(html, "<svg"), count(html, "</svg>"), "every svg closed");
        assertEquals(count(html, "<table"), count(html, "</table>"), "every table closed");
        assertEquals(count(html, "<section"), count(html, "</section>"), "every section closed");
        assertTrue(html.contains("&lt;n&gt; &amp; &quot;more&quot;"), "the command escaped");
        assertTrue(html.contains("/data/run &quot;a&quot; &amp; &lt;b&gt;, part 1.dat"), "the file name escaped");
        assertFalse(html.contains("<b>,"), "no raw file name");
        assertTrue(html.contains("Ring.run(Ring.java:40) &lt;main&gt;"), "the call site escaped");
        assertTrue(html.contains("data-from=\"3\" data-to=\"0\" data-bytes=\"32000000\" data-messages=\"4000\""));
        assertTrue(html.contains("data-call=\"recv\" data-count=\"10000\""));
        for (final String section : List.of("time", "matrix", "sizes", "collectives", "waiting", "io", "rma",
            "regions"))
        {
            assertTrue(html.contains("<section id=\"" + section + "\">"), section);
        }
        assertTrue(html.contains("receiver rank") && html.contains("sender rank"));
        assertTrue(html.contains("recorded up to its last flush"));
    }

    @Test
    void thePaletteDarkensWithBytes()
    {
        assertEquals("#ffffff", HtmlReport.colour(0));
        assertEquals("#08306b", HtmlReport.colour(1));
        double last = 1;
        for (final long b : new long[] {1, 10, 1000, 100_000, 10_000_000})
        {
            final String c = HtmlReport.colour(HtmlReport.shade(b, 1, 10_000_000));
            final double light = luminance(c);
            assertTrue(light < last, c);
            last = light;
        }
        assertEquals(0, HtmlReport.shade(0, 1, 100));
        assertEquals(5, HtmlReport.niceStep(20));
        assertEquals(1_000_000_000L, HtmlReport.niceStep(4_000_000_000L));
    }

    private static double luminance(final String hex)
    {
        final int v = Integer.parseInt(hex.substring(1), 16);
        return 0.2126 * (v >> 16) / 255 + 0.7152 * ((v >> 8) & 0xff) / 255 + 0.0722 * (v & 0xff) / 255;
    }

    @Test
    void unitsAndJsonEscaping()
    {
        assertEquals("850 ns", Units.time(850));
        assertEquals("1.21 s", Units.time(1_210_000_000));
        assertEquals("12.5 \u00b5s", Units.time(12_500));
        assertEquals("512 B", Units.bytes(512));
        assertEquals("8.0 MiB", Units.bytes(8L << 20));
        assertEquals("1,000", Units.count(1000));
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", Json.quote("a\"b\\c\n\u0001"));
        assertEquals("plain", Csv.field("plain"));
        assertEquals("\"a,\"\"b\"\"\"", Csv.field("a,\"b\""));
    }

    @Test
    void aRankRecordReadsBackAsWritten()
    {
        for (int r = 0; r < SyntheticJob.RANKS; r++)
        {
            final RankRecord a = SyntheticJob.record(r);
            a.host = "node " + r + " (rack 2)";
            final RankRecord b = RankRecord.parse(a.text());
            assertEquals(a.world, b.world);
            assertEquals(a.rank, b.rank);
            assertEquals(a.size, b.size);
            assertEquals(a.pid, b.pid);
            assertEquals(a.host, b.host);
            assertEquals(a.startMillis, b.startMillis);
            assertEquals(a.wallNs, b.wallNs);
            assertEquals(a.finalized, b.finalized);
            assertEquals(a.sampleEvery, b.sampleEvery);
            assertEquals(a.regions, b.regions);
            assertEquals(a.regionWallNs, b.regionWallNs);
            for (int g = 0; g < a.regions.size(); g++)
            {
                assertArrayEquals(a.count.get(g), b.count.get(g));
                assertArrayEquals(a.bytes.get(g), b.bytes.get(g));
                assertArrayEquals(a.waitNs.get(g), b.waitNs.get(g));
                assertArrayEquals(a.sampled.get(g), b.sampled.get(g));
                assertArrayEquals(a.sampledNs.get(g), b.sampledNs.get(g));
                assertArrayEquals(a.maxNs.get(g), b.maxNs.get(g));
            }
            assertEquals(a.regions.size(), b.count.size());
            for (int k = 0; k < CallKind.count(); k++)
            {
                assertArrayEquals(a.sizes[k], b.sizes[k]);
                assertArrayEquals(a.algorithms[k], b.algorithms[k]);
            }
            assertArrayEquals(a.p2pMessages, b.p2pMessages);
            assertArrayEquals(a.p2pBytes, b.p2pBytes);
            assertArrayEquals(a.collMessages, b.collMessages);
            assertArrayEquals(a.collBytes, b.collBytes);
            assertArrayEquals(a.blockedNs, b.blockedNs);
            assertArrayEquals(a.blockedWaits, b.blockedWaits);
            assertEquals(a.blockedOtherNs, b.blockedOtherNs);
            assertEquals(a.blockedOtherWaits, b.blockedOtherWaits);
            assertEquals(a.spins, b.spins);
            assertEquals(a.yields, b.yields);
            assertEquals(a.sleeps, b.sleeps);
            assertEquals(a.wakeups, b.wakeups);
            assertEquals(a.files.keySet(), b.files.keySet());
            for (final String f : a.files.keySet())
            {
                final RankRecord.FileStats x = a.files.get(f);
                final RankRecord.FileStats y = b.files.get(f);
                assertEquals(x.bytesRead, y.bytesRead);
                assertEquals(x.bytesWritten, y.bytesWritten);
                assertEquals(x.timeNs, y.timeNs);
                assertArrayEquals(x.ops, y.ops);
                assertArrayEquals(x.sizes, y.sizes);
            }
            assertEquals(a.windows.keySet(), b.windows.keySet());
            for (final String w : a.windows.keySet())
            {
                final RankRecord.WindowStats x = a.windows.get(w);
                final RankRecord.WindowStats y = b.windows.get(w);
                assertArrayEquals(x.ops, y.ops);
                assertArrayEquals(x.epochs, y.epochs);
                assertEquals(x.bytes, y.bytes);
                assertEquals(x.lockWaits, y.lockWaits);
                assertEquals(x.lockWaitNs, y.lockWaitNs);
                assertEquals(x.timeNs, y.timeNs);
            }
            assertEquals(a.sites.keySet(), b.sites.keySet());
            for (final String s : a.sites.keySet())
            {
                assertArrayEquals(a.sites.get(s), b.sites.get(s));
            }
            assertEquals(a.text(), b.text());
        }
    }

    private static void assertArrayEquals(final long[] a, final long[] b)
    {
        org.junit.jupiter.api.Assertions.assertArrayEquals(a, b);
    }

    private static int count(final String s, final String what)
    {
        final Matcher m = Pattern.compile(Pattern.quote(what)).matcher(s);
        int n = 0;
        while (m.find())
        {
            n++;
        }
        return n;
    }
}
