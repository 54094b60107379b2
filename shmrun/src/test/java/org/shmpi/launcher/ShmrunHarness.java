package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.RankState;

/**
 * Runs {@code shmrun} from the built distribution as a real process, with a hard timeout. When
 * a run hangs past its timeout the job directory is copied (with a text dump of the job file)
 * to {@code target/failed-jobs/} before everything is killed, so the failure can be read.
 */
final class ShmrunHarness
{
    static final Path DIST = Path.of(System.getProperty("shmpi.dist", "target/shmpi")).toAbsolutePath();
    static final Path TEST_CLASSES =
        Path.of(System.getProperty("shmpi.test.classes", "target/test-classes")).toAbsolutePath();
    static final Path SHMRUN = DIST.resolve("bin/shmrun");
    static final Path USER_ROOT = JobDirectory.userRoot("/dev/shm");
    static final String SCENARIO = "org.shmpi.launcher.progs.Scenario";

    /** Every launcher pid this harness started, to check that no job directory of theirs is left. */
    static final List<Long> LAUNCHED = new ArrayList<>();

    private ShmrunHarness()
    {
    }

    /** A finished (or killed) run. */
    static final class Result
    {
        final int exit;
        final String out;
        final String err;
        final long pid;
        final long exitMillis;

        Result(final int exit, final String out, final String err, final long pid, final long exitMillis)
        {
            this.exit = exit;
            this.out = out;
            this.err = err;
            this.pid = pid;
            this.exitMillis = exitMillis;
        }

        List<String> outLines()
        {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }

        @Override
        public String toString()
        {
            return "exit=" + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
        }
    }

    /** A running shmrun whose output is collected in the background. */
    static final class Running
    {
        final Process process;
        final Collector out;
        final Collector err;
        final String name;

        Running(final String name, final Process process)
        {
            this.name = name;
            this.process = process;
            this.out = new Collector(process.getInputStream());
            this.err = new Collector(process.getErrorStream());
            out.start();
            err.start();
        }

        long pid()
        {
            return process.pid();
        }

        /** Waits until stdout holds {@code count} lines starting with {@code prefix}. */
        List<String> awaitLines(final String prefix, final int count, final long timeoutMs) throws InterruptedException
        {
            final long deadline = System.currentTimeMillis() + timeoutMs;
            while (true)
            {
                final List<String> lines = new ArrayList<>();
                for (final String l : out.text().split("\n"))
                {
                    if (l.startsWith(prefix))
                    {
                        lines.add(l);
                    }
                }
                if (lines.size() >= count)
                {
                    return lines;
                }
                if (System.currentTimeMillis() > deadline || !process.isAlive())
                {
                    final Result r = finish(5);
                    fail("expected " + count + " lines starting with '" + prefix + "', " + r);
                }
                Thread.sleep(20);
            }
        }

