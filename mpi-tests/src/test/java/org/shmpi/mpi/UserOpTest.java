package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.UserFunction;

/**
 * User operations ({@code new Op(function, commute)}): what the function is handed and what it
 * computes. {@code reduceLocal} on the caller's arrays of the base type, exactly {@code count}
 * items long, with a contiguous datatype, hands those very arrays over; every other case (longer
 * arrays, slices, direct buffers, a type with gaps) gets arrays of exactly {@code count} items, or
 * byte buffers of exactly their bytes, and the same results. Every reducing collective with a
 * commutative and a non-commutative op, each written in the array form only and in the byte
 * buffer form only, on arrays and on direct buffers, at sizes that take the small shared-memory,
 * the pipelined large and the point-to-point algorithms; on {@code COMM_WORLD} and a split that
 * reverses the ranks. Every call of every function checks the lengths, positions and byte order
 * it was given.
 */
@MpiTest(np = {1, 2, 3, 4})
class UserOpTest
{
    /** What the functions of this rank found wrong in what they were handed (checked after each test). */
    private static final List<String> HANDED_WRONG = new ArrayList<>();

    @AfterEach
    void nothingLeft()
    {
        final List<String> wrong = new ArrayList<>(HANDED_WRONG);
        HANDED_WRONG.clear();
        assertEquals(List.of(), wrong, "what the user functions were handed");
        Expect.nothingLeftUnreceived();
    }

    private static void wrong(final boolean ok, final String what)
    {
        if (!ok)
        {
            HANDED_WRONG.add(what);
        }
    }

    /** Doubles per item of {@code type} (a double-based type: its size counts doubles). */
    private static int perItem(final Datatype type)
    {
        return type.getSize();
    }

    /**
     * A reduction over doubles, written once and called through either form: {@link #combine}
     * computes {@code inout = in op inout} on two double arrays from index {@code at}. Records what
     * it was last handed.
     */
    private abstract static class DoubleOp extends UserFunction
    {
        private final boolean arrays;
        Object lastIn;
        Object lastInOut;
        int arrayCalls;
        int bufferCalls;

        DoubleOp(final boolean arrays)
        {
            this.arrays = arrays;
        }

        abstract void combine(double[] in, double[] inout, int count, int perItem);

        @Override
        public void call(final Object inVec, final Object inOutVec, final int count, final Datatype datatype)
        {
            arrayCalls++;
            if (!arrays)
            {
                throw new UnsupportedOperationException();
            }
            lastIn = inVec;
            lastInOut = inOutVec;
            final double[] in = (double[])inVec;
            final double[] inout = (double[])inOutVec;
            final int k = perItem(datatype);
            wrong(in.length == count * k && inout.length == count * k, "arrays of " + in.length + " and " +
                inout.length + " doubles for " + count + " items of " + k);
            combine(in, inout, count, k);
        }

        @Override
        public void call(final ByteBuffer in, final ByteBuffer inOut, final int count, final Datatype datatype)
        {
            bufferCalls++;
            if (arrays)
            {
                throw new UnsupportedOperationException();
            }
            lastIn = in;
            lastInOut = inOut;
            final int bytes = count * perItem(datatype) * 8;
            for (final ByteBuffer b : new ByteBuffer[] {in, inOut})
            {
                wrong(b.position() == 0 && b.limit() == bytes && b.capacity() == bytes &&
                    b.order() == ByteOrder.nativeOrder(), "buffer " + b + " for " + bytes + " bytes");
            }
            final double[] a = new double[bytes / 8];
            final double[] c = new double[bytes / 8];
            in.asDoubleBuffer().get(0, a);
            inOut.asDoubleBuffer().get(0, c);
            combine(a, c, count, perItem(datatype));
            inOut.asDoubleBuffer().put(0, c);
            // Moved and reordered: a buffer handed out again must come back at position 0, in native order.
            in.position(bytes).order(ByteOrder.BIG_ENDIAN == ByteOrder.nativeOrder() ? ByteOrder.LITTLE_ENDIAN :
                ByteOrder.BIG_ENDIAN);
            inOut.limit(0);
        }
    }

    /** Sum: commutative; exact on the small integers used here. */
    private static final class Sum extends DoubleOp
    {
        Sum(final boolean arrays)
        {
            super(arrays);
        }

        @Override
        void combine(final double[] in, final double[] inout, final int count, final int perItem)
        {
            for (int i = 0; i < count * perItem; i++)
            {
                inout[i] += in[i];
            }
        }
    }

