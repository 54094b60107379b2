package org.shmpi.rma;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.agrona.UnsafeApi;
import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

/**
 * One-sided operations on window memory the other members cannot map (a Java array, a direct
 * buffer outside the shared heap): the origin sends the operation as messages on the window's
 * own context, and the target's progress engine carries it out (an agent, run on every duty
 * cycle of whatever MPI call the target is in). So such a target makes progress only inside MPI
 * calls, as MPI's progress rule allows.
 *
 * <p>Messages, all on the window's context, non-overtaking per pair:
 * <pre>
 * REQUEST_TAG  origin -> target  header (below), then for PUT and the accumulates a DATA message
 * DATA_TAG     origin -> target  the packed origin data (CAS: origin element, then compare element)
 * REPLY_TAG    target -> origin  GET: the target data; fetching ops: the values before (empty when
 *                                the operation failed at the target); FLUSH: an int, the error
 *                                class of the first operation since the last flush that failed
 * GRANT_TAG    target -> origin  LOCK granted (empty)
 * POST_TAG     target -> origin  MPI_Win_post (empty), from {@link MessageControl}
 * COMPLETE_TAG origin -> target  MPI_Win_complete (empty), from {@link MessageControl}
 *
 * header: 0 int op | 4 int origin (window rank) | 8 long target offset (bytes into the region)
 *        16 long bytes (packed) | 24 long items of the target map | 32 int reduction op
 *        36 int element kind | 40 int blocks (0: contiguous) | 48 long extent |
 *        56 blocks x (long displacement, long length)
 * </pre>
 * The target takes one request at a time, in arrival order, so an operation's effects are in
 * the target's memory before the reply to a later FLUSH of the same origin leaves.
 *
 * <p>A window whose members run on different machines ({@link MessageControl}) also keeps each
 * member's lock here: LOCK (target offset 1: exclusive, 0: shared) is granted at once when
 * compatible with the holders and nobody waits before it, else queued in arrival order; UNLOCK
 * releases and grants the queue's head while it is compatible. An operation that fails at the
 * target (a displacement of a dynamic window no longer attached) is not thrown here: its data is
 * taken and dropped, and the origin learns the error class at its next flush.
 */
final class WindowService implements ProgressAgent
{
    static final int PUT = 1;
    static final int GET = 2;
    static final int ACCUMULATE = 3;
    static final int GET_ACCUMULATE = 4;
    static final int COMPARE_AND_SWAP = 5;
    static final int FLUSH = 6;
    static final int LOCK = 7;
    static final int UNLOCK = 8;

    static final int REQUEST_TAG = 1;
    static final int DATA_TAG = 2;
    static final int REPLY_TAG = 3;
    static final int GRANT_TAG = 4;
    static final int POST_TAG = 5;
    static final int COMPLETE_TAG = 6;

    static final int HEADER_FIXED = 56;
    /** Largest header: target maps of more blocks than fit are refused with ERR_TYPE. */
    static final int HEADER_MAX = 1 << 20;
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private final RankContext ctx;
    private final int context;
    /** Where a displacement of this member's served memory is. */
    private final LocalMemory memory;

    private final byte[] header = new byte[HEADER_MAX];
    private RecvRequest headerRecv;
    /** The data receive of the request being served, and what follows it. */
    private RecvRequest dataRecv;
    private Runnable afterData;
    private boolean closed;
    /** The lock this member's window memory has (windows across machines): holders and waiters. */
    private int sharedHolders;
    private boolean exclusiveHeld;
    /** Waiting lockers in arrival order: world rank * 2, plus 1 for exclusive. */
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
    /** The error class of the first operation each origin (world rank) had fail since its last flush. */
    private final Map<Integer, Integer> failures = new HashMap<>();

    /** This member's memory as the service reaches it. */
    interface LocalMemory
    {
        /**
         * Finds the memory of bytes {@code [low, high)} of this member's displacement space;
         * afterwards {@link #object} and {@link #address} give displacement {@code start} in
         * Unsafe addressing.
         */
        void resolve(long start, long low, long high);

        Object object();

        long address();
    }

