package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.shmpi.coll.ShmCollectiveDescriptor;
import org.shmpi.ring.FrameDescriptor;
import org.shmpi.ring.InboxDescriptor;
import org.shmpi.rma.WindowDescriptor;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFileDescriptor;
import org.shmpi.shm.RankState;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;

/**
 * {@link SegmentCheck} on a real job's kept directory ({@code shmrun --keep-shm} of
 * {@code progs.SegmentWorkload}: point-to-point, collectives, windows with locks and epochs, a file)
 * finds nothing; on copies of that directory, each with one corruption, it reports that
 * corruption and nothing else. The job runs in a shared-memory directory of the test's own in
 * /dev/shm, beside the copies; all of it is removed at the end, unless the job or a test failed:
 * then it stays, and its path is printed.
 */
@Timeout(600)
class SegmentCheckIT
{
    private static final int NP = 3;
    private static final String ROUNDS = "3";

    /** In /dev/shm: the job's shared-memory directory (and so its kept one), the copies, the data file. */
    private static Path base;
    private static Path kept;
    private static Path copies;
    /** True until the job has run as expected, and again once any test fails. */
    private static volatile boolean failed = true;

    @RegisterExtension
    static final TestWatcher WATCHER = new TestWatcher()
    {
        @Override
        public void testFailed(final ExtensionContext context, final Throwable cause)
        {
            failed = true;
        }
    };