    /**
     * Composition of affine maps {@code x -> a x + b}, items of two doubles {@code (a, b)}: first
     * {@code in}, then {@code inout}. Associative, not commutative; exact with small integers.
     */
    private static final class Affine extends DoubleOp
    {
        Affine(final boolean arrays)
        {
            super(arrays);
        }

        @Override
        void combine(final double[] in, final double[] inout, final int count, final int perItem)
        {
            for (int i = 0; i < count; i++)
            {
                final int p = 2 * i;
                inout[p + 1] = inout[p] * in[p + 1] + inout[p + 1];
                inout[p] = inout[p] * in[p];
            }
        }
    }

    private static DoubleOp function(final boolean commutative, final boolean arrays)
    {
        return commutative ? new Sum(arrays) : new Affine(arrays);
    }

    /** Rank r's doubles for {@code count} items of {@code perItem}: small integers, a in {1, 2} for affine maps. */
    private static double[] contribution(final int r, final int count, final int perItem)
    {
        final double[] d = new double[count * perItem];
        for (int i = 0; i < d.length; i++)
        {
            d[i] = perItem == 2 && i % 2 == 0 ? 1 + (r + i / 2) % 2 : (r * 7 + i) % 5 - 2;
        }
        return d;
    }

    /** The contributions of ranks {@code [0, upTo)} combined left to right. */
    private static double[] expected(final boolean commutative, final int upTo, final int count, final int perItem)
    {
        return expected(commutative, upTo, 0, count, perItem);
    }

    /** As {@link #expected(boolean, int, int, int)}, rank r contributing {@code contribution(r + shift)}. */
    private static double[] expected(final boolean commutative, final int upTo, final int shift, final int count,
        final int perItem)
    {
        final DoubleOp f = function(commutative, true);
        double[] acc = contribution(shift, count, perItem);
        for (int r = 1; r < upTo; r++)
        {
            final double[] next = contribution(r + shift, count, perItem);
            f.combine(acc, next, count, perItem);
            acc = next;
        }
        return acc;
    }

    private static Datatype pairOfDoubles()
    {
        final Datatype t = Datatype.createContiguous(2, MPI.DOUBLE);
        t.commit();
        return t;
    }

    // ------------------------------------------------------------------------------------------
    // reduceLocal

    @Test
    void reduceLocalHandsTheCallersOwnArraysToTheFunction()
    {
        final Datatype pair = pairOfDoubles();
        for (final boolean commutative : new boolean[] {true, false})
        {
            final Datatype type = commutative ? MPI.DOUBLE : pair;
            final int k = perItem(type);
            final DoubleOp f = function(commutative, true);
            final Op op = new Op(f, commutative);
            for (final int count : new int[] {1, 5, 1000})
            {
                final double[] in = contribution(1, count, k);
                final double[] inout = contribution(2, count, k);
                Comm.reduceLocal(in, inout, count, type, op);
                assertSame(in, f.lastIn, "in: the caller's array, count " + count);
                assertSame(inout, f.lastInOut, "inout: the caller's array, count " + count);
                final double[] expect = contribution(2, count, k);
                f.combine(contribution(1, count, k), expect, count, k);
                assertArrayEquals(expect, inout, "reduceLocal, count " + count);
            }
            op.free();
        }
        pair.free();
    }

