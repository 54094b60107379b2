package org.shmpi.coll;

import static org.shmpi.coll.ShmCollectiveDescriptor.FINISHED_OFFSET;

import java.util.function.BooleanSupplier;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;

/**
 * One member's side of the protocol on the member blocks of a collective segment
 * ({@link ShmCollectiveDescriptor}), from which {@link ShmCollectives} builds its flat
 * operations: the operation numbers (and so the parities), publishing a payload and the seq,
 * storing done, the finished words and what they prove of the other members, the waits for the
 * others' words, and reading their payloads. Which member publishes, waits for whom and reads
 * what, that is each operation, is {@link ShmCollectives}'s.
 *
 * <p>The owner of this member's words in its block: it alone stores the done words (after every
 * operation, hierarchical ones too) and the flag lines' finished words, and the seq and payload
 * of flat operations; {@link ShmHierarchy} stores the seq and payload of hierarchical ones (and
 * the leader blocks). {@link ShmCollectives} stores no shared word itself.
 *
 * <p>One instance per {@link ShmCollectives}; not for concurrent use.
 */
final class ShmMemberBlocks
{
    private final RankContext ctx;
    private final AtomicBuffer buffer;
    private final int[] world;
    private final int me;
    private final int n;
    private final int dataBytes;
    private final int stride;
    /** Nonblocking operations made as steps and not finished yet (the barrier's concern). */
    private int pendingSteps;
    /** Operations run so far; operation k uses parity {@code k & 1}. */
    private long ops;
    /** The blocking operation under way (0: none); steps of earlier ones may finish meanwhile. */
    private long blockingOp;
    /** Every operation up to this one is finished here: the finished word this member publishes. */
    private long finishedThrough;
    /**
     * Every member has finished every operation up to this one, as read from the finished words
     * of the flag lines of an operation this member saw all members arrive at.
     */
    private long knownFinished;
    /** Scratch of {@link #fold} (every member's contribution). */
    private final ScratchFold scratch = new ScratchFold();

    // The conditions waited for, as fields so that waiting allocates nothing.
    private long waitFor;
    private int waitRank;
    private final BooleanSupplier allArrived = this::allArrived;
    private final BooleanSupplier rankArrived = this::rankArrived;
    private final BooleanSupplier allDone = this::allDone;
    private final BooleanSupplier othersArrived = this::othersArrived;

    /**
     * The blocks of the members {@code world} (world ranks; this process is {@code world[me]}),
     * with data slots of {@code dataBytes}, in {@code buffer} (the segment's, or a test's view of it).
     */
    ShmMemberBlocks(final RankContext ctx, final AtomicBuffer buffer, final int[] world, final int me,
        final int dataBytes)
    {
        this.ctx = ctx;
        this.buffer = buffer;
        this.world = world;
        this.me = me;
        this.n = world.length;
        this.dataBytes = dataBytes;
        this.stride = ShmCollectiveDescriptor.stride(dataBytes);
    }

    /** The number of the next operation, run blocking now. */
    long blockingOperation()
    {
        blockingOp = ops + 1;
        return ++ops;
    }

    /** The number of the next operation, made as steps: pending until {@link #finishSteps}. */
    long stepsOperation()
    {
        pendingSteps++;
        return ++ops;
    }

    /** Whether an operation made as steps is not finished yet. */
    boolean stepsPending()
    {
        return pendingSteps > 0;
    }

    // ------------------------------------------------------------------------------------------
    // Writing this member's block.

    void publish(final long k, final byte[] data, final int bytes)
    {
        if (bytes > dataBytes)
        {
            throw new IllegalArgumentException("message larger than the data slot: bytes=" + bytes + ", capacity=" +
                dataBytes);
        }
        buffer.putBytes(payload(me, k, bytes), data, 0, bytes);
        arrive(k);
    }

