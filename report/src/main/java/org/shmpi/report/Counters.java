package org.shmpi.report;

import java.nio.ByteBuffer;

/**
 * The counters of a rank's recorders as a rank flushes them: raw longs, copied in bulk behind the
 * record's text (which keeps the names: regions, files, windows, call sites), so a flush costs the
 * rank a copy and no formatting. Formatting thousands of numbers at every flush, on the core the
 * rank runs on, stalled the rank for milliseconds while the code was cold and made the compiler
 * compile the formatting in the middle of the program's work.
 * <p>
 * One block per recording thread, each: {@link #MAGIC}, regions, kinds, size buckets,
 * algorithms, world size; then {@code stats} ({@link #STRIDE} longs per region and kind:
 * {@link #COUNT}, {@link #BYTES}, {@link #WAIT}, {@link #SAMPLED}, {@link #SAMPLED_NS},
 * {@link #MAX}, two more the recorder keeps for itself), sizes per kind and bucket, algorithms per
 * kind, six per-peer arrays (point-to-point messages and bytes, collective messages and bytes,
 * blocked time and waits) and the blocked time and waits on no single peer. Little-endian, as the
 * rest of the record file.
 */
public final class Counters
{
    /** Longs per region and kind in {@code stats}. */
    public static final int STRIDE = 8;
    public static final int COUNT = 0;
    public static final int BYTES = 1;
    public static final int WAIT = 2;
    public static final int SAMPLED = 3;
    public static final int SAMPLED_NS = 4;
    public static final int MAX = 5;
    /** The per-peer arrays of a block, in their order. */
    public static final int PEER_ARRAYS = 6;

    /** "CNTRBLK1" read as a little-endian long. */
    static final long MAGIC = 0x314B4C4252544E43L;
    private static final int HEADER = 6;

    private Counters()
    {
    }

    /** The bytes one block takes for {@code regions} regions in a world of {@code world} ranks. */
    public static int bytes(final int regions, final int world)
    {
        final int kinds = CallKind.count();
        return 8 * (HEADER + regions * kinds * STRIDE + kinds * SizeBuckets.COUNT + kinds * Algorithm.values().length +
            PEER_ARRAYS * world + 2);
    }

    /**
     * Appends one thread's counters to {@code out} (which has room, see {@link #bytes}).
     *
     * @param peers the six per-peer arrays, each at least {@code world} long
     */
    public static void put(final ByteBuffer out, final long[] stats, final long[] sizes, final long[] algorithms,
        final long[][] peers, final int world, final long otherNs, final long otherWaits)
    {
        final int kinds = CallKind.count();
        out.putLong(MAGIC).putLong(stats.length / (kinds * STRIDE)).putLong(kinds).putLong(SizeBuckets.COUNT)
            .putLong(Algorithm.values().length).putLong(world);
        longs(out, stats);
        longs(out, sizes);
        longs(out, algorithms);
        for (final long[] p : peers)
        {
            out.asLongBuffer().put(p, 0, world);
            out.position(out.position() + 8 * world);
        }
        out.putLong(otherNs).putLong(otherWaits);
    }

    /** A bulk copy into {@code out}, which moves on. */
    private static void longs(final ByteBuffer out, final long[] values)
    {
        out.asLongBuffer().put(values);
        out.position(out.position() + 8 * values.length);
    }

    /**
     * Adds every block of {@code in} (from its position to its limit) to {@code r}, whose regions and
     * peers are already sized; a block cut short ends the reading.
     */
    public static void addTo(final RankRecord r, final ByteBuffer in)
    {
        while (in.remaining() >= 8 * HEADER && in.getLong(in.position()) == MAGIC)
        {
            in.getLong();
            final int regions = (int) in.getLong();
            final int kinds = (int) in.getLong();
            final int buckets = (int) in.getLong();
            final int algs = (int) in.getLong();
            final int world = (int) in.getLong();
            final long need = 8L * ((long) regions * kinds * STRIDE + (long) kinds * buckets + (long) kinds * algs +
                (long) PEER_ARRAYS * world + 2);
            if (regions < 0 || kinds < 0 || buckets < 0 || algs < 0 || world < 0 || need > in.remaining())
            {
                throw new IllegalArgumentException("a damaged counter block (" + regions + " regions, " + kinds +
                    " kinds, " + world + " ranks)");
            }
            for (int g = 0; g < regions; g++)
            {
                for (int k = 0; k < kinds; k++)
                {
                    final long count = in.getLong();
                    final long bytes = in.getLong();
                    final long wait = in.getLong();
                    final long sampled = in.getLong();
                    final long sampledNs = in.getLong();
                    final long max = in.getLong();
                    in.position(in.position() + 8 * (STRIDE - 6));
                    if (g < r.regions.size() && k < CallKind.count())
                    {
                        r.count.get(g)[k] += count;
                        r.bytes.get(g)[k] += bytes;
                        r.waitNs.get(g)[k] += wait;
                        r.sampled.get(g)[k] += sampled;
                        r.sampledNs.get(g)[k] += sampledNs;
                        r.maxNs.get(g)[k] = Math.max(r.maxNs.get(g)[k], max);
                    }
                }
            }
            for (int k = 0; k < kinds; k++)
            {
                for (int b = 0; b < buckets; b++)
                {
                    final long v = in.getLong();
                    if (k < CallKind.count() && b < SizeBuckets.COUNT)
                    {
                        r.sizes[k][b] += v;
                    }
                }
            }
            for (int k = 0; k < kinds; k++)
            {
                for (int a = 0; a < algs; a++)
                {
                    final long v = in.getLong();
                    if (k < CallKind.count() && a < Algorithm.values().length)
                    {
                        r.algorithms[k][a] += v;
                    }
                }
            }
            final long[][] to = {r.p2pMessages, r.p2pBytes, r.collMessages, r.collBytes, r.blockedNs, r.blockedWaits};
            for (final long[] t : to)
            {
                for (int p = 0; p < world; p++)
                {
                    final long v = in.getLong();
                    if (p < t.length)
                    {
                        t[p] += v;
                    }
                }
            }
            r.blockedOtherNs += in.getLong();
            r.blockedOtherWaits += in.getLong();
        }
    }
}
