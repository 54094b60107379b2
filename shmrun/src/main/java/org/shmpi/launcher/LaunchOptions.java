package org.shmpi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import org.shmpi.affinity.MappingPolicy;

/**
 * The command line of {@code shmrun}, parsed. Launcher options come first; the first word that
 * is not one of them starts the program, in one of three forms:
 * <ul>
 * <li>{@code -cp CLASSPATH MainClass [args]} (also {@code -classpath}, {@code --class-path});</li>
 * <li>{@code -jar app.jar [args]};</li>
 * <li>{@code java [jvm options] MainClass [args]} (or {@code java ... -jar app.jar}), the form
 *     an Open MPI user types after {@code mpirun -np 2}.</li>
 * </ul>
 */
public final class LaunchOptions
{
    /** What the command line asks for. */
    public enum Action
    {
        RUN, HELP, VERSION, INFO, CLEANUP, STATUS, PRINT_JVM_FLAGS, REPORT_TEXT
    }

    /** The environment variable of Open MPI (and the Kubernetes MPI Operator) naming a default host file. */
    static final String DEFAULT_HOSTFILE_ENV = "OMPI_MCA_orte_default_hostfile";

    /** JVM options that take their value as the next word. */
    private static final Set<String> JVM_OPTIONS_WITH_VALUE = Set.of(
        "-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules", "--add-opens",
        "--add-exports", "--add-reads", "--upgrade-module-path", "--limit-modules", "--patch-module");

    Action action = Action.RUN;
    int np = -1;
    /** {@code --bind-to}; null: the default (see {@link RankPlacement}). */
    MappingPolicy bindTo;
    boolean reportBindings;
    long timeoutSeconds;
    /** {@code --universe-size}: MPI.UNIVERSE_SIZE; 0: the machine's CPUs. */
    int universeSize;
    boolean tagOutput;
    boolean keepShm;
    /** {@code --report DIR} (a job's report goes there) or {@code --report-text DIR}; null: none. */
    String reportDir;
    /** {@code --status JOB}: a job directory, or the pid of its launcher. */
    String statusTarget;
    /** {@code --threads}: status reports carry every thread's stack of every rank. */
    boolean threads;
    /** {@code --jvm-defaults}: null (the setting decides), {@code default}, {@code none}, or flags. */
    String jvmDefaults;
    final Map<String, String> env = new LinkedHashMap<>();
    final List<String> jvmArgs = new ArrayList<>();
    final List<String> classpath = new ArrayList<>();
    String mainClass;
    final List<String> programArgs = new ArrayList<>();
    /** {@code --hostfile FILE} (or the default host file of the environment); null: none. */
    String hostfile;
    /** {@code --host a:4,b:4}; null: none. */
    String hosts;
    /** {@code --map-by node|slot}: true for node (round robin over the hosts). */
    boolean mapByNode;
    /** {@code -npernode N}; 0: not given. */
    int perNode;
    /** {@code --oversubscribe}: more ranks than the hosts' slots. */
    boolean oversubscribe;
    /** {@code --launch-agent CMD}: how ranks on other hosts start (default {@code ssh}). */
    String launchAgent;

    private LaunchOptions()
    {
    }

