package org.shmpi.ring;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * Layout of a rank's inbox file {@code <jobdir>/inbox-<rank>}: a header, the receiver's wake
 * word on its own lines, then an Agrona many-to-one ring buffer (every peer produces, the
 * owning rank consumes). The owner creates the file and touches every page first, so on a
 * NUMA machine the memory lands on the receiver's node.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Magic (64)                            |   0 owner
 *  +---------------------------------------------------------------+
 *  |                         Version (ready flag, written last)    |   8 owner, release
 *  +---------------------------------------------------------------+
 *  |                         Owner rank                            |  12 owner
 *  +---------------------------------------------------------------+
 *  |                         Owner pid (64)                        |  16 owner
 *  +---------------------------------------------------------------+
 *  |                         Ring capacity                         |  24 owner
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 128 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Wake word (owner sleeps, peers wake)  | 128 owner: volatile store;
 *  +---------------------------------------------------------------+     peers: CAS
 *  |                         ... pad to 256 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Ring: capacity bytes + trailer        | 256 Agrona ManyToOneRingBuffer
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class InboxDescriptor
{
    /** "SHMPIBOX" in ASCII, read as a little-endian long. */
    public static final long MAGIC = 0x584F4249504D4853L;
    public static final int MAJOR_VERSION = 1;
    public static final int VERSION = MAJOR_VERSION << 16;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int OWNER_RANK_OFFSET = 12;
    public static final int OWNER_PID_OFFSET = 16;
    public static final int CAPACITY_OFFSET = 24;
    public static final int WAKE_WORD_OFFSET = 2 * CACHE_LINE_LENGTH;
    public static final int RING_OFFSET = 4 * CACHE_LINE_LENGTH;

    private InboxDescriptor()
    {
    }

    /** Total file length for a ring of {@code capacity} bytes. */
    public static int length(final int capacity)
    {
        checkCapacity(capacity);
        return RING_OFFSET + capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    public static void checkCapacity(final int capacity)
    {
        if (capacity < 4096 || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("inbox capacity must be a power of two >= 4096: capacity=" + capacity);
        }
    }
}
