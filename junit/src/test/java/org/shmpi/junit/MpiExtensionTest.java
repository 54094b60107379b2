package org.shmpi.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.EventType;
import org.shmpi.junit.samples.AfterEachSample;
import org.shmpi.junit.samples.BasicsSample;
import org.shmpi.junit.samples.ClassLevelSample;
import org.shmpi.junit.samples.HangSample;
import org.shmpi.junit.samples.KeepSample;
import org.shmpi.junit.samples.MpiAssertSample;
import org.shmpi.junit.samples.SharedJobSample;
import org.opentest4j.TestAbortedException;

/**
 * The extension run as a user's build runs it: sample test classes executed by the JUnit
 * Platform (testkit), and the events JUnit reports for each checked, down to the messages.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MpiExtensionTest
{
    @BeforeEach
    void enableSamples()
    {
        System.setProperty("shmpi.samples", "true");
    }

    @AfterEach
    void clearSettings()
    {
        System.clearProperty("shmpi.samples");
        System.clearProperty(Settings.MAX_NP);
        System.clearProperty(Settings.KEEP);
    }

    static EngineExecutionResults run(final Class<?> c)
    {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(c)).execute();
    }

    /** The finished (or skipped) event of each test, by display name. */
    static Map<String, Event> byName(final EngineExecutionResults r)
    {
        final Map<org.junit.platform.engine.UniqueId, String> names = new HashMap<>();
        for (final Event e : r.allEvents().list())
        {
            names.put(e.getTestDescriptor().getUniqueId(), e.getTestDescriptor().getDisplayName());
        }
        final Map<String, Event> m = new HashMap<>();
        for (final Event e : r.testEvents().list())
        {
            if (e.getType() == EventType.FINISHED || e.getType() == EventType.SKIPPED)
            {
                final String parent = e.getTestDescriptor().getParent()
                    .map(d -> names.getOrDefault(d.getUniqueId(), d.getDisplayName())).orElse("?");
                m.put(parent + " " + e.getTestDescriptor().getDisplayName(), e);
            }
        }
        return m;
    }

    static TestExecutionResult result(final Map<String, Event> events, final String name)
    {
        final Event e = events.get(name);
        assertTrue(e != null, "no event for " + name + " in " + events.keySet());
        return e.getRequiredPayload(TestExecutionResult.class);
    }

    static Throwable failure(final Map<String, Event> events, final String name)
    {
        final TestExecutionResult r = result(events, name);
        assertEquals(TestExecutionResult.Status.FAILED, r.getStatus(), name);
        return r.getThrowable().orElseThrow();
    }

    /** No launcher this JVM started lives on, and none left a job directory in /dev/shm. */
    static void nothingLeftBehind() throws IOException, InterruptedException
    {
        for (final long pid : ShmrunProcess.LAUNCHED)
        {
            final Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (h.isPresent())
            {
                h.get().onExit().orTimeout(20, TimeUnit.SECONDS).join();
            }
        }
        final Path root = Path.of("/dev/shm", "shmpi-" + System.getProperty("user.name"));
        if (Files.isDirectory(root))
        {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root))
            {
                for (final Path d : dirs)
                {
                    // Job directories are named <launcher pid>-<start>; other entries (the names of
                    // the name service) are not a job's.
                    final String pid = d.getFileName().toString().split("-")[0];
                    assertFalse(pid.matches("[0-9]+") && ShmrunProcess.LAUNCHED.contains(Long.parseLong(pid)),
                        "left in shared memory: " + d);
                }
            }
        }
    }

    @Test
    void passingFailingAbortedAndSkippedTestsAreReportedAsSuch() throws Exception
    {
        System.setProperty(Settings.MAX_NP, "8");
        final EngineExecutionResults r = run(BasicsSample.class);
        r.testEvents().assertStatistics(s -> s.started(9).succeeded(4).failed(4).aborted(1).skipped(1));
        final Map<String, Event> ev = byName(r);
        for (final String name : List.of("ring() [np=1]", "ring() [np=2]", "ring() [np=3]", "capped() [np=1]"))
        {
            assertEquals(TestExecutionResult.Status.SUCCESSFUL, result(ev, name).getStatus(), name);
        }

        // A failure on one rank: that rank's number, its own assertion and stack trace, its output.
        final Throwable one = failure(ev, "failsOnRankOne() [np=3]");
        final MpiTestFailure f1 = assertInstanceOf(MpiTestFailure.class, one);
        assertEquals(1, f1.rank());
        assertTrue(one.getMessage().startsWith("rank 1 (of 3) failed: org.opentest4j.AssertionFailedError: " +
            "rank one's own check ==> expected: <1> but was: <2>"), one.getMessage());
        assertTrue(one.getMessage().contains("output of rank 1:\n  rank 1 says hello"), one.getMessage());
        assertFalse(one.getMessage().contains("rank 0 says hello"), one.getMessage());
        assertEquals(1, f1.getExpected().getValue());
        assertEquals(2, f1.getActual().getValue());
        assertTrue(Arrays.stream(one.getStackTrace()).anyMatch(
            f -> f.getClassName().equals(BasicsSample.class.getName()) && f.getMethodName().equals("failsOnRankOne")),
            Arrays.toString(one.getStackTrace()));

        // A failure on every rank: the lowest rank's, with the others' attached.
        final Throwable all = failure(ev, "failsOnEveryRank() [np=2]");
        assertTrue(all.getMessage().startsWith("rank 0 (of 2) failed (2 ranks failed): "), all.getMessage());
        assertTrue(all.getMessage().contains("boom on rank 0"), all.getMessage());
        assertEquals(1, all.getSuppressed().length);
        assertTrue(all.getSuppressed()[0].getMessage().contains("boom on rank 1"), all.getSuppressed()[0].getMessage());

        // A collective assertion failing on rank 2 only: every rank left it (no stop after the
        // grace time), and the failure is rank 2's own.
        final Throwable coll = failure(ev, "collectiveAssertFailsOnOneRank() [np=3]");
        assertEquals(2, ((MpiTestFailure)coll).rank());
        assertTrue(coll.getMessage().contains("value on this rank ==> expected: <0> but was: <5>"), coll.getMessage());
        assertFalse(coll.getMessage().contains("the job was stopped"), coll.getMessage());
        assertEquals(2, coll.getSuppressed().length);
        for (final Throwable s : coll.getSuppressed())
        {
            assertTrue(s.getMessage().contains("OtherRankFailed: check failed on rank 2"), s.getMessage());
        }

        // Rank 1 fails while rank 0 waits for it: rank 0 is stopped, and the report says where it waited.
        final Throwable waits = failure(ev, "failsWhileTheOtherWaits() [np=2]");
        assertTrue(waits.getMessage()
            .startsWith("rank 1 (of 2) failed: java.lang.IllegalStateException: rank one gives up"),
            waits.getMessage());
        assertTrue(waits.getMessage().contains("rank 0 had not finished 2000 ms after rank 1 failed"),
            waits.getMessage());
        assertTrue(waits.getMessage().contains("verdict: no deadlock found: rank 0 recv from 1 (tag 5) <- rank 1 " +
            "is running outside MPI"), waits.getMessage());

        final TestExecutionResult aborted = result(ev, "assumptionFails() [np=2]");
        assertEquals(TestExecutionResult.Status.ABORTED, aborted.getStatus());
        assertInstanceOf(TestAbortedException.class, aborted.getThrowable().orElseThrow());
        assertTrue(aborted.getThrowable().get().getMessage().contains("not on this machine"));

        final Event skipped = ev.get("capped() [np=64]");
        assertEquals(EventType.SKIPPED, skipped.getType());
        assertEquals("np=64 is above the cap of 8 ranks (shmpi.test.max.np / SHMPI_TEST_MAX_NP)",
            skipped.getRequiredPayload(String.class));
        nothingLeftBehind();
    }

    @Test
    void collectiveChecksFailOnEveryRankWithTheFailingRanksOwnError() throws Exception
    {
        final EngineExecutionResults r = run(MpiAssertSample.class);
        r.testEvents().assertStatistics(s -> s.started(5).succeeded(2).failed(3));
        final Map<String, Event> ev = byName(r);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, result(ev, "holdEverywhere() [np=1]").getStatus());
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, result(ev, "holdEverywhere() [np=3]").getStatus());
        for (final String name : List.of("notTheSameOnRankOne() [np=3]", "onRankFailsThere() [np=3]"))
        {
            final Throwable f = failure(ev, name);
            assertEquals(1, ((MpiTestFailure)f).rank(), f.toString());
            assertTrue(f.getMessage().startsWith("rank 1 (of 3) failed (3 ranks failed): "), f.getMessage());
            assertFalse(f.getMessage().contains("the job was stopped"), f.getMessage());
            assertEquals(2, f.getSuppressed().length, name);
            for (final Throwable s : f.getSuppressed())
            {
                assertTrue(s.getMessage().contains("OtherRankFailed: check failed on rank 1: "), s.getMessage());
            }
        }
        assertTrue(failure(ev, "notTheSameOnRankOne() [np=3]").getMessage()
            .contains("rank 1 has x where rank 0 has y"));
        assertTrue(failure(ev, "onRankFailsThere() [np=3]").getMessage().contains("only on rank one"));
        final Throwable byRank = failure(ev, "byRankFailsOnTheLastRank() [np=3]");
        assertTrue(byRank.getMessage().startsWith("rank 2 (of 3) failed (3 ranks failed): org.opentest4j." +
            "AssertionFailedError: on rank 2 ==> expected: <2> but was: <9>"), byRank.getMessage());
        nothingLeftBehind();
    }

    /** The setting shmpi.report.dir: each test job writes its job report into a folder of its own. */
    @Test
    void withTheReportSettingEachTestJobWritesItsReport() throws Exception
    {
        System.setProperty(Settings.MAX_NP, "8");
        final Path dir = Path.of("target", "junit-reports").toAbsolutePath();
        for (final int np : new int[] {1, 2})
        {
            final Path json = dir.resolve("ClassLevelSample-np" + np).resolve("report.json");
            Files.deleteIfExists(json);
        }
        System.setProperty("shmpi.report.dir", dir.toString());
        try
        {
            final EngineExecutionResults r = run(ClassLevelSample.class);
            r.testEvents().assertStatistics(s -> s.started(6).succeeded(6).failed(0));
            nothingLeftBehind();
        }
        finally
        {
            System.clearProperty("shmpi.report.dir");
        }
        for (final int np : new int[] {1, 2})
        {
            final Path json = dir.resolve("ClassLevelSample-np" + np).resolve("report.json");
            assertTrue(Files.exists(json), json + " after the job of " + np + " ranks");
            final String text = Files.readString(json);
            assertTrue(text.matches("(?s).*\"recordedRanks\": ?" + np + ",.*"), text);
        }
    }

    @Test
    void onAClassTheClassRunsAtEachRankCountWithItsTestMethodsOnTheRanks() throws Exception
    {
        System.setProperty(Settings.MAX_NP, "8");
        final Path log = Path.of(ClassLevelSample.LOG);
        Files.deleteIfExists(log);
        final EngineExecutionResults r = run(ClassLevelSample.class);
        r.testEvents().assertStatistics(s -> s.started(6).succeeded(6).failed(0));
        final Map<String, Event> ev = byName(r);
        for (final String name : List.of("[np=1] a()", "[np=1] b()", "c() [np=1]", "[np=2] a()", "[np=2] b()",
            "c() [np=2]"))
        {
            assertEquals(TestExecutionResult.Status.SUCCESSFUL, result(ev, name).getStatus(),
                name + " in " + ev.keySet());
        }
        // Above the cap, each method of the [np=64] run is skipped with the reason.
        for (final String name : List.of("[np=64] a()", "[np=64] b()"))
        {
            assertEquals(EventType.SKIPPED, ev.get(name).getType(), name);
            assertEquals("np=64 is above the cap of 8 ranks (shmpi.test.max.np / SHMPI_TEST_MAX_NP)",
                ev.get(name).getRequiredPayload(String.class));
        }
        assertEquals(1, r.containerEvents().skipped().count(), "the @MpiTest method c() of the [np=64] run");
        // Every method of one class run on the same rank JVMs; the two runs on different ones.
        final Map<String, java.util.Set<String>> pids = new HashMap<>();
        for (final String line : Files.readAllLines(log))
        {
            final String[] w = line.split(" ");
            pids.computeIfAbsent(w[0] + "/" + w[2], k -> new java.util.HashSet<>()).add(w[3]);
        }
        assertEquals(java.util.Set.of("1/0", "2/0", "2/1"), pids.keySet(), pids.toString());
        for (final java.util.Set<String> p : pids.values())
        {
            assertEquals(1, p.size(), "one job per class run: " + pids);
        }
        assertNotEquals(pids.get("1/0"), pids.get("2/0"));
        assertEquals(9, Files.readAllLines(log).size());
        nothingLeftBehind();
    }

    /** The body's failure is reported before the @AfterEach methods run: a blocking one cannot hide it. */
    @Test
    void aFailedBodyIsReportedEvenWhenAfterEachBlocks() throws Exception
    {
        final long start = System.nanoTime();
        final EngineExecutionResults r = run(AfterEachSample.class);
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        final Throwable f = failure(byName(r), "rankOneFails() [np=2]");
        final String m = f.getMessage();
        assertTrue(m.startsWith("rank 1 (of 2) failed: java.lang.IllegalStateException: body of rank one"), m);
        assertTrue(m.contains("ranks 0, 1 had not finished 2000 ms after rank 1 failed (shmpi.test.grace.ms) " +
            "(rank 1 itself was still in its @AfterEach methods); the job was stopped"), m);
        assertTrue(m.contains("verdict: "), m);
        assertFalse(m.contains("timed out"), m);
        assertTrue(seconds < 45, "stopped after the grace time, not the 60 s timeout: " + seconds + " s");
        nothingLeftBehind();
    }

    @Test
    void methodsShareAJobUntilOneBreaksItThenTheRestGetAFreshOne() throws Exception
    {
        final Path log = Path.of(SharedJobSample.LOG);
        Files.deleteIfExists(log);
        final EngineExecutionResults r = run(SharedJobSample.class);
        r.testEvents().assertStatistics(s -> s.started(6).succeeded(4).failed(2));
        final Map<String, Event> ev = byName(r);
        final Throwable crash = failure(ev, "b1Crashes() [np=2]");
        assertTrue(crash.getMessage().startsWith("rank 1 (of 2) exited during the test; the job ended"),
            crash.getMessage());
        assertTrue(crash.getMessage().contains("shmrun: rank 1 (pid "), crash.getMessage());
        assertTrue(crash.getMessage().contains("exited with code 7"), crash.getMessage());
        assertTrue(crash.getMessage().contains("output of rank 1:\n  rank 1 about to halt"), crash.getMessage());

        final Map<String, Long> pid = new HashMap<>();
        for (final String line : Files.readAllLines(log))
        {
            final String[] w = line.split(" ");
            pid.put(w[0] + "/" + w[1], Long.parseLong(w[2]));
        }
        assertEquals(12, pid.size(), pid.toString());
        final Throwable failed = failure(ev, "b0Fails() [np=2]");
        assertTrue(failed.getMessage().startsWith("rank 0 (of 2) failed: "), failed.getMessage());
        for (final int rank : new int[] {0, 1})
        {
            assertEquals(pid.get("a1/" + rank), pid.get("a2/" + rank), "one job for a1, a2: " + pid);
            assertEquals(pid.get("a1/" + rank), pid.get("b0/" + rank), "one job for a1, a2, b0: " + pid);
            assertNotEquals(pid.get("b0/" + rank), pid.get("b1/" + rank), "a fresh job after the failure: " + pid);
            assertEquals(pid.get("c1/" + rank), pid.get("c2/" + rank), "one job for c1, c2: " + pid);
            assertNotEquals(pid.get("b1/" + rank), pid.get("c1/" + rank), "a fresh job after the crash: " + pid);
        }
        assertNotEquals(pid.get("a1/0"), pid.get("a1/1"));
        nothingLeftBehind();
    }

    @Test
    void aHangFailsAfterTheTimeoutWithTheVerdictAndTheNextTestRunsInAFreshJob() throws Exception
    {
        final EngineExecutionResults r = run(HangSample.class);
        r.testEvents().assertStatistics(s -> s.started(2).succeeded(1).failed(1));
        final Throwable hang = failure(byName(r), "a_headToHead() [np=2]");
        final String m = hang.getMessage();
        assertTrue(m.startsWith("timed out after 4 s with 2 ranks: ranks 0, 1 had not finished"), m);
        assertTrue(m.contains("rank 0 (pid "), m);
        assertTrue(m.contains("blocked"), m);
        assertTrue(m.contains("in recv from 1 (tag 7), 4 bytes"), m);
        assertTrue(m.contains("posted receives, context 0: from 0: 1 (tag 7; 4 bytes)"), m);
        assertTrue(m.contains("verdict: deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)"), m);
        assertTrue(m.contains("at app//org.shmpi.junit.samples.HangSample.a_headToHead(HangSample.java:"), m);
        nothingLeftBehind();
    }

    @Test
    void keptJobDirectoryIsNamedInTheFailure() throws Exception
    {
        System.setProperty(Settings.KEEP, "true");
        final EngineExecutionResults r = run(KeepSample.class);
        final Throwable f = failure(byName(r), "fails() [np=1]");
        final String m = f.getMessage();
        final int at = m.indexOf("job directory kept (shmpi.test.keep): ");
        assertTrue(at >= 0, m);
        final Path dir = Path.of(m.substring(at + "job directory kept (shmpi.test.keep): ".length()).trim());
        assertTrue(dir.startsWith("/dev/shm"), dir.toString());
        final List<Path> removed = new ArrayList<>();
        // The launcher keeps it after the class's job ends; the test removes it.
        for (int i = 0; i < 100 && !Files.isRegularFile(dir.resolve("job")); i++)
        {
            Thread.sleep(50);
        }
        assertTrue(Files.isRegularFile(dir.resolve("job")), "kept: " + dir);
        try (var walk = Files.walk(dir))
        {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p ->
            {
                removed.add(p);
                p.toFile().delete();
            });
        }
        assertFalse(Files.exists(dir));
        assertFalse(removed.isEmpty());
    }
}
