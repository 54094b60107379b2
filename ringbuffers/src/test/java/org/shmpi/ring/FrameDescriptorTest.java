package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.shmpi.ring.FrameDescriptor.*;

import java.util.List;

import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.junit.jupiter.api.Test;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/** Pins the frame header layout and its Javadoc diagram. */
class FrameDescriptorTest
{
    private static final List<Field> HEADER = List.of(
        new Field("context", CONTEXT_OFFSET, 4),
        new Field("source", SOURCE_OFFSET, 4),
        new Field("tag", TAG_OFFSET, 4),
        new Field("flags", FLAGS_OFFSET, 4),
        new Field("sequence", SEQUENCE_OFFSET, 4),
        new Field("reserved", RESERVED_OFFSET, 4),
        new Field("message length", MESSAGE_LENGTH_OFFSET, 8),
        new Field("fragment offset", FRAGMENT_OFFSET_OFFSET, 8),
        new Field("token", TOKEN_OFFSET, 8),
        new Field("peer token", PEER_TOKEN_OFFSET, 8));

    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(0, CONTEXT_OFFSET);
        assertEquals(4, SOURCE_OFFSET);
        assertEquals(8, TAG_OFFSET);
        assertEquals(12, FLAGS_OFFSET);
        assertEquals(16, SEQUENCE_OFFSET);
        assertEquals(20, RESERVED_OFFSET);
        assertEquals(24, MESSAGE_LENGTH_OFFSET);
        assertEquals(32, FRAGMENT_OFFSET_OFFSET);
        assertEquals(40, TOKEN_OFFSET);
        assertEquals(48, PEER_TOKEN_OFFSET);
        assertEquals(56, HEADER_LENGTH);
    }

    @Test
    void fieldsAreContiguousAlignedAndEndAtTheHeaderLength()
    {
        LayoutDiagram.checkDisjointAndAligned(HEADER);
        for (int i = 1; i < HEADER.size(); i++)
        {
            assertEquals(HEADER.get(i - 1).end(), HEADER.get(i).offset(), "no gap before " + HEADER.get(i));
        }
        assertEquals(HEADER_LENGTH, HEADER.get(HEADER.size() - 1).end());
    }

    @Test
    void payloadStaysEightByteAlignedInTheRing()
    {
        // Agrona records start 8-aligned and carry an 8-byte header before our frame header.
        assertEquals(0, RecordDescriptor.ALIGNMENT % 8);
        assertEquals(0, RecordDescriptor.HEADER_LENGTH % 8);
        assertEquals(0, HEADER_LENGTH % 8);
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        assertEquals(List.of(
            new Row("Context id", CONTEXT_OFFSET),
            new Row("Source (world rank)", SOURCE_OFFSET),
            new Row("Tag", TAG_OFFSET),
            new Row("Flags", FLAGS_OFFSET),
            new Row("Message sequence (per sender)", SEQUENCE_OFFSET),
            new Row("Reserved", RESERVED_OFFSET),
            new Row("Message length, bytes (64)", MESSAGE_LENGTH_OFFSET),
            new Row("Fragment offset, bytes (64)", FRAGMENT_OFFSET_OFFSET),
            new Row("Token (64)", TOKEN_OFFSET),
            new Row("Peer token (64)", PEER_TOKEN_OFFSET),
            new Row("Payload ...", HEADER_LENGTH)),
            LayoutDiagram.absoluteRows(LayoutDiagram.javadocOf("org/shmpi/ring/FrameDescriptor.java")));
    }
}
