package mpi;

import java.util.ArrayList;
import java.util.List;

import org.agrona.UnsafeApi;
import org.shmpi.ring.SendRequest;

/**
 * The buffer attached with {@code MPI.attachBuffer} for buffered-mode sends. A buffered send
 * copies the message into a free range of it (plus {@code MPI.BSEND_OVERHEAD} bytes of
 * accounting per message) and returns at once; the range is released when the message has left.
 * First-fit allocation over a list of free ranges kept sorted by offset.
 */
final class BsendBuffer
{
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    final byte[] buffer;
    /** Free ranges as {offset, length}, sorted by offset, never adjacent. */
    private final List<int[]> free = new ArrayList<>();
    private final List<SendRequest> pending = new ArrayList<>();

    BsendBuffer(final byte[] buffer)
    {
        this.buffer = buffer;
        free.add(new int[] {0, buffer.length});
    }

    /**
     * Reserves room for a message of {@code bytes} and copies it there; returns the offset of
     * the copy, or -1 when there is no room.
     */
    synchronized int copyIn(final Object base, final long offset, final long bytes)
    {
        reclaim();
        final long need = bytes + MPI.BSEND_OVERHEAD;
        for (int i = 0; i < free.size(); i++)
        {
            final int[] range = free.get(i);
            if (range[1] >= need)
            {
                final int at = range[0];
                range[0] += (int)need;
                range[1] -= (int)need;
                if (range[1] == 0)
                {
                    free.remove(i);
                }
                if (bytes > 0)
                {
                    UnsafeApi.copyMemory(base, offset, buffer, BYTE_ARRAY_BASE + at + MPI.BSEND_OVERHEAD, bytes);
                }
                return at;
            }
        }
        return -1;
    }

    static long dataOffset(final int at)
    {
        return BYTE_ARRAY_BASE + at + MPI.BSEND_OVERHEAD;
    }

    synchronized void track(final SendRequest s, final int at, final long bytes)
    {
        // The engine may hand back one shared request for sends done at once: use our own length.
        s.onComplete(r -> release(at, bytes));
        pending.add(s);
    }

    private void reclaim()
    {
        pending.removeIf(SendRequest::isComplete);
    }

    synchronized boolean idle()
    {
        reclaim();
        return pending.isEmpty();
    }

    synchronized long freeBytes()
    {
        long n = 0;
        for (final int[] r : free)
        {
            n += r[1];
        }
        return n;
    }

    private synchronized void release(final int at, final long bytes)
    {
        final int length = (int)(bytes + MPI.BSEND_OVERHEAD);
        int i = 0;
        while (i < free.size() && free.get(i)[0] < at)
        {
            i++;
        }
        free.add(i, new int[] {at, length});
        // Merge with the next and the previous range when they touch.
        if (i + 1 < free.size() && free.get(i)[0] + free.get(i)[1] == free.get(i + 1)[0])
        {
            free.get(i)[1] += free.get(i + 1)[1];
            free.remove(i + 1);
        }
        if (i > 0 && free.get(i - 1)[0] + free.get(i - 1)[1] == free.get(i)[0])
        {
            free.get(i - 1)[1] += free.get(i)[1];
            free.remove(i);
        }
    }
}
