package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.shmpi.affinity.CpuSet;
import org.shmpi.affinity.MappingPolicy;
import org.shmpi.affinity.Topology;

class LaunchOptionsTest
{
    private static LaunchOptions parse(final String... args)
    {
        return LaunchOptions.parse(args, Map.of("HOME_VAR", "from-caller"));
    }

    @Test
    void classpathForm()
    {
        final LaunchOptions o = parse("-np", "4", "-cp", "a.jar:b.jar", "my.Main", "x", "-y");
        assertEquals(4, o.np());
        assertEquals(List.of("a.jar", "b.jar"), o.classpath());
        assertEquals("my.Main", o.mainClass());
        assertEquals(List.of("x", "-y"), o.programArgs());
    }

    @Test
    void javaForm()
    {
        final LaunchOptions o = parse("-n", "2", "java", "-Xmx1g", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "-classpath", "cp", "Main", "arg");
        assertEquals(2, o.np());
        assertEquals(List.of("-Xmx1g", "--add-opens", "java.base/java.lang=ALL-UNNAMED"), o.jvmArgs());
        assertEquals(List.of("cp"), o.classpath());
        assertEquals("Main", o.mainClass());
        assertEquals(List.of("arg"), o.programArgs());
    }

    @Test
    void launcherOptions()
    {
        final LaunchOptions o = parse("-np=3", "--bind-to", "core", "--report-bindings", "--timeout=7",
            "--tag-output", "-x", "A=1", "-x", "HOME_VAR", "-x", "MISSING", "-Dp=q", "--jvm-arg", "-Xss1m",
            "--mca", "ring.capacity", "65536", "--keep-shm", "-cp", ".", "M");
        assertEquals(3, o.np());
        assertEquals(MappingPolicy.CORE, o.bindTo);
        assertTrue(o.reportBindings && o.tagOutput && o.keepShm);
        assertEquals(7, o.timeoutSeconds);
        assertEquals(Map.of("A", "1", "HOME_VAR", "from-caller"), o.env());
        assertEquals(List.of("-Dp=q", "-Xss1m", "-Dshmpi.ring.capacity=65536"), o.jvmArgs());
    }

    /** Two cores of two hardware threads (CPUs 0,2 and 1,3), the allowed CPUs as given. */
    private static Topology twoCoresTwoThreads(final String allowed)
    {
        return Topology.parse(String.join("\n",
            "cpu 0 core=0 package=0 node=0",
            "cpu 1 core=1 package=0 node=0",
            "cpu 2 core=0 package=0 node=0",
            "cpu 3 core=1 package=0 node=0",
            "allowed " + allowed));
    }

    /** This machine's kind: two CPUs, one thread per core. */
    private static final Topology TWO_CPUS = Topology.parse("cpu 0 core=0\ncpu 1 core=1\n");

    @Test
    void statusNamesTheJobAndTakesThreads()
    {
        final LaunchOptions o = parse("--status", "4711");
        assertEquals(LaunchOptions.Action.STATUS, o.action());
        assertEquals("4711", o.statusTarget);
        assertEquals(false, o.threads);
        final LaunchOptions t = parse("--status=/dev/shm/shmpi-me/1-2", "--threads");
        assertEquals("/dev/shm/shmpi-me/1-2", t.statusTarget);
        assertEquals(true, t.threads);
        assertEquals(true, parse("--threads", "-np", "2", "--timeout", "5", "-cp", ".", "M").threads,
            "--threads on a run: the --timeout and SIGQUIT reports carry stacks");
        final LaunchOptions.UsageException missing =
            assertThrows(LaunchOptions.UsageException.class, () -> parse("--status"));
        assertTrue(missing.getMessage().contains("--status needs a value"), missing.getMessage());
        final LaunchOptions.UsageException extra =
            assertThrows(LaunchOptions.UsageException.class, () -> parse("--status", "1", "-np", "2"));
        assertTrue(extra.getMessage().contains("only --threads after it: -np"), extra.getMessage());
    }

    @Test
    void bindingDefaultsToCoreWhenTheRanksFit()
    {
        assertNull(parse("-np", "2", "-cp", ".", "M").bindTo, "no --bind-to: the default decides");
        final RankPlacement one = RankPlacement.decide(null, TWO_CPUS, 1);
        assertEquals(MappingPolicy.CORE, one.policy());
        assertEquals(CpuSet.of(0), one.cpusOf(0));
        final RankPlacement two = RankPlacement.decide(null, TWO_CPUS, 2);
        assertEquals(MappingPolicy.CORE, two.policy());
        assertEquals(CpuSet.of(0), two.cpusOf(0));
        assertEquals(CpuSet.of(1), two.cpusOf(1));
        assertEquals("bound to CPUs 1 (default: 2 ranks on 2 cores)", two.describe(1));
    }

