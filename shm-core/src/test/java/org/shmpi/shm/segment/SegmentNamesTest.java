package org.shmpi.shm.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.shm.JobDirectory;

class SegmentNamesTest
{
    @Test
    void everyKindIsNamedInOnePlace()
    {
        assertEquals("inbox-3", SegmentNames.inbox(3));
        assertEquals(new JobDirectory(Path.of("/j")).inboxFile(3).getFileName().toString(), SegmentNames.inbox(3),
            "the job directory and the manager agree on inbox names");
        assertEquals("heap-2-17", SegmentNames.heap(2, 17));
        assertEquals("coll-5-1", SegmentNames.collective(5, 1));
        assertEquals("win-9-4", SegmentNames.window(9, 4));
        assertEquals("file-7", SegmentNames.file(7));
    }

    @Test
    void negativeRanksAndIdsAreRejectedWithTheValue()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SegmentNames.inbox(-1)).getMessage()
            .contains("rank=-1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SegmentNames.heap(0, -5)).getMessage()
            .contains("id=-5"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "job", "a/b", "../inbox-0", "with space", "tab\t", "caf\u00e9"})
    void namesThatAreNotOnePlainFileAreRejected(final String name)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> SegmentNames.checkName(name));
        assertTrue(ex.getMessage().contains("name=" + name), ex.getMessage());
    }

    @Test
    void plainNamesPass()
    {
        assertEquals("heap-0-0", SegmentNames.checkName("heap-0-0"));
        assertEquals("x".repeat(255), SegmentNames.checkName("x".repeat(255)));
        assertThrows(IllegalArgumentException.class, () -> SegmentNames.checkName("x".repeat(256)));
        assertThrows(IllegalArgumentException.class, () -> SegmentNames.checkName(null));
    }
}