    /** One region at {@code base}/{@code offset}: displacement d is {@code offset + d}. */
    static LocalMemory region(final Object base, final long offset)
    {
        return new LocalMemory()
        {
            private long address;

            @Override
            public void resolve(final long start, final long low, final long high)
            {
                address = offset + start;
            }

            @Override
            public Object object()
            {
                return base;
            }

            @Override
            public long address()
            {
                return address;
            }
        };
    }

    WindowService(final RankContext ctx, final int context, final LocalMemory memory)
    {
        this.ctx = ctx;
        this.context = context;
        this.memory = memory;
    }

    void start()
    {
        ctx.progress().register(this);
    }

    /** Stops serving (every origin has flushed: the window is being freed). */
    void stop()
    {
        closed = true;
        ctx.progress().deregister(this);
        if (headerRecv != null && !headerRecv.isComplete())
        {
            ctx.transport().cancel(headerRecv);
        }
        headerRecv = null;
    }

    @Override
    public String roleName()
    {
        return "rma window service";
    }

    @Override
    public int doWork()
    {
        int work = 0;
        while (!closed)
        {
            if (dataRecv != null)
            {
                if (!dataRecv.isComplete())
                {
                    return work;
                }
                dataRecv = null;
                final Runnable next = afterData;
                afterData = null;
                next.run();
                work++;
            }
            if (headerRecv == null)
            {
                headerRecv = ctx.transport().irecv(context, RecvRequest.ANY_SOURCE, REQUEST_TAG, header, BYTES,
                    HEADER_MAX);
            }
            if (!headerRecv.isComplete())
            {
                return work;
            }
            final int source = headerRecv.source();
            headerRecv = null;
            serve(source);
            work++;
        }
        return work;
    }

    private void serve(final int source)
    {
        final int op = UnsafeApi.getInt(header, BYTES);
        final long start = UnsafeApi.getLong(header, BYTES + 8);
        final long bytes = UnsafeApi.getLong(header, BYTES + 16);
        final long items = UnsafeApi.getLong(header, BYTES + 24);
        final TypeMap map = targetMap(header);
        final DataLayout layout = map == null ? DataLayout.CONTIGUOUS : map.layout();
        switch (op)
        {
            case FLUSH:
            {
                final Integer failed = failures.remove(source);
                final byte[] reply = new byte[4];
                UnsafeApi.putInt(reply, BYTES, failed == null ? ErrorClass.SUCCESS : failed);
                ctx.transport().isend(context, source, REPLY_TAG, reply, BYTES, 4, SendRequest.MODE_STANDARD);
                return;
            }
            case LOCK:
                waiting.add(source * 2 + (start != 0 ? 1 : 0));
                grantWaiting();
                return;
            case UNLOCK:
                if (start != 0)
                {
                    exclusiveHeld = false;
                }
                else
                {
                    sharedHolders--;
                }
                grantWaiting();
                return;
            default:
                break;
        }
        try
        {
            memory.resolve(start, map == null ? start : start + map.touchedLow(items),
                map == null ? start + bytes : start + map.touchedHigh(items));
        }
        catch (final ShmpiException ex)
        {
            refuse(op, source, bytes, ex.errorClass());
            return;
        }
        final Object base = memory.object();
        final long at = memory.address();
        switch (op)
        {
            case PUT:
                dataRecv = ctx.transport().irecv(context, source, DATA_TAG, base, at, bytes, layout);
                afterData = () -> { };
                break;
            case GET:
                ctx.transport().isend(context, source, REPLY_TAG, base, at, bytes, SendRequest.MODE_STANDARD, layout);
                break;
            case ACCUMULATE:
            case GET_ACCUMULATE:
            {
                final int reduction = UnsafeApi.getInt(header, BYTES + 32);
                final int kind = UnsafeApi.getInt(header, BYTES + 36);
                final byte[] in = new byte[(int)bytes];
                dataRecv = ctx.transport().irecv(context, source, DATA_TAG, in, BYTES, bytes);
                afterData = () ->
                {
                    byte[] old = null;
                    if (op == GET_ACCUMULATE)
                    {
                        old = new byte[(int)bytes];
                        layout.pack(base, at, 0, old, BYTES, bytes);
                    }
                    apply(Reductions.kernel(reduction, kind), BasicKind.size(kind), in, base, at, map, items, bytes);
                    if (old != null)
                    {
                        ctx.transport().isend(context, source, REPLY_TAG, old, BYTES, bytes, SendRequest.MODE_STANDARD);
                    }
                };
                break;
            }
            case COMPARE_AND_SWAP:
            {
                final int es = (int)bytes;
                final byte[] in = new byte[2 * es];
                dataRecv = ctx.transport().irecv(context, source, DATA_TAG, in, BYTES, 2L * es);
                afterData = () ->
                {
                    final byte[] old = new byte[es];
                    UnsafeApi.copyMemory(base, at, old, BYTES, es);
                    boolean same = true;
                    for (int i = 0; i < es; i++)
                    {
                        same &= old[i] == in[es + i];
                    }
                    if (same)
                    {
                        UnsafeApi.copyMemory(in, BYTES, base, at, es);
                    }
                    ctx.transport().isend(context, source, REPLY_TAG, old, BYTES, es, SendRequest.MODE_STANDARD);
                };
                break;
            }
            default:
                throw new ShmpiException(ErrorClass.ERR_INTERN, "window service: unknown request " + op + " from " +
                    "world rank " + source);
        }
    }

