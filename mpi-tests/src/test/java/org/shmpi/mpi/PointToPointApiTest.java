package org.shmpi.mpi;

import static org.shmpi.mpi.Expect.expect;
import static org.shmpi.mpi.Expect.expectError;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.ShortBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.Datatype;
import mpi.Freeable;
import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * The point-to-point API checks of this release, on {@code COMM_WORLD} (at 1, 2 and 4 ranks)
 * and on {@code COMM_SELF}: one method per check and communicator ({@code worldX} / {@code selfX}),
 * one per message size where a check has several. Every rank runs each method; a failure on any
 * rank fails it. What only a fresh or a finalized rank can show (the default error handler is
 * {@code ERRORS_ARE_FATAL}, {@code isFinalized} after {@code Finalize}) is checked by
 * {@code PointToPointApiIT} in shmrun, since the runner sets {@code ERRORS_RETURN} before each
 * method and finalizes only when the job ends.
 */
@MpiTest(np = {1, 2, 4})
class PointToPointApiTest
{
    private static final int BARRIER_ROUNDS = 50;
    private static final int BOARD_SLOT_BYTES = 64;
    private static final VarHandle BOARD_SLOT =
        MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** This rank in COMM_WORLD. */
    private int rank;

    @BeforeEach
    void setUp()
    {
        rank = MPI.COMM_WORLD.getRank();
    }

    /** Every check receives what it sends: nothing may be left for the next method of the job. */
    @AfterEach
    void nothingLeftUnreceived()
    {
        Expect.nothingLeftUnreceived();
    }

