package org.shmpi.coll;

import static org.shmpi.coll.ShmLargeDescriptor.ARRIVED_OFFSET;
import static org.shmpi.coll.ShmLargeDescriptor.DONE_OFFSET;
import static org.shmpi.coll.ShmLargeDescriptor.REDUCED_OFFSET;

import java.util.function.BooleanSupplier;
import java.util.function.IntUnaryOperator;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.SharedHeap;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * Blocking collectives of large messages through a communicator's large slots
 * ({@link ShmLargeDescriptor}): every member reads its peers' pieces directly out of their
 * slots, in rounds of one chunk, two slots per member so that the next round fills while the
 * last is read (a pipeline). Data is packed from the user's memory straight into the slot and
 * unpacked straight out of it, so each byte is copied once in and once out.
 * <ul>
 * <li><b>allreduce</b>: reduce-scatter then allgather over the slots. Each member packs its
 *     chunk; member j combines segment j (1/n of the chunk) of all n slots in place, in the
 *     order of {@link ReductionOrder}; every member then copies the whole combined chunk out of
 *     the last member's slot. Each member reads and writes about 3 chunks' worth of bytes
 *     per round whatever n, and all n combine at once.</li>
 * <li><b>reduce</b>: the same, and only the root copies out.</li>
 * <li><b>bcast</b>: the root packs, the others copy out.</li>
 * <li><b>gather</b>, <b>allgather</b>: each member packs its piece; the root (or every member)
 *     copies all n out.</li>
 * <li><b>scatter</b>: the root packs each member's chunk into that member's own slot (the one
 *     case where a slot has another writer: nobody else uses it in a scatter), and each copies
 *     its chunk out of its own slot; <b>alltoall</b>: below a chunk per block every member packs
 *     one piece per member into its slot, and each copies its own piece of every slot; from a
 *     chunk on, pairwise phases into the receivers' own slots ({@link #alltoallPairwise}).</li>
 * </ul>
 * <p>Single copy: when the data a member contributes to a bcast, gather, allgather, scatter or
 * all-to-all lies contiguous in its shared-memory heap ({@code MPI.newXxxBuffer} with a
 * contiguous datatype), it packs nothing; the others copy straight out of its buffer, which it
 * keeps until they all have (it waits for their {@code done} before returning). A bcast or
 * scatter from such a root takes one round whatever the size.
 *
 * <p>Waiting and waking are those of {@link ShmCollectives}. One instance per communicator and
 * member; not for concurrent use.
 */
public final class ShmLargeCollectives implements AutoCloseable
{
    /** With more ranks than CPUs, the smallest rooted operation whose root hands out its own buffer. */
    static final long ROOTED_DIRECT_MIN_OVERSUBSCRIBED = 512 * 1024;

    private final RankContext ctx;
    private final SegmentManager manager;
    private final Segment segment;
    private final AtomicBuffer buffer;
    private final long address;
    private final int[] world;
    private final int me;
    private final int n;
    private final int chunkBytes;
    private final long stride;
    /** Rounds run so far; round g uses the slots of parity {@code g & 1}. */
    private long rounds;

    private long waitFor;
    private int waitRank;
    private int waitWord;
    private final BooleanSupplier allReached = this::allReached;
    private final BooleanSupplier rankReached = this::rankReached;

    // The combination in progress, as fields so that the fold allocates nothing.
    private Reducer foldReducer;
    private long foldParity;
    private long foldOffset;
    private int foldItems;
    private int foldBytes;
    private final ReductionOrder.Combiner combineSlots = this::combineSlots;

    private ShmLargeCollectives(final RankContext ctx, final SegmentManager manager, final Segment segment,
        final int[] world, final int me, final int chunkBytes)
    {
        this.ctx = ctx;
        this.manager = manager;
        this.segment = segment;
        this.buffer = segment.buffer();
        this.address = buffer.addressOffset();
        this.world = world;
        this.me = me;
        this.n = world.length;
        this.chunkBytes = chunkBytes;
        this.stride = ShmLargeDescriptor.stride(chunkBytes);
    }

