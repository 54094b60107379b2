package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The association every reduction algorithm uses, written out for small n. */
class ReductionOrderTest
{
    private static String tree(final int n)
    {
        final String[] slots = new String[n];
        for (int i = 0; i < n; i++)
        {
            slots[i] = Integer.toString(i);
        }
        final int[] calls = new int[1];
        final int result = ReductionOrder.fold(n, (in, inout) ->
        {
            slots[inout] = "(" + slots[in] + " " + slots[inout] + ")";
            slots[in] = "used";
            calls[0]++;
        });
        assertEquals(ReductionOrder.resultSlot(n), result);
        assertEquals(Math.max(0, n - 1), calls[0], "n - 1 combinations");
        return slots[result];
    }

    @Test
    void theRankOrderedBinomialTree()
    {
        assertEquals("0", tree(1));
        assertEquals("(0 1)", tree(2));
        assertEquals("((0 1) 2)", tree(3));
        assertEquals("((0 1) (2 3))", tree(4));
        assertEquals("(((0 1) (2 3)) 4)", tree(5));
        assertEquals("(((0 1) (2 3)) (4 5))", tree(6));
        assertEquals("(((0 1) (2 3)) ((4 5) 6))", tree(7));
        assertEquals("((((0 1) (2 3)) ((4 5) (6 7))) 8)", tree(9));
    }
}
