package org.shmpi.bridge;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

/**
 * Where one rank of a multi-node job stands, read from the environment its launcher gave it:
 * Slurm's ({@code srun}) or shmpi's own ({@code SHMPI_NODES} and its siblings, which
 * {@code shmrun --hostfile} and the tests set). {@link #fromEnvironment} returns null when the
 * process was not started as one rank of several by either: then it is a rank of a one-machine
 * {@code shmrun} job or a singleton.
 *
 * <p>Every rank of a node computes the same node directory name ({@link #jobKey}), the same
 * rendezvous address (the first node's first rank serves it) and the same job secret, without
 * talking to anyone.
 */
public final class ClusterLaunch
{
    public static final String NODES_ENV = "SHMPI_NODES";
    public static final String NODE_ENV = "SHMPI_NODE";
    public static final String LOCAL_RANK_ENV = "SHMPI_LOCAL_RANK";
    public static final String LOCAL_SIZE_ENV = "SHMPI_LOCAL_SIZE";
    public static final String JOB_KEY_ENV = "SHMPI_JOB_KEY";
    /** {@code host:port} of the rendezvous (the first node's first rank listens there). */
    public static final String RENDEZVOUS_ENV = "SHMPI_RENDEZVOUS";
    /** The job secret, 64 hexadecimal digits. */
    public static final String SECRET_ENV = "SHMPI_JOB_SECRET";
    /** The address this node's bridge listens on (the interface the job uses). */
    public static final String BRIDGE_HOST_ENV = "SHMPI_BRIDGE_HOST";
    /** Where the rendezvous listens under Slurm when the step reserved no ports. */
    public static final int SLURM_PORT_BASE = 21000;
    public static final int SLURM_PORT_SPAN = 20000;

    private final String launcher;
    private final int rank;
    private final int size;
    private final int node;
    private final int nodes;
    private final int localRank;
    private final int localSize;
    private final String jobKey;
    private final InetSocketAddress rendezvous;
    private final InetAddress bridgeHost;
    private final byte[] secret;
    /** The launcher's PMIx server, when it started the rank through PMIx; else null. */
    private Pmix pmix;
    /** Per world rank: its node (filled from PMIx; null otherwise: the rendezvous tells). */
    private int[] nodeOfRank;

    ClusterLaunch(
        final String launcher, final int rank, final int size, final int node, final int nodes, final int localRank,
        final int localSize, final String jobKey, final InetSocketAddress rendezvous, final InetAddress bridgeHost,
        final byte[] secret)
    {
        this.launcher = launcher;
        this.rank = rank;
        this.size = size;
        this.node = node;
        this.nodes = nodes;
        this.localRank = localRank;
        this.localSize = localSize;
        this.jobKey = jobKey;
        this.rendezvous = rendezvous;
        this.bridgeHost = bridgeHost;
        this.secret = secret;
        check(size >= 1, "world size " + size);
        check(rank >= 0 && rank < size, "rank " + rank + " of " + size);
        check(nodes >= 1 && nodes <= size, nodes + " nodes for " + size + " ranks");
        check(node >= 0 && node < nodes, "node " + node + " of " + nodes);
        check(localSize >= 1 && localSize <= size, localSize + " ranks on this node of " + size);
        check(localRank >= 0 && localRank < localSize, "local rank " + localRank + " of " + localSize);
        check(jobKey.matches("[A-Za-z0-9._]+"), "job key '" + jobKey + "' (letters, digits, '.', '_')");
        check(secret.length == NodeBridge.SECRET_LENGTH, "secret of " + secret.length + " bytes");
    }

