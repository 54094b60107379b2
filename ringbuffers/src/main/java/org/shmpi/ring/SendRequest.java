package org.shmpi.ring;

import org.shmpi.shm.BlockedCall;
import org.shmpi.types.DataLayout;

/**
 * A send in progress. Eager sends (up to the eager limit) write DATA frames straight into the
 * receiver's ring; larger ones announce themselves with an RTS frame and stream RDATA frames
 * once the receiver's CTS says the message is matched, or, from memory the receiver can copy
 * from (the shared heap, or any stable address by cross-memory attach), wait for its ACK.
 */
public final class SendRequest extends EngineRequest
{
    /** Standard mode: complete when the data has left the user's buffer. */
    public static final int MODE_STANDARD = 0;
    /** Synchronous mode: complete only once the receiver has matched the message. */
    public static final int MODE_SYNC = 1;

    static final int QUEUED = 0;
    static final int EAGER_PARTIAL = 1;
    static final int WAIT_ACK = 2;
    static final int WAIT_CTS = 3;
    static final int STREAMING = 4;
    static final int DONE = 5;
    /** A rendezvous at a stable address: the receiver reads it and answers ACK, or answers CTS. */
    static final int WAIT_READ = 6;

    final int context;
    final int dest;
    final int tag;
    final Object base;
    final long offset;
    final long length;
    final int mode;
    /** Where the message's bytes lie; {@code length} is the packed length. */
    final DataLayout layout;

    int state = QUEUED;
    int sequence;
    long sent;
    long token;
    long receiverToken;

    SendRequest(
        final int context, final int dest, final int tag, final Object base, final long offset, final long length,
        final int mode, final DataLayout layout)
    {
        this.layout = layout;
        this.context = context;
        this.dest = dest;
        this.tag = tag;
        this.base = base;
        this.offset = offset;
        this.length = length;
        this.mode = mode;
    }

    public int dest()
    {
        return dest;
    }

    public int tag()
    {
        return tag;
    }

    public long length()
    {
        return length;
    }

    /** Whether nothing of this send has reached the receiver yet (it can still be cancelled). */
    boolean untouched()
    {
        return state == QUEUED && sent == 0;
    }

    @Override
    int blockedCall()
    {
        return mode == MODE_SYNC ? BlockedCall.SSEND : BlockedCall.SEND;
    }

    @Override
    int waitOn()
    {
        return BlockedCall.ON_SEND;
    }

    @Override
    int waitPeer()
    {
        return dest;
    }

    @Override
    int waitTag()
    {
        return tag;
    }

    @Override
    int waitContext()
    {
        return context;
    }

    @Override
    long waitBytes()
    {
        return length;
    }
}
