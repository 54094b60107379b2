package org.shmpi.ring;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.ring.InboxDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/** Pins the inbox file layout: every offset, the total length, and the Javadoc diagram. */
class InboxDescriptorTest
{
    private static final List<Field> HEADER = List.of(
        new Field("magic", MAGIC_OFFSET, 8),
        new Field("version", VERSION_OFFSET, 4),
        new Field("owner rank", OWNER_RANK_OFFSET, 4),
        new Field("owner pid", OWNER_PID_OFFSET, 8),
        new Field("capacity", CAPACITY_OFFSET, 4),
        new Field("wake word", WAKE_WORD_OFFSET, 4));

    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(64, CACHE_LINE_LENGTH);
        assertEquals(0, MAGIC_OFFSET);
        assertEquals(8, VERSION_OFFSET);
        assertEquals(12, OWNER_RANK_OFFSET);
        assertEquals(16, OWNER_PID_OFFSET);
        assertEquals(24, CAPACITY_OFFSET);
        assertEquals(128, WAKE_WORD_OFFSET);
        assertEquals(256, RING_OFFSET);
    }

    @Test
    void fieldsDoNotOverlapAndAreNaturallyAligned()
    {
        LayoutDiagram.checkDisjointAndAligned(HEADER);
        assertTrue(HEADER.get(HEADER.size() - 1).end() <= RING_OFFSET);
        for (final Field f : HEADER.subList(0, 5))
        {
            assertTrue(f.end() <= CACHE_LINE_LENGTH, "owner-written header in the first line: " + f);
        }
    }

    @Test
    void wakeWordAndRingHaveTheirOwnCacheLines()
    {
        assertEquals(0, WAKE_WORD_OFFSET % CACHE_LINE_LENGTH);
        assertTrue(CAPACITY_OFFSET + 4 <= WAKE_WORD_OFFSET - CACHE_LINE_LENGTH,
            "a full line of padding between the header and the wake word");
        assertTrue(WAKE_WORD_OFFSET + 4 <= RING_OFFSET - CACHE_LINE_LENGTH,
            "a full line of padding between the wake word (CAS by peers) and the ring");
        assertEquals(0, RING_OFFSET % (2 * CACHE_LINE_LENGTH));
        assertEquals(0, WAKE_WORD_OFFSET % 4, "futex words are 4-byte aligned");
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 65536, 1 << 20, 1 << 30})
    void lengthIsHeaderRingAndTrailer(final int capacity)
    {
        assertEquals(256L + capacity + RingBufferDescriptor.TRAILER_LENGTH, length(capacity));
        assertEquals(0, (RING_OFFSET + capacity) % CACHE_LINE_LENGTH, "the ring trailer starts on a line");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2048, 4095, 4097, 65535, 100_000, -65536, Integer.MIN_VALUE})
    void capacityMustBeAPowerOfTwoOfAtLeastFourKiB(final int capacity)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> length(capacity));
        assertTrue(ex.getMessage().contains("capacity=" + capacity), ex.getMessage());
    }

    @Test
    void magicSpellsShmpiboxAndVersionIsNeverZero()
    {
        final long fromText = ByteBuffer.wrap("SHMPIBOX".getBytes(StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(fromText, MAGIC);
        assertEquals(MAJOR_VERSION, VERSION >>> 16);
        assertNotEquals(0, VERSION);
        assertNotEquals(org.shmpi.shm.JobFileDescriptor.MAGIC, MAGIC, "a job file is not an inbox");
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        final List<String> doc = LayoutDiagram.javadocOf("org/shmpi/ring/InboxDescriptor.java");
        assertEquals(List.of(
            new Row("Magic (64)", MAGIC_OFFSET),
            new Row("Version (ready flag, written last)", VERSION_OFFSET),
            new Row("Owner rank", OWNER_RANK_OFFSET),
            new Row("Owner pid (64)", OWNER_PID_OFFSET),
            new Row("Ring capacity", CAPACITY_OFFSET),
            new Row("Wake word (owner sleeps, peers wake)", WAKE_WORD_OFFSET),
            new Row("Ring: capacity bytes + trailer", RING_OFFSET)), LayoutDiagram.absoluteRows(doc));
        final String text = String.join("\n", doc);
        assertTrue(text.contains("pad to " + WAKE_WORD_OFFSET + " "));
        assertTrue(text.contains("pad to " + RING_OFFSET + " "));
    }
}
