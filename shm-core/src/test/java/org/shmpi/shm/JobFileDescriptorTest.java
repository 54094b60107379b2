package org.shmpi.shm;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.shm.JobFileDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.shm.LayoutDiagram.Field;
import org.shmpi.shm.LayoutDiagram.Row;

/** Pins the job file layout: every offset, the total length, and the Javadoc diagram. */
class JobFileDescriptorTest
{
    /** Header fields in file order, with the width JobFile reads and writes them at. */
    private static final List<Field> HEADER = List.of(
        new Field("magic", MAGIC_OFFSET, 8),
        new Field("version", VERSION_OFFSET, 4),
        new Field("world size", WORLD_SIZE_OFFSET, 4),
        new Field("launcher pid", LAUNCHER_PID_OFFSET, 8),
        new Field("launcher start time", LAUNCHER_START_TIME_OFFSET, 8),
        new Field("ring capacity", RING_CAPACITY_OFFSET, 4),
        new Field("launcher heartbeat", LAUNCHER_HEARTBEAT_OFFSET, 8),
        new Field("status request sequence", STATUS_REQUEST_OFFSET, 4),
        new Field("status request flags", STATUS_FLAGS_OFFSET, 4),
        new Field("abort state", ABORT_STATE_OFFSET, 4),
        new Field("abort code", ABORT_CODE_OFFSET, 4),
        new Field("abort rank", ABORT_RANK_OFFSET, 4),
        new Field("abort kind", ABORT_KIND_OFFSET, 4),
        new Field("abort reason length", ABORT_REASON_LENGTH_OFFSET, 4),
        new Field("abort reason", ABORT_REASON_OFFSET, ABORT_REASON_MAX_LENGTH));

    private static final List<Field> SLOT = List.of(
        new Field("pid", SLOT_PID_OFFSET, 8),
        new Field("state", SLOT_STATE_OFFSET, 4),
        new Field("exit code", SLOT_EXIT_CODE_OFFSET, 4),
        new Field("heartbeat", SLOT_HEARTBEAT_OFFSET, 8),
        new Field("pid start time", SLOT_PID_START_TIME_OFFSET, 8),
        new Field("bound cpu", SLOT_CPU_OFFSET, 4),
        new Field("numa node", SLOT_NUMA_NODE_OFFSET, 4),
        new Field("wait sequence", SLOT_WAIT_SEQUENCE_OFFSET, 4),
        new Field("blocked call", SLOT_WAIT_CALL_OFFSET, 4),
        new Field("wait on", SLOT_WAIT_ON_OFFSET, 4),
        new Field("peer", SLOT_WAIT_PEER_OFFSET, 4),
        new Field("tag", SLOT_WAIT_TAG_OFFSET, 4),
        new Field("context id", SLOT_WAIT_CONTEXT_OFFSET, 4),
        new Field("bytes", SLOT_WAIT_BYTES_OFFSET, 8),
        new Field("blocked since", SLOT_WAIT_SINCE_OFFSET, 8),
        new Field("status answered sequence", SLOT_STATUS_ANSWERED_OFFSET, 4),
        new Field("node", SLOT_NODE_OFFSET, 4));

    @Test
    void diagramAssumesSixtyFourByteCacheLines()
    {
        assertEquals(64, CACHE_LINE_LENGTH);
    }

