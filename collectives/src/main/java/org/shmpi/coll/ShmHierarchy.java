package org.shmpi.coll;

import static org.shmpi.coll.ShmCollectiveDescriptor.INLINE_OFFSET;
import static org.shmpi.coll.ShmCollectiveDescriptor.INLINE_PAYLOAD;

import java.util.function.BooleanSupplier;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.BlockedCall;

/**
 * The NUMA-hierarchical barrier, allreduce, reduce and bcast of {@link ShmCollectives}, for a
 * communicator whose members form two or more groups (NUMA nodes, or L3 domains;
 * {@link MemberGroups}). Three stages, each flat over shared memory: the members of a group
 * publish in their own blocks and the group's leader (its lowest rank) waits for them and, for
 * payloads of {@link ShmCollectiveDescriptor#INLINE_PAYLOAD} bytes or less, copies them into its
 * gather area; the leaders read each other's gather lines (and areas); each leader releases its
 * group through its release line, which carries the result inline or points to its result
 * slot. Only leaders read across groups, and a member polls one line of its own group instead
 * of n.
 *
 * <p>Reductions keep the one order of {@link ReductionOrder}: the leader that combines (every
 * leader for allreduce, the root's leader for reduce) copies all n contributions into local
 * scratch in global rank order (from the gather areas, or from the members' data slots for
 * larger payloads, which are read in place rather than copied twice) and evaluates the same
 * tree the flat algorithm evaluates on every member. The result is therefore the same bits as
 * the flat path's, computed once per group instead of once per member; nothing is pre-reduced
 * in a different association.
 *
 * <p>Reuse of parity-p payload space for operation k needs its readers of operation k - 2 to be
 * done ({@link ShmCollectiveDescriptor}): a member's inline payload is read by its leader, a
 * leader's gather area by the leaders, its release payload and result slot by its group, and a
 * member's data slot or a broadcast root's payload by the leaders. Each writer waits for the
 * done words of those readers only, and not at all when it already knows they are done: a
 * barrier or allreduce that completed at k - 1 shows that every member finished k - 2, a group
 * gathered at k - 1 that its members did, a release at k - 1 that the leader did. After a flat
 * operation (gather, scatter, allgather, alltoall: read by everybody) the next writes wait for
 * every member once.
 *
 * <p>Those shortcuts hold because every operation on a hierarchical communicator's segment is
 * blocking and runs in the same order on every member: its nonblocking and persistent
 * collectives take the point-to-point schedules ({@link ShmCollectives#hierarchical}). So a
 * member starts operation k only after it stored done for k - 1, its seq words only grow, and a
 * done word of parity p at {@code >= j} (the one of j's parity, {@link
 * ShmCollectiveDescriptor#doneOffset}) shows that the member finished every operation up to j.
 *
 * <p>One instance per communicator and member, driven by its {@link ShmCollectives}, which
 * counts the operations and stores the done words.
 */
final class ShmHierarchy
{
    private final RankContext ctx;
    private final AtomicBuffer buffer;
    private final int[] world;
    private final int me;
    private final int n;
    private final int dataBytes;
    private final int stride;
    private final int gatherBytes;
    private final int leaderStride;
    private final int leadersOffset;
    private final MemberGroups groups;
    private final int myGroup;
    private final int myLeader;
    private final boolean leader;
    /** Comm ranks: every member, my group's members, each group's leader. */
    private final int[] everyone;
    private final int[] myMembers;
    private final int[] leaders;
    /** World ranks, for waking: my group's members, the leaders. */
    private final int[] groupWorld;
    private final int[] leadersWorld;
    private final ScratchFold scratch = new ScratchFold();

    // What this member knows is finished (done stored, or implied by a later arrival): every
    // member's operations up to allFinished, every leader's up to leadersFinished, its group's
    // (a leader) up to groupFinished, its leader's up to leaderFinished.
    private long allFinished;
    private long leadersFinished;
    private long groupFinished;
    private long leaderFinished;
    /** The last flat operation: its payloads are read by every member. */
    private long lastFlat;
    /** The last operation in which leaders other than this member's own read its payload. */
    private long lastWide;

