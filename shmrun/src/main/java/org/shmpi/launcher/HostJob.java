package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.shmpi.shm.ShmpiConfig;

/**
 * A job over several hosts named by a host file or {@code --host}: every rank is started with
 * shmpi's cluster environment ({@code SHMPI_NODES} and siblings, as the ranks' cluster bootstrap
 * reads it), on its own host through the launch agent ({@code ssh} by default; {@code
 * --launch-agent}, {@code SHMPI_LAUNCH_AGENT} or Open MPI's {@code OMPI_MCA_plm_rsh_agent}
 * replace it) and on this host directly. The ranks find each other themselves: the first host's
 * first rank serves the job's rendezvous, each host's first rank runs its bridge. shmrun only
 * starts, relays output line by line, and stops.
 *
 * <p>Stopping: each rank runs under a small shell that keeps the agent's standard input open and
 * ends the rank (SIGTERM) when it closes, so a rank stops when shmrun's connection to its host
 * ends: Ctrl-C, SIGTERM, {@code --timeout} or shmrun's death. A rank that fails ends the job by
 * itself (its node tells the others); shmrun then stops what is left after a grace period.
 * Standard input is not forwarded to the ranks.
 */
final class HostJob
{
    static final String AGENT_ENV = "SHMPI_LAUNCH_AGENT";
    static final String OMPI_AGENT_ENV = "OMPI_MCA_plm_rsh_agent";
    /** Range of the rendezvous port (below Linux's ephemeral ports). */
    static final int PORT_BASE = 11000;
    static final int PORT_SPAN = 9000;
    private static final long GRACE_MS = 5_000;

    private final LaunchOptions options;
    private final ShmpiConfig config;
    private final List<String> shmpiClasspath;
    private final List<String> rankJvmFlags;
    private final List<String> defaultJvmFlags;
    private final PrintStream err;
    private final Object outputLock = new Object();
    private final List<Process> processes = new ArrayList<>();
    private final List<OutputPump> pumps = new ArrayList<>();
    private volatile int signal;

    HostJob(final LaunchOptions options, final ShmpiConfig config, final List<String> shmpiClasspath,
        final List<String> rankJvmFlags, final List<String> defaultJvmFlags, final PrintStream err)
    {
        this.options = options;
        this.config = config;
        this.shmpiClasspath = shmpiClasspath;
        this.rankJvmFlags = rankJvmFlags;
        this.defaultJvmFlags = defaultJvmFlags;
        this.err = err;
    }

    /** The rank-to-host plan: hosts and the host index of every rank. */
    record Plan(Hosts hosts, int[] hostOf)
    {
        /** Node number of every rank: hosts numbered in host-list order, among those with ranks. */
        int[] nodeOf()
        {
            final int[] nodeOfHost = new int[hosts.hosts().size()];
            Arrays.fill(nodeOfHost, -1);
            final boolean[] used = new boolean[nodeOfHost.length];
            for (final int h : hostOf)
            {
                used[h] = true;
            }
            int n = 0;
            for (int h = 0; h < used.length; h++)
            {
                if (used[h])
                {
                    nodeOfHost[h] = n++;
                }
            }
            final int[] nodeOf = new int[hostOf.length];
            for (int r = 0; r < hostOf.length; r++)
            {
                nodeOf[r] = nodeOfHost[hostOf[r]];
            }
            return nodeOf;
        }
    }

    static Plan plan(final LaunchOptions options) throws IOException
    {
        final Hosts hosts = options.hostfile != null ? Hosts.parseFile(Path.of(options.hostfile)) :
            Hosts.parseList(options.hosts);
        return new Plan(hosts, hosts.map(options.np, options.mapByNode, options.perNode, options.oversubscribe));
    }

