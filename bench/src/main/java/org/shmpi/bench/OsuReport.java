package org.shmpi.bench;

import java.util.Locale;

/** Output in the OSU Micro-Benchmarks' format: '#' header lines, then rows of size and value. */
final class OsuReport
{
    static final String LATENCY_COLUMNS = "# Size          Latency (us)";
    static final String BANDWIDTH_COLUMNS = "# Size      Bandwidth (MB/s)";

    private OsuReport()
    {
    }

    /** One result row, {@code %-10d%18.2f} as OSU prints it. */
    static void row(final int size, final double value)
    {
        System.out.println(String.format(Locale.ROOT, "%-10d%18.2f", size, value));
        System.out.flush();
    }

    static void header(final String title, final OsuOptions options, final String... notes)
    {
        headerWithColumns(title, options,
            options.kind == OsuOptions.Kind.BANDWIDTH ? BANDWIDTH_COLUMNS : LATENCY_COLUMNS, notes);
    }

    /** As {@link #header}, with the given column line (e.g. osu_mbw_mr's three columns). */
    static void headerWithColumns(final String title, final OsuOptions options, final String columns,
        final String... notes)
    {
        System.out.println(title);
        for (final String note : notes)
        {
            System.out.println("# " + note);
        }
        for (final String line : options.describe())
        {
            System.out.println(line);
        }
        System.out.println(columns);
        System.out.flush();
    }

    /** A row of three columns, {@code %-10d%20.2f%20.2f} as osu_mbw_mr prints it. */
    static void row(final int size, final double value, final double value2)
    {
        System.out.println(String.format(Locale.ROOT, "%-10d%20.2f%20.2f", size, value, value2));
        System.out.flush();
    }

    static String javaVersion()
    {
        return "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")";
    }
}
