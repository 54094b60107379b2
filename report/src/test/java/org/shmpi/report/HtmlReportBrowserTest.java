package org.shmpi.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The report of {@link SyntheticJob} as Chromium shows it: no errors, the heat-map cells and table
 * cells with the known numbers in the DOM after scripts ran, and a screenshot
 * ({@code report/target/browser/report.png}). Skipped with the script's SKIP line where Chromium
 * cannot be had.
 */
@Timeout(value = 360)
class HtmlReportBrowserTest
{
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final Path OUT = Path.of("target", "browser").toAbsolutePath();

    @Test
    void theReportRendersWithItsNumbers() throws Exception
    {
        final Path dir = OUT.resolve("job");
        clean(dir);
        SyntheticJob.write(dir, -1);
        JobReport.build(dir, SyntheticJob.info());
        final BrowserCheck.Rendering page = BrowserCheck.render(dir.resolve("index.html"), OUT.resolve("render"))
            .assumeRendered();
        final String dom = page.dom();
        assertEquals(List.of(), page.errors(), page::output);
        assertTrue(dom.matches("(?s).*<html[^>]*data-ready=\"true\".*"), "the page's script ran");

        // Every p2p cell of the ring, and an empty one.
        for (int s = 0; s < SyntheticJob.RANKS; s++)
        {
            final int t = (s + 1) % SyntheticJob.RANKS;
            final String cell = cell(dom, "matrix-p2p", s, t);
            assertTrue(cell.contains("data-bytes=\"" + 8_000_000L * (s + 1) + "\""), cell);
            assertTrue(cell.contains("data-messages=\"" + 1000 * (s + 1) + "\""), cell);
        }
        assertTrue(cell(dom, "matrix-p2p", 0, 2).contains("data-bytes=\"0\""));
        assertTrue(cell(dom, "matrix-collectives", 2, 1).contains("data-bytes=\"32000\""));
        assertTrue(cell(dom, "matrix-collectives", 2, 1).contains("data-messages=\"500\""));
        assertTrue(dom.contains("<title>rank 3 \u2192 0: 4,000 messages, 30.5 MiB</title>"), "the tooltip");
        assertTrue(dom.contains("data-total-messages=\"10000\" data-total-bytes=\"80000000\""));

        // The tables.
        assertTrue(dom.contains("data-call=\"recv\" data-count=\"10000\">10,000</td>"));
        assertTrue(dom.contains("data-call=\"allReduce\" data-count=\"2000\">2,000</td>"));
        assertTrue(dom.contains("data-call=\"barrier\" data-count=\"10\">10</td>"));
        assertTrue(dom.contains("data-algorithm=\"FLAT\" data-count=\"1600\""));
        assertTrue(dom.contains("data-blocked-ns=\"250000000\">250 ms</td>"));
        assertTrue(dom.contains("data-bytes-written=\"4194304\">4.0 MiB</td>"));
        assertTrue(dom.contains("data-region=\"solve\" data-wall-ns=\"500000000\" data-mpi-ns=\"1000000\""));
        assertTrue(dom.contains("data-bucket=\"4\" data-count=\"10000\""), "the send histogram");

        final byte[] png = Files.readAllBytes(page.screenshot());
        assertTrue(png.length > 10_000, "a screenshot of " + png.length + " bytes");
        assertArrayEquals(PNG, Arrays.copyOf(png, PNG.length));
        Files.copy(page.screenshot(), OUT.resolve("report.png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The check itself: a page that throws is reported with its error. */
    @Test
    void anErrorOfThePageIsSeen() throws Exception
    {
        final Path dir = OUT.resolve("broken");
        clean(dir);
        Files.createDirectories(dir);
        final String head = "<!DOCTYPE html><html data-errors=\"0\"><head><meta charset=\"utf-8\"><script>"
            + "window.addEventListener('error',function(e){document.documentElement.setAttribute('data-errors','1');"
            + "document.documentElement.setAttribute('data-last-error',e.message);});</script></head>";
        Files.writeString(dir.resolve("broken.html"), head + "<body><p>x</p><script>undefinedFunction();</script>"
            + "</body></html>", StandardCharsets.UTF_8);
        final BrowserCheck.Rendering page =
            BrowserCheck.render(dir.resolve("broken.html"), OUT.resolve("broken-render")).assumeRendered();
        assertFalse(page.errors().isEmpty(), page::output);
        assertTrue(page.errors().stream().anyMatch(e -> e.contains("undefinedFunction")), page.errors()::toString);
    }

    /** The {@code <rect>} of cell (from, to) inside the figure {@code figure}. */
    private static String cell(final String dom, final String figure, final int from, final int to)
    {
        final int at = dom.indexOf("<figure id=\"" + figure + "\"");
        assertTrue(at >= 0, figure);
        final int end = dom.indexOf("</figure>", at);
        final Matcher m = Pattern.compile("<rect[^>]*data-from=\"" + from + "\" data-to=\"" + to + "\"[^>]*>")
            .matcher(dom.substring(at, end));
        assertTrue(m.find(), figure + " " + from + "->" + to);
        return m.group();
    }

    private static void clean(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (var files = Files.walk(dir))
            {
                for (final Path p : files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList())
                {
                    Files.delete(p);
                }
            }
        }
    }
}