    /**
     * The barrier as member 0's release: the others store their seq and wait for member 0's;
     * member 0 waits for all of theirs, then stores its own, with the smallest finished word of
     * all as its finished word (so the others learn it from that one line). Member 0 leaves
     * first, which is what a rooted operation after a barrier wants when the ranks outnumber
     * the cores (docs/collectives.md).
     */
    void releasedBarrier(final long k)
    {
        waitFor = k;
        if (me != 0)
        {
            arrive(k);
            wakeAll();
            waitRank = 0;
            if (!rankArrived())
            {
                ctx.progress().awaitShared(rankArrived, BlockedCall.BARRIER);
            }
            learn(buffer.getLong(flag(0, k) + FINISHED_OFFSET));
            return;
        }
        if (!othersArrived())
        {
            ctx.progress().awaitShared(othersArrived, BlockedCall.BARRIER);
        }
        final long least = Math.min(finishedThrough, othersFinished(k));
        arrive(k, least);
        learn(least);
        wakeAll();
    }

    /** Stores this member's finished word and seq = k in its flag line of operation k. */
    void arrive(final long k)
    {
        arrive(k, finishedThrough);
    }

    /** Stores {@code finished} as this member's finished word and seq = k in its flag line of operation k. */
    private void arrive(final long k, final long finished)
    {
        final int flag = flag(me, k);
        buffer.putLong(flag + FINISHED_OFFSET, finished);
        // Release: a member that sees seq = k sees the payload and the finished word.
        buffer.putLongRelease(flag, k);
    }

    /** This member is done reading operation k: it may be overwritten two operations later. */
    void finish(final long k)
    {
        buffer.putLongRelease(block(me) + ShmCollectiveDescriptor.doneOffset(k), k);
        if (k == blockingOp)
        {
            blockingOp = 0;
            if (pendingSteps == 0)
            {
                finishedThrough = k;
            }
        }
        wakeAll();
    }

    /** {@link #finish} of operation k made as steps: it is no longer pending. */
    void finishSteps(final long k)
    {
        finish(k);
        pendingSteps--;
        if (pendingSteps == 0 && blockingOp == 0)
        {
            finishedThrough = ops;
        }
    }

    void wakeAll()
    {
        ctx.wakeups().wakeRanks(world);
    }

    // ------------------------------------------------------------------------------------------
    // What the finished words prove.

    /**
     * After every member's seq of operation k was seen: the smallest finished word of their
     * flag lines is an operation every member has finished.
     */
    private void learnFinished(final long k)
    {
        learn(Math.min(othersFinished(k), buffer.getLong(flag(me, k) + FINISHED_OFFSET)));
    }

    /** The smallest finished word in the other members' flag lines of operation k (all seen at k). */
    private long othersFinished(final long k)
    {
        long least = Long.MAX_VALUE;
        for (int r = 0; r < n; r++)
        {
            if (r != me)
            {
                least = Math.min(least, buffer.getLong(flag(r, k) + FINISHED_OFFSET));
            }
        }
        return least;
    }

    /** Every member is known to have finished every operation up to {@code least}. */
    private void learn(final long least)
    {
        if (least > knownFinished)
        {
            knownFinished = least;
        }
    }

    /**
     * Whether the parity of operation k may be written without waiting: there is no operation
     * k - 2, or every member is known to have finished it.
     */
    boolean knownDoneBefore(final long k)
    {
        return k <= 2 || knownFinished >= k - 2;
    }

    // ------------------------------------------------------------------------------------------
    // Reading the others' blocks.

    void copyOut(final int rank, final long k, final byte[] into, final int offset, final int bytes)
    {
        copyOut(rank, k, bytes, 0, into, offset, bytes);
    }

    /**
     * Copies {@code bytes} bytes from {@code from} bytes into {@code rank}'s payload of operation
     * k, which is {@code published} bytes long (that decides where it lies: inline or in the data slot).
     */
    void copyOut(final int rank, final long k, final int published, final int from, final byte[] into,
        final int offset, final int bytes)
    {
        buffer.getBytes(payload(rank, k, published) + from, into, offset, bytes);
    }

    /** Every member's {@code bytes} of operation k, in rank order, into {@code out}. */
    void copyAllOut(final long k, final int bytes, final byte[] out)
    {
        for (int r = 0; r < n; r++)
        {
            copyOut(r, k, bytes, 0, out, r * bytes, bytes);
        }
    }

