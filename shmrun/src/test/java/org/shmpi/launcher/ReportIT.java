package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.report.BrowserCheck;
import org.shmpi.report.SizeBuckets;

/**
 * {@code shmrun --report DIR} on real jobs of {@code progs.ReportTraffic}, whose traffic is known
 * exactly: every number of report.json that the program fixes (point-to-point and collective
 * matrices, call counts and bytes, message sizes, algorithms, the file, the window, the region),
 * at 1 to 8 ranks; a rank killed with SIGKILL leaves its record up to its last flush and the others
 * theirs; the page of a real job renders in headless Chromium with the known numbers.
 */
@Timeout(value = 300)
class ReportIT
{
    private static final String PROG = "org.shmpi.launcher.progs.ReportTraffic";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path reportDir(final String name) throws IOException
    {
        final Path dir = Path.of("target", "reports", name).toAbsolutePath();
        ShmrunHarness.deleteTree(dir);
        Files.createDirectories(dir);
        return dir;
    }

    private static JsonNode runTraffic(final String name, final int np, final Path dir, final String... extra)
        throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("--report", dir.toString(), "-np", Integer.toString(np)));
        args.addAll(List.of(extra));
        args.addAll(List.of("-cp", ShmrunHarness.TEST_CLASSES.toString(), PROG, dir.toString()));
        final ShmrunHarness.Result r = ShmrunHarness.run(name, 240, args.toArray(new String[0]));
        assertEquals(0, r.exit, r::toString);
        assertTrue(r.out.contains("REPORT-TRAFFIC OK " + np), r::toString);
        assertTrue(r.err.contains("shmrun: report of " + np + " rank"), r::toString);
        assertTrue(r.err.contains("MPI share of time per rank"), r::toString);
        assertTrue(ShmrunHarness.jobDirectoriesOf(r.pid).isEmpty(), "nothing left in /dev/shm");
        return JSON.readTree(dir.resolve("report.json").toFile());
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {1, 2, 4, 8})
    void everyKnownNumberIsExact(final int np) throws Exception
    {
        final Path dir = reportDir("exact-" + np);
        final JsonNode rep = runTraffic("report-exact-" + np, np, dir);

        final JsonNode job = rep.get("job");
        assertEquals("shmpi-report/1", rep.get("schema").asText());
        assertEquals(np, job.get("ranks").asInt());
        assertEquals(np, job.get("recordedRanks").asInt());
        assertEquals(0, job.get("exitCode").asInt());
        assertTrue(job.get("complete").asBoolean());
        for (final JsonNode rank : rep.get("ranks"))
        {
            assertTrue(rank.get("recorded").asBoolean() && rank.get("finalized").asBoolean(), rank::toString);
            assertTrue(rank.get("wallNs").asLong() > 0 && rank.get("mpiNs").asLong() > 0, rank::toString);
            final double share = rank.get("mpiShare").asDouble();
            assertTrue(share > 0 && share <= 1, rank::toString);
        }

        // Point-to-point: rank r sends r + 1 messages of (q + 1) * 100 bytes to each other rank q.
        final JsonNode p2p = rep.get("matrix").get("p2p");
        long msgs = 0;
        long bytes = 0;
        final long[] sizes = new long[SizeBuckets.COUNT];
        for (int r = 0; r < np; r++)
        {
            for (int q = 0; q < np; q++)
            {
                final long m = r == q ? 0 : r + 1;
                final long b = r == q ? 0 : (r + 1L) * (q + 1) * 100;
                assertEquals(m, p2p.get("messages").get(r).get(q).asLong(), "p2p messages " + r + "->" + q);
                assertEquals(b, p2p.get("bytes").get(r).get(q).asLong(), "p2p bytes " + r + "->" + q);
                msgs += m;
                bytes += b;
                if (r != q)
                {
                    sizes[SizeBuckets.of((q + 1) * 100L)] += r + 1;
                }
            }
        }
        assertEquals(msgs, p2p.get("totalMessages").asLong());
        assertEquals(bytes, p2p.get("totalBytes").asLong());

        // Collectives by their definition: 5 allReduce of 64 B to every other member, 3 bcast of 1,000 B
        // from 0, a gather of 12 B to the last rank, a scan of 8 B to every higher rank.
        final JsonNode coll = rep.get("matrix").get("collectives");
        for (int r = 0; r < np; r++)
        {
            for (int q = 0; q < np; q++)
            {
                final long m = r == q ? 0 : 5 + (r == 0 ? 3 : 0) + (q == np - 1 ? 1 : 0) + (q > r ? 1 : 0);
                final long b = r == q ? 0 : 5 * 64 + (r == 0 ? 3 * 1000 : 0) + (q == np - 1 ? 12 : 0) +
                    (q > r ? 8 : 0);
                assertEquals(m, coll.get("messages").get(r).get(q).asLong(), "collective messages " + r + "->" + q);
                assertEquals(b, coll.get("bytes").get(r).get(q).asLong(), "collective bytes " + r + "->" + q);
            }
        }

        // Calls: counts and bytes summed over the ranks.
        final Function<String, JsonNode> call = name -> find(rep.get("calls"), "call", name);
        final long sends = msgs;
        assertCall(call, "send", sends, bytes);
        assertCall(call, "recv", sends, bytes);
        assertCall(call, "allReduce", 5L * np, 5L * 64 * np);
        assertCall(call, "bcast", 3L * np, 3000L * np);
        assertCall(call, "gather", np, 12L * np);
        assertCall(call, "scan", np, 8L * np);
        assertCall(call, "barrier", 2L * np, 0);
        assertCall(call, "File.open", np, 0);
        assertCall(call, "File.writeAt", 4L * np, 4L * 4096 * np);
        assertCall(call, "File.writeAtAll", np, 10_000L * np);
        assertCall(call, "File.readAt", 4L * np, 4L * 4096 * np);
        assertCall(call, "File.close", np, 0);
        assertCall(call, "Win.create", np, 0);
        assertCall(call, "Win.fence", 2L * np, 0);
        assertCall(call, "Win.lock", np, 0);
        assertCall(call, "Win.unlock", np, 0);
        assertCall(call, "Win.get", np, 8L * np);
        assertCall(call, "Win.free", np, 0);
        assertCall(call, "Win.put", (long) np * (np - 1), 16L * np * (np - 1));
        for (final String none : List.of("dup", "free", "allGather", "iSend", "wait"))
        {
            assertEquals(null, call.apply(none), none + ": the library's own calls are not the program's");
        }
        for (final JsonNode c : rep.get("calls"))
        {
            assertTrue(c.get("timeNs").asLong() >= 0 && c.get("maxNs").asLong() >= 0, c::toString);
            assertEquals(c.get("count").asLong(), sum(c.get("perRank"), "count"), c::toString);
        }

        // Message sizes: the send histogram, and one bucket for the 4 KiB and 10,000 B file accesses.
        final JsonNode sendSizes = find(rep.get("sizes").get("calls"), "call", "send");
        if (np > 1)
        {
            for (int b = 0; b < SizeBuckets.COUNT; b++)
            {
                assertEquals(sizes[b], sendSizes.get("counts").get(b).asLong(), "send sizes, bucket " + b);
            }
        }
        final JsonNode allReduceSizes = find(rep.get("sizes").get("calls"), "call", "allReduce");
        assertEquals(5L * np, allReduceSizes.get("counts").get(SizeBuckets.of(64)).asLong());

        // Collectives: counts, and an algorithm for every call.
        final JsonNode ar = find(rep.get("collectives"), "call", "allReduce");
        assertEquals(5L * np, ar.get("count").asLong());
        long algs = 0;
        for (final JsonNode a : ar.get("algorithms"))
        {
            algs += a.asLong();
        }
        assertEquals(5L * np, algs, ar::toString);

        // MPI-IO: the one file.
        assertEquals(1, rep.get("io").size());
        final JsonNode io = rep.get("io").get(0);
        assertEquals(dir.resolve("report.dat").toString(), io.get("file").asText());
        assertEquals((4L * 4096 + 10_000) * np, io.get("bytesWritten").asLong());
        assertEquals(4L * 4096 * np, io.get("bytesRead").asLong());
        assertEquals(4L * np, io.get("ops").get("individual write").asLong());
        assertEquals(np, io.get("ops").get("collective write").asLong());
        assertEquals(4L * np, io.get("ops").get("individual read").asLong());
        assertEquals(0, io.get("ops").get("collective read").asLong());
        assertEquals(9L * np, io.get("sizes").get(SizeBuckets.of(4096)).asLong());
        assertEquals(np, io.get("perRank").size());

        // RMA: the one window.
        assertEquals(1, rep.get("rma").size());
        final JsonNode win = rep.get("rma").get(0);
        assertEquals((long) np * (np - 1), win.get("ops").get("put").asLong());
        assertEquals(np, win.get("ops").get("get").asLong());
        assertEquals(16L * np * (np - 1) + 8L * np, win.get("bytes").asLong());
        assertEquals(2L * np, win.get("epochs").get("fence").asLong());
        assertEquals(np, win.get("epochs").get("lock").asLong());
        assertEquals(np, win.get("lockWaits").asLong());

        // The region of pControl: its collectives only.
        final JsonNode solve = find(rep.get("regions"), "name", "solve");
        assertEquals(5L * np, find(solve.get("calls"), "call", "allReduce").get("count").asLong());
        assertEquals(3L * np, find(solve.get("calls"), "call", "bcast").get("count").asLong());
        assertEquals(2L * np, find(solve.get("calls"), "call", "barrier").get("count").asLong());
        assertEquals(null, find(solve.get("calls"), "call", "send"));
        assertEquals(np, solve.get("ranks").size());

        assertEquals(np, rep.get("waiting").size());
        for (final String csv : List.of("ranks.csv", "calls.csv", "matrix-p2p.csv", "matrix-collectives.csv",
            "sizes.csv", "collectives.csv", "waiting.csv", "io.csv", "rma.csv", "regions.csv"))
        {
            assertTrue(Files.readString(dir.resolve(csv)).lines().count() >= 1, csv);
        }
        assertTrue(Files.readString(dir.resolve("index.html")).contains("Communication matrix"));
    }

    @Test
    void aKilledRankLeavesWhatItRecordedUpToItsLastFlush() throws Exception
    {
        final Path dir = reportDir("killed");
        final ShmrunHarness.Result r = ShmrunHarness.run("report-killed", 120, "--report", dir.toString(),
            "-Dshmpi.report.flush.ms=100", "-np", "3", "-cp", ShmrunHarness.TEST_CLASSES.toString(), PROG,
            dir.toString(), "kill");
        assertNotEquals(0, r.exit, r::toString);
        assertTrue(r.out.contains("KILL "), r::toString);
        assertTrue(r.err.contains("shmrun: report of 3 rank"), r::toString);
        assertTrue(ShmrunHarness.jobDirectoriesOf(r.pid).isEmpty(), "nothing left in /dev/shm");
        final JsonNode rep = JSON.readTree(dir.resolve("report.json").toFile());
        assertFalse(rep.get("job").get("complete").asBoolean());
        assertEquals(3, rep.get("job").get("recordedRanks").asInt());
        final JsonNode killed = find(rep.get("ranks"), "rank", "1");
        assertTrue(killed.get("recorded").asBoolean());
        assertFalse(killed.get("finalized").asBoolean());
        // Its 7 sends of 64 B, flushed during its 1.5 s sleep before SIGKILL.
        assertEquals(7, rep.get("matrix").get("p2p").get("messages").get(1).get(0).asLong());
        assertEquals(7 * 64, rep.get("matrix").get("p2p").get("bytes").get(1).get(0).asLong());
        final JsonNode recv = find(rep.get("calls"), "call", "recv");
        assertEquals(7, recv.get("count").asLong(), "rank 0's receives that completed");
        for (final JsonNode rank : rep.get("ranks"))
        {
            assertTrue(rank.get("recorded").asBoolean(), rank::toString);
            assertFalse(rank.get("finalized").asBoolean(), rank::toString);
        }
    }

    @Test
    void thePageOfARealJobRendersInChromiumWithItsNumbers() throws Exception
    {
        final Path dir = reportDir("browser");
        runTraffic("report-browser", 4, dir);
        final BrowserCheck.Rendering page = BrowserCheck.render(dir.resolve("index.html"), dir.resolve("browser"))
            .assumeRendered();
        assertTrue(page.errors().isEmpty(), () -> page.errors() + "\n" + page.output());
        final String dom = page.dom();
        assertTrue(dom.matches("(?s).*<html[^>]*data-ready=\"true\".*"), "the page's script ran");
        // Rank 2 sends 3 messages of 400 B to rank 3.
        final String cell = cell(dom, "matrix-p2p", 2, 3);
        assertTrue(cell.contains("data-bytes=\"1200\"") && cell.contains("data-messages=\"3\""), cell);
        final String collCell = cell(dom, "matrix-collectives", 0, 1);
        assertTrue(collCell.contains("data-bytes=\"3328\"") && collCell.contains("data-messages=\"9\""), collCell);
        assertTrue(dom.contains("data-call=\"send\" data-count=\"30\">30</td>"), "send calls in the table");
        assertTrue(dom.contains("data-call=\"allReduce\" data-count=\"20\">20</td>"), "allReduce calls");
        for (int r = 0; r < 4; r++)
        {
            assertTrue(dom.contains("<td class=\"num\" data-rank=\"" + r + "\" data-call=\""), "rank " + r +
                " in the table of calls per rank");
        }
        assertTrue(Files.size(page.screenshot()) > 10_000, "a screenshot");
    }

    private static String cell(final String dom, final String figure, final int from, final int to)
    {
        final int at = dom.indexOf("<figure id=\"" + figure + "\"");
        assertTrue(at >= 0, figure);
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("<rect[^>]*data-from=\"" + from +
            "\" data-to=\"" + to + "\"[^>]*>").matcher(dom.substring(at, dom.indexOf("</figure>", at)));
        assertTrue(m.find(), figure + " " + from + "->" + to);
        return m.group();
    }

    private static void assertCall(final Function<String, JsonNode> call, final String name, final long count,
        final long bytes)
    {
        final JsonNode c = call.apply(name);
        if (count == 0)
        {
            assertEquals(null, c, name + ": never called");
            return;
        }
        assertTrue(c != null, "no call " + name);
        assertEquals(count, c.get("count").asLong(), name + " count");
        assertEquals(bytes, c.get("bytes").asLong(), name + " bytes");
    }

    private static JsonNode find(final JsonNode array, final String field, final String value)
    {
        for (final JsonNode n : array)
        {
            if (value.equals(n.get(field).asText()))
            {
                return n;
            }
        }
        return null;
    }

    private static long sum(final JsonNode array, final String field)
    {
        long s = 0;
        for (final JsonNode n : array)
        {
            s += n.get(field).asLong();
        }
        return s;
    }
}
