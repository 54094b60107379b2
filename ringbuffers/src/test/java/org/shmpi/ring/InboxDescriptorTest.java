package org.shmpi.ring;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.InboxDescriptor.*;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.HEADER_LENGTH;

import java.util.List;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/**
 * Pins the inbox file layout: the common segment header, then every payload offset, the total
 * length, and the Javadoc diagram (which shows file offsets).
 */
class InboxDescriptorTest
{
    private static final List<Field> PAYLOAD = List.of(
        new Field("capacity", CAPACITY_OFFSET, 4),
        new Field("wake word", WAKE_WORD_OFFSET, 4));

    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(64, CACHE_LINE_LENGTH);
        assertEquals(128, HEADER_LENGTH, "the inbox payload starts after the common segment header");
        assertEquals(0, CAPACITY_OFFSET);
        assertEquals(128, WAKE_WORD_OFFSET);
        assertEquals(256, RING_OFFSET);
    }

    @Test
    void fieldsDoNotOverlapAndAreNaturallyAligned()
    {
        LayoutDiagram.checkDisjointAndAligned(PAYLOAD);
        assertTrue(PAYLOAD.get(PAYLOAD.size() - 1).end() <= RING_OFFSET);
        assertTrue(CAPACITY_OFFSET + 4 <= CACHE_LINE_LENGTH, "the owner-written field in the first payload line");
    }

    @Test
    void wakeWordAndRingHaveTheirOwnCacheLines()
    {
        assertEquals(0, (HEADER_LENGTH + WAKE_WORD_OFFSET) % (2 * CACHE_LINE_LENGTH));
        assertTrue(CAPACITY_OFFSET + 4 <= WAKE_WORD_OFFSET - CACHE_LINE_LENGTH,
            "a full line of padding between the capacity and the wake word");
        assertTrue(WAKE_WORD_OFFSET + 4 <= RING_OFFSET - CACHE_LINE_LENGTH,
            "a full line of padding between the wake word (CAS by peers) and the ring");
        assertEquals(0, (HEADER_LENGTH + RING_OFFSET) % (2 * CACHE_LINE_LENGTH));
        assertEquals(0, WAKE_WORD_OFFSET % 4, "futex words are 4-byte aligned");
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 65536, 1 << 20, 1 << 30})
    void lengthIsHeaderRingAndTrailer(final int capacity)
    {
        assertEquals(256 + capacity + RingBufferDescriptor.TRAILER_LENGTH, payloadLength(capacity));
        assertEquals(128L + 256 + capacity + RingBufferDescriptor.TRAILER_LENGTH, length(capacity));
        assertEquals(0, (HEADER_LENGTH + RING_OFFSET + capacity) % CACHE_LINE_LENGTH,
            "the ring trailer starts on a line");
        assertTrue(isValidCapacity(capacity));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2048, 4095, 4097, 65535, 100_000, -65536, Integer.MIN_VALUE})
    void capacityMustBeAPowerOfTwoOfAtLeastFourKiB(final int capacity)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> length(capacity));
        assertTrue(ex.getMessage().contains("capacity=" + capacity), ex.getMessage());
        assertFalse(isValidCapacity(capacity));
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        final List<String> doc = LayoutDiagram.javadocOf("org/shmpi/ring/InboxDescriptor.java");
        assertEquals(List.of(
            new Row("Segment header (" + HEADER_LENGTH + " bytes)", 0),
            new Row("Ring capacity", HEADER_LENGTH + CAPACITY_OFFSET),
            new Row("Forwarded (0 or 1)", HEADER_LENGTH + FORWARDED_OFFSET),
            new Row("Doorbell rank + 1 (forwarded)", HEADER_LENGTH + DOORBELL_OFFSET),
            new Row("Wake word (owner sleeps, peers wake)", HEADER_LENGTH + WAKE_WORD_OFFSET),
            new Row("Ring: capacity bytes + trailer", HEADER_LENGTH + RING_OFFSET)), LayoutDiagram.absoluteRows(doc));
        final String text = String.join("\n", doc);
        assertTrue(text.contains("pad to " + (HEADER_LENGTH + WAKE_WORD_OFFSET) + " "));
        assertTrue(text.contains("pad to " + (HEADER_LENGTH + RING_OFFSET) + " "));
    }
}
