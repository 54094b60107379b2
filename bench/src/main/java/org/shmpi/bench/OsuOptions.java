package org.shmpi.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Command-line options shared by the OSU-style benchmarks, with the OSU Micro-Benchmarks'
 * letters: {@code -m [MIN:]MAX} (or, a shmpi extension, a list {@code -m A,B,...}), {@code -i ITER},
 * {@code -x WARMUP}, {@code -W WINDOW}, plus {@code -b array|buffer|direct} (Java arrays, {@code MPI.newByteBuffer}
 * buffers, or plain {@code ByteBuffer.allocateDirect} ones, which shmpi does not place in its shared heap) and
 * {@code -j N} / {@code -J SECONDS} (a one-off JIT warm-up before the first size: at least N small messages
 * and at least SECONDS), and for the collectives {@code --vary} (new send data every iteration). The C twins
 * in {@code bench/native} take the same options and use the same defaults, so every system runs the very
 * same number of iterations.
 */
final class OsuOptions
{
    /** Which benchmark family the defaults are for. */
    enum Kind
    {
        LATENCY, BANDWIDTH,
        /** No message sizes: iterations of a collective (osu_barrier). */
        BARRIER,
        /** Collectives with a size per rank-block (osu_allreduce, osu_bcast, ...): one timed call per iteration. */
        COLLECTIVE
    }

    /** Sizes above this use the "large message" defaults, as in OSU. */
    static final int LARGE_MESSAGE_SIZE = 8192;
    static final int DEFAULT_MAX_SIZE = 1 << 22;
    /** OSU's default largest size of the collective benchmarks: 1 MiB per rank-block. */
    static final int DEFAULT_MAX_COLLECTIVE_SIZE = 1 << 20;
    static final int DEFAULT_WINDOW = 64;
    static final int DEFAULT_JIT_PRELUDE = 20000;
    static final double DEFAULT_JIT_SECONDS = 1.0;
    /** Size of the messages of the JIT prelude (MAX if that is smaller). */
    static final int PRELUDE_SIZE = 8;

    final Kind kind;
    int minSize;
    int maxSize;
    /** {@code -m A,B,...}: exactly these sizes (a shmpi extension); null: the OSU ladder. */
    int[] sizeList;
    /** -1: the per-size default. */
    int iterations = -1;
    /** -1: the per-size default. */
    int warmup = -1;
    int window = DEFAULT_WINDOW;
    int jitPrelude = DEFAULT_JIT_PRELUDE;
    double jitSeconds = DEFAULT_JIT_SECONDS;
    boolean directBuffers;
    /** {@code -b direct}: direct buffers from {@code ByteBuffer.allocateDirect}, not {@code MPI.newByteBuffer}. */
    boolean plainDirect;
    /** Collectives only: write the iteration number into the send data before every call. */
    boolean vary;
    boolean help;