    /** Parses {@code args}; bad input throws {@link UsageException} naming the word. */
    public static LaunchOptions parse(final String[] args, final Map<String, String> callerEnv)
    {
        final LaunchOptions o = new LaunchOptions();
        int i = 0;
        while (i < args.length)
        {
            final String a = args[i];
            if (!a.startsWith("-") || a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path") ||
                a.equals("-jar"))
            {
                break;
            }
            i++;
            switch (name(a))
            {
                case "-np":
                case "-n":
                case "--np":
                    o.np = parseInt(a, value(a, args, i));
                    i += hasInlineValue(a) ? 0 : 1;
                    if (o.np < 1)
                    {
                        throw new UsageException("number of ranks must be at least 1: " + a + " " + o.np);
                    }
                    break;
                case "--bind-to":
                    try
                    {
                        o.bindTo = MappingPolicy.parse(value(a, args, i));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new UsageException("--bind-to: " + ex.getMessage());
                    }
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--report-bindings":
                    o.reportBindings = true;
                    break;
                case "--hostfile":
                case "-hostfile":
                case "--machinefile":
                case "-machinefile":
                    o.hostfile = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--host":
                case "-host":
                case "-H":
                    o.hosts = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--map-by":
                {
                    final String by = value(a, args, i).toLowerCase(java.util.Locale.ROOT);
                    i += hasInlineValue(a) ? 0 : 1;
                    if (!by.equals("node") && !by.equals("slot"))
                    {
                        throw new UsageException("--map-by node or slot, not " + by);
                    }
                    o.mapByNode = by.equals("node");
                    break;
                }
                case "-npernode":
                case "--npernode":
                    o.perNode = parseInt(a, value(a, args, i));
                    i += hasInlineValue(a) ? 0 : 1;
                    if (o.perNode < 1)
                    {
                        throw new UsageException("-npernode must be at least 1: " + o.perNode);
                    }
                    break;
                case "--oversubscribe":
                    o.oversubscribe = true;
                    break;
                case "--launch-agent":
                    o.launchAgent = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--print-jvm-flags":
                    o.action = Action.PRINT_JVM_FLAGS;
                    break;
                case "--timeout":
                    o.timeoutSeconds = parseInt(a, value(a, args, i));
                    i += hasInlineValue(a) ? 0 : 1;
                    if (o.timeoutSeconds < 1)
                    {
                        throw new UsageException("--timeout must be at least 1 second: " + o.timeoutSeconds);
                    }
                    break;
                case "--universe-size":
                    o.universeSize = parseInt(a, value(a, args, i));
                    i += hasInlineValue(a) ? 0 : 1;
                    if (o.universeSize < 1)
                    {
                        throw new UsageException("--universe-size must be at least 1: " + o.universeSize);
                    }
                    break;
                case "--tag-output":
                    o.tagOutput = true;
                    break;
                case "--keep-shm":
                    o.keepShm = true;
                    break;
                case "--report":
                    o.reportDir = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--report-text":
                    o.action = Action.REPORT_TEXT;
                    o.reportDir = value(a, args, i);
                    return o;
                case "-x":
                {
                    final String spec = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    final int eq = spec.indexOf('=');
                    if (eq == 0)
                    {
                        throw new UsageException("-x needs NAME or NAME=VALUE: -x " + spec);
                    }
                    if (eq > 0)
                    {
                        o.env.put(spec.substring(0, eq), spec.substring(eq + 1));
                    }
                    else
                    {
                        final String v = callerEnv.get(spec);
                        if (v != null)
                        {
                            o.env.put(spec, v);
                        }
                    }
                    break;
                }
                case "--jvm-defaults":
                    o.jvmDefaults = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--jvm-arg":
                    o.jvmArgs.add(value(a, args, i));
                    i += hasInlineValue(a) ? 0 : 1;
                    break;
                case "--mca":
                {
                    if (i + 1 >= args.length)
                    {
                        throw new UsageException("--mca needs NAME VALUE");
                    }
                    final String key = args[i];
                    o.jvmArgs.add("-D" + (key.startsWith("shmpi.") ? key : "shmpi." + key) + "=" + args[i + 1]);
                    i += 2;
                    break;
                }
                case "-h":
                case "--help":
                    o.action = Action.HELP;
                    return o;
                case "--version":
                    o.action = Action.VERSION;
                    return o;
                case "--info":
                    o.action = Action.INFO;
                    return o;
                case "--cleanup":
                    o.action = Action.CLEANUP;
                    return o;
                case "--status":
                    o.action = Action.STATUS;
                    o.statusTarget = value(a, args, i);
                    i += hasInlineValue(a) ? 0 : 1;
                    for (; i < args.length; i++)
                    {
                        if (!args[i].equals("--threads"))
                        {
                            throw new UsageException("--status JOB takes only --threads after it: " + args[i]);
                        }
                        o.threads = true;
                    }
                    return o;
                case "--threads":
                    o.threads = true;
                    break;
                default:
                    if (a.startsWith("-D") && a.length() > 2)
                    {
                        o.jvmArgs.add(a);
                        break;
                    }
                    throw new UsageException("unknown option: " + a + " (see shmrun --help)");
            }
        }
        if (o.action == Action.PRINT_JVM_FLAGS)
        {
            return o;
        }
        if (o.hostfile == null && o.hosts == null)
        {
            final String fallback = callerEnv.get(DEFAULT_HOSTFILE_ENV);
            if (fallback != null && !fallback.isBlank())
            {
                o.hostfile = fallback.trim();
            }
        }
        if (o.np < 0 && !o.isMultiHost())
        {
            throw new UsageException("missing -np N (number of ranks)");
        }
        if (i >= args.length)
        {
            throw new UsageException("missing program: give -cp CLASSPATH MainClass, -jar app.jar, or java ...");
        }
        if (args[i].equals("java") || args[i].endsWith("/java"))
        {
            i = o.parseJavaCommand(args, i + 1);
        }
        else
        {
            i = o.parseProgram(args, i);
        }
        for (int k = i; k < args.length; k++)
        {
            o.programArgs.add(args[k]);
        }
        return o;
    }

