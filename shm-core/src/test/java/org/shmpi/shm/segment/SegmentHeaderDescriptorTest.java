package org.shmpi.shm.segment;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.shm.segment.SegmentHeaderDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.shm.JobFileDescriptor;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/** Pins the common segment header: every offset, the length, the kinds, and the Javadoc diagram. */
class SegmentHeaderDescriptorTest
{
    /** Header fields in file order, with the width SegmentManager reads and writes them at. */
    private static final List<Field> HEADER = List.of(
        new Field("magic", MAGIC_OFFSET, 8),
        new Field("version", VERSION_OFFSET, 4),
        new Field("kind", KIND_OFFSET, 4),
        new Field("creator pid", CREATOR_PID_OFFSET, 8),
        new Field("creator start time", CREATOR_START_TIME_OFFSET, 8),
        new Field("creator rank", CREATOR_RANK_OFFSET, 4),
        new Field("payload offset", PAYLOAD_OFFSET_OFFSET, 4),
        new Field("payload length", PAYLOAD_LENGTH_OFFSET, 8));

    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(64, CACHE_LINE_LENGTH, "the diagram assumes 64-byte cache lines");
        assertEquals(0, MAGIC_OFFSET);
        assertEquals(8, VERSION_OFFSET);
        assertEquals(12, KIND_OFFSET);
        assertEquals(16, CREATOR_PID_OFFSET);
        assertEquals(24, CREATOR_START_TIME_OFFSET);
        assertEquals(32, CREATOR_RANK_OFFSET);
        assertEquals(36, PAYLOAD_OFFSET_OFFSET);
        assertEquals(40, PAYLOAD_LENGTH_OFFSET);
        assertEquals(128, HEADER_LENGTH);
        assertEquals(128, PAYLOAD_ALIGNMENT);
    }

    @Test
    void fieldsDoNotOverlapAreNaturallyAlignedAndFitTheFirstLine()
    {
        LayoutDiagram.checkDisjointAndAligned(HEADER);
        assertTrue(HEADER.get(HEADER.size() - 1).end() <= CACHE_LINE_LENGTH, "the header is read as one line");
        assertEquals(0, HEADER_LENGTH % (2 * CACHE_LINE_LENGTH), "payloads start on a 128-byte boundary");
        assertEquals(0, VERSION_OFFSET % 4, "the version word is read and released as an int");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4096, 1 << 20, MAX_PAYLOAD_LENGTH})
    void fileLengthIsHeaderPlusPayload(final long payloadLength)
    {
        assertEquals(128 + payloadLength, fileLength(payloadLength));
        assertTrue(fileLength(payloadLength) <= Integer.MAX_VALUE, "one FileChannel.map maps the whole file");
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, MAX_PAYLOAD_LENGTH + 1, Long.MIN_VALUE, Long.MAX_VALUE})
    void payloadLengthOutOfRangeIsRejectedWithTheValue(final long payloadLength)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> fileLength(payloadLength));
        assertTrue(ex.getMessage().contains("payloadLength=" + payloadLength), ex.getMessage());
    }

    @Test
    void payloadPlacementIsChecked()
    {
        assertNull(checkPayload(128, 0, 128));
        assertNull(checkPayload(128, 100, 228));
        assertNull(checkPayload(256, 100, 356), "a later minor version may grow the header");
        assertTrue(checkPayload(64, 10, 1000).contains("payloadOffset=64"));
        assertTrue(checkPayload(192, 10, 1000).contains("alignment=128"));
        assertTrue(checkPayload(128, 101, 228).contains("payloadLength=101, fileLength=228"));
        assertTrue(checkPayload(128, -1, 228).contains("payloadLength=-1"));
    }

    @Test
    void magicSpellsShmpisegInLittleEndianAndDiffersFromTheJobFile()
    {
        final long fromText = ByteBuffer.wrap("SHMPISEG".getBytes(StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(fromText, MAGIC);
        assertNotEquals(JobFileDescriptor.MAGIC, MAGIC);
    }

    @Test
    void versionWordPacksMajorAndMinorAndIsNeverZero()
    {
        assertEquals((MAJOR_VERSION << 16) | MINOR_VERSION, VERSION);
        assertEquals(MAJOR_VERSION, majorVersion(VERSION));
        assertNotEquals(0, VERSION, "0 means not ready");
    }

    @Test
    void kindCodesAreDistinctNonZeroAndRoundTrip()
    {
        final int[] codes = Arrays.stream(SegmentKind.values()).mapToInt(SegmentKind::code).toArray();
        assertEquals(codes.length, Arrays.stream(codes).distinct().count());
        assertTrue(Arrays.stream(codes).allMatch(c -> c != 0), "a zeroed header has no kind");
        for (final SegmentKind kind : SegmentKind.values())
        {
            assertEquals(kind, SegmentKind.ofCode(kind.code()));
        }
        assertEquals(List.of(KIND_INBOX, KIND_HEAP, KIND_COLLECTIVE, KIND_WINDOW, KIND_FILE),
            Arrays.stream(codes).boxed().toList());
        assertNull(SegmentKind.ofCode(0));
        assertNull(SegmentKind.ofCode(99));
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        final List<String> doc = LayoutDiagram.javadocOf("org/shmpi/shm/segment/SegmentHeaderDescriptor.java");
        final List<Row> rows = LayoutDiagram.absoluteRows(doc);
        assertEquals(List.of(
            new Row("Magic (64)", MAGIC_OFFSET),
            new Row("Version (ready flag, written last)", VERSION_OFFSET),
            new Row("Kind", KIND_OFFSET),
            new Row("Creator pid (64)", CREATOR_PID_OFFSET),
            new Row("Creator start time, epoch ms (64)", CREATOR_START_TIME_OFFSET),
            new Row("Creator rank", CREATOR_RANK_OFFSET),
            new Row("Payload offset", PAYLOAD_OFFSET_OFFSET),
            new Row("Payload length (64)", PAYLOAD_LENGTH_OFFSET),
            new Row("Payload", HEADER_LENGTH)), rows);
        assertTrue(String.join("\n", doc).contains("pad to " + HEADER_LENGTH + " "), "padding before the payload");
        for (final Row row : rows)
        {
            if (row.label().contains("(64)"))
            {
                final Field f = HEADER.stream().filter(h -> h.offset() == row.offset()).findFirst().orElseThrow();
                assertEquals(8, f.size(), row::toString);
            }
        }
    }
}