    private OsuOptions(final Kind kind)
    {
        this.kind = kind;
        this.minSize = kind == Kind.LATENCY ? 0 : 1;
        this.maxSize = kind == Kind.COLLECTIVE ? DEFAULT_MAX_COLLECTIVE_SIZE : DEFAULT_MAX_SIZE;
    }

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException with a message for the user on a bad option
     */
    static OsuOptions parse(final String[] args, final Kind kind)
    {
        final OsuOptions o = new OsuOptions(kind);
        for (int i = 0; i < args.length; i++)
        {
            final String a = args[i];
            switch (a)
            {
                case "-h":
                case "--help":
                    o.help = true;
                    break;
                case "-m":
                case "--message-size":
                    o.parseSizes(value(args, ++i, a));
                    break;
                case "-i":
                case "--iterations":
                    o.iterations = nonNegative(value(args, ++i, a), a, 1);
                    break;
                case "-x":
                case "--warmup":
                    o.warmup = nonNegative(value(args, ++i, a), a, 0);
                    break;
                case "-W":
                case "--window-size":
                    o.window = nonNegative(value(args, ++i, a), a, 1);
                    break;
                case "-j":
                case "--jit-warmup":
                    o.jitPrelude = nonNegative(value(args, ++i, a), a, 0);
                    break;
                case "-J":
                case "--jit-seconds":
                    o.jitSeconds = seconds(value(args, ++i, a), a);
                    break;
                case "--vary":
                    if (kind != Kind.COLLECTIVE)
                    {
                        throw new IllegalArgumentException("--vary is for the collective benchmarks only");
                    }
                    o.vary = true;
                    break;
                case "-b":
                case "--buffer":
                    final String b = value(args, ++i, a).toLowerCase(Locale.ROOT);
                    if ("array".equals(b))
                    {
                        o.directBuffers = false;
                        o.plainDirect = false;
                    }
                    else if ("buffer".equals(b) || "direct".equals(b))
                    {
                        o.directBuffers = true;
                        o.plainDirect = "direct".equals(b);
                    }
                    else
                    {
                        throw new IllegalArgumentException("-b takes array, buffer or direct, not " + b);
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown option: " + a);
            }
        }
        return o;
    }

    private void parseSizes(final String spec)
    {
        if (spec.indexOf(',') >= 0)
        {
            final String[] parts = spec.split(",");
            sizeList = new int[parts.length];
            for (int i = 0; i < parts.length; i++)
            {
                sizeList[i] = nonNegative(parts[i], "-m SIZE", 0);
            }
            java.util.Arrays.sort(sizeList);
            minSize = sizeList[0];
            maxSize = sizeList[sizeList.length - 1];
            return;
        }
        sizeList = null;
        final int colon = spec.indexOf(':');
        if (colon >= 0)
        {
            minSize = nonNegative(spec.substring(0, colon), "-m MIN", 0);
            maxSize = nonNegative(spec.substring(colon + 1), "-m MAX", 0);
        }
        else
        {
            maxSize = nonNegative(spec, "-m MAX", 0);
        }
        if (minSize > maxSize)
        {
            throw new IllegalArgumentException("-m: MIN " + minSize + " is larger than MAX " + maxSize);
        }
    }

    private static String value(final String[] args, final int i, final String option)
    {
        if (i >= args.length)
        {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int nonNegative(final String s, final String option, final int least)
    {
        final int v;
        try
        {
            v = Integer.parseInt(s.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + ": not a number: " + s, ex);
        }
        if (v < least)
        {
            throw new IllegalArgumentException(option + " must be at least " + least + ", got " + v);
        }
        return v;
    }

    private static double seconds(final String s, final String option)
    {
        final double v;
        try
        {
            v = Double.parseDouble(s.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(option + ": not a number: " + s, ex);
        }
        if (!(v >= 0 && v <= 3600))
        {
            throw new IllegalArgumentException(option + " must be within [0, 3600] seconds, got " + s);
        }
        return v;
    }

    /** Whether to run the JIT warm-up at all. */
    boolean jitWarmup()
    {
        return jitPrelude > 0 || jitSeconds > 0;
    }

    /**
     * Iterations of one JIT warm-up chunk: 1000 round trips, or windows of about 1000 messages.
     * After each chunk rank 0 tells rank 1 whether another follows.
     */
    int jitChunk()
    {
        return kind == Kind.BANDWIDTH ? Math.max(1, 1000 / window) : 1000;
    }

    /** Messages (latency: round trips) in one JIT warm-up chunk. */
    long jitChunkMessages()
    {
        return kind == Kind.BANDWIDTH ? (long)jitChunk() * window : jitChunk();
    }

    /** The message sizes to measure, OSU style: MIN, then doubling up to MAX (0 is followed by 1). */
    int[] sizes()
    {
        if (sizeList != null)
        {
            return sizeList.clone();
        }
        final List<Integer> list = new ArrayList<>();
        for (long s = minSize; s <= maxSize; s = s == 0 ? 1 : s * 2)
        {
            list.add((int)s);
        }
        final int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = list.get(i);
        }
        return out;
    }

    /** Timed iterations (round trips, or windows) at {@code size}. */
    int iterations(final int size)
    {
        if (iterations >= 0)
        {
            return iterations;
        }
        return defaultIterations(size);
    }

    private int defaultIterations(final int size)
    {
        if (kind == Kind.BARRIER)
        {
            return 1000;
        }
        if (kind == Kind.BANDWIDTH)
        {
            return size <= LARGE_MESSAGE_SIZE ? 100 : 20;
        }
        if (kind == Kind.COLLECTIVE)
        {
            return size <= LARGE_MESSAGE_SIZE ? 1000 : 100;
        }
        if (size <= LARGE_MESSAGE_SIZE)
        {
            return 10000;
        }
        // 1000 round trips up to 64 KiB, then fewer so that a 4 MiB run stays short: 2^26 bytes
        // each way, but never fewer than 200.
        return (int)Math.max(200, Math.min(1000, (1L << 26) / size));
    }

    /** Untimed iterations before the timed ones at {@code size}. */
    int warmup(final int size)
    {
        if (warmup >= 0)
        {
            return warmup;
        }
        if (kind == Kind.BARRIER)
        {
            return 100;
        }
        if (kind == Kind.BANDWIDTH)
        {
            return size <= LARGE_MESSAGE_SIZE ? 10 : 2;
        }
        if (kind == Kind.COLLECTIVE)
        {
            return size <= LARGE_MESSAGE_SIZE ? 200 : 10;
        }
        return size <= LARGE_MESSAGE_SIZE ? 1000 : Math.max(20, defaultIterations(size) / 10);
    }

    /** Message size of the JIT prelude: 8 B (or MAX if smaller), whatever MIN is. */
    int preludeSize()
    {
        return Math.min(PRELUDE_SIZE, maxSize);
    }

    /** Largest buffer any size needs. */
    int bufferBytes()
    {
        return Math.max(maxSize, 4);
    }

    /** The header comment lines describing warm-up and iterations; each starts with "# ". */
    List<String> describe()
    {
        final List<String> lines = new ArrayList<>();
        lines.add("# Buffers: " + (plainDirect ? "ByteBuffer.allocateDirect (-b direct)" : directBuffers ?
            "MPI.newByteBuffer (-b buffer)" : "byte[] arrays (-b array)"));
        if (kind == Kind.BARRIER)
        {
            lines.add(String.format(Locale.ROOT, "# JIT warm-up: at least %d barriers and at least %.1f s (-j, -J)",
                jitPrelude, jitSeconds));
            lines.add("# Warm-up: " + warmup(0) + " barriers (-x); iterations: " + iterations(0) + " barriers (-i)");
            return lines;
        }
        if (kind == Kind.COLLECTIVE)
        {
            lines.add(String.format(Locale.ROOT, "# JIT warm-up before the first size: at least %d calls of %d B, " +
                "each chunk then 100 calls of every size up to 8 KiB and 10 above, for at least %.1f s (-j, -J)",
                jitPrelude, preludeSize(), jitSeconds));
            lines.add(warmup >= 0 ? "# Warm-up per size: " + warmup + " calls (-x)"
                : "# Warm-up per size: 200 calls up to 8 KiB, then 10 (-x)");
            lines.add(iterations >= 0 ? "# Iterations per size: " + iterations + " calls (-i)"
                : "# Iterations per size: 1000 calls up to 8 KiB, then 100 (-i)");
            lines.add(vary ? "# Send data: changed before every call (--vary: iteration number in the first and " +
                "last 8 bytes of each block)" : "# Send data: the same every call (--vary changes it)");
            return lines;
        }
        final String unit = kind == Kind.LATENCY ? "round trips" : "windows of " + window + " messages";
        lines.add(String.format(Locale.ROOT, "# JIT warm-up before the first size: at least %d %s of %d B " +
            "and at least %.1f s (-j, -J)", jitPrelude, kind == Kind.LATENCY ? "round trips" : "messages",
            preludeSize(), jitSeconds));
        if (warmup >= 0)
        {
            lines.add("# Warm-up per size: " + warmup + " " + unit + " (-x)");
        }
        else if (kind == Kind.LATENCY)
        {
            lines.add("# Warm-up per size: 1000 round trips up to 8 KiB, then 1/10 of the iterations, " +
                "at least 20 (-x)");
        }
        else
        {
            lines.add("# Warm-up per size: 10 windows up to 8 KiB, then 2 (-x)");
        }
        if (iterations >= 0)
        {
            lines.add("# Iterations per size: " + iterations + " " + unit + " (-i)");
        }
        else if (kind == Kind.LATENCY)
        {
            lines.add("# Iterations per size: 10000 up to 8 KiB, then 2^26/size within [200, 1000] (-i)");
        }
        else
        {
            lines.add("# Iterations per size: 100 windows up to 8 KiB, then 20 (-i)");
        }
        return lines;
    }

    static String usage(final String program, final Kind kind)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("Usage: ").append(program).append(" [options]\n");
        sb.append("  -m, --message-size [MIN:]MAX  sizes MIN, 2*MIN, ... up to MAX bytes, or a list A,B,... (default ")
            .append(kind == Kind.LATENCY ? "0" : "1").append(':')
            .append(kind == Kind.COLLECTIVE ? DEFAULT_MAX_COLLECTIVE_SIZE : DEFAULT_MAX_SIZE).append(")\n");
        sb.append("  -i, --iterations N            timed iterations per size (default: by size)\n");
        sb.append("  -x, --warmup N                untimed iterations per size (default: by size)\n");
        if (kind == Kind.BANDWIDTH)
        {
            sb.append("  -W, --window-size N           messages per window (default ").append(DEFAULT_WINDOW)
                .append(")\n");
        }
        sb.append("  -j, --jit-warmup N            JIT warm-up before the first size (default ")
            .append(DEFAULT_JIT_PRELUDE).append(")\n");
        sb.append("  -J, --jit-seconds S           ... and for at least S seconds (default ")
            .append(DEFAULT_JIT_SECONDS).append(")\n");
        sb.append("  -b, --buffer array|buffer|direct\n")
            .append("                                Java arrays, MPI.newByteBuffer buffers, or plain\n")
            .append("                                ByteBuffer.allocateDirect ones (default array)\n");
        if (kind == Kind.COLLECTIVE)
        {
            sb.append("  --vary                        new send data every call (iteration number in the first and\n")
                .append("                                last 8 bytes of each rank-block)\n");
        }
        sb.append("  -h, --help                    this text\n");
        return sb.toString();
    }
}