    private int parseProgram(final String[] args, final int start)
    {
        int i = start;
        final String a = args[i];
        if (a.equals("-jar"))
        {
            return jar(args, i + 1);
        }
        if (a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path"))
        {
            if (i + 1 >= args.length)
            {
                throw new UsageException(a + " needs a class path and a main class");
            }
            Collections.addAll(classpath, args[i + 1].split(":"));
            i += 2;
            if (i >= args.length)
            {
                throw new UsageException("missing main class after " + a + " " + args[i - 1]);
            }
            mainClass = args[i];
            return i + 1;
        }
        // A bare class name: the class path comes from CLASSPATH, else the current directory.
        mainClass = a;
        return i + 1;
    }

    private int parseJavaCommand(final String[] args, final int start)
    {
        int i = start;
        while (i < args.length && args[i].startsWith("-"))
        {
            final String a = args[i];
            if (a.equals("-jar"))
            {
                return jar(args, i + 1);
            }
            if (a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path"))
            {
                if (i + 1 >= args.length)
                {
                    throw new UsageException(a + " needs a class path");
                }
                Collections.addAll(classpath, args[i + 1].split(":"));
                i += 2;
                continue;
            }
            if (JVM_OPTIONS_WITH_VALUE.contains(a))
            {
                if (i + 1 >= args.length)
                {
                    throw new UsageException(a + " needs a value");
                }
                jvmArgs.add(a);
                jvmArgs.add(args[i + 1]);
                i += 2;
                continue;
            }
            jvmArgs.add(a);
            i++;
        }
        if (i >= args.length)
        {
            throw new UsageException("missing main class after java");
        }
        mainClass = args[i];
        return i + 1;
    }

    private int jar(final String[] args, final int i)
    {
        if (i >= args.length)
        {
            throw new UsageException("-jar needs a jar file");
        }
        final Path jar = Path.of(args[i]);
        if (!Files.isRegularFile(jar))
        {
            throw new UsageException("jar file not found: " + jar);
        }
        try (JarFile file = new JarFile(jar.toFile()))
        {
            final Manifest manifest = file.getManifest();
            final String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
            if (main == null)
            {
                throw new UsageException("no Main-Class in the manifest of " + jar);
            }
            classpath.add(jar.toString());
            mainClass = main.trim();
        }
        catch (final IOException ex)
        {
            throw new UsageException("cannot read jar file " + jar + ": " + ex.getMessage());
        }
        return i + 1;
    }

    private static String name(final String a)
    {
        final int eq = a.indexOf('=');
        return eq > 0 && a.startsWith("--") || eq > 0 && a.startsWith("-np") ? a.substring(0, eq) : a;
    }

    private static boolean hasInlineValue(final String a)
    {
        return !name(a).equals(a);
    }

    private static String value(final String a, final String[] args, final int i)
    {
        if (hasInlineValue(a))
        {
            return a.substring(a.indexOf('=') + 1);
        }
        if (i >= args.length)
        {
            throw new UsageException(a + " needs a value");
        }
        return args[i];
    }

    private static int parseInt(final String option, final String text)
    {
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " needs a number: " + option + " " + text);
        }
    }

    /** Whether ranks go to hosts named by a host file or {@code --host}. */
    boolean isMultiHost()
    {
        return hostfile != null || hosts != null;
    }

    public Action action()
    {
        return action;
    }

    public int np()
    {
        return np;
    }

    public String mainClass()
    {
        return mainClass;
    }

    public List<String> classpath()
    {
        return classpath;
    }

    public List<String> jvmArgs()
    {
        return jvmArgs;
    }

    public List<String> programArgs()
    {
        return programArgs;
    }

    public Map<String, String> env()
    {
        return env;
    }

    /**
     * The value of the setting {@value RankJvmDefaults#PROP_NAME} given to the ranks as
     * {@code -D} or {@code --mca} (the last one), or null.
     */
    String jvmDefaultsSetting()
    {
        return rankProperty(RankJvmDefaults.PROP_NAME);
    }

    /** @return the last {@code -Dname=value} among the ranks' JVM options, or null. */
    String rankProperty(final String name)
    {
        final String prefix = "-D" + name + "=";
        String value = null;
        for (final String a : jvmArgs)
        {
            if (a.startsWith(prefix))
            {
                value = a.substring(prefix.length());
            }
        }
        return value;
    }

    /** A command line that shmrun cannot run; the message says which word is wrong. */
    public static final class UsageException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public UsageException(final String message)
        {
            super(message);
        }
    }
}
