package org.shmpi.coll;

import java.util.Locale;

/**
 * Which algorithm family a collective uses, as named properties (also {@code SHMPI_*}
 * environment variables, and {@code shmrun -D}/{@code --mca}): {@code shmpi.coll.algorithm}
 * for every operation and {@code shmpi.coll.<op>.algorithm} for one ({@code barrier},
 * {@code bcast}, {@code reduce}, {@code allreduce}, {@code gather}, {@code scatter},
 * {@code allgather}, {@code alltoall}, {@code reducescatter}), each {@code auto} (the default:
 * the shared-memory algorithms on an intra-communicator of two or more members: the selector
 * measurement of docs/collectives.md found them faster than the point-to-point schedules in
 * 145 of 168 cells and point-to-point ahead in no consistent region), {@code shm} (the same)
 * or {@code p2p} (the
 * point-to-point schedules always);
 * {@code shmpi.coll.shm.data.bytes}, the data slot per member (default 8192, a multiple of 128):
 * messages up to it take the small-message algorithms ({@link ShmCollectives}), larger ones the
 * pipelined large-message algorithms ({@link ShmLargeCollectives}) in rounds of
 * {@code shmpi.coll.shm.chunk.bytes} per member (default: 256 KiB up to 16 members, less above so
 * that a communicator's slots stay within 8 MiB, at least 64 KiB:
 * {@link ShmLargeDescriptor#defaultChunkBytes}); and
 * {@code shmpi.coll.shm.hierarchy}, whether the shared-memory barrier, allreduce, reduce and
 * bcast run in stages by NUMA node (or L3 domain): {@code auto} (the default: when the members
 * span two or more groups and number at least {@code shmpi.coll.shm.hierarchy.ranks}, default
 * {@value #HIERARCHY_RANKS_DEFAULT}), {@code on} (whenever they span two or more groups) or
 * {@code off} (a hierarchical communicator runs its nonblocking and persistent collectives
 * point-to-point: {@link ShmCollectives#hierarchical}). Read once per process; every rank of a
 * job must see the same values (shmrun passes them all).
 */
public final class CollectiveSettings
{
    public static final String ALGORITHM_PROP_NAME = "shmpi.coll.algorithm";
    public static final String DATA_BYTES_PROP_NAME = "shmpi.coll.shm.data.bytes";
    public static final String CHUNK_BYTES_PROP_NAME = "shmpi.coll.shm.chunk.bytes";
    public static final String HIERARCHY_PROP_NAME = "shmpi.coll.shm.hierarchy";
    public static final String HIERARCHY_RANKS_PROP_NAME = "shmpi.coll.shm.hierarchy.ranks";
    /**
     * The flat shared-memory barrier: {@code flat} (every member waits for every seq),
     * {@code release} (member 0 waits for all, then releases the others: it leaves first) or
     * {@code auto} (the default: {@code release} when the job has more ranks than cores, where
     * who leaves first decides how long a rooted operation after the barrier waits; measured in
     * docs/collectives.md).
     */
    public static final String BARRIER_PROP_NAME = "shmpi.coll.shm.barrier";
    public static final String FLAT = "flat";
    public static final String RELEASE = "release";
    /**
     * Members from which {@code auto} goes hierarchical, from the cost model of
     * docs/collectives.md (not measured: this machine has one NUMA node). Since the flat path
     * reads no done lines in a loop, its critical path (2 rounds of flag-line transfers at 16
     * members, 4 at 32) crosses the hierarchy's (4 transfers in series, 2 within a node) between
     * 16 and 32 members; at 16 the hierarchy already has 32 times fewer lines crossing nodes on
     * 2 nodes, which is why the threshold stays there (a judgement the model cannot settle).
     */
    public static final int HIERARCHY_RANKS_DEFAULT = 16;

    public static final String AUTO = "auto";
    public static final String SHM = "shm";
    public static final String P2P = "p2p";
    public static final String ON = "on";
    public static final String OFF = "off";

    private static final CollectiveSettings CURRENT = new CollectiveSettings();

    private final String all;
    private final int dataBytes;
    /** The chunk set by {@value #CHUNK_BYTES_PROP_NAME}; -1: the default by rank count. */
    private final int chunkBytes;
    private final String hierarchy;
    private final int hierarchyRanks;
    private final String barrier;
    /** No {@code shmpi.coll.<op>.algorithm} is set: every operation takes {@link #all} (no map lookup per call). */
    private final boolean uniform;
    /** Choices already read, by operation (the hot path reads no property). */
    private final java.util.concurrent.ConcurrentHashMap<String, String> byOp = new java.util.concurrent.ConcurrentHashMap<>();