    /** Grants the waiting lockers at the queue's head while they are compatible with the holders. */
    private void grantWaiting()
    {
        while (!waiting.isEmpty() && !exclusiveHeld)
        {
            final int next = waiting.peek();
            final boolean exclusive = (next & 1) != 0;
            if (exclusive && sharedHolders > 0)
            {
                return;
            }
            waiting.poll();
            if (exclusive)
            {
                exclusiveHeld = true;
            }
            else
            {
                sharedHolders++;
            }
            ctx.transport().isend(context, next >> 1, GRANT_TAG, header, BYTES, 0, SendRequest.MODE_STANDARD);
        }
    }

    /**
     * An operation that cannot be carried out here ({@code errorClass}): its data is taken and
     * dropped; a fetching one gets an empty reply (its origin raises ERR_RMA_RANGE on it), any
     * other is reported by the origin's next flush.
     */
    private void refuse(final int op, final int source, final long bytes, final int errorClass)
    {
        if (op == PUT || op == ACCUMULATE)
        {
            // A fetching operation learns it from its empty reply instead.
            failures.putIfAbsent(source, errorClass);
        }
        if (op != GET)
        {
            // Received into nothing: the message is taken, its bytes dropped (truncated).
            dataRecv = ctx.transport().irecv(context, source, DATA_TAG, header, BYTES, 0);
            afterData = () -> { };
        }
        if (op != PUT && op != ACCUMULATE)
        {
            ctx.transport().isend(context, source, REPLY_TAG, header, BYTES, 0, SendRequest.MODE_STANDARD);
        }
    }

    /**
     * The kernel over {@code bytes} packed bytes of {@code in} onto {@code items} items of
     * {@code map} (null: contiguous) at {@code base}/{@code at}: the target alone writes its
     * served memory, so no atomics are needed.
     */
    static void apply(final Reductions.Kernel kernel, final int elementSize, final Object in, final Object base,
        final long at, final TypeMap map, final long items, final long bytes)
    {
        if (map == null || map.isContiguous())
        {
            kernel.apply(in, BYTES, base, at, bytes / elementSize);
            return;
        }
        long packed = 0;
        for (long item = 0; item < items; item++)
        {
            for (int b = 0; b < map.blocks(); b++)
            {
                final long length = map.blockLength(b);
                kernel.apply(in, BYTES + packed, base, at + item * map.extent() + map.blockDisplacement(b),
                    length / elementSize);
                packed += length;
            }
        }
    }

