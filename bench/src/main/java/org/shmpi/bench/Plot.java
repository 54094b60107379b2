package org.shmpi.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Charts of a {@code bench/compare} run: reads its {@code summary.csv}
 * ({@code benchmark,system,size_bytes,median,min,max,runs}) and writes one SVG per benchmark,
 * x = message size on a log2 scale (rank count for barrier, ring and compute), y on a log10 scale, one line with
 * markers per system and its min–max over the rounds as a light band with whiskers.
 *
 * <p>Usage: {@code java -cp shmpi-bench.jar org.shmpi.bench.Plot SUMMARY.csv OUT_DIR}.
 */
public final class Plot
{
    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;
    private static final int LEFT = 90;
    private static final int RIGHT = 230;
    private static final int TOP = 50;
    private static final int BOTTOM = 80;

    private static final String[][] SYSTEMS = {
        {"shmpi", "shmpi (Java)", "#d62728"},
        {"shmpi-direct", "shmpi, direct buffers", "#ff7f0e"},
        {"ompi-c", "Open MPI C", "#1f77b4"},
        {"ompi-c-blocking", "Open MPI C, blocking", "#17becf"},
        {"ompi-java", "Open MPI Java bindings", "#2ca02c"},
        {"ompi-java-direct", "Open MPI Java, direct buffers", "#bcbd22"},
        {"raw-ring", "raw Agrona ring", "#7f7f7f"},
        {"plain", "plain java (no MPI)", "#1f77b4"},
    };
    private static final String[] SPARE_COLOURS = {"#9467bd", "#8c564b", "#e377c2", "#393b79", "#637939"};

    private Plot()
    {
    }

    /** One measured point: x (bytes or ranks), median, min and max. */
    private record Point(long x, double median, double min, double max)
    {
    }

    public static void main(final String[] args) throws IOException
    {
        if (args.length != 2)
        {
            System.err.println("usage: Plot SUMMARY.csv OUT_DIR");
            System.exit(2);
        }
        final Path outDir = Paths.get(args[1]);
        Files.createDirectories(outDir);
        final Map<String, Map<String, List<Point>>> data = read(Paths.get(args[0]));
        for (final Map.Entry<String, Map<String, List<Point>>> e : data.entrySet())
        {
            final String name = e.getKey().replaceAll("[^A-Za-z0-9_.-]", "_") + ".svg";
            final Path file = outDir.resolve(name);
            Files.write(file, svg(e.getKey(), e.getValue()).getBytes(StandardCharsets.UTF_8));
            System.out.println("plot: wrote " + file);
        }
    }

    private static Map<String, Map<String, List<Point>>> read(final Path csv) throws IOException
    {
        final List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        if (lines.isEmpty())
        {
            throw new IOException(csv + ": empty");
        }
        final List<String> header = List.of(lines.get(0).trim().split(","));
        final int cb = column(header, "benchmark", csv);
        final int cs = column(header, "system", csv);
        final int cx = column(header, "size_bytes", csv);
        final int cm = column(header, "median", csv);
        final int cmin = column(header, "min", csv);
        final int cmax = column(header, "max", csv);
        final Map<String, Map<String, List<Point>>> data = new TreeMap<>();
        for (int i = 1; i < lines.size(); i++)
        {
            final String line = lines.get(i).trim();
            if (line.isEmpty())
            {
                continue;
            }
            final String[] f = line.split(",");
            final Point p = new Point(Long.parseLong(f[cx]), Double.parseDouble(f[cm]),
                Double.parseDouble(f[cmin]), Double.parseDouble(f[cmax]));
            if (p.median() <= 0 || p.min() <= 0 || p.max() <= 0)
            {
                continue; // not on a log scale
            }
            data.computeIfAbsent(f[cb], k -> new TreeMap<>(Plot::systemOrder))
                .computeIfAbsent(f[cs], k -> new ArrayList<>()).add(p);
        }
        for (final Map<String, List<Point>> bySystem : data.values())
        {
            for (final List<Point> points : bySystem.values())
            {
                points.sort((a, b) -> Long.compare(a.x(), b.x()));
            }
        }
        return data;
    }

