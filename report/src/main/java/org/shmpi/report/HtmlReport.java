package org.shmpi.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report as one self-contained HTML page: inline CSS, inline SVG charts and a small inline
 * script that counts the page's own errors ({@code data-errors} on the root element); no URL of
 * any kind. Every number a test may want to find carries it in a {@code data-} attribute.
 */
public final class HtmlReport
{
    /** Widest a heat map's grid is drawn, pixels. */
    private static final int GRID_PX = 560;
    /** Up to this many ranks, every heat-map cell shows its value. */
    private static final int VALUES_UP_TO = 16;
    /** Up to this many ranks, every rank has its own labelled bar. */
    private static final int LABELLED_BARS_UP_TO = 64;
    /** Calls shown per rank in the per-rank table. */
    private static final int CALLS_PER_RANK = 5;
    private static final int SITES_SHOWN = 50;
    /** The palette's darkest colour (the most bytes): a dark blue; zero is white. */
    private static final int[] DARK = {8, 48, 107};
    /** The lightest colour a non-zero cell gets, as a fraction of the way to {@link #DARK}. */
    private static final double FLOOR = 0.12;

    private static final String STYLE = String.join("\n",
        "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1240px;",
        "padding:16px 24px;color:#1a1a1a;background:#fff}",
        "h1{font-size:1.5em;margin:0.2em 0}h2{border-bottom:2px solid #08306b;padding-bottom:2px;margin-top:1.6em}",
        "h3{font-size:1.05em;margin:1em 0 0.3em}",
        "table{border-collapse:collapse;margin:0.4em 0 1em;font-size:0.9em}",
        "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}",
        "th{background:#eef2f8}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}",
        "td.num{white-space:nowrap}.wide{overflow-x:auto;max-width:100%}",
        "nav a{margin-right:1em}.note{color:#555}.warn{color:#8a2b00}.empty{color:#555;font-style:italic}",
        "dl.job{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:0.5em 0}",
        "dl.job dt{font-weight:600}dl.job dd{margin:0}",
        ".figs{display:flex;flex-wrap:wrap;gap:18px}figure{margin:0}figcaption{font-size:0.9em;font-weight:600}",
        "svg text{font-family:inherit;font-size:11px;fill:#1a1a1a}svg .axis{stroke:#333;stroke-width:1}",
        "svg .grid{stroke:#ddd;stroke-width:1}svg text.title{font-size:12px;font-weight:600}",
        "code{font-size:0.95em}");

    /** Notes errors of the page itself where a test (or a curious reader) can see them. */
    private static final String SCRIPT = String.join("\n",
        "(function () {",
        "  var root = document.documentElement, errors = 0;",
        "  function note(message) {",
        "    errors++;",
        "    root.setAttribute('data-errors', String(errors));",
        "    root.setAttribute('data-last-error', String(message));",
        "  }",
        "  window.addEventListener('error', function (e) { note(e.message); });",
        "  var consoleError = console.error;",
        "  console.error = function () {",
        "    note(Array.prototype.join.call(arguments, ' '));",
        "    consoleError.apply(console, arguments);",
        "  };",
        "  document.addEventListener('DOMContentLoaded', function () {",
        "    root.setAttribute('data-errors', String(errors));",
        "    root.setAttribute('data-ready', 'true');",
        "  });",
        "})();");

    private final JobReport r;
    private final StringBuilder h = new StringBuilder(1 << 16);

    private HtmlReport(final JobReport r)
    {
        this.r = r;
    }

    /** The page of {@code report}. */
    public static String of(final JobReport report)
    {
        return new HtmlReport(report).page();
    }

