package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.coll.ShmLargeDescriptor.*;

import org.junit.jupiter.api.Test;

/** Pins the layout of the large-message slots. */
class ShmLargeDescriptorTest
{
    @Test
    void wordsAreOnLinesOfTheirOwnAndSlotsAreAligned()
    {
        assertEquals(0, RANKS_OFFSET);
        assertEquals(4, CHUNK_BYTES_OFFSET);
        assertEquals(128, BLOCKS_OFFSET);
        assertEquals(0, ARRIVED_OFFSET);
        assertEquals(128, REDUCED_OFFSET);
        assertEquals(256, DONE_OFFSET);
        assertEquals(384, SLOT_OFFSET);
        assertEquals(384 + 2 * 65536, stride(65536));
        assertEquals(128 + 3L * (384 + 2 * 4096), payloadLength(3, 4096));
        assertEquals(128 + 2L * (384 + 2 * 4096), blockOffset(2, 4096));
        assertEquals(384, slotOffset(0, 4096));
        assertEquals(384 + 4096, slotOffset(1, 4096));
        assertEquals(384, slotOffset(2, 4096), "round 2 reuses parity 0");
        for (int r = 0; r < 5; r++)
        {
            assertTrue((blockOffset(r, 8192) + SLOT_OFFSET) % 128 == 0, "slot of rank " + r + " is 128-byte aligned");
        }
        assertEquals(8, sourceOffset(0));
        assertEquals(16, positionOffset(0));
        assertEquals(24, sourceOffset(1));
        assertEquals(32, positionOffset(1));
        assertEquals(8, sourceOffset(2));
        assertTrue(positionOffset(1) + 8 <= REDUCED_OFFSET, "source words stay in the arrived line");
        assertEquals(65536, CHUNK_BYTES_DEFAULT);
    }

    @Test
    void theDefaultChunkShrinksWithTheMembersWithinItsBounds()
    {
        assertEquals(256 * 1024, defaultChunkBytes(2));
        assertEquals(256 * 1024, defaultChunkBytes(16));
        assertEquals(128 * 1024, defaultChunkBytes(32));
        assertEquals(64 * 1024, defaultChunkBytes(64));
        assertEquals(64 * 1024, defaultChunkBytes(1024));
        for (int n = 1; n <= 300; n++)
        {
            final int c = defaultChunkBytes(n);
            assertEquals(0, c % LINE, "n " + n);
            assertTrue(c >= CHUNK_BYTES_DEFAULT && c <= CHUNK_BYTES_DEFAULT_MAX, "n " + n + ": " + c);
            assertTrue(n <= 64 ? 2L * n * c <= SLOTS_BUDGET_DEFAULT : c == CHUNK_BYTES_DEFAULT, "n " + n + ": " + c);
            checkChunkBytes(c);
        }
    }

    @Test
    void badChunkSizesAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> stride(4000));
        assertThrows(IllegalArgumentException.class, () -> stride(2048));
        assertThrows(IllegalArgumentException.class, () -> stride(1 << 27));
        assertThrows(IllegalArgumentException.class, () -> payloadLength(0, 4096));
    }
}