    private static int column(final List<String> header, final String name, final Path csv) throws IOException
    {
        final int i = header.indexOf(name);
        if (i < 0)
        {
            throw new IOException(csv + ": no column " + name + " in " + header);
        }
        return i;
    }

    private static int systemIndex(final String system)
    {
        for (int i = 0; i < SYSTEMS.length; i++)
        {
            if (SYSTEMS[i][0].equals(system))
            {
                return i;
            }
        }
        return SYSTEMS.length;
    }

    private static int systemOrder(final String a, final String b)
    {
        final int c = Integer.compare(systemIndex(a), systemIndex(b));
        return c != 0 ? c : a.compareTo(b);
    }

    private static String[] describe(final String benchmark)
    {
        switch (benchmark)
        {
            case "latency":
                return new String[] {"One-way latency (ping-pong), np 2 - lower is better", "latency (µs)"};
            case "bandwidth":
                return new String[] {"Bandwidth (osu_bw), np 2 - higher is better", "bandwidth (MB/s)"};
            case "bibw":
                return new String[] {"Bidirectional bandwidth (osu_bibw), np 2 - higher is better",
                    "bandwidth, both directions (MB/s)"};
            case "msgrate":
                return new String[] {"Message rate (osu_mbw_mr), np 2 - higher is better", "messages/s"};
            case "barrier":
                return new String[] {"Barrier (osu_barrier) - lower is better", "time per barrier (µs)"};
            case "ring":
                return new String[] {"Short token ring (200 warm-up + 2000 laps, fresh job) - lower is better",
                    "time per hop (µs)"};
            default:
                if (benchmark.startsWith("compute-"))
                {
                    return new String[] {"User code (ComputeBench " + benchmark.substring("compute-".length()) +
                        "), plain java at np 1 - lower is better", "ns per element"};
                }
                return new String[] {benchmark, "value"};
        }
    }

