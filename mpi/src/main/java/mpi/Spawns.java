package mpi;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;

/**
 * {@code spawn} and {@code spawnMultiple}: the root opens a port, asks the launcher for the
 * children (a request file in the job directory's {@code spawn} folder, which {@code shmrun}
 * watches), and accepts on the spawning communicator; the children connect to that port during
 * their {@code MPI.Init} ({@link #connectToParent}), which makes the intercommunicator both sides
 * get. The launcher answers in a reply file only when a child cannot start or exits before the
 * connection is made; the root then gives up the accept, and every member gets {@code ERR_SPAWN}
 * with a code per child. After the connection the root writes an acknowledgement file, and from
 * then on the launcher treats the children as ranks of the job.
 */
final class Spawns
{
    /** Set by {@code shmrun} for the ranks it starts: it takes spawn requests. */
    static final String LAUNCHER_ENV = "SHMPI_SPAWN";
    /** For a spawned rank: the port of its parents. */
    static final String PARENT_PORT_ENV = "SHMPI_PARENT_PORT";
    /** For a spawned rank: which command of {@code spawnMultiple} it runs (0 otherwise). */
    static final String APPNUM_ENV = "SHMPI_APPNUM";
    /** How many processes the job may usefully run, as the launcher says (MPI.UNIVERSE_SIZE). */
    static final String UNIVERSE_ENV = "SHMPI_UNIVERSE_SIZE";
    static final String FOLDER = "spawn";

    private static final AtomicInteger NEXT = new AtomicInteger(1);
    private static volatile Intercomm parent;

    private Spawns()
    {
    }

    /** The parents' intercommunicator of a spawned rank, or null. */
    static Intercomm parent()
    {
        return parent;
    }

    /** At Init of a spawned rank: connects its world to the parents (collective over the world). */
    static void connectToParent()
    {
        final String port = System.getenv(PARENT_PORT_ENV);
        parent = port == null || port.isEmpty() ? null : Ports.connect(MPI.COMM_WORLD, port, 0);
        if (parent != null)
        {
            MPI.nameContexts(parent, "the parents' intercommunicator");
        }
    }

    /** At Finalize: forgets the parents. */
    static void stop()
    {
        parent = null;
    }

    static int appnum()
    {
        final String a = System.getenv(APPNUM_ENV);
        return a == null ? 0 : Integer.parseInt(a);
    }

    static int universeSize()
    {
        final String u = System.getenv(UNIVERSE_ENV);
        return u == null ? Math.max(MPI.COMM_WORLD.members.length, Runtime.getRuntime().availableProcessors()) :
            Integer.parseInt(u);
    }

    /** One command of a spawn: what runs, with which arguments, how many, and the info keys. */
    record App(String command, String[] argv, int maxprocs, Info info)
    {
    }

    /**
     * {@code MPI_Comm_spawn_multiple} on {@code comm} (collective; the arguments count at
     * {@code root} only). {@code errcodes}, when not null, gets a code per child on every member.
     */
    static Intercomm spawn(final Intracomm comm, final List<App> apps, final int root, final int[] errcodes)
    {
        if (root < 0 || root >= comm.members.length)
        {
            throw new MPIException(ErrorClass.ERR_ROOT, "root " + root + " of a communicator of " +
                comm.members.length);
        }
        int[] codes = null;
        String why = "";
        Intercomm ic = null;
        MPIException failure = null;
        try
        {
            String port = null;
            Request request = null;
            if (comm.myRank == root)
            {
                int total = 0;
                for (final App a : apps)
                {
                    total += a.maxprocs();
                }
                codes = new int[total];
                try
                {
                    check(apps);
                    port = Ports.open();
                    request = Request.write(apps, port);
                }
                catch (final MPIException ex)
                {
                    java.util.Arrays.fill(codes, ex.getErrorClass());
                    why = ex.getMessage();
                    if (port != null)
                    {
                        Ports.close(port);
                        port = null;
                    }
                }
            }
            final Request r = request;
            try
            {
                ic = Ports.accept(comm, port, root, r == null ? null : r::failed, "spawn");
                if (r != null)
                {
                    r.acknowledge();
                }
            }
            catch (final MPIException ex)
            {
                failure = ex;
                if (r != null)
                {
                    why = r.failure();
                    final int[] c = r.codes(codes.length);
                    System.arraycopy(c, 0, codes, 0, codes.length);
                    r.remove();
                }
            }
            finally
            {
                if (port != null)
                {
                    Ports.close(port);
                }
            }
        }
        finally
        {
            codes = CommConstruction.bcastInts(comm, codes, root, BlockedCall.BARRIER);
        }
        if (errcodes != null)
        {
            System.arraycopy(codes, 0, errcodes, 0, Math.min(codes.length, errcodes.length));
        }
        if (failure != null)
        {
            throw new MPIException(ErrorClass.ERR_SPAWN, "spawn failed" + (why.isEmpty() ? "" : ": " + why) +
                (comm.myRank == root ? "" : " (at the root)"));
        }
        MPI.nameContexts(ic, "intercomm of " + comm.getName() + " to its spawned processes");
        return ic;
    }

