package org.shmpi.junit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.opentest4j.ValueWrapper;

/**
 * One MPI job of a test class at one rank count, as the test JVM (the controller) sees it: a
 * {@code shmrun} launcher started as a child process, whose ranks run {@link RankRunner} and
 * connect back over loopback TCP ({@link Wire}). Runs one test method at a time on every rank
 * and turns the ranks' results into the test's outcome. A run that breaks the job (a rank
 * exits, a hang, ranks still busy after another failed) leaves it {@linkplain #broken() broken};
 * the holder then starts a fresh one.
 */
final class TestJob implements AutoCloseable
{
    static final String RANK_MAIN = RankRunner.class.getName();
    /** The pid of every launcher this JVM started (for tests that check what is left behind). */
    static final java.util.Set<Long> LAUNCHED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final int np;
    private final boolean keep;
    private final List<String> classpath;
    private final String flags;
    private final Process launcher;
    private final OutputTail tail = new OutputTail();
    private final Socket[] sockets;
    private final DataOutputStream[] outs;
    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean broken;
    private boolean closed;
    private int nextId;

    /** What a reader thread saw: a result, or (result null) the rank's connection closing. */
    private static final class Event
    {
        final int rank;
        final Wire.Result result;

        Event(final int rank, final Wire.Result result)
        {
            this.rank = rank;
            this.result = result;
        }
    }

    private TestJob(final int np, final boolean keep, final List<String> classpath, final String flags,
        final Process launcher)
    {
        this.np = np;
        this.keep = keep;
        this.classpath = classpath;
        this.flags = flags;
        this.launcher = launcher;
        this.sockets = new Socket[np];
        this.outs = new DataOutputStream[np];
    }

    /**
     * Starts a job of {@code np} ranks, with {@code shmrunArgs} as more launcher options, and
     * waits until every rank has joined and connected.
     */
    static TestJob start(final int np, final List<String> shmrunArgs) throws IOException
    {
        final List<String> classpath = ClassPaths.ofThisJvm();
        final String flags = Settings.jvmFlags();
        final boolean keep = Settings.getBoolean(Settings.KEEP);
        final int startTimeoutS = Settings.getInt(Settings.START_TIMEOUT, Settings.DEFAULT_START_TIMEOUT_S);
        final long token = new SecureRandom().nextLong();
        try (ServerSocket server = new ServerSocket(0, np + 8, InetAddress.getLoopbackAddress()))
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
            cmd.add(Integer.toString(server.getLocalPort()));
            cmd.add(Long.toString(token));
            cmd.add(Long.toString(ProcessHandle.current().pid()));
            final ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            final Process p = pb.start();
            LAUNCHED.add(p.pid());
            final TestJob job = new TestJob(np, keep, classpath, flags, p);
            job.pump("out", p.getInputStream());
            job.pump("err", p.getErrorStream());
            try
            {
                job.accept(server, token, startTimeoutS);
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                job.kill();
                throw ex;
            }
            return job;
        }
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