    /**
     * Was "errhandler-default" (COMM_WORLD starts with ERRORS_ARE_FATAL: now in PointToPointApiIT).
     * Here: the runner's ERRORS_RETURN is in place, ERRORS_ARE_FATAL can be set and read back.
     */
    @Test
    void errhandlerSetAndGet()
    {
        expect(MPI.COMM_WORLD.getErrhandler() == MPI.ERRORS_RETURN, "ERRORS_RETURN set by the runner");
        try
        {
            MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_ARE_FATAL);
            expect(MPI.COMM_WORLD.getErrhandler() == MPI.ERRORS_ARE_FATAL, "ERRORS_ARE_FATAL after setErrhandler");
        }
        finally
        {
            MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        }
        expect(MPI.COMM_WORLD.getErrhandler() == MPI.ERRORS_RETURN, "ERRORS_RETURN restored");
    }

    @Test
    void initState()
    {
        expect(MPI.isInitialized() && !MPI.isFinalized() && MPI.isThreadMain() &&
            MPI.queryThread() == MPI.THREAD_SINGLE && MPI.wtick() > 0 && MPI.wtime() <= MPI.wtime(), "state");
    }

    // ---- COMM_WORLD -------------------------------------------------------------------------

    @Test
    void worldArrays0()
    {
        allArrayTypes(MPI.COMM_WORLD, 0);
    }

    @Test
    void worldArrays1()
    {
        allArrayTypes(MPI.COMM_WORLD, 1);
    }

    @Test
    void worldArrays1000()
    {
        allArrayTypes(MPI.COMM_WORLD, 1000);
    }

    @Test
    void worldArrays300000()
    {
        allArrayTypes(MPI.COMM_WORLD, 300_000);
    }

    @Test
    void worldBuffers0()
    {
        directBuffers(MPI.COMM_WORLD, 0);
    }

    @Test
    void worldBuffers1()
    {
        directBuffers(MPI.COMM_WORLD, 1);
    }

    @Test
    void worldBuffers1000()
    {
        directBuffers(MPI.COMM_WORLD, 1000);
    }

    @Test
    void worldBuffers300000()
    {
        directBuffers(MPI.COMM_WORLD, 300_000);
    }

    @Test
    void worldAnySourceAnyTag()
    {
        anySource(MPI.COMM_WORLD);
    }

    @Test
    void worldProcNull()
    {
        procNull(MPI.COMM_WORLD);
    }

    @Test
    void worldErrors()
    {
        errors(MPI.COMM_WORLD);
    }

    @Test
    void worldTruncate()
    {
        truncate(MPI.COMM_WORLD);
    }

    @Test
    void worldSlices()
    {
        slices(MPI.COMM_WORLD);
    }

    @Test
    void worldCallErrhandlerReturns()
    {
        callErrhandlerReturns(MPI.COMM_WORLD);
    }

    @Test
    void worldBarrier() throws Exception
    {
        barrierWaitsForEveryRank(MPI.COMM_WORLD, "world");
    }

    // ---- COMM_SELF --------------------------------------------------------------------------

    @Test
    void selfArrays0()
    {
        allArrayTypes(MPI.COMM_SELF, 0);
    }

    @Test
    void selfArrays1()
    {
        allArrayTypes(MPI.COMM_SELF, 1);
    }

    @Test
    void selfArrays1000()
    {
        allArrayTypes(MPI.COMM_SELF, 1000);
    }

    @Test
    void selfArrays300000()
    {
        allArrayTypes(MPI.COMM_SELF, 300_000);
    }

    @Test
    void selfBuffers0()
    {
        directBuffers(MPI.COMM_SELF, 0);
    }

    @Test
    void selfBuffers1()
    {
        directBuffers(MPI.COMM_SELF, 1);
    }

    @Test
    void selfBuffers1000()
    {
        directBuffers(MPI.COMM_SELF, 1000);
    }

    @Test
    void selfBuffers300000()
    {
        directBuffers(MPI.COMM_SELF, 300_000);
    }

    @Test
    void selfAnySourceAnyTag()
    {
        anySource(MPI.COMM_SELF);
    }

    @Test
    void selfProcNull()
    {
        procNull(MPI.COMM_SELF);
    }

    @Test
    void selfErrors()
    {
        errors(MPI.COMM_SELF);
    }

    @Test
    void selfTruncate()
    {
        truncate(MPI.COMM_SELF);
    }

    @Test
    void selfSlices()
    {
        slices(MPI.COMM_SELF);
    }

    @Test
    void selfCallErrhandlerReturns()
    {
        callErrhandlerReturns(MPI.COMM_SELF);
    }

    @Test
    void selfBarrier() throws Exception
    {
        barrierWaitsForEveryRank(MPI.COMM_SELF, "self");
    }

    // ---- neither ----------------------------------------------------------------------------

    /**
     * Comm and Datatype are Freeable and Cloneable as in Open MPI (this compiles only if so).
     * Predefined ones cannot be freed (ERR_COMM, ERR_TYPE); a datatype dup can, and is then null.
     */
    @Test
    void freeableCloneable()
    {
        final Freeable world = MPI.COMM_WORLD;
        final Freeable self = MPI.COMM_SELF;
        final Freeable type = MPI.INT;
        final Cloneable commClone = MPI.COMM_WORLD;
        final Cloneable typeClone = MPI.INT;
        expect(commClone != null && typeClone != null, "handles");
        expectError(MPI.ERR_COMM, world::free);
        expectError(MPI.ERR_COMM, self::free);
        expectError(MPI.ERR_TYPE, type::free);
        expectError(MPI.ERR_TYPE, MPI.DATATYPE_NULL::free);
        expectError(MPI.ERR_TYPE, MPI.DATATYPE_NULL::dup);
        expect(!MPI.INT.isNull() && MPI.COMM_WORLD.getSize() > 0 && !MPI.COMM_WORLD.isNull(), "still usable");
        final int me = MPI.COMM_WORLD.getRank();
        for (final Datatype base : new Datatype[] {MPI.INT, MPI.DOUBLE_INT})
        {
            final Datatype d = base.clone();
            final Datatype d2 = base.dup();
            // As in Open MPI, a basic type's size and extent count elements of itself (1), a pair
            // type's count bytes (DOUBLE_INT: 12 of data, extent 16); a dup counts as its type.
            final int size = base == MPI.INT ? 1 : 12;
            final int extent = base == MPI.INT ? 1 : 16;
            expect(d != base && d2 != base && !d.isNull() && d.getSize() == size && base.getSize() == size &&
                d.getExtent() == extent && d.getName().equals(base.getName()), "dup of " + base);
            final int bytes = base == MPI.INT ? 4 : 16;
            final ByteBuffer out = MPI.newByteBuffer(2 * bytes);
            out.putInt(0, 5);
            out.putInt(bytes, 6);
            final ByteBuffer in = MPI.newByteBuffer(2 * bytes);
            final Status s = MPI.COMM_WORLD.sendRecv(out, 2, d, me, 37, in, 2, base, me, 37);
            expect(s.getCount(d) == 2 && in.getInt(0) == 5 && in.getInt(bytes) == 6, "data with a dup");
            final Freeable f = d;
            f.free();
            expect(d.isNull() && !d2.isNull() && !base.isNull(), "freed dup is null, nothing else");
            expectError(MPI.ERR_TYPE, () -> MPI.COMM_WORLD.send(out, 1, d, me, 38));
            expectError(MPI.ERR_TYPE, d::free);
            d2.free();
        }
    }

    // ---- the checks, on either communicator ------------------------------------------------

    /**
     * No rank leaves barrier k before every rank of {@code comm} has entered it. Each rank has a
     * slot on a board every rank maps (a file in the job directory, one cache line per rank):
     * before entering barrier k it writes k there (release), after leaving it reads every slot
     * (acquire) and requires k or more. Rank k % size dawdles before entering, so a barrier that
     * did not wait would let the others out while its slot still says k - 1. A correct barrier
     * passes whatever the timing: the dawdler's store is ordered before its entry, and every
     * exit after it.
     */
    private void barrierWaitsForEveryRank(final Comm comm, final String name) throws Exception
    {
        final int me = comm.getRank();
        final int size = comm.getSize();
        final String jobDir = System.getenv("SHMPI_JOB_DIR");
        // COMM_SELF is a different communicator on every rank: one board each.
        final String file = "test-barrier-board-" + name + (comm == MPI.COMM_SELF ? "-" + rank : "");
        final Path path = jobDir != null ? Path.of(jobDir, file) : Files.createTempFile(file, "");
        final MappedByteBuffer board;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            // Every rank maps the full length; the file grows to it once, zero-filled.
            board = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long)size * BOARD_SLOT_BYTES);
        }
        if (jobDir == null)
        {
            path.toFile().deleteOnExit();
        }
        for (int k = 1; k <= BARRIER_ROUNDS; k++)
        {
            if (size > 1 && me == k % size)
            {
                Thread.sleep(5);
            }
            // Release: nothing to publish before it but itself; pairs with the acquire below.
            BOARD_SLOT.setRelease(board, me * BOARD_SLOT_BYTES, (long)k);
            comm.barrier();
            for (int r = 0; r < size; r++)
            {
                // Acquire: reads the slot as published; a stale k - 1 means r had not entered yet.
                final long entered = (long)BOARD_SLOT.getAcquire(board, r * BOARD_SLOT_BYTES);
                expect(entered >= k, "left barrier " + k + " before rank " + r + " entered it (board says " +
                    entered + ")");
            }
        }
        // Nobody may reuse the board before everyone has read it for the last time.
        comm.barrier();
    }

    /** Sends to the next rank, receives from the previous (a ring), for every array type. */
    private static void allArrayTypes(final Comm comm, final int n)
    {
        final int me = comm.getRank();
        final int size = comm.getSize();
        final int next = (me + 1) % size;
        final int prev = (me + size - 1) % size;
        final Object[][] cases = {
            {MPI.BYTE, new byte[n], new byte[n]}, {MPI.CHAR, new char[n], new char[n]},
            {MPI.SHORT, new short[n], new short[n]}, {MPI.BOOLEAN, new boolean[n], new boolean[n]},
            {MPI.INT, new int[n], new int[n]}, {MPI.LONG, new long[n], new long[n]},
            {MPI.FLOAT, new float[n], new float[n]}, {MPI.DOUBLE, new double[n], new double[n]},
        };
        for (int t = 0; t < cases.length; t++)
        {
            final Datatype type = (Datatype)cases[t][0];
            final Object out = cases[t][1];
            final Object in = cases[t][2];
            fill(out, me, t);
            exchange(comm, out, in, n, type, next, prev, 10 + t);
            final Object expected = java.lang.reflect.Array.newInstance(out.getClass().getComponentType(), n);
            fill(expected, prev, t);
            expect(deepEquals(expected, in), type.getName() + " data from " + prev);
        }
    }

    private static void exchange(
        final Comm comm, final Object out, final Object in, final int n, final Datatype type, final int next,
        final int prev, final int tag)
    {
        // sendRecv posts the receive first: safe for every size and for a rank sending to itself.
        final Status s = comm.sendRecv(out, n, type, next, tag, in, n, type, prev, tag);
        expect(s.getSource() == prev && s.getTag() == tag && s.getCount(type) == n,
            "status " + s + " count=" + s.getCount(type));
    }

    private static void directBuffers(final Comm comm, final int n)
    {
        final int me = comm.getRank();
        final int size = comm.getSize();
        final int next = (me + 1) % size;
        final int prev = (me + size - 1) % size;
        final ByteBuffer bOut = MPI.newByteBuffer(n);
        final ByteBuffer bIn = MPI.newByteBuffer(n);
        final IntBuffer iOut = MPI.newIntBuffer(n);
        final IntBuffer iIn = MPI.newIntBuffer(n);
        final LongBuffer lOut = MPI.newLongBuffer(n);
        final LongBuffer lIn = MPI.newLongBuffer(n);
        final DoubleBuffer dOut = MPI.newDoubleBuffer(n);
        final DoubleBuffer dIn = MPI.newDoubleBuffer(n);
        final IntBuffer heapOut = IntBuffer.allocate(n);
        final IntBuffer heapIn = IntBuffer.allocate(n);
        for (int i = 0; i < n; i++)
        {
            bOut.put(i, (byte)(me * 31 + i));
            iOut.put(i, me * 1_000_003 + i);
            lOut.put(i, (long)me << 40 | i);
            dOut.put(i, me + i / 7.0);
            heapOut.put(i, -(me * 1_000_003 + i));
        }
        exchange(comm, bOut, bIn, n, MPI.BYTE, next, prev, 20);
        exchange(comm, iOut, iIn, n, MPI.INT, next, prev, 21);
        exchange(comm, lOut, lIn, n, MPI.LONG, next, prev, 22);
        exchange(comm, dOut, dIn, n, MPI.DOUBLE, next, prev, 23);
        exchange(comm, heapOut, heapIn, n, MPI.INT, next, prev, 24);
        for (int i = 0; i < n; i++)
        {
            expect(bIn.get(i) == (byte)(prev * 31 + i), "ByteBuffer[" + i + "]");
            expect(iIn.get(i) == prev * 1_000_003 + i, "IntBuffer[" + i + "]");
            expect(lIn.get(i) == ((long)prev << 40 | i), "LongBuffer[" + i + "]");
            expect(dIn.get(i) == prev + i / 7.0, "DoubleBuffer[" + i + "]");
            expect(heapIn.get(i) == -(prev * 1_000_003 + i), "heap IntBuffer[" + i + "]");
        }
    }

    private static void anySource(final Comm comm)
    {
        final int me = comm.getRank();
        final int size = comm.getSize();
        if (me == 0)
        {
            final List<Integer> sources = new ArrayList<>();
            final int[] in = new int[2];
            for (int i = 1; i < size; i++)
            {
                final Status s = comm.recv(in, 2, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
                expect(in[0] == s.getSource() && s.getTag() == 100 + s.getSource() && in[1] == 7, "payload " +
                    Arrays.toString(in) + " status " + s);
                sources.add(s.getSource());
            }
            sources.sort(Integer::compare);
            for (int i = 1; i < size; i++)
            {
                expect(sources.get(i - 1) == i, "each source once: " + sources);
            }
        }
        else
        {
            comm.send(new int[] {me, 7}, 2, MPI.INT, 0, 100 + me);
        }
        // Rank 0's wildcard receives would take a later check's messages from a rank that ran
        // ahead: nobody starts the next check before rank 0 is done with this one.
        comm.barrier();
    }

    private static void procNull(final Comm comm)
    {
        comm.send(new int[1], 1, MPI.INT, MPI.PROC_NULL, 5);
        final int[] in = {42};
        final Status s = comm.recv(in, 1, MPI.INT, MPI.PROC_NULL, 5);
        expect(s.getSource() == MPI.PROC_NULL && s.getTag() == MPI.ANY_TAG && s.getCount(MPI.INT) == 0 && in[0] == 42,
            "PROC_NULL status " + s);
    }

    private static void errors(final Comm comm)
    {
        final int size = comm.getSize();
        final int[] buf = new int[4];
        expectError(MPI.ERR_RANK, () -> comm.send(buf, 1, MPI.INT, size, 0));
        expectError(MPI.ERR_RANK, () -> comm.send(buf, 1, MPI.INT, -5, 0));
        expectError(MPI.ERR_RANK, () -> comm.recv(buf, 1, MPI.INT, size, 0));
        expectError(MPI.ERR_TAG, () -> comm.send(buf, 1, MPI.INT, 0, -1));
        expectError(MPI.ERR_TAG, () -> comm.recv(buf, 1, MPI.INT, 0, -7));
        expectError(MPI.ERR_COUNT, () -> comm.send(buf, -1, MPI.INT, 0, 0));
        expectError(MPI.ERR_BUFFER, () -> comm.send(null, 1, MPI.INT, 0, 0));
        expectError(MPI.ERR_BUFFER, () -> comm.send(buf, 5, MPI.INT, 0, 0));
        expectError(MPI.ERR_BUFFER, () -> comm.send(new int[1], 1, MPI.LONG, 0, 0));
        expectError(MPI.ERR_BUFFER, () -> comm.send("not a buffer", 1, MPI.BYTE, 0, 0));
        expectError(MPI.ERR_TYPE, () -> comm.send(buf, 1, null, 0, 0));
        expectError(MPI.ERR_TYPE, () -> comm.send(buf, 1, MPI.DATATYPE_NULL, 0, 0));
        // Nothing above reached shared memory: the channel to ourselves is still clean.
        comm.send(new int[] {77}, 1, MPI.INT, comm.getRank(), 3);
        final int[] in = new int[1];
        final Status s = comm.recv(in, 1, MPI.INT, comm.getRank(), MPI.ANY_TAG);
        expect(in[0] == 77 && s.getTag() == 3, "first message after the bad calls");
    }

    private static void truncate(final Comm comm)
    {
        final int me = comm.getRank();
        final byte[] big = new byte[5000];
        Arrays.fill(big, (byte)1);
        comm.send(big, big.length, MPI.BYTE, me, 4);
        comm.send(new byte[] {9, 9, 9}, 3, MPI.BYTE, me, 4);
        final byte[] small = new byte[200];
        Arrays.fill(small, (byte)-1);
        expectError(MPI.ERR_TRUNCATE, () -> comm.recv(small, 100, MPI.BYTE, me, 4));
        for (int i = 0; i < 200; i++)
        {
            expect(small[i] == (i < 100 ? 1 : -1), "truncated receive wrote past its count at " + i);
        }
        final byte[] next = new byte[3];
        comm.recv(next, 3, MPI.BYTE, me, 4);
        expect(Arrays.equals(next, new byte[] {9, 9, 9}), "message after the truncated one");
    }

    /**
     * MPI.slice: sends from and receives into the middle of direct buffers, heap buffers and
     * arrays address from the slice's first element, write nothing outside it, and check the
     * count against the slice's capacity. Eager and rendezvous sizes; 40 000 ints from a
     * newIntBuffer slice also take the single-copy path out of the sender's shared heap.
     */
    private static void slices(final Comm comm)
    {
        final int me = comm.getRank();
        final int size = comm.getSize();
        final int next = (me + 1) % size;
        final int prev = (me + size - 1) % size;
        for (final int n : new int[] {5, 40_000})
        {
            final int outAt = 3;
            final int inAt = 7;
            final int cap = n + 16;
            // Direct int buffers, and a slice of a slice (2 + 1 = outAt).
            final IntBuffer out = MPI.newIntBuffer(cap);
            final IntBuffer in = MPI.newIntBuffer(cap);
            for (int i = 0; i < cap; i++)
            {
                out.put(i, sliceValue(me, i));
                in.put(i, -1);
            }
            Status s = comm.sendRecv(MPI.slice(MPI.slice(out, 2), 1), n, MPI.INT, next, 30,
                MPI.slice(in, inAt), n, MPI.INT, prev, 30);
            expect(s.getCount(MPI.INT) == n && s.getSource() == prev, "direct slice status " + s);
            for (int i = 0; i < cap; i++)
            {
                final int want = i >= inAt && i < inAt + n ? sliceValue(prev, i - inAt + outAt) : -1;
                expect(in.get(i) == want, "direct IntBuffer slice [" + i + "] = " + in.get(i) + ", want " + want);
            }
            // Arrays, nonblocking: a double[] slice out, a double[] slice in.
            final double[] dOut = new double[cap];
            final double[] dIn = new double[cap];
            for (int i = 0; i < cap; i++)
            {
                dOut[i] = sliceValue(me, i) / 4.0;
                dIn[i] = -1;
            }
            final Request r = comm.iRecv(MPI.slice(dIn, inAt), n, MPI.DOUBLE, prev, 31);
            comm.iSend(MPI.slice(dOut, outAt), n, MPI.DOUBLE, next, 31).waitFor();
            s = r.waitStatus();
            expect(s.getCount(MPI.DOUBLE) == n, "array slice status " + s);
            for (int i = 0; i < cap; i++)
            {
                final double want = i >= inAt && i < inAt + n ? sliceValue(prev, i - inAt + outAt) / 4.0 : -1;
                expect(dIn[i] == want, "double[] slice [" + i + "] = " + dIn[i] + ", want " + want);
            }
            // A byte[] slice into a direct ByteBuffer slice, and a heap ShortBuffer slice of a slice.
            final byte[] bOut = new byte[cap];
            for (int i = 0; i < cap; i++)
            {
                bOut[i] = (byte)sliceValue(me, i);
            }
            final ByteBuffer bIn = MPI.newByteBuffer(cap);
            s = comm.sendRecv(MPI.slice(bOut, outAt), n, MPI.BYTE, next, 32, MPI.slice(bIn, inAt), n, MPI.BYTE,
                prev, 32);
            for (int i = 0; i < cap; i++)
            {
                final byte want = i >= inAt && i < inAt + n ? (byte)sliceValue(prev, i - inAt + outAt) : 0;
                expect(bIn.get(i) == want, "direct ByteBuffer slice [" + i + "]");
            }
            final ShortBuffer hOut = ShortBuffer.allocate(cap);
            final ShortBuffer hIn = ShortBuffer.allocate(cap);
            for (int i = 0; i < cap; i++)
            {
                hOut.put(i, (short)sliceValue(me, i));
            }
            s = comm.sendRecv(MPI.slice(hOut, outAt), n, MPI.SHORT, next, 33,
                MPI.slice(MPI.slice(hIn, inAt - 4), 4), n, MPI.SHORT, prev, 33);
            for (int i = 0; i < cap; i++)
            {
                final short want = i >= inAt && i < inAt + n ? (short)sliceValue(prev, i - inAt + outAt) : 0;
                expect(hIn.get(i) == want, "heap ShortBuffer slice [" + i + "]");
            }
        }
        // The count is checked against the slice, not the whole buffer or array.
        final int[] a = new int[10];
        expect(MPI.slice(a, 8).capacity() == 2 && MPI.slice(a, 10).capacity() == 0, "slice capacities");
        expectError(MPI.ERR_BUFFER, () -> comm.send(MPI.slice(a, 8), 3, MPI.INT, me, 34));
        expectError(MPI.ERR_BUFFER, () -> comm.recv(MPI.slice(MPI.newLongBuffer(10), 9), 2, MPI.LONG, me, 34));
        expectError(MPI.ERR_ARG, () -> MPI.slice(a, 11));
        expectError(MPI.ERR_ARG, () -> MPI.slice(MPI.newByteBuffer(4), -1));
        expect(MPI.slice(ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN), 2).order() == ByteOrder.nativeOrder(),
            "a ByteBuffer slice is in native order");
        final IntBuffer positioned = MPI.newIntBuffer(8);
        positioned.position(5).limit(6);
        MPI.slice(positioned, 2);
        expect(positioned.position() == 5 && positioned.limit() == 6, "slicing leaves the buffer's position alone");
        // Nothing above reached shared memory: the next message to ourselves is the one we send.
        comm.send(new int[] {35}, 1, MPI.INT, me, 35);
        final int[] one = new int[1];
        expect(comm.recv(one, 1, MPI.INT, me, MPI.ANY_TAG).getTag() == 35 && one[0] == 35, "clean after the errors");
    }

    private static int sliceValue(final int who, final int i)
    {
        return who * 100_003 + i * 7 + 1;
    }

    /** Under ERRORS_RETURN, callErrhandler calls the handler (which does nothing) and returns. */
    private static void callErrhandlerReturns(final Comm comm)
    {
        expect(comm.getErrhandler() == MPI.ERRORS_RETURN, "ERRORS_RETURN set");
        comm.callErrhandler(MPI.ERR_OTHER);
        comm.callErrhandler(MPI.ERR_ARG);
        // The communicator is untouched.
        comm.send(new int[] {36}, 1, MPI.INT, comm.getRank(), 36);
        final int[] one = new int[1];
        comm.recv(one, 1, MPI.INT, comm.getRank(), 36);
        expect(one[0] == 36, "communicator usable after callErrhandler");
    }

    private static void fill(final Object array, final int who, final int type)
    {
        final int n = java.lang.reflect.Array.getLength(array);
        for (int i = 0; i < n; i++)
        {
            final long v = who * 7919L + i * 31L + type;
            if (array instanceof byte[])
            {
                ((byte[])array)[i] = (byte)v;
            }
            else if (array instanceof char[])
            {
                ((char[])array)[i] = (char)v;
            }
            else if (array instanceof short[])
            {
                ((short[])array)[i] = (short)v;
            }
            else if (array instanceof boolean[])
            {
                ((boolean[])array)[i] = (v & 1) == 0;
            }
            else if (array instanceof int[])
            {
                ((int[])array)[i] = (int)v;
            }
            else if (array instanceof long[])
            {
                ((long[])array)[i] = v << 20;
            }
            else if (array instanceof float[])
            {
                ((float[])array)[i] = v / 3.0f;
            }
            else if (array instanceof double[])
            {
                ((double[])array)[i] = v / 3.0;
            }
        }
    }

    private static boolean deepEquals(final Object a, final Object b)
    {
        return Arrays.deepEquals(new Object[] {a}, new Object[] {b});
    }
}
