package org.shmpi.junit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@code shmrun} launcher of a test job as a child process of the test JVM: the command line
 * that starts it with ranks running {@link RankRunner}, its output kept in an {@link OutputTail},
 * the {@code shmrun --status} query against it, and waiting for it or stopping it.
 */
final class ShmrunProcess
{
    static final String RANK_MAIN = RankRunner.class.getName();
    /** The pid of every launcher this JVM started (for tests that check what is left behind). */
    static final Set<Long> LAUNCHED = ConcurrentHashMap.newKeySet();

    private final Process process;
    private final List<String> classpath;
    private final String flags;
    private final OutputTail tail = new OutputTail();
    private final List<Thread> pumps = new ArrayList<>();

    private ShmrunProcess(final Process process, final List<String> classpath, final String flags)
    {
        this.process = process;
        this.classpath = classpath;
        this.flags = flags;
    }

    /**
     * Starts {@code shmrun} for {@code np} ranks that connect back to {@code port} on loopback
     * with {@code token}; the rank JVMs get {@code classpath} and {@code flags}, and
     * {@code shmrunArgs} are more launcher options. Its output goes into {@link #tail()}.
     */
    static ShmrunProcess start(final int np, final boolean keep, final List<String> classpath, final String flags,
        final List<String> shmrunArgs, final int port, final long token) throws IOException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(javaCommand());
        cmd.addAll(words(flags));
        cmd.add("-Dshmpi.rank.jvm.flags=" + flags);
        // The launcher gives the ranks its own class path first and the program's after it,
        // and builds its class-data archive (faster rank start-up) of the former: jars only,
        // since the JVM archives no classes from directories.
        // When shmpi itself comes as class directories (an IDE, a reactor build before
        // `package`), the launcher needs them and the archive is off.
        final List<String> jars = new ArrayList<>();
        final List<String> rest = new ArrayList<>();
        boolean shmpiInDirectories = false;
        for (final String e : classpath)
        {
            (e.endsWith(".jar") ? jars : rest).add(e);
            shmpiInDirectories |= !e.endsWith(".jar") && holdsShmpi(Path.of(e));
        }
        if (shmpiInDirectories)
        {
            jars.clear();
            jars.addAll(classpath);
            cmd.add("-Dshmpi.launcher.cds.dir=none");
        }
        if (rest.isEmpty())
        {
            rest.add(jars.get(0));
        }
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, jars));
        cmd.add("org.shmpi.launcher.Shmrun");
        cmd.add("-np");
        cmd.add(Integer.toString(np));
        cmd.add("--tag-output");
        if (keep)
        {
            cmd.add("--keep-shm");
        }
        for (final String a : words(Settings.get(Settings.JVM_ARGS)))
        {
            cmd.add("--jvm-arg");
            cmd.add(a);
        }
        cmd.addAll(words(Settings.get(Settings.SHMRUN_ARGS)));
        cmd.addAll(shmrunArgs);
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, rest));
        cmd.add(RANK_MAIN);
        cmd.add(InetAddress.getLoopbackAddress().getHostAddress());
        cmd.add(Integer.toString(port));
        cmd.add(Long.toString(token));
        cmd.add(Long.toString(ProcessHandle.current().pid()));
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        final Process p = pb.start();
        LAUNCHED.add(p.pid());
        final ShmrunProcess launcher = new ShmrunProcess(p, classpath, flags);
        launcher.pump("out", p.getInputStream());
        launcher.pump("err", p.getErrorStream());
        return launcher;
    }

    /** True when {@code dir} is a class directory of shmpi's runtime (what the launcher loads). */
    static boolean holdsShmpi(final Path dir)
    {
        for (final String pkg : new String[] {"org/shmpi/launcher", "org/shmpi/shm", "org/shmpi/ring",
            "org/shmpi/affinity", "mpi"})
        {
            if (Files.isDirectory(dir.resolve(pkg)))
            {
                return true;
            }
        }
        return false;
    }

    private void pump(final String name, final InputStream stream)
    {
        final Thread t = new Thread(() ->
        {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    tail.add(line);
                }
            }
            catch (final IOException ex)
            {
                // The launcher is gone.
            }
        }, "shmpi-junit-launcher-" + name);
        t.setDaemon(true);
        t.start();
        pumps.add(t);
    }

    /** The launcher's recent output. */
    OutputTail tail()
    {
        return tail;
    }

    /** The threads that copy the launcher's stdout and stderr into {@link #tail()}. */
    List<Thread> pumps()
    {
        return pumps;
    }

    long pid()
    {
        return process.pid();
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    int exitValue()
    {
        return process.exitValue();
    }

    /** Waits up to {@code millis} for the launcher to end; true when it has. */
    boolean waitFor(final long millis)
    {
        try
        {
            return process.waitFor(millis, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    /**
     * Stops the launcher: SIGTERM, which stops its ranks and cleans up; when it has not ended
     * within 15 s, it and everything it started are killed.
     */
    void stop()
    {
        if (process.isAlive())
        {
            process.destroy();
            if (!waitFor(15_000))
            {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                waitFor(5_000);
            }
        }
    }

    /**
     * The status report of the running job ({@code shmrun --status}): every rank's state, the
     * call it is blocked in, its posted receives and unexpected messages, and the verdict.
     */
    String statusReport()
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(javaCommand());
        cmd.addAll(words(flags));
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, classpath));
        cmd.add("org.shmpi.launcher.Shmrun");
        cmd.add("--status");
        cmd.add(Long.toString(process.pid()));
        try
        {
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectErrorStream(true);
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            final Process p = pb.start();
            final byte[][] out = new byte[1][];
            final Thread reader = new Thread(() ->
            {
                try
                {
                    out[0] = p.getInputStream().readAllBytes();
                }
                catch (final IOException ex)
                {
                    out[0] = new byte[0];
                }
            }, "shmpi-junit-status");
            reader.setDaemon(true);
            reader.start();
            if (!p.waitFor(30, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return "(shmrun --status did not answer within 30 s)\n";
            }
            reader.join(5_000);
            return out[0] == null ? "" : new String(out[0], StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "(shmrun --status failed: " + ex + ")\n";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "(interrupted)\n";
        }
    }

    static String javaCommand()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> words(final String s)
    {
        return s == null || s.isBlank() ? List.of() : Arrays.asList(s.trim().split("\\s+"));
    }
}