    // The conditions waited for, as fields so that waiting allocates nothing.
    private long waitFor;
    private int waitRank;
    private int[] waitRanks;
    private final BooleanSupplier ranksArrived = this::ranksArrived;
    private final BooleanSupplier ranksDone = this::ranksDone;
    private final BooleanSupplier leadersGathered = this::leadersGathered;
    private final BooleanSupplier released = this::released;

    ShmHierarchy(final RankContext ctx, final AtomicBuffer buffer, final int[] world, final int me,
        final int dataBytes, final MemberGroups groups)
    {
        this.ctx = ctx;
        this.buffer = buffer;
        this.world = world;
        this.me = me;
        this.n = world.length;
        this.dataBytes = dataBytes;
        this.stride = ShmCollectiveDescriptor.stride(dataBytes);
        this.gatherBytes = ShmCollectiveDescriptor.gatherBytes(groups.maxSize);
        this.leaderStride = ShmCollectiveDescriptor.leaderStride(dataBytes, gatherBytes);
        this.leadersOffset = (int)ShmCollectiveDescriptor.leaderOffset(0, n, dataBytes, gatherBytes);
        this.groups = groups;
        this.myGroup = groups.groupOf[me];
        this.myLeader = groups.leader(myGroup);
        this.leader = myLeader == me;
        this.everyone = new int[n];
        for (int r = 0; r < n; r++)
        {
            everyone[r] = r;
        }
        this.myMembers = groups.members[myGroup];
        this.leaders = new int[groups.count()];
        this.leadersWorld = new int[groups.count()];
        for (int g = 0; g < leaders.length; g++)
        {
            leaders[g] = groups.leader(g);
            leadersWorld[g] = world[leaders[g]];
        }
        this.groupWorld = new int[myMembers.length];
        for (int i = 0; i < myMembers.length; i++)
        {
            groupWorld[i] = world[myMembers[i]];
        }
    }

    /** Operation k was a flat one: every member may have read this member's payload. */
    void flatOperation(final long k)
    {
        lastFlat = k;
    }

    /** Barrier, operation k: members to their leader, leaders among themselves, leaders to their members. */
    void barrier(final long k)
    {
        // A seq word only grows: no reader to wait for. Release: pairs with the leader's acquire.
        buffer.putLongRelease(flag(me, k), k);
        if (!leader)
        {
            ctx.wakeups().wakeRank(world[myLeader]);
            awaitReleased(k);
        }
        else
        {
            awaitGroupArrived(k);
            publishGather(k, 0, false);
            ctx.wakeups().wakeRanks(leadersWorld);
            awaitLeadersGathered(k);
            publishRelease(k);
            ctx.wakeups().wakeRanks(groupWorld);
        }
        everyoneFinished(k - 1);
    }

    /**
     * Allreduce, operation k: the group's payloads go to its leader, every leader combines all n
     * in the order of {@link ReductionOrder} and hands the result to its group.
     */
    void allreduce(final long k, final byte[] data, final int bytes, final int items, final Reducer reducer,
        final byte[] out)
    {
        final boolean inline = bytes <= INLINE_PAYLOAD;
        awaitReaders(k, true, leader && inline, leader);
        publishMember(k, data, bytes);
        if (!leader)
        {
            ctx.wakeups().wakeRank(world[myLeader]);
            awaitReleased(k);
            copyResult(k, bytes, out);
        }
        else
        {
            awaitGroupArrived(k);
            publishGather(k, bytes, inline);
            ctx.wakeups().wakeRanks(leadersWorld);
            awaitLeadersGathered(k);
            final int at = collectAndFold(k, bytes, items, reducer, inline);
            final byte[] acc = scratch.scratch(0);
            System.arraycopy(acc, at, out, 0, bytes);
            publishResult(k, acc, at, bytes);
            ctx.wakeups().wakeRanks(groupWorld);
        }
        everyoneFinished(k - 1);
    }

