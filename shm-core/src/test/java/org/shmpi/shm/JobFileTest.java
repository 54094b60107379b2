package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.shm.JobFileDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobFileTest
{
    private static final long LAUNCHER_PID = 4242;
    private static final long LAUNCHER_START = 1_700_000_000_123L;

    @TempDir
    Path tmp;

    private Path jobDir;
    private final List<JobFile> open = new ArrayList<>();

    @BeforeEach
    void makeJobDir() throws IOException
    {
        jobDir = Files.createDirectory(tmp.resolve("job-dir"));
    }

    @AfterEach
    void unmapAndDelete() throws IOException
    {
        for (final JobFile f : open)
        {
            f.close();
        }
        JobDirectory.deleteRecursively(jobDir);
        assertFalse(Files.exists(jobDir), "job directory left behind: " + jobDir);
    }

    private JobFile create(final int worldSize) throws IOException
    {
        return track(JobFile.create(jobDir.resolve("job"), worldSize, LAUNCHER_PID, LAUNCHER_START, 65536));
    }

    private JobFile track(final JobFile f)
    {
        open.add(f);
        return f;
    }

    /** A raw file of {@code length} bytes with the given magic and version words. */
    private Path rawFile(final String name, final int length, final long magic, final int version, final int worldSize)
        throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC_OFFSET, magic);
        b.putInt(VERSION_OFFSET, version);
        b.putInt(WORLD_SIZE_OFFSET, worldSize);
        final Path p = jobDir.resolve(name);
        Files.write(p, b.array());
        return p;
    }

    @Test
    @Timeout(10)
    void attachSeesEveryHeaderFieldWrittenByCreate() throws IOException
    {
        final JobFile created = create(3);
        final JobFile attached = track(JobFile.attach(created.path(), 1_000));
        assertEquals(created.path(), attached.path());
        assertEquals(3, attached.worldSize());
        assertEquals(LAUNCHER_PID, attached.launcherPid());
        assertEquals(LAUNCHER_START, attached.launcherStartMillis());
        assertEquals(65536, attached.ringCapacity());
        assertFalse(attached.isAborted());
        for (int rank = 0; rank < 3; rank++)
        {
            assertEquals(RankState.NONE, attached.state(rank));
            assertEquals(0, attached.pid(rank));
            assertEquals(-1, attached.boundCpu(rank), "unbound until the rank says otherwise");
            assertEquals(-1, attached.numaNode(rank));
        }
    }

    @Test
    void fileOnDiskFollowsTheDescriptor() throws IOException
    {
        final JobFile created = create(2);
        assertEquals(length(2), Files.size(created.path()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(created.path())));
        final ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(created.path())).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(MAGIC, raw.getLong(MAGIC_OFFSET));
        assertEquals(VERSION, raw.getInt(VERSION_OFFSET));
        assertEquals(2, raw.getInt(WORLD_SIZE_OFFSET));
        assertEquals(LAUNCHER_PID, raw.getLong(LAUNCHER_PID_OFFSET));
        assertEquals(LAUNCHER_START, raw.getLong(LAUNCHER_START_TIME_OFFSET));
        assertEquals(65536, raw.getInt(RING_CAPACITY_OFFSET));
        assertEquals(-1, raw.getInt(slotOffset(1) + SLOT_CPU_OFFSET));
        assertEquals(-1, raw.getInt(slotOffset(1) + SLOT_NUMA_NODE_OFFSET));

        created.publishStarted(1, 777, 888);
        created.tryAbort(AbortKind.TIMEOUT, 1, 9, "why");
        final ByteBuffer after = ByteBuffer.wrap(Files.readAllBytes(created.path())).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(777, after.getLong(slotOffset(1) + SLOT_PID_OFFSET));
        assertEquals(888, after.getLong(slotOffset(1) + SLOT_PID_START_TIME_OFFSET));
        assertEquals(RankState.STARTED, after.getInt(slotOffset(1) + SLOT_STATE_OFFSET));
        assertEquals(0, after.getLong(slotOffset(0) + SLOT_PID_OFFSET), "rank 0's slot untouched");
        assertEquals(ABORT_PUBLISHED, after.getInt(ABORT_STATE_OFFSET));
        assertEquals(9, after.getInt(ABORT_CODE_OFFSET));
        assertEquals(1, after.getInt(ABORT_RANK_OFFSET));
        assertEquals(AbortKind.TIMEOUT, after.getInt(ABORT_KIND_OFFSET));
        assertEquals(3, after.getInt(ABORT_REASON_LENGTH_OFFSET));
        assertEquals('w', after.get(ABORT_REASON_OFFSET));
    }

    @Test
    void createRefusesAnExistingFile() throws IOException
    {
        create(1);
        assertThrows(java.nio.file.FileAlreadyExistsException.class,
            () -> JobFile.create(jobDir.resolve("job"), 1, 1, 1, 65536));
    }

    @Test
    @Timeout(10)
    void attachOfMissingFileTimesOutNamingThePath()
    {
        final Path missing = jobDir.resolve("no-such-job");
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(missing, 50));
        assertTrue(ex.getMessage().contains("path=" + missing), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void attachOfTruncatedFileTimesOut() throws IOException
    {
        final Path p = rawFile("short", RANK_SLOTS_OFFSET - 1, MAGIC, VERSION, 1);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 50));
        assertTrue(ex.getMessage().contains("path=" + p), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void attachOfUnpublishedFileTimesOut() throws IOException
    {
        final Path p = rawFile("unready", length(1), MAGIC, 0, 1);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 50));
        assertTrue(ex.getMessage().contains("never became ready"), ex.getMessage());
        assertTrue(ex.getMessage().contains("path=" + p), ex.getMessage());
    }

    @Test
    @Timeout(20)
    void attachWaitsForALateLauncher() throws Exception
    {
        final Path p = jobDir.resolve("job");
        final Thread launcher = new Thread(() ->
        {
            try
            {
                Thread.sleep(200);
                track(JobFile.create(p, 2, LAUNCHER_PID, LAUNCHER_START, 65536));
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        launcher.start();
        final JobFile attached = JobFile.attach(p, 10_000);
        launcher.join();
        track(attached);
        assertEquals(2, attached.worldSize());
        assertEquals(LAUNCHER_PID, attached.launcherPid());
    }

    @Test
    @Timeout(10)
    void attachRejectsBadMagic() throws IOException
    {
        final Path p = rawFile("bad-magic", length(1), MAGIC ^ 1, VERSION, 1);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 1_000));
        assertTrue(ex.getMessage().contains("magic=0x" + Long.toHexString(MAGIC ^ 1)), ex.getMessage());
        assertTrue(ex.getMessage().contains("path=" + p), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void attachRejectsAnotherMajorVersion() throws IOException
    {
        final int version = (MAJOR_VERSION + 1) << 16;
        final Path p = rawFile("v2", length(1), MAGIC, version, 1);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 1_000));
        assertTrue(ex.getMessage().contains("version=0x" + Integer.toHexString(version)), ex.getMessage());
        assertTrue(ex.getMessage().contains("expectedMajor=" + MAJOR_VERSION), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void attachAcceptsANewerMinorVersion() throws IOException
    {
        final Path p = rawFile("minor", length(2), MAGIC, (MAJOR_VERSION << 16) | (MINOR_VERSION + 3), 2);
        final JobFile attached = track(JobFile.attach(p, 1_000));
        assertEquals(2, attached.worldSize());
    }

    @Test
    @Timeout(10)
    void attachRejectsAFileTooShortForItsWorldSize() throws IOException
    {
        final Path p = rawFile("too-short", length(2), MAGIC, VERSION, 3);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 1_000));
        assertTrue(ex.getMessage().contains("worldSize=3"), ex.getMessage());
        assertTrue(ex.getMessage().contains("length=" + length(2)), ex.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, JobFileDescriptor.MAX_WORLD_SIZE + 1})
    @Timeout(10)
    void attachRejectsACorruptWorldSizeAsAnIoError(final int worldSize) throws IOException
    {
        final Path p = rawFile("corrupt-size" + worldSize, length(1), MAGIC, VERSION, worldSize);
        final IOException ex = assertThrows(IOException.class, () -> JobFile.attach(p, 1_000));
        assertTrue(ex.getMessage().contains("worldSize=" + worldSize), ex.getMessage());
    }

    @Test
    @Timeout(10)
    void slotsAreIndependentAndSharedBetweenMappings() throws IOException
    {
        final JobFile launcher = create(3);
        final JobFile rank = track(JobFile.attach(launcher.path(), 1_000));

        rank.publishStarted(1, 1234, 5678);
        rank.binding(1, 3, 1);
        rank.heartbeat(1, 99L);
        assertEquals(RankState.STARTED, launcher.state(1));
        assertEquals(1234, launcher.pid(1));
        assertEquals(3, launcher.boundCpu(1));
        assertEquals(1, launcher.numaNode(1));
        assertEquals(99L, launcher.heartbeat(1));

        rank.state(1, RankState.INITIALIZED);
        assertEquals(RankState.INITIALIZED, launcher.state(1));
        rank.failed(2, 42);
        assertEquals(RankState.FAILED, launcher.state(2));
        assertEquals(42, launcher.exitCode(2));

        // Neighbours are untouched.
        assertEquals(RankState.NONE, launcher.state(0));
        assertEquals(0, launcher.pid(0));
        assertEquals(-1, launcher.boundCpu(0));
        assertEquals(0, launcher.exitCode(1));
        assertNotEquals(99L, launcher.heartbeat(2));

        launcher.launcherHeartbeat(123_456_789L);
        assertEquals(123_456_789L, rank.launcherHeartbeat());
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 3, 100})
    void rankOutOfRangeIsRejectedWithTheValues(final int badRank) throws IOException
    {
        final JobFile f = create(3);
        final IndexOutOfBoundsException ex = assertThrows(IndexOutOfBoundsException.class, () -> f.state(badRank));
        assertTrue(ex.getMessage().contains("rank=" + badRank + ", worldSize=3"), ex.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> f.heartbeat(badRank, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> f.publishStarted(badRank, 1, 1));
    }

    @Test
    void firstAbortWinsAndLaterOnesChangeNothing() throws IOException
    {
        final JobFile f = create(2);
        assertFalse(f.isAborted());
        assertFalse(f.isAbortPublished());
        assertTrue(f.tryAbort(AbortKind.MPI_ABORT, 1, 7, "first"));
        assertTrue(f.isAborted());
        assertTrue(f.isAbortPublished());
        assertFalse(f.tryAbort(AbortKind.TIMEOUT, -1, 9, "second"));
        assertEquals(AbortKind.MPI_ABORT, f.abortKind());
        assertEquals(1, f.abortRank());
        assertEquals(7, f.abortCode());
        assertEquals("first", f.abortReason());
    }

    @Test
    void nullReasonIsRecordedAsEmpty() throws IOException
    {
        final JobFile f = create(1);
        assertTrue(f.tryAbort(AbortKind.LAUNCHER_SIGNALLED, -1, 130, null));
        assertEquals("", f.abortReason());
        assertEquals(-1, f.abortRank());
    }

    /**
     * Racing aborters: in every round exactly one wins, and the published fields all come from
     * that winner (FORBIDDEN: zero or two winners, or code/rank/kind/reason of different callers).
     */
    @Test
    @Timeout(60)
    void racingAbortersHaveExactlyOneWinnerWhoseFieldsAreRead() throws Exception
    {
        final int threads = 4;
        final int rounds = 200;
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            for (int round = 0; round < rounds; round++)
            {
                final JobFile launcher = JobFile.create(jobDir.resolve("job-" + round), threads, 1, 1, 65536);
                final JobFile[] mappings = new JobFile[threads];
                for (int t = 0; t < threads; t++)
                {
                    mappings[t] = JobFile.attach(launcher.path(), 1_000);
                }
                final CyclicBarrier start = new CyclicBarrier(threads);
                final List<Future<Boolean>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++)
                {
                    final int id = t;
                    results.add(pool.submit(() ->
                    {
                        start.await(10, TimeUnit.SECONDS);
                        return mappings[id].tryAbort(AbortKind.RANK_FAILED, id, 100 + id, "rank " + id + " failed");
                    }));
                }
                int winners = 0;
                int winner = -1;
                for (int t = 0; t < threads; t++)
                {
                    if (results.get(t).get(10, TimeUnit.SECONDS))
                    {
                        winners++;
                        winner = t;
                    }
                }
                assertEquals(1, winners, "round " + round);
                assertTrue(launcher.isAbortPublished());
                assertEquals(winner, launcher.abortRank(), "round " + round);
                assertEquals(100 + winner, launcher.abortCode(), "round " + round);
                assertEquals(AbortKind.RANK_FAILED, launcher.abortKind());
                assertEquals("rank " + winner + " failed", launcher.abortReason(), "round " + round);
                for (final JobFile m : mappings)
                {
                    m.close();
                }
                launcher.close();
            }
        }
        finally
        {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * {@code prefix|c} stands for the prefix followed by the character c repeated far past the
     * limit, so the cut falls at every position inside a multi-byte character.
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "short reason",
        "exact",
        "over",
        "|\u00e9",
        "x|\u00e9",
        "|\u20ac",
        "a|\u20ac",
        "ab|\u20ac",
        "|\ud83d\ude00",
        "a|\ud83d\ude00",
        "ab|\ud83d\ude00",
        "abc|\ud83d\ude00",
    })
    void longReasonIsCutOnACharacterBoundary(final String spec) throws IOException
    {
        final String reason;
        final int bar = spec.indexOf('|');
        if (bar >= 0)
        {
            reason = spec.substring(0, bar) + spec.substring(bar + 1).repeat(200);
        }
        else if (spec.equals("exact"))
        {
            reason = "e".repeat(ABORT_REASON_MAX_LENGTH);
        }
        else if (spec.equals("over"))
        {
            reason = "o".repeat(ABORT_REASON_MAX_LENGTH + 1);
        }
        else
        {
            reason = spec;
        }
        final JobFile f = create(1);
        assertTrue(f.tryAbort(AbortKind.RANK_FAILED, 0, 1, reason));
        final String stored = f.abortReason();
        final int storedBytes = stored.getBytes(StandardCharsets.UTF_8).length;

        assertTrue(reason.startsWith(stored), "stored reason is a prefix of the original");
        assertTrue(storedBytes <= ABORT_REASON_MAX_LENGTH, "stored " + storedBytes + " bytes");
        assertFalse(stored.contains("\ufffd"), "no broken character");
        if (stored.length() < reason.length())
        {
            // Maximal: one more character would not have fitted.
            final int next = reason.offsetByCodePoints(stored.length(), 1);
            final int withNext = reason.substring(0, next).getBytes(StandardCharsets.UTF_8).length;
            assertTrue(withNext > ABORT_REASON_MAX_LENGTH, "cut too early: " + storedBytes + " bytes kept");
        }
        if (reason.getBytes(StandardCharsets.UTF_8).length <= ABORT_REASON_MAX_LENGTH)
        {
            assertEquals(reason, stored);
        }
    }

    @Test
    @Timeout(10)
    void waitRecordRoundTripsBetweenMappingsAndClears() throws IOException
    {
        final JobFile launcher = create(3);
        final JobFile rank = track(JobFile.attach(launcher.path(), 1_000));
        final WaitRecord empty = launcher.readWait(1);
        assertFalse(empty.isBlocked(), empty::toString);

        rank.recordWait(1, BlockedCall.RECV, BlockedCall.ON_RECV, 2, 7, 4, 8L << 32, 123_456_789L);
        final WaitRecord w = launcher.readWait(1);
        assertTrue(w.isBlocked());
        assertEquals(BlockedCall.RECV, w.call);
        assertEquals(BlockedCall.ON_RECV, w.on);
        assertEquals(2, w.peer);
        assertEquals(7, w.tag);
        assertEquals(4, w.context);
        assertEquals(8L << 32, w.bytes);
        assertEquals(123_456_789L, w.sinceNanos);
        assertEquals(0, w.sequence % 2, "a published record has an even sequence");
        assertTrue(w.sameWaitAs(launcher.readWait(1)), "nothing written in between: the same wait");
        assertFalse(launcher.readWait(0).isBlocked(), "neighbours untouched");
        assertFalse(launcher.readWait(2).isBlocked(), "neighbours untouched");

        rank.clearWait(1);
        final WaitRecord cleared = launcher.readWait(1);
        assertFalse(cleared.isBlocked());
        assertFalse(w.sameWaitAs(cleared));

        rank.recordWait(1, BlockedCall.BARRIER, BlockedCall.ON_RECV, 0, 0, 1, 0, 5L);
        final WaitRecord again = launcher.readWait(1);
        assertEquals(BlockedCall.BARRIER, again.call);
        assertFalse(again.sameWaitAs(w), "a new wait of the same rank is a different one");
        assertTrue(again.sequence > w.sequence);
    }

    @Test
    @Timeout(10)
    void aRecordBeingWrittenReadsAsNull() throws IOException
    {
        final JobFile launcher = create(2);
        launcher.recordWait(0, BlockedCall.SEND, BlockedCall.ON_SEND, 1, 3, 0, 16, 1L);
        final java.nio.MappedByteBuffer mapped;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(launcher.path(),
            java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE))
        {
            mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, ch.size());
        }
        final org.agrona.concurrent.UnsafeBuffer raw = new org.agrona.concurrent.UnsafeBuffer(mapped);
        final int sequence = raw.getInt(slotOffset(0) + SLOT_WAIT_SEQUENCE_OFFSET);
        raw.putInt(slotOffset(0) + SLOT_WAIT_SEQUENCE_OFFSET, sequence + 1);
        assertNull(launcher.readWait(0), "an odd sequence means a writer is inside: retry");
        raw.putInt(slotOffset(0) + SLOT_WAIT_SEQUENCE_OFFSET, sequence + 2);
        assertEquals(BlockedCall.SEND, launcher.readWait(0).call);
        org.agrona.IoUtil.unmap(mapped);
    }

    @Test
    @Timeout(10)
    void statusRequestsCountUpAndRanksAnswerInTheirSlots() throws IOException
    {
        final JobFile launcher = create(2);
        final JobFile rank = track(JobFile.attach(launcher.path(), 1_000));
        assertEquals(0, rank.statusRequest(), "no request in a fresh file");
        assertEquals(1, launcher.requestStatus(JobFileDescriptor.STATUS_FLAG_THREADS));
        assertEquals(1, rank.statusRequest());
        assertEquals(JobFileDescriptor.STATUS_FLAG_THREADS, rank.statusFlags());
        assertEquals(2, launcher.requestStatus(0));
        assertEquals(0, rank.statusFlags());
        rank.statusAnswered(1, 2);
        assertEquals(2, launcher.statusAnswered(1));
        assertEquals(0, launcher.statusAnswered(0));
    }
}
