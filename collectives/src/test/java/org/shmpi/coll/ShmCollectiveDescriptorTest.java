package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.coll.ShmCollectiveDescriptor.*;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;

/** Pins the collective segment's layout: every offset, the stride, the total length, and the padding between writers. */
class ShmCollectiveDescriptorTest
{
    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(128, LINE);
        assertEquals(0, RANKS_OFFSET);
        assertEquals(4, DATA_BYTES_OFFSET);
        assertEquals(128, BLOCKS_OFFSET);
        assertEquals(0, flagOffset(0));
        assertEquals(128, flagOffset(1));
        assertEquals(8, INLINE_OFFSET);
        assertEquals(56, INLINE_PAYLOAD);
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
    }

    @Test
    void everyLineWrittenByOneRankAtOneTimeHasTwoCacheLinesToItself()
    {
        final int[] starts = {flagOffset(0), flagOffset(1), DONE_OFFSET, DATA_OFFSET};
        for (int i = 1; i < starts.length; i++)
        {
            assertTrue(starts[i] - starts[i - 1] >= 2 * 64, "line " + i);
        }
        assertTrue(INLINE_OFFSET + INLINE_PAYLOAD <= 64, "the inline payload shares the seq word's cache line");
        assertEquals(0, (SegmentHeaderDescriptor.HEADER_LENGTH + BLOCKS_OFFSET) % LINE, "blocks start on a 128-byte boundary");
        assertEquals(0, stride(128) % LINE);
    }

    @Test
    void badSizesAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> stride(100));
        assertThrows(IllegalArgumentException.class, () -> stride(0));
        assertThrows(IllegalArgumentException.class, () -> payloadLength(0, 1024));
    }
}
