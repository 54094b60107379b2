package org.shmpi.report;

/**
 * The message and access sizes of the histograms: ten buckets, each four times as wide as the
 * one before, {@code [0, 64) B, [64, 256) B, ... [1, 4) MiB} and {@code 4 MiB} or more.
 */
public final class SizeBuckets
{
    /** How many buckets. */
    public static final int COUNT = 10;

    private static final String[] LABELS = {
        "0-64 B", "64-256 B", "256 B-1 KiB", "1-4 KiB", "4-16 KiB", "16-64 KiB", "64-256 KiB", "256 KiB-1 MiB",
        "1-4 MiB", ">= 4 MiB"};

    private SizeBuckets()
    {
    }

    /** The bucket of {@code bytes} (negative counts as 0). */
    public static int of(final long bytes)
    {
        // Without branches (the call path runs it for every message): below 64 bytes, and for
        // negative counts, the expression is at most 0.
        final int log2 = 63 - Long.numberOfLeadingZeros(Math.max(0, bytes));
        return Math.max(0, Math.min(COUNT - 1, ((log2 - 6) >> 1) + 1));
    }

    /** The lower bound of bucket {@code b}, in bytes. */
    public static long lowerBound(final int b)
    {
        return b == 0 ? 0 : 64L << (2 * (b - 1));
    }

    /** The label of bucket {@code b}, e.g. {@code "1-4 KiB"}. */
    public static String label(final int b)
    {
        return LABELS[b];
    }
}
