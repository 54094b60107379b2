package org.shmpi.launcher;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.shmpi.coll.ShmCollectiveDescriptor;
import org.shmpi.coll.ShmLargeDescriptor;
import org.shmpi.ring.FrameDescriptor;
import org.shmpi.ring.InboxDescriptor;
import org.shmpi.ring.WholeFrameDescriptor;
import org.shmpi.rma.ShmWindow;
import org.shmpi.rma.WindowDescriptor;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFileDescriptor;
import org.shmpi.shm.PeerTable;
import org.shmpi.shm.Processes;
import org.shmpi.shm.RankState;
import org.shmpi.shm.WakeWord;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;
import org.shmpi.shm.segment.SegmentKind;

/**
 * Checks that the files of a job directory that outlived its job ({@code shmrun --keep-shm}) are
 * consistent with a clean end, every rank having returned from {@code MPI.Finalize}: the job file
 * (world, every rank finalized, no abort), and every segment's common header
 * ({@link SegmentHeaderDescriptor}) and payload as its layout class defines it: inbox rings empty
 * and well formed ({@link InboxDescriptor}, Agrona's ring trailer and record headers), collective
 * counters that agree among the members ({@link ShmCollectiveDescriptor}, {@link ShmLargeDescriptor}),
 * windows with no lock held and no exposure epoch left open ({@link WindowDescriptor}), open-file
 * state with its atomic-mode lock free. A file whose name no writer makes is a problem too;
 * {@code spawn-<id>} directories (the jobs {@code MPI_Comm_spawn} made) are checked as job
 * directories of their own.
 *
 * <p>Every word is read with a plain load: the writers have all exited (a live launcher is itself
 * reported). Nothing is written. Each problem names the file, what is wrong and the values
 * ({@code name=value}).
 */
final class SegmentCheck
{
    private static final Pattern INBOX = Pattern.compile("inbox-(\\d{1,9})");
    private static final Pattern HEAP = Pattern.compile("heap-(\\d{1,9})-(\\d{1,18})");
    private static final Pattern COLLECTIVE = Pattern.compile("coll-(\\d{1,9})-(\\d{1,9})(-large)?");
    private static final Pattern WINDOW = Pattern.compile("win-(\\d{1,18})-(\\d{1,9})");
    private static final Pattern FILE = Pattern.compile("file-(\\d{1,19})");
    private static final Pattern STATUS = Pattern.compile("status-(\\d{1,9})\\.txt");
    private static final Pattern SPAWNED = Pattern.compile("spawn-\\d{1,9}");
    /** {@code Spawns.FOLDER} of module mpi (package-private there): where ranks leave spawn requests. */
    private static final String SPAWN_REQUESTS = "spawn";

    // io-mmap's FileStateDescriptor is package-private: its offsets, as it lays them out.
    static final int FILE_SHARED_POINTER_OFFSET = 0;
    static final int FILE_ATOMIC_LOCK_OFFSET = 64;
    static final int FILE_RESERVED_END_OFFSET = 128;
    static final int FILE_STATE_LENGTH = 192;

    /** Malformed records reported per ring at most (the count of all is reported anyway). */
    private static final int MAX_RECORD_PROBLEMS = 8;

    private SegmentCheck()
    {
    }

    /** What the job file says that the segments are checked against. */
    private static final class JobInfo
    {
        int worldSize;
        int ringCapacity;
        int statusRequest;
        boolean singleNode = true;
        long[] pids;
        long[] startMillis;
    }

    /** A file mapped read-only, the whole of it. */
    private static final class Mapped implements AutoCloseable
    {
        final MappedByteBuffer mapping;
        final UnsafeBuffer buffer;
        final long length;

        /** {@code mapping} is null for an empty file (nothing to map). */
        Mapped(final MappedByteBuffer mapping, final long length)
        {
            this.mapping = mapping;
            this.buffer = mapping == null ? new UnsafeBuffer(new byte[0]) : new UnsafeBuffer(mapping);
            this.length = length;
        }

        @Override
        public void close()
        {
            if (mapping != null)
            {
                IoUtil.unmap(mapping);
            }
        }
    }

    /**
     * The problems found in job directory {@code jobDir}, each a line; empty when it is consistent
     * with a clean end.
     */
    static List<String> check(final Path jobDir)
    {
        final List<String> problems = new ArrayList<>();
        checkDirectory(jobDir, "", problems);
        return problems;
    }

