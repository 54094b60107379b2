package org.shmpi.report;

import java.util.Locale;

/** How the report writes times, sizes, counts and shares for people. */
final class Units
{
    private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

    private Units()
    {
    }

    /** A time of {@code ns} nanoseconds with three significant digits: {@code 850 ns}, {@code 1.21 s}. */
    static String time(final long ns)
    {
        if (ns < 1_000)
        {
            return ns + " ns";
        }
        if (ns < 1_000_000)
        {
            return digits3(ns / 1e3) + " \u00b5s";
        }
        if (ns < 1_000_000_000)
        {
            return digits3(ns / 1e6) + " ms";
        }
        return digits3(ns / 1e9) + " s";
    }

    /** A size in binary units: {@code 512 B}, {@code 8.0 MiB}. */
    static String bytes(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + " B";
        }
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < BYTE_UNITS.length - 1)
        {
            v /= 1024;
            u++;
        }
        return (v < 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.0f", v)) + " "
            + BYTE_UNITS[u];
    }

    /** A count with thousands separators: {@code 1,000}. */
    static String count(final long n)
    {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A share 0..1 as a percentage with one decimal: {@code 31.5 %}. */
    static String percent(final double share)
    {
        return String.format(Locale.ROOT, "%.1f %%", share * 100);
    }

    /** {@code v} with three significant digits (for values from 1 to 999.5). */
    static String digits3(final double v)
    {
        if (v >= 99.95)
        {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 9.995)
        {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