    int run() throws IOException
    {
        final Plan plan = plan(options);
        final int[] hostOf = plan.hostOf();
        final int[] nodeOf = plan.nodeOf();
        final int np = hostOf.length;
        final int nodes = Arrays.stream(nodeOf).max().orElse(0) + 1;
        final int[] localRank = new int[np];
        final int[] localSize = new int[nodes];
        final String[] hostOfNode = new String[nodes];
        for (int r = 0; r < np; r++)
        {
            localRank[r] = localSize[nodeOf[r]]++;
            hostOfNode[nodeOf[r]] = plan.hosts().hosts().get(hostOf[r]).name();
        }
        final byte[] secret = new byte[32];
        final SecureRandom random = new SecureRandom();
        random.nextBytes(secret);
        final String key = "shmrun." + ProcessHandle.current().pid() + "." + System.currentTimeMillis();
        final String rendezvous = hostOfNode[0] + ":" + (PORT_BASE + random.nextInt(PORT_SPAN));
        final List<String> agent = agent();
        Signals.handle(sig -> signal = sig, "INT", "TERM");

        final Set<String> cp = new LinkedHashSet<>(shmpiClasspath);
        if (options.classpath.isEmpty())
        {
            final String envCp = System.getenv("CLASSPATH");
            cp.add(envCp != null && !envCp.isEmpty() ? envCp : ".");
        }
        cp.addAll(options.classpath);
        final String classpath = String.join(File.pathSeparator, cp);
        for (int r = 0; r < np; r++)
        {
            final Map<String, String> env = new TreeMap<>(options.env);
            env.put("SHMPI_RANK", Integer.toString(r));
            env.put("SHMPI_WORLD_SIZE", Integer.toString(np));
            env.put("SHMPI_NODE", Integer.toString(nodeOf[r]));
            env.put("SHMPI_NODES", Integer.toString(nodes));
            env.put("SHMPI_LOCAL_RANK", Integer.toString(localRank[r]));
            env.put("SHMPI_LOCAL_SIZE", Integer.toString(localSize[nodeOf[r]]));
            env.put("SHMPI_JOB_KEY", key);
            env.put("SHMPI_RENDEZVOUS", rendezvous);
            env.put("SHMPI_JOB_SECRET", HexFormat.of().formatHex(secret));
            env.put("SHMPI_BRIDGE_HOST", hostOfNode[nodeOf[r]]);
            env.put("OMPI_COMM_WORLD_RANK", Integer.toString(r));
            env.put("OMPI_COMM_WORLD_SIZE", Integer.toString(np));
            env.put("OMPI_COMM_WORLD_LOCAL_RANK", Integer.toString(localRank[r]));
            env.put("OMPI_COMM_WORLD_LOCAL_SIZE", Integer.toString(localSize[nodeOf[r]]));
            final List<String> java = new ArrayList<>();
            java.add(Job.javaCommand());
            java.addAll(rankJvmFlags);
            java.addAll(defaultJvmFlags);
            java.addAll(options.jvmArgs);
            java.add("-cp");
            java.add(classpath);
            java.add(options.mainClass);
            java.addAll(options.programArgs);
            final String script = script(env, java);
            final String host = hostOfNode[nodeOf[r]];
            final List<String> cmd = new ArrayList<>();
            if (isLocal(host))
            {
                cmd.add("sh");
                cmd.add("-c");
                cmd.add(script);
            }
            else
            {
                cmd.addAll(agent);
                cmd.add(host);
                cmd.add(script);
            }
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            final Process p = pb.start();
            processes.add(p);
            final String outTag = options.tagOutput ? "[1," + r + "]<stdout>:" : null;
            final String errTag = options.tagOutput ? "[1," + r + "]<stderr>:" : null;
            final OutputPump out = new OutputPump("shmrun-out-" + r, p.getInputStream(), System.out, outputLock,
                outTag);
            final OutputPump errPump = new OutputPump("shmrun-err-" + r, p.getErrorStream(), System.err, outputLock,
                errTag);
            out.start();
            errPump.start();
            pumps.add(out);
            pumps.add(errPump);
            if (options.reportBindings)
            {
                synchronized (outputLock)
                {
                    err.println("shmrun: rank " + r + " on " + host + " (node " + nodeOf[r] + ", local rank " +
                        localRank[r] + ")");
                }
            }
        }
        return monitor(hostOfNode, nodeOf);
    }

