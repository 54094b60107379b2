package org.shmpi.shm;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * Layout of the job file {@code <jobdir>/job}: one per job, created by the launcher, mapped by
 * every rank. All fields are little-endian (native order; every reader is on the same machine).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Magic (64)                            |  0  launcher, before ready
 *  +---------------------------------------------------------------+
 *  |                         Version (ready flag, written last)    |  8  launcher, release
 *  +---------------------------------------------------------------+
 *  |                         World size                            | 12  launcher
 *  +---------------------------------------------------------------+
 *  |                         Launcher pid (64)                     | 16  launcher
 *  +---------------------------------------------------------------+
 *  |                         Launcher start time, epoch ms (64)    | 24  launcher
 *  +---------------------------------------------------------------+
 *  |                         Ring capacity                         | 32  launcher
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 128 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Launcher heartbeat, nanoTime (64)     | 128 launcher, release
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 192 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Status request sequence               | 192 any requester, atomic add
 *  +---------------------------------------------------------------+
 *  |                         Status request flags                  | 196 requester, before the add
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 256 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Abort state                           | 256 CAS 0->1 by the first
 *  +---------------------------------------------------------------+      aborter, 2 = published
 *  |                         Abort code                            | 260
 *  +---------------------------------------------------------------+
 *  |                         Abort rank (-1 = launcher)            | 264
 *  +---------------------------------------------------------------+
 *  |                         Abort kind                            | 268
 *  +---------------------------------------------------------------+
 *  |                         Abort reason length                   | 272
 *  +---------------------------------------------------------------+
 *  |                         Abort reason, UTF-8 (236 bytes)       | 276
 *  +---------------------------------------------------------------+
 *  |                         Rank slot 0 (128 bytes)               | 512
 *  |                         Rank slot 1 ...                       |
 *  +---------------------------------------------------------------+
 * </pre>
 * A rank slot, two cache lines so that neighbouring ranks' heartbeats never share a line:
 * <pre>
 *  +0  pid (64)                    rank, before state
 *  +8  state                       rank, release (see {@link RankState})
 *  +12 exit code                   rank
 *  +16 heartbeat, nanoTime (64)    rank, release
 *  +24 pid start time, epoch ms    rank, before state
 *  +32 bound CPU (-1 = unbound)    rank
 *  +36 NUMA node (-1 = unknown)    rank
 *  +40 wait sequence               rank: odd while the wait record below is being written
 *  +44 blocked call                rank (see {@link BlockedCall}; NONE = not blocked)
 *  +48 wait on                     rank: what the call waits for (BlockedCall.ON_*)
 *  +52 peer (world rank)           rank (-1 = any source, -2 = none)
 *  +56 tag                         rank (-1 = any tag)
 *  +60 context id                  rank
 *  +64 bytes (64)                  rank
 *  +72 blocked since, nanoTime (64) rank
 *  +80 status answered sequence    rank's watchdog, release (after the status file is in place)
 *  +84 node                        creator, before the rank's state: the machine the rank runs on
 *                                  (0 on a single machine; set by a multi-node job's node leader)
 * </pre>
 * The wait record (+40 to +80) is a sequence lock with one writer, the rank's waiting thread:
 * it stores an odd sequence, the fields, then the next even sequence (release); a reader (the
 * launcher's status report) reads sequence, fields, sequence again and keeps the record only if
 * both reads are the same even value. A call that completes without waiting writes nothing.
 * <p>A status request (from {@code shmrun --status}, a timeout, SIGQUIT) sets the flags word,
 * then adds one to the request sequence; each rank's watchdog sees the new value, writes
 * {@code status-<rank>.txt} into the job directory and stores the value in its slot.
 * {@code System.nanoTime} is {@code CLOCK_MONOTONIC} on Linux, the same clock in every process,
 * so heartbeats compare across processes.
 */
public final class JobFileDescriptor
{
    /** "SHMPIJOB" in ASCII, read as a little-endian long. */
    public static final long MAGIC = 0x424F4A49504D4853L;
    public static final int MAJOR_VERSION = 1;
    public static final int MINOR_VERSION = 1;
    /** The version word: major in the high 16 bits, minor in the low 16; never 0. */
    public static final int VERSION = (MAJOR_VERSION << 16) | MINOR_VERSION;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int WORLD_SIZE_OFFSET = 12;
    public static final int LAUNCHER_PID_OFFSET = 16;
    public static final int LAUNCHER_START_TIME_OFFSET = 24;
    public static final int RING_CAPACITY_OFFSET = 32;

    public static final int LAUNCHER_HEARTBEAT_OFFSET = 2 * CACHE_LINE_LENGTH;

    public static final int ABORT_STATE_OFFSET = 4 * CACHE_LINE_LENGTH;
    public static final int ABORT_CODE_OFFSET = ABORT_STATE_OFFSET + 4;
    public static final int ABORT_RANK_OFFSET = ABORT_STATE_OFFSET + 8;
    public static final int ABORT_KIND_OFFSET = ABORT_STATE_OFFSET + 12;
    public static final int ABORT_REASON_LENGTH_OFFSET = ABORT_STATE_OFFSET + 16;
    public static final int ABORT_REASON_OFFSET = ABORT_STATE_OFFSET + 20;
    public static final int ABORT_REASON_MAX_LENGTH = 4 * CACHE_LINE_LENGTH - 20;

    public static final int STATUS_REQUEST_OFFSET = 3 * CACHE_LINE_LENGTH;
    public static final int STATUS_FLAGS_OFFSET = STATUS_REQUEST_OFFSET + 4;
    /** Status flag: each rank adds every thread's stack to its status file. */
    public static final int STATUS_FLAG_THREADS = 1;

    public static final int RANK_SLOTS_OFFSET = 8 * CACHE_LINE_LENGTH;
    public static final int RANK_SLOT_LENGTH = 2 * CACHE_LINE_LENGTH;

    public static final int SLOT_PID_OFFSET = 0;
    public static final int SLOT_STATE_OFFSET = 8;
    public static final int SLOT_EXIT_CODE_OFFSET = 12;
    public static final int SLOT_HEARTBEAT_OFFSET = 16;
    public static final int SLOT_PID_START_TIME_OFFSET = 24;
    public static final int SLOT_CPU_OFFSET = 32;
    public static final int SLOT_NUMA_NODE_OFFSET = 36;
    public static final int SLOT_WAIT_SEQUENCE_OFFSET = 40;
    public static final int SLOT_WAIT_CALL_OFFSET = 44;
    public static final int SLOT_WAIT_ON_OFFSET = 48;
    public static final int SLOT_WAIT_PEER_OFFSET = 52;
    public static final int SLOT_WAIT_TAG_OFFSET = 56;
    public static final int SLOT_WAIT_CONTEXT_OFFSET = 60;
    public static final int SLOT_WAIT_BYTES_OFFSET = 64;
    public static final int SLOT_WAIT_SINCE_OFFSET = 72;
    public static final int SLOT_STATUS_ANSWERED_OFFSET = 80;
    public static final int SLOT_NODE_OFFSET = 84;

    /** Abort states. */
    public static final int ABORT_NONE = 0;
    public static final int ABORT_WRITING = 1;
    public static final int ABORT_PUBLISHED = 2;

    /** Largest world a job file holds; a bound so a corrupt size cannot map gigabytes. */
    public static final int MAX_WORLD_SIZE = 1 << 16;

    private JobFileDescriptor()
    {
    }

    /** Total length of a job file for a world of {@code worldSize} ranks. */
    public static int length(final int worldSize)
    {
        checkWorldSize(worldSize);
        return RANK_SLOTS_OFFSET + worldSize * RANK_SLOT_LENGTH;
    }

    /** Offset of rank {@code rank}'s slot. */
    public static int slotOffset(final int rank)
    {
        return RANK_SLOTS_OFFSET + rank * RANK_SLOT_LENGTH;
    }

    public static void checkWorldSize(final int worldSize)
    {
        if (worldSize < 1 || worldSize > MAX_WORLD_SIZE)
        {
            throw new IllegalArgumentException(
                "world size out of range: worldSize=" + worldSize + ", max=" + MAX_WORLD_SIZE);
        }
    }

    public static int majorVersion(final int version)
    {
        return version >>> 16;
    }
}
