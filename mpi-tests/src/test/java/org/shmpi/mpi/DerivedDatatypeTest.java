package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Derived datatypes between ranks: each rank sends to the next and receives from the previous
 * (itself at one rank), over arrays and direct buffers, eager and rendezvous sizes; sizes and
 * bounds in Open MPI's units; bad input with its error class before anything moves.
 * <p>One file, longer than the house's ~700 lines, because the methods of a class share one job
 * per rank count ({@link MpiTest}): split in two, the suite would start a second set of rank
 * JVMs at 1 and 2 ranks for the same checks.
 */
@MpiTest(np = {1, 2})
class DerivedDatatypeTest
{
    private static final double SENTINEL = -7.5;
    private Comm world;
    private int rank;
    private int next;
    private int prev;

    @BeforeEach
    void setUp()
    {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        final int size = world.getSize();
        next = (rank + 1) % size;
        prev = (rank + size - 1) % size;
    }

    @AfterEach
    void nothingLeft()
    {
        Expect.nothingLeftUnreceived();
    }

    /** A column of a row-major 4 x 5 matrix: vector(4, 1, 5, DOUBLE). */
    private static Datatype column()
    {
        final Datatype c = Datatype.createVector(4, 1, 5, MPI.DOUBLE);
        c.commit();
        return c;
    }

    private static double[] matrix(final int owner)
    {
        final double[] m = new double[20];
        for (int i = 0; i < 20; i++)
        {
            m[i] = owner * 100 + i;
        }
        return m;
    }

