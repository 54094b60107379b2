package org.shmpi.shm;

/**
 * A copy of a rank's wait record from its job file slot ({@link JobFile#readWait}): the call it
 * is blocked in ({@link BlockedCall}), what that call waits for, on which peer (world rank),
 * tag and context, how many bytes, and since when ({@code System.nanoTime}, the same clock in
 * every process of the machine).
 */
public final class WaitRecord
{
    public final int sequence;
    public final int call;
    public final int on;
    public final int peer;
    public final int tag;
    public final int context;
    public final long bytes;
    public final long sinceNanos;

    public WaitRecord(
        final int sequence, final int call, final int on, final int peer, final int tag, final int context,
        final long bytes, final long sinceNanos)
    {
        this.sequence = sequence;
        this.call = call;
        this.on = on;
        this.peer = peer;
        this.tag = tag;
        this.context = context;
        this.bytes = bytes;
        this.sinceNanos = sinceNanos;
    }

    public boolean isBlocked()
    {
        return call != BlockedCall.NONE;
    }

    /** Whether this and {@code other} are the same wait (nothing was recorded in between). */
    public boolean sameWaitAs(final WaitRecord other)
    {
        return other != null && other.sequence == sequence && other.call == call;
    }

    @Override
    public String toString()
    {
        return "WaitRecord{call=" + BlockedCall.callName(call) + ", on=" + on + ", peer=" + peer + ", tag=" + tag +
            ", context=" + context + ", bytes=" + bytes + ", sinceNanos=" + sinceNanos + "}";
    }
}
