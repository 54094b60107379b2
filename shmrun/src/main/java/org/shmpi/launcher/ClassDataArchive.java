package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.shmpi.shm.settings.SettingsRegistry;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.ShmpiConfig;

/**
 * A class-data-sharing archive (AppCDS, a JDK "dynamic archive") of shmpi's own classes, so that a
 * rank JVM maps them, already parsed and verified, instead of loading them from the jars: it
 * saves about a fifth of a rank's start-up CPU (docs/PERFORMANCE.md, "Start-up").
 *
 * <p>An archive only works for the very JVM that wrote it and for the same jars (same paths,
 * sizes and times) at the front of the class path, so it is made on this machine, by the JVM
 * that runs the ranks, and its file name is a hash of both: the first {@code shmrun} that finds
 * no archive for its JVM and jars starts a background process that runs {@link CdsTraining}
 * as a job of two ranks, rank 0 with {@code -XX:ArchiveClassesAtExit} ({@value #DUMP_PROP}),
 * and renames the result into place; later jobs use it.
 * That job itself runs without. A different JDK, a rebuilt jar or a moved distribution simply
 * gets its own archive. The archives live in {@value #DIR_PROP} (environment
 * {@code SHMPI_LAUNCHER_CDS_DIR}), by default {@code <shmpi home>/lib/cds} when that can be
 * written, else {@code $XDG_CACHE_HOME/shmpi/cds} (or {@code ~/.cache/shmpi/cds}); {@code none}
 * switches the archive off, as do {@code --jvm-defaults none} and a user's own {@code -Xshare}
 * or archive flag. The JVM's CDS log is switched off for the ranks, so that an archive the JVM
 * refuses after all (it then runs without) prints nothing into the job's output. The launcher's
 * own JVM uses the newest archive of {@code <shmpi home>/lib/cds} too ({@value #LAUNCHER_LINK},
 * see {@code bin/shmrun}), since its class path is the same jars.
 */
final class ClassDataArchive
{
    static final String DIR_PROP = SettingsRegistry.LAUNCHER_CDS_DIR.name();
    static final String DIR_ENV = "SHMPI_LAUNCHER_CDS_DIR";
    /** The link to the newest archive, which {@code bin/shmrun} gives the launcher's own JVM. */
    static final String LAUNCHER_LINK = "launcher.jsa";
    /**
     * Set on the launcher JVM of the archive build: rank 0 of its job writes the archive to this
     * file. A job of two, not a singleton, because much of what a job links at run time (the
     * lambdas of every collective's steps, and the method handles behind them) is only reached
     * with a peer; one rank is enough, as both run the same code.
     */
    static final String DUMP_PROP = SettingsRegistry.LAUNCHER_CDS_DUMP.name();
    /** A lock older than this belongs to a build that died; the next launcher tries again. */
    private static final long STALE_LOCK_MS = 120_000;

    private final Path archive;
    private final String stalePrefix;
    private final List<String> jars;

    private ClassDataArchive(final Path archive, final String stalePrefix, final List<String> jars)
    {
        this.archive = archive;
        this.stalePrefix = stalePrefix;
        this.jars = jars;
    }

