package org.shmpi.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A made-up job of four ranks with known numbers, written as rank files the way ranks write them:
 * a ring of sends (rank r sends 1,000 (r+1) messages of 8,000 B to rank r+1), an allReduce that
 * delivers 500 messages of 64 B to every other rank, waits, a file, a window, regions named
 * "io" and "solve" (rank 0 has "io" first, so regions must be matched by name), call sites, rank
 * 3 that did not finalize, a corrupt rank file, a file being written ({@code .tmp}) and a spawned
 * process (world 1).
 */
final class SyntheticJob
{
    static final int RANKS = 4;
    static final long SECOND = 1_000_000_000L;
    static final String FILE = "/data/run \"a\" & <b>, part 1.dat";
    static final String WINDOW = "win 0";
    static final String COMMAND = "java -cp app.jar Ring <n> & \"more\"";
    static final long START_MILLIS = 1_700_000_000_000L;

    private SyntheticJob()
    {
    }

    static JobInfo info()
    {
        return new JobInfo(COMMAND, RANKS, 0, START_MILLIS, 5 * SECOND);
    }

    /** Writes the job's rank files into {@code dir/ranks}; without rank {@code missing} (-1: none). */
    static void write(final Path dir, final int missing) throws IOException
    {
        final Path ranks = dir.resolve(JobReport.RANKS_DIR);
        Files.createDirectories(ranks);
        for (int r = 0; r < RANKS; r++)
        {
            if (r != missing)
            {
                record(r).writeTo(ranks.resolve("rank-0-" + r + ".txt"));
            }
        }
        Files.writeString(ranks.resolve("rank-0-7.txt"), "garbage\n", StandardCharsets.UTF_8);
        Files.writeString(ranks.resolve("rank-0-1.txt.tmp"), "half a rec", StandardCharsets.UTF_8);
        final RankRecord spawned = new RankRecord();
        spawned.world = 1;
        spawned.rank = 0;
        spawned.size = 1;
        spawned.peers(1);
        spawned.pid = 2000;
        spawned.wallNs = SECOND / 2;
        spawned.finalized = true;
        spawned.count.get(0)[CallKind.BARRIER.ordinal()] = 1;
        spawned.waitNs.get(0)[CallKind.BARRIER.ordinal()] = 7000;
        spawned.writeTo(ranks.resolve("rank-1-0.txt"));
    }

