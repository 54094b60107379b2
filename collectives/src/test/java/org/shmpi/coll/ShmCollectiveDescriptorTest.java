package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.coll.ShmCollectiveDescriptor.*;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Row;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;

/**
 * Pins the collective segment's layout: every offset, the strides, the total length with and
 * without leader blocks, the padding between writers, and the Javadoc diagram.
 */
class ShmCollectiveDescriptorTest
{
    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(128, LINE);
        assertEquals(0, RANKS_OFFSET);
        assertEquals(4, DATA_BYTES_OFFSET);
        assertEquals(8, GROUPS_OFFSET);
        assertEquals(12, GATHER_BYTES_OFFSET);
        assertEquals(128, BLOCKS_OFFSET);
        assertEquals(0, flagOffset(0));
        assertEquals(128, flagOffset(1));
        assertEquals(8, INLINE_OFFSET);
        assertEquals(48, INLINE_PAYLOAD);
        assertEquals(56, FINISHED_OFFSET);
        assertEquals(256, DONE_OFFSET);
        assertEquals(256, doneOffset(0));
        assertEquals(264, doneOffset(1));
        assertEquals(256, doneOffset(2));
        assertEquals(384, DATA_OFFSET);
        assertEquals(384, dataOffset(0, 8192));
        assertEquals(384 + 8192, dataOffset(1, 8192));
        assertEquals(384 + 2 * 8192, stride(8192));
        assertEquals(128 + 3L * (384 + 2 * 8192), payloadLength(3, 8192));
        assertEquals(128 + 2L * (384 + 2 * 1024), blockOffset(2, 1024));
        assertEquals(payloadLength(3, 8192), payloadLength(3, 8192, 0, 0));
    }

    @Test
    void leaderBlocksAndGroupMapHaveTheirDocumentedOffsets()
    {
        assertEquals(0, GATHER_OFFSET);
        assertEquals(0, gatherOffset(0));
        assertEquals(128, gatherOffset(1));
        assertEquals(256, RELEASE_OFFSET);
        assertEquals(256, releaseOffset(0));
        assertEquals(384, releaseOffset(1));
        assertEquals(512, LEADER_DATA_OFFSET);
        // Groups of up to 5 members: 5 x 48 = 240 bytes, padded to 256; of 6, 288 padded to 384.
        assertEquals(256, gatherBytes(5));
        assertEquals(384, gatherBytes(6));
        assertEquals(128, gatherBytes(1));
        assertEquals(128, gatherBytes(2));
        assertEquals(256, gatherBytes(3));
        assertEquals(256 * 48, gatherBytes(256));
        assertEquals(512, gatherAreaOffset(0, 384));
        assertEquals(512 + 384, gatherAreaOffset(1, 384));
        assertEquals(512 + 2 * 384, resultOffset(0, 384, 1024));
        assertEquals(512 + 2 * 384 + 1024, resultOffset(1, 384, 1024));
        assertEquals(512 + 2 * 384 + 2 * 1024, leaderStride(1024, 384));

        // 9 ranks in 3 groups of at most 6 (gather areas of 384 bytes), data slots of 1024: member blocks,
        // leader blocks, map.
        final long blocks = 128 + 9L * (384 + 2 * 1024);
        final long leader = 512 + 2 * 384 + 2 * 1024;
        assertEquals(blocks, leaderOffset(0, 9, 1024, 384));
        assertEquals(blocks + 2 * leader, leaderOffset(2, 9, 1024, 384));
        assertEquals(blocks + 3 * leader, groupMapOffset(9, 1024, 3, 384));
        assertEquals(blocks + 3 * leader + 128, payloadLength(9, 1024, 3, 384), "9 ints of map, padded to 128");
        assertEquals(128 + 33L * (384 + 2 * 1024) + 3 * leader + 256, payloadLength(33, 1024, 3, 384),
            "33 ints of map, padded to 256");
    }

    @Test
    void theDiagramShowsTheOffsetsOfTheCode() throws Exception
    {
        final List<Row> rows = LayoutDiagram.relativeRows(
            LayoutDiagram.javadocOf("org/shmpi/coll/ShmCollectiveDescriptor.java"));
        final int gather = 384;
        final int data = 1024;
        // label, then the offset the code gives it (relative rows: "+512 + gather" reads as 512).
        final Object[][] expected = {
            {"flag line, parity 0", flagOffset(0)},
            {"flag line, parity 1", flagOffset(1)},
            {"done, parity 0", doneOffset(0)},
            {"done, parity 1", doneOffset(1)},
            {"data slot, parity 0", dataOffset(0, data)},
            {"+ data", dataOffset(1, data) - data},
            {"gather line, parity 0", gatherOffset(0)},
            {"gather line, parity 1", gatherOffset(1)},
            {"release line, parity 0", releaseOffset(0)},
            {"release line, parity 1", releaseOffset(1)},
            {"gather area, parity 0", gatherAreaOffset(0, gather)},
            {"+ gather", gatherAreaOffset(1, gather) - gather},
            {"+ 2 gather", resultOffset(0, gather, data) - 2 * gather},
            {"+ 2 gather + data", resultOffset(1, gather, data) - 2 * gather - data},
        };
        assertEquals(expected.length, rows.size(), rows::toString);
        for (int i = 0; i < expected.length; i++)
        {
            assertTrue(rows.get(i).label().startsWith((String)expected[i][0]), "row " + i + ": " + rows.get(i));
            assertEquals((int)expected[i][1], rows.get(i).offset(), "row " + i + ": " + rows.get(i));
        }
    }

    @Test
    void everyLineWrittenByOneRankAtOneTimeHasTwoCacheLinesToItself()
    {
        final int[] starts = {flagOffset(0), flagOffset(1), DONE_OFFSET, DATA_OFFSET};
        for (int i = 1; i < starts.length; i++)
        {
            assertTrue(starts[i] - starts[i - 1] >= 2 * 64, "line " + i);
        }
        final int[] leaderStarts = {gatherOffset(0), gatherOffset(1), releaseOffset(0), releaseOffset(1),
            gatherAreaOffset(0, 128), gatherAreaOffset(1, 128), resultOffset(0, 128, 128), resultOffset(1, 128, 128)};
        for (int i = 1; i < leaderStarts.length; i++)
        {
            assertTrue(leaderStarts[i] - leaderStarts[i - 1] >= 2 * 64, "leader line " + i);
        }
        for (final int g : new int[] {1, 2, 3, 7, 64})
        {
            assertEquals(0, gatherBytes(g) % LINE, "gather areas of groups of " + g);
            assertEquals(0, leaderStride(1024, gatherBytes(g)) % LINE);
            assertEquals(0, (SegmentHeaderDescriptor.HEADER_LENGTH + leaderOffset(1, 5, 1024, gatherBytes(g))) % LINE,
                "leader blocks start on a 128-byte boundary");
        }
        assertTrue(INLINE_OFFSET + INLINE_PAYLOAD <= FINISHED_OFFSET, "the payload ends before the finished word");
        assertTrue(FINISHED_OFFSET + 8 <= 64,
            "the inline payload and the finished word share the seq word's cache line");
        assertEquals(0, (SegmentHeaderDescriptor.HEADER_LENGTH + BLOCKS_OFFSET) % LINE,
            "blocks start on a 128-byte boundary");
        assertEquals(0, stride(128) % LINE);
    }

    @Test
    void badSizesAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> stride(100));
        assertThrows(IllegalArgumentException.class, () -> stride(0));
        assertThrows(IllegalArgumentException.class, () -> payloadLength(0, 1024));
        assertThrows(IllegalArgumentException.class, () -> payloadLength(4, 1024, 1, 128), "one group is flat");
        assertThrows(IllegalArgumentException.class, () -> payloadLength(4, 1024, 5, 128), "more groups than ranks");
        assertThrows(IllegalArgumentException.class, () -> payloadLength(4, 1024, 2, 100));
        assertThrows(IllegalArgumentException.class, () -> payloadLength(4, 1024, 0, 128));
        assertThrows(IllegalArgumentException.class, () -> gatherBytes(0));
    }
}
