package org.shmpi.ring;

/**
 * Header of a {@link FrameDescriptor#TYPE_WHOLE} frame: a standard-mode eager message that fits
 * in one frame, which is what nearly every small message is. It needs no length, offset, sequence
 * or tokens (those are for fragments and hand-shakes): the payload length is the record length
 * minus this header, so an 8-byte message takes a 32-byte ring record (with Agrona's 8-byte
 * record header) instead of 72.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                         Context id                            |  0
 *  +---------------------------------------------------------------+
 *  |                         Source (world rank)                   |  4
 *  +---------------------------------------------------------------+
 *  |                         Tag                                   |  8
 *  +---------------------------------------------------------------+
 *  |                         Reserved                              | 12
 *  +---------------------------------------------------------------+
 *  |                         Payload ...                           | 16
 *  +---------------------------------------------------------------+
 * </pre>
 * The first three fields sit where {@link FrameDescriptor} has them, so code that reads only
 * the envelope reads both kinds alike.
 */
public final class WholeFrameDescriptor
{
    public static final int CONTEXT_OFFSET = FrameDescriptor.CONTEXT_OFFSET;
    public static final int SOURCE_OFFSET = FrameDescriptor.SOURCE_OFFSET;
    public static final int TAG_OFFSET = FrameDescriptor.TAG_OFFSET;
    public static final int RESERVED_OFFSET = 12;
    public static final int HEADER_LENGTH = 16;

    private WholeFrameDescriptor()
    {
    }
}