    private CollectiveSettings()
    {
        all = choice(ALGORITHM_PROP_NAME, AUTO);
        uniform = !anyPerOpChoice();
        final String bytes = value(DATA_BYTES_PROP_NAME);
        int b = ShmCollectiveDescriptor.DATA_BYTES_DEFAULT;
        if (bytes != null)
        {
            try
            {
                b = Integer.parseInt(bytes.trim());
                ShmCollectiveDescriptor.checkDataBytes(b);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("bad " + DATA_BYTES_PROP_NAME + ": " + ex.getMessage(), ex);
            }
        }
        dataBytes = b;
        final String chunk = value(CHUNK_BYTES_PROP_NAME);
        int c = -1;
        if (chunk != null)
        {
            try
            {
                c = Integer.parseInt(chunk.trim());
                ShmLargeDescriptor.checkChunkBytes(c);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("bad " + CHUNK_BYTES_PROP_NAME + ": " + ex.getMessage(), ex);
            }
        }
        chunkBytes = c;
        final String h = value(HIERARCHY_PROP_NAME);
        hierarchy = h == null ? AUTO : h.trim().toLowerCase(Locale.ROOT);
        if (!hierarchy.equals(AUTO) && !hierarchy.equals(ON) && !hierarchy.equals(OFF))
        {
            throw new IllegalArgumentException("bad " + HIERARCHY_PROP_NAME + ": " + h + " (auto, on or off)");
        }
        final String ranks = value(HIERARCHY_RANKS_PROP_NAME);
        int r = HIERARCHY_RANKS_DEFAULT;
        if (ranks != null)
        {
            try
            {
                r = Integer.parseInt(ranks.trim());
            }
            catch (final NumberFormatException ex)
            {
                r = -1;
            }
            if (r < 2)
            {
                throw new IllegalArgumentException("bad " + HIERARCHY_RANKS_PROP_NAME + ": " + ranks +
                    " (an integer, 2 or more)");
            }
        }
        hierarchyRanks = r;
        final String bar = value(BARRIER_PROP_NAME);
        barrier = bar == null ? AUTO : bar.trim().toLowerCase(Locale.ROOT);
        if (!barrier.equals(AUTO) && !barrier.equals(FLAT) && !barrier.equals(RELEASE))
        {
            throw new IllegalArgumentException("bad " + BARRIER_PROP_NAME + ": " + bar + " (auto, flat or release)");
        }
    }

    /**
     * Whether the flat shared-memory barrier is member 0's release ({@value #BARRIER_PROP_NAME}),
     * in a job that has ({@code oversubscribed}) or has not more ranks than cores.
     */
    public boolean releaseBarrier(final boolean oversubscribed)
    {
        return RELEASE.equals(barrier) || AUTO.equals(barrier) && oversubscribed;
    }

    public static CollectiveSettings current()
    {
        return CURRENT;
    }

    public int dataBytes()
    {
        return dataBytes;
    }

    /**
     * Bytes per member and round of the large-message collectives on a communicator of
     * {@code ranks} members: {@value #CHUNK_BYTES_PROP_NAME} when set, else
     * {@link ShmLargeDescriptor#defaultChunkBytes} (alike on every member).
     */
    public int chunkBytes(final int ranks)
    {
        return chunkBytes > 0 ? chunkBytes : ShmLargeDescriptor.defaultChunkBytes(ranks);
    }

    /** {@code auto}, {@code on} or {@code off}: {@value #HIERARCHY_PROP_NAME}. */
    public String hierarchy()
    {
        return hierarchy;
    }

    /**
     * Whether the shared-memory collectives of a communicator of {@code ranks} members should
     * run hierarchically if they span two or more groups: then (and only then) the caller finds
     * each member's group and passes them to {@link ShmCollectives#attach}.
     */
    public boolean hierarchyWanted(final int ranks)
    {
        return ranks >= 2 && (ON.equals(hierarchy) || AUTO.equals(hierarchy) && ranks >= hierarchyRanks);
    }

    /** The choice for {@code op} ({@code shmpi.coll.<op>.algorithm}, else the global one). */
    public String algorithm(final String op)
    {
        if (uniform)
        {
            return all;
        }
        return byOp.computeIfAbsent(op, o -> choice("shmpi.coll." + o + ".algorithm", all));
    }

    /** Whether a blocking {@code op} of {@code bytes} per member on {@code ranks} ranks takes shared memory. */
    public boolean useShm(final String op, final int bytes, final int ranks)
    {
        if (ranks < 2 || bytes > dataBytes)
        {
            return false;
        }
        return !P2P.equals(algorithm(op));
    }

    /**
     * Whether a blocking {@code op} of {@code bytes} per member (more than the data slot) on
     * {@code ranks} ranks takes the large-message shared-memory algorithms.
     */
    public boolean useShmLarge(final String op, final long bytes, final int ranks)
    {
        if (ranks < 2 || bytes <= dataBytes)
        {
            return false;
        }
        return !P2P.equals(algorithm(op));
    }

    private static String choice(final String name, final String fallback)
    {
        final String v = value(name);
        if (v == null)
        {
            return fallback;
        }
        final String c = v.trim().toLowerCase(Locale.ROOT);
        if (!c.equals(AUTO) && !c.equals(SHM) && !c.equals(P2P))
        {
            throw new IllegalArgumentException("bad " + name + ": " + v + " (auto, shm or p2p)");
        }
        return c;
    }

    /** Whether some {@code shmpi.coll.<op>.algorithm} property or {@code SHMPI_COLL_<OP>_ALGORITHM} variable is set. */
    private static boolean anyPerOpChoice()
    {
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (isPerOpChoice(name.toLowerCase(Locale.ROOT).replace('_', '.')))
            {
                return true;
            }
        }
        for (final String name : System.getenv().keySet())
        {
            if (isPerOpChoice(name.toLowerCase(Locale.ROOT).replace('_', '.')))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean isPerOpChoice(final String dotted)
    {
        return dotted.startsWith("shmpi.coll.") && dotted.endsWith(".algorithm") && !dotted.equals(ALGORITHM_PROP_NAME);
    }

    private static String value(final String name)
    {
        final String p = System.getProperty(name);
        if (p != null)
        {
            return p;
        }
        return System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_'));
    }
}