    private void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new IllegalArgumentException(launcher + " started this rank with an impossible layout: " + what);
        }
    }

    /**
     * The launch {@code env} describes, or null when it describes no multi-rank launch by a
     * cluster launcher. Throws {@link IllegalArgumentException} with one line naming the variable
     * when the environment says several ranks but cannot be followed: the rank must then fail,
     * never run alone.
     */
    public static ClusterLaunch fromEnvironment(final Map<String, String> env)
    {
        if (present(env, "SHMPI_JOB_DIR"))
        {
            // A rank of shmrun's one-machine job (which sets Open MPI's variables too).
            return null;
        }
        if (present(env, NODES_ENV))
        {
            return fromShmpi(env);
        }
        if (present(env, "PMIX_RANK") && present(env, "PMIX_NAMESPACE") && !"off".equals(env.get(PMIX_ENV)))
        {
            return fromPmix(env, Pmix.connect());
        }
        if (present(env, "SLURM_PROCID") && (present(env, "SLURM_STEP_ID") || present(env, "SLURM_STEPID")))
        {
            final int size = number(env, firstPresent(env, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"));
            return size > 1 ? fromSlurm(env, size) : null;
        }
        if (present(env, "OMPI_COMM_WORLD_SIZE") && number(env, "OMPI_COMM_WORLD_SIZE") > 1)
        {
            // Never N singletons where a launcher started N ranks.
            throw new IllegalArgumentException("mpirun started this rank as one of " +
                env.get("OMPI_COMM_WORLD_SIZE") + " but offers no PMIx to join them" +
                ("off".equals(env.get(PMIX_ENV)) ? " (" + PMIX_ENV + "=off)" : ""));
        }
        return null;
    }

    private static ClusterLaunch fromShmpi(final Map<String, String> env)
    {
        final String rv = required(env, RENDEZVOUS_ENV);
        final int colon = rv.lastIndexOf(':');
        if (colon <= 0)
        {
            throw new IllegalArgumentException("bad " + RENDEZVOUS_ENV + " (host:port): " + RENDEZVOUS_ENV + "=" + rv);
        }
        final InetSocketAddress rendezvous = new InetSocketAddress(resolve(rv.substring(0, colon), RENDEZVOUS_ENV),
            port(rv.substring(colon + 1), RENDEZVOUS_ENV));
        final String host = env.get(BRIDGE_HOST_ENV);
        return new ClusterLaunch("shmpi", number(env, "SHMPI_RANK"), number(env, "SHMPI_WORLD_SIZE"),
            number(env, NODE_ENV), number(env, NODES_ENV), number(env, LOCAL_RANK_ENV), number(env, LOCAL_SIZE_ENV),
            required(env, JOB_KEY_ENV), rendezvous, host == null || host.isBlank() ? rendezvous.getAddress() :
                resolve(host, BRIDGE_HOST_ENV), hexSecret(required(env, SECRET_ENV)));
    }

    private static ClusterLaunch fromSlurm(final Map<String, String> env, final int size)
    {
        final String job = required(env, "SLURM_JOB_ID");
        final String step = env.getOrDefault("SLURM_STEP_ID", env.get("SLURM_STEPID"));
        final int node = number(env, "SLURM_NODEID");
        final int nodes = number(env, firstPresent(env, "SLURM_STEP_NUM_NODES", "SLURM_NNODES"));
        final String perNodeVar = firstPresent(env, "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE");
        final int localSize = tasksOnNode(required(env, perNodeVar), node, perNodeVar);
        final String jobKey = "slurm." + job + "." + step;
        final String rv = env.get(RENDEZVOUS_ENV);
        final InetSocketAddress rendezvous;
        if (nodes == 1)
        {
            // One node: its ranks meet in shared memory, no network is used.
            rendezvous = null;
        }
        else if (rv != null && !rv.isBlank())
        {
            final int colon = rv.lastIndexOf(':');
            rendezvous = new InetSocketAddress(resolve(rv.substring(0, colon), RENDEZVOUS_ENV),
                port(rv.substring(colon + 1), RENDEZVOUS_ENV));
        }
        else
        {
            final String nodeListVar = firstPresent(env, "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST",
                "SLURM_NODELIST");
            final String first = firstHost(required(env, nodeListVar));
            rendezvous = new InetSocketAddress(resolve(first, nodeListVar), slurmPort(env, job, step));
        }
        final String host = env.get(BRIDGE_HOST_ENV);
        final String nodeName = env.get("SLURMD_NODENAME");
        final InetAddress bridgeHost = nodes == 1 ? null : host != null && !host.isBlank() ?
            resolve(host, BRIDGE_HOST_ENV) : nodeName != null ? resolve(nodeName, "SLURMD_NODENAME") : localHost();
        final String hex = env.get(SECRET_ENV);
        final byte[] secret = hex != null && !hex.isBlank() ? hexSecret(hex) : userSecret(env, jobKey);
        return new ClusterLaunch("srun", number(env, "SLURM_PROCID"), size, node, nodes,
            number(env, "SLURM_LOCALID"), localSize, jobKey, rendezvous, bridgeHost, secret);
    }

    /** {@code off}: never bootstrap through PMIx even where the launcher offers it. */
    public static final String PMIX_ENV = "SHMPI_PMIX";

    /**
     * From the launcher's PMIx server: rank, size, local rank and size from its job data, each
     * rank's node from {@code PMIX_NODEID} (numbered 0.. in the order of the ids).
     */
    static ClusterLaunch fromPmix(final Map<String, String> env, final Pmix pmix)
    {
        try
        {
            final int size = (int)pmix.number(Pmix.RANK_WILDCARD, "pmix.job.size");
            // A server need not tell a rank the nodes of other ranks (Open MPI 4.1's does not):
            // every rank publishes its own, and all read them after a fence.
            pmix.put("shmpi.nodeid", Long.toString(pmix.number(pmix.rank(), "pmix.nodeid")));
            pmix.commitAndFence();
            final int[] ids = new int[size];
            for (int r = 0; r < size; r++)
            {
                ids[r] = Integer.parseInt(pmix.string(r, "shmpi.nodeid"));
            }
            final int[] distinct = java.util.Arrays.stream(ids).distinct().sorted().toArray();
            final int[] nodeOf = new int[size];
            for (int r = 0; r < size; r++)
            {
                nodeOf[r] = java.util.Arrays.binarySearch(distinct, ids[r]);
            }
            final int me = pmix.rank();
            int localSize = 0;
            for (int r = 0; r < size; r++)
            {
                localSize += nodeOf[r] == nodeOf[me] ? 1 : 0;
            }
            final int localRank = (int)pmix.number(me, "pmix.lrank");
            final String host = env.get(BRIDGE_HOST_ENV);
            final String pmixHost = env.get("PMIX_HOSTNAME");
            final InetAddress bridgeHost = distinct.length == 1 ? null : host != null && !host.isBlank() ?
                resolve(host, BRIDGE_HOST_ENV) : pmixHost != null ? resolve(pmixHost, "PMIX_HOSTNAME") : localHost();
            final ClusterLaunch l = new ClusterLaunch("pmix", me, size, nodeOf[me], distinct.length, localRank,
                localSize, "pmix." + pmix.nspace().replaceAll("[^A-Za-z0-9._]", "_"), null, bridgeHost,
                new byte[NodeBridge.SECRET_LENGTH]);
            l.pmix = pmix;
            l.nodeOfRank = nodeOf;
            return l;
        }
        catch (final RuntimeException ex)
        {
            pmix.finish();
            throw ex;
        }
    }

    /** The launcher's PMIx client, or null when the rank was not started through PMIx. */
    Pmix pmix()
    {
        return pmix;
    }

    /** The node of every rank, known at start under PMIx; else null. */
    int[] nodeOfRank()
    {
        return nodeOfRank == null ? null : nodeOfRank.clone();
    }

    /** The rendezvous port: the step's first reserved port, else one derived from the job and step ids. */
    static int slurmPort(final Map<String, String> env, final String job, final String step)
    {
        final String reserved = env.get("SLURM_STEP_RESV_PORTS");
        if (reserved != null && !reserved.isBlank())
        {
            return port(reserved.split("[-,]")[0], "SLURM_STEP_RESV_PORTS");
        }
        long h = 17;
        for (final char c : (job + "." + step).toCharArray())
        {
            h = h * 31 + c;
        }
        return SLURM_PORT_BASE + (int)Math.floorMod(h, (long)SLURM_PORT_SPAN);
    }

    /** The number of tasks on node {@code node} from Slurm's compressed list, e.g. {@code 2(x3),1}. */
    static int tasksOnNode(final String perNode, final int node, final String var)
    {
        int at = 0;
        for (final String part : perNode.split(","))
        {
            final String p = part.trim();
            final int paren = p.indexOf('(');
            final int count;
            final int repeat;
            try
            {
                if (paren < 0)
                {
                    count = Integer.parseInt(p);
                    repeat = 1;
                }
                else
                {
                    count = Integer.parseInt(p.substring(0, paren));
                    repeat = Integer.parseInt(p.substring(paren + 2, p.indexOf(')')));
                }
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException("cannot read " + var + "=" + perNode, ex);
            }
            if (node < at + repeat)
            {
                return count;
            }
            at += repeat;
        }
        throw new IllegalArgumentException(var + "=" + perNode + " has no entry for node " + node);
    }

    /** The first host of a Slurm host list such as {@code n[01-04,7],gpu2}. */
    static String firstHost(final String list)
    {
        final String s = list.trim();
        final int bracket = s.indexOf('[');
        final int comma = s.indexOf(',');
        if (bracket < 0 || comma >= 0 && comma < bracket)
        {
            return comma < 0 ? s : s.substring(0, comma);
        }
        final int close = s.indexOf(']', bracket);
        final String range = s.substring(bracket + 1, close).split(",")[0];
        final String from = range.split("-")[0];
        String rest = s.substring(close + 1);
        final int next = rest.indexOf(',');
        if (next >= 0)
        {
            rest = rest.substring(0, next);
        }
        return s.substring(0, bracket) + from + rest;
    }

    /**
     * The job secret when the launcher handed none: the user's secret file (made once, readable
     * by the user only, on the home directory every node shares) hashed with the job key.
     */
    static byte[] userSecret(final Map<String, String> env, final String jobKey)
    {
        final String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        final Path file = Path.of(home, ".shmpi", "secret");
        try
        {
            if (!Files.exists(file))
            {
                Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
                final byte[] fresh = new byte[NodeBridge.SECRET_LENGTH];
                new SecureRandom().nextBytes(fresh);
                final Path tmp = Files.createTempFile(file.getParent(), "secret", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(tmp, HexFormat.of().formatHex(fresh));
                try
                {
                    // Several ranks may make it at once: the first move wins, the others read it.
                    Files.createLink(file, tmp);
                }
                catch (final FileAlreadyExistsException ignore)
                {
                    // another rank made it first
                }
                catch (final UnsupportedOperationException ex)
                {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
                }
                Files.deleteIfExists(tmp);
            }
            final byte[] mine = hexSecret(Files.readString(file).trim());
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(mine);
            sha.update(jobKey.getBytes(StandardCharsets.UTF_8));
            return sha.digest();
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("no job secret: set " + SECRET_ENV + " for every rank, or make " + file +
                " readable (" + ex.getMessage() + ")", ex);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static byte[] hexSecret(final String hex)
    {
        final byte[] b;
        try
        {
            b = HexFormat.of().parseHex(hex.trim());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("the job secret is not hexadecimal (" + SECRET_ENV + ")", ex);
        }
        if (b.length != NodeBridge.SECRET_LENGTH)
        {
            throw new IllegalArgumentException("the job secret must be " + 2 * NodeBridge.SECRET_LENGTH +
                " hexadecimal digits, not " + hex.trim().length() + " (" + SECRET_ENV + ")");
        }
        return b;
    }

    private static boolean present(final Map<String, String> env, final String name)
    {
        final String v = env.get(name);
        return v != null && !v.isBlank();
    }

    private static String firstPresent(final Map<String, String> env, final String... names)
    {
        for (final String n : names)
        {
            if (present(env, n))
            {
                return n;
            }
        }
        throw new IllegalArgumentException("none of " + String.join(", ", names) + " is set");
    }

    private static String required(final Map<String, String> env, final String name)
    {
        if (!present(env, name))
        {
            throw new IllegalArgumentException(name + " is not set");
        }
        return env.get(name).trim();
    }

    private static int number(final Map<String, String> env, final String name)
    {
        final String v = required(env, name);
        try
        {
            return Integer.parseInt(v);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not a number: " + name + "=" + v, ex);
        }
    }

    private static int port(final String text, final String var)
    {
        try
        {
            final int p = Integer.parseInt(text.trim());
            if (p < 1 || p > 65535)
            {
                throw new NumberFormatException();
            }
            return p;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("bad port in " + var + ": " + text, ex);
        }
    }

    private static InetAddress resolve(final String host, final String var)
    {
        try
        {
            return InetAddress.getByName(host.trim());
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot resolve host '" + host + "' (from " + var + ")", ex);
        }
    }

    private static InetAddress localHost()
    {
        try
        {
            return InetAddress.getLocalHost();
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("cannot resolve this host's name; set " + BRIDGE_HOST_ENV, ex);
        }
    }

    /** Who started the rank: "srun" or "shmpi". */
    public String launcher()
    {
        return launcher;
    }

    public int rank()
    {
        return rank;
    }

    public int size()
    {
        return size;
    }

    public int node()
    {
        return node;
    }

    public int nodes()
    {
        return nodes;
    }

    public int localRank()
    {
        return localRank;
    }

    public int localSize()
    {
        return localSize;
    }

    /** Names the node's job directory: the same on every rank of the job, unique per job. */
    public String jobKey()
    {
        return jobKey;
    }

    /** Where the nodes meet at start; null for a job on one node. */
    public InetSocketAddress rendezvous()
    {
        return rendezvous;
    }

    /** The address this node's bridge listens on; null for a job on one node. */
    public InetAddress bridgeHost()
    {
        return bridgeHost;
    }

    byte[] secret()
    {
        return secret.clone();
    }

    /** Whether this rank leads its node: makes its directory, runs its bridge. */
    public boolean isNodeLeader()
    {
        return localRank == 0;
    }

    @Override
    public String toString()
    {
        return launcher + " rank " + rank + " of " + size + ", node " + node + " of " + nodes + ", local " + localRank +
            " of " + localSize + ", job " + jobKey;
    }
}
