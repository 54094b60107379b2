package org.shmpi.coll;

import java.util.Locale;

/**
 * Which algorithm family a collective uses, as named properties (also {@code SHMPI_*}
 * environment variables, and {@code shmrun -D}/{@code --mca}): {@code shmpi.coll.algorithm}
 * for every operation and {@code shmpi.coll.<op>.algorithm} for one ({@code barrier},
 * {@code bcast}, {@code reduce}, {@code allreduce}, {@code gather}, {@code scatter},
 * {@code allgather}, {@code alltoall}, {@code reducescatter}), each {@code auto} (the default: shared memory when what
 * one member publishes fits the data slot, point-to-point otherwise), {@code shm} (shared
 * memory whenever the message fits) or {@code p2p} (the point-to-point schedules always); and
 * {@code shmpi.coll.shm.data.bytes}, the data slot per member (default 8192, a multiple of 128):
 * messages up to it take the small-message algorithms ({@link ShmCollectives}), larger ones the
 * pipelined large-message algorithms ({@link ShmLargeCollectives}) in rounds of
 * {@code shmpi.coll.shm.chunk.bytes} (default 65536) per member.
 * Read once per process; every rank of a job must see the same values (shmrun passes them all).
 */
public final class CollectiveSettings
{
    public static final String ALGORITHM_PROP_NAME = "shmpi.coll.algorithm";
    public static final String DATA_BYTES_PROP_NAME = "shmpi.coll.shm.data.bytes";
    public static final String CHUNK_BYTES_PROP_NAME = "shmpi.coll.shm.chunk.bytes";

    public static final String AUTO = "auto";
    public static final String SHM = "shm";
    public static final String P2P = "p2p";

    private static final CollectiveSettings CURRENT = new CollectiveSettings();

    private final String all;
    private final int dataBytes;
    private final int chunkBytes;
    /** Choices already read, by operation (the hot path reads no property). */
    private final java.util.concurrent.ConcurrentHashMap<String, String> byOp = new java.util.concurrent.ConcurrentHashMap<>();

    private CollectiveSettings()
    {
        all = choice(ALGORITHM_PROP_NAME, AUTO);
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
        int c = ShmLargeDescriptor.CHUNK_BYTES_DEFAULT;
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
    }

    public static CollectiveSettings current()
    {
        return CURRENT;
    }

    public int dataBytes()
    {
        return dataBytes;
    }

    public int chunkBytes()
    {
        return chunkBytes;
    }

    /** The choice for {@code op} ({@code shmpi.coll.<op>.algorithm}, else the global one). */
    public String algorithm(final String op)
    {
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
