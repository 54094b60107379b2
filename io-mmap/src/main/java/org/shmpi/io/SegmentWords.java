package org.shmpi.io;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentManager;

/**
 * The shared words in a shared-memory segment ({@code file-<id>}, laid out as
 * {@link FileStateDescriptor} says) that every member maps: made by member 0 at open, removed by
 * it at close. Every member changes them itself with atomic instructions.
 */
final class SegmentWords implements SharedWords
{
    private final SegmentManager segments;
    private final Segment state;
    private final AtomicBuffer shared;
    /** Whether this is member 0, which made the segment and removes it. */
    private final boolean maker;

    SegmentWords(final SegmentManager segments, final Segment state, final boolean maker)
    {
        this.segments = segments;
        this.state = state;
        this.shared = state.buffer();
        this.maker = maker;
    }

    @Override
    public long addToPointer(final long etypes)
    {
        // Atomic add (a full fence): each member's part is its own, whichever order they come in.
        return shared.getAndAddLong(FileStateDescriptor.SHARED_POINTER_OFFSET, etypes);
    }

    @Override
    public long pointer()
    {
        // Volatile load: where the members' atomic adds or member 0's last store left it.
        return shared.getLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET);
    }

    @Override
    public void putPointer(final long etypes)
    {
        // Volatile store between collective steps: the next one makes it visible to every member.
        shared.putLongVolatile(FileStateDescriptor.SHARED_POINTER_OFFSET, etypes);
    }

    /** Compare-and-set from 0 to {@code holder} (acquire), spinning, then yielding, then napping. */
    @Override
    public void lock(final long holder)
    {
        int spins = 0;
        while (!shared.compareAndSetLong(FileStateDescriptor.ATOMIC_LOCK_OFFSET, 0, holder))
        {
            if (++spins < 200)
            {
                Thread.onSpinWait();
            }
            else if (spins < 400)
            {
                Thread.yield();
            }
            else
            {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    @Override
    public void unlock()
    {
        // A release store of 0 makes this access's stores visible to the next holder.
        shared.putLongRelease(FileStateDescriptor.ATOMIC_LOCK_OFFSET, 0);
    }

    @Override
    public boolean reservesAhead()
    {
        return true;
    }

    @Override
    public long reservedEnd()
    {
        return shared.getLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET);
    }

    @Override
    public boolean raiseReservedEnd(final long have, final long want)
    {
        // Compare-and-set: of the members crossing the reserved end at once, one raises it.
        return shared.compareAndSetLong(FileStateDescriptor.RESERVED_END_OFFSET, have, want);
    }

    @Override
    public void forgetReserved()
    {
        // Volatile store; the collective step that follows comes before any member's next append.
        shared.putLongVolatile(FileStateDescriptor.RESERVED_END_OFFSET, 0);
    }

    @Override
    public void release()
    {
        if (maker)
        {
            segments.remove(state);
        }
        else
        {
            segments.release(state);
        }
    }
}