    @Test
    void everyOffsetHasItsDocumentedValue()
    {
        assertEquals(0, MAGIC_OFFSET);
        assertEquals(8, VERSION_OFFSET);
        assertEquals(12, WORLD_SIZE_OFFSET);
        assertEquals(16, LAUNCHER_PID_OFFSET);
        assertEquals(24, LAUNCHER_START_TIME_OFFSET);
        assertEquals(32, RING_CAPACITY_OFFSET);
        assertEquals(128, LAUNCHER_HEARTBEAT_OFFSET);
        assertEquals(256, ABORT_STATE_OFFSET);
        assertEquals(260, ABORT_CODE_OFFSET);
        assertEquals(264, ABORT_RANK_OFFSET);
        assertEquals(268, ABORT_KIND_OFFSET);
        assertEquals(272, ABORT_REASON_LENGTH_OFFSET);
        assertEquals(276, ABORT_REASON_OFFSET);
        assertEquals(236, ABORT_REASON_MAX_LENGTH);
        assertEquals(512, RANK_SLOTS_OFFSET);
        assertEquals(128, RANK_SLOT_LENGTH);

        assertEquals(0, SLOT_PID_OFFSET);
        assertEquals(8, SLOT_STATE_OFFSET);
        assertEquals(12, SLOT_EXIT_CODE_OFFSET);
        assertEquals(16, SLOT_HEARTBEAT_OFFSET);
        assertEquals(24, SLOT_PID_START_TIME_OFFSET);
        assertEquals(32, SLOT_CPU_OFFSET);
        assertEquals(36, SLOT_NUMA_NODE_OFFSET);
        assertEquals(192, STATUS_REQUEST_OFFSET);
        assertEquals(196, STATUS_FLAGS_OFFSET);
        assertEquals(40, SLOT_WAIT_SEQUENCE_OFFSET);
        assertEquals(44, SLOT_WAIT_CALL_OFFSET);
        assertEquals(48, SLOT_WAIT_ON_OFFSET);
        assertEquals(52, SLOT_WAIT_PEER_OFFSET);
        assertEquals(56, SLOT_WAIT_TAG_OFFSET);
        assertEquals(60, SLOT_WAIT_CONTEXT_OFFSET);
        assertEquals(64, SLOT_WAIT_BYTES_OFFSET);
        assertEquals(72, SLOT_WAIT_SINCE_OFFSET);
        assertEquals(80, SLOT_STATUS_ANSWERED_OFFSET);
        assertEquals(84, SLOT_NODE_OFFSET);
    }

    @Test
    void headerFieldsDoNotOverlapAndAreNaturallyAligned()
    {
        LayoutDiagram.checkDisjointAndAligned(HEADER.subList(0, HEADER.size() - 1));
        // The reason is a byte array: it only has to fit between the length word and the slots.
        final Field reason = HEADER.get(HEADER.size() - 1);
        assertEquals(ABORT_REASON_LENGTH_OFFSET + 4, reason.offset());
        assertEquals(RANK_SLOTS_OFFSET, reason.end(), "the abort reason must end exactly where the slots start");
    }

    @Test
    void slotFieldsDoNotOverlapAndFitTheSlot()
    {
        LayoutDiagram.checkDisjointAndAligned(SLOT);
        assertTrue(SLOT.get(SLOT.size() - 1).end() <= RANK_SLOT_LENGTH);
    }

    @Test
    void launcherWrittenHeaderFitsTheFirstCacheLine()
    {
        for (final Field f : HEADER.subList(0, 6))
        {
            assertTrue(f.end() <= CACHE_LINE_LENGTH, f::toString);
        }
    }

