package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.mpi.Expect.expectError;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Datatype;
import mpi.File;
import mpi.FileView;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * MPI-IO between real processes, on tmpfs ({@code /dev/shm}) and on the disk directory of
 * {@code java.io.tmpdir}: every way of addressing data, views (strided, 2-D block-cyclic
 * darray, external32), shared and ordered pointers, atomic mode, sizes, and every error class
 * a program can provoke. What lands in the file is checked byte by byte with a plain
 * {@link FileChannel} read, not only by reading it back through MPI.
 */
@MpiTest(np = {1, 2, 3, 4})
class FileTest
{
    private Intracomm world;
    private int rank;
    private int size;
    private final List<Path> dirs = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException
    {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        size = world.getSize();
        // One directory per root, named by rank 0 and sent to the others.
        for (final String root : new String[] {"/dev/shm", System.getProperty("java.io.tmpdir")})
        {
            final char[] name = new char[200];
            if (rank == 0)
            {
                final String made = Files.createTempDirectory(Path.of(root), "shmpi-filetest-").toString();
                made.getChars(0, made.length(), name, 0);
            }
            world.bcast(name, name.length, MPI.CHAR, 0);
            dirs.add(Path.of(new String(name).trim()));
        }
    }

    @AfterEach
    void cleanUp() throws IOException
    {
        world.barrier();
        if (rank == 0)
        {
            for (final Path d : dirs)
            {
                try (Stream<Path> s = Files.walk(d))
                {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
        Expect.nothingLeftUnreceived();
    }

    private static byte[] contents(final Path p) throws IOException
    {
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ))
        {
            final ByteBuffer b = ByteBuffer.allocate((int)c.size());
            while (b.hasRemaining() && c.read(b) >= 0)
            {
                // Read it all.
            }
            return b.array();
        }
    }

    private static int intAt(final byte[] b, final int index)
    {
        return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).getInt(4 * index);
    }

    @Test
    void explicitOffsetsContiguousAndStridedViews() throws IOException
    {
        for (final Path dir : dirs)
        {
            final String name = dir.resolve("at.dat").toString();
            final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
            assertEquals(MPI.ERRORS_RETURN, f.getErrhandler(), "files default to ERRORS_RETURN");
            // Each rank writes 100 ints at its own block, from an array.
            final int[] mine = new int[100];
            for (int i = 0; i < mine.length; i++)
            {
                mine[i] = rank * 1000 + i;
            }
            final Status w = f.writeAt(400L * rank, mine, 100, MPI.INT);
            assertEquals(100, w.getCount(MPI.INT));
            f.sync();
            world.barrier();
            f.sync();
            assertEquals(400L * size, f.getSize());
            final byte[] file = contents(Path.of(name));
            for (int r = 0; r < size; r++)
            {
                for (int i = 0; i < 100; i++)
                {
                    assertEquals(r * 1000 + i, intAt(file, 100 * r + i), "int " + i + " of rank " + r);
                }
            }
            // Read a neighbour's block back through a direct buffer.
            final IntBuffer got = MPI.newIntBuffer(100);
            final int other = (rank + 1) % size;
            assertEquals(100, f.readAtAll(400L * other, got, 100, MPI.INT).getCount(MPI.INT));
            for (int i = 0; i < 100; i++)
            {
                assertEquals(other * 1000 + i, got.get(i));
            }
            // A strided view: ints dealt round-robin, rank r owns every size-th int from r.
            final Datatype filetype = Datatype.createResized(Datatype.createContiguous(1, MPI.INT), 0, 4 * size);
            filetype.commit();
            f.setView(4096, MPI.INT, filetype, "native");
            final FileView v = f.getView();
            assertEquals(4096, v.getDisp());
            assertEquals("native", v.getDataRep());
            assertEquals(4096L, f.getByteOffset(0));
            assertEquals(4096L + 4L * size * 2, f.getByteOffset(2));
            final int[] dealt = new int[50];
            for (int i = 0; i < dealt.length; i++)
            {
                dealt[i] = -(i * size + rank);
            }
            // The view starts at each rank's own int: shift by displacement.
            f.setView(4096 + 4L * rank, MPI.INT, filetype, "native");
            assertEquals(50, f.writeAtAll(0, dealt, 50, MPI.INT).getCount(MPI.INT));
            assertEquals(4096 + 4L * rank + 4L * size * 3, f.getByteOffset(3));
            f.sync();
            world.barrier();
            f.sync();
            final byte[] after = contents(Path.of(name));
            for (int k = 0; k < 50 * size; k++)
            {
                assertEquals(-k, intAt(after, 1024 + k), "dealt int " + k);
            }
            final int[] back = new int[50];
            f.readAtAll(0, back, 50, MPI.INT);
            assertArrayEquals(dealt, back);
            filetype.free();
            f.close();
            world.barrier();
            if (rank == 0)
            {
                File.delete(name);
                assertFalse(Files.exists(Path.of(name)));
            }
        }
    }

