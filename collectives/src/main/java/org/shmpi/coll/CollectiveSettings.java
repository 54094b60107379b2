package org.shmpi.coll;

import java.util.HashMap;
import java.util.Map;

import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.settings.SettingsRegistry;

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
    public static final String ALGORITHM_PROP_NAME = SettingsRegistry.COLL_ALGORITHM.name();
    public static final String DATA_BYTES_PROP_NAME = SettingsRegistry.COLL_DATA_BYTES.name();
    public static final String CHUNK_BYTES_PROP_NAME = SettingsRegistry.COLL_CHUNK_BYTES.name();
    public static final String HIERARCHY_PROP_NAME = SettingsRegistry.COLL_HIERARCHY.name();
    public static final String HIERARCHY_RANKS_PROP_NAME = SettingsRegistry.COLL_HIERARCHY_RANKS.name();
    /**
     * The flat shared-memory barrier: {@code flat} (every member waits for every seq),
     * {@code release} (member 0 waits for all, then releases the others: it leaves first) or
     * {@code auto} (the default: {@code release} when the job has more ranks than cores, where
     * who leaves first decides how long a rooted operation after the barrier waits; measured in
     * docs/collectives.md).
     */
    public static final String BARRIER_PROP_NAME = SettingsRegistry.COLL_BARRIER.name();
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

    private final String all;
    private final int dataBytes;
    /** The chunk set by {@link #CHUNK_BYTES_PROP_NAME}; -1: the default by rank count. */
    private final int chunkBytes;
    private final String hierarchy;
    private final int hierarchyRanks;
    private final String barrier;
    /** The choice of each operation of {@link SettingsRegistry#COLL_OPS}, in that order. */
    private final Map<String, String> byOp = new HashMap<>();
    /** No {@code shmpi.coll.<op>.algorithm} is set: every operation takes {@link #all} (no lookup per call). */
    private final boolean uniform;

    private CollectiveSettings(final ShmpiConfig config)
    {
        all = config.text(SettingsRegistry.COLL_ALGORITHM);
        boolean anyOp = false;
        for (final String op : SettingsRegistry.COLL_OPS)
        {
            final String choice = config.text(SettingsRegistry.collAlgorithm(op));
            byOp.put(op, choice == null ? all : choice);
            anyOp |= choice != null;
        }
        uniform = !anyOp;
        dataBytes = (int)config.number(SettingsRegistry.COLL_DATA_BYTES);
        chunkBytes = (int)config.number(SettingsRegistry.COLL_CHUNK_BYTES, -1);
        hierarchy = config.text(SettingsRegistry.COLL_HIERARCHY);
        hierarchyRanks = (int)config.number(SettingsRegistry.COLL_HIERARCHY_RANKS);
        barrier = config.text(SettingsRegistry.COLL_BARRIER);
    }

    /** The collective settings of {@code config} (made once per config). */
    public static CollectiveSettings of(final ShmpiConfig config)
    {
        return config.view(CollectiveSettings.class, CollectiveSettings::new);
    }

    /**
     * Whether the flat shared-memory barrier is member 0's release ({@value #BARRIER_PROP_NAME}),
     * in a job that has ({@code oversubscribed}) or has not more ranks than cores.
     */
    public boolean releaseBarrier(final boolean oversubscribed)
    {
        return RELEASE.equals(barrier) || AUTO.equals(barrier) && oversubscribed;
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
        final String choice = byOp.get(op);
        return choice == null ? all : choice;
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
}
