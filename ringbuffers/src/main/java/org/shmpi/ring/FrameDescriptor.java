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
 *  |                         Flags                                 | 12
 *  +---------------------------------------------------------------+
 *  |                         Message sequence (per sender)         | 16
 *  +---------------------------------------------------------------+
 *  |                         Reserved                              | 20
 *  +---------------------------------------------------------------+
 *  |                         Message length, bytes (64)            | 24
 *  +---------------------------------------------------------------+
 *  |                         Fragment offset, bytes (64)           | 32
 *  +---------------------------------------------------------------+
 *  |                         Token (64)                            | 40
 *  +---------------------------------------------------------------+
 *  |                         Peer token (64)                       | 48
 *  +---------------------------------------------------------------+
 *  |                         Payload ...                           | 56
 *  +---------------------------------------------------------------+
 * </pre>
 * Frame types and the fields they use:
 * <ul>
 * <li>{@link #TYPE_DATA}: an eager message, whole or one fragment, with consecutive offsets,
 *     written by one sender thread in order; the frame at offset 0 is the one that is matched.
 *     With {@link #FLAG_SYNC} the token names the sender's request, to be acknowledged when the
 *     message is matched (synchronous mode).</li>
 * <li>{@link #TYPE_RTS}: request to send a large message (rendezvous); no payload; token names
 *     the sender's request. It is matched like a DATA frame at offset 0. With
 *     {@link #FLAG_SHARED} the message lies in the sender's shared heap: peer token is the
 *     segment, fragment offset the offset in it; the receiver copies it directly and answers
 *     ACK instead of CTS (single copy). With {@link #FLAG_CMA} the message lies elsewhere in the
 *     sender's memory at a stable address (a direct buffer): fragment offset is that address in
 *     the sender's process; the receiver may read it with {@code process_vm_readv} and answer
 *     ACK (single copy), or answer CTS as for a plain RTS when it cannot.</li>
 * <li>{@link #TYPE_CTS}: clear to send, receiver to sender: token is the sender's request, peer
 *     token the receiver's, which the data frames that follow carry.</li>
 * <li>{@link #TYPE_RDATA}: one fragment of a rendezvous message; token is the receiver's
 *     request, so it needs no matching.</li>
 * <li>{@link #TYPE_ACK}: the message named by token (a sender's request) has been matched.</li>
 * <li>{@link #TYPE_WHOLE}: a standard-mode eager message in one frame, with the compact header of
 *     {@link WholeFrameDescriptor} instead of this one.</li>
 * </ul>
 * Ring order per sender thread is send order, which is what makes messages non-overtaking.
 */
public final class FrameDescriptor
{
    public static final int TYPE_DATA = 1;
    public static final int TYPE_RTS = 2;
    public static final int TYPE_CTS = 3;
    public static final int TYPE_RDATA = 4;
    public static final int TYPE_ACK = 5;
    public static final int TYPE_WHOLE = 6;

    /** The sender waits for an ACK when the message is matched. */
    public static final int FLAG_SYNC = 1;
    /** RTS of a message in the sender's shared heap: the receiver copies it out directly. */
    public static final int FLAG_SHARED = 2;
    /** RTS of a message at a stable address in the sender's process: the receiver may read it from there. */
    public static final int FLAG_CMA = 4;

    public static final int CONTEXT_OFFSET = 0;
    public static final int SOURCE_OFFSET = 4;
    public static final int TAG_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int SEQUENCE_OFFSET = 16;
    public static final int RESERVED_OFFSET = 20;
    public static final int MESSAGE_LENGTH_OFFSET = 24;
    public static final int FRAGMENT_OFFSET_OFFSET = 32;
    public static final int TOKEN_OFFSET = 40;
    public static final int PEER_TOKEN_OFFSET = 48;
    public static final int HEADER_LENGTH = 56;

    private FrameDescriptor()
    {
    }
}
