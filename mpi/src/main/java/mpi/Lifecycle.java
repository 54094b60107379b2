package mpi;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.shmpi.affinity.Binding;
import org.shmpi.affinity.CpuSet;
import org.shmpi.bridge.ClusterNode;
import org.shmpi.ring.ContextIds;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.AbortKind;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.Futex;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.ShmpiConfig;

/**
 * The rank's lifecycle: how it starts ({@code MPI.Init}), how it stops ({@code MPI.Finalize})
 * and how it ends early ({@code Comm.abort}, a fatal error, another rank's abort), with the
 * state that lives between Init and Finalize: the rank's process in the job, its services, the
 * thread level and the main thread. {@link MPI} keeps the public API and delegates here.
 */
final class Lifecycle
{
    /** Held by Init and Finalize, and by {@code MPI.attachBuffer} and {@code MPI.detachBuffer}. */
    static final Object LOCK = new Object();
    private static volatile boolean initialized;
    private static volatile boolean finalized;
    private static RankProcess process;
    private static RankContext rankContext;
    /** This rank's part in a job over several machines; null on one machine. */
    private static ClusterNode cluster;
    private static int threadLevel = MPI.THREAD_SINGLE;
    private static Thread mainThread;

    private Lifecycle()
    {
    }

    /**
     * {@code MPI.Init} and {@code MPI.InitThread}: joins the job at the thread level asked, then
     * fills {@code MPI.INFO_ENV}.
     *
     * @return the thread level provided
     */
    static int init(final String[] args, final int required)
    {
        if (required < MPI.THREAD_SINGLE || required > MPI.THREAD_MULTIPLE)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "invalid thread level: required=" + required);
        }
        join(required);
        fillEnvironment(args);
        // A spawned process: its world connects to the parents' port (collective over the world).
        Spawns.connectToParent();
        return threadLevel;
    }

    /** Joins the job: the rank's process, its services, {@code COMM_WORLD} and {@code COMM_SELF}. */
    private static void join(final int level)
    {
        synchronized (LOCK)
        {
            if (initialized)
            {
                throw new MPIException(ErrorClass.ERR_OTHER, "MPI is already initialized");
            }
            if (finalized)
            {
                throw new MPIException(ErrorClass.ERR_OTHER, "MPI cannot be initialized again after Finalize");
            }
            // Before anything exists in shared memory: a failure here leaves nothing behind.
            checkJvmFlags();
            final ShmpiConfig config;
            try
            {
                config = ShmpiConfig.fromSystem();
            }
            catch (final IllegalArgumentException ex)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "bad shmpi setting: " + ex.getMessage());
            }
            final ClusterNode node;
            try
            {
                node = ClusterNode.fromEnvironment(config, System.getenv());
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                System.err.println("shmpi: cannot start this rank: " + ex.getMessage());
                throw new MPIException(ErrorClass.ERR_OTHER, "cannot start this rank: " + ex.getMessage());
            }
            RankProcess p = null;
            RankContext e = null;
            try
            {
                p = node != null ? node.attach() : RankProcess.attach(config, System.getenv());
                if (p.isSingleton())
                {
                    final RankProcess self = p;
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteSingletonJob(self), "shmpi-cleanup"));
                }
                final CpuSet allowed = Binding.currentAffinity();
                p.job().binding(p.rank(), allowed.size() == 1 ? allowed.first() : -1, -1);
                final Futex futex = Futex.open(config.futexEnabled());
                e = RankContext.open(p.directory(), p.job(), p.rank(), config, futex, level == MPI.THREAD_MULTIPLE);
                p.initialized();
                p.startWatchdog();
                if (node != null)
                {
                    node.join(futex);
                    final org.shmpi.ring.ProgressAgent bridge = node.bridgeAgent();
                    if (bridge != null)
                    {
                        e.progress().register(bridge);
                    }
                }
                p.awaitAllInitialized();
            }
            catch (final IOException | RuntimeException | LinkageError ex)
            {
                throw initFailed(p, e, ex);
            }
            rankContext = e;
            process = p;
            cluster = node;
            threadLevel = level;
            mainThread = Thread.currentThread();
            final int size = p.worldSize();
            final int[] world = new int[size];
            for (int i = 0; i < size; i++)
            {
                world[i] = i;
            }
            // Context ids come from the engine's allocator, in the same order on every rank.
            final ContextIds contexts = rankContext.contexts();
            MPI.COMM_WORLD.bind(world, p.rank(), contexts.allocate(), contexts.allocate());
            MPI.COMM_SELF.bind(new int[] {p.rank()}, 0, contexts.allocate(), contexts.allocate());
            // Every process reserves the same context for the ports' requests (accept, connect).
            Ports.start(rankContext, contexts.allocate(), node != null ? node.launch().jobKey() :
                rankContext.foreignPeers() != null ? rankContext.foreignPeers().jobKey() :
                p.directory().path().getFileName().toString());
            Names.start(rankContext.settings().shmDir());
            p.alsoWatch(Connections::check);
            CONTEXT_NAMES.clear();
            nameContexts(MPI.COMM_WORLD, "MPI_COMM_WORLD");
            nameContexts(MPI.COMM_SELF, "MPI_COMM_SELF");
            final RankContext described = rankContext;
            p.statusSource(timeoutMs -> describeEngines(described, timeoutMs));
            installUncaughtHandler(mainThread);
            Profile.start(p, rankContext, config, System.getenv(Spawns.PARENT_PORT_ENV) != null);
            initialized = true;
        }
    }

    /** The job's directory (spawn requests go into it). */
    static java.nio.file.Path jobDirectory()
    {
        return process.directory().path();
    }

    /** Fills {@code MPI.INFO_ENV}, once Init has succeeded. */
    private static void fillEnvironment(final String[] args)
    {
        final Map<String, String> env = new LinkedHashMap<>();
        final String command = System.getProperty("sun.java.command", "");
        env.put("command", command.isBlank() ? "java" : command.trim().split("\\s+")[0]);
        env.put("argv", args == null ? "" : String.join(" ", args));
        final String size = Integer.toString(MPI.COMM_WORLD.getSize());
        env.put("maxprocs", size);
        env.put("soft", size);
        env.put("host", MPI.getProcessorName());
        env.put("arch", System.getProperty("os.arch", ""));
        env.put("wdir", System.getProperty("user.dir", ""));
        env.put("thread_level", new String[] {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
            "MPI_THREAD_MULTIPLE"}[threadLevel]);
        // Keys Open MPI adds, which programs written for it read: one application (shmrun starts
        // one program; MPMD launches are not supported), its first rank, the job's size.
        env.put("ompi_num_apps", "1");
        env.put("ompi_first_rank", "0");
        env.put("ompi_np", size);
        // Values are cut to what an info value holds (argv could be long).
        env.replaceAll((k, v) -> v.length() >= MPI.MAX_INFO_VAL ? v.substring(0, MPI.MAX_INFO_VAL - 1) : v);
        MPI.INFO_ENV.fill(env);
    }

    /**
     * A rank of a launched job records the failure as the job's abort and ends (the launcher
     * reports it and removes the job directory, inboxes and heap segments included). A singleton
     * is its own launcher: it removes its job directory now, not at exit, since the program may
     * catch the exception and go on.
     */
    private static MPIException initFailed(final RankProcess p, final RankContext e, final Throwable ex)
    {
        final String reason = ex instanceof IOException || ex instanceof MPIException ? ex.getMessage() : ex.toString();
        if (p != null && p.role() != RankProcess.Role.RANK && !p.isSingleton())
        {
            // No shmrun prints the cause: the rank does.
            System.err.println("shmpi: rank " + p.rank() + " failed in MPI_Init: " + reason);
        }
        if (p != null && !p.isSingleton())
        {
            p.abortJob(AbortKind.RANK_FAILED, 1, "rank " + p.rank() + " failed in MPI_Init: " + reason);
        }
        if (e != null)
        {
            try
            {
                e.close();
            }
            catch (final RuntimeException ignore)
            {
                // The mappings go with the directory and the process.
            }
        }
        if (p != null)
        {
            p.close();
        }
        return new MPIException(ErrorClass.ERR_OTHER, "MPI_Init failed: " + reason, ex);
    }

    /**
     * Agrona 2.x reads {@code jdk.internal.misc.Unsafe}, which {@code java.base} exports only when
     * asked on the command line. Without the export the first Agrona buffer dies deep inside
     * Init with an {@code IllegalAccessError}; no switch or manifest entry fixes that for a
     * {@code java -cp} start, and every run-time workaround is a hack the JVM warns about. So:
     * check first, and say in one line what to add. The export must reach Agrona's module: the
     * unnamed module on the class path, {@code org.agrona} on the module path.
     */
    private static void checkJvmFlags()
    {
        final Module agrona = org.agrona.DirectBuffer.class.getModule();
        if (!Object.class.getModule().isExported("jdk.internal.misc", agrona))
        {
            final String target = agrona.isNamed() ? agrona.getName() : "ALL-UNNAMED";
            final String nativeTarget = agrona.isNamed() ? "com.sun.jna" : "ALL-UNNAMED";
            final MPIException ex = new MPIException(ErrorClass.ERR_OTHER,
                "MPI_Init: shmpi needs the JVM flags --add-exports java.base/jdk.internal.misc=" + target +
                " --enable-native-access=" + nativeTarget +
                "; start the program with shmrun, which adds them, or add them to the java command line");
            // Uncaught out of main, the JVM prints the exception's first line and its frames: without
            // frames the user sees this one line. The message is the whole story; no frame adds to it.
            ex.setStackTrace(new StackTraceElement[0]);
            throw ex;
        }
    }

    private static void installUncaughtHandler(final Thread thread)
    {
        final Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
        thread.setUncaughtExceptionHandler((t, e) ->
        {
            final RankProcess p = process;
            if (p != null && initialized && !finalized)
            {
                e.printStackTrace();
                Profile.flush(false);
                p.abortJob(AbortKind.RANK_FAILED, 1, "rank " + p.rank() + " threw " + e);
            }
            else if (previous != null)
            {
                previous.uncaughtException(t, e);
            }
        });
    }

    private static void deleteSingletonJob(final RankProcess p)
    {
        try
        {
            p.directory().delete();
        }
        catch (final IOException ignore)
        {
            // Left behind, it is found as stale by shmrun --cleanup.
        }
    }

    /** Names of the context ids in use, for status reports ({@code shmrun --status}). */
    private static final Map<Integer, String> CONTEXT_NAMES = new ConcurrentSkipListMap<>();

    /** Names a communicator's two context ids in status reports (communicators call it when made). */
    static void nameContexts(final Comm comm, final String name)
    {
        CONTEXT_NAMES.put(comm.contextId, name);
        CONTEXT_NAMES.put(comm.collContextId, name + " (collectives)");
    }

    /** Forgets a freed communicator's context ids. */
    static void forgetContexts(final Comm comm)
    {
        CONTEXT_NAMES.remove(comm.contextId);
        CONTEXT_NAMES.remove(comm.collContextId);
    }

    /**
     * The rank's status-file text: the names of its context ids, then what its engines have
     * outstanding, by peer; null when no thread is inside an MPI call to answer.
     */
    private static String describeEngines(final RankContext e, final long timeoutMs)
    {
        final String engines = e.progress().describe(timeoutMs);
        if (engines == null)
        {
            return null;
        }
        final StringBuilder out = new StringBuilder("contexts:");
        String sep = " ";
        for (final Map.Entry<Integer, String> c : CONTEXT_NAMES.entrySet())
        {
            out.append(sep).append(c.getKey()).append('=').append(c.getValue());
            sep = ", ";
        }
        return out.append('\n').append(engines).toString();
    }

    /**
     * {@code MPI.Finalize}: deletes {@code COMM_SELF}'s attributes, waits for the unbuffered sends,
     * meets every rank in a barrier, then closes the rank's services and leaves the job.
     */
    static void finish()
    {
        synchronized (LOCK)
        {
            check();
            // MPI-2.2 8.7.1: COMM_SELF is freed first, so its attributes' delete callbacks run
            // (a library's clean-up hook), the last set first.
            MPI.COMM_SELF.deleteAllAttributes();
            awaitUnbufferedSends();
            Collectives.barrier(MPI.COMM_WORLD, BlockedCall.FINALIZE);
            if (Profile.flush(true))
            {
                // No launcher builds the report (srun, mpirun): rank 0 does, once every rank wrote its last record.
                Collectives.barrier(MPI.COMM_WORLD, BlockedCall.FINALIZE);
                Profile.buildReport();
            }
            JobGateway.stopAll();
            Ports.stop(rankContext);
            Names.stop();
            Spawns.stop();
            process.alsoWatch(null);
            Connections.stop();
            finalized = true;
            process.finalized();
            rankContext.close();
            if (cluster != null)
            {
                cluster.leave();
            }
            process.close();
        }
    }

    /** Buffered sends made without an attached buffer that had not left when their call returned. */
    private static final List<SendRequest> UNBUFFERED = new ArrayList<>();

    /** Remembers a buffered send made without an attached buffer that has not left yet: Finalize waits for it. */
    static void unbufferedSendQueued(final SendRequest s)
    {
        synchronized (UNBUFFERED)
        {
            UNBUFFERED.removeIf(SendRequest::isComplete);
            UNBUFFERED.add(s);
        }
    }

    /** Waits until every buffered send made without an attached buffer has left (at Finalize). */
    private static void awaitUnbufferedSends()
    {
        synchronized (UNBUFFERED)
        {
            for (final SendRequest s : UNBUFFERED)
            {
                if (!s.isComplete())
                {
                    rankContext.progress().await(s);
                }
            }
            UNBUFFERED.clear();
        }
    }

    /** Throws {@code ERR_OTHER} unless the rank is between Init and Finalize. */
    static void check()
    {
        if (!initialized)
        {
            throw new MPIException(ErrorClass.ERR_OTHER, "MPI is not initialized");
        }
        if (finalized)
        {
            throw new MPIException(ErrorClass.ERR_OTHER, "MPI is finalized");
        }
    }

    /** Whether Init has succeeded (and stays true after Finalize). */
    static boolean isInitialized()
    {
        return initialized;
    }

    /** Whether Finalize has succeeded. */
    static boolean isFinalized()
    {
        return finalized;
    }

    /** The thread level provided by Init (checks that MPI is initialized). */
    static int queryThread()
    {
        check();
        return threadLevel;
    }

    /** Whether the caller is the thread that ran Init (checks that MPI is initialized). */
    static boolean isThreadMain()
    {
        check();
        return Thread.currentThread() == mainThread;
    }

    /** This rank's services (null before Init). */
    static RankContext context()
    {
        return rankContext;
    }

    /** {@code Comm.abort}: record the call in the job file and end this process with the code. */
    static void abortJob(final Comm comm, final int errorcode)
    {
        final RankProcess p = process;
        if (p == null)
        {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(errorcode);
            return;
        }
        Profile.flush(false);
        p.abortJob(AbortKind.MPI_ABORT, errorcode,
            "rank " + p.rank() + " called MPI_Abort(" + comm.getName() + ", " + errorcode + ")");
    }

    /** ERRORS_ARE_FATAL: report the error and abort the job, exiting with the error class. */
    static void fatalError(final Comm comm, final MPIException ex)
    {
        final RankProcess p = process;
        final String what = ErrorClass.name(ex.getErrorClass()) + " on " + comm.getName() + ": " + ex.getMessage();
        System.err.println("shmpi: rank " + (p == null ? "?" : p.rank()) + ": " + what);
        ex.printStackTrace();
        final int code = ex.getErrorClass() > 0 ? ex.getErrorClass() : 1;
        if (p != null)
        {
            Profile.flush(false);
            p.abortJob(AbortKind.RANK_FAILED, code, "rank " + p.rank() + ": " + what);
        }
    }

    /** Another rank (or the launcher) aborted the job while this one waited: exit now. */
    static void exitBecauseAborted()
    {
        final RankProcess p = process;
        if (p != null)
        {
            p.exitAborted();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(RankProcess.ABORTED_EXIT_CODE);
    }
}