    @Test
    void reduceLocalCopiesWhatIsNotExactlyTheItems()
    {
        final Datatype pair = pairOfDoubles();
        for (final boolean commutative : new boolean[] {true, false})
        {
            final Datatype type = commutative ? MPI.DOUBLE : pair;
            final int k = perItem(type);
            final int count = 300;
            final int n = count * k;
            final double[] in = contribution(3, count, k);
            final double[] base = contribution(4, count, k);
            final double[] expect = base.clone();
            function(commutative, true).combine(in, expect, count, k);
            for (final boolean arrays : new boolean[] {true, false})
            {
                final String form = (commutative ? "sum" : "affine") + (arrays ? ", array form" : ", buffer form");
                final DoubleOp f = function(commutative, arrays);
                final Op op = new Op(f, commutative);

                // Longer arrays: the function gets arrays of exactly count items; the tail stays.
                final double[] longIn = Arrays.copyOf(in, n + 4);
                final double[] longOut = Arrays.copyOf(base, n + 4);
                Arrays.fill(longOut, n, n + 4, 99);
                Comm.reduceLocal(longIn, longOut, count, type, op);
                assertArrayEquals(expect, Arrays.copyOf(longOut, n), "longer arrays, " + form);
                assertArrayEquals(new double[] {99, 99, 99, 99}, Arrays.copyOfRange(longOut, n, n + 4),
                    "after the items, " + form);
                assertNotSame(longOut, f.lastInOut, "longer arrays are copied, " + form);

                // Slices of heap buffers from element 3.
                final double[] shiftedIn = new double[n + 3];
                final double[] shiftedOut = new double[n + 3];
                System.arraycopy(in, 0, shiftedIn, 3, n);
                System.arraycopy(base, 0, shiftedOut, 3, n);
                Arrays.fill(shiftedOut, 0, 3, -5);
                Comm.reduceLocal(MPI.slice(shiftedIn, 3), MPI.slice(shiftedOut, 3), count, type, op);
                assertArrayEquals(expect, Arrays.copyOfRange(shiftedOut, 3, n + 3), "heap slices, " + form);
                assertArrayEquals(new double[] {-5, -5, -5}, Arrays.copyOf(shiftedOut, 3), "before the slice, " + form);

                // Direct buffers: the buffer form gets views of them (direct), the array form copies.
                final DoubleBuffer directIn = MPI.newDoubleBuffer(n);
                final DoubleBuffer directOut = MPI.newDoubleBuffer(n);
                directIn.put(0, in);
                directOut.put(0, base);
                Comm.reduceLocal(directIn, directOut, count, type, op);
                final double[] got = new double[n];
                directOut.get(0, got);
                assertArrayEquals(expect, got, "direct buffers, " + form);
                if (!arrays)
                {
                    assertTrue(((ByteBuffer)f.lastInOut).isDirect() && ((ByteBuffer)f.lastIn).isDirect(),
                        "the buffer form sees views of the direct buffers");
                }

                // An array into a direct buffer.
                directOut.put(0, base);
                Comm.reduceLocal(in, directOut, count, type, op);
                directOut.get(0, got);
                assertArrayEquals(expect, got, "array into a direct buffer, " + form);
                op.free();
            }
        }
        pair.free();
    }

    @Test
    void reduceLocalOnATypeWithGapsLeavesTheGaps()
    {
        final int count = 200;
        final Datatype everyOther = Datatype.createVector(count, 1, 2, MPI.DOUBLE);
        everyOther.commit();
        final double[] in = contribution(5, 2 * count, 1);
        final double[] base = contribution(6, 2 * count, 1);
        for (final boolean arrays : new boolean[] {true, false})
        {
            final DoubleOp f = new Sum(arrays);
            final Op op = new Op(f, true);
            for (final boolean direct : new boolean[] {false, true})
            {
                final double[] got;
                if (direct)
                {
                    final DoubleBuffer a = MPI.newDoubleBuffer(2 * count);
                    final DoubleBuffer b = MPI.newDoubleBuffer(2 * count);
                    a.put(0, in);
                    b.put(0, base);
                    Comm.reduceLocal(a, b, 1, everyOther, op);
                    got = new double[2 * count];
                    b.get(0, got);
                }
                else
                {
                    got = base.clone();
                    Comm.reduceLocal(in, got, 1, everyOther, op);
                }
                for (int i = 0; i < 2 * count; i++)
                {
                    assertEquals(i % 2 == 0 ? in[i] + base[i] : base[i], got[i], "element " + i + ", arrays=" +
                        arrays + ", direct=" + direct);
                }
            }
            op.free();
        }
        everyOther.free();
    }