    @Test
    void bindingDefaultsToNoneWithMoreRanksThanCores()
    {
        for (final int np : new int[] {3, 4, 8})
        {
            final RankPlacement p = RankPlacement.decide(null, TWO_CPUS, np);
            assertEquals(MappingPolicy.NONE, p.policy());
            assertTrue(p.cpusOf(np - 1).isEmpty());
            assertEquals("not bound (default: " + np + " ranks > 2 cores)", p.describe(0));
        }
    }

    @Test
    void bindingDefaultCountsCoresNotHardwareThreads()
    {
        final Topology t = twoCoresTwoThreads("0-3");
        assertEquals(2, RankPlacement.allowedCores(t));
        final RankPlacement two = RankPlacement.decide(null, t, 2);
        assertEquals(MappingPolicy.CORE, two.policy());
        assertEquals(CpuSet.of(0), two.cpusOf(0));
        assertEquals(CpuSet.of(1), two.cpusOf(1), "two ranks on two different cores, not on siblings");
        assertEquals(MappingPolicy.NONE, RankPlacement.decide(null, t, 3).policy(), "3 ranks, 2 cores");
    }

    @Test
    void bindingDefaultCountsOnlyAllowedCores()
    {
        final Topology t = twoCoresTwoThreads("0,2");
        assertEquals(1, RankPlacement.allowedCores(t));
        assertEquals(MappingPolicy.CORE, RankPlacement.decide(null, t, 1).policy());
        assertEquals(MappingPolicy.NONE, RankPlacement.decide(null, t, 2).policy());
    }

    @Test
    void explicitBindingWins()
    {
        assertEquals(MappingPolicy.NONE, parse("-np", "2", "--bind-to", "none", "-cp", ".", "M").bindTo);
        final RankPlacement none = RankPlacement.unbound("--bind-to none");
        assertEquals(MappingPolicy.NONE, none.policy());
        assertEquals("not bound (--bind-to none)", none.describe(1));
        final RankPlacement core = RankPlacement.decide(MappingPolicy.CORE, TWO_CPUS, 4);
        assertEquals(MappingPolicy.CORE, core.policy(), "--bind-to core binds even oversubscribed ranks");
        assertEquals(CpuSet.of(1), core.cpusOf(3));
        assertEquals("bound to CPUs 1 (--bind-to core)", core.describe(3));
        final RankPlacement numa = RankPlacement.decide(MappingPolicy.NUMA, TWO_CPUS, 2);
        assertEquals(CpuSet.parse("0-1"), numa.cpusOf(1));
    }

    @Test
    void aTopologyFileOfAnotherMachineIsPlacedButNotBound()
    {
        // 2 NUMA nodes of 2 cores on a launcher that may run on CPUs 0-1 only.
        final StringBuilder text = new StringBuilder();
        for (int cpu = 0; cpu < 4; cpu++)
        {
            text.append("cpu ").append(cpu).append(" core=").append(cpu).append(" node=").append(cpu / 2).append('\n');
        }
        final Topology t = Topology.parse(text.toString());
        final RankPlacement fake = RankPlacement.decide(null, t, 4, CpuSet.parse("0-1"));
        assertEquals(MappingPolicy.CORE, fake.policy());
        assertTrue(fake.simulated());
        assertFalse(fake.bindsForReal(), "taskset -c 3 would fail here");
        assertEquals(CpuSet.of(3), fake.placedCpus(3), "the rank is still told where it was placed");
        assertEquals("placed on CPUs 3 of the topology file, not bound: those CPUs are not all available here " +
            "(default: 4 ranks on 4 cores)", fake.describe(3));

        final RankPlacement real = RankPlacement.decide(null, t, 2, CpuSet.parse("0-3"));
        assertTrue(real.bindsForReal());
        assertEquals(CpuSet.of(1), real.placedCpus(1));

        final RankPlacement unbound = RankPlacement.decide(MappingPolicy.NONE, t, 3, CpuSet.parse("0-1"));
        assertFalse(unbound.binds());
        assertFalse(unbound.simulated());
        assertEquals(CpuSet.parse("0-3"), unbound.placedCpus(2), "an unbound rank may run on every allowed CPU");
        assertNull(RankPlacement.unbound("--bind-to none").placedCpus(0), "no topology: nothing to tell");
    }

