package org.shmpi.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rank's record file: the last published text is what a reader gets, whatever the other slot holds. */
class RecordFileTest
{
    @TempDir
    Path dir;

    private static RankRecord record(final int rank, final long sends)
    {
        final RankRecord r = new RankRecord();
        r.rank = rank;
        r.size = 2;
        r.peers(2);
        r.count.get(0)[CallKind.SEND.ordinal()] = sends;
        return r;
    }

    @Test
    void theLastPublishedRecordIsRead() throws Exception
    {
        final Path p = dir.resolve("rank-0-1.txt");
        try (RecordFile f = RecordFile.create(p, 4096))
        {
            assertThrows(IllegalArgumentException.class, () -> RankRecord.read(p), "nothing published yet");
            f.write(record(1, 5).text());
            assertEquals(5, RankRecord.read(p).count.get(0)[CallKind.SEND.ordinal()]);
            f.write(record(1, 7).text());
            f.write(record(1, 9).text());
            assertEquals(9, RankRecord.read(p).count.get(0)[CallKind.SEND.ordinal()]);
        }
    }

    @Test
    void aWriteCutShortInTheOtherSlotLeavesTheLastRecord() throws Exception
    {
        final Path p = dir.resolve("rank-0-0.txt");
        try (RecordFile f = RecordFile.create(p, 4096))
        {
            f.write(record(0, 3).text());
            f.write(record(0, 4).text());
        }
        // The slot not published (slot 0 after two writes) overwritten as a dying writer would.
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE))
        {
            ch.write(java.nio.ByteBuffer.wrap("garbage garbage".getBytes()), 64);
        }
        assertEquals(4, RankRecord.read(p).count.get(0)[CallKind.SEND.ordinal()]);
    }

    @Test
    void aRecordLargerThanASlotGrowsTheFile() throws Exception
    {
        final Path p = dir.resolve("rank-0-2.txt");
        try (RecordFile f = RecordFile.create(p, 256))
        {
            final RankRecord r = record(2, 11);
            for (int i = 0; i < 50; i++)
            {
                r.files.put("/some/long/path/file-" + i + ".dat", new RankRecord.FileStats());
            }
            f.write(r.text());
            final RankRecord back = RankRecord.read(p);
            assertEquals(50, back.files.size());
            assertEquals(11, back.count.get(0)[CallKind.SEND.ordinal()]);
            f.write(record(2, 12).text());
            assertEquals(12, RankRecord.read(p).count.get(0)[CallKind.SEND.ordinal()]);
        }
        assertEquals(false, Files.exists(dir.resolve("rank-0-2.txt.new")));
    }

    @Test
    void countersCopiedBehindTheTextAddUpPerThreadAndRegion() throws Exception
    {
        final int kinds = CallKind.count();
        final int send = CallKind.SEND.ordinal();
        final RankRecord names = new RankRecord();
        names.rank = 1;
        names.size = 3;
        names.regions.add("solve\0phase");
        names.regionWallNs.add(5L);
        names.files.put("out.dat", new RankRecord.FileStats());
        final ByteBuffer counters = ByteBuffer.allocate(Counters.bytes(2, 3) + Counters.bytes(1, 3))
            .order(ByteOrder.LITTLE_ENDIAN);
        // Thread one: two regions; thread two: the whole run only.
        for (final int regions : new int[] {2, 1})
        {
            final long[] stats = new long[regions * kinds * Counters.STRIDE];
            stats[send * Counters.STRIDE + Counters.COUNT] = 10 * regions;
            stats[send * Counters.STRIDE + Counters.BYTES] = 80 * regions;
            stats[send * Counters.STRIDE + Counters.MAX] = 100 + regions;
            if (regions == 2)
            {
                stats[(kinds + send) * Counters.STRIDE + Counters.COUNT] = 4;
            }
            final long[] sizes = new long[kinds * SizeBuckets.COUNT];
            sizes[send * SizeBuckets.COUNT] = 10 * regions;
            final long[] algs = new long[kinds * Algorithm.values().length];
            final long[][] peers = new long[Counters.PEER_ARRAYS][3];
            peers[0][2] = 10 * regions;
            peers[1][2] = 80 * regions;
            Counters.put(counters, stats, sizes, algs, peers, 3, 7, regions);
        }
        counters.flip();
        final Path p = dir.resolve("rank-0-1.txt");
        try (RecordFile f = RecordFile.create(p, 128))
        {
            f.write(names.namesText().getBytes(StandardCharsets.UTF_8), counters);
        }
        final RankRecord r = RankRecord.read(p);
        // A 0 byte in a name (it ends the slot's text) is written as a space.
        assertEquals(List.of("all", "solve phase"), r.regions);
        assertEquals(Set.of("out.dat"), r.files.keySet());
        assertEquals(30, r.count.get(0)[send]);
        assertEquals(240, r.bytes.get(0)[send]);
        assertEquals(102, r.maxNs.get(0)[send]);
        assertEquals(4, r.count.get(1)[send]);
        assertEquals(30, r.sizes[send][0]);
        assertArrayEquals(new long[] {0, 0, 30}, r.p2pMessages);
        assertArrayEquals(new long[] {0, 0, 240}, r.p2pBytes);
        assertEquals(14, r.blockedOtherNs);
        assertEquals(3, r.blockedOtherWaits);
    }
}
