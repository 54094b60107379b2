package org.shmpi.bench;

import java.util.Arrays;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The floor of a two-copy transfer between two cores, with no MPI in it: a writer thread copies
 * {@code bytes} from its {@code byte[]} into two shared slots of {@code chunk} bytes in turn, a
 * reader thread copies each slot out into its own {@code byte[]}, with one seq word each way
 * (the writer may fill a slot again once the reader is done with it). That is the data path of
 * shmpi's large-message bcast from Java arrays at two ranks ({@code ShmLargeCollectives}); the
 * two threads stand for the two ranks (cache lines move between cores alike). Printed: the
 * median and the minimum µs per transfer of {@code -i} timed transfers after {@code -x} untimed
 * ones, for each size.
 *
 * <pre>java -cp shmpi-bench.jar org.shmpi.bench.CopyPipeline [-m bytes[,bytes...]] [-c chunk] [-i N] [-x N]</pre>
 *
 * Run it under {@code taskset -c 0,1} (or any two CPUs) beside the collective it anchors.
 */
public final class CopyPipeline
{
    private CopyPipeline()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        int[] sizes = {1 << 20};
        int chunk = 256 * 1024;
        int iterations = 2000;
        int warmup = 1000;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "-m" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "-c" -> chunk = Integer.parseInt(args[++i]);
                case "-i" -> iterations = Integer.parseInt(args[++i]);
                case "-x" -> warmup = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; usage: CopyPipeline [-m bytes[,bytes...]] [-c chunk] [-i N] [-x N]");
            }
        }
        if (chunk <= 0 || iterations <= 0 || warmup < 0)
        {
            throw new IllegalArgumentException("chunk and -i must be positive, -x not negative");
        }
        System.out.println("# two-copy pipeline floor: byte[] -> 2 slots of " + chunk + " B -> byte[], two threads");
        System.out.println("# Size          Median (us)      Min (us)");
        for (final int bytes : sizes)
        {
            final long[] times = run(bytes, chunk, warmup, iterations);
            Arrays.sort(times);
            System.out.printf("%-16d%-17.2f%.2f%n", bytes, times[times.length / 2] / 1e3, times[0] / 1e3);
        }
    }

    /**
     * Nanoseconds of each timed transfer of {@code bytes} (writer's clock: from its first copy until the reader
     * is done).
     */
    static long[] run(final int bytes, final int chunk, final int warmup, final int iterations)
        throws InterruptedException
    {
        final int slotBytes = Math.min(chunk, bytes);
        final UnsafeBuffer slots = new UnsafeBuffer(BufferUtil.allocateDirectAligned(2 * slotBytes, 4096));
        // Two seq words, 128 bytes apart: arrived (writer), done (reader).
        final UnsafeBuffer words = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 128));
        final int arrived = 0;
        final int done = 128;
        final byte[] source = new byte[bytes];
        final byte[] sink = new byte[bytes];
        Arrays.fill(source, (byte)7);
        final int total = warmup + iterations;
        final Thread reader = new Thread(() ->
        {
            long g = 0;
            for (int t = 0; t < total; t++)
            {
                for (int pos = 0; pos < bytes; pos += slotBytes)
                {
                    g++;
                    while (words.getLongVolatile(arrived) < g)
                    {
                        Thread.onSpinWait();
                    }
                    slots.getBytes((int)(g & 1) * slotBytes, sink, pos, Math.min(slotBytes, bytes - pos));
                    words.putLongRelease(done, g);
                }
            }
        }, "copy-pipeline-reader");
        reader.setDaemon(true);
        reader.start();
        final long[] times = new long[iterations];
        long g = 0;
        for (int t = 0; t < total; t++)
        {
            final long start = System.nanoTime();
            for (int pos = 0; pos < bytes; pos += slotBytes)
            {
                g++;
                while (words.getLongVolatile(done) < g - 2)
                {
                    Thread.onSpinWait();
                }
                source[pos] = (byte)t;
                slots.putBytes((int)(g & 1) * slotBytes, source, pos, Math.min(slotBytes, bytes - pos));
                words.putLongRelease(arrived, g);
            }
            while (words.getLongVolatile(done) < g)
            {
                Thread.onSpinWait();
            }
            if (t >= warmup)
            {
                times[t - warmup] = System.nanoTime() - start;
            }
        }
        reader.join();
        if (sink[0] != (byte)(total - 1))
        {
            throw new IllegalStateException("the reader's copy is not the last transfer's: " + sink[0]);
        }
        return times;
    }
}
