package org.shmpi.ring;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.shmpi.shm.segment.SegmentHeaderDescriptor;

/**
 * Layout of a rank's inbox file {@code <jobdir>/inbox-<rank>}: a segment of kind
 * {@link org.shmpi.shm.segment.SegmentKind#INBOX INBOX} whose creator is the owning rank. It
 * starts with the common segment header (magic, version written last, kind, creator pid, start
 * time and rank, payload offset and length); the payload holds the ring capacity, the receiver's
 * wake word on its own lines, then an Agrona many-to-one ring buffer (every peer produces, the
 * owning rank consumes). The owner creates the file and touches every page first, so on a NUMA
 * machine the memory lands on the receiver's node.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Segment header (128 bytes)            |   0 owner; version last, release
 *  +---------------------------------------------------------------+
 *  |                         Ring capacity                         | 128 owner, before the version
 *  +---------------------------------------------------------------+
 *  |                         Forwarded (0 or 1)                    | 132 creator, before the version
 *  +---------------------------------------------------------------+
 *  |                         Doorbell rank + 1 (forwarded)         | 136 creator, before the version
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 256 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Wake word (owner sleeps, peers wake)  | 256 owner: volatile store;
 *  +---------------------------------------------------------------+     peers: CAS
 *  |                         ... pad to 384 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Ring: capacity bytes + trailer        | 384 Agrona ManyToOneRingBuffer
 *  +---------------------------------------------------------------+
 * </pre>
 * The diagram shows file offsets; the {@code *_OFFSET} constants below are offsets into the
 * payload (which starts at {@link SegmentHeaderDescriptor#HEADER_LENGTH} in this version: a
 * reader takes it from the header). The wake word has two cache lines to itself (the
 * adjacent-line prefetcher fetches lines in pairs): peers CAS it, the owner stores it.
 */
public final class InboxDescriptor
{
    /** Payload offset of the ring capacity (int, written by the owner before publication). */
    public static final int CAPACITY_OFFSET = 0;
    /**
     * Payload offset of the forwarded flag (int, written by the creator before publication): 1 when
     * the inbox stands in for a rank on another node and a bridge forwards its frames there, so
     * producers must not send it addresses of shared memory or of their own process.
     */
    public static final int FORWARDED_OFFSET = 4;
    /**
     * Payload offset of a forwarded inbox's doorbell (int, written by the creator before
     * publication): 1 + the rank whose stand-in's wake word its producers wake, the one the bridge
     * thread that forwards it sleeps on; 0 for an inbox's own wake word.
     */
    public static final int DOORBELL_OFFSET = 8;
    /** Payload offset of the wake word (see {@link org.shmpi.shm.WakeWord}). */
    public static final int WAKE_WORD_OFFSET = 2 * CACHE_LINE_LENGTH;
    /** Payload offset of the Agrona ring buffer. */
    public static final int RING_OFFSET = 4 * CACHE_LINE_LENGTH;

    /** Smallest ring. */
    public static final int MIN_CAPACITY = 4096;

    private InboxDescriptor()
    {
    }

    /** Payload length for a ring of {@code capacity} bytes. */
    public static int payloadLength(final int capacity)
    {
        checkCapacity(capacity);
        return RING_OFFSET + capacity + RingBufferDescriptor.TRAILER_LENGTH;
    }

    /** Total file length for a ring of {@code capacity} bytes (header of this version included). */
    public static long length(final int capacity)
    {
        return SegmentHeaderDescriptor.fileLength(payloadLength(capacity));
    }

    public static void checkCapacity(final int capacity)
    {
        if (!isValidCapacity(capacity))
        {
            throw new IllegalArgumentException("inbox capacity must be a power of two >= 4096: capacity=" + capacity);
        }
    }

    public static boolean isValidCapacity(final int capacity)
    {
        return capacity >= MIN_CAPACITY && Integer.bitCount(capacity) == 1 &&
            (long)RING_OFFSET + capacity + RingBufferDescriptor.TRAILER_LENGTH <=
            SegmentHeaderDescriptor.MAX_PAYLOAD_LENGTH;
    }
}
