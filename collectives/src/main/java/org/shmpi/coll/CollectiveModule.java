package org.shmpi.coll;

import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

import org.shmpi.ring.RankContext;

/**
 * The collectives of one communicator, chosen when the communicator is made (as Open MPI's
 * {@code coll} framework selects a module per communicator): which operations may take shared
 * memory (from the settings, once), the shared-memory state they use (set up by the first
 * blocking collective that needs it, alike on every member, and closed with the communicator),
 * and the sequence that gives every operation its own tag on the collective context.
 *
 * <p>Every member makes the same choices from the same settings, operation, size and sequence,
 * so a decision here never needs a message.
 */
public final class CollectiveModule implements AutoCloseable
{
    /** Tags of collective operations on the collective context start here, 1024 per operation. */
    private static final int COLL_TAG_BASE = 1 << 27;

    private final RankContext ctx;
    private final int[] world;
    private final int me;
    private final int context;
    private final CollectiveSettings settings;
    /**
     * Intra-communicator of two or more members on one machine: the shared-memory algorithms may
     * apply (members on several machines run point-to-point schedules).
     */
    private final boolean sharedMemory;
    /** Per operation (by ordinal): whether its setting lets it take shared memory. */
    private final boolean[] shmAllowed = new boolean[CollectiveOp.values().length];
    private final Supplier<int[]> groupLabels;
    private int sequence;
    private ShmCollectives shm;
    private ShmLargeCollectives shmLarge;
    /** Setting up the small (large) shared state failed on some member: point-to-point from then on. */
    private boolean shmUnavailable;
    private boolean shmLargeUnavailable;
    /** Packed data of the running blocking small collective (one at a time per communicator), reused. */
    private byte[] blockingIn;
    private byte[] blockingOut;

    /**
     * The module of a communicator whose members are the world ranks {@code world}, this rank
     * being {@code world[me]}, with collective context id {@code context}. {@code intra}: an
     * intra-communicator (an inter-communicator's collectives run point-to-point).
     * {@code groupLabels} gives the members' groups for the hierarchical algorithms when the
     * small shared state is set up (a collective over the communicator; null result: one group).
     */
    public CollectiveModule(
        final RankContext ctx, final int[] world, final int me, final int context, final boolean intra,
        final Supplier<int[]> groupLabels)
    {
        this.ctx = ctx;
        this.world = world;
        this.me = me;
        this.context = context;
        this.settings = CollectiveSettings.of(ctx.settings());
        this.sharedMemory = intra && world.length >= 2 && onOneNode(ctx, world);
        this.groupLabels = groupLabels;
        for (final CollectiveOp op : CollectiveOp.values())
        {
            shmAllowed[op.ordinal()] = sharedMemory
                && !CollectiveSettings.P2P.equals(settings.algorithm(op.settingName()));
        }
    }

    /**
     * Whether every member is a rank of this job on one machine (only then can they share a
     * segment in the job's directory; a process of another job has an id beyond the world).
     */
    static boolean onOneNode(final RankContext ctx, final int[] world)
    {
        if (world[0] >= ctx.worldSize())
        {
            return false;
        }
        final int first = ctx.job().node(world[0]);
        for (final int r : world)
        {
            if (r >= ctx.worldSize() || ctx.job().node(r) != first)
            {
                return false;
            }
        }
        return true;
    }

    /** The settings the choices come from. */
    public CollectiveSettings settings()
    {
        return settings;
    }

    /**
     * The members of the next collective operation, on the collective context with a tag of its
     * own, so that operations in progress at once never take each other's messages (MPI has
     * every member start them in the same order).
     */
    public Members nextMembers()
    {
        final int s;
        synchronized (this)
        {
            s = sequence++;
        }
        return new Members(ctx, world, me, context, COLL_TAG_BASE + 1024 * (s & 0xFFFF));
    }

    /**
     * The small-message shared-memory collectives if a blocking {@code op} of {@code bytes} per
     * member takes them, set up now on first use (on every member together); null otherwise.
     */
    public ShmCollectives shmFor(final CollectiveOp op, final long bytes)
    {
        if (!shmAllowed[op.ordinal()] || bytes > settings.dataBytes())
        {
            return null;
        }
        ShmCollectives s = shm;
        if (s == null && !shmUnavailable)
        {
            s = ShmCollectives.attachOrNull(ctx, world, me, context, settings.dataBytes(), groupLabels.get(),
                agreement());
            shmUnavailable = s == null;
            shm = s;
        }
        return s;
    }

    /**
     * The small-message shared-memory collectives for a nonblocking {@code op} if they apply and
     * are already set up; null otherwise. A nonblocking call must not wait for the other members,
     * so it never sets them up: the first blocking collective that uses them, or a persistent
     * collective's initialisation, does. Null too when they are hierarchical: nonblocking and
     * persistent collectives then take the point-to-point schedules, and only blocking ones, in
     * order, use the shared segment.
     */
    public ShmCollectives shmIfSetUp(final CollectiveOp op, final long bytes)
    {
        final ShmCollectives s = shm;
        if (s == null || s.hierarchical() || !shmAllowed[op.ordinal()] || bytes > settings.dataBytes())
        {
            return null;
        }
        return s;
    }

    /**
     * The large-message shared-memory collectives if a blocking {@code op} of {@code bytes} per
     * member (more than the small data slot) takes them, set up now on first use; null otherwise.
     */
    public ShmLargeCollectives shmLargeFor(final CollectiveOp op, final long bytes)
    {
        if (!shmAllowed[op.ordinal()] || bytes <= settings.dataBytes())
        {
            return null;
        }
        ShmLargeCollectives s = shmLarge;
        if (s == null && !shmLargeUnavailable)
        {
            s = ShmLargeCollectives.attachOrNull(ctx, world, me, context, settings.chunkBytes(world.length),
                agreement());
            shmLargeUnavailable = s == null;
            shmLarge = s;
        }
        return s;
    }

    /** The chunk of the large-message collectives on this communicator. */
    public int chunkBytes()
    {
        return settings.chunkBytes(world.length);
    }

    /**
     * A reusable array of at least {@code bytes} (at most the data slot) for the packed input of
     * a blocking small shared-memory collective: MPI lets one thread at a time run a blocking
     * collective on a communicator, and the data is consumed before the call returns.
     */
    public byte[] blockingIn(final int bytes)
    {
        byte[] b = blockingIn;
        if (b == null || b.length < bytes)
        {
            b = new byte[Math.max(bytes, settings.dataBytes())];
            blockingIn = b;
        }
        return b;
    }

    /** As {@link #blockingIn}, for the result. */
    public byte[] blockingOut(final int bytes)
    {
        byte[] b = blockingOut;
        if (b == null || b.length < bytes)
        {
            b = new byte[Math.max(bytes, settings.dataBytes())];
            blockingOut = b;
        }
        return b;
    }

    private IntUnaryOperator agreement()
    {
        return Agreement.maxOf(this::nextMembers);
    }

    /** Unmaps the shared state (the segments go when every member has closed them). */
    @Override
    public void close()
    {
        if (shm != null)
        {
            shm.close();
            shm = null;
        }
        if (shmLarge != null)
        {
            shmLarge.close();
            shmLarge = null;
        }
    }
}