    /**
     * Sets up the large slots of a communicator: as {@link ShmCollectives#attach}, member 0
     * creates the segment, all run {@code barrier}, the others map it. Every member must call it
     * at the same point (its first large shared-memory collective).
     */
    public static ShmLargeCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int chunkBytes, final Runnable barrier)
    {
        return attach(ctx, world, me, context, chunkBytes, x ->
        {
            barrier.run();
            return x;
        }, true);
    }

    /**
     * As {@link #attach}, but the members agree through {@code agree} (the largest of their
     * values) on whether the segment could be made and mapped everywhere; when not, every member
     * returns null, having left nothing behind (large collectives then go point-to-point).
     */
    public static ShmLargeCollectives attachOrNull(final RankContext ctx, final int[] world, final int me,
        final int context, final int chunkBytes, final IntUnaryOperator agree)
    {
        return attach(ctx, world, me, context, chunkBytes, agree, false);
    }

    private static ShmLargeCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int chunkBytes, final IntUnaryOperator agree,
        final boolean failuresThrow)
    {
        final Segment segment = SegmentHandshake.join(ctx, world, me, SegmentNames.collectiveLarge(context, world[0]),
            ShmLargeDescriptor.payloadLength(world.length, chunkBytes), b ->
            {
                b.putInt(ShmLargeDescriptor.RANKS_OFFSET, world.length);
                b.putInt(ShmLargeDescriptor.CHUNK_BYTES_OFFSET, chunkBytes);
            },
            b -> b.getInt(ShmLargeDescriptor.RANKS_OFFSET) == world.length &&
                b.getInt(ShmLargeDescriptor.CHUNK_BYTES_OFFSET) == chunkBytes ? null :
                "describes " + b.getInt(ShmLargeDescriptor.RANKS_OFFSET) + " ranks and chunks of " +
                b.getInt(ShmLargeDescriptor.CHUNK_BYTES_OFFSET) + " bytes, not " + world.length + " and " + chunkBytes,
            agree, failuresThrow);
        return segment == null ? null : new ShmLargeCollectives(ctx, ctx.segments(), segment, world.clone(), me,
            chunkBytes);
    }

    public int chunkBytes()
    {
        return chunkBytes;
    }

    /** Pieces this member copied straight out of a peer's shared heap (single copy) so far. */
    public long singleCopies()
    {
        return singleCopies;
    }

    /**
     * Allreduce of {@code bytes} packed bytes, items of {@code itemBytes} each (a round never
     * splits an item, so {@code itemBytes <= chunkBytes}), from {@code send} into {@code recv}
     * (which may be the same memory: in place).
     */
    public void allreduce(final PackedData send, final PackedData recv, final long bytes, final int itemBytes,
        final Reducer reducer)
    {
        reduceRounds(-1, send, recv, bytes, itemBytes, reducer, 0, bytes);
    }

    /**
     * Reduce-scatter: as {@link #allreduce}, but this member receives only packed bytes
     * {@code [from, from + length)} of the result, at the start of {@code recv} (which may be
     * {@code send}'s memory: in place).
     */
    public void reduceScatter(final PackedData send, final PackedData recv, final long bytes, final int itemBytes,
        final Reducer reducer, final long from, final long length)
    {
        reduceRounds(-1, send, recv, bytes, itemBytes, reducer, from, length);
    }

    /** Reduce to {@code root}; {@code recv} is used on the root only. */
    public void reduce(final int root, final PackedData send, final PackedData recv, final long bytes,
        final int itemBytes, final Reducer reducer)
    {
        reduceRounds(root, send, recv, bytes, itemBytes, reducer, 0, bytes);
    }

    /** Broadcast of {@code bytes} packed bytes of {@code data} from {@code root}. */
    public void bcast(final int root, final PackedData data, final long bytes)
    {
        if (me == root)
        {
            final long g = ++rounds;
            awaitAllDone(g);
            if (publishSource(g, rootedDirect(bytes) ? data : null, bytes))
            {
                store(ARRIVED_OFFSET, g);
                finishDirect(g);
                return;
            }
            packRounds(g, data, bytes);
            return;
        }
        final long g = ++rounds;
        awaitRank(root, ARRIVED_OFFSET, g);
        final long direct = sourceAddress(root, g);
        if (direct >= 0)
        {
            data.unpackFrom(null, direct, bytes, 0);
            releaseSource();
            store(DONE_OFFSET, g);
            return;
        }
        for (long pos = 0, round = g; pos < bytes; pos += chunkBytes, round = ++rounds)
        {
            final int len = (int)Math.min(chunkBytes, bytes - pos);
            awaitRank(root, ARRIVED_OFFSET, round);
            data.unpackFrom(null, slot(root, round), len, pos);
            store(DONE_OFFSET, round);
        }
    }

    /** The root's rounds of a bcast through its slots, the first being round {@code first}. */
    private void packRounds(final long first, final PackedData data, final long bytes)
    {
        for (long pos = 0, g = first; pos < bytes; pos += chunkBytes, g = ++rounds)
        {
            final int len = (int)Math.min(chunkBytes, bytes - pos);
            if (g != first)
            {
                awaitAllDone(g);
            }
            data.packTo(pos, null, slot(me, g), len);
            store(ARRIVED_OFFSET, g);
            store(DONE_OFFSET, g);
        }
    }

    /**
     * Allgather of {@code bytes} packed bytes per member: member r's lands at packed byte {@code r * bytes} of
     * {@code recv}.
     */
    public void allgather(final PackedData send, final PackedData recv, final long bytes)
    {
        gatherRounds(-1, send, recv, bytes);
    }

    /** Gather to {@code root} of {@code bytes} per member; {@code recv} is used on the root only. */
    public void gather(final int root, final PackedData send, final PackedData recv, final long bytes)
    {
        gatherRounds(root, send, recv, bytes);
    }

    /**
     * Scatter from {@code root}: packed bytes {@code [r * bytes, (r + 1) * bytes)} of {@code send}
     * to member r; on the root {@code recv} may be null (in place: its block stays where it is).
     */
    public void scatter(final int root, final PackedData send, final PackedData recv, final long bytes)
    {
        final long first = ++rounds;
        if (me == root)
        {
            awaitAllDone(first);
            if (publishSource(first, rootedDirect(n * bytes) ? send : null, n * bytes))
            {
                store(ARRIVED_OFFSET, first);
                if (recv != null)
                {
                    recv.unpackFrom(null, send.contiguousAddress() + me * bytes, bytes, 0);
                }
                finishDirect(first);
                return;
            }
        }
        else
        {
            awaitRank(root, ARRIVED_OFFSET, first);
            final long direct = sourceAddress(root, first);
            if (direct >= 0)
            {
                recv.unpackFrom(null, direct + me * bytes, bytes, 0);
                releaseSource();
                store(DONE_OFFSET, first);
                return;
            }
        }
        // The root packs each member's piece of the round into that member's own slot of the
        // round's parity, a whole chunk each (no member writes its slot in a scatter, and
        // awaitAllDone(g) means nobody still reads it), so the rounds number bytes / chunk,
        // not n times as many; every member reads its own slot.
        for (long pos = 0, g = first; pos < bytes; pos += chunkBytes, g = ++rounds)
        {
            final int len = (int)Math.min(chunkBytes, bytes - pos);
            if (me == root)
            {
                if (g != first)
                {
                    awaitAllDone(g);
                }
                for (int r = 0; r < n; r++)
                {
                    if (r != me || recv != null)
                    {
                        send.packTo(r * bytes + pos, null, slot(r, g), len);
                    }
                }
                store(ARRIVED_OFFSET, g);
            }
            else if (g != first)
            {
                awaitRank(root, ARRIVED_OFFSET, g);
            }
            if (recv != null)
            {
                recv.unpackFrom(null, slot(me, g), len, pos);
            }
            store(DONE_OFFSET, g);
        }
    }

    /** All-to-all of {@code bytes} per pair: block r of {@code send} to member r, block r of {@code recv} from it. */
    public void alltoall(final PackedData send, final PackedData recv, final long bytes)
    {
        if (bytes >= chunkBytes)
        {
            alltoallPairwise(send, recv, bytes);
            return;
        }
        final int piece = piece();
        long g = 0;
        boolean direct = false;
        for (long pos = 0; pos < bytes; pos += piece)
        {
            final int len = (int)Math.min(piece, bytes - pos);
            g = ++rounds;
            awaitAllDone(g);
            direct = publishSource(g, send, n * bytes);
            if (!direct)
            {
                final long mine = slot(me, g);
                for (int r = 0; r < n; r++)
                {
                    send.packTo(r * bytes + pos, null, mine + (long)r * piece, len);
                }
            }
            store(ARRIVED_OFFSET, g);
            awaitAll(ARRIVED_OFFSET, g);
            for (int r = 0; r < n; r++)
            {
                final long from = sourceAddress(r, g);
                recv.unpackFrom(null, from >= 0 ? from + me * bytes + pos : slot(r, g) + (long)me * piece, len,
                    r * bytes + pos);
                releaseSource();
            }
            store(DONE_OFFSET, g);
        }
        if (direct)
        {
            awaitAll(DONE_OFFSET, g);
        }
    }

    /**
     * All-to-all of blocks of at least a chunk: n phases; in phase i member s sends its block to
     * member s + i and receives the block of member s - i (mod n), a chunk per round, packed
     * straight into the receiver's own slot of the round's parity (or named in the sender's
     * shared heap, then read in place). Each round waits on two members, not all: the sender
     * for its receiver's {@code done} of two rounds before (the only reader of that slot then;
     * the first two rounds wait for everyone, since an earlier operation may still read), the
     * receiver for its sender's {@code arrived}. Oversubscribed members then need not all run in
     * lock step. A sender that names its heap writes the same source words every round, so a
     * reader of an earlier round never sees them change; it waits for every {@code done} at the
     * end before its buffer may change.
     */
    private void alltoallPairwise(final PackedData send, final PackedData recv, final long bytes)
    {
        final long first = rounds + 1;
        long g = 0;
        boolean direct = false;
        for (int i = 0; i < n; i++)
        {
            final int to = (me + i) % n;
            final int from = (me - i + n) % n;
            for (long pos = 0; pos < bytes; pos += chunkBytes)
            {
                final int len = (int)Math.min(chunkBytes, bytes - pos);
                g = ++rounds;
                if (g < first + 2)
                {
                    awaitAllDone(g);
                }
                else
                {
                    awaitRank(to, DONE_OFFSET, g - 2);
                }
                direct = publishSource(g, send, n * bytes);
                if (!direct)
                {
                    send.packTo(to * bytes + pos, null, slot(to, g), len);
                }
                store(ARRIVED_OFFSET, g);
                awaitRank(from, ARRIVED_OFFSET, g);
                final long source = sourceAddress(from, g);
                recv.unpackFrom(null, source >= 0 ? source + me * bytes + pos : slot(me, g), len, from * bytes + pos);
                releaseSource();
                store(DONE_OFFSET, g);
            }
        }
        if (direct)
        {
            awaitAll(DONE_OFFSET, g);
        }
    }

    @Override
    public void close()
    {
        if (me == 0)
        {
            manager.remove(segment);
        }
        else
        {
            manager.forget(segment);
        }
    }

    // ------------------------------------------------------------------------------------------

    /** Bytes per member in one round of all-to-all (n pieces share a slot), 128-byte aligned when it can be. */
    private int piece()
    {
        final int p = chunkBytes / n;
        return p >= ShmLargeDescriptor.LINE ?
            p / ShmLargeDescriptor.LINE * ShmLargeDescriptor.LINE : Math.max(1, p & ~7);
    }

    /**
     * The rounds of allreduce, reduce (to {@code root >= 0}) and reduce-scatter: the receivers
     * copy out the part of the result in {@code [from, from + length)}, to the start of {@code recv}.
     */
    private void reduceRounds(final int root, final PackedData send, final PackedData recv, final long bytes,
        final int itemBytes, final Reducer reducer, final long from, final long length)
    {
        if (itemBytes <= 0 || itemBytes > chunkBytes || bytes % itemBytes != 0)
        {
            throw new IllegalArgumentException("items of " + itemBytes + " bytes do not fit chunks of " + chunkBytes +
                " or do not divide " + bytes + " bytes");
        }
        final int perRound = chunkBytes / itemBytes;
        for (long pos = 0; pos < bytes; pos += (long)perRound * itemBytes)
        {
            final int items = (int)Math.min(perRound, (bytes - pos) / itemBytes);
            final int len = items * itemBytes;
            final long g = ++rounds;
            awaitAllDone(g);
            send.packTo(pos, null, slot(me, g), len);
            store(ARRIVED_OFFSET, g);
            awaitAll(ARRIVED_OFFSET, g);
            // My segment: items [first, first + count) of this round.
            final int base = items / n;
            final int extra = items % n;
            final int count = base + (me < extra ? 1 : 0);
            final int first = me * base + Math.min(me, extra);
            if (count > 0)
            {
                foldReducer = reducer;
                foldParity = g;
                foldOffset = (long)first * itemBytes;
                foldItems = count;
                foldBytes = count * itemBytes;
                ReductionOrder.fold(n, combineSlots);
                foldReducer = null;
            }
            store(REDUCED_OFFSET, g);
            if (root < 0 || me == root)
            {
                final long lo = Math.max(pos, from);
                final long hi = Math.min(pos + len, from + length);
                if (lo < hi)
                {
                    awaitAll(REDUCED_OFFSET, g);
                    recv.unpackFrom(null, slot(ReductionOrder.resultSlot(n), g) + (lo - pos), hi - lo, lo - from);
                }
            }
            store(DONE_OFFSET, g);
        }
    }

    private void combineSlots(final int in, final int inout)
    {
        foldReducer.applyAt(null, slot(in, foldParity) + foldOffset, null, slot(inout, foldParity) + foldOffset,
            foldItems, foldBytes);
    }

    /**
     * Gather (to {@code root}) or allgather ({@code root < 0}): every member packs its piece,
     * from {@code send}, or in place ({@code send == null}) from its own block of {@code recv}
     * (or names it, when it lies in its shared heap); the receivers copy every piece, except
     * their own when in place.
     */
    private void gatherRounds(final int root, final PackedData send, final PackedData recv, final long bytes)
    {
        final PackedData mine = send != null ? send : recv.from(me * bytes);
        final boolean receives = root < 0 || me == root;
        long g = 0;
        boolean direct = false;
        for (long pos = 0; pos < bytes; pos += chunkBytes)
        {
            final int len = (int)Math.min(chunkBytes, bytes - pos);
            g = ++rounds;
            awaitAllDone(g);
            direct = publishSource(g, mine, bytes);
            if (!direct)
            {
                mine.packTo(pos, null, slot(me, g), len);
            }
            store(ARRIVED_OFFSET, g);
            if (receives)
            {
                awaitAll(ARRIVED_OFFSET, g);
                for (int r = 0; r < n; r++)
                {
                    if (r != me || send != null)
                    {
                        final long from = sourceAddress(r, g);
                        recv.unpackFrom(null, from >= 0 ? from + pos : slot(r, g), len, r * bytes + pos);
                        releaseSource();
                    }
                }
            }
            store(DONE_OFFSET, g);
        }
        if (direct)
        {
            // The others read straight out of this member's buffer: keep it until they have.
            awaitAll(DONE_OFFSET, g);
        }
    }

    /**
     * Names where this member's data lies for the readers of the coming round: in its shared
     * heap (true: nothing to pack), or in its slot (false). Written before {@code arrived}.
     */
    private boolean publishSource(final long g, final PackedData data, final long bytes)
    {
        final long address = data == null ? -1 : data.contiguousAddress();
        final SharedHeap.Segment h = address >= 0 && ctx.heap() != null ? ctx.heap().find(address, bytes) : null;
        if (h == null)
        {
            buffer.putLong(word(me, ShmLargeDescriptor.sourceOffset(g)), 0);
            ownSource = -1;
            return false;
        }
        ownSource = address;
        buffer.putLong(word(me, ShmLargeDescriptor.sourceOffset(g)), h.id() + 1);
        buffer.putLong(word(me, ShmLargeDescriptor.positionOffset(g)), address - h.address());
        return true;
    }

    /**
     * Whether a root hands out its own buffer ({@link #publishSource}) for {@code bytes}: then it
     * returns only when every reader has copied, where through its slots it returns once the
     * last chunk is written. With more ranks than CPUs a reader may wait for a time slice, and
     * the root with it: bcast at np 4 on 2 CPUs, 16 KiB to 64 KiB, took 40-210 µs handing out
     * its buffer and 1-12 µs through the slots; from 512 KiB the single copy wins
     * (docs/PERFORMANCE.md). So there, only from {@link #ROOTED_DIRECT_MIN_OVERSUBSCRIBED}.
     */
    private boolean rootedDirect(final long bytes)
    {
        return bytes >= ROOTED_DIRECT_MIN_OVERSUBSCRIBED || !ctx.progress().oversubscribed();
    }

    /** A direct root's end of a one-round operation: done itself, then wait until every reader is. */
    private void finishDirect(final long g)
    {
        store(DONE_OFFSET, g);
        awaitAll(DONE_OFFSET, g);
    }

    /**
     * Where member r's data lies here if it named its shared heap for this round (mapped until
     * {@link #releaseSource}); -1 if in its slot.
     */
    private long sourceAddress(final int r, final long g)
    {
        final long source = buffer.getLong(word(r, ShmLargeDescriptor.sourceOffset(g)));
        if (source == 0)
        {
            return -1;
        }
        if (r == me)
        {
            // This member's own buffer, where it lies here.
            return ownSource;
        }
        peer = ctx.heap().openPeer(world[r], source - 1);
        singleCopies++;
        return peer.address() + buffer.getLong(word(r, ShmLargeDescriptor.positionOffset(g)));
    }

    private void releaseSource()
    {
        if (peer != null)
        {
            ctx.heap().releasePeer(peer);
            peer = null;
        }
    }

    private org.shmpi.shm.segment.Segment peer;
    private long singleCopies;
    /** Where this member's data lies when {@link #publishSource} named its heap; -1 otherwise. */
    private long ownSource = -1;

    private long slot(final int rank, final long g)
    {
        return address + ShmLargeDescriptor.BLOCKS_OFFSET + rank * stride
            + ShmLargeDescriptor.slotOffset(g, chunkBytes);
    }

    private int word(final int rank, final int which)
    {
        return (int)(ShmLargeDescriptor.BLOCKS_OFFSET + rank * stride + which);
    }

    private void store(final int which, final long g)
    {
        buffer.putLongRelease(word(me, which), g);
        ctx.wakeups().wakeRanks(world);
    }

    private void awaitAll(final int which, final long g)
    {
        waitWord = which;
        waitFor = g;
        if (!allReached())
        {
            ctx.progress().awaitShared(allReached, BlockedCall.BARRIER);
        }
    }

    private void awaitRank(final int rank, final int which, final long g)
    {
        waitWord = which;
        waitFor = g;
        waitRank = rank;
        if (!rankReached())
        {
            ctx.progress().awaitShared(rankReached, BlockedCall.BARRIER);
        }
    }

    /** Before packing into the slots of round g: round g - 2 is finished everywhere. */
    private void awaitAllDone(final long g)
    {
        if (g > 2)
        {
            awaitAll(DONE_OFFSET, g - 2);
        }
    }

    private boolean allReached()
    {
        for (int r = 0; r < n; r++)
        {
            if (buffer.getLongVolatile(word(r, waitWord)) < waitFor)
            {
                return false;
            }
        }
        return true;
    }

    private boolean rankReached()
    {
        return buffer.getLongVolatile(word(waitRank, waitWord)) >= waitFor;
    }
}
