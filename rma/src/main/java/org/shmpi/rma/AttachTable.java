package org.shmpi.rma;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.SharedHeap;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;

/**
 * The memory attached to a dynamic window ({@code MPI_Win_create_dynamic}). Each member's
 * attached regions get displacements in a space of the member's own: the first attach starts at
 * 0, each next one after the last (8-byte aligned), and displacements are never reused, so an
 * origin can never reach a detached region's successor by mistake. The owner tells origins a
 * region's displacement ({@link #displacementOf}), as a C program sends an address.
 *
 * <p>Layout, member r's table at {@code tableOffset(n) + r * TABLE_STRIDE} of the window segment,
 * written by member r only:
 * <pre>
 *   +0   long SEQ      odd while the owner changes the table (a reader retries)
 *   +8   int  COUNT    entries in use
 *   +64  entries, 32 bytes each: long displacement, long bytes,
 *                                long heap id (or -2: served by the owner), long offset in the heap segment
 * </pre>
 * A window across machines has no segment: the table is this member's own (a private buffer of
 * one table), and every peer's attachments are served by the peer, which checks the range.
 */
final class AttachTable
{
    static final int MAX_ATTACH = 64;
    static final int SEQ_OFFSET = 0;
    static final int COUNT_OFFSET = 8;
    static final int ENTRIES_OFFSET = 64;
    static final int ENTRY_LENGTH = 32;
    static final int TABLE_STRIDE = ENTRIES_OFFSET + MAX_ATTACH * ENTRY_LENGTH;
    static final long SERVED = -2;

    /** Where member 0's table starts in a dynamic window's segment. */
    static long tableOffset(final int n)
    {
        return WindowDescriptor.dataOffset(n);
    }

    /** One region this member attached. */
    private static final class Local
    {
        final Object key;
        final Object memory;
        final long offset;
        final long displacement;
        final long bytes;

        Local(final Object key, final Object memory, final long offset, final long displacement, final long bytes)
        {
            this.key = key;
            this.memory = memory;
            this.offset = offset;
            this.displacement = displacement;
            this.bytes = bytes;
        }
    }

    private final AtomicBuffer segment;
    /** Whether the table is a private one (a window across machines): the peers serve their attachments. */
    private final boolean isPrivate;
    private final int n;
    private final int me;
    private final SharedHeap heap;
    private final int[] world;
    private final List<Local> local = new ArrayList<>();
    private long nextDisplacement;
    /** Peers' heap segments mapped here, by member and heap id. */
    private final List<Map<Long, Segment>> mapped = new ArrayList<>();

    // Result of the last lookup.
    Object object;
    long address;
    boolean remote;

    AttachTable(final AtomicBuffer segment, final int n, final int me, final SharedHeap heap, final int[] world)
    {
        this(segment, false, n, me, heap, world);
    }

    /** A table of this member's own for a window across machines (nothing shared). */
    static AttachTable unshared(final int n, final int me, final SharedHeap heap, final int[] world)
    {
        return new AttachTable(new org.agrona.concurrent.UnsafeBuffer(new byte[TABLE_STRIDE]), true, n, me, heap,
            world);
    }

    private AttachTable(final AtomicBuffer segment, final boolean isPrivate, final int n, final int me,
        final SharedHeap heap, final int[] world)
    {
        this.segment = segment;
        this.isPrivate = isPrivate;
        this.n = n;
        this.me = me;
        this.heap = heap;
        this.world = world;
        for (int r = 0; r < n; r++)
        {
            mapped.add(new HashMap<>());
        }
    }

    private int table(final int rank)
    {
        if (isPrivate)
        {
            return 0;
        }
        return (int)(tableOffset(n) + (long)rank * TABLE_STRIDE);
    }