    /** Rank {@code r}'s record. */
    static RankRecord record(final int r)
    {
        final RankRecord x = new RankRecord();
        final long f = r + 1;
        x.world = 0;
        x.rank = r;
        x.size = RANKS;
        x.peers(RANKS);
        x.pid = 1000 + r;
        x.host = "node" + r;
        x.startMillis = START_MILLIS + r;
        x.wallNs = SECOND * f;
        x.finalized = r != 3;
        x.sampleEvery = 10;

        // send: 1,000 (r+1) calls of 8,000 B, one in ten timed at 2,000 ns each.
        call(x, 0, CallKind.SEND, 1000 * f, 8_000_000 * f, 0, 100 * f, 100 * f * 2000, 10_000 + r);
        // recv: the same, every one timed at 1,000 ns, plus 50 ms (r+1) measured in waits.
        call(x, 0, CallKind.RECV, 1000 * f, 8_000_000 * f, 50_000_000 * f, 1000 * f, 1000 * f * 1000, 900_000);
        // allReduce: 500 calls of 64 B, 100 ms measured in waits, 50 timed at 4,000 ns.
        call(x, 0, CallKind.ALL_REDUCE, 500, 500 * 64, 100_000_000, 50, 50 * 4000, 2_000_000);
        call(x, 0, CallKind.FILE_WRITE_AT, 16, 1 << 20, 0, 16, 3_000_000, 400_000);
        call(x, 0, CallKind.WIN_PUT, 10 * f, 800 * f, 0, 10 * f, 5000, 900);
        call(x, 0, CallKind.WIN_FENCE, 4, 0, 0, 4, 400, 150);
        if (r == 0)
        {
            // 1001 ns in 3 timed calls of 10: 3,337 ns estimated (rounded).
            call(x, 0, CallKind.BARRIER, 10, 0, 0, 3, 1001, 500);
            call(x, 0, CallKind.FILE_READ_AT, 1, 4096, 0, 1, 1000, 1000);
        }
        x.sizes[CallKind.SEND.ordinal()][SizeBuckets.of(8000)] = 1000 * f;
        x.sizes[CallKind.RECV.ordinal()][SizeBuckets.of(8000)] = 1000 * f;
        x.sizes[CallKind.ALL_REDUCE.ordinal()][SizeBuckets.of(64)] = 500;
        x.algorithms[CallKind.ALL_REDUCE.ordinal()][Algorithm.FLAT.ordinal()] = 400;
        x.algorithms[CallKind.ALL_REDUCE.ordinal()][Algorithm.P2P.ordinal()] = 100;

        final int next = (r + 1) % RANKS;
        x.p2pMessages[next] = 1000 * f;
        x.p2pBytes[next] = 8_000_000 * f;
        for (int p = 0; p < RANKS; p++)
        {
            if (p != r)
            {
                x.collMessages[p] = 500;
                x.collBytes[p] = 500 * 64;
            }
        }
        final int previous = (r + RANKS - 1) % RANKS;
        x.blockedNs[previous] = 50_000_000 * f;
        x.blockedWaits[previous] = 10 * f;
        x.blockedOtherNs = 100_000_000;
        x.blockedOtherWaits = 500;
        x.spins = 1000L * r;
        x.yields = 10;
        x.sleeps = 5;
        x.wakeups = 7;

        final RankRecord.FileStats file = new RankRecord.FileStats();
        file.bytesWritten = 1 << 20;
        file.timeNs = 3_000_000;
        file.ops[1] = 16;
        file.sizes[SizeBuckets.of(65536)] = 16;
        if (r == 0)
        {
            file.bytesRead = 4096;
            file.ops[0] = 1;
            file.sizes[SizeBuckets.of(4096)] = 1;
            file.timeNs += 1000;
        }
        x.files.put(FILE, file);

        final RankRecord.WindowStats win = new RankRecord.WindowStats();
        win.ops[0] = 10 * f;
        win.bytes = 800 * f;
        win.epochs[0] = 4;
        win.lockWaits = r;
        win.lockWaitNs = 1000L * r;
        win.timeNs = 5400;
        x.windows.put(WINDOW, win);

        if (r == 0)
        {
            region(x, "io", SECOND / 10);
            call(x, 1, CallKind.FILE_WRITE_AT, 16, 1 << 20, 0, 16, 3_000_000, 400_000);
        }
        final int solve = region(x, "solve", SECOND / 2);
        call(x, solve, CallKind.RECV, 100, 800_000, 1_000_000, 0, 0, 20_000);

        if (r == 0)
        {
            x.sites.put("recv\tRing.run(Ring.java:42)", new long[] {1000, 51_000_000, 8_000_000});
        }
        if (r == 1)
        {
            x.sites.put("send\tRing.run(Ring.java:40) <main>", new long[] {2000, 4_000_000, 16_000_000});
        }
        return x;
    }

    private static int region(final RankRecord x, final String name, final long wallNs)
    {
        x.regions.add(name);
        x.regionWallNs.add(wallNs);
        x.addRegionArrays();
        return x.regions.size() - 1;
    }

    private static void call(final RankRecord x, final int region, final CallKind k, final long count, final long bytes,
        final long waitNs, final long sampled, final long sampledNs, final long maxNs)
    {
        final int i = k.ordinal();
        x.count.get(region)[i] = count;
        x.bytes.get(region)[i] = bytes;
        x.waitNs.get(region)[i] = waitNs;
        x.sampled.get(region)[i] = sampled;
        // sampledNs here is what the timed calls took; the record holds the estimate for every call.
        x.sampledNs.get(region)[i] = sampled == 0 ? 0 : Math.round((double) sampledNs * count / sampled);
        x.maxNs.get(region)[i] = maxNs;
    }
}
