package org.shmpi.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

/**
 * Type maps against values worked out by hand from the standard's definitions and its examples
 * (MPI-2.2 section 4.1), and the copy program against the type map: pack order, fragments, and
 * nothing written outside the map.
 */
class TypeMapTest
{
    private static final int INT = 5;
    private static final int DOUBLE = 8;
    private static final int FLOAT = 7;
    private static final int CHAR = 2;
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private static final TypeMap T_INT = TypeMap.basic(INT, 4);
    private static final TypeMap T_DOUBLE = TypeMap.basic(DOUBLE, 8);
    private static final TypeMap T_FLOAT = TypeMap.basic(FLOAT, 4);
    /** A one-byte character, as the standard's examples use. */
    private static final TypeMap T_CHAR = TypeMap.basic(CHAR, 1);
    /** The standard's oldtype {(double, 0), (char, 8)}, extent 16. */
    private static final TypeMap DOUBLE_CHAR =
        TypeMap.struct(new int[] {1, 1}, new long[] {0, 8}, new TypeMap[] {T_DOUBLE, T_CHAR});

    /** size, lb, extent, trueLb, trueExtent. */
    private static void assertBounds(final TypeMap t, final long size, final long lb, final long extent,
        final long trueLb, final long trueExtent)
    {
        assertEquals(size, t.size(), "size of " + t);
        assertEquals(lb, t.lb(), "lb of " + t);
        assertEquals(extent, t.extent(), "extent of " + t);
        assertEquals(trueLb, t.trueLb(), "trueLb of " + t);
        assertEquals(trueExtent, t.trueExtent(), "trueExtent of " + t);
    }

    private static void assertBlocks(final TypeMap t, final long... dispLen)
    {
        assertEquals(dispLen.length / 2, t.blocks(), t.toString());
        for (int i = 0; i < t.blocks(); i++)
        {
            assertEquals(dispLen[2 * i], t.blockDisplacement(i), "block " + i + " of " + t);
            assertEquals(dispLen[2 * i + 1], t.blockLength(i), "block " + i + " of " + t);
        }
    }

    @Test
    void structOfDoubleAndCharIsPaddedToItsAlignment()
    {
        assertBounds(DOUBLE_CHAR, 9, 0, 16, 0, 9);
        assertBlocks(DOUBLE_CHAR, 0, 9);
        assertFalse(DOUBLE_CHAR.isContiguous());
    }

    @Test
    void contiguousMergesIntoOneRun()
    {
        final TypeMap t = TypeMap.contiguous(3, T_INT);
        assertBounds(t, 12, 0, 12, 0, 12);
        assertBlocks(t, 0, 12);
        assertTrue(t.isContiguous());
        assertSame(DataLayout.CONTIGUOUS, t.layout());
        assertArrayEquals(new long[][] {{INT, 3}}, t.signature());
    }

    /** The standard's MPI_TYPE_VECTOR(2, 3, 4, oldtype) example. */
    @Test
    void vectorOfTheStandardsExample()
    {
        final TypeMap t = TypeMap.hvector(2, 3, 4 * DOUBLE_CHAR.extent(), DOUBLE_CHAR);
        assertBounds(t, 54, 0, 112, 0, 105);
        assertBlocks(t, 0, 9, 16, 9, 32, 9, 64, 9, 80, 9, 96, 9);
        assertArrayEquals(new long[][] {{DOUBLE, 1}, {CHAR, 1}, {DOUBLE, 1}, {CHAR, 1}, {DOUBLE, 1}, {CHAR, 1},
            {DOUBLE, 1}, {CHAR, 1}, {DOUBLE, 1}, {CHAR, 1}, {DOUBLE, 1}, {CHAR, 1}}, t.signature());
    }

    /** The standard's MPI_TYPE_VECTOR(3, 1, -2, oldtype): a negative stride. */
    @Test
    void vectorWithNegativeStride()
    {
        final TypeMap t = TypeMap.hvector(3, 1, -2 * DOUBLE_CHAR.extent(), DOUBLE_CHAR);
        assertBounds(t, 27, -64, 80, -64, 73);
        assertBlocks(t, 0, 9, -32, 9, -64, 9);
        assertEquals(-64, t.touchedLow(1));
        assertEquals(9, t.touchedHigh(1));
        assertEquals(-64, t.touchedLow(2));
        assertEquals(80 + 9, t.touchedHigh(2));
    }

