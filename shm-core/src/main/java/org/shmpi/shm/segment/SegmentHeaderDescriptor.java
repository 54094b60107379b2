package org.shmpi.shm.segment;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

/**
 * Layout of the header every segment file of a job starts with (inboxes, heap segments, and
 * later collective scratch, windows and file state). The creator writes the header, runs the
 * kind's own initialisation of the payload, and publishes the version word last with a release
 * store: a reader that sees a non-zero version (acquire) sees the whole header and every payload
 * word written before it. All fields are little-endian (native order; every reader is on the
 * same machine).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Magic (64)                            |   0 creator, before ready
 *  +---------------------------------------------------------------+
 *  |                         Version (ready flag, written last)    |   8 creator, release
 *  +---------------------------------------------------------------+
 *  |                         Kind                                  |  12 creator
 *  +---------------------------------------------------------------+
 *  |                         Creator pid (64)                      |  16 creator
 *  +---------------------------------------------------------------+
 *  |                         Creator start time, epoch ms (64)     |  24 creator
 *  +---------------------------------------------------------------+
 *  |                         Creator rank                          |  32 creator (-1 = none)
 *  +---------------------------------------------------------------+
 *  |                         Payload offset                        |  36 creator
 *  +---------------------------------------------------------------+
 *  |                         Payload length (64)                   |  40 creator
 *  +---------------------------------------------------------------+
 *  |                         ... pad to 128 ...                    |
 *  +---------------------------------------------------------------+
 *  |                         Payload                               | 128 per kind
 *  +---------------------------------------------------------------+
 * </pre>
 * The header takes two cache lines so that the payload starts on a line (and on a 128-byte
 * boundary, the unit of the adjacent-line prefetcher): payload layouts pad from there. A reader
 * takes the payload offset from the header, not from {@link #HEADER_LENGTH}, so a later minor
 * version may grow the header. Pid and start time identify the creating process exactly (pids
 * are reused, start times are not), as in the job file's rank slots.
 */
public final class SegmentHeaderDescriptor
{
    /** "SHMPISEG" in ASCII, read as a little-endian long. */
    public static final long MAGIC = 0x47455349504D4853L;
    public static final int MAJOR_VERSION = 1;
    public static final int MINOR_VERSION = 0;
    /** The version word: major in the high 16 bits, minor in the low 16; never 0 (0 = not ready). */
    public static final int VERSION = (MAJOR_VERSION << 16) | MINOR_VERSION;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int KIND_OFFSET = 12;
    public static final int CREATOR_PID_OFFSET = 16;
    public static final int CREATOR_START_TIME_OFFSET = 24;
    public static final int CREATOR_RANK_OFFSET = 32;
    public static final int PAYLOAD_OFFSET_OFFSET = 36;
    public static final int PAYLOAD_LENGTH_OFFSET = 40;

    /** Length of the header this version writes; the payload starts here. */
    public static final int HEADER_LENGTH = 2 * CACHE_LINE_LENGTH;
    /** Payload offsets are multiples of this, so every payload starts on a 128-byte boundary. */
    public static final int PAYLOAD_ALIGNMENT = 2 * CACHE_LINE_LENGTH;

    /** On-file kind codes (see {@link SegmentKind}); 0 is never a kind. */
    public static final int KIND_INBOX = 1;
    public static final int KIND_HEAP = 2;
    public static final int KIND_COLLECTIVE = 3;
    public static final int KIND_WINDOW = 4;
    public static final int KIND_FILE = 5;

    /** Creator rank of a segment no rank owns (e.g. created by the launcher). */
    public static final int NO_RANK = -1;

    /**
     * Largest payload: one {@code FileChannel.map} maps at most {@code Integer.MAX_VALUE} bytes,
     * and the header shares the mapping.
     */
    public static final long MAX_PAYLOAD_LENGTH = Integer.MAX_VALUE - HEADER_LENGTH;

    private SegmentHeaderDescriptor()
    {
    }

    /** Total file length of a segment with a payload of {@code payloadLength} bytes. */
    public static long fileLength(final long payloadLength)
    {
        checkPayloadLength(payloadLength);
        return HEADER_LENGTH + payloadLength;
    }

    public static int majorVersion(final int version)
    {
        return version >>> 16;
    }

    public static void checkPayloadLength(final long payloadLength)
    {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH)
        {
            throw new IllegalArgumentException(
                "segment payload length out of range: payloadLength=" + payloadLength + ", max=" + MAX_PAYLOAD_LENGTH);
        }
    }

    /**
     * Checks the payload placement a header declares against the file that holds it: the payload
     * starts after this version's header fields, on a 128-byte boundary, and ends inside the file.
     *
     * @return null when it is valid, else what is wrong, with the values.
     */
    public static String checkPayload(final int payloadOffset, final long payloadLength, final long fileLength)
    {
        if (payloadOffset < HEADER_LENGTH || payloadOffset % PAYLOAD_ALIGNMENT != 0)
        {
            return "bad payload offset: payloadOffset=" + payloadOffset + ", minPayloadOffset=" + HEADER_LENGTH +
                ", alignment=" + PAYLOAD_ALIGNMENT;
        }
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH || payloadOffset + payloadLength > fileLength)
        {
            return "payload does not fit the file: payloadOffset=" + payloadOffset + ", payloadLength=" +
                payloadLength + ", fileLength=" + fileLength;
        }
        return null;
    }
}
