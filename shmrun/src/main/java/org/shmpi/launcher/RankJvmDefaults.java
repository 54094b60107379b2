package org.shmpi.launcher;

import org.shmpi.shm.settings.SettingsRegistry;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The JVM flags {@code shmrun} gives every rank for speed (not for correctness: the flags the
 * runtime needs are {@code shmpi.jvm.flags} of the parent POM and {@code bin/shmrun}). They are
 * declared here and nowhere else; docs/PERFORMANCE.md has the measurements behind each.
 *
 * <p>The user wins: a flag of ours is dropped when the user's JVM options (from
 * {@code --jvm-arg}, the {@code java ...} form, {@code -D}, or {@code JDK_JAVA_OPTIONS} /
 * {@code JAVA_TOOL_OPTIONS}) set the same thing, e.g. any {@code -XX:TieredStopAtLevel}, any
 * garbage collector, any {@code -Xshare} or archive file; and ours come before the user's, so the
 * JVM's "last one wins" agrees. {@code --jvm-defaults none} (or the setting
 * {@value #PROP_NAME}{@code =none}, environment {@code SHMPI_LAUNCHER_JVM_DEFAULTS}) drops them
 * all; any other value replaces them with its own blank-separated flags.
 */
final class RankJvmDefaults
{
    /** The setting that replaces or drops the defaults: {@code default}, {@code none}, or flags. */
    static final String PROP_NAME = SettingsRegistry.LAUNCHER_JVM_DEFAULTS.name();
    static final String ENV_NAME = "SHMPI_LAUNCHER_JVM_DEFAULTS";

    /** The first JDK feature version that does not get {@link #FLAGS} ({@link #forJdk}). */
    static final int JIT_SCALING_BEFORE = 25;

    /** The JIT's invocation and loop thresholds are scaled by this for shmpi's own code (see {@link #FLAGS}). */
    static final String JIT_SCALING = "0.001";

    /**
     * The fixed defaults, chosen by measurement on 2 CPUs with up to 8 ranks (docs/PERFORMANCE.md,
     * "Start-up and warm-up of the rank JVMs"): the JIT compiles the methods of shmpi's own
     * packages and Agrona's ({@code org.shmpi}, {@code mpi}, {@code org.agrona}) after a thousandth
     * of the usual invocations and loop iterations ({@code -XX:CompileCommand=CompileThresholdScaling}
     * per package, and {@code quiet} so that the JVM does not print the commands). A fresh job's
     * messages then run compiled code after tens of messages instead of some ten thousand, and so does
     * the first message of each new protocol (the first rendezvous size of a latency sweep: 128 KiB
     * at 140-220 µs with 0.01, 30-70 with 0.001; 0.0003 made the short ring 15 times slower);
     * the user's own code keeps the JVM's thresholds (the compute benchmark of bench/compare shows
     * it runs as in a plain {@code java}). A user's {@code CompileThresholdScaling}, global or per
     * method, replaces ours. JDK 17 to 24 only ({@link #forJdk}). What is measured and left out:
     * <ul>
     * <li>{@code -XX:TieredStopAtLevel=1} (C1 only): fast from the start, but the steady state is
     *     2.7 times slower (8-byte ping-pong 1.43 against 0.52 µs), and it would slow the user's
     *     compute loops too; the user's choice: {@code --jvm-arg -XX:TieredStopAtLevel=1}.</li>
     * <li>{@code -XX:CompileThresholdScaling=0.01} for every class: the JDK's and the user's code is
     *     compiled early too, and each rank's start-up CPU nearly doubles.</li>
     * <li>{@code -XX:+UseSerialGC}: no difference beyond the noise in any of the rows, and a
     *     single-threaded full collection would hurt a rank with a large heap.</li>
     * <li>{@code -XX:-BackgroundCompilation}: oversubscribed ranks stall (a short ring at np 8
     *     ran over a minute).</li>
     * </ul>
     * Besides these, shmrun adds {@link #jnaPlatformPath} and the class-data archive
     * ({@link ClassDataArchive}).
     */
    static final List<String> FLAGS = List.of(
        "-XX:CompileCommand=quiet",
        "-XX:CompileCommand=CompileThresholdScaling,org.shmpi.*::*," + JIT_SCALING,
        "-XX:CompileCommand=CompileThresholdScaling,mpi.*::*," + JIT_SCALING,
        "-XX:CompileCommand=CompileThresholdScaling,org.agrona.*::*," + JIT_SCALING);

    /** Environment variables whose JVM options the JVM reads too. */
    private static final List<String> JVM_OPTION_ENVS = List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS");
    /** The -XX flags of class data sharing: the user's replace all of ours. */
    private static final Set<String> CDS_FLAGS = new HashSet<>(Arrays.asList(
        "SharedArchiveFile", "ArchiveClassesAtExit", "DumpLoadedClassList", "SharedClassListFile",
        "AutoCreateSharedArchive"));
    private static final List<String> SIZE_PREFIXES = List.of("-Xss", "-Xms", "-Xmx", "-Xmn");

    private RankJvmDefaults()
    {
    }

    /**
     * The default flags in force.
     *
     * @param option  the value of {@code --jvm-defaults}, or null
     * @param setting the value of {@value #PROP_NAME} (property, else environment), or null
     * @return {@link #FLAGS} and {@link #jnaPlatformPath}, nothing for {@code none}, or the flags the
     *         value lists
     */
    static List<String> selected(final String option, final String setting)
    {
        final String value = option != null ? option : setting;
        if (isDefault(option, setting))
        {
            final List<String> flags = new ArrayList<>(forJdk(Runtime.version().feature()));
            final String jna = jnaPlatformPath(System.getProperty("os.name"), System.getProperty("os.arch"));
            if (jna != null)
            {
                flags.add(jna);
            }
            return flags;
        }
        if (value.strip().equalsIgnoreCase("none"))
        {
            return List.of();
        }
        return List.of(value.strip().split("\\s+"));
    }

    /**
     * {@link #FLAGS} where they were measured to help: JDK 17 to 24. On JDK 25 the same scaling left
     * the short ring where it was (81-225 against 112-171 µs per hop, np 2, three runs each on a
     * loaded machine) and made the first rendezvous size of a latency sweep (128 KiB) take
     * 0.6-4.9 ms instead of 0.14: compiled early on thin profiles, the wait loop was deoptimized
     * and recompiled over and over.
     *
     * @param feature the rank JVM's feature version (the launcher's own: ranks run its java)
     */
    static List<String> forJdk(final int feature)
    {
        return feature < JIT_SCALING_BEFORE ? FLAGS : List.of();
    }

    /**
     * {@code -Djna.platform.library.path=} the usual library directories that exist here. Without
     * it, JNA (which the futex wake-up uses) runs {@code /sbin/ldconfig -p} in every rank to find
     * them: a process spawned from each rank JVM, and about a sixth of a rank's start-up CPU.
     *
     * @return the flag, or null off Linux
     */
    static String jnaPlatformPath(final String osName, final String osArch)
    {
        if (!"Linux".equals(osName))
        {
            return null;
        }
        final String triplet = "amd64".equals(osArch) || "x86_64".equals(osArch) ? "x86_64-linux-gnu" :
            "aarch64".equals(osArch) ? "aarch64-linux-gnu" : osArch + "-linux-gnu";
        final List<String> dirs = new ArrayList<>();
        for (final String d : List.of("/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64", "/lib",
            "/usr/lib"))
        {
            if (new File(d).isDirectory())
            {
                dirs.add(d);
            }
        }
        return "-Djna.platform.library.path=" + String.join(File.pathSeparator, dirs);
    }

    /** @return true when shmpi's own defaults are in force (then the class-data archive too). */
    static boolean isDefault(final String option, final String setting)
    {
        final String value = option != null ? option : setting;
        return value == null || value.isBlank() || value.strip().equalsIgnoreCase("default");
    }

    /**
     * @param defaults the default flags
     * @param userArgs the user's JVM options
     * @param env      the environment the ranks get (for {@code JDK_JAVA_OPTIONS} and
     *                 {@code JAVA_TOOL_OPTIONS})
     * @return the defaults that set nothing the user sets, in their order
     */
    static List<String> notOverridden(final List<String> defaults, final List<String> userArgs,
        final Map<String, String> env)
    {
        final Set<String> userKeys = new HashSet<>();
        for (final String a : userArgs)
        {
            userKeys.add(key(a));
        }
        for (final String name : JVM_OPTION_ENVS)
        {
            final String v = env.get(name);
            if (v != null && !v.isBlank())
            {
                for (final String a : v.strip().split("\\s+"))
                {
                    userKeys.add(key(a));
                }
            }
        }
        final List<String> kept = new ArrayList<>();
        for (final String d : defaults)
        {
            if (!userKeys.contains(key(d)))
            {
                kept.add(d);
            }
        }
        return kept;
    }

    /**
     * What a JVM option sets, so that two options setting the same thing compare equal:
     * {@code -XX:+Foo}, {@code -XX:-Foo} and {@code -XX:Foo=1} are {@code XX:Foo}; every
     * {@code -XX:[+-]Use...GC} is {@code gc} (the JVM refuses two collectors); {@code -Xshare:*},
     * {@code -XX:SharedArchiveFile}, {@code -XX:ArchiveClassesAtExit} are {@code cds};
     * {@code -Xss1m} is {@code -Xss}; {@code -Dname=v} is {@code -Dname}; a
     * {@code -XX:CompileCommand} that scales thresholds is {@code XX:CompileThresholdScaling}, as the
     * global flag is, and any other is itself (compile commands add up).
     */
    static String key(final String arg)
    {
        if (arg.startsWith("-XX:CompileCommand="))
        {
            return arg.contains("CompileThresholdScaling") ? "XX:CompileThresholdScaling" : arg;
        }
        if (arg.startsWith("-XX:"))
        {
            String name = arg.substring(4);
            final int eq = name.indexOf('=');
            if (eq >= 0)
            {
                name = name.substring(0, eq);
            }
            if (name.startsWith("+") || name.startsWith("-"))
            {
                name = name.substring(1);
            }
            if (name.startsWith("Use") && name.endsWith("GC"))
            {
                return "gc";
            }
            if (CDS_FLAGS.contains(name))
            {
                return "cds";
            }
            return "XX:" + name;
        }
        if (arg.startsWith("-Xshare:"))
        {
            return "cds";
        }
        for (final String prefix : SIZE_PREFIXES)
        {
            if (arg.startsWith(prefix))
            {
                return prefix;
            }
        }
        if (arg.startsWith("-D"))
        {
            final int eq = arg.indexOf('=');
            return eq > 0 ? arg.substring(0, eq) : arg;
        }
        return arg.toLowerCase(Locale.ROOT);
    }
}