    /** The standard's MPI_TYPE_INDEXED(2, B = (3, 1), D = (4, 0), oldtype) example, in bytes. */
    @Test
    void indexedOfTheStandardsExampleKeepsTypeMapOrder()
    {
        final TypeMap t = TypeMap.hindexed(new int[] {3, 1}, new long[] {4 * 16, 0}, DOUBLE_CHAR);
        assertBounds(t, 36, 0, 112, 0, 105);
        assertBlocks(t, 64, 9, 80, 9, 96, 9, 0, 9);
        // Packed order is type-map order: the block at 64 comes first.
        final byte[] user = numbered(112);
        final byte[] packed = new byte[36];
        t.layout().pack(user, BYTES, 0, packed, BYTES, 36);
        assertEquals(64, packed[0]);
        assertEquals(72, packed[8]);
        assertEquals(80, packed[9]);
        assertEquals(0, packed[27]);
        assertEquals(8, packed[35]);
    }

    /** The standard's MPI_TYPE_STRUCT(3, B = (2, 1, 3), D = (0, 16, 26), T = (FLOAT, type1, CHAR)) example. */
    @Test
    void structOfTheStandardsExample()
    {
        final TypeMap t = TypeMap.struct(new int[] {2, 1, 3}, new long[] {0, 16, 26},
            new TypeMap[] {T_FLOAT, DOUBLE_CHAR, T_CHAR});
        assertBounds(t, 20, 0, 32, 0, 29);
        assertBlocks(t, 0, 8, 16, 9, 26, 3);
        assertArrayEquals(new long[][] {{FLOAT, 2}, {DOUBLE, 1}, {CHAR, 4}}, t.signature());
    }

    @Test
    void resizedBoundsAreExplicitAndSurviveStructs()
    {
        final TypeMap r = TypeMap.resized(T_INT, -4, 12);
        assertBounds(r, 4, -4, 12, 0, 4);
        final TypeMap two = TypeMap.contiguous(2, r);
        assertBounds(two, 8, -4, 24, 0, 16);
        assertBlocks(two, 0, 4, 12, 4);
        // No alignment padding after explicit bounds: extent 6 stays 6.
        final TypeMap s = TypeMap.struct(new int[] {1}, new long[] {0}, new TypeMap[] {TypeMap.resized(T_INT, 0, 6)});
        assertBounds(s, 4, 0, 6, 0, 4);
    }

    @Test
    void emptyTypesHaveZeroBounds()
    {
        assertBounds(TypeMap.contiguous(0, T_INT), 0, 0, 0, 0, 0);
        assertBounds(TypeMap.hindexed(new int[] {0, 0}, new long[] {8, 16}, T_INT), 0, 0, 0, 0, 0);
        assertEquals(0, TypeMap.contiguous(0, T_INT).touchedHigh(5));
    }