    /** Root: the spawn can be asked for (before anything is started). */
    private static void check(final List<App> apps)
    {
        if (System.getenv(LAUNCHER_ENV) == null)
        {
            throw new MPIException(ErrorClass.ERR_SPAWN, "spawn needs shmrun on one machine: this process was " +
                "not started by shmrun (a singleton, or a rank of a cluster launcher)");
        }
        for (final App a : apps)
        {
            if (a.command() == null || a.command().isBlank())
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "spawn: no command");
            }
            if (a.maxprocs() < 1)
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "spawn: maxprocs " + a.maxprocs() + " < 1");
            }
            final String host = infoValue(a.info(), "host");
            if (host != null && !isThisHost(host))
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "spawn: info host=" + host + " is not this machine (" +
                    "spawned processes run where shmrun runs)");
            }
            final String wdir = infoValue(a.info(), "wdir");
            if (wdir != null && !Files.isDirectory(Path.of(wdir)))
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "spawn: info wdir=" + wdir + " is not a directory");
            }
        }
    }

    /** The value of {@code key} in {@code info}, or null (no info, {@code MPI.INFO_NULL}, no such key). */
    private static String infoValue(final Info info, final String key)
    {
        return info == null || info.isNull() ? null : info.get(key);
    }

    private static boolean isThisHost(final String host)
    {
        final String h = host.trim();
        return h.equals("localhost") || h.equals("127.0.0.1") || h.equals(MPI.getProcessorName()) ||
            h.equals(MPI.getProcessorName().split("\\.")[0]);
    }

    /** The request file of one spawn, the launcher's reply, and the root's acknowledgement. */
    private static final class Request
    {
        private final Path file;
        private final Path reply;
        private final Path ack;
        private Properties answer;

        private Request(final Path file)
        {
            this.file = file;
            final String base = file.getFileName().toString().replace(".req", "");
            this.reply = file.resolveSibling(base + ".rep");
            this.ack = file.resolveSibling(base + ".ack");
        }

        static Request write(final List<App> apps, final String port)
        {
            final Path folder = Lifecycle.jobDirectory().resolve(FOLDER);
            final Properties p = new Properties();
            p.setProperty("port", port);
            p.setProperty("apps", Integer.toString(apps.size()));
            p.setProperty("classpath", System.getProperty("java.class.path", ""));
            final List<String> flags = jvmFlags();
            p.setProperty("jvmflags", Integer.toString(flags.size()));
            for (int i = 0; i < flags.size(); i++)
            {
                p.setProperty("jvmflag." + i, flags.get(i));
            }
            for (int a = 0; a < apps.size(); a++)
            {
                final App app = apps.get(a);
                p.setProperty("command." + a, app.command());
                final String[] argv = app.argv() == null ? new String[0] : app.argv();
                p.setProperty("argc." + a, Integer.toString(argv.length));
                for (int j = 0; j < argv.length; j++)
                {
                    p.setProperty("arg." + a + "." + j, argv[j]);
                }
                p.setProperty("maxprocs." + a, Integer.toString(app.maxprocs()));
                for (final String key : new String[] {"wdir", "env"})
                {
                    final String v = infoValue(app.info(), key);
                    if (v != null)
                    {
                        p.setProperty(key + "." + a, v);
                    }
                }
            }
            try
            {
                Files.createDirectories(folder);
                final String base = ProcessHandle.current().pid() + "-" + NEXT.getAndIncrement();
                final Path tmp = folder.resolve(base + ".tmp");
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8))
                {
                    p.store(w, null);
                }
                final Path file = folder.resolve(base + ".req");
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
                return new Request(file);
            }
            catch (final IOException ex)
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "cannot ask the launcher for processes: " +
                    ex.getMessage());
            }
        }

        /** The JVM flags of this process that its children get: all but where this one was bound or dumped. */
        private static List<String> jvmFlags()
        {
            final List<String> out = new ArrayList<>();
            for (final String f : ManagementFactory.getRuntimeMXBean().getInputArguments())
            {
                if (!f.startsWith("-XX:ArchiveClassesAtExit") && !f.startsWith("-Dshmpi.rank.cpus"))
                {
                    out.add(f);
                }
            }
            return out;
        }

        /** Whether the launcher said the children could not all start (then the accept gives up). */
        boolean failed()
        {
            if (answer == null && Files.exists(reply))
            {
                final Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(reply, StandardCharsets.UTF_8))
                {
                    p.load(r);
                }
                catch (final IOException ex)
                {
                    return false;
                }
                answer = p;
            }
            return answer != null && "failed".equals(answer.getProperty("status"));
        }

        String failure()
        {
            return answer == null ? "" : answer.getProperty("message", "");
        }

        int[] codes(final int n)
        {
            final int[] c = new int[n];
            for (int i = 0; i < n; i++)
            {
                c[i] = answer == null ? ErrorClass.ERR_SPAWN :
                    Integer.parseInt(answer.getProperty("code." + i, Integer.toString(ErrorClass.ERR_SPAWN)));
            }
            return c;
        }

        void acknowledge()
        {
            try
            {
                Files.writeString(ack, "joined\n");
            }
            catch (final IOException ex)
            {
                throw new MPIException(ErrorClass.ERR_SPAWN, "cannot tell the launcher the children joined: " +
                    ex.getMessage());
            }
        }

        void remove()
        {
            try
            {
                Files.deleteIfExists(reply);
                Files.deleteIfExists(file);
            }
            catch (final IOException ignore)
            {
                // The launcher removes the folder with the job.
            }
        }
    }
}