    @Test
    void hotRegionsStartOnTheirOwnCacheLines()
    {
        // The launcher heartbeat is written often: it has line 2 to itself (line 3 holds only the
        // status request, written when someone asks for a report).
        assertEquals(0, LAUNCHER_HEARTBEAT_OFFSET % CACHE_LINE_LENGTH);
        assertTrue(RING_CAPACITY_OFFSET + 4 <= LAUNCHER_HEARTBEAT_OFFSET - CACHE_LINE_LENGTH,
            "a full cache line of padding separates the static header from the heartbeat");
        assertTrue(LAUNCHER_HEARTBEAT_OFFSET + 8 <= ABORT_STATE_OFFSET - CACHE_LINE_LENGTH,
            "a full cache line of padding separates the heartbeat from the abort word");
        assertEquals(0, ABORT_STATE_OFFSET % CACHE_LINE_LENGTH);
        assertEquals(0, RANK_SLOTS_OFFSET % CACHE_LINE_LENGTH);
        assertEquals(2 * CACHE_LINE_LENGTH, RANK_SLOT_LENGTH, "a slot is two cache lines");
        for (int rank = 0; rank < 8; rank++)
        {
            assertEquals(0, slotOffset(rank) % (2 * CACHE_LINE_LENGTH), "slot " + rank);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 64, 1000, MAX_WORLD_SIZE})
    void lengthIsHeaderPlusOneSlotPerRank(final int worldSize)
    {
        assertEquals(512 + 128L * worldSize, length(worldSize));
        assertEquals(RANK_SLOTS_OFFSET + (long)RANK_SLOT_LENGTH * worldSize, length(worldSize));
        assertEquals(512 + 128 * (worldSize - 1), slotOffset(worldSize - 1));
        assertEquals(length(worldSize), slotOffset(worldSize - 1) + RANK_SLOT_LENGTH, "last slot ends the file");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, MAX_WORLD_SIZE + 1, Integer.MIN_VALUE})
    void worldSizeOutOfRangeIsRejectedWithTheValue(final int worldSize)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> length(worldSize));
        assertTrue(ex.getMessage().contains("worldSize=" + worldSize), ex.getMessage());
    }

    @Test
    void magicSpellsShmpijobInLittleEndian()
    {
        final long fromText = ByteBuffer.wrap("SHMPIJOB".getBytes(StandardCharsets.US_ASCII))
            .order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(fromText, MAGIC);
    }

    @Test
    void versionWordPacksMajorAndMinorAndIsNeverZero()
    {
        assertEquals((MAJOR_VERSION << 16) | MINOR_VERSION, VERSION);
        assertEquals(MAJOR_VERSION, majorVersion(VERSION));
        assertNotEquals(0, VERSION, "0 means not ready");
        assertEquals(7, majorVersion(0x0007_FFFF));
    }

    @Test
    void abortStatesAreDistinctAndNoneIsZero()
    {
        assertEquals(0, ABORT_NONE, "a fresh (zeroed) file is not aborted");
        assertNotEquals(ABORT_NONE, ABORT_WRITING);
        assertNotEquals(ABORT_WRITING, ABORT_PUBLISHED);
        assertNotEquals(ABORT_NONE, ABORT_PUBLISHED);
    }

    @Test
    void javadocDiagramAgreesWithTheConstants() throws Exception
    {
        final List<String> doc = LayoutDiagram.javadocOf("org/shmpi/shm/JobFileDescriptor.java");
        final List<Row> rows = LayoutDiagram.absoluteRows(doc);
        final List<Row> expected = List.of(
            new Row("Magic (64)", MAGIC_OFFSET),
            new Row("Version (ready flag, written last)", VERSION_OFFSET),
            new Row("World size", WORLD_SIZE_OFFSET),
            new Row("Launcher pid (64)", LAUNCHER_PID_OFFSET),
            new Row("Launcher start time, epoch ms (64)", LAUNCHER_START_TIME_OFFSET),
            new Row("Ring capacity", RING_CAPACITY_OFFSET),
            new Row("Launcher heartbeat, nanoTime (64)", LAUNCHER_HEARTBEAT_OFFSET),
            new Row("Status request sequence", STATUS_REQUEST_OFFSET),
            new Row("Status request flags", STATUS_FLAGS_OFFSET),
            new Row("Abort state", ABORT_STATE_OFFSET),
            new Row("Abort code", ABORT_CODE_OFFSET),
            new Row("Abort rank (-1 = launcher)", ABORT_RANK_OFFSET),
            new Row("Abort kind", ABORT_KIND_OFFSET),
            new Row("Abort reason length", ABORT_REASON_LENGTH_OFFSET),
            new Row("Abort reason, UTF-8 (" + ABORT_REASON_MAX_LENGTH + " bytes)", ABORT_REASON_OFFSET),
            new Row("Rank slot 0 (" + RANK_SLOT_LENGTH + " bytes)", RANK_SLOTS_OFFSET));
        assertEquals(expected, rows);

        final String text = String.join("\n", doc);
        assertTrue(text.contains("pad to " + LAUNCHER_HEARTBEAT_OFFSET + " "), "padding before the heartbeat");
        assertTrue(text.contains("pad to " + ABORT_STATE_OFFSET + " "), "padding before the abort word");
        // Rows marked (64) must be the 8-byte fields.
        for (final Row row : rows)
        {
            if (row.label().contains("(64)"))
            {
                final Field f = HEADER.stream().filter(h -> h.offset() == row.offset()).findFirst().orElseThrow();
                assertEquals(8, f.size(), row::toString);
            }
        }

        final List<Row> slotRows = LayoutDiagram.relativeRows(doc);
        final List<Integer> slotOffsets = slotRows.stream().map(Row::offset).toList();
        assertEquals(SLOT.stream().map(Field::offset).toList(), slotOffsets, slotRows::toString);
        for (int i = 0; i < SLOT.size(); i++)
        {
            final String label = slotRows.get(i).label().toLowerCase(Locale.ROOT);
            assertTrue(label.startsWith(SLOT.get(i).name()), "slot row " + slotRows.get(i) + " vs " + SLOT.get(i));
            if (label.contains("(64)"))
            {
                assertEquals(8, SLOT.get(i).size(), slotRows.get(i)::toString);
            }
        }
    }
}
