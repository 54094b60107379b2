package mpi;

import java.nio.ByteBuffer;
import java.util.BitSet;

import org.shmpi.coll.Schedule;
import org.shmpi.ring.ContextIds;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * How the members of a new communicator agree on its two context ids (point-to-point and
 * collective), written as {@link Schedule} steps so that blocking and nonblocking constructors
 * share it:
 * <ol>
 * <li>every member sends its free-id mask ({@link ContextIds#freeMask}) to the group's root,
 *     which ANDs them; with a {@link Bridge} (an inter-communicator: two groups), the two roots
 *     swap their ANDed masks and AND again, so both pick the same ids;</li>
 * <li>the root answers the two lowest ids free everywhere, or "none in this window", and all
 *     look again in a window twice as wide;</li>
 * <li>every member reserves both ids and reports whether it could (another thread of the
 *     process may have taken one since its mask); the roots combine the reports (across the
 *     bridge too) and answer keep, or release and start again.</li>
 * </ol>
 * The group's messages travel on {@code collContext} with tags of their own; the bridge's
 * on its own context and tag, in the same order on both roots.
 */
final class ContextAgreement
{
    /** The link between the roots of two groups that will share the new ids. */
    static final class Bridge
    {
        final int context;
        final int peer;
        final int tag;

        /**
         * Messages to and from world rank {@code peer} (the other group's root) on {@code context} with {@code tag}.
         */
        Bridge(final int context, final int peer, final int tag)
        {
            this.context = context;
            this.peer = peer;
            this.tag = tag;
        }
    }

    /**
     * Tags of the agreements on a collective context: four per agreement, from
     * {@code TAG_BASE + 4 * (sequence mod 2^16)}, so that a nonblocking agreement still in
     * progress and the next one on the same communicator never take each other's messages
     * (members run them in the same order, so their sequence numbers match).
     */
    private static final int TAG_BASE = 1 << 24;

    /** The first of the four tags of agreement number {@code sequence} on a communicator. */
    static int tags(final int sequence)
    {
        return TAG_BASE + 4 * (sequence & 0xFFFF);
    }

    /**
     * The tag set ({@link #tags}) of every blocking agreement: they never overlap on one
     * communicator, since each completes before its call returns.
     */
    static final int BLOCKING = 0xFFFF;

    /**
     * Runs an agreement among {@code group} (see the constructor) to completion on this thread,
     * recorded as MPI call {@code call} if it blocks; returns the two ids.
     */
    static int[] run(final int[] group, final int me, final int root, final int collContext, final int sequence,
        final Bridge bridge, final int call)
    {
        final ContextAgreement agreement = new ContextAgreement(MPI.context().contexts(), group, me, root,
            collContext, sequence, bridge);
        new Schedule(MPI.context(), "context agreement", agreement.first()).runToCompletion(call);
        return agreement.result();
    }

    private final ContextIds ids;
    private final int[] group;
    private final int me;
    private final int root;
    private final int collContext;
    private final Bridge bridge;
    private final int tagMask;
    private final int tagDecision;
    private final int tagReserved;
    private final int tagOutcome;

    private int words = 4;
    private long[] mask;
    private byte[][] received;
    private byte[] bridgeIn;
    private final byte[] decision = new byte[8];
    private final byte[] ok = new byte[1];
    private int a;
    private int b;
    private int[] result;
    private Schedule.Step then;

    /**
     * Agreement among the world ranks {@code group} (this process is {@code group[me]}), rooted
     * at {@code group[root]}, on {@code collContext} with the tags from {@link #tags}
     * {@code (sequence)}; {@code bridge} null for one group.
     */
    ContextAgreement(final ContextIds ids, final int[] group, final int me, final int root, final int collContext,
        final int sequence, final Bridge bridge)
    {
        this.tagMask = tags(sequence);
        this.tagDecision = tagMask + 1;
        this.tagReserved = tagMask + 2;
        this.tagOutcome = tagMask + 3;
        this.ids = ids;
        this.group = group;
        this.me = me;
        this.root = root;
        this.collContext = collContext;
        this.bridge = bridge;
    }

    /** The first step. */
    Schedule.Step first()
    {
        return this::offer;
    }

    /** Runs {@code next} after the ids are agreed on (in the same schedule), instead of finishing. */
    ContextAgreement then(final Schedule.Step next)
    {
        this.then = next;
        return this;
    }

    /** The two ids agreed on and reserved here, once the schedule has finished. */
    int[] result()
    {
        return result;
    }

    private Schedule.Step offer(final Schedule s)
    {
        mask = ids.freeMask(words);
        if (me == root)
        {
            received = new byte[group.length][];
            for (int r = 0; r < group.length; r++)
            {
                if (r != root)
                {
                    received[r] = new byte[8 * words];
                    s.recv(collContext, group[r], tagMask, received[r]);
                }
            }
            return this::combine;
        }
        s.send(collContext, group[root], tagMask, bytes(mask));
        s.recv(collContext, group[root], tagDecision, decision);
        return this::reserve;
    }

    private Schedule.Step combine(final Schedule s)
    {
        for (final byte[] theirs : received)
        {
            if (theirs != null)
            {
                and(mask, theirs);
            }
        }
        received = null;
        if (bridge == null)
        {
            return decide(s);
        }
        bridgeIn = new byte[8 * words];
        s.send(bridge.context, bridge.peer, bridge.tag, bytes(mask));
        s.recv(bridge.context, bridge.peer, bridge.tag, bridgeIn);
        return t ->
        {
            and(mask, bridgeIn);
            return decide(t);
        };
    }

    private Schedule.Step decide(final Schedule s)
    {
        final BitSet free = BitSet.valueOf(mask);
        final int x = free.nextSetBit(0);
        final int y = x < 0 ? -1 : free.nextSetBit(x + 1);
        ByteBuffer.wrap(decision).putInt(y < 0 ? -1 : x).putInt(y);
        for (int r = 0; r < group.length; r++)
        {
            if (r != root)
            {
                s.send(collContext, group[r], tagDecision, decision);
            }
        }
        return this::reserve;
    }

    private Schedule.Step reserve(final Schedule s)
    {
        final ByteBuffer d = ByteBuffer.wrap(decision);
        a = d.getInt();
        b = d.getInt();
        if (a < 0)
        {
            if (words * 64L > ContextIds.MAX_ID)
            {
                throw new ShmpiException(ErrorClass.ERR_INTERN, "no context id is free on all members: members=" +
                    group.length);
            }
            words *= 2;
            return offer(s);
        }
        boolean gotA = false;
        boolean gotB = false;
        try
        {
            ids.reserve(a);
            gotA = true;
            ids.reserve(b);
            gotB = true;
        }
        catch (final RuntimeException taken)
        {
            // Another thread of this process took one since the mask was read: all try again.
            if (gotA)
            {
                ids.release(a);
            }
        }
        ok[0] = (byte)(gotA && gotB ? 1 : 0);
        if (me == root)
        {
            received = new byte[group.length][];
            for (int r = 0; r < group.length; r++)
            {
                if (r != root)
                {
                    received[r] = new byte[1];
                    s.recv(collContext, group[r], tagReserved, received[r]);
                }
            }
            return this::collect;
        }
        final boolean mine = ok[0] == 1;
        s.send(collContext, group[root], tagReserved, new byte[] {ok[0]});
        s.recv(collContext, group[root], tagOutcome, ok);
        return t -> finish(t, mine);
    }

    private Schedule.Step collect(final Schedule s)
    {
        final boolean mine = ok[0] == 1;
        for (final byte[] theirs : received)
        {
            if (theirs != null)
            {
                ok[0] &= theirs[0];
            }
        }
        received = null;
        if (bridge == null)
        {
            return announce(s, mine);
        }
        bridgeIn = new byte[1];
        s.send(bridge.context, bridge.peer, bridge.tag, new byte[] {ok[0]});
        s.recv(bridge.context, bridge.peer, bridge.tag, bridgeIn);
        return t ->
        {
            ok[0] &= bridgeIn[0];
            return announce(t, mine);
        };
    }

    private Schedule.Step announce(final Schedule s, final boolean mine)
    {
        for (int r = 0; r < group.length; r++)
        {
            if (r != root)
            {
                s.send(collContext, group[r], tagOutcome, ok);
            }
        }
        return t -> finish(t, mine);
    }

    /** {@code mine}: whether this process reserved both ids. */
    private Schedule.Step finish(final Schedule s, final boolean mine)
    {
        if (ok[0] == 1)
        {
            result = new int[] {a, b};
            return then;
        }
        if (mine)
        {
            ids.release(a);
            ids.release(b);
        }
        return offer(s);
    }

    private static byte[] bytes(final long[] words)
    {
        final byte[] out = new byte[8 * words.length];
        ByteBuffer.wrap(out).asLongBuffer().put(words);
        return out;
    }

    private static void and(final long[] into, final byte[] other)
    {
        final java.nio.LongBuffer l = ByteBuffer.wrap(other).asLongBuffer();
        for (int i = 0; i < into.length; i++)
        {
            into[i] &= l.get(i);
        }
    }
}
