package org.shmpi.ring;

/**
 * Header of every frame a rank writes into a peer's inbox ring (after Agrona's own record
 * header, which carries the record length and the frame type as its message type id).
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
 *  |                         Message sequence (per sender)         | 12
 *  +---------------------------------------------------------------+
 *  |                         Message length, bytes (64)            | 16
 *  +---------------------------------------------------------------+
 *  |                         Fragment offset, bytes (64)           | 24
 *  +---------------------------------------------------------------+
 *  |                         Payload ...                           | 32
 *  +---------------------------------------------------------------+
 * </pre>
 * A message is one or more DATA frames with consecutive offsets, written by one sender thread
 * in order; the frame at offset 0 is the one that is matched. Ring order per sender is send
 * order, which is what makes messages non-overtaking.
 */
public final class FrameDescriptor
{
    /** Frame type: message data (whole message, or one fragment of it). */
    public static final int TYPE_DATA = 1;

    public static final int CONTEXT_OFFSET = 0;
    public static final int SOURCE_OFFSET = 4;
    public static final int TAG_OFFSET = 8;
    public static final int SEQUENCE_OFFSET = 12;
    public static final int MESSAGE_LENGTH_OFFSET = 16;
    public static final int FRAGMENT_OFFSET_OFFSET = 24;
    public static final int HEADER_LENGTH = 32;

    private FrameDescriptor()
    {
    }
}
