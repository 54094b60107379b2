package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.shmpi.ring.WholeFrameDescriptor.*;

import java.util.List;

import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.junit.jupiter.api.Test;
import org.shmpi.shm.LayoutDiagram;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/** Pins the compact frame header and its Javadoc diagram. */
class WholeFrameDescriptorTest
{
    @Test
    void offsetsAreContiguousAndTheEnvelopeMatchesTheFullHeader()
    {
        final List<Field> fields = List.of(
            new Field("context", CONTEXT_OFFSET, 4),
            new Field("source", SOURCE_OFFSET, 4),
            new Field("tag", TAG_OFFSET, 4),
            new Field("reserved", RESERVED_OFFSET, 4));
        LayoutDiagram.checkDisjointAndAligned(fields);
        assertEquals(HEADER_LENGTH, fields.get(fields.size() - 1).end());
        assertEquals(FrameDescriptor.CONTEXT_OFFSET, CONTEXT_OFFSET);
        assertEquals(FrameDescriptor.SOURCE_OFFSET, SOURCE_OFFSET);
        assertEquals(FrameDescriptor.TAG_OFFSET, TAG_OFFSET);
        assertEquals(16, HEADER_LENGTH);
        // The payload stays 8-byte aligned in the ring.
        assertEquals(0, (RecordDescriptor.HEADER_LENGTH + HEADER_LENGTH) % 8);
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        assertEquals(List.of(
            new Row("Context id", CONTEXT_OFFSET),
            new Row("Source (world rank)", SOURCE_OFFSET),
            new Row("Tag", TAG_OFFSET),
            new Row("Reserved", RESERVED_OFFSET),
            new Row("Payload ...", HEADER_LENGTH)),
            LayoutDiagram.absoluteRows(LayoutDiagram.javadocOf("org/shmpi/ring/WholeFrameDescriptor.java")));
    }
}