    @Test
    void jvmDefaultsAreOursUnlessDroppedOrReplaced()
    {
        final List<String> ours = RankJvmDefaults.selected(null, null);
        final List<String> fixed = RankJvmDefaults.forJdk(Runtime.version().feature());
        assertEquals(fixed, ours.subList(0, fixed.size()));
        assertEquals(RankJvmDefaults.FLAGS, RankJvmDefaults.forJdk(17));
        assertEquals(List.of(), RankJvmDefaults.forJdk(RankJvmDefaults.JIT_SCALING_BEFORE), "measured no help there");
        assertEquals(ours, RankJvmDefaults.selected("default", "none"));
        assertEquals(List.of(), RankJvmDefaults.selected("none", null));
        assertEquals(List.of(), RankJvmDefaults.selected(null, " NONE "));
        assertEquals(List.of("-Xint", "-Xss2m"), RankJvmDefaults.selected(null, "-Xint  -Xss2m"));
        assertEquals(List.of(), RankJvmDefaults.selected("none", "-Xint"), "the option wins over the setting");

        assertEquals("none", parse("-np", "2", "--jvm-defaults", "none", "-cp", ".", "M").jvmDefaults);
        assertEquals("none", parse("-np", "2", "--jvm-defaults=none", "-cp", ".", "M").jvmDefaults);
        assertEquals("none", parse("-np", "2", "--mca", "launcher.jvm.defaults", "none", "-cp", ".", "M")
            .jvmDefaultsSetting());
        assertEquals("-Xint", parse("-np", "2", "-Dshmpi.launcher.jvm.defaults=-Xint", "-cp", ".", "M")
            .jvmDefaultsSetting());
        assertNull(parse("-np", "2", "-cp", ".", "M").jvmDefaultsSetting());
    }

    @Test
    void jnaFindsLibrariesWithoutRunningLdconfig()
    {
        final String flag = RankJvmDefaults.jnaPlatformPath("Linux", "amd64");
        assertTrue(flag.startsWith("-Djna.platform.library.path="), flag);
        assertNull(RankJvmDefaults.jnaPlatformPath("Mac OS X", "aarch64"));
        assertEquals(List.of(), RankJvmDefaults.notOverridden(List.of(flag),
            List.of("-Djna.platform.library.path=/opt/lib"), Map.of()), "the user's path wins");
    }