    /** Waits for every rank; stops the rest after a failure, a signal or the timeout. */
    private int monitor(final String[] hostOfNode, final int[] nodeOf)
    {
        final long start = System.nanoTime();
        int status = 0;
        long stopAt = Long.MAX_VALUE;
        boolean stopped = false;
        while (true)
        {
            boolean running = false;
            for (int r = 0; r < processes.size(); r++)
            {
                final Process p = processes.get(r);
                if (p.isAlive())
                {
                    running = true;
                }
                else if (status == 0 && p.exitValue() != 0)
                {
                    status = p.exitValue();
                    stopAt = Math.min(stopAt, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS));
                    synchronized (outputLock)
                    {
                        err.println("shmrun: rank " + r + " on " + hostOfNode[nodeOf[r]] + " exited with status " +
                            status);
                    }
                }
            }
            if (!running)
            {
                break;
            }
            final int sig = signal;
            if (sig != 0 && !stopped)
            {
                status = 128 + sig;
                stopAt = System.nanoTime();
            }
            if (options.timeoutSeconds > 0 && !stopped &&
                System.nanoTime() - start > TimeUnit.SECONDS.toNanos(options.timeoutSeconds))
            {
                synchronized (outputLock)
                {
                    err.println("shmrun: the job ran longer than --timeout " + options.timeoutSeconds +
                        " s; stopping it");
                }
                status = 124;
                stopAt = System.nanoTime();
            }
            if (!stopped && System.nanoTime() - stopAt >= 0)
            {
                stopped = true;
                stopAll();
            }
            sleep(20);
        }
        for (final OutputPump pump : pumps)
        {
            try
            {
                pump.join(2_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        return status;
    }

    /** Ends the ranks: closing a rank's standard input ends it; the agents get SIGTERM too. */
    private void stopAll()
    {
        for (final Process p : processes)
        {
            closeQuietly(p.getOutputStream());
        }
        sleep(500);
        for (final Process p : processes)
        {
            p.destroy();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (final Process p : processes)
        {
            try
            {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))
                {
                    p.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The agent command, before the host name. */
    List<String> agent()
    {
        String a = options.launchAgent;
        if (a == null || a.isBlank())
        {
            a = System.getenv(AGENT_ENV);
        }
        if (a == null || a.isBlank())
        {
            a = System.getenv(OMPI_AGENT_ENV);
        }
        if (a == null || a.isBlank())
        {
            a = "ssh -o BatchMode=yes";
        }
        return List.of(a.trim().split("\\s+"));
    }

    /**
     * The shell text that runs one rank: its environment and command, with standard input kept
     * by a watcher that ends the rank when it closes.
     */
    static String script(final Map<String, String> env, final List<String> java)
    {
        final StringBuilder b = new StringBuilder();
        b.append("cd ").append(quote(System.getProperty("user.dir"))).append(" 2>/dev/null; exec 3<&0; env");
        env.forEach((k, v) -> b.append(' ').append(k).append('=').append(quote(v)));
        for (final String w : java)
        {
            b.append(' ').append(quote(w));
        }
        b.append(" </dev/null & p=$!; trap 'kill -TERM $p 2>/dev/null' HUP INT TERM; ");
        b.append("(cat <&3 >/dev/null 2>&1; kill -TERM $p 2>/dev/null) >/dev/null 2>&1 & ");
        b.append("wait $p; s=$?; exit $s");
        return b.toString();
    }

    static String quote(final String s)
    {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** Whether {@code host} names this machine (then no agent is needed). */
    static boolean isLocal(final String host)
    {
        if (host.equals("localhost") || host.equals("127.0.0.1"))
        {
            return true;
        }
        try
        {
            // An address of one of this machine's interfaces (other loopback addresses such as
            // 127.0.0.2 count as other hosts: tests use them so).
            final InetAddress a = InetAddress.getByName(host);
            return NetworkInterface.getByInetAddress(a) != null && !a.isLoopbackAddress() ||
                host.equals(InetAddress.getLocalHost().getHostName());
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static void closeQuietly(final OutputStream s)
    {
        try
        {
            s.close();
        }
        catch (final IOException ignored)
        {
            // gone already
        }
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