    /**
     * Reduce to {@code root}, operation k: as allreduce, but only the root's leader waits for the
     * other leaders and combines; it hands the result to the root unless it is the root.
     */
    void reduce(final long k, final int root, final byte[] data, final int bytes, final int items,
        final Reducer reducer, final byte[] out)
    {
        final boolean inline = bytes <= INLINE_PAYLOAD;
        final int rootLeader = groups.leader(groups.groupOf[root]);
        final boolean combines = me == rootLeader;
        awaitReaders(k, true, leader && inline, combines && root != me);
        publishMember(k, data, bytes);
        if (!leader)
        {
            ctx.wakeups().wakeRank(world[myLeader]);
            if (me == root)
            {
                awaitReleased(k);
                copyResult(k, bytes, out);
            }
            return;
        }
        awaitGroupArrived(k);
        publishGather(k, bytes, inline);
        if (!combines)
        {
            ctx.wakeups().wakeRank(world[rootLeader]);
            return;
        }
        awaitLeadersGathered(k);
        everyoneFinished(k - 1);
        final int at = collectAndFold(k, bytes, items, reducer, inline);
        final byte[] acc = scratch.scratch(0);
        if (me == root)
        {
            System.arraycopy(acc, at, out, 0, bytes);
        }
        else
        {
            publishResult(k, acc, at, bytes);
            ctx.wakeups().wakeRank(world[root]);
        }
    }

    /**
     * Broadcast from {@code root}, operation k: every leader copies the root's payload into its
     * own release line or result slot, and its group reads it there.
     */
    void bcast(final long k, final int root, final byte[] buf, final int bytes)
    {
        final boolean inline = bytes <= INLINE_PAYLOAD;
        if (me == root)
        {
            awaitReaders(k, true, false, leader);
            publishMember(k, buf, bytes);
            lastWide = k;
            ctx.wakeups().wakeRanks(leadersWorld);
        }
        if (leader)
        {
            if (me != root)
            {
                awaitReaders(k, false, false, true);
            }
            awaitArrived(root, k);
            final int from = payload(root, k, bytes);
            final int release = release(myGroup, k);
            buffer.putBytes(inline ? release + INLINE_OFFSET : result(myGroup, k), buffer, from, bytes);
            // Release: a member that sees release seq = k sees the copy.
            buffer.putLongRelease(release, k);
            ctx.wakeups().wakeRanks(groupWorld);
            if (me != root)
            {
                buffer.getBytes(from, buf, 0, bytes);
            }
        }
        else if (me != root)
        {
            awaitReleased(k);
            copyResult(k, bytes, buf);
        }
    }

    // ------------------------------------------------------------------------------------------

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

    private int leaderBlock(final int group)
    {
        return leadersOffset + group * leaderStride;
    }

    private int gather(final int group, final long k)
    {
        return leaderBlock(group) + ShmCollectiveDescriptor.gatherOffset((int)k);
    }

    private int gatherArea(final int group, final long k)
    {
        return leaderBlock(group) + ShmCollectiveDescriptor.gatherAreaOffset((int)k, gatherBytes);
    }

    private int release(final int group, final long k)
    {
        return leaderBlock(group) + ShmCollectiveDescriptor.releaseOffset((int)k);
    }

    private int result(final int group, final long k)
    {
        return leaderBlock(group) + ShmCollectiveDescriptor.resultOffset((int)k, gatherBytes, dataBytes);
    }