    /** Removes the archives of this JVM and these jar paths made from older jars. */
    private void removeStale()
    {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(archive.getParent(), stalePrefix + "*.jsa*"))
        {
            for (final Path p : dir)
            {
                final String name = p.getFileName().toString();
                if (!name.startsWith(archive.getFileName().toString()) && !name.endsWith(".lock") &&
                    !name.contains(".tmp-"))
                {
                    Files.deleteIfExists(p);
                }
            }
        }
        catch (final IOException ignore)
        {
            // Left for the next build.
        }
    }

    /**
     * @param dir  the archive directory
     * @param java the JVM of the ranks
     * @param jars shmpi's jars, in class path order
     * @param jvmFlags the JVM flags the runtime needs (the training runs with them too)
     * @return the archive of this JVM and these jars (which may not exist yet)
     */
    static ClassDataArchive of(final Path dir, final String java, final List<String> jars, final List<String> jvmFlags)
    {
        // Where: this JVM and these jar paths; what: the jars' sizes and times. An archive of the
        // same "where" and another "what" is stale for good (the jars were rebuilt).
        final StringBuilder where = new StringBuilder();
        where.append(java).append('\n')
            .append(System.getProperty("java.vm.version")).append('\n')
            .append(System.getProperty("java.vm.name")).append('\n')
            .append(String.join(" ", jvmFlags)).append('\n');
        final StringBuilder what = new StringBuilder();
        for (final String jar : jars)
        {
            final Path p = Path.of(jar);
            where.append(p.toAbsolutePath()).append('\n');
            try
            {
                what.append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis()).append('\n');
            }
            catch (final IOException ex)
            {
                what.append("missing\n");
            }
        }
        final String prefix = "shmpi-" + Version.VERSION + "-" + hash(where) + "-";
        return new ClassDataArchive(dir.resolve(prefix + hash(what) + ".jsa"), prefix, List.copyOf(jars));
    }

    /** FNV-1a, 64 bits, in hex: a name, not a secret (and MessageDigest would cost start-up time). */
    private static String hash(final CharSequence text)
    {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++)
        {
            hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        }
        return Long.toHexString(hash);
    }

    /**
     * The directory of the archives: the setting, else {@code <home>/lib/cds} if it can be
     * written, else the user's cache directory; null when switched off or none can be written.
     */
    static Path directory(final String setting, final String home, final Map<String, String> env)
    {
        if (setting != null && !setting.isBlank())
        {
            return setting.strip().equalsIgnoreCase("none") ? null : writable(Path.of(setting.strip()));
        }
        if (home != null)
        {
            final Path inHome = writable(Path.of(home, "lib", "cds"));
            if (inHome != null)
            {
                return inHome;
            }
        }
        final String xdg = env.get("XDG_CACHE_HOME");
        final String userHome = System.getProperty("user.home");
        final Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg) :
            userHome != null ? Path.of(userHome, ".cache") : null;
        return cache == null ? null : writable(cache.resolve("shmpi").resolve("cds"));
    }

    private static Path writable(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
            return Files.isWritable(dir) ? dir : null;
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
    }

    Path file()
    {
        return archive;
    }

    boolean exists()
    {
        return Files.isRegularFile(archive);
    }

    /** @return the rank JVM flags that use the archive. */
    List<String> rankFlags()
    {
        return List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds*=off");
    }

    /**
     * Starts building the archive in the background, unless another launcher already does;
     * returns at once. The build is a shell that runs the training JVM and, when it succeeded,
     * renames the archive into place; it outlives this launcher and writes its log next to the
     * archive.
     *
     * @param java     the JVM of the ranks
     * @param jvmFlags the JVM flags the runtime needs
     * @return true if a build was started
     */
    boolean startBuild(final String java, final List<String> jvmFlags)
    {
        final Path lock = archive.resolveSibling(archive.getFileName() + ".lock");
        try
        {
            try
            {
                Files.createFile(lock);
            }
            catch (final FileAlreadyExistsException ex)
            {
                final FileTime t = Files.getLastModifiedTime(lock);
                if (System.currentTimeMillis() - t.toMillis() < STALE_LOCK_MS)
                {
                    return false;
                }
                Files.deleteIfExists(lock);
                Files.createFile(lock);
            }
            removeStale();
            final Path tmp = archive.resolveSibling(archive.getFileName() + ".tmp-" + ProcessHandle.current().pid());
            final Path log = archive.resolveSibling(archive.getFileName() + ".log");
            final List<String> cmd = new ArrayList<>();
            cmd.add("/bin/sh");
            cmd.add("-c");
            // $1 archive, $2 temporary file, $3 lock, then the training JVM's command line.
            // The launcher (bin/shmrun) uses the newest archive too, through the link launcher.jsa.
            cmd.add("a=\"$1\" t=\"$2\" l=\"$3\"; shift 3; \"$@\" && [ -s \"$t\" ] && mv -f \"$t\" \"$a\" && " +
                "ln -sfn \"${a##*/}\" \"${a%/*}/" + LAUNCHER_LINK + "\"; s=$?; rm -f \"$t\" \"$l\"; " +
                "rm -rf \"$SHMPI_SHM_DIR\"; exit $s");
            cmd.add("shmpi-cds-build");
            cmd.add(archive.toString());
            cmd.add(tmp.toString());
            cmd.add(lock.toString());
            // The training job's launcher: this JVM's class path is shmpi's jars, which then
            // become the ranks' (the archive's) class path; no defaults, so no archive of its own.
            final String cp = String.join(File.pathSeparator, jars);
            cmd.add(java);
            cmd.addAll(jvmFlags);
            cmd.add("-XX:TieredStopAtLevel=1");
            cmd.add("-XX:+UseSerialGC");
            cmd.add("-D" + Shmrun.RANK_JVM_FLAGS_PROP + "=" + String.join(" ", jvmFlags));
            cmd.add("-D" + DUMP_PROP + "=" + tmp);
            cmd.add("-cp");
            cmd.add(cp);
            cmd.add(Shmrun.class.getName());
            Collections.addAll(cmd, "-np", "2", "--bind-to", "none", "--jvm-defaults", "none", "--timeout", "300",
                "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC", "-cp", cp);
            cmd.add(CdsTraining.class.getName());
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.redirectErrorStream(true);
            pb.redirectOutput(log.toFile());
            // The training job's files go next to the archive, not into the user's /dev/shm: it
            // runs after the user's shmrun has returned, and must not look like a job left behind.
            final Path shm = Files.createDirectories(archive.resolveSibling("shm-training-" +
                ProcessHandle.current().pid()));
            pb.environment().put(ShmpiConfig.envName(ShmpiConfig.SHM_DIR_PROP), shm.toString());
            // A singleton job of its own, even when shmrun runs inside a rank.
            pb.environment().remove(RankProcess.JOB_DIR_ENV);
            pb.environment().remove(RankProcess.RANK_ENV);
            pb.environment().remove(RankProcess.WORLD_SIZE_ENV);
            pb.start();
            return true;
        }
        catch (final IOException ex)
        {
            try
            {
                Files.deleteIfExists(lock);
            }
            catch (final IOException ignore)
            {
                // A stale lock: the next launcher after STALE_LOCK_MS tries again.
            }
            return false;
        }
    }
}
