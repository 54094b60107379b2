package org.shmpi.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Huge counts: an error or a result at once, never minutes of work or an exhausted heap (found by FuzzIT). */
@Timeout(10)
class TypeMapLimitsTest
{
    private static final TypeMap BYTE = TypeMap.basic(1, 1);
    private static final TypeMap DOUBLE = TypeMap.basic(2, 8);

    @Test
    void aContiguousRunOfAnyLengthIsOneBlock()
    {
        final TypeMap t = TypeMap.contiguous(Integer.MAX_VALUE, BYTE);
        assertEquals(Integer.MAX_VALUE, t.size());
        assertEquals(Integer.MAX_VALUE, t.extent());
        final TypeMap v = TypeMap.hvector(1 << 20, 4, 32, DOUBLE);
        assertEquals(32L << 20, v.size());
    }

    @Test
    void moreThanTwoGibOrTooManyBlocksIsAnErrorAtOnce()
    {
        assertThrows(IllegalArgumentException.class, () -> TypeMap.contiguous(Integer.MAX_VALUE, DOUBLE));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.hvector(Integer.MAX_VALUE, 1, -2, BYTE));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.hindexed(new int[] {Integer.MAX_VALUE, 1},
            new long[] {0, 8}, DOUBLE));
    }
}