    /** This member's contribution to operation k, in its flag line or its data slot, then its seq. */
    private void publishMember(final long k, final byte[] data, final int bytes)
    {
        if (bytes > dataBytes)
        {
            throw new IllegalArgumentException("message larger than the data slot: bytes=" + bytes + ", capacity=" +
                dataBytes);
        }
        if (bytes > INLINE_PAYLOAD)
        {
            // The leaders read the data slot in place.
            lastWide = k;
        }
        buffer.putBytes(payload(me, k, bytes), data, 0, bytes);
        // Release: a reader that sees seq = k sees the payload.
        buffer.putLongRelease(flag(me, k), k);
    }

    /**
     * Leader: its group's inline payloads (when {@code inline}) into its gather area in group
     * order, then its gather seq.
     */
    private void publishGather(final long k, final int bytes, final boolean inline)
    {
        if (inline)
        {
            final int area = gatherArea(myGroup, k);
            for (int i = 0; i < myMembers.length; i++)
            {
                buffer.putBytes(area + i * bytes, buffer, flag(myMembers[i], k) + INLINE_OFFSET, bytes);
            }
        }
        // Release: a leader that sees gather seq = k sees the area, and (through this leader's
        // acquire loads of its members' seqs) their data slots.
        buffer.putLongRelease(gather(myGroup, k), k);
    }

    /** Leader: the release seq alone (barrier). */
    private void publishRelease(final long k)
    {
        buffer.putLongRelease(release(myGroup, k), k);
    }

    /**
     * Leader: a result of {@code bytes} at {@code acc[at]} into its release line or result slot, then its
     * release seq.
     */
    private void publishResult(final long k, final byte[] acc, final int at, final int bytes)
    {
        final int release = release(myGroup, k);
        buffer.putBytes(bytes <= INLINE_PAYLOAD ? release + INLINE_OFFSET : result(myGroup, k), acc, at, bytes);
        // Release: a member that sees release seq = k sees the result.
        buffer.putLongRelease(release, k);
    }

    /** Member: the result its leader released for operation k. */
    private void copyResult(final long k, final int bytes, final byte[] out)
    {
        final int from = bytes <= INLINE_PAYLOAD ? release(myGroup, k) + INLINE_OFFSET : result(myGroup, k);
        buffer.getBytes(from, out, 0, bytes);
    }

    /**
     * Leader, once every group has gathered operation k: all n contributions into local scratch
     * in global rank order, combined there as {@link ReductionOrder} says; returns the offset of
     * the result in the scratch.
     */
    private int collectAndFold(final long k, final int bytes, final int items, final Reducer reducer,
        final boolean inline)
    {
        final byte[] acc = scratch.scratch(n * bytes);
        for (int g = 0; g < groups.members.length; g++)
        {
            final int[] m = groups.members[g];
            final int area = gatherArea(g, k);
            for (int i = 0; i < m.length; i++)
            {
                final int from = inline ? area + i * bytes : payload(m[i], k, bytes);
                buffer.getBytes(from, acc, m[i] * bytes, bytes);
            }
        }
        return scratch.fold(n, bytes, items, reducer);
    }

    /**
     * Before overwriting payload space of operation k's parity: waits until its readers of
     * operation k - 2 are done, unless already known. {@code member}: this member's inline
     * payload or data slot; {@code gatherArea}: its gather area (a leader); {@code releasePayload}:
     * its release line payload or result slot (a leader).
     */
    private void awaitReaders(final long k, final boolean member, final boolean gatherArea,
        final boolean releasePayload)
    {
        final long before = k - 2;
        if (before < 1)
        {
            return;
        }
        if (member)
        {
            final long flat = Math.min(lastFlat, before);
            if (flat > allFinished)
            {
                awaitDone(everyone, flat);
                everyoneFinished(flat);
            }
            if (!leader && leaderFinished < before)
            {
                awaitDone(myLeader, before);
                leaderFinished = before;
            }
            final long wide = Math.min(lastWide, before);
            if (wide > leadersFinished)
            {
                awaitDone(leaders, wide);
                leadersFinished = wide;
            }
        }
        if (gatherArea && leadersFinished < before)
        {
            awaitDone(leaders, before);
            leadersFinished = before;
        }
        if (releasePayload && groupFinished < before)
        {
            awaitDone(myMembers, before);
            groupFinished = before;
        }
    }