    /**
     * Every member's contribution combined in the order of {@link ReductionOrder} (the one every
     * algorithm uses) into {@code out}: all n are copied into local scratch, then the tree is
     * evaluated there in place.
     */
    void fold(final long k, final int bytes, final int items, final Reducer reducer, final byte[] out)
    {
        final byte[] a = scratch.scratch(n * bytes);
        for (int r = 0; r < n; r++)
        {
            copyOut(r, k, a, r * bytes, bytes);
        }
        System.arraycopy(a, scratch.fold(n, bytes, items, reducer), out, 0, bytes);
    }

    // ------------------------------------------------------------------------------------------
    // Waiting for the others' words.

    /**
     * After this member published operation k without waking anyone: waits until every member
     * has arrived at k. The wake (a full fence, then a load of each member's wake word) is left
     * to the caller's {@link #finish}, which must follow after local work only, when the others
     * arrive while this member still spins; it comes before blocking otherwise. A fence right
     * after the seq store would stall until that store owns its line again, a cache-line
     * transfer on the path before this member even starts reading the others' lines; one fence
     * after both stores costs less. A member sleeping on this seq is still woken before this
     * one can block or return.
     */
    void awaitAllArrivedWakingLater(final long k)
    {
        waitFor = k;
        for (int i = ctx.progress().sharedSpins(); i > 0; i--)
        {
            if (allArrived())
            {
                return;
            }
            Thread.onSpinWait();
        }
        wakeAll();
        if (!allArrived())
        {
            ctx.progress().awaitShared(allArrived, BlockedCall.BARRIER);
        }
    }

    void awaitAllArrived(final long k)
    {
        waitFor = k;
        if (!allArrived())
        {
            ctx.progress().awaitShared(allArrived, BlockedCall.BARRIER);
        }
    }

    /** Waits until {@code rank} has arrived at operation k. */
    void awaitArrived(final int rank, final long k)
    {
        waitFor = k;
        waitRank = rank;
        if (!rankArrived())
        {
            ctx.progress().awaitShared(rankArrived, BlockedCall.BARRIER);
        }
    }

    /** Before writing the parity of operation k: the operation two before is finished everywhere. */
    void awaitAllDone(final long k)
    {
        if (knownDoneBefore(k))
        {
            return;
        }
        waitFor = k - 2;
        if (!allDone())
        {
            ctx.progress().awaitShared(allDone, BlockedCall.BARRIER);
        }
    }

    boolean allArrivedAt(final long k)
    {
        for (int r = 0; r < n; r++)
        {
            if (buffer.getLongVolatile(flag(r, k)) < k)
            {
                return false;
            }
        }
        learnFinished(k);
        return true;
    }

    /** Whether {@code rank} has arrived at operation k. */
    boolean arrivedAt(final int rank, final long k)
    {
        return buffer.getLongVolatile(flag(rank, k)) >= k;
    }

    boolean allDoneAt(final long k)
    {
        for (int r = 0; r < n; r++)
        {
            if (buffer.getLongVolatile(block(r) + ShmCollectiveDescriptor.doneOffset(k)) < k)
            {
                return false;
            }
        }
        return true;
    }

    private boolean allArrived()
    {
        return allArrivedAt(waitFor);
    }

    private boolean rankArrived()
    {
        return buffer.getLongVolatile(flag(waitRank, waitFor)) >= waitFor;
    }

    private boolean allDone()
    {
        final long k = waitFor;
        for (int r = 0; r < n; r++)
        {
            if (buffer.getLongVolatile(block(r) + ShmCollectiveDescriptor.doneOffset(k)) < k)
            {
                return false;
            }
        }
        return true;
    }

    private boolean othersArrived()
    {
        final long k = waitFor;
        for (int r = 0; r < n; r++)
        {
            if (r != me && buffer.getLongVolatile(flag(r, k)) < k)
            {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------
    // Where the words lie.

    private int block(final int rank)
    {
        return ShmCollectiveDescriptor.blockAt(stride, rank);
    }

    private int flag(final int rank, final long k)
    {
        return ShmCollectiveDescriptor.flagAt(stride, rank, k);
    }

    private int payload(final int rank, final long k, final int bytes)
    {
        return ShmCollectiveDescriptor.payloadAt(stride, dataBytes, rank, k, bytes);
    }
}
