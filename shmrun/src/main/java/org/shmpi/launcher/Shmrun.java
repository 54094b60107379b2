package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.shmpi.shm.settings.SettingsRegistry;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.ShmpiConfig;

/**
 * {@code shmrun}: starts an MPI job of N ranks, one JVM each, over shared memory. The
 * {@code bin/shmrun} script starts this class with the JVM flags the runtime needs and tells it
 * where shmpi lives ({@code -Dshmpi.home}) and which flags the ranks need
 * ({@code -Dshmpi.rank.jvm.flags}).
 */
public final class Shmrun
{
    /** The smallest open-file limit a job is started with. */
    static final long MIN_OPEN_FILES = 64;
    static final String HOME_PROP = SettingsRegistry.HOME.name();
    static final String RANK_JVM_FLAGS_PROP = SettingsRegistry.RANK_JVM_FLAGS.name();

    private Shmrun()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.err));
    }

    static int run(final String[] args, final PrintStream err)
    {
        final LaunchOptions options;
        try
        {
            options = LaunchOptions.parse(args, System.getenv());
        }
        catch (final LaunchOptions.UsageException ex)
        {
            err.println("shmrun: " + ex.getMessage());
            return 2;
        }
        final ShmpiConfig config;
        try
        {
            // The settings the ranks get (--mca, -D) are the launcher's too: where the job lives
            // (shmpi.shm.dir), heartbeats, grace, timeouts.
            final java.util.Properties props = new java.util.Properties();
            props.putAll(System.getProperties());
            for (final String a : options.jvmArgs)
            {
                final int eq = a.indexOf('=');
                if (a.startsWith("-Dshmpi.") && eq > 0)
                {
                    props.setProperty(a.substring(2, eq), a.substring(eq + 1));
                }
            }
            config = ShmpiConfig.from(props, System.getenv());
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("shmrun: bad setting: " + ex.getMessage());
            return 2;
        }
        try
        {
            switch (options.action())
            {
                case HELP:
                    System.out.print(usage());
                    return 0;
                case VERSION:
                    System.out.println("shmrun (shmpi) " + Version.VERSION);
                    return 0;
                case INFO:
                    System.out.print(ShmInfo.report(config));
                    return 0;
                case CLEANUP:
                {
                    final List<Path> removed = JobDirectory.cleanupStale(config.shmDir());
                    for (final Path p : removed)
                    {
                        System.out.println("shmrun: removed stale job directory " + p);
                    }
                    System.out.println("shmrun: " + removed.size() + " stale job director" +
                        (removed.size() == 1 ? "y" : "ies") + " removed");
                    return 0;
                }
                case STATUS:
                    return status(options, config, err);
                case REPORT_TEXT:
                    return JobReports.text(Path.of(options.reportDir), err);
                case PRINT_JVM_FLAGS:
                {
                    // What a rank JVM started by another launcher (srun, mpirun) needs: shmpi's
                    // required flags and shmrun's defaults, on one line for a shell's $(...).
                    final List<String> flags = new ArrayList<>(rankJvmFlags());
                    flags.addAll(RankJvmDefaults.selected(options.jvmDefaults, jvmDefaultsSetting(options)));
                    System.out.println(String.join(" ", flags));
                    return 0;
                }
                case RUN:
                default:
                {
                    // Below this, the launcher or a rank fails somewhere in start-up (a JVM alone holds ~20).
                    final long openFiles = org.shmpi.shm.Limits.openFiles();
                    if (openFiles >= 0 && openFiles < MIN_OPEN_FILES)
                    {
                        err.println("shmrun: the open-file limit (ulimit -n) is " + openFiles +
                            "; a job needs at least " + MIN_OPEN_FILES + ": raise it");
                        return 1;
                    }
                    final List<String> jars = shmpiClasspath();
                    final String setting = jvmDefaultsSetting(options);
                    final JobReports report = JobReports.prepare(options, config, args, err);
                    int code = 1;
                    try
                    {
                        if (options.isMultiHost())
                        {
                            try
                            {
                                code = new HostJob(options, config, jars, rankJvmFlags(),
                                    RankJvmDefaults.selected(options.jvmDefaults, setting), err).run();
                            }
                            catch (final LaunchOptions.UsageException ex)
                            {
                                err.println("shmrun: " + ex.getMessage());
                                code = 2;
                            }
                            return code;
                        }
                        code = new Job(options, config, jars, rankJvmFlags(),
                            RankJvmDefaults.selected(options.jvmDefaults, setting),
                            RankJvmDefaults.isDefault(options.jvmDefaults, setting) ? archive(options, jars) : null,
                            err).run();
                        return code;
                    }
                    finally
                    {
                        if (report != null)
                        {
                            report.finish(code);
                        }
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            err.println(org.shmpi.shm.Limits.explain("shmrun: " + ex, ex));
            return 1;
        }
    }

    /**
     * {@code shmrun --status JOB}: prints the status report of a running job, named by its job
     * directory or by its launcher's pid.
     */
    static int status(final LaunchOptions options, final ShmpiConfig config, final PrintStream err) throws IOException
    {
        final Path dir = findJob(options.statusTarget, config.shmDir());
        if (dir == null)
        {
            err.println("shmrun: --status: no running job " + options.statusTarget + " (give a job directory under " +
                JobDirectory.userRoot(config.shmDir()) + " or the pid of its shmrun)");
            return 1;
        }
        final JobDirectory job = new JobDirectory(dir);
        try (JobFile file = JobFile.attach(job.jobFile(), 1_000))
        {
            System.out.print(StatusReport.collect(dir, file, options.threads, StatusReport.ANSWER_TIMEOUT_MS));
            System.out.flush();
        }
        return 0;
    }

    /** The job directory that {@code target} names (a path, or a launcher pid); null if none. */
    static Path findJob(final String target, final String shmDir) throws IOException
    {
        final Path asPath = Path.of(target);
        if (Files.isRegularFile(asPath.resolve("job")))
        {
            return asPath;
        }
        final long pid;
        try
        {
            pid = Long.parseLong(target.trim());
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
        final Path root = JobDirectory.userRoot(shmDir);
        if (!Files.isDirectory(root))
        {
            return null;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root))
        {
            for (final Path d : dirs)
            {
                if (JobDirectory.launcherPidOf(d) == pid && Files.isRegularFile(d.resolve("job")))
                {
                    return d;
                }
            }
        }
        return null;
    }

    /** The jars of shmpi itself, from {@code <shmpi.home>/lib}, else this JVM's class path. */
    static List<String> shmpiClasspath() throws IOException
    {
        final String home = System.getProperty(HOME_PROP);
        final List<String> jars = new ArrayList<>();
        if (home != null)
        {
            final Path lib = Path.of(home, "lib");
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(lib, "*.jar"))
            {
                for (final Path jar : dir)
                {
                    jars.add(jar.toAbsolutePath().toString());
                }
            }
            jars.sort(String::compareTo);
            return jars;
        }
        jars.addAll(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        return jars;
    }

    static List<String> rankJvmFlags()
    {
        final String flags = System.getProperty(RANK_JVM_FLAGS_PROP, "").trim();
        final List<String> list = new ArrayList<>();
        if (!flags.isEmpty())
        {
            list.addAll(Arrays.asList(flags.split("\\s+")));
        }
        return list;
    }

    /**
     * The setting of the ranks' default JVM flags ({@link RankJvmDefaults}): as given to the ranks
     * ({@code -D}/{@code --mca}), else this JVM's property, else the environment; null if unset.
     */
    static String jvmDefaultsSetting(final LaunchOptions options)
    {
        String setting = options.jvmDefaultsSetting();
        if (setting == null)
        {
            setting = System.getProperty(RankJvmDefaults.PROP_NAME);
        }
        if (setting == null)
        {
            setting = System.getenv(RankJvmDefaults.ENV_NAME);
        }
        return setting;
    }

    /**
     * @param options the command line, or null (shminfo)
     * @return the class-data archive of these jars for this JVM, or null when switched off; its
     *         directory is the setting {@value ClassDataArchive#DIR_PROP} as given to the ranks, else
     *         this JVM's property, else the environment, else the default
     */
    static ClassDataArchive archive(final LaunchOptions options, final List<String> jars)
    {
        String setting = options == null ? null : options.rankProperty(ClassDataArchive.DIR_PROP);
        if (setting == null)
        {
            setting = System.getProperty(ClassDataArchive.DIR_PROP);
        }
        if (setting == null)
        {
            setting = System.getenv(ClassDataArchive.DIR_ENV);
        }
        final Path dir = ClassDataArchive.directory(setting, System.getProperty(HOME_PROP), System.getenv());
        return dir == null ? null : ClassDataArchive.of(dir, Job.javaCommand(), jars, rankJvmFlags());
    }

    static String usage()
    {
        return String.join("\n",
            "Usage: shmrun -np N [options] -cp CLASSPATH MainClass [args...]",
            "       shmrun -np N [options] -jar app.jar [args...]",
            "       shmrun -np N [options] java [jvm options] MainClass [args...]",
            "       shmrun --status JOB [--threads]",
            "       shmrun --report-text DIR",
            "       shmrun --cleanup | --info | --version | --help",
            "",
            "Starts N ranks of an MPI program, one JVM each, talking through shared memory;",
            "with a host file, on several hosts joined by TCP.",
            "",
            "Options:",
            "  -np N, -n N            number of ranks",
            "  --bind-to core|numa|none  pin each rank to a core (round robin over the allowed",
            "                         CPUs, one hardware thread per core first) or a NUMA node;",
            "                         default: core when the ranks fit on the allowed cores, else none",
            "  --report-bindings      print where each rank is bound, and why; with",
            "                         -Dshmpi.topology.file=F ranks are placed on F's machine,",
            "                         only simulated (not pinned) when its CPUs are not here",
            "  --timeout SECONDS      abort the job when it runs longer (exit status 124), after",
            "                         printing the status report (see --status)",
            "  --universe-size N      MPI.UNIVERSE_SIZE, what programs that spawn may use (default: the CPUs)",
            "  --threads              status reports (--timeout, SIGQUIT) add every rank's thread stacks",
            "  --tag-output           prefix each output line with [1,rank]<stdout>: or <stderr>:",
            "  -x NAME[=VALUE]        pass an environment variable to every rank",
            "  -DNAME=VALUE           set a system property in every rank",
            "  --jvm-arg ARG          pass a JVM option to every rank (it wins over shmrun's defaults)",
            "  --jvm-defaults none|default|'FLAGS'  drop or replace shmrun's default JVM flags of",
            "                         the ranks (also -Dshmpi.launcher.jvm.defaults=...)",
            "  --mca NAME VALUE       set the shmpi setting shmpi.NAME in every rank",
            "  --keep-shm             keep the job directory in /dev/shm for inspection (until --cleanup)",
            "  --report DIR           record what every rank does in MPI and write the job's report",
            "                         into DIR: index.html, report.json, CSV tables (also after a",
            "                         failed job); prints a summary at the end (also -Dshmpi.report.dir=DIR)",
            "  --report-text DIR      (re)build the report in DIR from the ranks' records and print",
            "                         its summary (e.g. after a job started by srun)",
            "  --hostfile FILE        run on the hosts of FILE (lines 'host slots=N'; default: the",
            "                         file named by OMPI_MCA_orte_default_hostfile); ranks on other",
            "                         hosts start through ssh; -np defaults to the slots",
            "  --host a:4,b:4         the same with the hosts on the command line",
            "  --map-by slot|node     fill each host's slots in turn (default), or one rank per host",
            "                         in turn; -npernode N: N ranks on each host",
            "  --oversubscribe        allow more ranks than slots",
            "  --launch-agent CMD     start ranks on other hosts with CMD host ... (default",
            "                         'ssh -o BatchMode=yes'; also SHMPI_LAUNCH_AGENT,",
            "                         OMPI_MCA_plm_rsh_agent)",
            "  --print-jvm-flags      print the JVM flags a rank needs, for launchers such as srun:",
            "                         srun java $(shmrun --print-jvm-flags) -cp app.jar Main",
            "  --status JOB           print a running job's status: every rank's state, the MPI call",
            "                         it is blocked in and for how long, its posted receives and",
            "                         unexpected messages by peer, and a verdict on the waits",
            "                         (deadlock cycles); JOB is the job directory or shmrun's pid.",
            "                         SIGQUIT to shmrun (kill -QUIT) prints the same to stderr",
            "  --cleanup              remove job directories left by dead jobs (never a live one's)",
            "  --info                 print version, topology and settings (same as shminfo)",
            "  --version              print the version",
            "  -h, --help             print this help",
            "",
            "Exit status: 0 when every rank exits 0; otherwise the status of the first rank that",
            "failed (128+N for signal N), the code given to MPI_Abort, 124 on --timeout, 130 on",
            "SIGINT and 143 on SIGTERM; 2 for a bad command line.",
            "");
    }
}
