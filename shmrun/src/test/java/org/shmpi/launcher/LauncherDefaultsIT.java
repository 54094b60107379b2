package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.launcher.ShmrunHarness.TEST_CLASSES;
import static org.shmpi.launcher.ShmrunHarness.jobDirectoriesOf;
import static org.shmpi.launcher.ShmrunHarness.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.shmpi.affinity.Topology;
import org.shmpi.launcher.ShmrunHarness.Result;

/**
 * shmrun's defaults in real jobs: ranks bound to cores of their own when they fit and not bound
 * when they do not, as {@code --report-bindings} says and as each rank sees its own affinity;
 * the default JVM flags reach every rank, and the user's options win over them. No timing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LauncherDefaultsIT
{
    private static final String PROG = "org.shmpi.launcher.progs.RankJvm";
    private static final Pattern RANK_LINE = Pattern.compile("JVM rank=(\\d+) cpus=(\\S*) args=(.*)");

    private static final int CORES = RankPlacement.allowedCores(Topology.detect(System.getProperties()));

    private static Result job(final String name, final int np, final String... options) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("-np", Integer.toString(np)));
        args.addAll(Arrays.asList(options));
        args.addAll(List.of("-cp", TEST_CLASSES.toString(), PROG));
        final Result r = run(name, 60, args.toArray(new String[0]));
        assertEquals(0, r.exit, r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid), "job directory left behind: " + r);
        return r;
    }

    /** Each rank's line: [cpus, jvm options], by rank. */
    private static List<String[]> ranks(final Result r, final int np)
    {
        final String[][] byRank = new String[np][];
        for (final String line : r.outLines())
        {
            final Matcher m = RANK_LINE.matcher(line);
            if (m.matches())
            {
                byRank[Integer.parseInt(m.group(1))] = new String[] {m.group(2), m.group(3)};
            }
        }
        for (int i = 0; i < np; i++)
        {
            assertTrue(byRank[i] != null, "no line from rank " + i + ": " + r);
        }
        return Arrays.asList(byRank);
    }

    @Test
    void ranksThatFitAreBoundToCoresOfTheirOwn() throws Exception
    {
        final int np = Math.min(2, CORES);
        final Result r = job("bind-default-fit", np, "--report-bindings");
        final List<String[]> ranks = ranks(r, np);
        for (int rank = 0; rank < np; rank++)
        {
            final String cpu = ranks.get(rank)[0];
            assertTrue(cpu.matches("\\d+"), "rank " + rank + " runs on one CPU: " + r);
            assertTrue(r.err.contains("shmrun: rank " + rank + " (pid ") &&
                r.err.matches("(?s).*shmrun: rank " + rank + " \\(pid \\d+\\) bound to CPUs " + cpu +
                " \\(default: " + np + " ranks? on " + CORES + " cores?\\).*"), r.toString());
        }
        if (np == 2)
        {
            assertFalse(ranks.get(0)[0].equals(ranks.get(1)[0]), "two ranks, two CPUs: " + r);
        }
    }

    @Test
    void moreRanksThanCoresAreNotBound() throws Exception
    {
        Assumptions.assumeTrue(CORES <= 6, "a machine this large would start " + (CORES + 1) + " JVMs");
        final int np = Math.max(4, CORES + 1);
        final Result r = job("bind-default-oversubscribed", np, "--report-bindings");
        final String all = Topology.detect(System.getProperties()).allowedCpus().toString();
        final List<String[]> ranks = ranks(r, np);
        for (int rank = 0; rank < np; rank++)
        {
            assertEquals(all, ranks.get(rank)[0], "rank " + rank + " may run on every allowed CPU: " + r);
            assertTrue(r.err.matches("(?s).*shmrun: rank " + rank + " \\(pid \\d+\\) not bound \\(default: " + np +
                " ranks > " + CORES + " cores?\\).*"), r.toString());
        }
    }

    @Test
    void bindToNoneOptsOut() throws Exception
    {
        final Result r = job("bind-none", 2, "--bind-to", "none", "--report-bindings");
        final String all = Topology.detect(System.getProperties()).allowedCpus().toString();
        for (final String[] rank : ranks(r, 2))
        {
            assertEquals(all, rank[0], r.toString());
        }
        assertTrue(r.err.matches("(?s).*shmrun: rank 1 \\(pid \\d+\\) not bound \\(--bind-to none\\).*"), r.toString());
    }

    @Test
    void classDataArchiveIsBuiltAfterTheFirstJobAndUsedByTheNext(@TempDir final Path cds) throws Exception
    {
        final List<String> env = List.of("env", ClassDataArchive.DIR_ENV + "=" + cds);
        final String[] args = {"-np", "2", "-cp", TEST_CLASSES.toString(), PROG};
        final Result first = ShmrunHarness.start("cds-first", env, null, args).finish(60);
        assertEquals(0, first.exit, first.toString());
        for (final String[] rank : ranks(first, 2))
        {
            assertFalse(rank[1].contains("SharedArchiveFile"), "no archive yet: " + rank[1]);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        // The builder writes the archive, then links the launcher's name to it: wait for both.
        while ((archives(cds).isEmpty() || !Files.isSymbolicLink(cds.resolve(ClassDataArchive.LAUNCHER_LINK))) &&
            System.nanoTime() - deadline < 0)
        {
            Thread.sleep(100);
        }
        assertEquals(1, archives(cds).size(), "one archive built in the background: " + listing(cds));
        assertEquals(archives(cds).get(0).getFileName(),
            Files.readSymbolicLink(cds.resolve(ClassDataArchive.LAUNCHER_LINK)), "the launcher's link to it");
        final Result second = ShmrunHarness.start("cds-second", env, null, args).finish(60);
        assertEquals(0, second.exit, second.toString());
        assertEquals("", second.err, "nothing from the JVM about the archive");
        for (final String[] rank : ranks(second, 2))
        {
            assertTrue(rank[1].contains("-XX:SharedArchiveFile=" + archives(cds).get(0)), rank[1]);
        }
        // The archive was trained by a job of two ranks: the lambdas of a collective's steps,
        // which a job of one never links, come from it instead of being spun at run time.
        final Result third = ShmrunHarness.start("cds-third", env, null, "-np", "2",
            "--jvm-arg", "-Xlog:class+load=info", "-cp", TEST_CLASSES.toString(), PROG, "allreduce").finish(60);
        assertEquals(0, third.exit, third.toString());
        final List<String> lambdas = third.out.lines()
            .filter(l -> l.contains("org.shmpi.coll.") && l.contains("$$Lambda")).collect(Collectors.toList());
        assertFalse(lambdas.isEmpty(), "an allReduce links lambdas of org.shmpi.coll: " + third);
        for (final String l : lambdas)
        {
            assertTrue(l.contains("source: shared objects file"), "archived: " + l);
        }
    }

    private static List<Path> archives(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().startsWith("shmpi-") &&
                p.getFileName().toString().endsWith(".jsa")).collect(Collectors.toList());
        }
    }

    private static String listing(final Path dir) throws IOException
    {
        final StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path p : (Iterable<Path>)files::iterator)
            {
                sb.append(p.getFileName()).append(' ');
                if (p.toString().endsWith(".log"))
                {
                    sb.append(Files.readString(p));
                }
            }
        }
        return sb.toString();
    }

    @Test
    void defaultJvmFlagsReachTheRanksAndTheUserWins() throws Exception
    {
        final List<String> ours = RankJvmDefaults.selected(null, null);
        assertTrue(ours.stream().anyMatch(f -> f.startsWith("-Djna.platform.library.path=")), ours.toString());
        for (final String[] rank : ranks(job("jvm-defaults", 2), 2))
        {
            final List<String> args = Arrays.asList(rank[1].split(" "));
            assertTrue(args.containsAll(ours), "defaults " + ours + " in " + rank[1]);
        }
        for (final String[] rank : ranks(job("jvm-defaults-none", 2, "--jvm-defaults", "none"), 2))
        {
            for (final String flag : ours)
            {
                assertFalse(Arrays.asList(rank[1].split(" ")).contains(flag), flag + " dropped: " + rank[1]);
            }
            assertFalse(rank[1].contains("SharedArchiveFile"), "no archive either: " + rank[1]);
        }
        final Result user = job("jvm-defaults-user", 2, "--jvm-arg", "-XX:+UseParallelGC", "--jvm-arg",
            "-XX:TieredStopAtLevel=4", "--jvm-arg", "-Xshare:off", "-Djna.platform.library.path=/usr/lib");
        for (final String[] rank : ranks(user, 2))
        {
            final List<String> args = Arrays.asList(rank[1].split(" "));
            assertTrue(args.contains("-XX:+UseParallelGC") && args.contains("-XX:TieredStopAtLevel=4"), rank[1]);
            for (final String a : args)
            {
                assertFalse(a.equals("-XX:+UseSerialGC") || a.equals("-XX:+UseG1GC"), "one collector only: " + rank[1]);
                assertFalse(a.startsWith("-XX:TieredStopAtLevel=") && !a.endsWith("=4"),
                    "the user's level: " + rank[1]);
                assertFalse(a.startsWith("-XX:SharedArchiveFile"), "the user's -Xshare:off: " + rank[1]);
                assertFalse(a.startsWith("-Djna.platform.library.path=") && !a.endsWith("=/usr/lib"),
                    "the user's JNA path: " + rank[1]);
            }
        }
    }
}