    /**
     * Attaches {@code bytes} at {@code memory}/{@code offset} (Unsafe addressing), known to the
     * caller as {@code key}; returns whether it lies in the shared heap (else the owner serves it).
     */
    boolean attach(final Object key, final Object memory, final long offset, final long bytes)
    {
        if (local.size() >= MAX_ATTACH)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_ATTACH, "at most " + MAX_ATTACH + " regions can be attached " +
                "to a dynamic window at once");
        }
        for (final Local l : local)
        {
            if (l.key == key)
            {
                throw new ShmpiException(ErrorClass.ERR_RMA_ATTACH, "this memory is already attached");
            }
        }
        final long displacement = nextDisplacement;
        if (displacement + bytes > Integer.MAX_VALUE)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_ATTACH, "a dynamic window's displacements (ints in the Java " +
                "API) are used up: " + displacement + " bytes attached over its life");
        }
        final SharedHeap.Segment s = memory == null && bytes > 0 && !isPrivate ? heap.find(offset, bytes) : null;
        local.add(new Local(key, memory, offset, displacement, bytes));
        nextDisplacement = WindowDescriptor.align(displacement + Math.max(bytes, 1), 8);
        final int t = table(me);
        final int count = segment.getInt(t + COUNT_OFFSET);
        final int e = t + ENTRIES_OFFSET + count * ENTRY_LENGTH;
        begin(t);
        segment.putLong(e, displacement);
        segment.putLong(e + 8, bytes);
        segment.putLong(e + 16, s == null ? SERVED : s.id());
        segment.putLong(e + 24, s == null ? 0 : offset - s.address());
        segment.putInt(t + COUNT_OFFSET, count + 1);
        end(t);
        return s != null;
    }

    /** Detaches the region attached as {@code key}. */
    void detach(final Object key)
    {
        int at = -1;
        for (int i = 0; i < local.size(); i++)
        {
            if (local.get(i).key == key)
            {
                at = i;
            }
        }
        if (at < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_ATTACH, "detach of memory that is not attached");
        }
        final long displacement = local.remove(at).displacement;
        final int t = table(me);
        final int count = segment.getInt(t + COUNT_OFFSET);
        begin(t);
        for (int i = 0, out = 0; i < count; i++)
        {
            final int e = t + ENTRIES_OFFSET + i * ENTRY_LENGTH;
            if (segment.getLong(e) != displacement)
            {
                final int o = t + ENTRIES_OFFSET + out++ * ENTRY_LENGTH;
                if (o != e)
                {
                    segment.putBytes(o, segment, e, ENTRY_LENGTH);
                }
            }
        }
        segment.putInt(t + COUNT_OFFSET, count - 1);
        end(t);
    }

    /** The displacement origins use for the region attached as {@code key}. */
    long displacementOf(final Object key)
    {
        for (final Local l : local)
        {
            if (l.key == key)
            {
                return l.displacement;
            }
        }
        throw new ShmpiException(ErrorClass.ERR_RMA_ATTACH, "memory not attached to this window");
    }


    private void begin(final int t)
    {
        segment.putLongVolatile(t + SEQ_OFFSET, segment.getLong(t + SEQ_OFFSET) + 1);
    }

    private void end(final int t)
    {
        segment.putLongRelease(t + SEQ_OFFSET, segment.getLong(t + SEQ_OFFSET) + 1);
    }

    /**
     * Finds the region of {@code target} holding bytes {@code [low, high)} of its displacement
     * space and sets {@link #object}, {@link #address} (of displacement {@code start}) and
     * {@link #remote}; {@code MPI_ERR_RMA_RANGE} when no attached region holds them.
     */
    void lookup(final int target, final long start, final long low, final long high)
    {
        if (target == me)
        {
            lookupLocal(start, low, high);
            return;
        }
        if (isPrivate)
        {
            object = null;
            remote = true;
            address = start;
            return;
        }
        final int t = table(target);
        while (true)
        {
            final long seq = segment.getLongVolatile(t + SEQ_OFFSET);
            if ((seq & 1) != 0)
            {
                Thread.onSpinWait();
                continue;
            }
            final int count = Math.min(segment.getInt(t + COUNT_OFFSET), MAX_ATTACH);
            long displacement = -1;
            long bytes = 0;
            long heapId = 0;
            long inSegment = 0;
            for (int i = 0; i < count; i++)
            {
                final int e = t + ENTRIES_OFFSET + i * ENTRY_LENGTH;
                final long d = segment.getLong(e);
                final long b = segment.getLong(e + 8);
                if (d <= low && high <= d + b)
                {
                    displacement = d;
                    bytes = b;
                    heapId = segment.getLong(e + 16);
                    inSegment = segment.getLong(e + 24);
                    break;
                }
            }
            org.agrona.UnsafeApi.loadFence();
            if (segment.getLongVolatile(t + SEQ_OFFSET) != seq)
            {
                continue;
            }
            if (displacement < 0)
            {
                throw new ShmpiException(ErrorClass.ERR_RMA_RANGE, "target " + target + ": bytes [" + low + ", " +
                    high + ") of its dynamic window lie in no attached memory");
            }
            object = null;
            if (heapId == SERVED)
            {
                remote = true;
                address = start;
                return;
            }
            remote = false;
            final Map<Long, Segment> segments = mapped.get(target);
            Segment s = segments.get(heapId);
            if (s == null)
            {
                s = heap.openPeer(world[target], heapId);
                segments.put(heapId, s);
            }
            address = s.address() + inSegment + (start - displacement);
            return;
        }
    }

    /** As {@link #lookup} for this member's own regions (also what its service resolves). */
    void lookupLocal(final long start, final long low, final long high)
    {
        for (final Local l : local)
        {
            if (l.displacement <= low && high <= l.displacement + l.bytes)
            {
                object = l.memory;
                address = l.offset + (start - l.displacement);
                remote = false;
                return;
            }
        }
        throw new ShmpiException(ErrorClass.ERR_RMA_RANGE, "bytes [" + low + ", " + high + ") of this member's " +
            "dynamic window lie in no attached memory");
    }

    /** This member's attached regions as its {@link WindowService} reaches them ({@link #lookupLocal}). */
    WindowService.LocalMemory localMemory()
    {
        return new WindowService.LocalMemory()
        {
            @Override
            public void resolve(final long start, final long low, final long high)
            {
                lookupLocal(start, low, high);
            }

            @Override
            public Object object()
            {
                return object;
            }

            @Override
            public long address()
            {
                return address;
            }
        };
    }

    /** Unmaps the peers' heap segments mapped for lookups. */
    void close()
    {
        for (final Map<Long, Segment> m : mapped)
        {
            for (final Segment s : m.values())
            {
                heap.releasePeer(s);
            }
            m.clear();
        }
    }
}
