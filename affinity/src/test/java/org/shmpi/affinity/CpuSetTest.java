package org.shmpi.affinity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.NoSuchElementException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CpuSetTest
{
    @ParameterizedTest
    @ValueSource(strings = {"0", "0-3", "0-3,8,10-11", "1,3,5", "0-1", "7,9-10,65535", "2-4,6-8"})
    void canonicalFormRoundTrips(final String text)
    {
        final CpuSet set = CpuSet.parse(text);
        assertEquals(text, set.toString());
        assertEquals(set, CpuSet.parse(set.toString()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "3,1,2|1-3",
        "0-3,4|0-4",
        "5,5,5|5",
        "' 0-3 , 8 '|0-3,8",
        "0-7:2/4|0-1,4-5",
        "0-15:1/2|0,2,4,6,8,10,12,14",
        "10-11,0-3,8|0-3,8,10-11",
        "2-2|2",
    })
    void nonCanonicalInputIsNormalised(final String text, final String canonical)
    {
        assertEquals(canonical, CpuSet.parse(text).toString());
    }

    @Test
    void trailingNewlineFromSysfsIsIgnored()
    {
        assertEquals(CpuSet.of(0, 1), CpuSet.parse("0-1\n"));
    }

    @Test
    void emptyStringIsEmptySet()
    {
        assertTrue(CpuSet.parse("").isEmpty());
        assertTrue(CpuSet.parse(" \n").isEmpty());
        assertEquals("", CpuSet.empty().toString());
        assertEquals(0, CpuSet.parse("").size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "1-", "-1", "3-1", "1,,2", ",", "1,", "0-70000", "+1", "1-2-3", "0-7:2",
        "0-7:3/2", "0-7:0/2", "4:1/2", "1 2", "0x3"})
    void malformedInputIsRejectedWithValue(final String text)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(text));
        assertTrue(e.getMessage().contains("value=\"" + text + "\""), e.getMessage());
    }

    @Test
    void queries()
    {
        final CpuSet set = CpuSet.parse("0-3,8,10-11");
        assertEquals(7, set.size());
        assertTrue(set.contains(0));
        assertTrue(set.contains(3));
        assertTrue(set.contains(8));
        assertTrue(set.contains(11));
        assertFalse(set.contains(4));
        assertFalse(set.contains(9));
        assertFalse(set.contains(-1));
        assertFalse(set.contains(12));
        assertArrayEquals(new int[] {0, 1, 2, 3, 8, 10, 11}, set.toArray());
        assertEquals(0, set.first());
        assertEquals(11, set.last());
        assertEquals(8, set.get(4));
        assertThrows(IndexOutOfBoundsException.class, () -> set.get(7));
        assertEquals(7, set.stream().count());
    }

    @Test
    void toArrayIsACopy()
    {
        final CpuSet set = CpuSet.of(1, 2);
        set.toArray()[0] = 99;
        assertArrayEquals(new int[] {1, 2}, set.toArray());
    }

    @Test
    void firstAndLastOfEmptyThrow()
    {
        assertThrows(NoSuchElementException.class, () -> CpuSet.empty().first());
        assertThrows(NoSuchElementException.class, () -> CpuSet.empty().last());
    }

    @Test
    void ofSortsAndDeduplicates()
    {
        final CpuSet set = CpuSet.of(11, 0, 3, 2, 1, 10, 8, 0);
        assertEquals("0-3,8,10-11", set.toString());
        assertEquals(CpuSet.parse("0-3,8,10-11"), set);
        assertEquals(CpuSet.parse("0-3,8,10-11").hashCode(), set.hashCode());
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(-1));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.of(CpuSet.MAX_CPU_ID + 1));
    }

    @Test
    void equalityIsBySetContent()
    {
        assertEquals(CpuSet.range(0, 3), CpuSet.of(0, 1, 2, 3));
        assertNotEquals(CpuSet.of(0, 1), CpuSet.of(0, 2));
        assertNotEquals(CpuSet.of(0), CpuSet.empty());
        assertEquals(CpuSet.empty(), CpuSet.of());
        assertThrows(IllegalArgumentException.class, () -> CpuSet.range(3, 2));
    }

    @Test
    void setAlgebra()
    {
        final CpuSet a = CpuSet.parse("0-5");
        final CpuSet b = CpuSet.parse("4-9");
        assertEquals("0-9", a.union(b).toString());
        assertEquals("4-5", a.intersect(b).toString());
        assertEquals("0-3", a.minus(b).toString());
        assertTrue(a.intersect(CpuSet.of(7)).isEmpty());
        assertTrue(a.containsAll(CpuSet.of(1, 5)));
        assertFalse(a.containsAll(b));
        assertTrue(a.containsAll(CpuSet.empty()));
    }
}