        /** Waits for the process, at most {@code timeoutSeconds}; on timeout preserves and kills. */
        Result finish(final long timeoutSeconds) throws InterruptedException
        {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                preserveJobDirectories(name, process.pid());
                killTree(process);
                process.waitFor(10, TimeUnit.SECONDS);
                out.join(2_000);
                err.join(2_000);
                fail("shmrun did not finish within " + timeoutSeconds + " s (job directory copied to " +
                    "target/failed-jobs/" + name + "): " + new Result(-1, out.text(), err.text(), process.pid(), 0));
            }
            final long exitMillis = System.currentTimeMillis();
            out.join(5_000);
            err.join(5_000);
            return new Result(process.exitValue(), out.text(), err.text(), process.pid(), exitMillis);
        }
    }

    /** Reads a stream into memory on its own thread. */
    static final class Collector extends Thread
    {
        private final InputStream in;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

        Collector(final InputStream in)
        {
            this.in = in;
            setDaemon(true);
        }

        @Override
        public void run()
        {
            final byte[] chunk = new byte[8192];
            try
            {
                int n;
                while ((n = in.read(chunk)) > 0)
                {
                    synchronized (buffer)
                    {
                        buffer.write(chunk, 0, n);
                    }
                }
            }
            catch (final IOException ignore)
            {
                // Process gone.
            }
        }

        String text()
        {
            synchronized (buffer)
            {
                return buffer.toString(StandardCharsets.UTF_8);
            }
        }
    }

    static Running start(final String name, final List<String> prefix, final String stdin, final String... args)
        throws IOException
    {
        final List<String> cmd = new ArrayList<>(prefix);
        cmd.add(SHMRUN.toString());
        cmd.addAll(Arrays.asList(args));
        final ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("SHMPI_JOB_DIR");
        pb.environment().remove("SHMPI_RANK");
        final Process p = pb.start();
        synchronized (LAUNCHED)
        {
            LAUNCHED.add(p.pid());
        }
        final OutputStream in = p.getOutputStream();
        if (stdin != null)
        {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        in.close();
        return new Running(name, p);
    }

    static Result run(final String name, final long timeoutSeconds, final String... args)
        throws IOException, InterruptedException
    {
        return start(name, List.of(), null, args).finish(timeoutSeconds);
    }

    /** Arguments of a Scenario run: {@code -np N [extra...] -cp <test classes> Scenario mode args}. */
    static String[] scenario(final int np, final List<String> extra, final String... modeArgs)
    {
        final List<String> a = new ArrayList<>();
        a.add("-np");
        a.add(Integer.toString(np));
        a.addAll(extra);
        a.add("-cp");
        a.add(TEST_CLASSES.toString());
        a.add(SCENARIO);
        a.addAll(Arrays.asList(modeArgs));
        return a.toArray(new String[0]);
    }

    /** Job directories of a launcher pid that still exist. */
    static List<Path> jobDirectoriesOf(final long launcherPid) throws IOException
    {
        return jobDirectoriesOf(USER_ROOT, launcherPid);
    }

    /**
     * Job directories of a launcher pid under a user root. A missing root means nothing is left:
     * other jobs (other builds on the machine) may remove the root at any moment, so it is listed
     * without an exists-then-list race.
     */
    static List<Path> jobDirectoriesOf(final Path userRoot, final long launcherPid) throws IOException
    {
        final List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(userRoot, launcherPid + "-*"))
        {
            dirs.forEach(found::add);
        }
        catch (final NoSuchFileException ex)
        {
            return List.of();
        }
        return found;
    }

    /** Removes {@code dir} and everything in it, if it exists. */
    static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (var walk = Files.walk(dir))
        {
            for (final Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }

    static boolean isRunning(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) &&
            !org.shmpi.shm.Processes.isZombie(pid);
    }

    private static void killTree(final Process p)
    {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /** Copies a hung job's directory and a readable dump of its job file to target/failed-jobs. */
    static void preserveJobDirectories(final String name, final long launcherPid)
    {
        try
        {
            for (final Path dir : jobDirectoriesOf(launcherPid))
            {
                final Path dest = Path.of("target", "failed-jobs", name + "-" + dir.getFileName());
                Files.createDirectories(dest);
                try (Stream<Path> files = Files.list(dir))
                {
                    for (final Path f : (Iterable<Path>)files::iterator)
                    {
                        Files.copy(f, dest.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                try (JobFile job = JobFile.attach(dir.resolve(JobDirectory.JOB_FILE_NAME), 1_000))
                {
                    final StringBuilder sb = new StringBuilder();
                    sb.append("worldSize=").append(job.worldSize()).append(" aborted=").append(job.isAborted())
                        .append(" reason=").append(job.isAbortPublished() ? job.abortReason() : "").append('\n');
                    for (int r = 0; r < job.worldSize(); r++)
                    {
                        sb.append("rank ").append(r).append(" pid=").append(job.pid(r)).append(" state=")
                            .append(RankState.name(job.state(r))).append(" exitCode=").append(job.exitCode(r))
                            .append(" heartbeatAgeMs=").append((System.nanoTime() - job.heartbeat(r)) / 1_000_000)
                            .append('\n');
                    }
                    Files.writeString(dest.resolve("job.txt"), sb.toString());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("could not preserve the job directory of " + name + ": " + ex);
        }
    }
}
