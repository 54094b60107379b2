package mpi;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.agrona.UnsafeApi;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.DataLayout;

/**
 * The buffer attached with {@code MPI.attachBuffer} for buffered-mode sends. A buffered send
 * copies the message into a free range of it (plus {@code MPI.BSEND_OVERHEAD} bytes of
 * accounting per message) and returns at once; the range is free again once the message has
 * left it (its send request is complete: at once for an eager message, which is copied into the
 * receiver's ring; after streaming for a rendezvous one). First-fit allocation over a list of
 * free ranges kept sorted by offset.
 *
 * <p>Ranges are given back by polling the sends still held, whenever a new message needs room
 * or the buffer is asked whether it is idle, under this object's monitor: nothing depends on
 * when (or on which thread) an engine callback runs, and the held list never outgrows the
 * messages still in flight. The monitor is never held while calling the engine; the engine
 * calls {@link #detachIfIdle} with its own lock held (engine lock, then this monitor).
 */
final class BsendBuffer
{
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    /** A message copied in: its range, and the send carrying it (null while it is being started). */
    static final class Held
    {
        final int at;
        final int length;
        SendRequest send;

        Held(final int at, final int length)
        {
            this.at = at;
            this.length = length;
        }

        /** Where the message's data starts, as an {@code Unsafe} offset into the buffer. */
        long dataOffset()
        {
            return BYTE_ARRAY_BASE + at + MPI.BSEND_OVERHEAD;
        }
    }

    final byte[] buffer;
    /** Free ranges as {offset, length}, sorted by offset, never adjacent. */
    private final List<int[]> free = new ArrayList<>();
    /** Messages whose range is taken. */
    private final List<Held> held = new ArrayList<>();
    private boolean detached;

    BsendBuffer(final byte[] buffer)
    {
        this.buffer = buffer;
        if (buffer.length > 0)
        {
            free.add(new int[] {0, buffer.length});
        }
    }

    /**
     * Reserves room for a message of {@code bytes} and copies it there; follow with
     * {@link #started} or {@link #abandon}.
     *
     * @throws MPIException {@code MPI.ERR_BUFFER} when no free range is large enough, or the
     *                      buffer has been detached
     */
    synchronized Held copyIn(final Object base, final long offset, final long bytes, final DataLayout layout)
    {
        if (detached)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffered send without an attached buffer " +
                "(it was detached): bytes=" + bytes);
        }
        reclaim();
        final long need = bytes + MPI.BSEND_OVERHEAD;
        for (int i = 0; i < free.size(); i++)
        {
            final int[] range = free.get(i);
            if (range[1] >= need)
            {
                final Held h = new Held(range[0], (int)need);
                range[0] += h.length;
                range[1] -= h.length;
                if (range[1] == 0)
                {
                    free.remove(i);
                }
                if (bytes > 0)
                {
                    layout.pack(base, offset, 0, buffer, h.dataOffset(), bytes);
                }
                held.add(h);
                return h;
            }
        }
        throw new MPIException(ErrorClass.ERR_BUFFER, "attached buffer too small for this buffered send: " +
            "needed=" + need + ", free=" + freeBytesLocked() + ", largestFree=" + largestFree() + ", attached=" +
            buffer.length + ", messagesInFlight=" + held.size());
    }

    /** The send now carrying a reserved message: its range is free again once it completes. */
    synchronized void started(final Held h, final SendRequest send)
    {
        h.send = send;
    }

    /** A reserved message that was not sent after all: its range is free again now. */
    synchronized void abandon(final Held h)
    {
        if (held.remove(h))
        {
            release(h.at, h.length);
        }
    }

    /**
     * Whether no message is in the buffer any more; if so, it is detached from then on (a
     * buffered send that still found it fails as without a buffer). Called with the engine's lock.
     */
    synchronized boolean detachIfIdle()
    {
        reclaim();
        if (held.isEmpty())
        {
            detached = true;
            return true;
        }
        return false;
    }

    private long freeBytesLocked()
    {
        long n = 0;
        for (final int[] r : free)
        {
            n += r[1];
        }
        return n;
    }

    private int largestFree()
    {
        int n = 0;
        for (final int[] r : free)
        {
            n = Math.max(n, r[1]);
        }
        return n;
    }

    /** Gives back the range of every held message whose send has completed. */
    private void reclaim()
    {
        final Iterator<Held> it = held.iterator();
        while (it.hasNext())
        {
            final Held h = it.next();
            if (h.send != null && h.send.isComplete())
            {
                it.remove();
                release(h.at, h.length);
            }
        }
    }

    private void release(final int at, final int length)
    {
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