    private void accept(final ServerSocket server, final long token, final int startTimeoutS) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(startTimeoutS);
        server.setSoTimeout(200);
        int joined = 0;
        while (joined < np)
        {
            if (!launcher.isAlive())
            {
                waitFor(launcher, 2_000);
                throw new MpiTestFailure(-1, "the test job of " + np + " rank" + (np == 1 ? "" : "s") +
                    " ended before every rank joined (shmrun exit status " + launcher.exitValue() + ")\n" +
                    tail.describe());
            }
            if (System.nanoTime() > deadline)
            {
                throw new MpiTestFailure(-1, "the test job of " + np + " ranks did not start within " +
                    startTimeoutS + " s (" + Settings.START_TIMEOUT + "); " + joined + " rank(s) joined\n" +
                    tail.describe());
            }
            final Socket s;
            try
            {
                s = server.accept();
            }
            catch (final SocketTimeoutException ex)
            {
                continue;
            }
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            final int rank;
            try
            {
                if (in.readInt() != Wire.MAGIC || in.readLong() != token)
                {
                    s.close();
                    continue;
                }
                rank = in.readInt();
                final int size = in.readInt();
                in.readLong();
                if (size != np || rank < 0 || rank >= np || sockets[rank] != null)
                {
                    s.close();
                    continue;
                }
            }
            catch (final IOException ex)
            {
                s.close();
                continue;
            }
            s.setSoTimeout(0);
            sockets[rank] = s;
            outs[rank] = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            final Thread reader = new Thread(() -> read(rank, in), "shmpi-junit-rank-" + rank);
            reader.setDaemon(true);
            reader.start();
            threads.add(reader);
            joined++;
        }
    }

    private void read(final int rank, final DataInputStream in)
    {
        try
        {
            while (true)
            {
                events.add(new Event(rank, Wire.Result.read(rank, in)));
            }
        }
        catch (final IOException ex)
        {
            events.add(new Event(rank, null));
        }
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
        threads.add(t);
    }

    /** True when the job cannot run another test: a rank or the launcher is gone, or a run broke it. */
    boolean broken()
    {
        if (broken || !launcher.isAlive())
        {
            return true;
        }
        for (final Event e : events)
        {
            if (e.result == null)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code className.methodName()} on every rank; returns when every rank passed, throws
     * the test's failure otherwise.
     */
    synchronized void run(final String className, final String methodName, final int timeoutS) throws Throwable
    {
        if (broken())
        {
            throw new IllegalStateException("test job is broken");
        }
        // Results of an earlier run are stale; a connection that closes from now on is this run's crash.
        events.removeIf(e -> e.result != null);
        tail.reset();
        final int id = ++nextId;
        for (int r = 0; r < np; r++)
        {
            try
            {
                outs[r].writeByte(Wire.RUN);
                outs[r].writeInt(id);
                Wire.writeString(outs[r], className);
                Wire.writeString(outs[r], methodName);
                outs[r].flush();
            }
            catch (final IOException ex)
            {
                broken = true;
                throw crash(List.of(r), new Wire.Result[np]);
            }
        }
        final Wire.Result[] results = new Wire.Result[np];
        final Wire.Result[] early = new Wire.Result[np];
        int remaining = np;
        final long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutS);
        final int graceMs = Settings.getInt(Settings.GRACE, Settings.DEFAULT_GRACE_MS);
        int firstFailed = -1;
        while (remaining > 0)
        {
            final long wait = deadline - System.nanoTime();
            final Event e = wait <= 0 ? null : events.poll(wait, TimeUnit.NANOSECONDS);
            if (e == null)
            {
                broken = true;
                if (firstFailed >= 0)
                {
                    throw stoppedAfterFailure(results, early, firstFailed, graceMs);
                }
                throw hang(results, timeoutS);
            }
            if (e.result == null)
            {
                broken = true;
                final List<Integer> gone = new ArrayList<>();
                gone.add(e.rank);
                // Others usually go within moments: name every rank that went.
                Event more;
                while ((more = events.poll(300, TimeUnit.MILLISECONDS)) != null)
                {
                    if (more.result == null)
                    {
                        gone.add(more.rank);
                    }
                    else if (more.result.id == id)
                    {
                        results[more.rank] = more.result;
                    }
                }
                throw crash(gone, results);
            }
            if (e.result.id != id || results[e.rank] != null)
            {
                continue;
            }
            if (e.result.early)
            {
                // The body failed; the rank runs its @AfterEach methods before its result.
                early[e.rank] = e.result;
                if (firstFailed < 0)
                {
                    firstFailed = e.rank;
                    deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
                }
                continue;
            }
            results[e.rank] = e.result;
            remaining--;
            if (e.result.outcome != Wire.PASSED && firstFailed < 0)
            {
                firstFailed = e.rank;
                deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs));
            }
        }
        printOutputs(results);
        final Throwable failure = outcome(results);
        if (failure instanceof MpiTestFailure)
        {
            // What a failed rank left undone (a message never received, an exchange half done)
            // must not reach the next test: it gets a fresh job. The ranks are idle: end it now.
            close();
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    /** Each rank's output, into this JVM's stdout, while the test is still the current one. */
    private static void printOutputs(final Wire.Result[] results)
    {
        for (final Wire.Result r : results)
        {
            if (r != null && !r.output.isEmpty())
            {
                for (final String line : r.output.split("\n"))
                {
                    System.out.println("[rank " + r.rank + "] " + line);
                }
            }
        }
    }

    /** The test's failure from every rank's result, or null when every rank passed. */
    Throwable outcome(final Wire.Result[] results)
    {
        Wire.Result primary = null;
        final List<Wire.Result> failed = new ArrayList<>();
        Wire.Result aborted = null;
        for (final Wire.Result r : results)
        {
            if (r == null)
            {
                continue;
            }
            if (r.outcome == Wire.FAILED)
            {
                failed.add(r);
                if (primary == null && !OtherRankFailed.class.getName().equals(r.throwableClass))
                {
                    primary = r;
                }
            }
            else if (r.outcome == Wire.ABORTED && aborted == null)
            {
                aborted = r;
            }
        }
        if (failed.isEmpty())
        {
            if (aborted != null)
            {
                final TestAbortedException a =
                    new TestAbortedException("rank " + aborted.rank + " (of " + np + "): " + aborted.message);
                final Throwable t = deserialize(aborted.serialized);
                a.setStackTrace(t == null ? new StackTraceElement[0] : t.getStackTrace());
                return a;
            }
            return null;
        }
        if (primary == null)
        {
            primary = failed.get(0);
        }
        final MpiTestFailure f = failureOf(primary, failed.size());
        for (final Wire.Result r : failed)
        {
            if (r != primary)
            {
                f.addSuppressed(failureOf(r, 1));
            }
        }
        return f;
    }

    private MpiTestFailure failureOf(final Wire.Result r, final int failedRanks)
    {
        final Throwable t = deserialize(r.serialized);
        final StringBuilder msg = new StringBuilder();
        msg.append("rank ").append(r.rank).append(" (of ").append(np).append(") failed");
        if (failedRanks > 1)
        {
            msg.append(" (").append(failedRanks).append(" ranks failed)");
        }
        msg.append(": ").append(r.throwableClass).append(": ").append(r.message);
        if (t == null)
        {
            msg.append("\nstack trace of rank ").append(r.rank).append(":\n").append(r.stackTrace);
        }
        if (!r.output.isEmpty())
        {
            msg.append("\noutput of rank ").append(r.rank).append(":\n").append(indent(r.output));
        }
        appendKept(msg);
        Object expected = null;
        Object actual = null;
        if (t instanceof AssertionFailedError)
        {
            final AssertionFailedError afe = (AssertionFailedError)t;
            expected = afe.isExpectedDefined() ? valueOf(afe.getExpected()) : null;
            actual = afe.isActualDefined() ? valueOf(afe.getActual()) : null;
        }
        final MpiTestFailure f = expected != null || actual != null ?
            new MpiTestFailure(r.rank, msg.toString(), expected, actual, t == null ? null : t.getCause()) :
            new MpiTestFailure(r.rank, msg.toString());
        if (t != null)
        {
            f.setStackTrace(t.getStackTrace());
            if (f.getCause() == null && t.getCause() != null)
            {
                f.initCause(t.getCause());
            }
            for (final Throwable s : t.getSuppressed())
            {
                f.addSuppressed(s);
            }
        }
        else
        {
            f.setStackTrace(new StackTraceElement[0]);
        }
        return f;
    }

    private static Object valueOf(final ValueWrapper w)
    {
        return w == null ? null : w.getValue() != null ? w.getValue() : w.getStringRepresentation();
    }

    private static Throwable deserialize(final byte[] bytes)
    {
        if (bytes.length == 0)
        {
            return null;
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))
        {
            @Override
            protected Class<?> resolveClass(final ObjectStreamClass desc) throws IOException, ClassNotFoundException
            {
                try
                {
                    return Class.forName(desc.getName(), false, Thread.currentThread().getContextClassLoader());
                }
                catch (final ClassNotFoundException ex)
                {
                    return super.resolveClass(desc);
                }
            }
        })
        {
            return (Throwable)in.readObject();
        }
        catch (final IOException | ClassNotFoundException | ClassCastException ex)
        {
            return null;
        }
    }

    private MpiTestFailure stoppedAfterFailure(final Wire.Result[] results, final Wire.Result[] early,
        final int firstFailed, final int graceMs)
    {
        final String report = statusReport();
        final List<Integer> running = unfinished(results);
        final Wire.Result[] known = results.clone();
        for (int r = 0; r < np; r++)
        {
            known[r] = known[r] == null ? early[r] : known[r];
        }
        final Throwable base = outcome(known);
        final MpiTestFailure f = failureOf(known[firstFailed], 1);
        final String after = results[firstFailed] == null ? " (rank " + firstFailed + " itself was still in its " +
            "@AfterEach methods)" : "";
        final String msg = f.getMessage() + "\n" + ranks(running) + " had not finished " + graceMs +
            " ms after rank " + firstFailed + " failed (" + Settings.GRACE + ")" + after + "; the job was stopped. " +
            "What every rank was doing:\n" + report + tail.describe();
        final MpiTestFailure stopped = new MpiTestFailure(firstFailed, msg);
        stopped.setStackTrace(f.getStackTrace());
        if (f.getCause() != null)
        {
            stopped.initCause(f.getCause());
        }
        if (base != null)
        {
            for (final Throwable s : base.getSuppressed())
            {
                stopped.addSuppressed(s);
            }
        }
        kill();
        return stopped;
    }

    private MpiTestFailure hang(final Wire.Result[] results, final int timeoutS)
    {
        final String report = statusReport();
        final StringBuilder msg = new StringBuilder();
        msg.append("timed out after ").append(timeoutS).append(" s with ").append(np).append(" rank")
            .append(np == 1 ? "" : "s").append(": ").append(ranks(unfinished(results)))
            .append(" had not finished (@MpiTest(timeout = ...) or ").append(Settings.TIMEOUT)
            .append(" sets the limit). What every rank was doing:\n").append(report).append(tail.describe());
        appendKept(msg);
        kill();
        final MpiTestFailure f = new MpiTestFailure(-1, msg.toString());
        f.setStackTrace(new StackTraceElement[0]);
        return f;
    }

    private MpiTestFailure crash(final List<Integer> gone, final Wire.Result[] results)
    {
        // The launcher stops the other ranks and says why; give it a moment to finish saying it.
        waitFor(launcher, 5_000);
        final StringBuilder msg = new StringBuilder();
        msg.append("rank ").append(gone.get(0)).append(" (of ").append(np)
            .append(") exited during the test; the job ended");
        if (gone.size() > 1)
        {
            msg.append(", ").append(ranks(gone.subList(1, gone.size()))).append(" stopped with it");
        }
        if (!launcher.isAlive())
        {
            msg.append(" (shmrun exit status ").append(launcher.exitValue()).append(')');
        }
        msg.append('\n').append(tail.describe());
        appendKept(msg);
        kill();
        final MpiTestFailure f = new MpiTestFailure(gone.get(0), msg.toString());
        f.setStackTrace(new StackTraceElement[0]);
        final Throwable reported = outcome(results);
        if (reported != null)
        {
            f.addSuppressed(reported);
        }
        return f;
    }

    private static List<Integer> unfinished(final Wire.Result[] results)
    {
        final List<Integer> out = new ArrayList<>();
        for (int r = 0; r < results.length; r++)
        {
            if (results[r] == null)
            {
                out.add(r);
            }
        }
        return out;
    }

    private static String ranks(final List<Integer> ranks)
    {
        return (ranks.size() == 1 ? "rank " : "ranks ") +
            ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    private void appendKept(final StringBuilder msg)
    {
        if (keep)
        {
            final Path dir = jobDirectory();
            msg.append("\njob directory kept (").append(Settings.KEEP).append("): ")
                .append(dir == null ? "(not found; shmrun pid " + launcher.pid() + ")" : dir.toString());
        }
    }

    /** The job's directory in shared memory, found by the launcher's pid; null if none. */
    Path jobDirectory()
    {
        final Path root = Path.of(org.shmpi.shm.ShmpiConfig.fromSystem().shmDir(),
            "shmpi-" + System.getProperty("user.name", "unknown"));
        if (!Files.isDirectory(root))
        {
            return null;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, launcher.pid() + "-*"))
        {
            for (final Path d : dirs)
            {
                return d;
            }
        }
        catch (final IOException ex)
        {
            return null;
        }
        return null;
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
        cmd.add(Long.toString(launcher.pid()));
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

    /** Stops the job at once: SIGTERM to the launcher, which stops its ranks and cleans up. */
    void kill()
    {
        broken = true;
        if (launcher.isAlive())
        {
            launcher.destroy();
            if (!waitFor(launcher, 15_000))
            {
                launcher.descendants().forEach(ProcessHandle::destroyForcibly);
                launcher.destroyForcibly();
                waitFor(launcher, 5_000);
            }
        }
        closeSockets();
        removeLeftovers();
    }

    /** Ends the job: every rank finalizes and exits; a job that does not end in time is killed. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (!broken())
        {
            for (final DataOutputStream out : outs)
            {
                try
                {
                    out.writeByte(Wire.EXIT);
                    out.flush();
                }
                catch (final IOException ex)
                {
                    broken = true;
                }
            }
            if (!waitFor(launcher, 30_000))
            {
                kill();
            }
        }
        else
        {
            kill();
        }
        closeSockets();
        for (final Thread t : threads)
        {
            try
            {
                t.join(2_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
        removeLeftovers();
    }

    /** When the launcher had to be killed hard its directory stays: remove it (unless kept). */
    private void removeLeftovers()
    {
        if (keep || launcher.isAlive())
        {
            return;
        }
        final Path dir = jobDirectory();
        if (dir != null)
        {
            try (java.util.stream.Stream<Path> walk = Files.walk(dir))
            {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            catch (final IOException ex)
            {
                // Best effort: shmrun --cleanup removes what a dead job left.
            }
        }
    }

    private void closeSockets()
    {
        for (final Socket s : sockets)
        {
            if (s != null)
            {
                try
                {
                    s.close();
                }
                catch (final IOException ex)
                {
                    // Closing.
                }
            }
        }
    }

    private static boolean waitFor(final Process p, final long millis)
    {
        try
        {
            return p.waitFor(millis, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return !p.isAlive();
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

    private static String indent(final String s)
    {
        return Arrays.stream(s.split("\n")).map(l -> "  " + l).collect(Collectors.joining("\n"));
    }
}