    @Test
    void sizesAndBoundsCountElementsOfTheBaseType()
    {
        final Datatype c = column();
        assertEquals(4, c.getSize());
        assertEquals(16, c.getExtent());
        assertEquals(0, c.getLb());
        assertEquals(16, c.getTrueExtent());
        assertEquals(1, MPI.DOUBLE.getSize());
        assertEquals(1, MPI.DOUBLE.getExtent());
        final Datatype r = Datatype.createResized(MPI.DOUBLE, -8, 24);
        assertEquals(-1, r.getLb());
        assertEquals(3, r.getExtent());
        assertEquals(0, r.getTrueLb());
        assertEquals(1, r.getTrueExtent());
        // A struct counts bytes: {int at 0, double at 8}, padded to 16.
        final Datatype s = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8},
            new Datatype[] {MPI.INT, MPI.DOUBLE});
        assertEquals(12, s.getSize());
        assertEquals(16, s.getExtent());
        final Datatype da = Datatype.createDarray(4, 3, new int[] {4, 6}, new int[] {MPI.DISTRIBUTE_BLOCK,
            MPI.DISTRIBUTE_CYCLIC}, new int[] {MPI.DISTRIBUTE_DFLT_DARG, 2}, new int[] {2, 2}, MPI.ORDER_C, MPI.INT);
        assertEquals(4, da.getSize());
        assertEquals(24, da.getExtent());
        assertEquals(14, da.getTrueLb());
        assertEquals(8, da.getTrueExtent());
        da.free();
        final Datatype sub = Datatype.createSubarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 2},
            MPI.ORDER_C, MPI.INT);
        assertEquals(6, sub.getSize());
        assertEquals(20, sub.getExtent());
        assertEquals(7, sub.getTrueLb());
        assertEquals(8, sub.getTrueExtent());
        c.free();
        r.free();
        s.free();
        sub.free();
    }

    /** A column sent as a vector arrives as 4 contiguous doubles, and as a column of the receiver's matrix. */
    @Test
    void columnOfAMatrixBetweenRanks()
    {
        final Datatype col = column();
        final double[] mine = matrix(rank);
        final double[] got = new double[4];
        world.sendRecv(mine, 1, col, next, 1, got, 4, MPI.DOUBLE, prev, 1);
        final int p = prev * 100;
        assertArrayEquals(new double[] {p, p + 5, p + 10, p + 15}, got, 0);

        // Into column 0 of a matrix full of sentinels: only that column changes.
        final double[] into = new double[20];
        java.util.Arrays.fill(into, SENTINEL);
        final Status st = world.sendRecv(mine, 4, MPI.DOUBLE, next, 2, into, 1, col, prev, 2);
        assertEquals(1, st.getCount(col));
        assertEquals(4, st.getElements(col));
        // Three doubles into a two-column type: not a whole item, three basic elements.
        final Datatype two = Datatype.createContiguous(2, col);
        two.commit();
        final Status partial = world.sendRecv(mine, 3, MPI.DOUBLE, next, 2, new double[40], 1, two, prev, 2);
        assertEquals(MPI.UNDEFINED, partial.getCount(two));
        assertEquals(3, partial.getElements(two));
        two.free();
        for (int i = 0; i < 20; i++)
        {
            assertEquals(i % 5 == 0 ? p + i / 5 : SENTINEL, into[i], "element " + i);
        }
        col.free();
    }

    /** 100 000 blocks of 2 ints, stride 3: 800 000 bytes through the rendezvous path, on direct buffers. */
    @Test
    void largeVectorOnDirectBuffersThroughRendezvous()
    {
        final int blocks = 100_000;
        final Datatype v = Datatype.createVector(blocks, 2, 3, MPI.INT);
        v.commit();
        final IntBuffer out = MPI.newIntBuffer(3 * blocks);
        final IntBuffer in = MPI.newIntBuffer(3 * blocks);
        for (int i = 0; i < 3 * blocks; i++)
        {
            out.put(i, rank * 10_000_000 + i);
            in.put(i, -1);
        }
        final Request r = world.iRecv(in, 1, v, prev, 3);
        final Request s = world.iSend(out, 1, v, next, 3);
        s.waitFor();
        final Status st = r.waitStatus();
        assertEquals(1, st.getCount(v));
        for (int i = 0; i < 3 * blocks; i++)
        {
            final int expected = i % 3 == 2 ? -1 : prev * 10_000_000 + i;
            if (in.get(i) != expected)
            {
                assertEquals(expected, in.get(i), "element " + i);
            }
        }
        // The same bytes received contiguous: the packed order.
        final int[] packed = new int[2 * blocks];
        world.sendRecv(out, 1, v, next, 4, packed, 2 * blocks, MPI.INT, prev, 4);
        for (int b = 0; b < blocks; b++)
        {
            if (packed[2 * b] != prev * 10_000_000 + 3 * b || packed[2 * b + 1] != prev * 10_000_000 + 3 * b + 1)
            {
                assertEquals(prev * 10_000_000 + 3 * b, packed[2 * b], "block " + b);
            }
        }
        v.free();
    }

    /**
     * Every constructor, by name: applied to {@code old} (with {@code unit} bytes per extent unit) with small
     * fixed arguments.
     */
    private static final String[] CONSTRUCTORS = {"contiguous", "vector", "hvector", "indexed", "hindexed",
        "indexedBlock", "hindexedBlock", "struct", "resized", "subarray", "darray"};

    private static Datatype construct(final String how, final Datatype old, final int unit)
    {
        final int ext = old.getExtent() * unit;
        switch (how)
        {
            case "contiguous": return Datatype.createContiguous(2, old);
            case "vector": return Datatype.createVector(2, 2, 3, old);
            case "hvector": return Datatype.createHVector(2, 1, 2 * ext + 4, old);
            case "indexed": return Datatype.createIndexed(new int[] {1, 2}, new int[] {3, 0}, old);
            case "hindexed": return Datatype.createHIndexed(new int[] {2, 1}, new int[] {0, 3 * ext}, old);
            case "indexedBlock": return Datatype.createIndexedBlock(1, new int[] {2, 0}, old);
            case "hindexedBlock": return Datatype.createHIndexedBlock(2, new int[] {ext * 3, 0}, old);
            case "struct": return Datatype.createStruct(new int[] {1, 2}, new int[] {0, ext + 8},
                new Datatype[] {MPI.INT, old});
            case "resized": return Datatype.createResized(old, 0, ext + 8);
            case "subarray": return Datatype.createSubarray(new int[] {3}, new int[] {2}, new int[] {1}, MPI.ORDER_C,
                old);
            case "darray": return Datatype.createDarray(2, 1, new int[] {5}, new int[] {MPI.DISTRIBUTE_CYCLIC},
                new int[] {2}, new int[] {2}, MPI.ORDER_C, old);
            default: throw new IllegalArgumentException(how);
        }
    }

    /**
     * Every constructor nested three levels deep over INT (each level the same constructor),
     * two items, between ranks over int[] and direct IntBuffers, and through pack/unpack: the
     * receiver gets the sender's values exactly at the type map's positions (the positions an
     * index array packs to) and its sentinels everywhere else; the packed ints are the sender's
     * values at those positions in type-map order.
     */
    @Test
    void everyConstructorNestedThreeDeepRoundTrips()
    {
        for (final String how : CONSTRUCTORS)
        {
            Datatype t = MPI.INT;
            int unit = 4;
            final java.util.List<Datatype> made = new java.util.ArrayList<>();
            for (int level = 0; level < 3; level++)
            {
                t = construct(how, t, unit);
                made.add(t);
                unit = "struct".equals(how) ? 1 : unit;
            }
            t.commit();
            final int items = 2;
            final int span =
                (t.getTrueLb() + t.getTrueExtent()) * unit / 4 + (items - 1) * t.getExtent() * unit / 4 + 3;
            final int n = t.getSize() * items * ("struct".equals(how) ? 1 : 4) / 4;
            assertEquals(true, n >= items && n < span, how + ": " + n + " ints in a span of " + span);
            // Where the type map lies: pack an index array.
            final int[] index = new int[span];
            for (int i = 0; i < span; i++)
            {
                index[i] = i;
            }
            final byte[] packedIndex = new byte[world.packSize(items, t)];
            assertEquals(4 * n, packedIndex.length, how);
            world.pack(index, items, t, packedIndex, 0);
            final int[] positions = new int[n];
            ByteBuffer.wrap(packedIndex).order(ByteOrder.nativeOrder()).asIntBuffer().get(positions);
            final boolean[] inMap = new boolean[span];
            for (final int p : positions)
            {
                assertEquals(false, inMap[p], how + ": position " + p + " twice");
                inMap[p] = true;
            }
            final int[] out = new int[span];
            for (int i = 0; i < span; i++)
            {
                out[i] = rank * 100_000 + i;
            }
            for (final boolean direct : new boolean[] {false, true})
            {
                final int[] in = new int[span];
                java.util.Arrays.fill(in, -3);
                final IntBuffer inBuf = MPI.newIntBuffer(span);
                inBuf.put(in).clear();
                final IntBuffer outBuf = MPI.newIntBuffer(span);
                outBuf.put(out).clear();
                final Status st = direct ? world.sendRecv(outBuf, items, t, next, 11, inBuf, items, t, prev, 11)
                    : world.sendRecv(out, items, t, next, 11, in, items, t, prev, 11);
                assertEquals(items, st.getCount(t), how);
                if (direct)
                {
                    inBuf.get(in);
                }
                for (int i = 0; i < span; i++)
                {
                    assertEquals(inMap[i] ? prev * 100_000 + i : -3, in[i], how + ", direct " + direct + ", int " + i);
                }
            }
            // Contiguous on the wire: the values in type-map order; and unpack puts them back.
            final int[] dense = new int[n];
            world.sendRecv(out, items, t, next, 12, dense, n, MPI.INT, prev, 12);
            for (int k = 0; k < n; k++)
            {
                assertEquals(prev * 100_000 + positions[k], dense[k], how + ", element " + k);
            }
            final byte[] packed = new byte[4 * n];
            world.pack(out, items, t, packed, 0);
            final int[] back = new int[span];
            world.unpack(packed, 0, back, items, t);
            for (int i = 0; i < span; i++)
            {
                assertEquals(inMap[i] ? out[i] : 0, back[i], how + ", unpacked int " + i);
            }
            for (final Datatype d : made)
            {
                d.free();
            }
        }
    }

    /**
     * Type signatures match by their sequence of basic types: 3 INT sent arrive as a vector of
     * 3 INT and the other way round, an indexed type as a subarray, a struct of {int, int, int}
     * as INT, across arrays and direct buffers.
     */
    @Test
    void signaturesMatchBySequenceOfBasicTypes()
    {
        final Datatype v3 = Datatype.createVector(3, 1, 2, MPI.INT);
        v3.commit();
        final int[] spread = new int[5];
        java.util.Arrays.fill(spread, -1);
        world.sendRecv(new int[] {rank, rank + 1, rank + 2}, 3, MPI.INT, next, 5, spread, 1, v3, prev, 5);
        assertArrayEquals(new int[] {prev, -1, prev + 1, -1, prev + 2}, spread);
        final IntBuffer dense = MPI.newIntBuffer(3);
        world.sendRecv(new int[] {rank, 0, rank * 2, 0, rank * 3}, 1, v3, next, 6, dense, 3, MPI.INT, prev, 6);
        assertEquals(java.util.List.of(prev, prev * 2, prev * 3),
            java.util.List.of(dense.get(0), dense.get(1), dense.get(2)));

        // indexed {2 at 5, 1 at 10} of a 3 x 4 matrix arrives as its subarray row 2, columns 1..3
        final Datatype ix = Datatype.createIndexed(new int[] {2, 1}, new int[] {5, 10}, MPI.INT);
        ix.commit();
        final Datatype sub = Datatype.createSubarray(new int[] {3, 4}, new int[] {1, 3}, new int[] {2, 1},
            MPI.ORDER_C, MPI.INT);
        sub.commit();
        final int[] m = new int[12];
        for (int i = 0; i < 12; i++)
        {
            m[i] = rank * 100 + i;
        }
        final int[] got = new int[12];
        world.sendRecv(m, 1, ix, next, 7, got, 1, sub, prev, 7);
        assertArrayEquals(new int[] {0, 0, 0, 0, 0, 0, 0, 0, 0, prev * 100 + 5, prev * 100 + 6, prev * 100 + 10}, got);

        final Datatype s3 = Datatype.createStruct(new int[] {1, 2}, new int[] {0, 4},
            new Datatype[] {MPI.INT, MPI.INT});
        s3.commit();
        final int[] fromStruct = new int[3];
        world.sendRecv(new int[] {rank, 7, 8}, 1, s3, next, 8, fromStruct, 3, MPI.INT, prev, 8);
        assertArrayEquals(new int[] {prev, 7, 8}, fromStruct);
        v3.free();
        ix.free();
        sub.free();
        s3.free();
    }

    /**
     * A receive too small for the message raises ERR_TRUNCATE and writes only inside its type
     * map: the gaps of the vector and everything after it keep their sentinels (eager and
     * rendezvous sizes, arrays and direct buffers).
     */
    @Test
    void receiveTooSmallTruncatesInsideTheTypeMap()
    {
        for (final int items : new int[] {4, 50_000})
        {
            // receive: `items` items of vector(3, 1, 2, INT) (extent 5 ints, 3 used), 1 int more is sent
            final Datatype v = Datatype.createVector(3, 1, 2, MPI.INT);
            v.commit();
            final int sent = 3 * items + 1;
            final int[] out = new int[sent];
            for (int i = 0; i < sent; i++)
            {
                out[i] = rank * 1_000_000 + i;
            }
            final int room = 5 * items + 7;
            for (final boolean direct : new boolean[] {false, true})
            {
                final int[] in = new int[room];
                final IntBuffer inBuf = direct ? MPI.newIntBuffer(room) : null;
                java.util.Arrays.fill(in, -9);
                if (direct)
                {
                    inBuf.put(in).clear();
                }
                final Request r = direct ? world.iRecv(inBuf, items, v, prev, 9) : world.iRecv(in, items, v, prev, 9);
                world.send(out, sent, MPI.INT, next, 9);
                final MPIException ex = assertThrows(MPIException.class, r::waitFor, "items " + items);
                assertEquals(MPI.ERR_TRUNCATE, ex.getErrorClass());
                if (direct)
                {
                    inBuf.get(in);
                }
                for (int i = 0; i < room; i++)
                {
                    final boolean inMap = i < 5 * items && i % 5 % 2 == 0;
                    final int expected = inMap ? prev * 1_000_000 + (i / 5) * 3 + (i % 5) / 2 : -9;
                    if (in[i] != expected)
                    {
                        assertEquals(expected, in[i],
                            "int " + i + " of " + room + ", items " + items + ", direct " + direct);
                    }
                }
            }
            v.free();
        }
    }

    /**
     * getElements counts basic elements of a partial receive, each part of a pair type on its
     * own: a struct {2 float, 1 DOUBLE_INT, 3 char} (7 elements, 26 bytes) cut at every kind
     * of place.
     */
    @Test
    void elementsOfPartialReceivesCountPairParts()
    {
        final Datatype t = Datatype.createStruct(new int[] {2, 1, 3}, new int[] {0, 8, 24},
            new Datatype[] {MPI.FLOAT, MPI.DOUBLE_INT, MPI.CHAR});
        t.commit();
        assertEquals(26, t.getSize(), "the pair's padding is not data (its copy in the message is)");
        final int[][] cases = {
            {60, 2, 14}, {30 + 8, MPI.UNDEFINED, 7 + 2}, {30 + 16, MPI.UNDEFINED, 7 + 3},
            {30 + 24, MPI.UNDEFINED, 7 + 4}, {30 + 26, MPI.UNDEFINED, 7 + 5}, {30 + 6, MPI.UNDEFINED, MPI.UNDEFINED},
            {30 + 20, MPI.UNDEFINED, MPI.UNDEFINED}, {0, 0, 0}};
        for (final int[] c : cases)
        {
            final Status st = world.sendRecv(new byte[c[0]], c[0], MPI.BYTE, next, 10, new byte[64], 2, t, prev, 10);
            assertEquals(c[1], st.getCount(t), c[0] + " bytes: count");
            assertEquals(c[2], st.getElements(t), c[0] + " bytes: elements");
        }
        t.free();
    }

    /** A struct {int, double} over a direct byte buffer, three items, nested in a contiguous type. */
    @Test
    void structsOverByteBuffers()
    {
        final Datatype s = Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8},
            new Datatype[] {MPI.INT, MPI.DOUBLE});
        final Datatype three = Datatype.createContiguous(3, s);
        three.commit();
        final ByteBuffer out = MPI.newByteBuffer(48).order(ByteOrder.nativeOrder());
        final ByteBuffer in = MPI.newByteBuffer(48).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 3; i++)
        {
            out.putInt(16 * i, rank * 10 + i);
            out.putInt(16 * i + 4, 0x7777);
            out.putDouble(16 * i + 8, rank + i / 4.0);
            in.putInt(16 * i + 4, -3);
        }
        final Request r = world.iRecv(in, 1, three, prev, 5);
        world.send(out, 1, three, next, 5);
        r.waitFor();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(prev * 10 + i, in.getInt(16 * i));
            assertEquals(-3, in.getInt(16 * i + 4), "the padding is not part of the type map");
            assertEquals(prev + i / 4.0, in.getDouble(16 * i + 8));
        }
        three.free();
        s.free();
    }

    /** Persistent requests and matched probes take derived types too. */
    @Test
    void persistentAndMatchedReceives()
    {
        final Datatype col = column();
        final double[] mine = matrix(rank);
        final double[] got = new double[20];
        final mpi.Prequest send = world.sendInit(mine, 1, col, next, 10);
        final mpi.Prequest recv = world.recvInit(got, 1, col, prev, 10);
        for (int round = 0; round < 3; round++)
        {
            java.util.Arrays.fill(got, SENTINEL);
            recv.start();
            send.start();
            send.waitFor();
            recv.waitFor();
            for (int i = 0; i < 20; i++)
            {
                assertEquals(i % 5 == 0 ? prev * 100 + i : SENTINEL, got[i], "element " + i + ", round " + round);
            }
        }
        send.free();
        recv.free();

        final Request s = world.iSend(MPI.newDoubleBuffer(4).put(0, 3).put(1, 4).put(2, 5).put(3, 6), 4, MPI.DOUBLE,
            next, 11);
        final mpi.Message m = new mpi.Message();
        m.mProbe(prev, 11, world);
        java.util.Arrays.fill(got, SENTINEL);
        final Status st = m.mRecv(got, 1, col);
        s.waitFor();
        assertEquals(4, st.getElements(col));
        assertEquals(3, got[0]);
        assertEquals(6, got[15]);
        assertEquals(SENTINEL, got[1]);
        col.free();
    }

    /** Buffered mode and sendRecvReplace pack through the type too. */
    @Test
    void bufferedAndReplace()
    {
        final Datatype col = column();
        MPI.attachBuffer(new byte[4096]);
        try
        {
            final java.nio.DoubleBuffer got = MPI.newDoubleBuffer(4);
            final Request r = world.iRecv(got, 4, MPI.DOUBLE, prev, 6);
            world.bSend(matrix(rank), 1, col, next, 6);
            final Status st = r.waitStatus();
            assertEquals(4, st.getCount(MPI.DOUBLE));
            for (int i = 0; i < 4; i++)
            {
                assertEquals(prev * 100 + 5 * i, got.get(i), "element " + i);
            }
            final double[] m = matrix(rank);
            world.sendRecvReplace(m, 1, col, next, 7, prev, 7);
            for (int i = 0; i < 20; i++)
            {
                assertEquals(i % 5 == 0 ? prev * 100 + i : rank * 100 + i, m[i], "element " + i);
            }
        }
        finally
        {
            MPI.detachBuffer();
        }
        col.free();
    }

    /** Pack two columns' worth and an int after them, send the packed bytes, unpack on the other side. */
    @Test
    void packUnpackAndPackSize()
    {
        final Datatype col = column();
        assertEquals(32, world.packSize(1, col));
        assertEquals(8, world.packSize(2, MPI.INT));
        final double[] m = matrix(rank);
        final byte[] packed = new byte[32 + 8];
        int pos = world.pack(m, 1, col, packed, 0);
        assertEquals(32, pos);
        pos = world.pack(new int[] {rank, 42}, 2, MPI.INT, packed, pos);
        assertEquals(40, pos);
        final byte[] got = new byte[40];
        world.sendRecv(packed, 40, MPI.PACKED, next, 9, got, 40, MPI.PACKED, prev, 9);
        final double[] into = new double[20];
        java.util.Arrays.fill(into, SENTINEL);
        final int[] tail = new int[2];
        int at = world.unpack(got, 0, into, 1, col);
        at = world.unpack(got, at, tail, 2, MPI.INT);
        assertEquals(40, at);
        for (int i = 0; i < 20; i++)
        {
            assertEquals(i % 5 == 0 ? prev * 100 + i : SENTINEL, into[i], "element " + i);
        }
        assertArrayEquals(new int[] {prev, 42}, tail);
        assertEquals(MPI.ERR_TRUNCATE, errorOf(() -> world.pack(m, 1, col, new byte[31], 0)));
        assertEquals(MPI.ERR_TRUNCATE, errorOf(() -> world.unpack(new byte[40], 10, into, 1, col)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> world.pack(m, 1, col, new byte[40], -1)));
        col.free();
    }

    /** external32 bytes, written out by hand: big-endian at the standard's sizes. */
    @Test
    void external32BytesAreBigEndian()
    {
        final byte[] out = new byte[12];
        assertEquals(12, world.packExternalSize("external32", 3, MPI.INT));
        assertEquals(12, world.packExternal("external32", new int[] {1, 0x01020304, -2}, 3, MPI.INT, out, 0));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 1, 2, 3, 4, -1, -1, -1, -2}, out);

        // A column of doubles, then a short and a char: 8-byte, 2-byte and 2-byte elements in order.
        final Datatype col = column();
        final double[] m = new double[20];
        m[0] = 1.0;
        m[5] = -2.0;
        final byte[] ext = new byte[32 + 4];
        int pos = world.packExternal("external32", m, 1, col, ext, 0);
        pos = world.packExternal("external32", new short[] {0x0102}, 1, MPI.SHORT, ext, pos);
        pos = world.packExternal("external32", new char[] {'A'}, 1, MPI.CHAR, ext, pos);
        assertEquals(36, pos);
        assertArrayEquals(new byte[] {0x3F, (byte)0xF0, 0, 0, 0, 0, 0, 0}, java.util.Arrays.copyOfRange(ext, 0, 8));
        assertArrayEquals(new byte[] {(byte)0xC0, 0, 0, 0, 0, 0, 0, 0}, java.util.Arrays.copyOfRange(ext, 8, 16));
        assertArrayEquals(new byte[] {1, 2, 0, 'A'}, java.util.Arrays.copyOfRange(ext, 32, 36));

        // And back, leaving the packed bytes as they were.
        final byte[] copy = ext.clone();
        final double[] back = new double[20];
        final short[] s = new short[1];
        final char[] c = new char[1];
        int at = world.unpackExternal("external32", ext, 0, back, 1, col);
        at = world.unpackExternal("external32", ext, at, s, 1, MPI.SHORT);
        at = world.unpackExternal("external32", ext, at, c, 1, MPI.CHAR);
        assertEquals(36, at);
        assertEquals(1.0, back[0]);
        assertEquals(-2.0, back[5]);
        assertEquals(0x0102, s[0]);
        assertEquals('A', c[0]);
        assertArrayEquals(copy, ext);

        assertEquals(MPI.ERR_ARG, errorOf(() -> world.packExternal("native", new int[1], 1, MPI.INT, out, 0)));
        col.free();

        // Pair types lose their padding: {double 2.5, int 7} is 12 bytes, {short 0x0102, int 5} 6,
        // also inside a vector of two pairs with a gap of one.
        final ByteBuffer pairs = ByteBuffer.allocateDirect(48).order(ByteOrder.nativeOrder());
        pairs.putDouble(0, 2.5).putInt(8, 7).putDouble(32, -1.0).putInt(40, 9);
        final Datatype two = Datatype.createVector(2, 1, 2, MPI.DOUBLE_INT);
        two.commit();
        assertEquals(12, world.packExternalSize("external32", 1, MPI.DOUBLE_INT));
        assertEquals(24, world.packExternalSize("external32", 1, two));
        assertEquals(6, world.packExternalSize("external32", 1, MPI.SHORT_INT));
        assertEquals(12, world.packExternalSize("external32", 1, MPI.LONG_INT));
        final byte[] pe = new byte[24 + 6];
        int pp = world.packExternal("external32", pairs, 1, two, pe, 0);
        final ByteBuffer si = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        si.putShort(0, (short)0x0102).putInt(4, 5);
        pp = world.packExternal("external32", si, 1, MPI.SHORT_INT, pe, pp);
        assertEquals(30, pp);
        assertArrayEquals(new byte[] {0x40, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7,
            (byte)0xBF, (byte)0xF0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 1, 2, 0, 0, 0, 5}, pe);
        final ByteBuffer pairsBack = ByteBuffer.allocateDirect(48).order(ByteOrder.nativeOrder());
        final ByteBuffer siBack = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        pp = world.unpackExternal("external32", pe, 0, pairsBack, 1, two);
        pp = world.unpackExternal("external32", pe, pp, siBack, 1, MPI.SHORT_INT);
        assertEquals(30, pp);
        assertEquals(2.5, pairsBack.getDouble(0));
        assertEquals(7, pairsBack.getInt(8));
        assertEquals(-1.0, pairsBack.getDouble(32));
        assertEquals(9, pairsBack.getInt(40));
        assertEquals(0, pairsBack.getLong(16), "the gap is not written");
        assertEquals(0x0102, siBack.getShort(0));
        assertEquals(5, siBack.getInt(4));
        assertEquals(MPI.ERR_TRUNCATE, errorOf(() -> world.packExternal("external32", pairs, 1, two, new byte[23], 0)));
        two.free();
    }

    @Test
    void namesOfTypes()
    {
        assertEquals("MPI_INT", MPI.INT.getName());
        final Datatype col = column();
        col.setName("matrix column");
        assertEquals("matrix column", col.getName());
        final Datatype d = col.dup();
        assertEquals("matrix column", d.getName(), "a dup keeps the name");
        d.setName("x".repeat(100));
        assertEquals(MPI.MAX_OBJECT_NAME - 1, d.getName().length());
        assertEquals(64, MPI.MAX_OBJECT_NAME);
        d.free();
        col.free();
    }

    @Test
    void attributesAreCachedCopiedOnDupAndDroppedOnFree()
    {
        final int key = Datatype.createKeyval();
        final Datatype col = column();
        assertEquals(null, col.getAttr(key));
        final Object value = new int[] {7};
        col.setAttr(key, value);
        assertEquals(value, col.getAttr(key));
        final Datatype d = col.dup();
        assertEquals(value, d.getAttr(key), "a dup copies the attribute");
        d.deleteAttr(key);
        assertEquals(null, d.getAttr(key));
        assertEquals(value, col.getAttr(key), "deleting on the dup leaves the original's");
        Datatype.freeKeyval(key);
        assertEquals(value, col.getAttr(key), "a freed keyval's cached attribute stays");
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> col.setAttr(key, "new")));
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> Datatype.freeKeyval(key)));
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> d.getAttr(key)));
        col.free();
        assertEquals(MPI.ERR_TYPE, errorOf(() -> col.getAttr(key)));
        d.free();
    }

    /** Copy callbacks run on dup, delete callbacks on deleteAttr, on setAttr over a value and on free. */
    @Test
    void attributeCallbacksRunOnDupDeleteAndFree()
    {
        final java.util.List<String> log = new java.util.ArrayList<>();
        final int key = Datatype.createKeyval(
            (object, keyval, value) -> { log.add("copy " + value); return value + "'"; },
            (object, keyval, value) -> log.add("delete " + value + " on " + object));
        final Datatype col = column();
        col.setName("col");
        col.setAttr(key, "a");
        col.setAttr(key, "b");
        assertEquals(java.util.List.of("delete a on col"), log, "setAttr over a value deletes the old one");
        final Datatype d = col.dup();
        assertEquals("b'", d.getAttr(key), "the dup caches what the copy callback returned");
        assertEquals("b", col.getAttr(key));
        d.free();
        col.deleteAttr(key);
        assertEquals(java.util.List.of("delete a on col", "copy b", "delete b' on col", "delete b on col"), log);

        // NO_COPY leaves the dup without the attribute; a failing copy fails the dup and
        // deletes what it had copied; a failing delete fails free and the type stays usable.
        final int none = Datatype.createKeyval(mpi.Keyval.NO_COPY, mpi.Keyval.NO_DELETE);
        final java.util.concurrent.atomic.AtomicBoolean stuck = new java.util.concurrent.atomic.AtomicBoolean();
        final int bad = Datatype.createKeyval((o, k, v) -> { throw new IllegalStateException("no copy"); },
            (o, k, v) ->
            {
                if (stuck.get())
                {
                    throw new MPIException(MPI.ERR_ARG, "stuck");
                }
            });
        col.setAttr(none, 1);
        final Datatype d2 = col.dup();
        assertEquals(null, d2.getAttr(none));
        d2.free();
        log.clear();
        col.setAttr(key, "c");
        col.setAttr(bad, "x");
        final MPIException ex = assertThrows(MPIException.class, col::dup);
        assertEquals(MPI.ERR_OTHER, ex.getErrorClass());
        assertEquals(log.contains("copy c") ? 2 : 0, log.size(), "a copied attribute is deleted again: " + log);
        stuck.set(true);
        assertEquals(MPI.ERR_ARG, errorOf(col::free));
        assertEquals("x", col.getAttr(bad), "a failed free keeps the attribute and the type");
        assertEquals(4, col.getSize());
        assertEquals(MPI.ERR_ARG, errorOf(() -> col.deleteAttr(bad)));
        stuck.set(false);
        col.free();
        assertEquals(true, col.isNull());
        assertEquals(MPI.ERR_ARG, errorOf(() -> Datatype.createKeyval(null, mpi.Keyval.NO_DELETE)));
        Datatype.freeKeyval(key);
        Datatype.freeKeyval(none);
        Datatype.freeKeyval(bad);
    }

    /**
     * Every constructor's envelope and contents, as a tool reads them: rebuilding each type from
     * its contents gives a type with the same bounds that packs the same bytes in the same order.
     */
    @Test
    void decodingRebuildsEveryType()
    {
        final Datatype col = column();
        final Datatype st = Datatype.createStruct(new int[] {1, 2}, new int[] {0, 8}, new Datatype[] {MPI.INT, col});
        final Datatype[] types = {
            Datatype.createContiguous(3, MPI.DOUBLE),
            col,
            Datatype.createHVector(3, 2, 40, MPI.DOUBLE),
            Datatype.createIndexed(new int[] {2, 1}, new int[] {5, 0}, MPI.DOUBLE),
            Datatype.createHIndexed(new int[] {1, 3}, new int[] {64, 8}, MPI.DOUBLE),
            Datatype.createIndexedBlock(2, new int[] {6, 1}, MPI.DOUBLE),
            Datatype.createHIndexedBlock(1, new int[] {24, 0}, MPI.DOUBLE),
            Datatype.createResized(col, 0, 48),
            Datatype.createSubarray(new int[] {4, 5}, new int[] {2, 3}, new int[] {1, 1}, MPI.ORDER_FORTRAN,
                MPI.DOUBLE),
            col.dup(),
            Datatype.createDarray(4, 3, new int[] {4, 6}, new int[] {MPI.DISTRIBUTE_BLOCK, MPI.DISTRIBUTE_CYCLIC},
                new int[] {MPI.DISTRIBUTE_DFLT_DARG, 2}, new int[] {2, 2}, MPI.ORDER_C, MPI.INT),
        };
        final int[] combiners = {MPI.COMBINER_CONTIGUOUS, MPI.COMBINER_VECTOR, MPI.COMBINER_HVECTOR,
            MPI.COMBINER_INDEXED, MPI.COMBINER_HINDEXED, MPI.COMBINER_INDEXED_BLOCK, MPI.COMBINER_HINDEXED_BLOCK,
            MPI.COMBINER_RESIZED, MPI.COMBINER_SUBARRAY, MPI.COMBINER_DUP, MPI.COMBINER_DARRAY};
        for (int i = 0; i < types.length; i++)
        {
            final Datatype t = types[i];
            t.commit();
            assertEquals(combiners[i], t.getEnvelope()[3], "combiner of type " + i);
            final Datatype again = rebuild(t);
            again.commit();
            assertSameType(t, again, 1, "type " + i);
            again.free();
        }
        assertArrayEquals(new int[] {3, 2, 2, MPI.COMBINER_STRUCT}, st.getEnvelope());
        final Datatype.Contents c = st.getContents();
        assertArrayEquals(new int[] {2, 1, 2}, c.getIntegers());
        assertArrayEquals(new long[] {0, 8}, c.getAddresses());
        assertEquals(col, c.getDatatypes()[1]);
        assertArrayEquals(new int[] {0, 0, 0, MPI.COMBINER_NAMED}, MPI.DOUBLE.getEnvelope());
        assertEquals(MPI.ERR_TYPE, errorOf(MPI.DOUBLE::getContents));
        for (final Datatype t : types)
        {
            if (t != col)
            {
                t.free();
            }
        }
        st.free();
        col.free();
    }

    /** A tool's rebuild of a type from its envelope and contents. */
    private static Datatype rebuild(final Datatype t)
    {
        final int combiner = t.getEnvelope()[3];
        final Datatype.Contents c = t.getContents();
        final int[] ints = c.getIntegers();
        final long[] a = c.getAddresses();
        final Datatype old = c.getDatatypes()[0];
        final int n = ints.length > 0 ? ints[0] : 0;
        switch (combiner)
        {
            case MPI.COMBINER_CONTIGUOUS: return Datatype.createContiguous(ints[0], old);
            case MPI.COMBINER_VECTOR: return Datatype.createVector(ints[0], ints[1], ints[2], old);
            case MPI.COMBINER_HVECTOR: return Datatype.createHVector(ints[0], ints[1], (int)a[0], old);
            case MPI.COMBINER_INDEXED:
                return Datatype.createIndexed(java.util.Arrays.copyOfRange(ints, 1, 1 + n),
                    java.util.Arrays.copyOfRange(ints, 1 + n, 1 + 2 * n), old);
            case MPI.COMBINER_HINDEXED:
                return Datatype.createHIndexed(java.util.Arrays.copyOfRange(ints, 1, 1 + n), toInts(a), old);
            case MPI.COMBINER_INDEXED_BLOCK:
                return Datatype.createIndexedBlock(ints[1], java.util.Arrays.copyOfRange(ints, 2, 2 + n), old);
            case MPI.COMBINER_HINDEXED_BLOCK: return Datatype.createHIndexedBlock(ints[1], toInts(a), old);
            case MPI.COMBINER_RESIZED: return Datatype.createResized(old, (int)a[0], (int)a[1]);
            case MPI.COMBINER_SUBARRAY:
                return Datatype.createSubarray(java.util.Arrays.copyOfRange(ints, 1, 1 + n),
                    java.util.Arrays.copyOfRange(ints, 1 + n, 1 + 2 * n),
                    java.util.Arrays.copyOfRange(ints, 1 + 2 * n, 1 + 3 * n), ints[1 + 3 * n], old);
            case MPI.COMBINER_DUP: return old.dup();
            case MPI.COMBINER_DARRAY:
            {
                final int nd = ints[2];
                return Datatype.createDarray(ints[0], ints[1], java.util.Arrays.copyOfRange(ints, 3, 3 + nd),
                    java.util.Arrays.copyOfRange(ints, 3 + nd, 3 + 2 * nd),
                    java.util.Arrays.copyOfRange(ints, 3 + 2 * nd, 3 + 3 * nd),
                    java.util.Arrays.copyOfRange(ints, 3 + 3 * nd, 3 + 4 * nd), ints[3 + 4 * nd], old);
            }
            default: throw new AssertionError("combiner " + combiner);
        }
    }

    private static int[] toInts(final long[] a)
    {
        final int[] out = new int[a.length];
        for (int i = 0; i < a.length; i++)
        {
            out[i] = (int)a[i];
        }
        return out;
    }

    /** Same bounds, and the same packed bytes from a numbered buffer. */
    private void assertSameType(final Datatype a, final Datatype b, final int count, final String what)
    {
        assertEquals(a.getSize(), b.getSize(), what);
        assertEquals(a.getExtent(), b.getExtent(), what);
        assertEquals(a.getLb(), b.getLb(), what);
        assertEquals(a.getTrueLb(), b.getTrueLb(), what);
        assertEquals(a.getTrueExtent(), b.getTrueExtent(), what);
        final double[] data = new double[64];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = i;
        }
        final int bytes = world.packSize(count, a);
        final byte[] pa = new byte[bytes];
        final byte[] pb = new byte[bytes];
        world.pack(data, count, a, pa, 0);
        world.pack(data, count, b, pb, 0);
        assertArrayEquals(pa, pb, what);
    }

    @Test
    void badInputHasItsErrorClassBeforeAnythingMoves()
    {
        assertEquals(MPI.ERR_COUNT, errorOf(() -> Datatype.createContiguous(-1, MPI.INT)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> Datatype.createVector(2, -1, 3, MPI.INT)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> Datatype.createIndexed(new int[] {1, 2}, new int[] {0}, MPI.INT)));
        assertEquals(MPI.ERR_TYPE, errorOf(() -> Datatype.createContiguous(2, null)));
        assertEquals(MPI.ERR_TYPE, errorOf(() -> Datatype.createContiguous(2, MPI.DATATYPE_NULL)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> Datatype.createSubarray(new int[] {4}, new int[] {3}, new int[] {2},
            MPI.ORDER_C, MPI.INT)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> Datatype.createSubarray(new int[] {4}, new int[] {3}, new int[] {0},
            99, MPI.INT)));
        final Datatype uncommitted = Datatype.createContiguous(2, MPI.INT);
        assertEquals(MPI.ERR_TYPE, errorOf(() -> world.send(new int[2], 1, uncommitted, next, 8)));
        uncommitted.commit();
        // Three columns of a 4 x 5 matrix need 16 + 2 * 16 = 48 doubles: 20 are too few.
        final Datatype col = column();
        assertEquals(MPI.ERR_BUFFER, errorOf(() -> world.send(new double[20], 2, col, next, 8)));
        assertEquals(MPI.ERR_BUFFER, errorOf(() -> world.recv(new double[10], 1, col, prev, 8)),
            "a receive checks too");
        assertEquals(MPI.ERR_BUFFER, errorOf(() -> world.iRecv(new double[10], 1, col, prev, 8)));
        assertEquals(MPI.ERR_BUFFER, errorOf(() -> world.unpack(new byte[32], 0, new double[10], 1, col)));
        final Datatype before = Datatype.createHIndexed(new int[] {1}, new int[] {-8}, MPI.DOUBLE);
        before.commit();
        assertEquals(MPI.ERR_BUFFER, errorOf(() -> world.send(new double[4], 1, before, next, 8)));
        final Datatype freed = Datatype.createContiguous(2, MPI.INT);
        freed.commit();
        freed.free();
        assertEquals(MPI.ERR_TYPE, errorOf(() -> world.send(new int[2], 1, freed, next, 8)));
        uncommitted.free();
        col.free();
        before.free();
    }

    private static int errorOf(final Runnable call)
    {
        final MPIException ex = assertThrows(MPIException.class, call::run);
        return ex.getErrorClass();
    }
}