    @Test
    void aFormTheFunctionLacksIsTriedOnce()
    {
        for (final boolean arrays : new boolean[] {true, false})
        {
            final DoubleOp f = new Sum(!arrays);
            final Op op = new Op(f, true);
            final double[] in = contribution(1, 10, 1);
            final double[] inout = new double[10];
            final DoubleBuffer directIn = MPI.newDoubleBuffer(10);
            final DoubleBuffer directOut = MPI.newDoubleBuffer(10);
            for (int call = 0; call < 5; call++)
            {
                if (arrays)
                {
                    Comm.reduceLocal(in, inout, 10, MPI.DOUBLE, op);
                }
                else
                {
                    Comm.reduceLocal(directIn, directOut, 10, MPI.DOUBLE, op);
                }
            }
            assertEquals(6, f.arrayCalls + f.bufferCalls, "5 calls and the one that was not overridden, arrays=" +
                arrays);
            if (arrays)
            {
                final double[] expect = new double[10];
                Arrays.setAll(expect, i -> 5 * in[i]);
                assertArrayEquals(expect, inout, "five sums through the buffer form");
            }
            op.free();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Collectives

    private static void onWorldAndReversed(final Consumer<Intracomm> body)
    {
        body.accept(MPI.COMM_WORLD);
        final int n = MPI.COMM_WORLD.getSize();
        final Intracomm reversed = MPI.COMM_WORLD.split(0, n - 1 - MPI.COMM_WORLD.getRank());
        body.accept(reversed);
        reversed.free();
    }

    /** A buffer of the kind asked for holding {@code d}: the array itself, or a direct buffer. */
    private static Object buffer(final double[] d, final boolean direct)
    {
        if (!direct)
        {
            return d.clone();
        }
        final DoubleBuffer b = MPI.newDoubleBuffer(Math.max(1, d.length));
        b.put(0, d);
        return b;
    }

    private static double[] contents(final Object buf, final int doubles)
    {
        if (buf instanceof double[])
        {
            return Arrays.copyOf((double[])buf, doubles);
        }
        final double[] d = new double[doubles];
        ((DoubleBuffer)buf).get(0, d);
        return d;
    }

    /**
     * 3 items (the small shared-memory algorithms), 1,100 pairs of doubles (17,600 bytes: the
     * pipelined large ones) and 40,000 (640,000 bytes: several rounds of chunks).
     */
    private static final int[] COUNTS = {3, 1100, 40_000};

    @Test
    void reducingCollectivesWithUserOps()
    {
        final Datatype pair = pairOfDoubles();
        onWorldAndReversed(c ->
        {
            final int n = c.getSize();
            for (final boolean commutative : new boolean[] {true, false})
            {
                final Datatype type = commutative ? MPI.DOUBLE : pair;
                final int k = perItem(type);
                for (final boolean arrays : new boolean[] {true, false})
                {
                    final Op op = new Op(function(commutative, arrays), commutative);
                    for (final boolean direct : new boolean[] {false, true})
                    {
                        for (final int count : COUNTS)
                        {
                            final String what = (commutative ? "sum" : "affine") + ", " + (arrays ? "array" :
                                "buffer") + " form, " + (direct ? "direct" : "arrays") + ", count " + count + ", np " +
                                n + ": ";
                            collectives(c, type, k, op, commutative, direct, count, what);
                        }
                    }
                    op.free();
                }
            }
        });
        pair.free();
    }

    private static void collectives(final Intracomm c, final Datatype type, final int k, final Op op,
        final boolean commutative, final boolean direct, final int count, final String what)
    {
        final int n = c.getSize();
        final int me = c.getRank();
        final int doubles = count * k;
        final double[] mine = contribution(me, count, k);
        final double[] all = expected(commutative, n, count, k);

        Object out = buffer(new double[doubles], direct);
        c.allReduce(buffer(mine, direct), out, count, type, op);
        assertArrayEquals(all, contents(out, doubles), what + "allReduce");

        out = buffer(new double[doubles], direct);
        final Request r = c.iAllReduce(buffer(mine, direct), out, count, type, op);
        r.waitFor();
        assertArrayEquals(all, contents(out, doubles), what + "iAllReduce");

        final Object inPlace = buffer(mine, direct);
        c.allReduce(inPlace, count, type, op);
        assertArrayEquals(all, contents(inPlace, doubles), what + "allReduce in place");

        for (final int root : new int[] {0, n - 1})
        {
            out = buffer(new double[doubles], direct);
            c.reduce(buffer(mine, direct), out, count, type, op, root);
            if (me == root)
            {
                assertArrayEquals(all, contents(out, doubles), what + "reduce to " + root);
            }
        }

        out = buffer(new double[doubles], direct);
        c.scan(buffer(mine, direct), out, count, type, op);
        assertArrayEquals(expected(commutative, me + 1, count, k), contents(out, doubles), what + "scan");
        out = buffer(new double[doubles], direct);
        c.exScan(buffer(mine, direct), out, count, type, op);
        if (me > 0)
        {
            assertArrayEquals(expected(commutative, me, count, k), contents(out, doubles), what + "exScan");
        }

        // Reduce-scatter: rank r keeps block r, to which rank q contributed contribution(q + r).
        final double[] whole = new double[n * doubles];
        for (int b = 0; b < n; b++)
        {
            System.arraycopy(contribution(me + b, count, k), 0, whole, b * doubles, doubles);
        }
        final double[] block = expected(commutative, n, me, count, k);
        out = buffer(new double[doubles], direct);
        c.reduceScatterBlock(buffer(whole, direct), out, count, type, op);
        assertArrayEquals(block, contents(out, doubles), what + "reduceScatterBlock");
    }
}
