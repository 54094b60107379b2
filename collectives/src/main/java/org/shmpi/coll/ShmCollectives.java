package org.shmpi.coll;

import java.util.function.IntUnaryOperator;
import java.util.function.UnaryOperator;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * Collectives of small messages (blocking, and as steps of the nonblocking forms) through a
 * communicator's shared segment ({@link ShmCollectiveDescriptor}): instead of messages through
 * rings, every member writes its contribution and a sequence number into its own cache line (or
 * data slot) and reads the others' directly. An allreduce or a barrier is one write and n reads
 * per member, one cache-line transfer deep; every member combines the contributions itself in the
 * one order of {@link ReductionOrder}, so the result is the same bits on every member, from run to
 * run and as any other algorithm gives, for non-commutative ops too.
 *
 * <p>When the members form two or more groups (NUMA nodes or L3 domains, given to
 * {@link #attach(RankContext, int[], int, int, int, int[], Runnable)}), barrier,
 * allreduce, reduce and bcast run hierarchically instead ({@link ShmHierarchy}): within each
 * group, among the group leaders, then back within each group; the others stay flat. Such a
 * communicator runs only blocking operations here ({@link #hierarchical}).
 *
 * <p>Waiting spins, yields, then sleeps on the rank's wake word ({@code awaitShared}); every
 * write another member may wait on is followed by waking the members. A member that dies while
 * others wait ends the job through the abort word, which the wait loop checks.
 *
 * <p>This class is the operations: their set-up, and for each, blocking or as steps, who
 * publishes, whom it waits for and what it reads. It stores no shared word itself: the
 * operation numbers, this member's done and finished words, its seq and payload in flat
 * operations and the waits for the others' are {@link ShmMemberBlocks}'s; the seq and payload
 * of hierarchical operations and the leader blocks are {@link ShmHierarchy}'s.
 *
 * <p>One instance per communicator and member; not for concurrent use (MPI orders collectives).
 */
public final class ShmCollectives implements AutoCloseable
{
    private final SegmentManager manager;
    private final Segment segment;
    private final int me;
    private final int n;
    private final int dataBytes;
    /** This member's side of the protocol on the member blocks: every operation's numbers, seq, done and waits. */
    private final ShmMemberBlocks blocks;
    /** The hierarchical barrier, allreduce, reduce and bcast; null when flat (one group). */
    private final ShmHierarchy hierarchy;
    private final int groupCount;
    /** The barrier is member 0's release ({@link ShmMemberBlocks#releasedBarrier}) rather than flat. */
    private boolean releaseBarrier;

    private ShmCollectives(final RankContext ctx, final SegmentManager manager, final Segment segment,
        final AtomicBuffer buffer, final int[] world, final int me, final int dataBytes, final MemberGroups groups)
    {
        this.manager = manager;
        this.segment = segment;
        this.me = me;
        this.n = world.length;
        this.dataBytes = dataBytes;
        this.blocks = new ShmMemberBlocks(ctx, buffer, world, me, dataBytes);
        this.hierarchy = groups == null ? null : new ShmHierarchy(ctx, buffer, world, me, dataBytes, groups);
        this.groupCount = groups == null ? 0 : groups.count();
        this.releaseBarrier = CollectiveSettings.of(ctx.settings()).releaseBarrier(ctx.progress().oversubscribed());
    }

    /**
     * Sets up the shared state of a communicator of world ranks {@code world} (this process is
     * {@code world[me]}) on collective context {@code context}: member 0 creates the segment,
     * then all run {@code barrier} (a point-to-point barrier of the communicator, whose waits show
     * in status reports), then the others map it. Every member must call it at the same point
     * (its first shared-memory collective). Each member also maps every other member's inbox
     * now, while all are alive, so that waking a member never has to map a file that a member
     * leaving MPI has already removed.
     */
    public static ShmCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int dataBytes, final Runnable barrier)
    {
        return attach(ctx, world, me, context, dataBytes, null, barrier);
    }

    /**
     * As {@link #attach(RankContext, int[], int, int, int, Runnable)}, with the members
     * labelled by group: {@code groupLabels[r]} is member r's NUMA node (or L3 domain, or any
     * int; equal labels, one group), the same array on every member, or null. With two or more
     * groups, barrier, allreduce, reduce and bcast run hierarchically; the segment then holds a
     * leader block per group and the group map, which every member checks against its own.
     */
    public static ShmCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int dataBytes, final int[] groupLabels, final Runnable barrier)
    {
        return attach(ctx, world, me, context, dataBytes, groupLabels, UnaryOperator.identity(), x ->
        {
            barrier.run();
            return x;
        }, true);
    }

    /**
     * As {@link #attach(RankContext, int[], int, int, int, int[], Runnable)}, but the
     * members agree through {@code agree} (the largest of the members' values, e.g.
     * {@link Agreement#maxOf}) on whether the segment could be made and mapped everywhere; when
     * it could not (say /dev/shm is full) every member returns null, having left nothing
     * behind, and the communicator's collectives take the point-to-point schedules.
     */
    public static ShmCollectives attachOrNull(final RankContext ctx, final int[] world, final int me,
        final int context, final int dataBytes, final int[] groupLabels, final IntUnaryOperator agree)
    {
        return attach(ctx, world, me, context, dataBytes, groupLabels, UnaryOperator.identity(), agree, false);
    }

    /**
     * For tests: as above, with the algorithms reading and writing the segment through
     * {@code view} of its buffer (which may, say, count the lines they read).
     */
    static ShmCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int dataBytes, final int[] groupLabels, final UnaryOperator<AtomicBuffer> view,
        final Runnable barrier)
    {
        return attach(ctx, world, me, context, dataBytes, groupLabels, view, x ->
        {
            barrier.run();
            return x;
        }, true);
    }

    private static ShmCollectives attach(final RankContext ctx, final int[] world, final int me,
        final int context, final int dataBytes, final int[] groupLabels, final UnaryOperator<AtomicBuffer> view,
        final IntUnaryOperator agree, final boolean failuresThrow)
    {
        final MemberGroups groups = MemberGroups.of(groupLabels, world.length);
        final int groupCount = groups == null ? 0 : groups.count();
        final int gatherBytes = groups == null ? 0 : ShmCollectiveDescriptor.gatherBytes(groups.maxSize);
        final long length = ShmCollectiveDescriptor.payloadLength(world.length, dataBytes, groupCount, gatherBytes);
        final int map = groups == null ? 0 :
            (int)ShmCollectiveDescriptor.groupMapOffset(world.length, dataBytes, groupCount, gatherBytes);
        final Segment segment = SegmentHandshake.join(ctx, world, me, SegmentNames.collective(context, world[0]),
            length, b ->
            {
                b.putInt(ShmCollectiveDescriptor.RANKS_OFFSET, world.length);
                b.putInt(ShmCollectiveDescriptor.DATA_BYTES_OFFSET, dataBytes);
                b.putInt(ShmCollectiveDescriptor.GROUPS_OFFSET, groupCount);
                b.putInt(ShmCollectiveDescriptor.GATHER_BYTES_OFFSET, gatherBytes);
                for (int r = 0; groups != null && r < world.length; r++)
                {
                    b.putInt(map + 4 * r, groups.groupOf[r]);
                }
            },
            b -> mismatch(b, world.length, dataBytes, groupCount, gatherBytes, map, groups), agree, failuresThrow);
        return segment == null ? null :
            new ShmCollectives(ctx, ctx.segments(), segment, view.apply(segment.buffer()), world.clone(), me,
                dataBytes, groups);
    }

    /** What in the header {@code b} differs from this member's view; null when nothing does. */
    private static String mismatch(final AtomicBuffer b, final int ranks, final int dataBytes, final int groupCount,
        final int gatherBytes, final int map, final MemberGroups groups)
    {
        if (b.getInt(ShmCollectiveDescriptor.RANKS_OFFSET) != ranks ||
            b.getInt(ShmCollectiveDescriptor.DATA_BYTES_OFFSET) != dataBytes)
        {
            return "describes " + b.getInt(ShmCollectiveDescriptor.RANKS_OFFSET) + " ranks and data slots of " +
                b.getInt(ShmCollectiveDescriptor.DATA_BYTES_OFFSET) + " bytes, not " + ranks + " and " + dataBytes;
        }
        if (b.getInt(ShmCollectiveDescriptor.GROUPS_OFFSET) != groupCount ||
            b.getInt(ShmCollectiveDescriptor.GATHER_BYTES_OFFSET) != gatherBytes || !sameMap(b, map, groups))
        {
            return "describes other groups than this member's: groups=" +
                b.getInt(ShmCollectiveDescriptor.GROUPS_OFFSET) + " there, groups=" + groupCount + " " +
                (groups == null ? "" : groups.toString()) + " here";
        }
        return null;
    }

    private static boolean sameMap(final AtomicBuffer b, final int map, final MemberGroups groups)
    {
        for (int r = 0; groups != null && r < groups.groupOf.length; r++)
        {
            if (b.getInt(map + 4 * r) != groups.groupOf[r])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * For tests: the flat barrier as member 0's release or not, whatever the settings say; on
     * every member alike, before the first operation.
     */
    void releaseBarrier(final boolean release)
    {
        releaseBarrier = release;
    }

    /** The number of groups the hierarchical algorithms run over; 0 when they are flat. */
    public int groups()
    {
        return groupCount;
    }

    /**
     * Whether barrier, allreduce, reduce and bcast run hierarchically (two or more groups, as
     * decided at {@link #attach} alike on every member). Then the nonblocking forms
     * ({@code *Steps}) are not available and the caller runs its nonblocking and persistent
     * collectives point-to-point: every operation on this segment is then blocking and they run
     * in the same order on every member, which is what {@link ShmHierarchy}'s reuse shortcuts
     * rely on (a completed operation proving the readers of an earlier one done).
     */
    public boolean hierarchical()
    {
        return hierarchy != null;
    }

    /** The largest message (bytes per member) these algorithms carry. */
    public int capacity()
    {
        return dataBytes;
    }

    /** Barrier: each member announces its arrival and waits for all the others'. */
    public void barrier()
    {
        final long k = blocks.blockingOperation();
        if (hierarchy != null)
        {
            // No wait for operation k - 2 here: every operation of a hierarchical communicator
            // is blocking, so this member published k - 2 before, and seq words only grow.
            hierarchy.barrier(k);
            blocks.finish(k);
            return;
        }
        // While a nonblocking operation of this member is pending, operation k - 2 may not have
        // published yet, and its seq must not be overtaken: then the barrier waits for it too.
        // Otherwise every earlier operation of this member has published, and a barrier writes
        // no payload, so it needs no done word.
        if (blocks.stepsPending())
        {
            blocks.awaitAllDone(k);
        }
        if (releaseBarrier)
        {
            blocks.releasedBarrier(k);
            blocks.finish(k);
            return;
        }
        blocks.arrive(k);
        // Woken at once: a barrier has no local work between its wait and its finish, and
        // measured, deferring the fence here gained nothing (0.35 against 0.38 us at np 2).
        blocks.wakeAll();
        blocks.awaitAllArrived(k);
        blocks.finish(k);
    }

    /**
     * Allreduce of {@code bytes} packed bytes ({@code items} items) of {@code data} with
     * {@code reducer}; the result, combined in the order of {@link ReductionOrder}, lands in {@code out}
     * (which may be {@code data}).
     */
    public void allreduce(final byte[] data, final int bytes, final int items, final Reducer reducer,
        final byte[] out)
    {
        final long k = blocks.blockingOperation();
        if (hierarchy != null)
        {
            hierarchy.allreduce(k, data, bytes, items, reducer, out);
            blocks.finish(k);
            return;
        }
        blocks.awaitAllDone(k);
        blocks.publish(k, data, bytes);
        blocks.awaitAllArrivedWakingLater(k);
        blocks.fold(k, bytes, items, reducer, out);
        blocks.finish(k);
    }

    /** Reduce to {@code root}: the members publish, the root combines them into {@code out}. */
    public void reduce(final int root, final byte[] data, final int bytes, final int items, final Reducer reducer,
        final byte[] out)
    {
        final long k = blocks.blockingOperation();
        if (hierarchy != null)
        {
            hierarchy.reduce(k, root, data, bytes, items, reducer, out);
            blocks.finish(k);
            return;
        }
        blocks.awaitAllDone(k);
        if (me != root)
        {
            blocks.publish(k, data, bytes);
            blocks.finish(k);
            return;
        }
        // The root's own contribution is read from its own slot like the others'.
        blocks.publish(k, data, bytes);
        blocks.awaitAllArrived(k);
        blocks.fold(k, bytes, items, reducer, out);
        blocks.finish(k);
    }

    /** Broadcast of {@code bytes} bytes of {@code buf} from {@code root}. */
    public void bcast(final int root, final byte[] buf, final int bytes)
    {
        final long k = blocks.blockingOperation();
        if (hierarchy != null)
        {
            hierarchy.bcast(k, root, buf, bytes);
            blocks.finish(k);
            return;
        }
        if (me == root)
        {
            blocks.awaitAllDone(k);
            blocks.publish(k, buf, bytes);
            blocks.finish(k);
            return;
        }
        blocks.awaitArrived(root, k);
        blocks.copyOut(root, k, buf, 0, bytes);
        blocks.finish(k);
    }

    /** Allgather of {@code bytes} per member: member r's block lands at {@code out[r * bytes]}. */
    public void allgather(final byte[] block, final int bytes, final byte[] out)
    {
        final long k = blocks.blockingOperation();
        flatOperation(k);
        blocks.awaitAllDone(k);
        blocks.publish(k, block, bytes);
        blocks.awaitAllArrivedWakingLater(k);
        blocks.copyAllOut(k, bytes, out);
        blocks.finish(k);
    }

    /** Gather of {@code bytes} per member to {@code root}: member r's block at {@code out[r * bytes]} there. */
    public void gather(final int root, final byte[] block, final int bytes, final byte[] out)
    {
        final long k = blocks.blockingOperation();
        flatOperation(k);
        blocks.awaitAllDone(k);
        blocks.publish(k, block, bytes);
        if (me == root)
        {
            blocks.awaitAllArrived(k);
            blocks.copyAllOut(k, bytes, out);
        }
        blocks.finish(k);
    }

    /** Scatter from {@code root} of {@code all} ({@code bytes} per member, in rank order) into {@code out}. */
    public void scatter(final int root, final byte[] all, final int bytes, final byte[] out)
    {
        final long k = blocks.blockingOperation();
        flatOperation(k);
        final int total = n * bytes;
        if (me == root)
        {
            blocks.awaitAllDone(k);
            blocks.publish(k, all, total);
            System.arraycopy(all, me * bytes, out, 0, bytes);
            blocks.finish(k);
            return;
        }
        blocks.awaitArrived(root, k);
        blocks.copyOut(root, k, total, me * bytes, out, 0, bytes);
        blocks.finish(k);
    }

    /**
     * All-to-all of {@code bytes} per pair: block r of {@code send} goes to member r, block r of {@code out}
     * comes from it.
     */
    public void alltoall(final byte[] send, final int bytes, final byte[] out)
    {
        final long k = blocks.blockingOperation();
        flatOperation(k);
        final int total = n * bytes;
        blocks.awaitAllDone(k);
        blocks.publish(k, send, total);
        blocks.awaitAllArrivedWakingLater(k);
        for (int r = 0; r < n; r++)
        {
            blocks.copyOut(r, k, total, me * bytes, out, r * bytes, bytes);
        }
        blocks.finish(k);
    }

    /** Operation k runs flat while the hierarchy is on: every member may read this member's payload. */
    private void flatOperation(final long k)
    {
        if (hierarchy != null)
        {
            hierarchy.flatOperation(k);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Nonblocking forms: the same operations as schedule steps, each waiting on shared memory
    // through Schedule.await, so the progress engine advances them during any MPI call. The
    // operation number is taken when the steps are made, so they must be started in the order
    // made, the same on every member (MPI's rule for collectives). Flat communicators only: see
    // hierarchical().

    /** Waiting in the second step of {@link #steps}: for nobody, every member, or one member. */
    private static final int NOBODY = -2;
    private static final int EVERYONE = -1;

    /**
     * One operation k as steps: if it writes its parity's flag line, wait until every member has
     * finished operation k - 2; then {@code write} (and wake the members); then wait for
     * {@code waitOn}'s seq of operation k; then {@code read}, and store done.
     */
    private Collective steps(final long k, final boolean writesFlag, final Runnable write, final int waitOn,
        final Runnable read)
    {
        return new Collective()
        {
            @Override
            public Schedule.Step first()
            {
                if (writesFlag && !blocks.knownDoneBefore(k))
                {
                    return s ->
                    {
                        s.await(() -> blocks.allDoneAt(k - 2));
                        return this::second;
                    };
                }
                return this::second;
            }

            private Schedule.Step second(final Schedule s)
            {
                if (write != null)
                {
                    write.run();
                    blocks.wakeAll();
                }
                if (waitOn == EVERYONE)
                {
                    s.await(() -> blocks.allArrivedAt(k));
                }
                else if (waitOn >= 0)
                {
                    s.await(() -> blocks.arrivedAt(waitOn, k));
                }
                return this::third;
            }

            private Schedule.Step third(final Schedule s)
            {
                if (read != null)
                {
                    read.run();
                }
                blocks.finishSteps(k);
                return done(s);
            }
        };
    }

    /** The number of the next operation, made as steps: refused when {@link #hierarchical}. */
    private long stepsOperation()
    {
        if (hierarchy != null)
        {
            throw new IllegalStateException("no nonblocking shared-memory collectives on a hierarchical " +
                "communicator: groups=" + groupCount + ", ranks=" + n);
        }
        return blocks.stepsOperation();
    }

    /** {@link #barrier} as steps. */
    public Collective barrierSteps()
    {
        final long k = stepsOperation();
        return steps(k, true, () -> blocks.arrive(k), EVERYONE, null);
    }

    /** {@link #allreduce} as steps. */
    public Collective allreduceSteps(final byte[] data, final int bytes, final int items, final Reducer reducer,
        final byte[] out)
    {
        final long k = stepsOperation();
        return steps(k, true, () -> blocks.publish(k, data, bytes), EVERYONE,
            () -> blocks.fold(k, bytes, items, reducer, out));
    }

    /** {@link #reduce} as steps. */
    public Collective reduceSteps(final int root, final byte[] data, final int bytes, final int items,
        final Reducer reducer, final byte[] out)
    {
        final long k = stepsOperation();
        if (me != root)
        {
            return steps(k, true, () -> blocks.publish(k, data, bytes), NOBODY, null);
        }
        return steps(k, true, () -> blocks.publish(k, data, bytes), EVERYONE,
            () -> blocks.fold(k, bytes, items, reducer, out));
    }

    /** {@link #bcast} as steps. */
    public Collective bcastSteps(final int root, final byte[] buf, final int bytes)
    {
        final long k = stepsOperation();
        if (me == root)
        {
            return steps(k, true, () -> blocks.publish(k, buf, bytes), NOBODY, null);
        }
        return steps(k, false, null, root, () -> blocks.copyOut(root, k, buf, 0, bytes));
    }

    /** {@link #allgather} as steps. */
    public Collective allgatherSteps(final byte[] block, final int bytes, final byte[] out)
    {
        final long k = stepsOperation();
        return steps(k, true, () -> blocks.publish(k, block, bytes), EVERYONE, () -> blocks.copyAllOut(k, bytes, out));
    }

    /** {@link #gather} as steps. */
    public Collective gatherSteps(final int root, final byte[] block, final int bytes, final byte[] out)
    {
        final long k = stepsOperation();
        if (me != root)
        {
            return steps(k, true, () -> blocks.publish(k, block, bytes), NOBODY, null);
        }
        return steps(k, true, () -> blocks.publish(k, block, bytes), EVERYONE, () -> blocks.copyAllOut(k, bytes, out));
    }

    /** {@link #scatter} as steps. */
    public Collective scatterSteps(final int root, final byte[] all, final int bytes, final byte[] out)
    {
        final long k = stepsOperation();
        if (me == root)
        {
            return steps(k, true, () -> blocks.publish(k, all, n * bytes), NOBODY,
                () -> System.arraycopy(all, me * bytes, out, 0, bytes));
        }
        return steps(k, false, null, root, () -> blocks.copyOut(root, k, n * bytes, me * bytes, out, 0, bytes));
    }

    /** {@link #alltoall} as steps. */
    public Collective alltoallSteps(final byte[] send, final int bytes, final byte[] out)
    {
        final long k = stepsOperation();
        final int total = n * bytes;
        return steps(k, true, () -> blocks.publish(k, send, total), EVERYONE, () ->
        {
            for (int r = 0; r < n; r++)
            {
                blocks.copyOut(r, k, total, me * bytes, out, r * bytes, bytes);
            }
        });
    }

    /**
     * Unmaps the segment; member 0 also removes its file. The others forget their mapping (the
     * name comes back with the context id, for a new file).
     */
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
}
