package org.shmpi.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
}