    private static void checkDirectory(final Path dir, final String prefix, final List<String> problems)
    {
        if (!Files.isDirectory(dir))
        {
            problems.add(prefix + "not a directory: path=" + dir);
            return;
        }
        final List<Path> entries;
        try (Stream<Path> list = Files.list(dir))
        {
            entries = list.sorted().toList();
        }
        catch (final IOException ex)
        {
            problems.add(prefix + "cannot list the directory: path=" + dir + ", error=" + ex);
            return;
        }
        final JobInfo job = checkJobFile(dir.resolve(JobDirectory.JOB_FILE_NAME), prefix, problems);
        final boolean[] inboxSeen = new boolean[job == null ? 0 : job.worldSize];
        // Members of each communicator's collective segment, by "<context>-<rank>": the small and large agree.
        final Map<String, Integer> smallMembers = new TreeMap<>();
        final Map<String, Integer> largeMembers = new TreeMap<>();
        for (final Path entry : entries)
        {
            final String name = entry.getFileName().toString();
            final String where = prefix + name;
            if (name.equals(JobDirectory.JOB_FILE_NAME))
            {
                continue;
            }
            if (Files.isDirectory(entry))
            {
                if (SPAWNED.matcher(name).matches())
                {
                    checkDirectory(entry, where + "/", problems);
                }
                else if (name.equals(SPAWN_REQUESTS))
                {
                    checkSpawnRequests(entry, where, problems);
                }
                else
                {
                    problems.add(where + ": unknown directory (no writer makes it)");
                }
                continue;
            }
            Matcher m;
            if ((m = INBOX.matcher(name)).matches())
            {
                final int rank = Integer.parseInt(m.group(1));
                if (rank < inboxSeen.length)
                {
                    inboxSeen[rank] = true;
                }
                checkSegment(entry, where, SegmentKind.INBOX, rank, job, problems);
            }
            else if ((m = HEAP.matcher(name)).matches())
            {
                checkSegment(entry, where, SegmentKind.HEAP, Integer.parseInt(m.group(1)), job, problems);
            }
            else if ((m = COLLECTIVE.matcher(name)).matches())
            {
                final Integer members = checkSegment(entry, where, SegmentKind.COLLECTIVE,
                    Integer.parseInt(m.group(2)), job, problems);
                if (members != null)
                {
                    (m.group(3) == null ? smallMembers : largeMembers).put(m.group(1) + "-" + m.group(2), members);
                }
            }
            else if ((m = WINDOW.matcher(name)).matches())
            {
                checkSegment(entry, where, SegmentKind.WINDOW, Integer.parseInt(m.group(2)), job, problems);
            }
            else if ((m = FILE.matcher(name)).matches())
            {
                // file-<id>: the id's high 32 bits are the world rank of member 0, the creator (FileOpenProtocol).
                final long id = parseLong(m.group(1));
                checkSegment(entry, where, SegmentKind.FILE, id < 0 ? -1 : (int)(id >>> 32), job, problems);
            }
            else if ((m = STATUS.matcher(name)).matches())
            {
                // status-<rank>.txt: written by a rank's watchdog when asked through the job file's request word.
                final int rank = Integer.parseInt(m.group(1));
                if (job != null && (rank >= job.worldSize || job.statusRequest == 0))
                {
                    problems.add(where + ": status file nobody asked for: rank=" + rank + ", worldSize=" +
                        job.worldSize + ", statusRequest=" + job.statusRequest);
                }
            }
            else if (name.equals(org.shmpi.shm.JobDirectory.KEPT_MARK))
            {
                // kept: shmrun --keep-shm's mark (no content), so that other jobs' starts leave the directory.
                continue;
            }
            else if (name.equals(PeerTable.FILE_NAME))
            {
                checkPeers(entry, where, problems);
            }
            else
            {
                problems.add(where + ": unknown file (no writer makes this name)");
            }
        }
        for (int r = 0; r < inboxSeen.length; r++)
        {
            // inbox-<r>: created by rank r in MPI.Init, before it published INITIALIZED; kept by --keep-shm.
            if (!inboxSeen[r])
            {
                problems.add(prefix + JobDirectory.INBOX_FILE_PREFIX + r + ": missing: rank " + r +
                    " never created its inbox");
            }
        }
        for (final Map.Entry<String, Integer> large : largeMembers.entrySet())
        {
            // coll-<c>-<r>-large: made by member 0 beside coll-<c>-<r> for the same communicator.
            final Integer small = smallMembers.get(large.getKey());
            if (small != null && !small.equals(large.getValue()))
            {
                problems.add(prefix + "coll-" + large.getKey() + "-large: members differ from coll-" + large.getKey() +
                    ": ranks=" + large.getValue() + ", smallRanks=" + small);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // The job file.

    private static JobInfo checkJobFile(final Path file, final String prefix, final List<String> problems)
    {
        final String where = prefix + JobDirectory.JOB_FILE_NAME;
        if (!Files.isRegularFile(file))
        {
            problems.add(where + ": missing: the launcher creates it before any rank starts");
            return null;
        }
        try (Mapped f = map(file))
        {
            final UnsafeBuffer b = f.buffer;
            if (f.length < JobFileDescriptor.RANK_SLOTS_OFFSET)
            {
                problems.add(where + ": too short: length=" + f.length + ", minLength=" +
                    JobFileDescriptor.RANK_SLOTS_OFFSET);
                return null;
            }
            // Magic: launcher, before the version word.
            final long magic = b.getLong(JobFileDescriptor.MAGIC_OFFSET);
            if (magic != JobFileDescriptor.MAGIC)
            {
                problems.add(where + ": bad magic: magic=0x" + Long.toHexString(magic) + ", expected=0x" +
                    Long.toHexString(JobFileDescriptor.MAGIC));
                return null;
            }
            // Version: launcher, release, last (the ready flag); the major must be this build's.
            final int version = b.getInt(JobFileDescriptor.VERSION_OFFSET);
            if (version == 0 || JobFileDescriptor.majorVersion(version) != JobFileDescriptor.MAJOR_VERSION)
            {
                problems.add(where + ": bad version: version=0x" + Integer.toHexString(version) + ", expectedMajor=" +
                    JobFileDescriptor.MAJOR_VERSION);
                return null;
            }
            // World size: launcher, before the version; the file holds exactly its slots.
            final int worldSize = b.getInt(JobFileDescriptor.WORLD_SIZE_OFFSET);
            if (worldSize < 1 || worldSize > JobFileDescriptor.MAX_WORLD_SIZE)
            {
                problems.add(where + ": world size out of range: worldSize=" + worldSize + ", max=" +
                    JobFileDescriptor.MAX_WORLD_SIZE);
                return null;
            }
            if (f.length != JobFileDescriptor.length(worldSize))
            {
                problems.add(where + ": length does not fit the world: length=" + f.length + ", worldSize=" +
                    worldSize + ", expectedLength=" + JobFileDescriptor.length(worldSize));
                if (f.length < JobFileDescriptor.length(worldSize))
                {
                    return null;
                }
            }
            final JobInfo job = new JobInfo();
            job.worldSize = worldSize;
            // Ring capacity: launcher, before the version; every rank's inbox is made with it.
            job.ringCapacity = b.getInt(JobFileDescriptor.RING_CAPACITY_OFFSET);
            if (!InboxDescriptor.isValidCapacity(job.ringCapacity))
            {
                problems.add(where + ": invalid ring capacity: ringCapacity=" + job.ringCapacity);
            }
            // Launcher pid and start time: launcher; a launcher still running means the job has not ended.
            final long launcherPid = b.getLong(JobFileDescriptor.LAUNCHER_PID_OFFSET);
            final long launcherStart = b.getLong(JobFileDescriptor.LAUNCHER_START_TIME_OFFSET);
            if (launcherPid <= 0)
            {
                problems.add(where + ": no launcher pid: launcherPid=" + launcherPid);
            }
            else if (Processes.isAlive(launcherPid, launcherStart))
            {
                problems.add(where + ": the job has not ended: launcher runs, launcherPid=" + launcherPid);
            }
            // Abort state: CAS 0 -> 1 by the first aborter, 2 once code, rank, kind and reason are published.
            final int abort = b.getInt(JobFileDescriptor.ABORT_STATE_OFFSET);
            if (abort != JobFileDescriptor.ABORT_NONE)
            {
                problems.add(where + ": abort word set: abortState=" + abort + describeAbort(b, abort));
            }
            // Status request: added to by any requester; each rank's watchdog answers up to it.
            job.statusRequest = b.getInt(JobFileDescriptor.STATUS_REQUEST_OFFSET);
            job.pids = new long[worldSize];
            job.startMillis = new long[worldSize];
            for (int r = 0; r < worldSize; r++)
            {
                checkRankSlot(b, r, job, where, problems);
            }
            return job;
        }
        catch (final IOException | RuntimeException ex)
        {
            // A word so wrong that reading by it failed: reported, never thrown (the checker reads any garbage).
            problems.add(where + ": cannot read: " + ex);
            return null;
        }
    }

    private static String describeAbort(final UnsafeBuffer b, final int abort)
    {
        if (abort != JobFileDescriptor.ABORT_PUBLISHED)
        {
            return " (being written)";
        }
        final int length = Math.max(0, Math.min(b.getInt(JobFileDescriptor.ABORT_REASON_LENGTH_OFFSET),
            JobFileDescriptor.ABORT_REASON_MAX_LENGTH));
        final byte[] reason = new byte[length];
        b.getBytes(JobFileDescriptor.ABORT_REASON_OFFSET, reason);
        return ", abortKind=" + b.getInt(JobFileDescriptor.ABORT_KIND_OFFSET) + ", abortRank=" +
            b.getInt(JobFileDescriptor.ABORT_RANK_OFFSET) + ", abortCode=" +
            b.getInt(JobFileDescriptor.ABORT_CODE_OFFSET) + ", reason=" + new String(reason, StandardCharsets.UTF_8);
    }

    private static void checkRankSlot(final UnsafeBuffer b, final int r, final JobInfo job, final String where,
        final List<String> problems)
    {
        final int slot = JobFileDescriptor.slotOffset(r);
        final String rank = where + ": rank " + r + ": ";
        // State: the rank, release; FINALIZED once MPI.Finalize returned (values only grow).
        final int state = b.getInt(slot + JobFileDescriptor.SLOT_STATE_OFFSET);
        if (state != RankState.FINALIZED)
        {
            problems.add(rank + "not finalized: state=" + RankState.name(state) + ", exitCode=" +
                b.getInt(slot + JobFileDescriptor.SLOT_EXIT_CODE_OFFSET));
        }
        // Pid and start time: the rank, before STARTED; they name the creator of its segments.
        job.pids[r] = b.getLong(slot + JobFileDescriptor.SLOT_PID_OFFSET);
        job.startMillis[r] = b.getLong(slot + JobFileDescriptor.SLOT_PID_START_TIME_OFFSET);
        if (job.pids[r] <= 0 || job.startMillis[r] <= 0)
        {
            problems.add(rank + "no pid published: pid=" + job.pids[r] + ", startMillis=" + job.startMillis[r]);
        }
        else if (Processes.isAlive(job.pids[r], job.startMillis[r]))
        {
            problems.add(rank + "still running: pid=" + job.pids[r]);
        }
        // Exit code: the rank, only with FAILED.
        final int exitCode = b.getInt(slot + JobFileDescriptor.SLOT_EXIT_CODE_OFFSET);
        if (state == RankState.FINALIZED && exitCode != 0)
        {
            problems.add(rank + "finalized with an exit code: exitCode=" + exitCode);
        }
        // Wait record: the rank's waiting thread, a sequence lock (odd while written); NONE when not blocked.
        final int sequence = b.getInt(slot + JobFileDescriptor.SLOT_WAIT_SEQUENCE_OFFSET);
        final int call = b.getInt(slot + JobFileDescriptor.SLOT_WAIT_CALL_OFFSET);
        if ((sequence & 1) != 0 || call != BlockedCall.NONE)
        {
            problems.add(rank + "wait record left open: waitSequence=" + sequence + ", blockedCall=" + call +
                ", peer=" + b.getInt(slot + JobFileDescriptor.SLOT_WAIT_PEER_OFFSET) + ", tag=" +
                b.getInt(slot + JobFileDescriptor.SLOT_WAIT_TAG_OFFSET) + ", context=" +
                b.getInt(slot + JobFileDescriptor.SLOT_WAIT_CONTEXT_OFFSET));
        }
        // Status answered: the rank's watchdog, release; never past the request sequence.
        final int answered = b.getInt(slot + JobFileDescriptor.SLOT_STATUS_ANSWERED_OFFSET);
        if (answered - job.statusRequest > 0)
        {
            problems.add(rank + "answered a status request nobody made: statusAnswered=" + answered +
                ", statusRequest=" + job.statusRequest);
        }
        // Node: the node leader of a multi-node job, before the state; 0 on a single machine.
        if (b.getInt(slot + JobFileDescriptor.SLOT_NODE_OFFSET) != 0)
        {
            job.singleNode = false;
        }
    }

    // ------------------------------------------------------------------------------------------
    // The common segment header, then each kind's payload.

    /**
     * Checks a segment file whose name says it is of {@code kind}, made by world rank
     * {@code nameRank}; returns the member count of a collective segment whose payload could be
     * read, else null.
     */
    private static Integer checkSegment(final Path file, final String where, final SegmentKind kind,
        final int nameRank, final JobInfo job, final List<String> problems)
    {
        try (Mapped f = map(file))
        {
            final UnsafeBuffer b = f.buffer;
            if (f.length < SegmentHeaderDescriptor.HEADER_LENGTH)
            {
                problems.add(where + ": shorter than a segment header: length=" + f.length + ", headerLength=" +
                    SegmentHeaderDescriptor.HEADER_LENGTH);
                return null;
            }
            // Magic: the creator, before the version word.
            final long magic = b.getLong(SegmentHeaderDescriptor.MAGIC_OFFSET);
            if (magic != SegmentHeaderDescriptor.MAGIC)
            {
                problems.add(where + ": bad magic: magic=0x" + Long.toHexString(magic) + ", expected=0x" +
                    Long.toHexString(SegmentHeaderDescriptor.MAGIC));
                return null;
            }
            // Version: the creator, release, last (the ready flag); the major must be this build's.
            final int version = b.getInt(SegmentHeaderDescriptor.VERSION_OFFSET);
            if (version == 0 || SegmentHeaderDescriptor.majorVersion(version) != SegmentHeaderDescriptor.MAJOR_VERSION)
            {
                problems.add(where + ": bad version: version=0x" + Integer.toHexString(version) + ", expectedMajor=" +
                    SegmentHeaderDescriptor.MAJOR_VERSION + (version == 0 ? " (never published)" : ""));
                return null;
            }
            // Kind: the creator, before the version; it must be the kind the name's prefix stands for.
            final int code = b.getInt(SegmentHeaderDescriptor.KIND_OFFSET);
            if (code != kind.code())
            {
                final SegmentKind actual = SegmentKind.ofCode(code);
                problems.add(where + ": kind does not match the name: kind=" + (actual != null ? actual : code) +
                    ", expectedKind=" + kind);
                return null;
            }
            // Creator rank: the creator (its manager's rank), as the name says; a world rank of the job.
            final int creatorRank = b.getInt(SegmentHeaderDescriptor.CREATOR_RANK_OFFSET);
            if (creatorRank != nameRank)
            {
                problems.add(where + ": creator rank does not match the name: creatorRank=" + creatorRank +
                    ", nameRank=" + nameRank);
            }
            else if (job != null && (creatorRank < 0 || creatorRank >= job.worldSize))
            {
                problems.add(where + ": creator rank outside the world: creatorRank=" + creatorRank + ", worldSize=" +
                    job.worldSize);
            }
            else if (job != null && job.singleNode)
            {
                // Creator pid and start time: the creator's own, as its rank published them in the job file.
                final long pid = b.getLong(SegmentHeaderDescriptor.CREATOR_PID_OFFSET);
                final long start = b.getLong(SegmentHeaderDescriptor.CREATOR_START_TIME_OFFSET);
                if (pid != job.pids[creatorRank] || start != job.startMillis[creatorRank])
                {
                    problems.add(where + ": creator is not the rank's process: creatorPid=" + pid +
                        ", creatorStartMillis=" + start + ", rankPid=" + job.pids[creatorRank] +
                        ", rankStartMillis=" + job.startMillis[creatorRank]);
                }
            }
            // Payload offset and length: the creator; inside the file, which the creator sized to fit exactly.
            final int payloadOffset = b.getInt(SegmentHeaderDescriptor.PAYLOAD_OFFSET_OFFSET);
            final long payloadLength = b.getLong(SegmentHeaderDescriptor.PAYLOAD_LENGTH_OFFSET);
            final String bad = SegmentHeaderDescriptor.checkPayload(payloadOffset, payloadLength, f.length);
            if (bad != null)
            {
                problems.add(where + ": " + bad);
                return null;
            }
            if (payloadOffset + payloadLength != f.length)
            {
                problems.add(where + ": file longer than its payload: payloadOffset=" + payloadOffset +
                    ", payloadLength=" + payloadLength + ", fileLength=" + f.length);
            }
            final UnsafeBuffer payload = new UnsafeBuffer(b, payloadOffset, (int)payloadLength);
            switch (kind)
            {
                case INBOX:
                    checkInbox(payload, where, job, problems);
                    return null;
                case COLLECTIVE:
                    return where.endsWith("-large") ? checkLargeCollective(payload, where, job, problems) :
                        checkCollective(payload, where, job, problems);
                case WINDOW:
                    checkWindow(payload, where, job, problems);
                    return null;
                case FILE:
                    checkFileState(payload, where, job, problems);
                    return null;
                default:
                    // HEAP: user memory, no words of ours beyond the header.
                    return null;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // A word so wrong that reading by it failed: reported, never thrown (the checker reads any garbage).
            problems.add(where + ": cannot read: " + ex);
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------
    // inbox-<rank>: InboxDescriptor, then an Agrona many-to-one ring.

    private static void checkInbox(final UnsafeBuffer p, final String where, final JobInfo job,
        final List<String> problems)
    {
        if (p.capacity() < InboxDescriptor.RING_OFFSET)
        {
            problems.add(where + ": payload too short for an inbox: payloadLength=" + p.capacity());
            return;
        }
        // Capacity: the owner, before the version; the job's ring capacity, and the payload holds the ring.
        final int capacity = p.getInt(InboxDescriptor.CAPACITY_OFFSET);
        if (!InboxDescriptor.isValidCapacity(capacity) || p.capacity() != InboxDescriptor.payloadLength(capacity))
        {
            problems.add(where + ": capacity does not fit the payload: capacity=" + capacity + ", payloadLength=" +
                p.capacity());
            return;
        }
        if (job != null && capacity != job.ringCapacity)
        {
            problems.add(where + ": capacity is not the job's: capacity=" + capacity + ", jobRingCapacity=" +
                job.ringCapacity);
        }
        // Forwarded flag and doorbell: the creator, before the version; stand-ins exist only in multi-node jobs.
        final int forwarded = p.getInt(InboxDescriptor.FORWARDED_OFFSET);
        final int doorbell = p.getInt(InboxDescriptor.DOORBELL_OFFSET);
        if ((forwarded & ~1) != 0 || (forwarded == 0 && doorbell != 0) ||
            (forwarded == 1 && job != null && job.singleNode))
        {
            problems.add(where + ": bad forwarding words: forwarded=" + forwarded + ", doorbell=" + doorbell +
                ", singleNode=" + (job == null ? "unknown" : job.singleNode));
        }
        // Wake word: the owner stores SLEEPING only while it sleeps and AWAKE after; peers CAS it back to AWAKE.
        final int wake = p.getInt(InboxDescriptor.WAKE_WORD_OFFSET);
        if (wake != WakeWord.AWAKE)
        {
            problems.add(where + ": owner left asleep: wakeWord=" + wake);
        }
        checkRing(new UnsafeBuffer(p, InboxDescriptor.RING_OFFSET, capacity + RingBufferDescriptor.TRAILER_LENGTH),
            capacity, where, problems);
    }

    private static void checkRing(final UnsafeBuffer ring, final int capacity, final String where,
        final List<String> problems)
    {
        // Tail: producers, CAS when they claim; never behind the head, at most a capacity ahead.
        final long tail = ring.getLong(capacity + RingBufferDescriptor.TAIL_POSITION_OFFSET);
        // Head: the owner (the one consumer), release after zeroing what it read.
        final long head = ring.getLong(capacity + RingBufferDescriptor.HEAD_POSITION_OFFSET);
        // Head cache: producers, their last look at the head, so never ahead of it.
        final long headCache = ring.getLong(capacity + RingBufferDescriptor.HEAD_CACHE_POSITION_OFFSET);
        final String positions = "head=" + head + ", tail=" + tail + ", headCache=" + headCache + ", capacity=" +
            capacity;
        if (head < 0 || tail < head || tail - head > capacity)
        {
            problems.add(where + ": ring positions out of order (need 0 <= head <= tail <= head + capacity): " +
                positions);
            return;
        }
        if ((head | tail | headCache) % RecordDescriptor.ALIGNMENT != 0)
        {
            problems.add(where + ": ring positions not aligned to " + RecordDescriptor.ALIGNMENT + ": " + positions);
            return;
        }
        if (headCache < 0 || headCache > head)
        {
            problems.add(where + ": ring head cache ahead of the head: " + positions);
        }
        if (tail != head)
        {
            walkRecords(ring, capacity, head, tail, where, problems);
        }
        // Every byte outside [head, tail): zero, never written or zeroed by the consumer after reading it.
        final int headIndex = (int)(head & (capacity - 1));
        long nonZero = 0;
        int first = -1;
        for (int i = 0; i < capacity; i += 8)
        {
            final long live = (i - headIndex) & (capacity - 1);
            if (live >= tail - head && ring.getLong(i) != 0)
            {
                nonZero++;
                first = first < 0 ? i : first;
            }
        }
        if (nonZero > 0)
        {
            problems.add(where + ": consumed ring bytes not zeroed: nonZeroWords=" + nonZero + ", firstIndex=" +
                first + ", " + positions);
        }
    }

    /** Walks the records between head and tail (a ring that should have been empty): each header, and a count. */
    private static void walkRecords(final UnsafeBuffer ring, final int capacity, final long head, final long tail,
        final String where, final List<String> problems)
    {
        int frames = 0;
        int padding = 0;
        int claimed = 0;
        int reported = 0;
        long position = head;
        String stop = "";
        while (position < tail)
        {
            final int index = (int)(position & (capacity - 1));
            // Record length: the producer, negative from claim to commit (release), then the record length.
            final int length = ring.getInt(RecordDescriptor.lengthOffset(index));
            // Type: the producer, with the claim; a frame type of FrameDescriptor, or Agrona's padding.
            final int type = ring.getInt(RecordDescriptor.typeOffset(index));
            final String record = where + ": record at position=" + position + " (index=" + index + ")";
            if (length == 0 || length == Integer.MIN_VALUE)
            {
                problems.add(record + ": claimed but no header written: length=" + length + ", type=" + type);
                claimed++;
                stop = ", walk stopped at position=" + position;
                break;
            }
            final int recordLength = Math.abs(length);
            final long aligned = BitUtil.align((long)recordLength, RecordDescriptor.ALIGNMENT);
            if (recordLength < RecordDescriptor.HEADER_LENGTH || index + aligned > capacity ||
                position + aligned > tail)
            {
                problems.add(record + ": length out of bounds: length=" + length + ", toBufferEnd=" +
                    (capacity - index) + ", toTail=" + (tail - position));
                stop = ", walk stopped at position=" + position;
                break;
            }
            if (length < 0)
            {
                claimed++;
                if (reported++ < MAX_RECORD_PROBLEMS)
                {
                    problems.add(record + ": claimed, never committed: length=" + length + ", type=" + type);
                }
            }
            else if (type == RingBuffer.PADDING_MSG_TYPE_ID)
            {
                padding++;
            }
            else
            {
                frames++;
                final int body = recordLength - RecordDescriptor.HEADER_LENGTH;
                final int need = type == FrameDescriptor.TYPE_WHOLE ? WholeFrameDescriptor.HEADER_LENGTH :
                    FrameDescriptor.HEADER_LENGTH;
                if (type < FrameDescriptor.TYPE_DATA || type > FrameDescriptor.TYPE_WHOLE || body < need)
                {
                    if (reported++ < MAX_RECORD_PROBLEMS)
                    {
                        problems.add(record + ": not a frame: type=" + type + ", length=" + length +
                            ", frameHeaderLength=" + need);
                    }
                }
            }
            position += aligned;
        }
        problems.add(where + ": ring not empty (every frame is consumed by a clean end): records=" +
            (frames + padding + claimed) + ", frames=" + frames + ", padding=" + padding + ", claimed=" + claimed +
            ", bytes=" + (tail - head) + ", head=" + head + ", tail=" + tail + stop);
    }

    // ------------------------------------------------------------------------------------------
    // coll-<context>-<rank>: ShmCollectiveDescriptor.

    private static Integer checkCollective(final UnsafeBuffer p, final String where, final JobInfo job,
        final List<String> problems)
    {
        if (p.capacity() < ShmCollectiveDescriptor.BLOCKS_OFFSET)
        {
            problems.add(where + ": payload too short for a collective segment: payloadLength=" + p.capacity());
            return null;
        }
        // Ranks, data bytes, groups, gather bytes: the creator (member 0), before the version.
        final int ranks = p.getInt(ShmCollectiveDescriptor.RANKS_OFFSET);
        final int dataBytes = p.getInt(ShmCollectiveDescriptor.DATA_BYTES_OFFSET);
        final int groups = p.getInt(ShmCollectiveDescriptor.GROUPS_OFFSET);
        final int gatherBytes = p.getInt(ShmCollectiveDescriptor.GATHER_BYTES_OFFSET);
        final String header = "ranks=" + ranks + ", dataBytes=" + dataBytes + ", groups=" + groups + ", gatherBytes=" +
            gatherBytes + ", payloadLength=" + p.capacity();
        final long expected;
        try
        {
            expected = ShmCollectiveDescriptor.payloadLength(ranks, dataBytes, groups, gatherBytes);
        }
        catch (final IllegalArgumentException ex)
        {
            problems.add(where + ": bad collective header: " + header + " (" + ex.getMessage() + ")");
            return null;
        }
        if (expected != p.capacity() || job != null && ranks > job.worldSize)
        {
            problems.add(where + ": collective header does not fit the segment: " + header + ", expectedLength=" +
                expected + ", worldSize=" + (job == null ? "unknown" : job.worldSize));
            return null;
        }
        final int stride = ShmCollectiveDescriptor.stride(dataBytes);
        final long[][] done = new long[2][ranks];
        long last = 0;
        for (int r = 0; r < ranks; r++)
        {
            final int block = ShmCollectiveDescriptor.blockAt(stride, r);
            for (int parity = 0; parity < 2; parity++)
            {
                // Done of a parity: member r, release, k of the last operation of that parity it finished.
                done[parity][r] = p.getLong(block + ShmCollectiveDescriptor.doneOffset(parity));
                last = Math.max(last, done[parity][r]);
            }
        }
        // Every member finishes every operation, in the one order: the done words agree, the last two are k, k - 1.
        final long even = done[0][0];
        final long odd = done[1][0];
        boolean agree = true;
        for (int r = 0; r < ranks; r++)
        {
            agree &= done[0][r] == even && done[1][r] == odd;
        }
        if (!agree || (even & 1) != 0 || odd != 0 && (odd & 1) != 1 || last > 0 && Math.abs(even - odd) != 1)
        {
            problems.add(where + ": done words disagree among the members (an operation left unfinished): " +
                "doneParity0=" + Arrays.toString(done[0]) + ", doneParity1=" +
                Arrays.toString(done[1]));
        }
        for (int r = 0; r < ranks; r++)
        {
            final int block = ShmCollectiveDescriptor.blockAt(stride, r);
            for (int parity = 0; parity < 2; parity++)
            {
                final int flag = block + ShmCollectiveDescriptor.flagOffset(parity);
                // Seq of a flag line: member r, release after its payload; k of that parity, never past its done.
                final long seq = p.getLong(flag);
                // Finished: member r, with the seq; operations it had finished then, so below the seq.
                final long finished = p.getLong(flag + ShmCollectiveDescriptor.FINISHED_OFFSET);
                if (seq < 0 || seq != 0 && (seq & 1) != parity || seq > done[parity][r] ||
                    finished < 0 || finished >= Math.max(seq, 1))
                {
                    problems.add(where + ": member " + r + ": flag line of parity " + parity + " inconsistent: seq=" +
                        seq + ", finished=" + finished + ", done=" + done[parity][r]);
                }
            }
        }
        if (groups > 0)
        {
            checkLeaders(p, where, ranks, dataBytes, groups, gatherBytes, last, problems);
        }
        return ranks;
    }

    private static void checkLeaders(final UnsafeBuffer p, final String where, final int ranks, final int dataBytes,
        final int groups, final int gatherBytes, final long last, final List<String> problems)
    {
        final int map = (int)ShmCollectiveDescriptor.groupMapOffset(ranks, dataBytes, groups, gatherBytes);
        final int[] size = new int[groups];
        for (int r = 0; r < ranks; r++)
        {
            // Group map: the creator, before the version; each member in one of the groups, none empty.
            final int g = p.getInt(map + 4 * r);
            if (g < 0 || g >= groups)
            {
                problems.add(where + ": group map names no group: member=" + r + ", group=" + g + ", groups=" + groups);
                return;
            }
            size[g]++;
        }
        for (int g = 0; g < groups; g++)
        {
            if (size[g] == 0)
            {
                problems.add(where + ": empty group in the group map: group=" + g);
            }
            final int leader = (int)ShmCollectiveDescriptor.leaderOffset(g, ranks, dataBytes, gatherBytes);
            for (int parity = 0; parity < 2; parity++)
            {
                // Gather and release seqs: the group's leader, release; k of that parity, no later than the last op.
                final long gather = p.getLong(leader + ShmCollectiveDescriptor.gatherOffset(parity));
                final long release = p.getLong(leader + ShmCollectiveDescriptor.releaseOffset(parity));
                if (gather < 0 || gather != 0 && (gather & 1) != parity || gather > last ||
                    release < 0 || release != 0 && (release & 1) != parity || release > last)
                {
                    problems.add(where + ": leader block of group " + g + ", parity " + parity +
                        " inconsistent: gatherSeq=" + gather + ", releaseSeq=" + release + ", lastOperation=" + last);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // coll-<context>-<rank>-large: ShmLargeDescriptor.

    private static Integer checkLargeCollective(final UnsafeBuffer p, final String where, final JobInfo job,
        final List<String> problems)
    {
        if (p.capacity() < ShmLargeDescriptor.BLOCKS_OFFSET)
        {
            problems.add(where + ": payload too short for large-message slots: payloadLength=" + p.capacity());
            return null;
        }
        // Ranks and chunk bytes: the creator (member 0), before the version.
        final int ranks = p.getInt(ShmLargeDescriptor.RANKS_OFFSET);
        final int chunkBytes = p.getInt(ShmLargeDescriptor.CHUNK_BYTES_OFFSET);
        final long expected;
        try
        {
            expected = ShmLargeDescriptor.payloadLength(ranks, chunkBytes);
        }
        catch (final IllegalArgumentException ex)
        {
            problems.add(where + ": bad large-slots header: ranks=" + ranks + ", chunkBytes=" + chunkBytes + " (" +
                ex.getMessage() + ")");
            return null;
        }
        if (expected != p.capacity() || job != null && ranks > job.worldSize)
        {
            problems.add(where + ": large-slots header does not fit the segment: ranks=" + ranks + ", chunkBytes=" +
                chunkBytes + ", payloadLength=" + p.capacity() + ", expectedLength=" + expected);
            return null;
        }
        final long[] done = new long[ranks];
        final long[] arrived = new long[ranks];
        final long[] reduced = new long[ranks];
        boolean agree = true;
        for (int r = 0; r < ranks; r++)
        {
            final int block = (int)ShmLargeDescriptor.blockOffset(r, chunkBytes);
            // Done: member r, release, the last round it read everything of; every member ends every round.
            done[r] = p.getLong(block + ShmLargeDescriptor.DONE_OFFSET);
            // Arrived and reduced: member r, release, rounds it packed or combined; none past the last round.
            arrived[r] = p.getLong(block + ShmLargeDescriptor.ARRIVED_OFFSET);
            reduced[r] = p.getLong(block + ShmLargeDescriptor.REDUCED_OFFSET);
            agree &= done[r] == done[0];
        }
        if (!agree)
        {
            problems.add(where + ": done words disagree among the members (a round left unfinished): done=" +
                Arrays.toString(done));
        }
        for (int r = 0; r < ranks; r++)
        {
            final int block = (int)ShmLargeDescriptor.blockOffset(r, chunkBytes);
            if (done[r] < 0 || arrived[r] < 0 || arrived[r] > done[0] || reduced[r] < 0 || reduced[r] > done[0])
            {
                problems.add(where + ": member " + r + ": round words past the last round: arrived=" + arrived[r] +
                    ", reduced=" + reduced[r] + ", done=" + done[r] + ", member0Done=" + done[0]);
            }
            for (int parity = 0; parity < 2; parity++)
            {
                // Source and position: member r, before its arrived; 0 or 1 + a heap segment id, and an offset in it.
                final long source = p.getLong(block + ShmLargeDescriptor.sourceOffset(parity));
                final long position = p.getLong(block + ShmLargeDescriptor.positionOffset(parity));
                if (source < 0 || position < 0)
                {
                    problems.add(where + ": member " + r + ": bad source words of parity " + parity + ": source=" +
                        source + ", position=" + position);
                }
            }
        }
        return ranks;
    }

    // ------------------------------------------------------------------------------------------
    // win-<id>-<rank>: WindowDescriptor.

    private static void checkWindow(final UnsafeBuffer p, final String where, final JobInfo job,
        final List<String> problems)
    {
        if (p.capacity() < WindowDescriptor.HEADER_LENGTH)
        {
            problems.add(where + ": payload too short for a window: payloadLength=" + p.capacity());
            return;
        }
        // Header: member 0, before the version, read-only after: members, flavor, layout of blocks and data.
        final int n = p.getInt(WindowDescriptor.RANKS_OFFSET);
        final int flavor = p.getInt(WindowDescriptor.FLAVOR_OFFSET);
        final int contiguous = p.getInt(WindowDescriptor.CONTIGUOUS_OFFSET);
        final int stride = p.getInt(WindowDescriptor.CONTROL_STRIDE_OFFSET);
        final long controlOffset = p.getLong(WindowDescriptor.CONTROL_OFFSET_OFFSET);
        final long dataOffset = p.getLong(WindowDescriptor.DATA_OFFSET_OFFSET);
        final String header = "ranks=" + n + ", flavor=" + flavor + ", contiguous=" + contiguous + ", controlStride=" +
            stride + ", controlOffset=" + controlOffset + ", dataOffset=" + dataOffset + ", payloadLength=" +
            p.capacity();
        if (n < 1 || job != null && n > job.worldSize || n > JobFileDescriptor.MAX_WORLD_SIZE ||
            flavor < ShmWindow.FLAVOR_CREATE || flavor > ShmWindow.FLAVOR_SHARED || (contiguous & ~1) != 0 ||
            stride != WindowDescriptor.controlStride(n) || controlOffset != WindowDescriptor.controlOffset() ||
            dataOffset != WindowDescriptor.dataOffset(n) || dataOffset > p.capacity())
        {
            problems.add(where + ": bad window header: " + header);
            return;
        }
        final int completes = WindowDescriptor.completesOffset(n);
        for (int r = 0; r < n; r++)
        {
            final int block = (int)controlOffset + r * stride;
            // Lock: any member, atomically; shared holders in the low 32 bits, EXCLUSIVE while one holds it alone.
            final long lock = p.getLong(block + WindowDescriptor.LOCK_OFFSET);
            // Accumulate lock: any member, atomically, as the lock.
            final long accLock = p.getLong(block + WindowDescriptor.ACC_LOCK_OFFSET);
            // Waiters: any member, atomic add around its wait; nobody waits after a clean end.
            final int waiters = p.getInt(block + WindowDescriptor.WAITERS_OFFSET);
            if (lock != 0 || accLock != 0 || waiters != 0)
            {
                problems.add(where + ": member " + r + ": lock held or waited for: lock=0x" + Long.toHexString(lock) +
                    " (exclusive=" + ((lock & WindowDescriptor.EXCLUSIVE) != 0) + ", shared=" + (int)lock +
                    "), accLock=0x" + Long.toHexString(accLock) + ", waiters=" + waiters);
            }
            for (int t = 0; t < n; t++)
            {
                // POSTS[t] of origin r: target t alone, release, one per exposure epoch t opened to r.
                final int posts = p.getInt(block + WindowDescriptor.POSTS_OFFSET + 4 * t);
                // COMPLETES[r] of target t: origin r alone, release, one per access epoch r closed on t.
                final int closed = p.getInt((int)controlOffset + t * stride + completes + 4 * r);
                if (posts < 0 || closed < 0 || posts > closed)
                {
                    problems.add(where + ": epoch left open: target " + t + " posted to origin " + r + " " + posts +
                        " times, origin " + r + " completed on target " + t + " " + closed + " times");
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // file-<id>: io-mmap's FileStateDescriptor.

    private static void checkFileState(final UnsafeBuffer p, final String where, final JobInfo job,
        final List<String> problems)
    {
        if (p.capacity() != FILE_STATE_LENGTH)
        {
            problems.add(where + ": not a file state payload: payloadLength=" + p.capacity() + ", expected=" +
                FILE_STATE_LENGTH);
            return;
        }
        // Atomic lock: a member in an atomic-mode access (CAS to its world rank + 1), release store of 0 after.
        final long lock = p.getLong(FILE_ATOMIC_LOCK_OFFSET);
        if (lock != 0)
        {
            problems.add(where + ": atomic-mode lock held: holder=" + (lock - 1) + " (world rank)" +
                (job != null && (lock < 1 || lock > job.worldSize) ? ", not a rank of the world" : ""));
        }
        // Shared pointer: any member (atomic add), member 0 between barriers; reserved end: CAS by appenders.
        final long pointer = p.getLong(FILE_SHARED_POINTER_OFFSET);
        final long reserved = p.getLong(FILE_RESERVED_END_OFFSET);
        if (pointer < 0 || reserved < 0)
        {
            problems.add(where + ": negative file words: sharedPointer=" + pointer + ", reservedEnd=" + reserved);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Files that are not segments.

    /** {@code peers}: appended under a file lock by whoever registers a process of another job. */
    private static void checkPeers(final Path file, final String where, final List<String> problems)
    {
        try
        {
            final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.size() > PeerTable.MAX_ENTRIES)
            {
                problems.add(where + ": more peers than a job can know: entries=" + lines.size());
            }
            for (int i = 0; i < lines.size(); i++)
            {
                final String[] f = lines.get(i).split(" ");
                if (f.length != 4 || parseLong(f[1]) < 0 || parseLong(f[2]) <= 0 || parseLong(f[3]) < 0)
                {
                    problems.add(where + ": line " + (i + 1) + " is not '<job> <rank> <pid> <start>': " + lines.get(i));
                }
            }
        }
        catch (final IOException ex)
        {
            problems.add(where + ": cannot read: " + ex);
        }
    }

    /** {@code spawn/}: a rank writes {@code .tmp}, renames it {@code .req}; the launcher renames it when taken. */
    private static void checkSpawnRequests(final Path folder, final String where, final List<String> problems)
    {
        try (Stream<Path> files = Files.list(folder))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                final String name = f.getFileName().toString();
                if (name.endsWith(".req") || name.endsWith(".tmp"))
                {
                    problems.add(where + "/" + name + ": spawn request never taken by the launcher");
                }
            }
        }
        catch (final IOException ex)
        {
            problems.add(where + ": cannot list: " + ex);
        }
    }

    // ------------------------------------------------------------------------------------------

    private static Mapped map(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size > Integer.MAX_VALUE)
            {
                throw new IOException("too long to map: path=" + file + ", length=" + size);
            }
            return new Mapped(size == 0 ? null : channel.map(FileChannel.MapMode.READ_ONLY, 0, size), size);
        }
    }

    /** The value of a decimal string, or -1 when it is not one. */
    private static long parseLong(final String s)
    {
        try
        {
            return Long.parseLong(s);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }
}