    /** One corruption of a copy: what it does to which file, and the words of the problem it must cause. */
    enum Corruption
    {
        BAD_MAGIC("bad magic: magic=0xbad")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path heap = first(dir, "heap-");
                putLong(heap, SegmentHeaderDescriptor.MAGIC_OFFSET, 0xBADL);
                return fileName(heap);
            }
        },
        KIND_NOT_THE_NAMES("kind does not match the name: kind=HEAP, expectedKind=INBOX")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path inbox = dir.resolve(JobDirectory.INBOX_FILE_PREFIX + 2);
                putInt(inbox, SegmentHeaderDescriptor.KIND_OFFSET, SegmentHeaderDescriptor.KIND_HEAP);
                return fileName(inbox);
            }
        },
        UNCONSUMED_RECORD("ring not empty (every frame is consumed by a clean end): records=1, frames=1")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                // A whole-message frame of 8 bytes at the head, committed, and the tail past it.
                final Path inbox = dir.resolve(JobDirectory.INBOX_FILE_PREFIX + 1);
                final long ring = ringStart(inbox);
                final int capacity = getInt(inbox, payload(inbox) + InboxDescriptor.CAPACITY_OFFSET);
                final long head = getLong(inbox, ring + capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET);
                final int index = (int)(head & (capacity - 1));
                final int length = 8 + 16 + 8;
                if (index + length > capacity)
                {
                    throw new IllegalStateException("no room before the ring's end at its head: index=" + index);
                }
                putInt(inbox, ring + index + 4, FrameDescriptor.TYPE_WHOLE);
                putInt(inbox, ring + index + 8 + FrameDescriptor.SOURCE_OFFSET, 0);
                putLong(inbox, ring + index + 8 + 16, 42);
                putInt(inbox, ring + index, length);
                putLong(inbox, ring + capacity + RingBufferDescriptor.TAIL_POSITION_OFFSET, head + length);
                return fileName(inbox);
            }
        },
        TAIL_BEHIND_HEAD("ring positions out of order")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path inbox = dir.resolve(JobDirectory.INBOX_FILE_PREFIX + 0);
                final long ring = ringStart(inbox);
                final int capacity = getInt(inbox, payload(inbox) + InboxDescriptor.CAPACITY_OFFSET);
                final long head = getLong(inbox, ring + capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET);
                putLong(inbox, ring + capacity + RingBufferDescriptor.TAIL_POSITION_OFFSET, head - 8);
                return fileName(inbox);
            }
        },
        RANK_NOT_FINALIZED("rank 1: not finalized: state=INITIALIZED")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path job = dir.resolve(JobDirectory.JOB_FILE_NAME);
                putInt(job, JobFileDescriptor.slotOffset(1) + JobFileDescriptor.SLOT_STATE_OFFSET,
                    RankState.INITIALIZED);
                return fileName(job);
            }
        },
        ABORTED("abort word set: abortState=2")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path job = dir.resolve(JobDirectory.JOB_FILE_NAME);
                putInt(job, JobFileDescriptor.ABORT_STATE_OFFSET, JobFileDescriptor.ABORT_PUBLISHED);
                return fileName(job);
            }
        },
        WINDOW_LOCK_HELD("member 1: lock held or waited for: lock=0x100000000 (exclusive=true")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path win = first(dir, "win-");
                putLong(win, payload(win) + WindowDescriptor.controlOffset() + WindowDescriptor.controlStride(NP) +
                    WindowDescriptor.LOCK_OFFSET, WindowDescriptor.EXCLUSIVE);
                return fileName(win);
            }
        },
        EPOCH_LEFT_OPEN("epoch left open: target 2 posted to origin 0 ")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                // One more post of target 2 to origin 0 than origin 0 completed: POSTS[2] of member 0's block.
                final Path win = first(dir, "win-");
                final long word = payload(win) + WindowDescriptor.controlOffset() + WindowDescriptor.POSTS_OFFSET +
                    4 * 2;
                putInt(win, word, getInt(win, word) + 1);
                return fileName(win);
            }
        },
        COLLECTIVE_UNFINISHED("done words disagree among the members")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                // Member 1 of the world's collective segment ahead of the others by an operation of the last parity.
                final Path coll = worldCollective(dir);
                final long p = payload(coll);
                final int dataBytes = getInt(coll, p + ShmCollectiveDescriptor.DATA_BYTES_OFFSET);
                final long block = p + ShmCollectiveDescriptor.blockOffset(1, dataBytes);
                final long even = getLong(coll, block + ShmCollectiveDescriptor.doneOffset(0));
                final long odd = getLong(coll, block + ShmCollectiveDescriptor.doneOffset(1));
                final int parity = odd > even ? 1 : 0;
                putLong(coll, block + ShmCollectiveDescriptor.doneOffset(parity), Math.max(even, odd) + 2);
                return fileName(coll);
            }
        },
        FILE_LOCK_HELD("atomic-mode lock held: holder=0")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                final Path file = first(dir, "file-");
                putLong(file, payload(file) + SegmentCheck.FILE_ATOMIC_LOCK_OFFSET, 1);
                return fileName(file);
            }
        },
        UNKNOWN_FILE("unknown file (no writer makes this name)")
        {
            @Override
            String apply(final Path dir) throws IOException
            {
                Files.writeString(dir.resolve("inbox-1.bak"), "left by someone");
                return "inbox-1.bak";
            }
        };

        final String expected;

        Corruption(final String expected)
        {
            this.expected = expected;
        }

        /** Corrupts the copy {@code dir}; returns the name of the file it corrupted. */
        abstract String apply(Path dir) throws IOException;
    }

    @BeforeAll
    static void runJobAndKeepItsDirectory() throws Exception
    {
        // A shared-memory directory of its own: no other launcher's clean-up of stale job
        // directories (every shmrun removes those of dead launchers, kept ones too) can take the
        // kept directory away before it is read, and this job's removes nobody else's.
        base = Files.createTempDirectory(Path.of("/dev/shm"), "shmpi-segment-check-");
        final Path shmDir = Files.createDirectory(base.resolve("shm"));
        copies = Files.createDirectory(base.resolve("copies"));
        final Path data = Files.createDirectory(base.resolve("data"));
        final ShmrunHarness.Result r = ShmrunHarness.run("segment-check", 300, "--keep-shm", "--mca", "shm.dir",
            shmDir.toString(), "-np", Integer.toString(NP), "-cp", ShmrunHarness.TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.SegmentWorkload", data.resolve("file").toString(), ROUNDS);
        final List<Path> dirs = ShmrunHarness.jobDirectoriesOf(JobDirectory.userRoot(shmDir.toString()), r.pid);
        assertEquals(0, r.exit, r::toString);
        for (int rank = 0; rank < NP; rank++)
        {
            assertTrue(r.out.contains("SEGMENTS OK rank " + rank), r::toString);
        }
        assertEquals(1, dirs.size(), () -> "kept job directories: " + dirs + "\n" + r);
        assertTrue(r.err.contains("shmrun: job directory kept: " + dirs.get(0)), r::toString);
        assertEquals(List.of(), names(data), "the file was deleted on close");
        kept = dirs.get(0);
        System.out.println("SegmentCheckIT: job directory " + kept + ", stderr:\n" + r.err);
        failed = false;
    }

    @AfterAll
    static void removeWhatWasKeptUnlessSomethingFailed() throws IOException
    {
        if (base == null)
        {
            return;
        }
        if (failed)
        {
            System.err.println("SegmentCheckIT failed: kept for inspection: " + base);
            return;
        }
        ShmrunHarness.deleteTree(base);
    }

    @Test
    void aJobThatEndedCleanlyLeavesConsistentSegments() throws IOException
    {
        assertTrue(kinds(kept).containsAll(List.of("job", "inbox-", "heap-", "coll-", "win-", "file-")),
            () -> "not every kind of segment was left: " + kinds(kept));
        final List<String> names = names(kept);
        assertTrue(names.stream().anyMatch(n -> n.endsWith("-large")), () -> "no large slots: " + names);
        assertEquals(List.of(), SegmentCheck.check(kept));
        final Path copy = copy("untouched");
        assertEquals(List.of(), SegmentCheck.check(copy), "a faithful copy");
        ShmrunHarness.deleteTree(copy);
    }

    @ParameterizedTest
    @EnumSource(Corruption.class)
    void eachCorruptionIsReportedAndNothingElse(final Corruption corruption) throws IOException
    {
        final Path dir = copy(corruption.name().toLowerCase(java.util.Locale.ROOT));
        final String file = corruption.apply(dir);
        final List<String> problems = SegmentCheck.check(dir);
        assertTrue(problems.stream().anyMatch(p -> p.contains(corruption.expected)),
            () -> corruption + ": expected a problem with '" + corruption.expected + "' in " + file + ": " + problems);
        assertTrue(problems.stream().allMatch(p -> p.startsWith(file + ":")),
            () -> corruption + ": a problem outside " + file + ": " + problems);
        // Passed: the copy goes now (a failed one stays with the rest), so that only one is there at a time.
        ShmrunHarness.deleteTree(dir);
    }

    // ------------------------------------------------------------------------------------------

    private static Path copy(final String name) throws IOException
    {
        final Path to = copies.resolve(name);
        try (Stream<Path> walk = Files.walk(kept))
        {
            for (final Path from : (Iterable<Path>)walk::iterator)
            {
                final Path target = to.resolve(kept.relativize(from).toString());
                if (Files.isDirectory(from))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(from, target);
                }
            }
        }
        return to;
    }

    private static List<String> names(final Path dir) throws IOException
    {
        try (Stream<Path> list = Files.list(dir))
        {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The kinds of file in {@code dir}: "job", or a segment name's prefix up to its first dash. */
    private static List<String> kinds(final Path dir)
    {
        try
        {
            return names(dir).stream().map(n -> n.indexOf('-') < 0 ? n : n.substring(0, n.indexOf('-') + 1))
                .distinct().toList();
        }
        catch (final IOException ex)
        {
            return List.of(ex.toString());
        }
    }

    private static String fileName(final Path file)
    {
        return file.getFileName().toString();
    }

    /** The first file (in name order) whose name starts with {@code prefix}. */
    static Path first(final Path dir, final String prefix) throws IOException
    {
        return names(dir).stream().filter(n -> n.startsWith(prefix)).findFirst().map(dir::resolve)
            .orElseThrow(() -> new IllegalStateException("no " + prefix + "* file in " + dir));
    }

    /** A small-message collective segment with every rank of the world as a member. */
    static Path worldCollective(final Path dir) throws IOException
    {
        for (final String n : names(dir))
        {
            if (n.startsWith("coll-") && !n.endsWith("-large"))
            {
                final Path coll = dir.resolve(n);
                if (getInt(coll, payload(coll) + ShmCollectiveDescriptor.RANKS_OFFSET) == NP)
                {
                    return coll;
                }
            }
        }
        throw new IllegalStateException("no collective segment of the world in " + dir);
    }

    /** File offset of a segment's payload, as its header says. */
    static long payload(final Path segment) throws IOException
    {
        return getInt(segment, SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET);
    }

    /** File offset of an inbox's ring. */
    static long ringStart(final Path inbox) throws IOException
    {
        return payload(inbox) + InboxDescriptor.RING_OFFSET;
    }

    static int getInt(final Path file, final long offset) throws IOException
    {
        return read(file, offset, 4).getInt(0);
    }

    static long getLong(final Path file, final long offset) throws IOException
    {
        return read(file, offset, 8).getLong(0);
    }

    static void putInt(final Path file, final long offset, final int value) throws IOException
    {
        write(file, offset, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value));
    }

    static void putLong(final Path file, final long offset, final long value) throws IOException
    {
        write(file, offset, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value));
    }

    private static ByteBuffer read(final Path file, final long offset, final int bytes) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            while (b.hasRemaining())
            {
                if (ch.read(b, offset + b.position()) < 0)
                {
                    throw new IOException("short file: path=" + file + ", offset=" + offset);
                }
            }
        }
        return b;
    }

    private static void write(final Path file, final long offset, final ByteBuffer b) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            while (b.hasRemaining())
            {
                ch.write(b, offset + b.position());
            }
        }
    }
}