    private static String sizeLabel(final long bytes)
    {
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0)
        {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0)
        {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    private static double log2(final double v)
    {
        return Math.log(v) / Math.log(2);
    }

    private static String fmt(final double v)
    {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String valueLabel(final double v)
    {
        if (v >= 1e6)
        {
            return String.format(Locale.ROOT, "%.0fM", v / 1e6);
        }
        if (v >= 1)
        {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.2g", v);
    }

    private static String esc(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String svg(final String benchmark, final Map<String, List<Point>> bySystem)
    {
        final boolean ranks = "barrier".equals(benchmark) || "ring".equals(benchmark) ||
            benchmark.startsWith("compute-");
        final String[] text = describe(benchmark);
        double xmin = Double.MAX_VALUE;
        double xmax = -Double.MAX_VALUE;
        double ymin = Double.MAX_VALUE;
        double ymax = -Double.MAX_VALUE;
        final java.util.TreeSet<Long> xs = new java.util.TreeSet<>();
        for (final List<Point> points : bySystem.values())
        {
            for (final Point p : points)
            {
                xs.add(p.x());
                xmin = Math.min(xmin, log2(Math.max(1, p.x())));
                xmax = Math.max(xmax, log2(Math.max(1, p.x())));
                ymin = Math.min(ymin, Math.log10(p.min()));
                ymax = Math.max(ymax, Math.log10(p.max()));
            }
        }
        if (xmax - xmin < 1)
        {
            xmin -= 1;
            xmax += 1;
        }
        else
        {
            final double pad = (xmax - xmin) * 0.03;
            xmin -= pad;
            xmax += pad;
        }
        // y: extend to the 1-2-5 steps around the data, at least a factor of ten shown.
        double lo = Math.floor(ymin);
        double hi = Math.ceil(ymax);
        if (hi - lo < 1)
        {
            hi = lo + 1;
        }
        final double decades = hi - lo;
        final List<Double> yticks = new ArrayList<>();
        for (int d = (int) lo; d <= (int) hi; d++)
        {
            for (final double m : decades <= 3 ? new double[] {1, 2, 5} : new double[] {1})
            {
                final double v = m * Math.pow(10, d);
                final double lv = Math.log10(v);
                if (lv >= lo - 1e-9 && lv <= hi + 1e-9)
                {
                    yticks.add(v);
                }
            }
        }
        // Trim empty decades at the ends back to the nearest tick just outside the data.
        double ya = trimLow(yticks, ymin);
        double yb = trimHigh(yticks, ymax);
        if (yb - ya < 0.3)
        {
            ya -= 0.15;
            yb += 0.15;
        }
        final double y0 = ya;
        final double y1 = yb;
        final int pw = WIDTH - LEFT - RIGHT;
        final int ph = HEIGHT - TOP - BOTTOM;
        final double fx0 = xmin;
        final double fx1 = xmax;
        final java.util.function.DoubleUnaryOperator px =
            x -> LEFT + (log2(Math.max(1, x)) - fx0) / (fx1 - fx0) * pw;
        final java.util.function.DoubleUnaryOperator py =
            y -> TOP + ph - (Math.log10(y) - y0) / (y1 - y0) * ph;

        final StringBuilder s = new StringBuilder(16384);
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append("<text x=\"").append(LEFT + pw / 2).append("\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" "
            + "font-weight=\"bold\">").append(esc(text[0])).append("</text>\n");
        // grid and y ticks
        for (final double v : yticks)
        {
            final double lv = Math.log10(v);
            if (lv < y0 - 1e-9 || lv > y1 + 1e-9)
            {
                continue;
            }
            final String y = fmt(py.applyAsDouble(v));
            final boolean decade = Math.abs(lv - Math.rint(lv)) < 1e-9;
            s.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + pw).append("\" y1=\"").append(y)
                .append("\" y2=\"").append(y).append("\" stroke=\"").append(decade ? "#cccccc" : "#eeeeee")
                .append("\"/>\n");
            s.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(y)
                .append("\" text-anchor=\"end\" dominant-baseline=\"middle\">").append(valueLabel(v))
                .append("</text>\n");
        }
        // x ticks and labels: every measured x (labels slanted when crowded)
        final boolean crowded = xs.size() > 10;
        for (final long x : xs)
        {
            final String xp = fmt(px.applyAsDouble(x));
            s.append("<line x1=\"").append(xp).append("\" x2=\"").append(xp).append("\" y1=\"").append(TOP)
                .append("\" y2=\"").append(TOP + ph).append("\" stroke=\"#f2f2f2\"/>\n");
            s.append("<line x1=\"").append(xp).append("\" x2=\"").append(xp).append("\" y1=\"").append(TOP + ph)
                .append("\" y2=\"").append(TOP + ph + 5).append("\" stroke=\"black\"/>\n");
            if (crowded)
            {
                s.append("<text transform=\"translate(").append(xp).append(',').append(TOP + ph + 14)
                    .append(") rotate(-40)\" text-anchor=\"end\" font-size=\"11\">")
                    .append(esc(ranks ? "np " + x : sizeLabel(x))).append("</text>\n");
            }
            else
            {
                s.append("<text x=\"").append(xp).append("\" y=\"").append(TOP + ph + 18)
                    .append("\" text-anchor=\"middle\">").append(esc(ranks ? "np " + x : sizeLabel(x)))
                    .append("</text>\n");
            }
        }
        s.append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(pw)
            .append("\" height=\"").append(ph).append("\" fill=\"none\" stroke=\"black\"/>\n");
        s.append("<text x=\"").append(LEFT + pw / 2).append("\" y=\"").append(HEIGHT - 14)
            .append("\" text-anchor=\"middle\">")
            .append(ranks ? "ranks (np, log scale)" : "message size (bytes, log2 scale)").append("</text>\n");
        s.append("<text transform=\"translate(22,").append(TOP + ph / 2).append(") rotate(-90)\" "
            + "text-anchor=\"middle\">").append(esc(text[1] + ", log scale")).append("</text>\n");
        // series
        int spare = 0;
        int row = 0;
        for (final Map.Entry<String, List<Point>> e : bySystem.entrySet())
        {
            final int k = systemIndex(e.getKey());
            final String colour = k < SYSTEMS.length ? SYSTEMS[k][2] : SPARE_COLOURS[spare++ % SPARE_COLOURS.length];
            final String label = k < SYSTEMS.length ? SYSTEMS[k][1] : e.getKey();
            final List<Point> pts = e.getValue();
            if (pts.size() > 1)
            {
                final StringBuilder band = new StringBuilder();
                for (final Point p : pts)
                {
                    band.append(fmt(px.applyAsDouble(p.x()))).append(',').append(fmt(py.applyAsDouble(p.max())))
                        .append(' ');
                }
                for (int j = pts.size() - 1; j >= 0; j--)
                {
                    final Point p = pts.get(j);
                    band.append(fmt(px.applyAsDouble(p.x()))).append(',').append(fmt(py.applyAsDouble(p.min())))
                        .append(' ');
                }
                s.append("<polygon points=\"").append(band.toString().trim()).append("\" fill=\"").append(colour)
                    .append("\" fill-opacity=\"0.13\" stroke=\"none\"/>\n");
            }
            final StringBuilder line = new StringBuilder();
            for (final Point p : pts)
            {
                final String xp = fmt(px.applyAsDouble(p.x()));
                line.append(xp).append(',').append(fmt(py.applyAsDouble(p.median()))).append(' ');
                s.append("<line x1=\"").append(xp).append("\" x2=\"").append(xp).append("\" y1=\"")
                    .append(fmt(py.applyAsDouble(p.min()))).append("\" y2=\"").append(fmt(py.applyAsDouble(p.max())))
                    .append("\" stroke=\"").append(colour).append("\" stroke-opacity=\"0.5\"/>\n");
            }
            if (pts.size() > 1)
            {
                s.append("<polyline points=\"").append(line.toString().trim()).append("\" fill=\"none\" stroke=\"")
                    .append(colour).append("\" stroke-width=\"2\"/>\n");
            }
            for (final Point p : pts)
            {
                s.append("<circle cx=\"").append(fmt(px.applyAsDouble(p.x()))).append("\" cy=\"")
                    .append(fmt(py.applyAsDouble(p.median()))).append("\" r=\"3.5\" fill=\"").append(colour)
                    .append("\"><title>").append(esc(label)).append(": ")
                    .append(esc(ranks ? "np " + p.x() : sizeLabel(p.x()))).append(' ')
                    .append(String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", p.median(), p.min(), p.max()))
                    .append("</title></circle>\n");
            }
            // legend entry
            final int ly = TOP + 10 + row * 22;
            final int lx = LEFT + pw + 16;
            s.append("<line x1=\"").append(lx).append("\" x2=\"").append(lx + 26).append("\" y1=\"").append(ly)
                .append("\" y2=\"").append(ly).append("\" stroke=\"").append(colour)
                .append("\" stroke-width=\"2\"/>\n");
            s.append("<circle cx=\"").append(lx + 13).append("\" cy=\"").append(ly).append("\" r=\"3.5\" fill=\"")
                .append(colour).append("\"/>\n");
            s.append("<text x=\"").append(lx + 32).append("\" y=\"").append(ly)
                .append("\" dominant-baseline=\"middle\">").append(esc(label)).append("</text>\n");
            row++;
        }
        final int ny = TOP + 10 + row * 22 + 10;
        s.append("<text x=\"").append(LEFT + pw + 16).append("\" y=\"").append(ny)
            .append("\" font-size=\"11\" fill=\"#555555\">line: median of the rounds</text>\n");
        s.append("<text x=\"").append(LEFT + pw + 16).append("\" y=\"").append(ny + 16)
            .append("\" font-size=\"11\" fill=\"#555555\">band, whiskers: min-max</text>\n");
        s.append("</svg>\n");
        return s.toString();
    }

    private static double trimLow(final List<Double> ticks, final double ymin)
    {
        double best = Math.log10(ticks.get(0));
        for (final double v : ticks)
        {
            final double lv = Math.log10(v);
            if (lv <= ymin + 1e-12)
            {
                best = lv;
            }
        }
        return best;
    }

    private static double trimHigh(final List<Double> ticks, final double ymax)
    {
        double best = Math.log10(ticks.get(ticks.size() - 1));
        for (int j = ticks.size() - 1; j >= 0; j--)
        {
            final double lv = Math.log10(ticks.get(j));
            if (lv >= ymax - 1e-12)
            {
                best = lv;
            }
        }
        return best;
    }
}