    @Test
    void subarrayInCAndFortranOrder()
    {
        final TypeMap c = TypeMap.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2}, TypeMap.Order.C,
            T_INT);
        assertBounds(c, 24, 0, 80, 28, 32);
        assertBlocks(c, 28, 12, 48, 12);
        final TypeMap f = TypeMap.subarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2},
            TypeMap.Order.FORTRAN, T_INT);
        assertBounds(f, 24, 0, 80, 36, 40);
        assertBlocks(f, 36, 8, 52, 8, 68, 8);
        assertThrows(IllegalArgumentException.class, () -> TypeMap.subarray(new int[] {4}, new int[] {3},
            new int[] {2}, TypeMap.Order.C, T_INT));
    }

    /** A 4 x 6 int array, rows in blocks and columns cyclic by 2 over a 2 x 2 grid. */
    @Test
    void darrayOfOneRankAndThePartitionOfAll()
    {
        final int[] g = {4, 6};
        final int[] dist = {TypeMap.DISTRIBUTE_BLOCK, TypeMap.DISTRIBUTE_CYCLIC};
        final int[] darg = {TypeMap.DISTRIBUTE_DFLT_DARG, 2};
        final int[] p = {2, 2};
        // Rank 3 is (1, 1): rows 2, 3 and columns 2, 3: ints 14, 15, 20, 21.
        final TypeMap t = TypeMap.darray(4, 3, g, dist, darg, p, TypeMap.Order.C, T_INT);
        assertBounds(t, 16, 0, 96, 56, 32);
        assertBlocks(t, 56, 8, 80, 8);
        // Every element of the array belongs to exactly one rank, in C and in Fortran order.
        for (final TypeMap.Order order : TypeMap.Order.values())
        {
            final int[] owner = new int[24];
            java.util.Arrays.fill(owner, -1);
            for (int rank = 0; rank < 4; rank++)
            {
                final TypeMap part = TypeMap.darray(4, rank, g, dist, darg, p, order, T_INT);
                assertEquals(96, part.extent());
                for (int b = 0; b < part.blocks(); b++)
                {
                    for (long k = 0; k < part.blockLength(b); k += 4)
                    {
                        final int e = (int)((part.blockDisplacement(b) + k) / 4);
                        assertEquals(-1, owner[e], "element " + e + " owned twice (" + order + ")");
                        owner[e] = rank;
                    }
                }
            }
            for (int e = 0; e < 24; e++)
            {
                assertTrue(owner[e] >= 0, "element " + e + " owned by no rank (" + order + ")");
            }
        }
        assertThrows(IllegalArgumentException.class, () -> TypeMap.darray(3, 0, g, dist, darg, p, TypeMap.Order.C,
            T_INT));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.darray(4, 0, g, new int[] {
            TypeMap.DISTRIBUTE_NONE, TypeMap.DISTRIBUTE_BLOCK}, darg, p, TypeMap.Order.C, T_INT));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.darray(4, 0, g, dist, new int[] {1, 2}, p,
            TypeMap.Order.C, T_INT));
    }

    @Test
    void signaturesCompareBySequenceOfBasicElements()
    {
        assertArrayEquals(TypeMap.contiguous(3, T_INT).signature(), TypeMap.hvector(3, 1, 12, T_INT).signature());
        assertFalse(java.util.Arrays.deepEquals(TypeMap.contiguous(3, T_INT).signature(),
            TypeMap.contiguous(3, T_FLOAT).signature()));
        assertFalse(java.util.Arrays.deepEquals(TypeMap.contiguous(3, T_INT).signature(),
            TypeMap.contiguous(2, T_INT).signature()));
    }

    @Test
    void badArgumentsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> TypeMap.contiguous(-1, T_INT));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.hvector(2, -1, 8, T_INT));
        assertThrows(IllegalArgumentException.class,
            () -> TypeMap.hindexed(new int[] {1, -2}, new long[] {0, 8}, T_INT));
        assertThrows(IllegalArgumentException.class, () -> TypeMap.hindexed(new int[] {1}, new long[] {0, 8}, T_INT));
        assertThrows(IllegalArgumentException.class,
            () -> TypeMap.struct(new int[] {1, 1}, new long[] {0, 8}, new TypeMap[] {T_INT}));
    }

    /**
     * Three levels deep (a vector of structs holding an indexed type), three items: packing in
     * random fragments gives the bytes of packing at once, unpacking them into a fresh buffer
     * restores exactly the bytes of the type map and writes nothing else.
     */
    @Test
    void nestedTypesPackAndUnpackInAnyFragments()
    {
        final TypeMap indexed = TypeMap.hindexed(new int[] {2, 1}, new long[] {8, 0}, T_INT);
        final TypeMap struct = TypeMap.struct(new int[] {1, 2}, new long[] {0, 16},
            new TypeMap[] {indexed, T_DOUBLE});
        final TypeMap vector = TypeMap.hvector(3, 2, 3 * struct.extent(), struct);
        assertEquals(3 * 2 * (12 + 16), vector.size());
        final int items = 3;
        final long span = vector.touchedHigh(items);
        final byte[] user = numbered((int)span);
        final long total = vector.size() * items;
        final byte[] whole = new byte[(int)total];
        vector.layout().pack(user, BYTES, 0, whole, BYTES, total);

        final Random random = new Random(20261202);
        for (int round = 0; round < 50; round++)
        {
            final byte[] pieces = new byte[(int)total];
            final byte[] restored = new byte[(int)span];
            java.util.Arrays.fill(restored, (byte)0x5A);
            long at = 0;
            while (at < total)
            {
                final long n = Math.min(total - at, 1 + random.nextInt(40));
                vector.layout().pack(user, BYTES, at, pieces, BYTES + at, n);
                vector.layout().unpack(pieces, BYTES + at, n, restored, BYTES, at);
                at += n;
            }
            assertArrayEquals(whole, pieces, "round " + round);
            final boolean[] covered = new boolean[(int)span];
            for (int item = 0; item < items; item++)
            {
                for (int b = 0; b < vector.blocks(); b++)
                {
                    for (long k = 0; k < vector.blockLength(b); k++)
                    {
                        covered[(int)(item * vector.extent() + vector.blockDisplacement(b) + k)] = true;
                    }
                }
            }
            for (int i = 0; i < span; i++)
            {
                assertEquals(covered[i] ? user[i] : (byte)0x5A, restored[i], "byte " + i + ", round " + round);
            }
        }
    }

    /**
     * Blocks of every length from 1 to 70 bytes (word, overlapping last word, int/short/byte
     * tails, copyMemory above 64) move exactly their bytes, in random fragments: nothing in the
     * gaps or around the blocks is written.
     */
    @Test
    void blocksOfEveryLengthMoveExactlyTheirBytes()
    {
        final int blocks = 70;
        final int[] lengths = new int[blocks];
        final long[] displacements = new long[blocks];
        long at = 3;
        for (int i = 0; i < blocks; i++)
        {
            lengths[i] = i + 1;
            displacements[i] = at;
            at += lengths[i] + 1 + i % 5;
        }
        final TypeMap t = TypeMap.hindexed(lengths, displacements, T_CHAR);
        assertFalse(t.layout() instanceof StridedLayout);
        final int items = 2;
        final int span = (int)t.touchedHigh(items) + 9;
        final byte[] user = numbered(span);
        final int total = (int)(t.size() * items);
        final byte[] expected = new byte[total];
        final boolean[] covered = new boolean[span];
        int p = 0;
        for (int item = 0; item < items; item++)
        {
            for (int b = 0; b < blocks; b++)
            {
                for (int k = 0; k < lengths[b]; k++)
                {
                    final int u = (int)(item * t.extent() + displacements[b] + k);
                    expected[p++] = user[u];
                    covered[u] = true;
                }
            }
        }
        final Random random = new Random(70);
        for (int round = 0; round < 20; round++)
        {
            final byte[] packed = new byte[total + 16];
            java.util.Arrays.fill(packed, (byte)0x33);
            final byte[] back = new byte[span];
            java.util.Arrays.fill(back, (byte)0x5A);
            long done = 0;
            while (done < total)
            {
                final long n = Math.min(total - done, round == 0 ? total : 1 + random.nextInt(100));
                t.layout().pack(user, BYTES, done, packed, BYTES + 8 + done, n);
                t.layout().unpack(packed, BYTES + 8 + done, n, back, BYTES, done);
                done += n;
            }
            assertArrayEquals(expected, java.util.Arrays.copyOfRange(packed, 8, 8 + total), "round " + round);
            for (int i = 0; i < 8; i++)
            {
                assertEquals((byte)0x33, packed[i]);
                assertEquals((byte)0x33, packed[8 + total + i]);
            }
            for (int i = 0; i < span; i++)
            {
                assertEquals(covered[i] ? user[i] : (byte)0x5A, back[i], "byte " + i + ", round " + round);
            }
        }
    }

    /**
     * Vector shapes take the loop-compressed program; it moves exactly the bytes of the general one, in any
     * fragments.
     */
    @Test
    void stridedProgramMatchesTheGeneralOne()
    {
        final Random random = new Random(7);
        for (final TypeMap t : new TypeMap[] {TypeMap.hvector(50, 1, 16, T_DOUBLE), TypeMap.hvector(20, 3, 20, T_INT),
            TypeMap.hvector(9, 1, -24, T_DOUBLE), TypeMap.hindexed(new int[] {1}, new long[] {8}, T_DOUBLE),
            TypeMap.hvector(40, 1, 512, T_DOUBLE), TypeMap.hvector(30, 1, -1024, T_DOUBLE)})
        {
            assertTrue(t.layout() instanceof StridedLayout, t.toString());
            final DataLayout general = new FlatLayout(t);
            final int items = 3;
            final long shift = -t.touchedLow(items);
            final int span = (int)(t.touchedHigh(items) + shift);
            final byte[] user = numbered(span);
            final long total = t.size() * items;
            final byte[] a = new byte[(int)total];
            final byte[] b = new byte[(int)total];
            final byte[] backA = new byte[span];
            final byte[] backB = new byte[span];
            long at = 0;
            while (at < total)
            {
                final long n = Math.min(total - at, 1 + random.nextInt(30));
                t.layout().pack(user, BYTES + shift, at, a, BYTES + at, n);
                general.pack(user, BYTES + shift, at, b, BYTES + at, n);
                t.layout().unpack(a, BYTES + at, n, backA, BYTES + shift, at);
                general.unpack(b, BYTES + at, n, backB, BYTES + shift, at);
                at += n;
            }
            assertArrayEquals(b, a, t.toString());
            assertArrayEquals(backB, backA, t.toString());
        }
        assertFalse(DOUBLE_CHAR.layout() instanceof StridedLayout && TypeMap.hindexed(new int[] {1, 2},
            new long[] {0, 16}, T_INT).layout() instanceof StridedLayout);
    }

    private static byte[] numbered(final int n)
    {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++)
        {
            b[i] = (byte)i;
        }
        return b;
    }
}
