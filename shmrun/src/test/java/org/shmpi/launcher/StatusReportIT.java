package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.launcher.ShmrunHarness.*;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who waits on whom, on deliberate deadlocks ({@code progs.Deadlocks}): the exact verdict line
 * of {@code shmrun --status} from another process, the report printed when {@code --timeout}
 * expires and on SIGQUIT, and every rank's blocking call, queues and stack in it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatusReportIT
{
    private static final String DEADLOCKS = "org.shmpi.launcher.progs.Deadlocks";

    @AfterAll
    static void nothingLeftInShm() throws IOException
    {
        for (final long pid : LAUNCHED)
        {
            assertEquals(List.of(), jobDirectoriesOf(pid), "job directories left by launcher " + pid);
        }
    }

    /**
     * A JVM starts its children with SIGQUIT blocked (it keeps the signal for its own thread
     * dumps), so shmrun started from this test would never see it; perl unblocks it first, as a
     * terminal's shell has it.
     */
    private static final List<String> SIGQUIT_UNBLOCKED = List.of("perl", "-MPOSIX", "-e",
        "sigprocmask(SIG_UNBLOCK, POSIX::SigSet->new(SIGQUIT)) or die; exec @ARGV");

    private static Running startBlocked(final String name, final int np, final String mode, final String... options)
        throws Exception
    {
        return startBlocked(name, List.of(), np, mode, options);
    }

    private static Running startBlocked(
        final String name, final List<String> prefix, final int np, final String mode, final String... options)
        throws Exception
    {
        final List<String> args = new java.util.ArrayList<>(List.of("-np", Integer.toString(np)));
        args.addAll(List.of(options));
        args.addAll(List.of("-cp", TEST_CLASSES.toString(), DEADLOCKS, mode));
        final Running job = start(name, prefix, null, args.toArray(new String[0]));
        job.awaitLines("BLOCKING", np, 60_000);
        return job;
    }

    /**
     * {@code shmrun --status PID}, until its verdict is {@code expected} (the waits are permanent; a sample may
     * be early).
     */
    private static Result statusUntil(final Running job, final String expected, final String... extra) throws Exception
    {
        Result status = null;
        // A rank's engines are sampled only if one of its threads answers within the report's time;
        // on a crowded machine it may not have run by then: ask again, as a user would.
        for (int attempt = 0; attempt < 8; attempt++)
        {
            Thread.sleep(300);
            final List<String> args = new java.util.ArrayList<>(List.of("--status", Long.toString(job.pid())));
            args.addAll(List.of(extra));
            status = run("status-" + job.name, 60, args.toArray(new String[0]));
            assertEquals(0, status.exit, status.toString());
            final boolean sampled = expected.contains("running outside MPI")
                || !status.out.contains("engines: not sampled");
            if (status.out.contains("\nverdict: " + expected + "\n") && sampled)
            {
                return status;
            }
        }
        throw new AssertionError("verdict never became '" + expected + "' with every rank in MPI sampled: " + status);
    }

    private static void stop(final Running job) throws Exception
    {
        new ProcessBuilder("kill", "-TERM", Long.toString(job.pid())).start().waitFor();
        final Result r = job.finish(60);
        assertEquals(143, r.exit, r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    @ParameterizedTest(name = "np={0} {1}")
    @CsvSource(delimiter = '|', value = {
        "2|head-to-head|deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)",
        "3|head-to-head|deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 2 (tag 7) " +
            "<- rank 2 recv from 0 (tag 7)",
        "2|missing-send|deadlock: rank 0 recv from 1 (tag 5) <- rank 1 finalize (waits for 0)",
        "3|skipped-barrier|deadlock: rank 0 barrier (waits for 2) <- rank 2 recv from 0 (tag 1)",
        "2|any-source|deadlock: every rank is blocked: rank 0 recv from any (tag 3), rank 1 recv from any (tag 3)",
        "2|compute|no deadlock found: rank 0 recv from 1 (tag 2) <- rank 1 is running outside MPI"})
    void statusFromAnotherProcessGivesTheVerdict(final int np, final String mode, final String verdict) throws Exception
    {
        final Running job = startBlocked("status-" + mode + "-np" + np, np, mode, "--timeout", "100");
        try
        {
            final Result status = statusUntil(job, verdict);
            for (int r = 0; r < np; r++)
            {
                assertTrue(Pattern.compile("(?m)^rank " + r + " \\(pid \\d+\\): INITIALIZED, ")
                    .matcher(status.out).find(), status.toString());
            }
            assertTrue(status.out.contains("    contexts: 0=MPI_COMM_WORLD"), status.toString());
            assertTrue(status.out.contains("org.shmpi.launcher.progs.Deadlocks.main(Deadlocks.java:"),
                "each rank's main thread stack, from the program's frame: " + status);
            if (mode.equals("missing-send"))
            {
                // Rank 0's message to rank 1 sits unmatched there; rank 0's receive is posted.
                assertTrue(Pattern.compile("(?s)rank 0 \\(pid \\d+\\): INITIALIZED, blocked \\d+\\.\\d s " +
                    "in recv from 1 \\(tag 5\\), 4 bytes\n" +
                    ".*    posted receives, context 0: from 1: 1 \\(tag 5; 4 bytes\\)\n")
                    .matcher(status.out).find(), status.toString());
                assertTrue(status.out.contains("    unexpected messages, context 0: from 0: 1 (tag 9; 4 bytes)\n"),
                    status.toString());
            }
            if (mode.equals("compute"))
            {
                assertTrue(Pattern.compile("(?m)^rank 1 \\(pid \\d+\\): INITIALIZED, running \\(not blocked in MPI\\)$")
                    .matcher(status.out).find(), status.toString());
            }
        }
        finally
        {
            stop(job);
        }
    }

    @Test
    void timeoutPrintsTheReportBeforeEndingTheJob() throws Exception
    {
        final Result r = run("timeout-report", 90, "-np", "2", "--timeout", "8", "-cp", TEST_CLASSES.toString(),
            DEADLOCKS, "head-to-head");
        assertEquals(124, r.exit, r.toString());
        final int report = r.err.indexOf("shmrun: --timeout 8 s expired\nshmrun: status of job ");
        assertTrue(report >= 0, r.toString());
        assertTrue(
            r.err.indexOf("\nverdict: deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)\n") > report,
            r.toString());
        assertTrue(r.err.indexOf("shmrun: job timed out after 8 s; terminated all ranks") > report, r.toString());
        assertTrue(Pattern.compile(
            "(?m)^rank 1 \\(pid \\d+\\): INITIALIZED, blocked \\d+\\.\\d s in recv from 0 \\(tag 7\\)")
            .matcher(r.err).find(), r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    @Test
    void sigquitPrintsTheReportAndTheJobGoesOn() throws Exception
    {
        final Running job = startBlocked("sigquit", SIGQUIT_UNBLOCKED, 2, "missing-send", "--timeout", "100");
        try
        {
            final String verdict = "\nverdict: deadlock: rank 0 recv from 1 (tag 5) <- rank 1 finalize (waits for 0)\n";
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean seen = false;
            while (!seen && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(300);
                new ProcessBuilder("kill", "-QUIT", Long.toString(job.pid())).start().waitFor();
                final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!(seen = job.err.text().contains(verdict)) && System.nanoTime() - until < 0)
                {
                    Thread.sleep(50);
                }
            }
            assertTrue(seen, "no report after SIGQUIT: " + job.err.text());
            assertTrue(job.err.text().contains("shmrun: SIGQUIT\nshmrun: status of job "), job.err.text());
            assertTrue(job.process.isAlive(), "SIGQUIT reports; it does not end the job");
        }
        finally
        {
            stop(job);
        }
    }

    @Test
    void threadsAddsEveryThreadOfEveryRank() throws Exception
    {
        final Running job = startBlocked("status-threads", 2, "head-to-head", "--timeout", "100");
        try
        {
            final Result status = statusUntil(job, "deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)",
                "--threads");
            assertTrue(status.out.contains("    thread \"shmpi-watchdog-0\" "), status.toString());
            assertTrue(status.out.contains("    thread \"shmpi-watchdog-1\" "), status.toString());
            assertTrue(status.out.contains("org.shmpi.ring.ProgressEngine.waitLoop("),
                "full stacks keep shmpi's frames: " + status);
        }
        finally
        {
            stop(job);
        }
    }

    @Test
    void statusOfNoSuchJobFailsNamingIt() throws Exception
    {
        final Result r = run("status-none", 60, "--status", "999999999");
        assertEquals(1, r.exit, r.toString());
        assertTrue(r.err.contains("shmrun: --status: no running job 999999999"), r.toString());
    }
}