    /** Every member has finished operation {@code j}: so have the leaders, the group and the leader. */
    private void everyoneFinished(final long j)
    {
        allFinished = Math.max(allFinished, j);
        leadersFinished = Math.max(leadersFinished, j);
        groupFinished = Math.max(groupFinished, j);
        leaderFinished = Math.max(leaderFinished, j);
    }

    private void awaitGroupArrived(final long k)
    {
        waitFor = k;
        waitRanks = myMembers;
        if (!ranksArrived())
        {
            ctx.progress().awaitShared(ranksArrived, BlockedCall.BARRIER);
        }
        // Each member published operation k after finishing k - 1.
        groupFinished = Math.max(groupFinished, k - 1);
    }

    private void awaitArrived(final int rank, final long k)
    {
        waitFor = k;
        waitRanks = null;
        waitRank = rank;
        if (!ranksArrived())
        {
            ctx.progress().awaitShared(ranksArrived, BlockedCall.BARRIER);
        }
    }

    private void awaitLeadersGathered(final long k)
    {
        waitFor = k;
        if (!leadersGathered())
        {
            ctx.progress().awaitShared(leadersGathered, BlockedCall.BARRIER);
        }
        // Every leader gathered its whole group at k: every member finished k - 1.
        everyoneFinished(k - 1);
    }

    private void awaitReleased(final long k)
    {
        waitFor = k;
        if (!released())
        {
            ctx.progress().awaitShared(released, BlockedCall.BARRIER);
        }
        // The leader released k after finishing k - 1.
        leaderFinished = Math.max(leaderFinished, k - 1);
    }

    private void awaitDone(final int[] ranks, final long j)
    {
        waitFor = j;
        waitRanks = ranks;
        if (!ranksDone())
        {
            ctx.progress().awaitShared(ranksDone, BlockedCall.BARRIER);
        }
    }

    private void awaitDone(final int rank, final long j)
    {
        waitFor = j;
        waitRanks = null;
        waitRank = rank;
        if (!ranksDone())
        {
            ctx.progress().awaitShared(ranksDone, BlockedCall.BARRIER);
        }
    }

    /** Whether the seq of {@link #waitRanks} (or of {@link #waitRank} when null) has reached {@link #waitFor}. */
    private boolean ranksArrived()
    {
        final long k = waitFor;
        final int[] ranks = waitRanks;
        if (ranks == null)
        {
            return buffer.getLongVolatile(flag(waitRank, k)) >= k;
        }
        for (final int r : ranks)
        {
            if (buffer.getLongVolatile(flag(r, k)) < k)
            {
                return false;
            }
        }
        return true;
    }

    /** Whether the done word of {@link #waitRanks} (or of {@link #waitRank} when null) has reached {@link #waitFor}. */
    private boolean ranksDone()
    {
        final long j = waitFor;
        final int[] ranks = waitRanks;
        if (ranks == null)
        {
            return buffer.getLongVolatile(block(waitRank) + ShmCollectiveDescriptor.doneOffset(j)) >= j;
        }
        for (final int r : ranks)
        {
            if (buffer.getLongVolatile(block(r) + ShmCollectiveDescriptor.doneOffset(j)) < j)
            {
                return false;
            }
        }
        return true;
    }

    private boolean leadersGathered()
    {
        final long k = waitFor;
        for (int g = 0; g < leaders.length; g++)
        {
            if (buffer.getLongVolatile(gather(g, k)) < k)
            {
                return false;
            }
        }
        return true;
    }

    private boolean released()
    {
        final long k = waitFor;
        return buffer.getLongVolatile(release(myGroup, k)) >= k;
    }
}