    @Test
    void userJvmOptionsWinOverDefaults()
    {
        final List<String> defaults = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
            "-Xshare:auto", "-XX:SharedArchiveFile=/x.jsa", "-XX:CompileThresholdScaling=0.1", "-Dshmpi.a=1");
        assertEquals(defaults, RankJvmDefaults.notOverridden(defaults, List.of("-Xmx1g", "-Dother=2"), Map.of()));
        assertEquals(List.of("-Xss512k", "-XX:CompileThresholdScaling=0.1", "-Dshmpi.a=1"),
            RankJvmDefaults.notOverridden(defaults,
                List.of("-XX:+UseG1GC", "-XX:TieredStopAtLevel=4", "-Xshare:off"), Map.of()));
        assertEquals(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-XX:SharedArchiveFile=/x.jsa"),
            RankJvmDefaults.notOverridden(defaults, List.of("-Xss2m", "-XX:-CompileThresholdScaling", "-Dshmpi.a=3"),
                Map.of()));
        assertEquals(List.of("-XX:TieredStopAtLevel=1", "-Xss512k", "-XX:CompileThresholdScaling=0.1", "-Dshmpi.a=1"),
            RankJvmDefaults.notOverridden(defaults, List.of(),
                Map.of("JDK_JAVA_OPTIONS", " -XX:+UseParallelGC", "JAVA_TOOL_OPTIONS", "-XX:SharedArchiveFile=/y")),
            "options in the JVM's own environment variables count as the user's");
    }

    @Test
    void userThresholdScalingReplacesOurs()
    {
        final List<String> ours = RankJvmDefaults.FLAGS;
        assertTrue(ours.contains("-XX:CompileCommand=quiet"), ours.toString());
        final List<String> scaling = ours.stream().filter(f -> f.contains("CompileThresholdScaling")).toList();
        assertTrue(scaling.stream().anyMatch(f -> f.contains("org.shmpi.*::*")) && scaling.size() == 3,
            ours.toString());
        assertEquals(ours, RankJvmDefaults.notOverridden(ours, List.of("-XX:CompileCommand=exclude,Foo::bar",
            "-XX:TieredStopAtLevel=1"), Map.of()), "other compile commands add to ours");
        assertEquals(List.of("-XX:CompileCommand=quiet"), RankJvmDefaults.notOverridden(ours,
            List.of("-XX:CompileThresholdScaling=0.5"), Map.of()), "a global scaling replaces ours");
        assertEquals(List.of("-XX:CompileCommand=quiet"), RankJvmDefaults.notOverridden(ours, List.of(),
            Map.of("JAVA_TOOL_OPTIONS", "-XX:CompileCommand=CompileThresholdScaling,com.x.*::*,0.1")),
            "so does a per-method one");
    }

    @Test
    void classDataArchiveIsNamedByJvmAndJars(@TempDir final Path tmp) throws Exception
    {
        final Path jar = Files.writeString(tmp.resolve("a.jar"), "x");
        final List<String> jars = List.of(jar.toString());
        final ClassDataArchive one = ClassDataArchive.of(tmp, "/jdk/bin/java", jars, List.of("-Dx=1"));
        assertEquals(one.file(), ClassDataArchive.of(tmp, "/jdk/bin/java", jars, List.of("-Dx=1")).file());
        assertTrue(one.file().getFileName().toString().matches("shmpi-.+-[0-9a-f]+-[0-9a-f]+\\.jsa"),
            one.file().toString());
        assertFalse(one.exists());
        final String otherJvm = ClassDataArchive.of(tmp, "/jdk25/bin/java", jars, List.of("-Dx=1")).file().toString();
        assertFalse(otherJvm.equals(one.file().toString()), "another JVM, another archive");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        final Path rebuilt = ClassDataArchive.of(tmp, "/jdk/bin/java", jars, List.of("-Dx=1")).file();
        assertFalse(rebuilt.equals(one.file()), "a rebuilt jar, another archive");
        final String name = one.file().getFileName().toString();
        assertEquals(name.substring(0, name.lastIndexOf('-')),
            rebuilt.getFileName().toString().substring(0, name.lastIndexOf('-')), "same JVM and paths: same prefix");
        assertEquals(List.of("-XX:SharedArchiveFile=" + one.file(), "-Xshare:auto", "-Xlog:cds*=off"), one.rankFlags());
    }

    @Test
    void classDataArchiveDirectory(@TempDir final Path tmp)
    {
        assertNull(ClassDataArchive.directory("none", tmp.toString(), Map.of()));
        assertEquals(tmp.resolve("mine"), ClassDataArchive.directory(tmp.resolve("mine").toString(), null, Map.of()));
        assertEquals(tmp.resolve("home/lib/cds"),
            ClassDataArchive.directory(null, tmp.resolve("home").toString(), Map.of()));
        assertEquals(tmp.resolve("xdg/shmpi/cds"),
            ClassDataArchive.directory(null, null, Map.of("XDG_CACHE_HOME", tmp.resolve("xdg").toString())));
    }

    @Test
    void actionsNeedNoProgram()
    {
        assertEquals(LaunchOptions.Action.HELP, parse("-h").action());
        assertEquals(LaunchOptions.Action.VERSION, parse("--version").action());
        assertEquals(LaunchOptions.Action.CLEANUP, parse("--cleanup").action());
        assertEquals(LaunchOptions.Action.INFO, parse("--info").action());
    }

    @Test
    void badCommandLinesSayWhatIsWrong()
    {
        assertMessage("missing -np N", "-cp", ".", "M");
        assertMessage("number of ranks must be at least 1", "-np", "0", "-cp", ".", "M");
        assertMessage("-np needs a number", "-np", "four", "-cp", ".", "M");
        assertMessage("unknown option: --nope", "-np", "2", "--nope", "-cp", ".", "M");
        assertMessage("missing program", "-np", "2");
        assertMessage("missing main class", "-np", "2", "-cp", ".");
        assertMessage("--bind-to", "-np", "2", "--bind-to", "socket", "-cp", ".", "M");
        assertMessage("jar file not found", "-np", "2", "-jar", "/nonexistent.jar");
        assertMessage("missing main class after java", "-np", "2", "java", "-Xmx1g");
        assertMessage("--timeout must be at least 1", "-np", "2", "--timeout", "0", "-cp", ".", "M");
    }

    private static void assertMessage(final String expected, final String... args)
    {
        final LaunchOptions.UsageException ex = assertThrows(LaunchOptions.UsageException.class, () -> parse(args));
        assertTrue(ex.getMessage().contains(expected), "message '" + ex.getMessage() + "' lacks '" + expected + "'");
    }
}
