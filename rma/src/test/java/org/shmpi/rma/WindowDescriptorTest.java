package org.shmpi.rma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The window segment's layout: words on lines of their own, counters that fit, regions placed as documented. */
class WindowDescriptorTest
{
    @Test
    void headerWordsFitTheirLine()
    {
        assertEquals(0, WindowDescriptor.RANKS_OFFSET);
        assertEquals(4, WindowDescriptor.FLAVOR_OFFSET);
        assertEquals(8, WindowDescriptor.CONTIGUOUS_OFFSET);
        assertEquals(12, WindowDescriptor.CONTROL_STRIDE_OFFSET);
        assertEquals(16, WindowDescriptor.CONTROL_OFFSET_OFFSET);
        assertEquals(24, WindowDescriptor.DATA_OFFSET_OFFSET);
        assertTrue(WindowDescriptor.DATA_OFFSET_OFFSET + 8 <= WindowDescriptor.HEADER_LENGTH);
        assertEquals(WindowDescriptor.HEADER_LENGTH, WindowDescriptor.controlOffset());
    }

    @Test
    void controlBlockKeepsEachWriterSetOnItsOwnLines()
    {
        for (final int n : new int[] {1, 2, 15, 16, 17, 64, 256})
        {
            // Lock, accumulate lock and waiter count each on a line of their own.
            assertEquals(0, WindowDescriptor.LOCK_OFFSET);
            assertEquals(64, WindowDescriptor.ACC_LOCK_OFFSET);
            assertEquals(128, WindowDescriptor.WAITERS_OFFSET);
            assertEquals(192, WindowDescriptor.POSTS_OFFSET);
            final int completes = WindowDescriptor.completesOffset(n);
            assertTrue(completes >= WindowDescriptor.POSTS_OFFSET + 4 * n, "posts fit, n=" + n);
            assertEquals(0, completes % 64, "completes start a line, n=" + n);
            final int stride = WindowDescriptor.controlStride(n);
            assertTrue(stride >= completes + 4 * n, "completes fit, n=" + n);
            assertEquals(0, stride % 64, "blocks start on lines, n=" + n);
            final long data = WindowDescriptor.dataOffset(n);
            assertEquals(0, data % 4096, "data on a page, n=" + n);
            assertTrue(data >= WindowDescriptor.controlOffset() + (long)n * stride, "data after the blocks, n=" + n);
        }
    }

    @Test
    void regionsAreContiguousOrPageAligned()
    {
        final long[] sizes = {10, 0, 4097, 3};
        assertArrayEquals(new long[] {0, 10, 10, 4107, 4110}, WindowDescriptor.regionOffsets(sizes, true));
        assertArrayEquals(new long[] {0, 4096, 4096, 12288, 16384}, WindowDescriptor.regionOffsets(sizes, false));
    }
}