    private String page()
    {
        h.append("<!DOCTYPE html>\n<html lang=\"en\" data-errors=\"0\">\n<head>\n<meta charset=\"utf-8\">\n")
            .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
            .append("<title>shmpi report: ").append(esc(r.info.command())).append("</title>\n")
            .append("<script>\n").append(SCRIPT).append("\n</script>\n")
            .append("<style>\n").append(STYLE).append("\n</style>\n</head>\n<body>\n");
        header();
        time();
        matrices();
        sizes();
        collectives();
        waiting();
        io();
        rma();
        regions();
        others();
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    // ------------------------------------------------------------------------------------------
    // Sections

    private void header()
    {
        h.append("<header>\n<h1>shmpi job report</h1>\n<dl class=\"job\">\n");
        dt("command", "<code>" + esc(r.info.command()) + "</code>");
        final long recorded = r.rankRows.stream().filter(JobReport.RankRow::recorded).count();
        dt("ranks", r.ranks.length + (recorded == r.ranks.length ? "" : " (" + recorded + " recorded)"));
        dt("exit code", r.info.exitCode() == null ? "unknown" : String.valueOf(r.info.exitCode()));
        dt("started", esc(r.started));
        dt("wall time", r.wallNs > 0 ? Units.time(r.wallNs) : "unknown");
        dt("time inside MPI", Units.time(r.totalMpiNs) + " (all ranks)");
        dt("complete", r.complete() ? "yes: every rank finalized"
            : "no: some ranks were recorded up to their last flush only");
        dt("timing", r.sampleEvery == 1 ? "every call timed"
            : "one call in " + r.sampleEvery + " timed, waits that idled timed exactly; counts and bytes exact");
        h.append("</dl>\n");
        for (final String w : r.warnings)
        {
            h.append("<p class=\"warn\" data-warning=\"").append(esc(w)).append("\">warning: ").append(esc(w))
                .append("</p>\n");
        }
        h.append("<nav>");
        for (final String[] s : new String[][] {{"time", "Time"}, {"matrix", "Communication matrix"},
            {"sizes", "Message sizes"}, {"collectives", "Collectives"}, {"waiting", "Waiting"}, {"io", "MPI-IO"},
            {"rma", "RMA"}, {"regions", "Regions"}})
        {
            h.append("<a href=\"#").append(s[0]).append("\">").append(s[1]).append("</a>");
        }
        h.append("</nav>\n</header>\n");
    }

    private void dt(final String name, final String html)
    {
        h.append("<dt>").append(name).append("</dt><dd>").append(html).append("</dd>\n");
    }

    private void time()
    {
        h.append("<section id=\"time\">\n<h2>Time</h2>\n");
        long maxWall = 0;
        for (final JobReport.RankRow x : r.rankRows)
        {
            maxWall = Math.max(maxWall, x.wallNs());
        }
        if (maxWall == 0)
        {
            h.append("<p class=\"empty\">No rank recorded any time.</p>\n");
        }
        else
        {
            h.append("<h3>MPI time and the rest of wall time, per rank</h3>\n");
            final List<Bar> bars = new ArrayList<>();
            for (final JobReport.RankRow x : r.rankRows)
            {
                final String note = !x.recorded() ? "not recorded"
                    : Units.percent(x.share()) + " MPI (" + Units.time(x.mpiNs()) + " of " + Units.time(x.wallNs())
                    + ")" + (x.finalized() ? "" : ", recorded up to its last flush");
                bars.add(new Bar(x.rank(), Math.min(x.mpiNs(), x.wallNs()), x.wallNs(), note));
            }
            barChart(bars, maxWall, "wall time per rank", "time inside MPI", "rest of wall time");
        }
        h.append("<h3>Calls (mpiP style, all ranks)</h3>\n");
        if (r.calls.isEmpty())
        {
            h.append("<p class=\"empty\">No MPI calls were recorded.</p>\n");
        }
        else
        {
            h.append("<table id=\"calls\">\n<tr><th>call</th><th>family</th><th class=\"num\">count</th>")
                .append("<th class=\"num\">mean time</th><th class=\"num\">max time</th>")
                .append("<th class=\"num\">total time</th><th class=\"num\">% of MPI time</th>")
                .append("<th class=\"num\">bytes</th></tr>\n");
            for (final JobReport.CallRow c : r.calls)
            {
                final String call = esc(c.kind().callName());
                h.append("<tr data-call=\"").append(call).append("\"><td>").append(call).append("</td><td>")
                    .append(esc(c.kind().family().label())).append("</td>");
                h.append("<td class=\"num\" data-call=\"").append(call).append("\" data-count=\"").append(c.count())
                    .append("\">").append(Units.count(c.count())).append("</td>");
                num(Units.time(c.meanNs()), "mean-ns", c.meanNs());
                num(Units.time(c.maxNs()), "max-ns", c.maxNs());
                num(Units.time(c.timeNs()), "time-ns", c.timeNs());
                num(r.totalMpiNs == 0 ? "-" : Units.percent((double) c.timeNs() / r.totalMpiNs), null, 0);
                num(Units.bytes(c.bytes()), "bytes", c.bytes());
                h.append("</tr>\n");
            }
            h.append("</table>\n");
        }
        callsPerRank();
        h.append("<h3>Ranks</h3>\n<table id=\"ranks\">\n<tr><th class=\"num\">rank</th><th>host</th>")
            .append("<th class=\"num\">pid</th><th class=\"num\">wall time</th><th class=\"num\">MPI time</th>")
            .append("<th class=\"num\">MPI share</th><th>state</th></tr>\n");
        for (final JobReport.RankRow x : r.rankRows)
        {
            h.append("<tr data-rank=\"").append(x.rank()).append("\"><td class=\"num\">").append(x.rank())
                .append("</td><td>").append(esc(x.host())).append("</td>");
            num(x.recorded() ? String.valueOf(x.pid()) : "-", null, 0);
            num(Units.time(x.wallNs()), "wall-ns", x.wallNs());
            num(Units.time(x.mpiNs()), "mpi-ns", x.mpiNs());
            num(Units.percent(x.share()), null, 0);
            h.append("<td>").append(!x.recorded() ? "not recorded (ended before its first flush)"
                : x.finalized() ? "finalized" : "recorded up to its last flush").append("</td></tr>\n");
        }
        h.append("</table>\n");
        if (!r.sites.isEmpty())
        {
            h.append("<h3>Call sites</h3>\n<table id=\"sites\">\n<tr><th>call</th><th>site</th>")
                .append("<th class=\"num\">rank</th><th class=\"num\">count</th><th class=\"num\">time</th>")
                .append("<th class=\"num\">bytes</th></tr>\n");
            for (final JobReport.SiteRow s : r.sites.subList(0, Math.min(SITES_SHOWN, r.sites.size())))
            {
                h.append("<tr><td>").append(esc(s.call())).append("</td><td><code>").append(esc(s.site()))
                    .append("</code></td><td class=\"num\">").append(s.rank()).append("</td>");
                num(Units.count(s.count()), "count", s.count());
                num(Units.time(s.timeNs()), "time-ns", s.timeNs());
                num(Units.bytes(s.bytes()), "bytes", s.bytes());
                h.append("</tr>\n");
            }
            h.append("</table>\n");
            if (r.sites.size() > SITES_SHOWN)
            {
                h.append("<p class=\"note\">The ").append(SITES_SHOWN).append(" sites of most time of ")
                    .append(r.sites.size()).append("; report.json has every one.</p>\n");
            }
        }
        h.append("</section>\n");
    }

    /** mpiP's table per rank: each rank's calls of most time (calls.csv and report.json have every one). */
    private void callsPerRank()
    {
        final java.util.TreeMap<Integer, List<Object[]>> byRank = new java.util.TreeMap<>();
        for (final JobReport.CallRow c : r.calls)
        {
            for (final JobReport.PerRank p : c.perRank())
            {
                byRank.computeIfAbsent(p.rank(), k -> new ArrayList<>()).add(new Object[] {c.kind(), p});
            }
        }
        if (byRank.isEmpty())
        {
            return;
        }
        h.append("<h3>Calls per rank (the ").append(CALLS_PER_RANK).append(" of most time of each rank)</h3>\n")
            .append("<table id=\"calls-per-rank\">\n<tr><th class=\"num\">rank</th><th>call</th>")
            .append("<th class=\"num\">count</th><th class=\"num\">mean time</th><th class=\"num\">max time</th>")
            .append("<th class=\"num\">total time</th><th class=\"num\">% of the rank's MPI time</th>")
            .append("<th class=\"num\">bytes</th></tr>\n");
        for (final Map.Entry<Integer, List<Object[]>> e : byRank.entrySet())
        {
            final List<Object[]> rows = e.getValue();
            rows.sort((a, b) -> Long.compare(((JobReport.PerRank) b[1]).timeNs(), ((JobReport.PerRank) a[1]).timeNs()));
            long rankMpi = 0;
            for (final Object[] x : rows)
            {
                rankMpi += ((JobReport.PerRank) x[1]).timeNs();
            }
            for (final Object[] x : rows.subList(0, Math.min(CALLS_PER_RANK, rows.size())))
            {
                final CallKind k = (CallKind) x[0];
                final JobReport.PerRank p = (JobReport.PerRank) x[1];
                final String call = esc(k.callName());
                final long mean = p.count() == 0 ? 0 : Math.round((double) p.timeNs() / p.count());
                h.append("<tr data-rank=\"").append(p.rank()).append("\" data-call=\"").append(call)
                    .append("\"><td class=\"num\">").append(p.rank()).append("</td><td>").append(call).append("</td>");
                h.append("<td class=\"num\" data-rank=\"").append(p.rank()).append("\" data-call=\"").append(call)
                    .append("\" data-count=\"").append(p.count()).append("\">").append(Units.count(p.count()))
                    .append("</td>");
                num(Units.time(mean), "mean-ns", mean);
                num(Units.time(p.maxNs()), "max-ns", p.maxNs());
                num(Units.time(p.timeNs()), "time-ns", p.timeNs());
                num(rankMpi == 0 ? "-" : Units.percent((double) p.timeNs() / rankMpi), null, 0);
                num(Units.bytes(p.bytes()), "bytes", p.bytes());
                h.append("</tr>\n");
            }
        }
        h.append("</table>\n");
    }

    private void matrices()
    {
        h.append("<section id=\"matrix\">\n<h2>Communication matrix</h2>\n")
            .append("<p class=\"note\">Bytes each rank sent (row) to each rank (column); colour on a log scale, ")
            .append("white for nothing sent. Collectives count what each call delivered by its definition.</p>\n")
            .append("<div class=\"figs\">\n");
        heatMap("p2p", "point-to-point", r.p2p);
        heatMap("collectives", "collectives", r.coll);
        h.append("</div>\n</section>\n");
    }

    private void heatMap(final String id, final String what, final JobReport.Matrix m)
    {
        h.append("<figure id=\"matrix-").append(id).append("\">\n<figcaption>").append(what).append("</figcaption>\n");
        if (m.totalMessages() == 0 && m.totalBytes() == 0)
        {
            h.append("<p class=\"empty\">No ").append(what).append(" messages were recorded.</p>\n</figure>\n");
            return;
        }
        final int n = m.bytes().length;
        final int cell = Math.max(3, Math.min(48, GRID_PX / Math.max(1, n)));
        final int grid = cell * n;
        final int left = 74;
        final int top = 46;
        final int legendH = 64;
        final int width = left + grid + 16;
        final int height = top + grid + legendH;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (final long[] row : m.bytes())
        {
            for (final long b : row)
            {
                if (b > 0)
                {
                    min = Math.min(min, b);
                    max = Math.max(max, b);
                }
            }
        }
        svgOpen(width, height, "heat map of " + what + " bytes by sender and receiver rank");
        // Axis titles: receivers along the top, senders down the left.
        h.append("<text class=\"title\" x=\"").append(left + grid / 2).append("\" y=\"14\" text-anchor=\"middle\">")
            .append("receiver rank</text>\n");
        h.append("<text class=\"title\" transform=\"translate(14,").append(top + grid / 2)
            .append(") rotate(-90)\" text-anchor=\"middle\">sender rank</text>\n");
        final int every = labelEvery(n, cell);
        for (int i = 0; i < n; i += every)
        {
            h.append("<text x=\"").append(left + i * cell + cell / 2).append("\" y=\"").append(top - 6)
                .append("\" text-anchor=\"middle\">").append(i).append("</text>");
            h.append("<text x=\"").append(left - 6).append("\" y=\"").append(top + i * cell + cell / 2 + 4)
                .append("\" text-anchor=\"end\">").append(i).append("</text>\n");
        }
        final boolean values = n <= VALUES_UP_TO;
        for (int s = 0; s < n; s++)
        {
            for (int t = 0; t < n; t++)
            {
                final long b = m.bytes()[s][t];
                final long k = m.messages()[s][t];
                final double shade = shade(b, min, max);
                h.append("<g><rect x=\"").append(left + t * cell).append("\" y=\"").append(top + s * cell)
                    .append("\" width=\"").append(cell).append("\" height=\"").append(cell).append("\" fill=\"")
                    .append(colour(shade)).append("\" stroke=\"#d0d0d0\" stroke-width=\"0.5\" data-from=\"")
                    .append(s).append("\" data-to=\"").append(t).append("\" data-bytes=\"").append(b)
                    .append("\" data-messages=\"").append(k).append("\"><title>rank ").append(s).append(" \u2192 ")
                    .append(t).append(": ").append(Units.count(k)).append(k == 1 ? " message, " : " messages, ")
                    .append(Units.bytes(b)).append("</title></rect>");
                if (values && b > 0)
                {
                    h.append("<text x=\"").append(left + t * cell + cell / 2).append("\" y=\"")
                        .append(top + s * cell + cell / 2 + 3).append("\" text-anchor=\"middle\" style=\"font-size:")
                        .append(n <= 8 ? 10 : 8).append("px;fill:").append(shade > 0.55 ? "#fff" : "#1a1a1a")
                        .append("\" pointer-events=\"none\">").append(Units.bytes(b)).append("</text>");
                }
                h.append("</g>\n");
            }
        }
        // Legend: the palette from the fewest to the most bytes, log scale, and white for none.
        final int ly = top + grid + 22;
        final int lw = Math.max(160, Math.min(grid, 300));
        final String gradient = "scale-" + id;
        h.append("<defs><linearGradient id=\"").append(gradient).append("\">");
        for (int i = 0; i <= 4; i++)
        {
            final double f = i / 4.0;
            h.append("<stop offset=\"").append(i * 25).append("%\" stop-color=\"")
                .append(colour(FLOOR + (1 - FLOOR) * f)).append("\"/>");
        }
        h.append("</linearGradient></defs>\n");
        h.append("<rect x=\"").append(left).append("\" y=\"").append(ly).append("\" width=\"14\" height=\"12\" ")
            .append("fill=\"#fff\" stroke=\"#999\"/><text x=\"").append(left + 18).append("\" y=\"").append(ly + 10)
            .append("\">none</text>\n");
        final int gx = left + 60;
        final int gw = Math.max(100, lw - 60);
        h.append("<rect x=\"").append(gx).append("\" y=\"").append(ly).append("\" width=\"").append(gw)
            .append("\" height=\"12\" fill=\"url(#").append(gradient).append(")\" stroke=\"#999\"/>\n");
        h.append("<text x=\"").append(gx).append("\" y=\"").append(ly + 26).append("\">").append(Units.bytes(min))
            .append("</text><text x=\"").append(gx + gw).append("\" y=\"").append(ly + 26)
            .append("\" text-anchor=\"end\">").append(Units.bytes(max)).append("</text>\n");
        h.append("<text x=\"").append(gx + gw / 2).append("\" y=\"").append(ly + 38)
            .append("\" text-anchor=\"middle\">bytes sent per pair (log scale)</text>\n");
        h.append("</svg>\n");
        h.append("<p class=\"note\" data-total-messages=\"").append(m.totalMessages()).append("\" data-total-bytes=\"")
            .append(m.totalBytes()).append("\">total: ").append(Units.count(m.totalMessages())).append(" messages, ")
            .append(Units.bytes(m.totalBytes())).append("</p>\n</figure>\n");
    }

    private void sizes()
    {
        h.append("<section id=\"sizes\">\n<h2>Message sizes</h2>\n");
        if (r.sizes.isEmpty())
        {
            h.append("<p class=\"empty\">No message sizes were recorded.</p>\n</section>\n");
            return;
        }
        h.append("<p class=\"note\">Calls per size bucket, summed over ranks; the count axis is logarithmic.</p>\n")
            .append("<div class=\"figs\">\n");
        for (final Map.Entry<CallKind, long[]> e : r.sizes.entrySet())
        {
            histogram(e.getKey().callName(), e.getValue(), "calls");
        }
        h.append("</div>\n</section>\n");
    }

    private void collectives()
    {
        h.append("<section id=\"collectives\">\n<h2>Collectives</h2>\n");
        if (r.collectives.isEmpty())
        {
            h.append("<p class=\"empty\">No collective calls were recorded.</p>\n</section>\n");
            return;
        }
        h.append("<table id=\"collectives-table\">\n<tr><th>call</th><th class=\"num\">count</th>")
            .append("<th class=\"num\">total time</th><th class=\"num\">mean time</th><th class=\"num\">bytes</th>")
            .append("<th>algorithms (calls)</th></tr>\n");
        for (final JobReport.CollectiveRow c : r.collectives)
        {
            final String call = esc(c.kind().callName());
            h.append("<tr data-call=\"").append(call).append("\"><td>").append(call).append("</td>");
            h.append("<td class=\"num\" data-call=\"").append(call).append("\" data-count=\"").append(c.count())
                .append("\">").append(Units.count(c.count())).append("</td>");
            num(Units.time(c.timeNs()), "time-ns", c.timeNs());
            num(Units.time(c.count() == 0 ? 0 : Math.round((double) c.timeNs() / c.count())), null, 0);
            num(Units.bytes(c.bytes()), "bytes", c.bytes());
            h.append("<td>");
            boolean first = true;
            for (final Algorithm a : Algorithm.values())
            {
                final long k = c.algorithms()[a.ordinal()];
                if (k > 0)
                {
                    h.append(first ? "" : ", ").append("<span data-algorithm=\"").append(a.name())
                        .append("\" data-count=\"").append(k).append("\">").append(esc(a.label())).append(": ")
                        .append(Units.count(k)).append("</span>");
                    first = false;
                }
            }
            h.append(first ? "not recorded" : "").append("</td></tr>\n");
        }
        h.append("</table>\n</section>\n");
    }

    private void waiting()
    {
        h.append("<section id=\"waiting\">\n<h2>Waiting</h2>\n");
        long maxBlocked = 0;
        boolean any = false;
        for (final RankRecord x : r.ranks)
        {
            if (x != null)
            {
                any = true;
                maxBlocked = Math.max(maxBlocked, JobReport.sum(x.blockedNs) + x.blockedOtherNs);
            }
        }
        if (!any)
        {
            h.append("<p class=\"empty\">No rank recorded any waiting.</p>\n</section>\n");
            return;
        }
        h.append("<p class=\"note\">Time blocked in waits that idled, measured with the clock, and on whom. ")
            .append("Idle steps: spins, yields and sleeps on the wake word; wake-ups this rank sent.</p>\n");
        if (maxBlocked > 0)
        {
            final List<Bar> bars = new ArrayList<>();
            for (final RankRecord x : r.ranks)
            {
                if (x != null)
                {
                    final long b = JobReport.sum(x.blockedNs) + x.blockedOtherNs;
                    bars.add(new Bar(x.rank, b, b, Units.time(b)));
                }
            }
            barChart(bars, maxBlocked, "blocked time per rank", "blocked", null);
        }
        h.append("<table id=\"waiting-table\">\n<tr><th class=\"num\">rank</th><th class=\"num\">blocked time</th>")
            .append("<th class=\"num\">waits</th><th>on whom (time, waits)</th>")
            .append("<th class=\"num\">no single peer</th><th class=\"num\">spins</th><th class=\"num\">yields</th>")
            .append("<th class=\"num\">sleeps</th><th class=\"num\">wake-ups sent</th></tr>\n");
        for (final RankRecord x : r.ranks)
        {
            if (x == null)
            {
                continue;
            }
            final long blocked = JobReport.sum(x.blockedNs) + x.blockedOtherNs;
            h.append("<tr data-rank=\"").append(x.rank).append("\"><td class=\"num\">").append(x.rank).append("</td>");
            num(Units.time(blocked), "blocked-ns", blocked);
            num(Units.count(JobReport.sum(x.blockedWaits) + x.blockedOtherWaits), null, 0);
            h.append("<td>");
            final List<Integer> peers = new ArrayList<>();
            for (int p = 0; p < x.blockedWaits.length; p++)
            {
                if (x.blockedWaits[p] > 0)
                {
                    peers.add(p);
                }
            }
            peers.sort((a, b) -> Long.compare(x.blockedNs[b], x.blockedNs[a]));
            for (int i = 0; i < peers.size(); i++)
            {
                final int p = peers.get(i);
                h.append(i == 0 ? "" : "; ").append("<span data-peer=\"").append(p).append("\" data-ns=\"")
                    .append(x.blockedNs[p]).append("\">rank ").append(p).append(": ").append(Units.time(x.blockedNs[p]))
                    .append(" (").append(Units.count(x.blockedWaits[p])).append(")</span>");
            }
            h.append(peers.isEmpty() ? "-" : "").append("</td>");
            num(Units.time(x.blockedOtherNs) + " (" + Units.count(x.blockedOtherWaits) + ")", null, 0);
            num(Units.count(x.spins), "spins", x.spins);
            num(Units.count(x.yields), "yields", x.yields);
            num(Units.count(x.sleeps), "sleeps", x.sleeps);
            num(Units.count(x.wakeups), "wakeups", x.wakeups);
            h.append("</tr>\n");
        }
        h.append("</table>\n</section>\n");
    }

    private void io()
    {
        h.append("<section id=\"io\">\n<h2>MPI-IO</h2>\n");
        if (r.files.isEmpty())
        {
            h.append("<p class=\"empty\">No file was opened with MPI-IO.</p>\n</section>\n");
            return;
        }
        h.append("<p class=\"note\">Operations are counts of calls, by kind.</p>\n<div class=\"wide\">")
            .append("<table id=\"io-table\">\n<tr><th>file</th><th class=\"num\">read</th>")
            .append("<th class=\"num\">written</th><th class=\"num\">time</th>");
        for (final String op : RankRecord.FileStats.OPS)
        {
            h.append("<th class=\"num\">").append(esc(op)).append("</th>");
        }
        h.append("<th class=\"num\">ranks</th></tr>\n");
        for (final JobReport.FileRow f : r.files)
        {
            final RankRecord.FileStats t = f.total();
            h.append("<tr data-file=\"").append(esc(f.name())).append("\"><td><code>").append(esc(f.name()))
                .append("</code></td>");
            num(Units.bytes(t.bytesRead), "bytes-read", t.bytesRead);
            num(Units.bytes(t.bytesWritten), "bytes-written", t.bytesWritten);
            num(Units.time(t.timeNs), "time-ns", t.timeNs);
            for (int i = 0; i < t.ops.length; i++)
            {
                num(Units.count(t.ops[i]), "ops", t.ops[i]);
            }
            num(String.valueOf(f.perRank().size()), null, 0);
            h.append("</tr>\n");
        }
        h.append("</table></div>\n<div class=\"figs\">\n");
        for (final JobReport.FileRow f : r.files)
        {
            if (JobReport.sum(f.total().sizes) > 0)
            {
                histogram(f.name(), f.total().sizes, "accesses");
            }
        }
        h.append("</div>\n</section>\n");
    }

    private void rma()
    {
        h.append("<section id=\"rma\">\n<h2>RMA</h2>\n");
        if (r.windows.isEmpty())
        {
            h.append("<p class=\"empty\">No window was used.</p>\n</section>\n");
            return;
        }
        h.append("<p class=\"note\">Operations are counts of calls, epochs counts of epochs, by kind; summed ")
            .append("over ranks.</p>\n<div class=\"wide\"><table id=\"rma-table\">\n<tr><th>window</th>");
        for (final String op : RankRecord.WindowStats.OPS)
        {
            h.append("<th class=\"num\">").append(esc(op)).append("</th>");
        }
        h.append("<th class=\"num\">bytes</th>");
        for (final String e : RankRecord.WindowStats.EPOCHS)
        {
            h.append("<th class=\"num\">").append(esc(e)).append(" epochs</th>");
        }
        h.append("<th class=\"num\">lock waits</th><th class=\"num\">lock wait time</th><th class=\"num\">time</th>")
            .append("</tr>\n");
        for (final JobReport.WindowRow w : r.windows)
        {
            final RankRecord.WindowStats t = w.total();
            h.append("<tr data-window=\"").append(esc(w.name())).append("\"><td><code>").append(esc(w.name()))
                .append("</code></td>");
            for (final long op : t.ops)
            {
                num(Units.count(op), "ops", op);
            }
            num(Units.bytes(t.bytes), "bytes", t.bytes);
            for (final long e : t.epochs)
            {
                num(Units.count(e), "epochs", e);
            }
            num(Units.count(t.lockWaits), "lock-waits", t.lockWaits);
            num(Units.time(t.lockWaitNs), "lock-wait-ns", t.lockWaitNs);
            num(Units.time(t.timeNs), "time-ns", t.timeNs);
            h.append("</tr>\n");
        }
        h.append("</table></div>\n</section>\n");
    }

    private void regions()
    {
        h.append("<section id=\"regions\">\n<h2>Regions</h2>\n");
        if (r.regions.size() <= 1)
        {
            h.append("<p class=\"empty\">No regions other than the whole run (MPI.pControl marks them).</p>\n")
                .append("</section>\n");
            return;
        }
        h.append("<p class=\"note\">Wall time and MPI time of each rank in each region; regions are matched by ")
            .append("name across ranks.</p>\n<table id=\"regions-table\">\n<tr><th class=\"num\">rank</th>");
        for (final JobReport.RegionRow g : r.regions)
        {
            h.append("<th class=\"num\">").append(esc(g.name())).append("<br>wall / MPI</th>");
        }
        h.append("</tr>\n");
        for (final JobReport.RankRow x : r.rankRows)
        {
            h.append("<tr data-rank=\"").append(x.rank()).append("\"><td class=\"num\">").append(x.rank())
                .append("</td>");
            for (final JobReport.RegionRow g : r.regions)
            {
                final long[] t = g.ranks().get(x.rank());
                if (t == null)
                {
                    h.append("<td class=\"num\">-</td>");
                }
                else
                {
                    h.append("<td class=\"num\" data-region=\"").append(esc(g.name())).append("\" data-wall-ns=\"")
                        .append(t[0]).append("\" data-mpi-ns=\"").append(t[1]).append("\">").append(Units.time(t[0]))
                        .append(" / ").append(Units.time(t[1])).append("</td>");
                }
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n</section>\n");
    }

    private void others()
    {
        if (r.others.isEmpty())
        {
            return;
        }
        h.append("<section id=\"others\">\n<h2>Spawned processes</h2>\n<table>\n<tr><th class=\"num\">world</th>")
            .append("<th class=\"num\">rank</th><th class=\"num\">pid</th><th class=\"num\">wall time</th>")
            .append("<th class=\"num\">MPI time</th></tr>\n");
        for (final RankRecord x : r.others)
        {
            h.append("<tr><td class=\"num\">").append(x.world).append("</td><td class=\"num\">").append(x.rank)
                .append("</td><td class=\"num\">").append(x.pid).append("</td>");
            num(Units.time(x.wallNs), "wall-ns", x.wallNs);
            num(Units.time(x.mpiNs(0)), "mpi-ns", x.mpiNs(0));
            h.append("</tr>\n");
        }
        h.append("</table>\n</section>\n");
    }

    // ------------------------------------------------------------------------------------------
    // Charts

    /** One horizontal bar: {@code part} dark, the rest of {@code whole} light. */
    private record Bar(int rank, long part, long whole, String note)
    {
    }

    /** Horizontal bars, one per rank, on a time axis from 0 to {@code max}. */
    private void barChart(final List<Bar> bars, final long max, final String axisTitle, final String partName,
        final String restName)
    {
        final boolean labelled = bars.size() <= LABELLED_BARS_UP_TO;
        final int rowH = labelled ? 20 : 6;
        final int left = 64;
        final int plot = 620;
        final int top = 24;
        final int width = left + plot + 360;
        final int height = top + rowH * bars.size() + 48;
        final long step = niceStep(max);
        final double scale = (double) plot / Math.max(max, step);
        svgOpen(width, height, axisTitle);
        // Legend.
        h.append("<rect x=\"").append(left).append("\" y=\"4\" width=\"12\" height=\"12\" fill=\"#08306b\"/>")
            .append("<text x=\"").append(left + 16).append("\" y=\"14\">").append(partName).append("</text>");
        if (restName != null)
        {
            h.append("<rect x=\"").append(left + 140).append("\" y=\"4\" width=\"12\" height=\"12\" fill=\"#c6dbef\"/>")
                .append("<text x=\"").append(left + 156).append("\" y=\"14\">").append(restName).append("</text>");
        }
        h.append('\n');
        final int axisY = top + rowH * bars.size() + 4;
        for (long t = 0; t <= max; t += step)
        {
            final long x = left + Math.round(t * scale);
            h.append("<line class=\"grid\" x1=\"").append(x).append("\" y1=\"").append(top).append("\" x2=\"").append(x)
                .append("\" y2=\"").append(axisY).append("\"/><text x=\"").append(x).append("\" y=\"")
                .append(axisY + 14).append("\" text-anchor=\"middle\">").append(Units.time(t)).append("</text>\n");
        }
        for (int i = 0; i < bars.size(); i++)
        {
            final Bar b = bars.get(i);
            final int y = top + i * rowH;
            final long whole = Math.round(b.whole() * scale);
            final long part = Math.round(b.part() * scale);
            h.append("<g data-rank=\"").append(b.rank()).append("\" data-part-ns=\"").append(b.part())
                .append("\" data-whole-ns=\"").append(b.whole()).append("\"><title>rank ").append(b.rank())
                .append(": ").append(esc(b.note())).append("</title>");
            h.append("<rect x=\"").append(left).append("\" y=\"").append(y + 2).append("\" width=\"").append(whole)
                .append("\" height=\"").append(rowH - 4).append("\" fill=\"#c6dbef\"/>");
            h.append("<rect x=\"").append(left).append("\" y=\"").append(y + 2).append("\" width=\"").append(part)
                .append("\" height=\"").append(rowH - 4).append("\" fill=\"#08306b\"/>");
            if (labelled)
            {
                h.append("<text x=\"").append(left - 6).append("\" y=\"").append(y + rowH / 2 + 4)
                    .append("\" text-anchor=\"end\">rank ").append(b.rank()).append("</text>");
                h.append("<text x=\"").append(left + whole + 6).append("\" y=\"").append(y + rowH / 2 + 4)
                    .append("\">").append(esc(b.note())).append("</text>");
            }
            h.append("</g>\n");
        }
        h.append("<line class=\"axis\" x1=\"").append(left).append("\" y1=\"").append(axisY).append("\" x2=\"")
            .append(left + plot).append("\" y2=\"").append(axisY).append("\"/>");
        h.append("<text class=\"title\" x=\"").append(left + plot / 2).append("\" y=\"").append(axisY + 32)
            .append("\" text-anchor=\"middle\">").append(esc(axisTitle)).append("</text>\n</svg>\n");
    }

    /** Bars per size bucket on a logarithmic count axis (base 10, from 1). */
    private void histogram(final String name, final long[] counts, final String unit)
    {
        final int left = 56;
        final int top = 16;
        final int plotH = 140;
        final int barW = 30;
        final int width = left + barW * counts.length + 16;
        final int height = top + plotH + 92;
        long max = 1;
        for (final long c : counts)
        {
            max = Math.max(max, c);
        }
        final int decades = Math.max(1, (int) Math.ceil(Math.log10(max) - 1e-9));
        final double perDecade = (double) plotH / decades;
        h.append("<figure data-histogram=\"").append(esc(name)).append("\">\n<figcaption>").append(esc(name))
            .append("</figcaption>\n");
        svgOpen(width, height, unit + " of " + name + " by size");
        final int base = top + plotH;
        for (int d = 0; d <= decades; d++)
        {
            final long y = Math.round(base - d * perDecade);
            h.append("<line class=\"grid\" x1=\"").append(left).append("\" y1=\"").append(y).append("\" x2=\"")
                .append(left + barW * counts.length).append("\" y2=\"").append(y).append("\"/><text x=\"")
                .append(left - 4).append("\" y=\"").append(y + 4).append("\" text-anchor=\"end\">")
                .append(power10(d)).append("</text>\n");
        }
        for (int b = 0; b < counts.length; b++)
        {
            final long c = counts[b];
            final int x = left + b * barW;
            if (c > 0)
            {
                final long bh = Math.max(2, Math.round(Math.log10(c) * perDecade));
                h.append("<rect x=\"").append(x + 3).append("\" y=\"").append(base - bh).append("\" width=\"")
                    .append(barW - 6).append("\" height=\"").append(bh).append("\" fill=\"#2171b5\" data-bucket=\"")
                    .append(b).append("\" data-count=\"").append(c).append("\"><title>").append(SizeBuckets.label(b))
                    .append(": ").append(Units.count(c)).append(' ').append(unit).append("</title></rect>");
            }
            h.append("<text transform=\"translate(").append(x + barW / 2 + 4).append(',').append(base + 6)
                .append(") rotate(-55)\" text-anchor=\"end\" style=\"font-size:9px\">").append(SizeBuckets.label(b))
                .append("</text>\n");
        }
        h.append("<line class=\"axis\" x1=\"").append(left).append("\" y1=\"").append(base).append("\" x2=\"")
            .append(left + barW * counts.length).append("\" y2=\"").append(base).append("\"/>");
        h.append("<line class=\"axis\" x1=\"").append(left).append("\" y1=\"").append(top).append("\" x2=\"")
            .append(left).append("\" y2=\"").append(base).append("\"/>");
        h.append("<text class=\"title\" transform=\"translate(12,").append(top + plotH / 2)
            .append(") rotate(-90)\" text-anchor=\"middle\">").append(unit).append(" (log scale)</text>");
        h.append("<text class=\"title\" x=\"").append(left + barW * counts.length / 2).append("\" y=\"")
            .append(height - 4).append("\" text-anchor=\"middle\">size (bytes)</text>\n</svg>\n</figure>\n");
    }

    private void svgOpen(final int width, final int height, final String label)
    {
        h.append("<svg width=\"").append(width).append("\" height=\"").append(height).append("\" viewBox=\"0 0 ")
            .append(width).append(' ').append(height).append("\" role=\"img\" aria-label=\"").append(esc(label))
            .append("\">\n");
    }

    private void num(final String text, final String attribute, final long value)
    {
        h.append("<td class=\"num\"");
        if (attribute != null)
        {
            h.append(" data-").append(attribute).append("=\"").append(value).append('"');
        }
        h.append('>').append(esc(text)).append("</td>");
    }

    // ------------------------------------------------------------------------------------------
    // Scales and text

    /** Where {@code bytes} lies between the fewest and the most, on a log scale: 0 for none, else FLOOR..1. */
    static double shade(final long bytes, final long min, final long max)
    {
        if (bytes <= 0)
        {
            return 0;
        }
        if (max <= min)
        {
            return 1;
        }
        final double f = (Math.log(bytes) - Math.log(min)) / (Math.log(max) - Math.log(min));
        return FLOOR + (1 - FLOOR) * Math.max(0, Math.min(1, f));
    }

    /** The palette: white at 0 to dark blue at 1, each channel falling, so lightness falls monotonically. */
    static String colour(final double shade)
    {
        final int red = (int) Math.round(255 + (DARK[0] - 255) * shade);
        final int green = (int) Math.round(255 + (DARK[1] - 255) * shade);
        final int blue = (int) Math.round(255 + (DARK[2] - 255) * shade);
        return String.format(Locale.ROOT, "#%02x%02x%02x", red, green, blue);
    }

    /** A step of 1, 2 or 5 times a power of ten giving about five ticks from 0 to {@code max}. */
    static long niceStep(final long max)
    {
        final double raw = Math.max(1, max) / 5.0;
        final double p = Math.pow(10, Math.floor(Math.log10(raw)));
        final double f = raw / p;
        final double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
        return Math.max(1, Math.round(m * p));
    }

    private static int labelEvery(final int n, final int cell)
    {
        int every = 1;
        while (cell * every < 14 && every < n)
        {
            every *= 2;
        }
        return every;
    }

    private static String power10(final int d)
    {
        final String[] names = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G"};
        return d < names.length ? names[d] : "1e" + d;
    }

    /** {@code s} escaped for HTML text and attribute values. */
    static String esc(final String s)
    {
        final StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '&':
                    b.append("&amp;");
                    break;
                case '<':
                    b.append("&lt;");
                    break;
                case '>':
                    b.append("&gt;");
                    break;
                case '"':
                    b.append("&quot;");
                    break;
                case '\'':
                    b.append("&#39;");
                    break;
                default:
                    b.append(c);
                    break;
            }
        }
        return b.toString();
    }
}