    /**
     * A request header (see the class comment) of {@code op} from window rank {@code me}; a
     * target map of more blocks than a header holds is {@code MPI_ERR_TYPE}.
     */
    static byte[] request(final int op, final int me, final long offset, final long bytes, final TypeMap map,
        final long items)
    {
        final int blocks = map == null || map.isContiguous() ? 0 : map.blocks();
        if (HEADER_FIXED + 16L * blocks > HEADER_MAX)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "target datatype of " + blocks + " blocks is too " +
                "complex for a window whose memory is served by its owner (at most " +
                (HEADER_MAX - HEADER_FIXED) / 16 + " blocks)");
        }
        final byte[] h = new byte[HEADER_FIXED + 16 * blocks];
        UnsafeApi.putInt(h, BYTES, op);
        UnsafeApi.putInt(h, BYTES + 4, me);
        UnsafeApi.putLong(h, BYTES + 8, offset);
        UnsafeApi.putLong(h, BYTES + 16, bytes);
        UnsafeApi.putLong(h, BYTES + 24, items);
        UnsafeApi.putInt(h, BYTES + 40, blocks);
        if (blocks > 0)
        {
            UnsafeApi.putLong(h, BYTES + 48, map.extent());
            for (int b = 0; b < blocks; b++)
            {
                UnsafeApi.putLong(h, BYTES + HEADER_FIXED + 16L * b, map.blockDisplacement(b));
                UnsafeApi.putLong(h, BYTES + HEADER_FIXED + 16L * b + 8, map.blockLength(b));
            }
        }
        return h;
    }

    private static TypeMap targetMap(final byte[] h)
    {
        final int blocks = UnsafeApi.getInt(h, BYTES + 40);
        if (blocks == 0)
        {
            return null;
        }
        final int[] lengths = new int[blocks];
        final long[] displacements = new long[blocks];
        for (int b = 0; b < blocks; b++)
        {
            displacements[b] = UnsafeApi.getLong(h, BYTES + HEADER_FIXED + 16L * b);
            lengths[b] = (int)UnsafeApi.getLong(h, BYTES + HEADER_FIXED + 16L * b + 8);
        }
        final long extent = UnsafeApi.getLong(h, BYTES + 48);
        return TypeMap.resized(TypeMap.hindexed(lengths, displacements, TypeMap.basic(BasicKind.BYTE, 1)), 0, extent);
    }

    // ------------------------------------------------------------------------------------------
    // Origin side

    /** An origin's messages to served targets: sends and receives not yet complete, targets not yet flushed. */
    static final class Origin
    {
        private final RankContext ctx;
        private final int context;
        private final int[] world;
        private final int me;
        private final List<EngineRequest> pending = new ArrayList<>();
        /** Bytes each pending request fetches (0: not a fetch), by its place in {@link #pending}. */
        private long[] fetchBytes = new long[16];
        private final boolean[] dirty;

        Origin(final RankContext ctx, final int context, final int[] world, final int me)
        {
            this.ctx = ctx;
            this.context = context;
            this.world = world;
            this.me = me;
            this.dirty = new boolean[world.length];
        }

        private byte[] header(final int op, final long offset, final long bytes, final TypeMap map, final long items)
        {
            return request(op, me, offset, bytes, map, items);
        }

        private void send(final int target, final byte[] data, final long offset, final long bytes,
            final DataLayout layout, final int tag)
        {
            final SendRequest s = ctx.transport().isend(context, world[target], tag, data, offset, bytes,
                SendRequest.MODE_STANDARD, layout);
            if (!s.isComplete())
            {
                track(s, 0);
            }
        }

        void put(final Object origin, final long originOffset, final DataLayout layout, final long bytes,
            final int target, final long offset, final TypeMap map, final long items)
        {
            final byte[] h = header(PUT, offset, bytes, map, items);
            send(target, h, BYTES, h.length, DataLayout.CONTIGUOUS, REQUEST_TAG);
            final SendRequest s = ctx.transport().isend(context, world[target], DATA_TAG, origin, originOffset, bytes,
                SendRequest.MODE_STANDARD, layout);
            if (!s.isComplete())
            {
                track(s, 0);
            }
            dirty[target] = true;
        }

        void get(final Object origin, final long originOffset, final DataLayout layout, final long bytes,
            final int target, final long offset, final TypeMap map, final long items)
        {
            track(ctx.transport().irecv(context, world[target], REPLY_TAG, origin, originOffset, bytes, layout), bytes);
            final byte[] h = header(GET, offset, bytes, map, items);
            send(target, h, BYTES, h.length, DataLayout.CONTIGUOUS, REQUEST_TAG);
            dirty[target] = true;
        }

        /**
         * Accumulate ({@code resultLayout} null) or get-accumulate into {@code resultLayout} over
         * {@code result}/{@code resultOffset} (a null {@code result} is a direct buffer: the offset
         * is its address); {@code in} holds the packed origin data.
         */
        void accumulate(final byte[] in, final long bytes, final int target, final long offset, final TypeMap map,
            final long items, final int reduction, final int kind, final Object result, final long resultOffset,
            final DataLayout resultLayout)
        {
            final boolean fetching = resultLayout != null;
            if (fetching)
            {
                track(ctx.transport().irecv(context, world[target], REPLY_TAG, result, resultOffset, bytes,
                    resultLayout), bytes);
            }
            final byte[] h = header(fetching ? GET_ACCUMULATE : ACCUMULATE, offset, bytes, map, items);
            UnsafeApi.putInt(h, BYTES + 32, reduction);
            UnsafeApi.putInt(h, BYTES + 36, kind);
            send(target, h, BYTES, h.length, DataLayout.CONTIGUOUS, REQUEST_TAG);
            send(target, in, BYTES, bytes, DataLayout.CONTIGUOUS, DATA_TAG);
            dirty[target] = true;
        }

        /** Compare-and-swap of one element: {@code in} holds the origin element, then the compare element. */
        void compareAndSwap(final byte[] in, final int elementSize, final int target, final long offset,
            final Object result, final long resultOffset)
        {
            final RecvRequest reply = ctx.transport().irecv(context, world[target], REPLY_TAG, result, resultOffset,
                elementSize);
            final byte[] h = header(COMPARE_AND_SWAP, offset, elementSize, null, 1);
            send(target, h, BYTES, h.length, DataLayout.CONTIGUOUS, REQUEST_TAG);
            send(target, in, BYTES, 2L * elementSize, DataLayout.CONTIGUOUS, DATA_TAG);
            track(reply, elementSize);
            dirty[target] = true;
        }

        private void track(final EngineRequest r, final long fetched)
        {
            if (pending.size() == fetchBytes.length)
            {
                fetchBytes = java.util.Arrays.copyOf(fetchBytes, 2 * fetchBytes.length);
            }
            fetchBytes[pending.size()] = fetched;
            pending.add(r);
        }

        /** Every operation on {@code target} (or on every served target when -1) done at the target. */
        void flush(final int target)
        {
            final List<byte[]> acks = new ArrayList<>();
            final List<RecvRequest> ackRecvs = new ArrayList<>();
            final List<Integer> ackFrom = new ArrayList<>();
            for (int t = 0; t < dirty.length; t++)
            {
                if (dirty[t] && (target < 0 || t == target))
                {
                    final byte[] ack = new byte[4];
                    acks.add(ack);
                    ackFrom.add(t);
                    ackRecvs.add(ctx.transport().irecv(context, world[t], REPLY_TAG, ack, BYTES, 4));
                    final byte[] h = header(FLUSH, 0, 0, null, 0);
                    send(t, h, BYTES, h.length, DataLayout.CONTIGUOUS, REQUEST_TAG);
                    dirty[t] = false;
                }
            }
            for (final RecvRequest r : ackRecvs)
            {
                track(r, 0);
            }
            complete();
            for (int i = 0; i < acks.size(); i++)
            {
                final int failed = UnsafeApi.getInt(acks.get(i), BYTES);
                if (failed != ErrorClass.SUCCESS)
                {
                    throw new ShmpiException(failed, "a one-sided operation on target " + ackFrom.get(i) + " failed " +
                        "there (" + ErrorClass.name(failed) + ")");
                }
            }
        }

        /**
         * Waits for the replies and sends outstanding, without flushing (the fetched values are
         * in place); a failed one is raised, as by {@link #flush}, and so is a fetch the target
         * answered with nothing (it could not carry the operation out).
         */
        void complete()
        {
            int failed = ErrorClass.SUCCESS;
            for (int i = 0; i < pending.size(); i++)
            {
                final EngineRequest r = pending.get(i);
                if (!r.isComplete())
                {
                    ctx.progress().await(r, BlockedCall.OTHER);
                }
                if (failed == ErrorClass.SUCCESS && r.errorClass() != ErrorClass.SUCCESS)
                {
                    failed = r.errorClass();
                }
                if (failed == ErrorClass.SUCCESS && fetchBytes[i] > 0 && ((RecvRequest)r).messageLength() == 0)
                {
                    failed = ErrorClass.ERR_RMA_RANGE;
                }
            }
            pending.clear();
            if (failed != ErrorClass.SUCCESS)
            {
                throw new ShmpiException(failed, "one-sided operation on served window memory failed");
            }
        }

    }
}
