package org.shmpi.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.rma.ScheduleMembers;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;

/**
 * The file engine with ranks as threads of this JVM: a view's arithmetic against a brute-force
 * walk, the mapped windows with tiny chunks (crossing, growth, least-recently-used unmapping),
 * every way of addressing data at 1, 2, 3, 4 and 8 ranks checked against a plain channel read,
 * a full file system (a 1 MiB tmpfs mounted by the test when root) as ERR_NO_SPACE, and a
 * quota met as ERR_QUOTA (in a JVM of its own, {@link QuotaChild}).
 */
class ShmFileTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long INTS = UnsafeApi.arrayBaseOffset(int[].class);
    private static final int CONTEXT = 40;

    private ThreadedJob job;
    private Path dir;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
        if (dir != null)
        {
            try (Stream<Path> s = Files.walk(dir))
            {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static FileMembers members(final RankContext ctx, final int n)
    {
        return members(ctx, n, true);
    }

    /**
     * Members 0 to {@code n - 1}; {@code shares} false: as if on several nodes, so the shared
     * words go by messages ({@link ServedWords}).
     */
    static FileMembers members(final RankContext ctx, final int n, final boolean shares)
    {
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        final ScheduleMembers m = new ScheduleMembers(ctx, world, ctx.rank(), CONTEXT);
        return new FileMembers()
        {
            @Override
            public int[] world()
            {
                return m.world();
            }

            @Override
            public int rank()
            {
                return m.rank();
            }

            @Override
            public int context()
            {
                return m.context();
            }

            @Override
            public void barrier()
            {
                m.barrier();
            }

            @Override
            public boolean sharesMemory()
            {
                return shares;
            }

            @Override
            public long[] allgather(final long[] mine)
            {
                return m.allgather(mine);
            }
        };
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

    /** Bytes of blocks the file system gave the file ({@code stat}'s count of 512-byte blocks). */
    private static long allocated(final Path p) throws IOException, InterruptedException
    {
        final Process stat = new ProcessBuilder("stat", "-c", "%b", p.toString()).redirectErrorStream(true).start();
        final String out = new String(stat.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(0, stat.waitFor(), out);
        return 512 * Long.parseLong(out.trim());
    }

    @Test
    void viewArithmeticMatchesABruteForceWalk()
    {
        // A filetype of blocks {2 ints at 4, 1 int at 20, 3 ints at 28}, extent 48, after 100 bytes.
        final TypeMap i = TypeMap.basic(BasicKind.INT, 4);
        final TypeMap ft = TypeMap.resized(TypeMap.hindexed(new int[] {2, 1, 3}, new long[] {4, 20, 28}, i), 0, 48);
        final FileViewMap v = new FileViewMap(100, i, ft, "native");
        // Brute force: file bytes of the data bytes of 5 tiles.
        final long[] expected = new long[5 * 24];
        int k = 0;
        for (int t = 0; t < 5; t++)
        {
            for (final long[] block : new long[][] {{4, 8}, {20, 4}, {28, 12}})
            {
                for (long b = 0; b < block[1]; b++)
                {
                    expected[k++] = 100 + 48L * t + block[0] + b;
                }
            }
        }
        for (int logical = 0; logical < expected.length; logical++)
        {
            assertEquals(expected[logical], v.fileByte(logical), "data byte " + logical);
        }
        // Pieces of every range agree with byte-by-byte positions and are maximal runs.
        for (int from = 0; from < 60; from += 3)
        {
            for (int len = 1; from + len <= expected.length; len += 7)
            {
                final long[] seen = new long[len];
                final int f = from;
                v.pieces(from, len, (file, length, packed) ->
                {
                    for (long b = 0; b < length; b++)
                    {
                        seen[(int)(packed + b)] = file + b;
                    }
                });
                assertArrayEquals(Arrays.copyOfRange(expected, f, f + len), seen, "range " + from + "+" + len);
            }
        }
        // The data before each file byte (SEEK_END's arithmetic).
        for (long fileEnd = 0; fileEnd < 100 + 48 * 5; fileEnd++)
        {
            long before = 0;
            for (final long e : expected)
            {
                if (e < fileEnd)
                {
                    before++;
                }
            }
            assertEquals(before, v.logicalBefore(fileEnd), "data before file byte " + fileEnd);
        }
        // Filetypes a view may not have.
        assertEquals(ErrorClass.ERR_TYPE, assertThrows(ShmpiException.class, () -> new FileViewMap(0, i,
            TypeMap.hindexed(new int[] {1, 1}, new long[] {8, 0}, i), "native")).errorClass(), "decreasing blocks");
        assertEquals(ErrorClass.ERR_TYPE, assertThrows(ShmpiException.class, () -> new FileViewMap(0, i,
            TypeMap.basic(BasicKind.SHORT, 2), "native")).errorClass(), "filetype not of etypes");
        assertEquals(ErrorClass.ERR_ARG, assertThrows(ShmpiException.class, () -> new FileViewMap(-1, i, i, "native"))
            .errorClass(), "negative displacement");
    }

    @Test
    void tinyChunksCrossGrowAndUnmapLeastRecentlyUsed() throws IOException
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "shmpi-mapped-");
        final Path p = dir.resolve("chunks.dat");
        Files.createFile(p);
        try (MappedFile f = new MappedFile(FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE),
            p.toString(), true, 4096, 3))
        {
            final byte[] data = new byte[5 * 4096 + 123];
            for (int i = 0; i < data.length; i++)
            {
                data[i] = (byte)(i * 31 + 7);
            }
            // Grow the file by small writes that straddle chunk borders.
            for (int at = 0; at < data.length; at += 1000)
            {
                final int n = Math.min(1000, data.length - at);
                f.reserve(at, at + n);
                f.write(at, data, BYTES + at, n);
                assertTrue(f.mappedChunks() <= 3, "at most 3 chunks mapped");
            }
            assertEquals(data.length, f.size());
            assertArrayEquals(data, contents(p));
            final byte[] back = new byte[data.length];
            assertEquals(data.length, f.read(0, back, BYTES, back.length));
            assertArrayEquals(data, back);
            // Reading past the end returns what there is.
            assertEquals(123, f.read(5 * 4096, back, BYTES, 4096));
            assertEquals(0, f.read(data.length + 10, back, BYTES, 10));
            // Shrinking drops the mappings past the new end; growing leaves a hole of zeros.
            f.dropFrom(4096);
            f.setSize(4096);
            assertEquals(4096, Files.size(p));
            f.setSize(3 * 4096);
            final byte[] hole = new byte[4096];
            assertEquals(4096, f.read(8192, hole, BYTES, 4096));
            assertArrayEquals(new byte[4096], hole);
            f.sync();
        }
    }

    /**
     * Four threads share one mapped file of 4 KiB windows with two mapped at a time, so windows
     * are unmapped and mapped again under the others all the time: every byte each wrote reads
     * back (an unmap under another thread's copy would crash the JVM).
     */
    /**
     * Blocks reserved ahead of the shared pointer are given back by the last writable open to
     * close, not by one that closes while another open could still be appending into them.
     */
    @Test
    void reservedBlocksAreGivenBackByTheLastOpenToClose() throws Exception
    {
        job = ThreadedJob.start("io-reserve", 1, 64 * 1024);
        for (final String root : new String[] {"/dev/shm", System.getProperty("java.io.tmpdir")})
        {
            dir = Files.createTempDirectory(Path.of(root), "shmpi-io-");
            final Path path = dir.resolve("two-opens.dat");
            job.run(60, ctx ->
            {
                final FileMembers m = members(ctx, 1);
                final ShmFile first = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDWR,
                    Map.of());
                final ShmFile second = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_RDWR, Map.of());
                final byte[] a = new byte[65536];
                Arrays.fill(a, (byte)1);
                first.writeShared(a, BYTES, DataLayout.CONTIGUOUS, a.length, null);
                assertTrue(allocated(path) >= SharedFilePointer.AHEAD_MIN, "reserved ahead: " + allocated(path));
                first.close();
                // The second open is still there: the first left the reservation alone.
                assertTrue(allocated(path) >= SharedFilePointer.AHEAD_MIN,
                    "kept while another open lives: " + allocated(path));
                final byte[] b = new byte[65536];
                Arrays.fill(b, (byte)2);
                second.writeAt(65536, b, BYTES, DataLayout.CONTIGUOUS, b.length, null);
                second.close();
                assertEquals(131072, Files.size(path));
                assertTrue(allocated(path) <= 131072 + 4096, "given back by the last: " + allocated(path));
                final byte[] all = contents(path);
                for (int i = 0; i < all.length; i++)
                {
                    assertEquals(i < 65536 ? 1 : 2, all[i], "byte " + i);
                }
            });
            try (Stream<Path> st = Files.walk(dir))
            {
                st.sorted(Comparator.reverseOrder()).forEach(q -> q.toFile().delete());
            }
            dir = null;
        }
    }

    /**
     * Pieces of 64 KiB and more copy with memmove, smaller ones with Unsafe: reads and writes land
     * at the right bytes.
     */
    @Test
    void largeCopiesLandAtTheRightBytes() throws IOException
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "shmpi-mapped-");
        final Path p = dir.resolve("large.dat");
        final byte[] pattern = new byte[(3 << 20) + 4096];
        for (int i = 0; i < pattern.length; i++)
        {
            pattern[i] = (byte)(i * 31 + (i >>> 11));
        }
        Files.write(p, pattern);
        for (final long chunk : new long[] {1 << 20, 64 << 20})
        {
            try (MappedFile f = new MappedFile(FileChannel.open(p, StandardOpenOption.READ), p.toString(), false,
                chunk, 4))
            {
                // From byte 5 of the file into byte 7 of the array: with 1 MiB windows the pieces
                // are 1 MiB - 5, 1 MiB, 1 MiB and 5 bytes; with 64 MiB windows one piece of 3 MiB.
                final byte[] back = new byte[(3 << 20) + 16];
                assertEquals(3 << 20, f.read(5, back, BYTES + 7, 3 << 20));
                for (int i = 0; i < 3 << 20; i++)
                {
                    if (back[7 + i] != pattern[5 + i])
                    {
                        throw new AssertionError("chunk " + chunk + ": byte " + i + " read wrong");
                    }
                }
                assertEquals(0, back[6]);
                assertEquals(0, back[7 + (3 << 20)]);
            }
        }
        try (MappedFile f = new MappedFile(FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE),
            p.toString(), true, 1 << 20, 4))
        {
            // 2 MiB from byte 3 of an array to byte 9 of the file: pieces of 1 MiB - 9, 1 MiB and 9 bytes.
            final byte[] mine = new byte[(2 << 20) + 8];
            for (int i = 0; i < mine.length; i++)
            {
                mine[i] = (byte)(i * 7 + 3);
            }
            f.reserve(9, 9 + (2 << 20));
            f.write(9, mine, BYTES + 3, 2 << 20);
        }
        final byte[] file = contents(p);
        for (int i = 0; i < file.length; i++)
        {
            final byte want = i >= 9 && i < 9 + (2 << 20) ? (byte)((i - 9 + 3) * 7 + 3) : pattern[i];
            if (file[i] != want)
            {
                throw new AssertionError("written file byte " + i + " wrong");
            }
        }
    }

    @Test
    void threadsShareOneFile() throws Exception
    {
        dir = Files.createTempDirectory(Path.of("/dev/shm"), "shmpi-mapped-");
        final Path p = dir.resolve("threads.dat");
        Files.createFile(p);
        try (MappedFile f = new MappedFile(FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE),
            p.toString(), true, 4096, 2))
        {
            final int threads = 4;
            final int blocks = 200;
            final Thread[] t = new Thread[threads];
            final Throwable[] failed = new Throwable[1];
            for (int k = 0; k < threads; k++)
            {
                final int me = k;
                t[k] = new Thread(() ->
                {
                    try
                    {
                        final byte[] b = new byte[3000];
                        final byte[] back = new byte[3000];
                        for (int i = 0; i < blocks; i++)
                        {
                            // Thread me owns the 3000-byte blocks me, me + threads, ...: they straddle windows.
                            final long at = 3000L * (i * threads + me);
                            Arrays.fill(b, (byte)(me * 31 + i));
                            f.reserve(at, at + b.length);
                            f.write(at, b, BYTES, b.length);
                            assertEquals(b.length, f.read(at, back, BYTES, back.length));
                            assertArrayEquals(b, back);
                        }
                    }
                    catch (final Throwable ex)
                    {
                        synchronized (failed)
                        {
                            failed[0] = ex;
                        }
                    }
                });
                t[k].start();
            }
            for (final Thread x : t)
            {
                x.join();
            }
            if (failed[0] != null)
            {
                throw new AssertionError(failed[0]);
            }
            final byte[] all = contents(p);
            for (int i = 0; i < blocks; i++)
            {
                for (int me = 0; me < threads; me++)
                {
                    assertEquals((byte)(me * 31 + i), all[3000 * (i * threads + me) + 1234]);
                }
            }
        }
    }

    /** Every way of addressing data, at 1, 2, 3, 4 and 8 ranks (threads). */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void everyAccessModeLandsWhereItShould(final int n) throws Exception
    {
        job = ThreadedJob.start("io-modes-" + n, n, 64 * 1024);
        // On tmpfs, then on the disk directory of java.io.tmpdir.
        for (final String root : new String[] {"/dev/shm", System.getProperty("java.io.tmpdir")})
        {
            dir = Files.createTempDirectory(Path.of(root), "shmpi-io-");
            everyAccessMode(n, dir.resolve("modes.dat"), true);
            try (Stream<Path> s = Files.walk(dir))
            {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            dir = null;
        }
    }

    /**
     * The members as if on several nodes: the shared words go by messages to member 0, which
     * serves them in the duty cycles of whatever call it waits in (here a barrier, and its own
     * wait for the atomic-mode lock); every access mode lands where it does with a segment.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void sharedWordsGoByMessagesWhenTheMembersShareNoMemory(final int n) throws Exception
    {
        job = ThreadedJob.start("io-served-" + n, n, 64 * 1024);
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "shmpi-io-");
        everyAccessMode(n, dir.resolve("modes.dat"), false);
        final Path path = dir.resolve("served.dat");
        final int rounds = 200;
        final long appended = 8L * rounds * (n - 1);
        job.run(120, ctx ->
        {
            final FileMembers m = members(ctx, n, false);
            final int me = m.rank();
            // Bad input fails on every member before anything is made.
            assertEquals(ErrorClass.ERR_AMODE, assertThrows(ShmpiException.class, () -> ShmFile.open(ctx, m,
                path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDONLY, Map.of())).errorClass());
            assertTrue(Files.notExists(path));
            final ShmFile f = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDWR, Map.of());
            // Member 0 waits in a barrier while the others append records (member, round), each
            // append a request to member 0.
            if (me != 0)
            {
                final long before = ctx.transport().messagesSent()[0];
                final int[] rec = new int[2];
                for (int i = 0; i < rounds; i++)
                {
                    rec[0] = me;
                    rec[1] = i;
                    assertEquals(8, f.writeShared(rec, INTS, DataLayout.CONTIGUOUS, 8, null));
                }
                assertTrue(ctx.transport().messagesSent()[0] - before >= rounds, "requests to member 0");
            }
            m.barrier();
            assertEquals(appended, f.positionShared());
            assertEquals(appended, f.fileSize());
            final ByteBuffer file = ByteBuffer.wrap(contents(path)).order(ByteOrder.nativeOrder());
            final boolean[][] seen = new boolean[n][rounds];
            for (int at = 0; at < appended; at += 8)
            {
                final int r = file.getInt(at);
                final int i = file.getInt(at + 4);
                assertTrue(r > 0 && r < n && i >= 0 && i < rounds && !seen[r][i], "record " + r + "/" + i);
                seen[r][i] = true;
            }
            // The shared pointer, moved collectively; a bad seek fails everywhere and moves nothing.
            f.seekShared(16, ShmFile.SEEK_SET);
            assertEquals(16, f.positionShared());
            f.seekShared(8, ShmFile.SEEK_CUR);
            assertEquals(24, f.positionShared());
            f.seekShared(-8, ShmFile.SEEK_END);
            assertEquals(appended - 8, f.positionShared());
            assertEquals(ErrorClass.ERR_ARG, assertThrows(ShmpiException.class, () -> f.seekShared(0, 12345))
                .errorClass());
            assertEquals(ErrorClass.ERR_ARG, assertThrows(ShmpiException.class, () -> f.seekShared(-1,
                ShmFile.SEEK_SET)).errorClass());
            assertEquals(appended - 8, f.positionShared());
            // Atomic mode: overlapping writes and reads of 64 KiB take turns, member 0's among them.
            f.setAtomicity(true);
            final int[] mine = new int[16384];
            Arrays.fill(mine, me + 1);
            final int[] back = new int[mine.length];
            for (int i = 0; i < 20; i++)
            {
                f.writeAt(1 << 20, mine, INTS, DataLayout.CONTIGUOUS, 4L * mine.length, null);
                f.readAt(1 << 20, back, INTS, DataLayout.CONTIGUOUS, 4L * back.length, null);
                for (final int x : back)
                {
                    assertEquals(back[0], x, "a write seen in part");
                }
            }
            f.setAtomicity(false);
            // Size changes: member 0 alone between collective steps.
            f.setSize(4096);
            assertEquals(4096, f.fileSize());
            m.barrier();
            f.preallocate(1 << 16);
            assertEquals(1 << 16, f.fileSize());
            f.close();
            // MODE_APPEND: member 0 puts the shared pointer at the end; DISPLACEMENT_CURRENT reads it.
            final ShmFile g = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_RDWR | ShmFile.MODE_APPEND, Map.of());
            assertEquals(1 << 16, g.positionShared());
            g.close();
            final ShmFile seq = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_WRONLY | ShmFile.MODE_SEQUENTIAL |
                ShmFile.MODE_APPEND, Map.of());
            final TypeMap intType = TypeMap.basic(BasicKind.INT, 4);
            seq.setView(ShmFile.DISPLACEMENT_CURRENT, intType, intType, "native");
            assertEquals(1 << 16, seq.viewDisp());
            assertEquals(0, seq.positionShared());
            seq.close();
        });
    }

    private void everyAccessMode(final int n, final Path path, final boolean shares) throws Exception
    {
        job.run(120, ctx ->
        {
            final FileMembers m = members(ctx, n, shares);
            final int me = m.rank();
            final ShmFile f = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDWR, Map.of());
            final TypeMap intType = TypeMap.basic(BasicKind.INT, 4);
            // Region A: explicit offsets, 64 ints per rank.
            final int[] a = new int[64];
            Arrays.setAll(a, i -> me * 10_000 + i);
            assertEquals(256, f.writeAt(64L * 4 * me, a, INTS, DataLayout.CONTIGUOUS, 256, null));
            // Region B (from byte 64 KiB): a strided view, rank r owns ints r, r + n, ...
            final TypeMap dealt = TypeMap.resized(intType, 0, 4L * n);
            f.setView(65536 + 4L * me, intType, dealt, "native");
            final int[] b = new int[100];
            Arrays.setAll(b, i -> -(i * n + me));
            assertEquals(400, f.write(b, INTS, DataLayout.CONTIGUOUS, 400, null));
            assertEquals(100, f.position());
            // A strided memory layout into the same view: every other int of an array.
            final TypeMap everyOther = TypeMap.hvector(50, 1, 8, intType);
            final int[] c = new int[100];
            Arrays.setAll(c, i -> i % 2 == 0 ? 5_000_000 + me * 1000 + i / 2 : 0);
            assertEquals(200, f.write(c, INTS, everyOther.layout(), 200, null));
            // Region C (from 128 KiB): ordered then shared, in etypes of ints.
            f.setView(131072, intType, intType, "native");
            final int[] ord = new int[me + 1];
            Arrays.fill(ord, me);
            f.writeOrdered(ord, INTS, DataLayout.CONTIGUOUS, 4L * ord.length, null);
            final long total = (long)n * (n + 1) / 2;
            m.barrier();
            for (int round = 0; round < 5; round++)
            {
                final int[] rec = {me, round, me * 100 + round};
                f.writeShared(rec, INTS, DataLayout.CONTIGUOUS, 12, null);
            }
            m.barrier();
            assertEquals(total + 15L * n, f.positionShared());
            // The appends reserved blocks ahead of the shared pointer without growing the file
            // (with the shared words in a segment; by messages nothing is reserved ahead).
            final long end = 131072 + 4 * (total + 15L * n);
            assertEquals(end, f.fileSize());
            assertTrue(!shares || allocated(path) >= SharedFilePointer.AHEAD_MIN, "blocks reserved ahead: " +
                allocated(path));
            f.sync();
            final ByteBuffer file = ByteBuffer.wrap(contents(path)).order(ByteOrder.nativeOrder());
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i < 64; i++)
                {
                    assertEquals(r * 10_000 + i, file.getInt(256 * r + 4 * i));
                }
            }
            for (int k = 0; k < 100 * n; k++)
            {
                assertEquals(-k, file.getInt(65536 + 4 * k), "dealt int " + k);
            }
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i < 50; i++)
                {
                    assertEquals(5_000_000 + r * 1000 + i, file.getInt(65536 + 4 * (100 * n + i * n + r)));
                }
            }
            int at = 131072;
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i <= r; i++, at += 4)
                {
                    assertEquals(r, file.getInt(at));
                }
            }
            final boolean[][] seen = new boolean[n][5];
            for (int k = 0; k < 5 * n; k++, at += 12)
            {
                final int r = file.getInt(at);
                final int round = file.getInt(at + 4);
                assertEquals(r * 100 + round, file.getInt(at + 8));
                assertTrue(!seen[r][round]);
                seen[r][round] = true;
            }
            // Read back through the views: the strided memory layout unpacks the same ints.
            f.setView(65536 + 4L * me, intType, dealt, "native");
            final int[] back = new int[100];
            f.readAt(100, back, INTS, everyOther.layout(), 200, null);
            for (int i = 0; i < 50; i++)
            {
                assertEquals(c[2 * i], back[2 * i]);
            }
            f.close();
            if (me == 0)
            {
                // Member 0 gave back at close what the appends reserved and did not write.
                assertEquals(end, Files.size(path));
                assertTrue(allocated(path) <= end + 4096, "blocks after close: " + allocated(path));
            }
        });
    }

    /**
     * {@code ERR_QUOTA}: in a JVM of its own ({@link QuotaChild}), since the filter that makes the
     * kernel answer {@code EDQUOT} past a limit cannot be taken off again. The child's output is
     * kept in the failure message; the file it leaves is checked here with a plain channel.
     */
    @Test
    void aQuotaExceededIsErrQuota() throws Exception
    {
        dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "shmpi-quota-");
        final Path path = dir.resolve("quota.dat");
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access"))
            {
                command.add(a);
            }
        }
        command.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"),
            QuotaChild.class.getName(), path.toString()));
        final Path log = dir.resolve("child.log");
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
            .start();
        final boolean ended = child.waitFor(120, TimeUnit.SECONDS);
        if (!ended)
        {
            child.destroyForcibly().waitFor();
        }
        final String out = Files.readString(log);
        assertTrue(ended, "the child did not end in 120 s:\n" + out);
        assumeTrue(child.exitValue() != 3, out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.contains("QUOTA OK"), out);
        // Below the limit: each rank's 64 KiB; nothing past it.
        assertEquals(QuotaChild.LIMIT, Files.size(path));
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ))
        {
            final ByteBuffer b = ByteBuffer.allocate(2 * QuotaChild.PIECE);
            c.read(b, QuotaChild.LIMIT - 2L * QuotaChild.PIECE);
            for (int i = 0; i < b.capacity(); i++)
            {
                assertEquals(1 + i / QuotaChild.PIECE, b.get(i), "byte " + i);
            }
        }
    }

    @Test
    void aFullFileSystemIsErrNoSpaceNotACrash() throws Exception
    {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a small tmpfs needs root");
        dir = Files.createTempDirectory(Path.of("/tmp"), "shmpi-full-");
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.toString())
            .redirectErrorStream(true).start();
        final String out = new String(mount.getInputStream().readAllBytes());
        assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs here: " + out);
        try
        {
            final Path path = dir.resolve("full.dat");
            job = ThreadedJob.start("io-full", 2, 64 * 1024);
            job.run(60, ctx ->
            {
                final FileMembers m = members(ctx, 2);
                final ShmFile f = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDWR,
                    Map.of());
                final byte[] half = new byte[400 * 1024];
                Arrays.fill(half, (byte)(m.rank() + 1));
                // 400 KiB each fits in 1 MiB; after both, 300 KiB more does not, whoever writes first.
                f.writeAt(400L * 1024 * m.rank(), half, BYTES, DataLayout.CONTIGUOUS, half.length, null);
                m.barrier();
                // From an int[] a write reserves its range (fallocate: ENOSPC) before it stores into
                // the mapping; from a byte[] a first write is a pwrite (ENOSPC).
                final int[] ints = new int[300 * 256];
                final ShmpiException full = assertThrows(ShmpiException.class, () ->
                    f.writeAt(800L * 1024 + 300L * 1024 * m.rank(), ints, INTS, DataLayout.CONTIGUOUS, 4L * ints.length,
                        null));
                assertEquals(ErrorClass.ERR_NO_SPACE, full.errorClass(), full.getMessage());
                m.barrier();
                final byte[] more = new byte[300 * 1024];
                final ShmpiException fullToo = assertThrows(ShmpiException.class, () ->
                    f.writeAt(2000L * 1024 + 300L * 1024 * m.rank(), more, BYTES, DataLayout.CONTIGUOUS, more.length,
                        null));
                assertEquals(ErrorClass.ERR_NO_SPACE, fullToo.errorClass(), fullToo.getMessage());
                m.barrier();
                // What was written before is intact.
                final byte[] back = new byte[half.length];
                f.readAt(400L * 1024 * (1 - m.rank()), back, BYTES, DataLayout.CONTIGUOUS, back.length, null);
                for (final byte x : back)
                {
                    assertEquals(2 - m.rank(), x);
                }
                f.close();
            });
        }
        finally
        {
            new ProcessBuilder("umount", "-l", dir.toString()).start().waitFor();
        }
    }
}