    @Test
    void darrayBlockCyclicViewWrittenCollectively() throws IOException
    {
        // A 12 x 10 array of ints over a 2-D process grid, block-cyclic with blocks of 2.
        final int[] psizes = new int[2];
        mpi.CartComm.createDims(size, psizes);
        final int[] gsizes = {12, 10};
        final Datatype darray = Datatype.createDarray(size, rank, gsizes,
            new int[] {MPI.DISTRIBUTE_CYCLIC, MPI.DISTRIBUTE_CYCLIC}, new int[] {2, 2}, psizes, MPI.ORDER_C, MPI.INT);
        darray.commit();
        final int mineCount = darray.getSize();
        // The global index of each int this rank owns, in order: from the darray's own layout.
        final int[] global = new int[12 * 10];
        for (int i = 0; i < global.length; i++)
        {
            global[i] = i;
        }
        final int[] owned = new int[mineCount];
        world.barrier();
        // Pack the global index array through the darray type: what this rank owns, in file order.
        final byte[] packed = new byte[world.packSize(1, darray)];
        world.pack(global, 1, darray, packed, 0);
        ByteBuffer.wrap(packed).order(ByteOrder.nativeOrder()).asIntBuffer().get(owned);
        for (final Path dir : dirs)
        {
            final String name = dir.resolve("darray.dat").toString();
            final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_WRONLY);
            f.setView(0, MPI.INT, darray, "native");
            final int[] values = new int[mineCount];
            for (int i = 0; i < mineCount; i++)
            {
                values[i] = 7 * owned[i] + 1;
            }
            assertEquals(mineCount, f.writeAll(values, mineCount, MPI.INT).getCount(MPI.INT));
            assertEquals(mineCount, f.getPosition());
            f.sync();
            world.barrier();
            f.close();
            final byte[] file = contents(Path.of(name));
            assertEquals(4 * 120, file.length);
            for (int i = 0; i < 120; i++)
            {
                assertEquals(7 * i + 1, intAt(file, i), "element " + i);
            }
        }
        darray.free();
    }

    @Test
    void individualPointersSeekNonblockingAndSplitCollectives() throws IOException
    {
        for (final Path dir : dirs)
        {
            final String name = dir.resolve("ind.dat").toString();
            final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
            // Each rank's view starts at its own 1 KiB region.
            f.setView(1024L * rank, MPI.BYTE, MPI.BYTE, "native");
            final byte[] hello = ("rank " + rank + " says hello").getBytes();
            f.write(hello, hello.length, MPI.BYTE);
            assertEquals(hello.length, f.getPosition());
            final ByteBuffer more = MPI.newByteBuffer(4);
            more.put(0, (byte)1).put(1, (byte)2).put(2, (byte)3).put(3, (byte)(rank + 4));
            final Request r = f.iWrite(more, 4, MPI.BYTE);
            final Status s = r.waitStatus();
            assertEquals(4, s.getCount(MPI.BYTE));
            assertEquals(hello.length + 4, f.getPosition());
            f.seek(0, MPI.SEEK_SET);
            final byte[] back = new byte[hello.length];
            f.readAllBegin(back, back.length, MPI.BYTE);
            assertEquals(back.length, f.readAllEnd(back).getCount(MPI.BYTE));
            assertArrayEquals(hello, back);
            f.seek(-4, MPI.SEEK_CUR);
            assertEquals(hello.length - 4, f.getPosition());
            f.seek(4, MPI.SEEK_CUR);
            final ByteBuffer two = MPI.newByteBuffer(2);
            assertEquals(2, f.iRead(two, 2, MPI.BYTE).waitStatus().getCount(MPI.BYTE));
            assertEquals(1, two.get(0));
            assertEquals(2, two.get(1));
            // Split collectives at explicit offsets; one at a time.
            f.writeAtAllBegin(100, hello, hello.length, MPI.BYTE);
            expectError(MPI.ERR_IO, () -> f.readAtAllBegin(0, back, 1, MPI.BYTE));
            assertEquals(hello.length, f.writeAtAllEnd(hello).getCount(MPI.BYTE));
            expectError(MPI.ERR_IO, () -> f.writeAtAllEnd(hello));
            f.readAtAllBegin(100, back, back.length, MPI.BYTE);
            f.readAtAllEnd(back);
            assertArrayEquals(hello, back);
            // Reading past the end of the file returns what there is.
            f.sync();
            world.barrier();
            final long end = f.getSize();
            f.setView(0, MPI.BYTE, MPI.BYTE, "native");
            final byte[] tail = new byte[64];
            final Status short1 = f.readAt(end - 10, tail, 64, MPI.BYTE);
            assertEquals(10, short1.getCount(MPI.BYTE));
            f.seek(0, MPI.SEEK_END);
            assertEquals(end, f.getPosition());
            world.barrier();
            f.close();
            final byte[] file = contents(Path.of(name));
            for (int q = 0; q < size; q++)
            {
                final byte[] h = ("rank " + q + " says hello").getBytes();
                for (int i = 0; i < h.length; i++)
                {
                    assertEquals(h[i], file[1024 * q + i]);
                    assertEquals(h[i], file[1024 * q + 100 + i]);
                }
                assertEquals(q + 4, file[1024 * q + h.length + 3]);
            }
        }
    }

    @Test
    void sharedAndOrderedPointers() throws IOException
    {
        for (final Path dir : dirs)
        {
            final String name = dir.resolve("shared.dat").toString();
            final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
            f.setView(0, MPI.INT, MPI.INT, "native");
            // Ordered: rank r writes r + 1 ints of value r, in rank order.
            final int[] mine = new int[rank + 1];
            java.util.Arrays.fill(mine, rank);
            f.writeOrdered(mine, mine.length, MPI.INT);
            final int total = size * (size + 1) / 2;
            assertEquals(total, f.getPositionShared());
            world.barrier();
            // Shared: 10 appends of 3 ints each per rank, tagged with rank and round.
            for (int round = 0; round < 10; round++)
            {
                final int[] rec = {rank, round, rank * 100 + round};
                f.writeShared(rec, 3, MPI.INT);
            }
            world.barrier();
            assertEquals(total + 30L * size, f.getPositionShared());
            f.sync();
            world.barrier();
            final byte[] file = contents(Path.of(name));
            int at = 0;
            for (int r = 0; r < size; r++)
            {
                for (int i = 0; i <= r; i++)
                {
                    assertEquals(r, intAt(file, at++), "ordered int");
                }
            }
            final boolean[][] seen = new boolean[size][10];
            for (int k = 0; k < 10 * size; k++)
            {
                final int r = intAt(file, at + 3 * k);
                final int round = intAt(file, at + 3 * k + 1);
                assertEquals(r * 100 + round, intAt(file, at + 3 * k + 2), "a record is never torn");
                assertFalse(seen[r][round], "each record once");
                seen[r][round] = true;
            }
            // Ordered read from the start: each rank reads what it wrote.
            f.seekShared(0, MPI.SEEK_SET);
            assertEquals(0, f.getPositionShared());
            final int[] got = new int[rank + 1];
            f.readOrdered(got, got.length, MPI.INT);
            assertArrayEquals(mine, got);
            f.readOrderedBegin(got, 1, MPI.INT);
            f.readOrderedEnd(got);
            final int[] rec = new int[3];
            f.seekShared(total, MPI.SEEK_SET);
            f.readShared(rec, 3, MPI.INT);
            assertEquals(rec[0] * 100 + rec[1], rec[2]);
            f.close();
            world.barrier();
            assertFalse(Files.exists(Path.of(name)), "MODE_DELETE_ON_CLOSE");
        }
    }

    @Test
    void atomicModeOverlappingWritesAppearWhole() throws IOException
    {
        final Path dir = dirs.get(0);
        final String name = dir.resolve("atomic.dat").toString();
        final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
        assertFalse(f.getAtomicity());
        f.setAtomicity(true);
        assertTrue(f.getAtomicity());
        final int n = 64 * 1024;
        final int[] mine = new int[n];
        for (int round = 0; round < 20; round++)
        {
            java.util.Arrays.fill(mine, rank * 1000 + round);
            f.writeAt(0, mine, n, MPI.INT);
            final int[] back = new int[n];
            f.readAt(0, back, n, MPI.INT);
            for (int i = 1; i < n; i++)
            {
                assertEquals(back[0], back[i], "an atomic read sees one write whole");
            }
        }
        world.barrier();
        final byte[] file = contents(Path.of(name));
        final int first = intAt(file, 0);
        for (int i = 1; i < n; i++)
        {
            assertEquals(first, intAt(file, i));
        }
        f.close();
    }

    @Test
    void external32SizesInfoAndGroup() throws IOException
    {
        final Path dir = dirs.get(1);
        final String name = dir.resolve("x32.dat").toString();
        final Info hints = new Info();
        hints.set("access_style", "write_once");
        hints.set("file_perm", "640");
        final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR, hints);
        assertEquals("write_once", f.getInfo().get("access_style"));
        assertEquals("access_style", f.getInfo().get("shmpi_ignored_hints"), "what has no effect is said");
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(Path.of(name))), "file_perm is honoured");
        assertEquals(MPI.MODE_CREATE | MPI.MODE_RDWR, f.getAMode());
        assertEquals(size, f.getGroup().getSize());
        f.setView(0, MPI.INT, MPI.INT, "external32");
        final int[] v = {0x01020304 + rank, -2};
        f.writeAt(2L * rank, v, 2, MPI.INT);
        assertEquals(1, f.getTypeExtent(MPI.INT));
        f.sync();
        world.barrier();
        final ByteBuffer file = ByteBuffer.wrap(contents(Path.of(name))).order(ByteOrder.BIG_ENDIAN);
        for (int r = 0; r < size; r++)
        {
            assertEquals(0x01020304 + r, file.getInt(8 * r), "big-endian in the file");
            assertEquals(-2, file.getInt(8 * r + 4));
        }
        final int[] back = new int[2];
        f.readAt(2L * rank, back, 2, MPI.INT);
        assertArrayEquals(v, back);
        // Pair types with padding have no external32 form here.
        expectError(MPI.ERR_CONVERSION, () -> f.writeAt(0, new short[8], 1, MPI.SHORT_INT));
        f.setView(0, MPI.BYTE, MPI.BYTE, "native");
        // Sizes.
        // Each size is checked between barriers: a collective call may return on one rank
        // before another has entered the next one.
        f.setSize(4096);
        assertEquals(4096, f.getSize());
        world.barrier();
        f.preallocate(8192);
        assertEquals(8192, f.getSize());
        world.barrier();
        f.setSize(100);
        assertEquals(100, f.getSize());
        assertEquals(100, Files.size(Path.of(name)));
        world.barrier();
        f.close();
    }

    @Test
    void largerThanTwoGibibytesSparse() throws IOException
    {
        final Path dir = dirs.get(0);
        final String name = dir.resolve("big.dat").toString();
        final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        // Each rank writes 1 MiB past 3 GiB; the rest of the file stays a hole.
        final long at = (3L << 30) + (1L << 20) * rank;
        final byte[] mine = new byte[1 << 20];
        java.util.Arrays.fill(mine, (byte)(rank + 1));
        f.writeAt(at, mine, mine.length, MPI.BYTE);
        world.barrier();
        assertEquals((3L << 30) + (1L << 20) * size, f.getSize());
        final byte[] other = new byte[1 << 20];
        final int o = (rank + 1) % size;
        f.readAt((3L << 30) + (1L << 20) * o, other, other.length, MPI.BYTE);
        for (final byte b : other)
        {
            assertEquals(o + 1, b);
        }
        final byte[] hole = new byte[16];
        f.readAt(1L << 31, hole, 16, MPI.BYTE);
        assertArrayEquals(new byte[16], hole, "a hole reads as zeros");
        f.close();
    }

    @Test
    void errorsEachWithItsClass() throws IOException
    {
        final Path dir = dirs.get(0);
        final String name = dir.resolve("errors.dat").toString();
        final String missing = dir.resolve("missing.dat").toString();
        assertEquals(MPI.ERRORS_RETURN, MPI.FILE_NULL.getErrhandler());
        expectError(MPI.ERR_AMODE, () -> new File(world, name, MPI.MODE_RDONLY | MPI.MODE_WRONLY));
        expectError(MPI.ERR_AMODE, () -> new File(world, name, MPI.MODE_RDWR | MPI.MODE_SEQUENTIAL | MPI.MODE_CREATE));
        expectError(MPI.ERR_AMODE, () -> new File(world, name, MPI.MODE_RDONLY | MPI.MODE_CREATE));
        expectError(MPI.ERR_NO_SUCH_FILE, () -> new File(world, missing, MPI.MODE_RDONLY));
        // An access mode that differs between ranks fails on every rank, also where it is valid.
        if (size > 1)
        {
            expectError(MPI.ERR_AMODE, () -> new File(world, name, rank == size - 1 ?
                MPI.MODE_CREATE | MPI.MODE_RDWR : MPI.MODE_CREATE | MPI.MODE_WRONLY));
        }
        expectError(MPI.ERR_BAD_FILE, () -> new File(world, dir.toString(), MPI.MODE_RDONLY));
        expectError(MPI.ERR_BAD_FILE, () -> new File(world, dir.resolve("no/such/dir/x").toString(),
            MPI.MODE_CREATE | MPI.MODE_WRONLY));
        // A bad shmpi.io.* setting fails MPI.Init, with every other setting: LifecycleIT.
        final File f = new File(world, name, MPI.MODE_CREATE | MPI.MODE_WRONLY);
        world.barrier();
        expectError(MPI.ERR_FILE_EXISTS, () -> new File(world, name, MPI.MODE_CREATE | MPI.MODE_EXCL | MPI.MODE_RDWR));
        expectError(MPI.ERR_FILE_IN_USE, () -> File.delete(name));
        expectError(MPI.ERR_ACCESS, () -> f.readAt(0, new byte[4], 4, MPI.BYTE));
        expectError(MPI.ERR_UNSUPPORTED_DATAREP, () -> f.setView(0, MPI.BYTE, MPI.BYTE, "big-endian-please"));
        expectError(MPI.ERR_TYPE, () -> f.setView(0, MPI.INT, MPI.BYTE, "native"));
        expectError(MPI.ERR_ARG, () -> f.seek(0, 12345));
        expectError(MPI.ERR_ARG, () -> f.seek(-1, MPI.SEEK_SET));
        f.setView(0, MPI.INT, MPI.INT, "native");
        expectError(MPI.ERR_TYPE, () -> f.writeAt(0, new byte[3], 3, MPI.BYTE));
        expectError(MPI.ERR_COUNT, () -> f.writeAt(0, new int[3], -1, MPI.INT));
        expectError(MPI.ERR_BUFFER, () -> f.iWriteAt(0, IntBuffer.allocate(3), 3, MPI.INT));
        f.callErrhandler(MPI.ERR_IO);   // ERRORS_RETURN: returns (OpenMpiBehaviourTest)
        f.close();
        expectError(MPI.ERR_FILE, () -> f.getSize());
        world.barrier();
        final File ro = new File(world, name, MPI.MODE_RDONLY);
        expectError(MPI.ERR_READ_ONLY, () -> ro.writeAt(0, new byte[4], 4, MPI.BYTE));
        ro.close();
        final File seq = new File(world, name, MPI.MODE_WRONLY | MPI.MODE_SEQUENTIAL);
        expectError(MPI.ERR_UNSUPPORTED_OPERATION, () -> seq.seek(0, MPI.SEEK_SET));
        expectError(MPI.ERR_UNSUPPORTED_OPERATION, () -> seq.writeAt(0, new byte[4], 4, MPI.BYTE));
        seq.close();
        world.barrier();
        if (rank == 0)
        {
            expectError(MPI.ERR_NO_SUCH_FILE, () -> File.delete(missing));
            File.delete(name);
        }
        // A handler on FILE_NULL is what a failed open calls.
        final int[] called = new int[1];
        MPI.FILE_NULL.setErrhandler(mpi.Comm.createErrhandler((comm, e) -> called[0] = e.getErrorClass()));
        try
        {
            expectError(MPI.ERR_NO_SUCH_FILE, () -> new File(world, missing, MPI.MODE_RDONLY));
            assertEquals(MPI.ERR_NO_SUCH_FILE, called[0]);
        }
        finally
        {
            MPI.FILE_NULL.setErrhandler(MPI.ERRORS_RETURN);
        }
    }
}
