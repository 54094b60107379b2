package org.shmpi.shm;

import static org.shmpi.shm.JobFileDescriptor.*;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.invoke.VarHandle;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The mapped job file (layout in {@link JobFileDescriptor}). The launcher creates it; each rank
 * attaches to it. Every accessor names the ordering it uses; no field is written plainly after
 * the version word has been published.
 */
public final class JobFile implements AutoCloseable
{
    private final Path path;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final int worldSize;

    private JobFile(final Path path, final MappedByteBuffer mapped, final int worldSize)
    {
        this.path = path;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.worldSize = worldSize;
    }

    /**
     * Creates and publishes a job file (launcher side). The header is written first, the
     * version word last with release semantics: a rank that sees the version sees the header.
     */
    public static JobFile create(
        final Path path,
        final int worldSize,
        final long launcherPid,
        final long launcherStartMillis,
        final int ringCapacity) throws IOException
    {
        final int length = JobFileDescriptor.length(worldSize);
        Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        final MappedByteBuffer mapped;
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
        {
            file.setLength(length);
            mapped = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        final JobFile job = new JobFile(path, mapped, worldSize);
        final UnsafeBuffer b = job.buffer;
        b.putLong(MAGIC_OFFSET, MAGIC);
        b.putInt(WORLD_SIZE_OFFSET, worldSize);
        b.putLong(LAUNCHER_PID_OFFSET, launcherPid);
        b.putLong(LAUNCHER_START_TIME_OFFSET, launcherStartMillis);
        b.putInt(RING_CAPACITY_OFFSET, ringCapacity);
        b.putLong(LAUNCHER_HEARTBEAT_OFFSET, System.nanoTime());
        for (int r = 0; r < worldSize; r++)
        {
            b.putInt(slotOffset(r) + SLOT_CPU_OFFSET, -1);
            b.putInt(slotOffset(r) + SLOT_NUMA_NODE_OFFSET, -1);
        }
        // Release: publishes every header and slot word written above.
        b.putIntRelease(VERSION_OFFSET, VERSION);
        return job;
    }

    /**
     * Maps an existing job file (rank side), waiting until its version word is published or the
     * deadline passes, then checks magic and major version.
     */
    public static JobFile attach(final Path path, final long timeoutMs) throws IOException
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!Files.exists(path) || Files.size(path) < RANK_SLOTS_OFFSET)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("job file not found or incomplete: path=" + path);
            }
            sleepMillis(1);
        }
        final MappedByteBuffer mapped;
        final long size;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            size = channel.size();
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
        final UnsafeBuffer b = new UnsafeBuffer(mapped);
        int version;
        while ((version = b.getIntAcquire(VERSION_OFFSET)) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                IoUtil.unmap(mapped);
                throw new IOException("job file never became ready: path=" + path);
            }
            sleepMillis(1);
        }
        final long magic = b.getLong(MAGIC_OFFSET);
        if (magic != MAGIC || majorVersion(version) != MAJOR_VERSION)
        {
            IoUtil.unmap(mapped);
            throw new IOException("not a compatible shmpi job file: path=" + path
                + ", magic=0x" + Long.toHexString(magic) + ", version=0x" + Integer.toHexString(version)
                + ", expectedMajor=" + MAJOR_VERSION);
        }
        final int worldSize = b.getInt(WORLD_SIZE_OFFSET);
        if (worldSize < 1 || worldSize > MAX_WORLD_SIZE || size < JobFileDescriptor.length(worldSize))
        {
            IoUtil.unmap(mapped);
            throw new IOException("job file too short: path=" + path + ", length=" + size
                + ", worldSize=" + worldSize);
        }
        return new JobFile(path, mapped, worldSize);
    }

    private static void sleepMillis(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the job file", ex);
        }
    }

    public Path path()
    {
        return path;
    }

    public int worldSize()
    {
        return worldSize;
    }

    public long launcherPid()
    {
        return buffer.getLong(LAUNCHER_PID_OFFSET);
    }

    public long launcherStartMillis()
    {
        return buffer.getLong(LAUNCHER_START_TIME_OFFSET);
    }

    public int ringCapacity()
    {
        return buffer.getInt(RING_CAPACITY_OFFSET);
    }

    /** Launcher: publish a heartbeat (release). */
    public void launcherHeartbeat(final long nanoTime)
    {
        buffer.putLongRelease(LAUNCHER_HEARTBEAT_OFFSET, nanoTime);
    }

    /** Last launcher heartbeat (acquire). */
    public long launcherHeartbeat()
    {
        return buffer.getLongAcquire(LAUNCHER_HEARTBEAT_OFFSET);
    }

    /**
     * Rank: publish pid and start time, then the state STARTED with release, so a reader that
     * sees STARTED sees the pid.
     */
    public void publishStarted(final int rank, final long pid, final long pidStartMillis)
    {
        final int slot = slotOffset(checkRank(rank));
        buffer.putLong(slot + SLOT_PID_OFFSET, pid);
        buffer.putLong(slot + SLOT_PID_START_TIME_OFFSET, pidStartMillis);
        buffer.putLongRelease(slot + SLOT_HEARTBEAT_OFFSET, System.nanoTime());
        buffer.putIntRelease(slot + SLOT_STATE_OFFSET, RankState.STARTED);
    }

    /** Rank: record where the rank is bound, before it publishes INITIALIZED. */
    public void binding(final int rank, final int cpu, final int numaNode)
    {
        final int slot = slotOffset(checkRank(rank));
        buffer.putIntRelease(slot + SLOT_CPU_OFFSET, cpu);
        buffer.putIntRelease(slot + SLOT_NUMA_NODE_OFFSET, numaNode);
    }

    /** Rank: move to a later state (release: publishes everything the rank wrote before). */
    public void state(final int rank, final int state)
    {
        buffer.putIntRelease(slotOffset(checkRank(rank)) + SLOT_STATE_OFFSET, state);
    }

    /** State of a rank (acquire). */
    public int state(final int rank)
    {
        return buffer.getIntAcquire(slotOffset(checkRank(rank)) + SLOT_STATE_OFFSET);
    }

    /** Rank: record a failure exit code, then the FAILED state (release). */
    public void failed(final int rank, final int exitCode)
    {
        final int slot = slotOffset(checkRank(rank));
        buffer.putIntRelease(slot + SLOT_EXIT_CODE_OFFSET, exitCode);
        buffer.putIntRelease(slot + SLOT_STATE_OFFSET, RankState.FAILED);
    }

    public int exitCode(final int rank)
    {
        return buffer.getIntAcquire(slotOffset(checkRank(rank)) + SLOT_EXIT_CODE_OFFSET);
    }

    public long pid(final int rank)
    {
        return buffer.getLongAcquire(slotOffset(checkRank(rank)) + SLOT_PID_OFFSET);
    }

    /** Start time (epoch ms) of rank {@code rank}'s process, with its pid what names it. */
    public long pidStartMillis(final int rank)
    {
        return buffer.getLongAcquire(slotOffset(checkRank(rank)) + SLOT_PID_START_TIME_OFFSET);
    }

    public int boundCpu(final int rank)
    {
        return buffer.getIntAcquire(slotOffset(checkRank(rank)) + SLOT_CPU_OFFSET);
    }

    public int numaNode(final int rank)
    {
        return buffer.getIntAcquire(slotOffset(checkRank(rank)) + SLOT_NUMA_NODE_OFFSET);
    }

    /**
     * Node leader of a multi-node job: records the machine {@code rank} runs on, before the
     * state that tells the node's ranks the world is ready (which publishes it).
     */
    public void node(final int rank, final int node)
    {
        buffer.putInt(slotOffset(checkRank(rank)) + SLOT_NODE_OFFSET, node);
    }

    /** The machine {@code rank} runs on: 0 on a single machine. */
    public int node(final int rank)
    {
        return buffer.getInt(slotOffset(checkRank(rank)) + SLOT_NODE_OFFSET);
    }

    /** Whether every rank of the job runs on this machine. */
    public boolean singleNode()
    {
        for (int r = 0; r < worldSize; r++)
        {
            if (node(r) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Rank: publish a heartbeat (release). */
    public void heartbeat(final int rank, final long nanoTime)
    {
        buffer.putLongRelease(slotOffset(checkRank(rank)) + SLOT_HEARTBEAT_OFFSET, nanoTime);
    }

    public long heartbeat(final int rank)
    {
        return buffer.getLongAcquire(slotOffset(checkRank(rank)) + SLOT_HEARTBEAT_OFFSET);
    }

    /**
     * Rank's waiting thread: records the call it is blocked in (a sequence lock, see
     * {@link JobFileDescriptor}). Plain stores between an odd and an even sequence; the only
     * ordering cost is the store-store fence, free on x86.
     */
    public void recordWait(
        final int rank, final int call, final int on, final int peer, final int tag, final int context,
        final long bytes, final long sinceNanos)
    {
        final int slot = slotOffset(checkRank(rank));
        final int sequence = buffer.getInt(slot + SLOT_WAIT_SEQUENCE_OFFSET);
        buffer.putInt(slot + SLOT_WAIT_SEQUENCE_OFFSET, sequence + 1 | 1);
        VarHandle.storeStoreFence();
        buffer.putInt(slot + SLOT_WAIT_CALL_OFFSET, call);
        buffer.putInt(slot + SLOT_WAIT_ON_OFFSET, on);
        buffer.putInt(slot + SLOT_WAIT_PEER_OFFSET, peer);
        buffer.putInt(slot + SLOT_WAIT_TAG_OFFSET, tag);
        buffer.putInt(slot + SLOT_WAIT_CONTEXT_OFFSET, context);
        buffer.putLong(slot + SLOT_WAIT_BYTES_OFFSET, bytes);
        buffer.putLong(slot + SLOT_WAIT_SINCE_OFFSET, sinceNanos);
        // Release: a reader that sees the even sequence sees the fields above.
        buffer.putIntRelease(slot + SLOT_WAIT_SEQUENCE_OFFSET, (sequence + 1 | 1) + 1);
    }

    /** Rank's waiting thread: the wait ended (an empty record). */
    public void clearWait(final int rank)
    {
        final int slot = slotOffset(checkRank(rank));
        final int sequence = buffer.getInt(slot + SLOT_WAIT_SEQUENCE_OFFSET);
        buffer.putInt(slot + SLOT_WAIT_SEQUENCE_OFFSET, sequence + 1 | 1);
        VarHandle.storeStoreFence();
        buffer.putInt(slot + SLOT_WAIT_CALL_OFFSET, BlockedCall.NONE);
        buffer.putIntRelease(slot + SLOT_WAIT_SEQUENCE_OFFSET, (sequence + 1 | 1) + 1);
    }

    /**
     * A consistent copy of a rank's wait record, or null when it is being written (retry).
     * Its {@code call} is {@link BlockedCall#NONE} when the rank is not blocked.
     */
    public WaitRecord readWait(final int rank)
    {
        final int slot = slotOffset(checkRank(rank));
        final int before = buffer.getIntAcquire(slot + SLOT_WAIT_SEQUENCE_OFFSET);
        if ((before & 1) != 0)
        {
            return null;
        }
        final WaitRecord r = new WaitRecord(
            before,
            buffer.getInt(slot + SLOT_WAIT_CALL_OFFSET),
            buffer.getInt(slot + SLOT_WAIT_ON_OFFSET),
            buffer.getInt(slot + SLOT_WAIT_PEER_OFFSET),
            buffer.getInt(slot + SLOT_WAIT_TAG_OFFSET),
            buffer.getInt(slot + SLOT_WAIT_CONTEXT_OFFSET),
            buffer.getLong(slot + SLOT_WAIT_BYTES_OFFSET),
            buffer.getLong(slot + SLOT_WAIT_SINCE_OFFSET));
        VarHandle.loadLoadFence();
        return buffer.getInt(slot + SLOT_WAIT_SEQUENCE_OFFSET) == before ? r : null;
    }

    /**
     * Asks every rank for a status file (see {@link JobFileDescriptor}); returns the request's
     * sequence, which each rank stores in its slot once its file is written.
     */
    public int requestStatus(final int flags)
    {
        buffer.putIntRelease(STATUS_FLAGS_OFFSET, flags);
        return buffer.getAndAddInt(STATUS_REQUEST_OFFSET, 1) + 1;
    }

    /** The latest status request's sequence (acquire); 0 when none was made. */
    public int statusRequest()
    {
        return buffer.getIntAcquire(STATUS_REQUEST_OFFSET);
    }

    public int statusFlags()
    {
        return buffer.getIntAcquire(STATUS_FLAGS_OFFSET);
    }

    /** Rank's watchdog: its status file for request {@code sequence} is in place (release). */
    public void statusAnswered(final int rank, final int sequence)
    {
        buffer.putIntRelease(slotOffset(checkRank(rank)) + SLOT_STATUS_ANSWERED_OFFSET, sequence);
    }

    /** The last status request a rank answered (acquire). */
    public int statusAnswered(final int rank)
    {
        return buffer.getIntAcquire(slotOffset(checkRank(rank)) + SLOT_STATUS_ANSWERED_OFFSET);
    }

    /**
     * Records why the job is aborted. The first caller wins (CAS NONE to WRITING); it writes
     * code, rank, kind and reason, then publishes with a release store of PUBLISHED.
     *
     * @return true when this call recorded the abort, false when another was recorded first.
     */
    public boolean tryAbort(final int kind, final int rank, final int code, final String reason)
    {
        if (!buffer.compareAndSetInt(ABORT_STATE_OFFSET, ABORT_NONE, ABORT_WRITING))
        {
            return false;
        }
        buffer.putInt(ABORT_CODE_OFFSET, code);
        buffer.putInt(ABORT_RANK_OFFSET, rank);
        buffer.putInt(ABORT_KIND_OFFSET, kind);
        final byte[] text = truncateUtf8(reason == null ? "" : reason, ABORT_REASON_MAX_LENGTH);
        buffer.putBytes(ABORT_REASON_OFFSET, text);
        buffer.putInt(ABORT_REASON_LENGTH_OFFSET, text.length);
        // Release: publishes code, rank, kind and reason written above.
        buffer.putIntRelease(ABORT_STATE_OFFSET, ABORT_PUBLISHED);
        return true;
    }

    /** Whether an abort has been recorded (an abort being written counts: it is coming). */
    public boolean isAborted()
    {
        return buffer.getIntAcquire(ABORT_STATE_OFFSET) != ABORT_NONE;
    }

    /** Whether an abort has been fully published, so its fields can be read. */
    public boolean isAbortPublished()
    {
        return buffer.getIntAcquire(ABORT_STATE_OFFSET) == ABORT_PUBLISHED;
    }

    public int abortCode()
    {
        return buffer.getInt(ABORT_CODE_OFFSET);
    }

    public int abortRank()
    {
        return buffer.getInt(ABORT_RANK_OFFSET);
    }

    public int abortKind()
    {
        return buffer.getInt(ABORT_KIND_OFFSET);
    }

    public String abortReason()
    {
        final int length = Math.min(buffer.getInt(ABORT_REASON_LENGTH_OFFSET), ABORT_REASON_MAX_LENGTH);
        final byte[] text = new byte[Math.max(0, length)];
        buffer.getBytes(ABORT_REASON_OFFSET, text);
        return new String(text, StandardCharsets.UTF_8);
    }

    private static byte[] truncateUtf8(final String s, final int max)
    {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max)
        {
            return bytes;
        }
        int end = max;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80)
        {
            end--;
        }
        final byte[] cut = new byte[end];
        System.arraycopy(bytes, 0, cut, 0, end);
        return cut;
    }

    private int checkRank(final int rank)
    {
        if (rank < 0 || rank >= worldSize)
        {
            throw new IndexOutOfBoundsException("rank out of range: rank=" + rank + ", worldSize=" + worldSize);
        }
        return rank;
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapped);
    }
}
