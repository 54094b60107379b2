package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.launcher.ShmrunHarness.*;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Point-to-point in real {@code shmrun} jobs: what the API and engine checks of the junit module
 * ({@code org.shmpi.mpi.PointToPointApiTest}, {@code PointToPointRequestsTest}) cannot see from
 * inside a test method, randomized and {@code THREAD_MULTIPLE} stress, messages up to 256 MiB,
 * and errors under the default {@code ERRORS_ARE_FATAL}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PointToPointApiIT
{
    /**
     * On every rank, {@code COMM_WORLD} starts with {@code ERRORS_ARE_FATAL}, and
     * {@code isFinalized} holds after {@code Finalize}: in a test method of the junit module the
     * runner has set {@code ERRORS_RETURN}, and it finalizes only when the job ends.
     */
    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {1, 2, 4})
    void errhandlerDefaultAndFinalizedOnEveryRank(final int np) throws Exception
    {
        final Result r = run("start-and-finalize-np" + np, 60, scenario(np, List.of(), "start-and-finalize"));
        assertEquals(0, r.exit, r.toString());
        for (int rank = 0; rank < np; rank++)
        {
            assertTrue(r.outLines().contains("START rank=" + rank + " errhandler-fatal=true"), r.toString());
            assertTrue(r.outLines().contains("FINALIZED rank=" + rank + " isFinalized=true"), r.toString());
        }
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    /** 10^5 random messages across 4 ranks: no loss, no corruption, per-sender order kept. */
    @Test
    void randomizedStressLosesNothingAndKeepsOrder() throws Exception
    {
        final Result r = run("stress", 170, "-np", "4", "-cp", TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.Stress", "25000", "20261201");
        assertEquals(0, r.exit, r.toString());
        long received = 0;
        for (final String line : r.outLines())
        {
            if (line.startsWith("STRESS OK"))
            {
                received += Long.parseLong(line.replaceAll(".*received=", ""));
            }
        }
        assertEquals(100_000, received, r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {2, 4})
    void threadMultipleStress(final int np) throws Exception
    {
        final int threads = 4;
        final int rounds = 150;
        final Result r = run("threads-np" + np, 170, "-np", Integer.toString(np), "-cp", TEST_CLASSES.toString(),
            "org.shmpi.launcher.progs.ThreadStress", Integer.toString(threads), Integer.toString(rounds));
        assertEquals(0, r.exit, r.toString());
        for (int rank = 0; rank < np; rank++)
        {
            assertTrue(r.out.contains("THREADS OK rank=" + rank + " messages=" + (long)threads * rounds * np),
                r.toString());
            // Completion callbacks registered while other threads complete: each ran exactly once.
            assertTrue(r.out.contains("CALLBACKS OK rank=" + rank + " callbacks=" + 3L * threads * rounds),
                r.toString());
        }
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    @Test
    void messagesUpTo256MiBArriveIntact() throws Exception
    {
        final Result r = run("big", 170, "-np", "2", "-cp", TEST_CLASSES.toString(), "org.shmpi.launcher.progs.Big",
            "256");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("BIG OK rank=0 bytes=404750342"), r.toString());
        assertTrue(r.out.contains("BIG OK rank=1 bytes=404750342"), r.toString());
    }

    @Test
    void errorsAreFatalByDefault() throws Exception
    {
        final Result r = run("fatal", 60, scenario(2, List.of(), "fatal-error", "1"));
        assertEquals(MPI_ERR_RANK, r.exit, r.toString());
        assertTrue(r.err.contains("shmpi: rank 1: MPI_ERR_RANK on MPI_COMM_WORLD: invalid destination rank: dest=7"),
            r.toString());
        assertTrue(r.err.contains("shmrun: rank 1 (pid "), r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    /**
     * callErrhandler under the default ERRORS_ARE_FATAL aborts the job with that error (under ERRORS_RETURN:
     * junit's PointToPointApiTest).
     */
    @Test
    void callErrhandlerUnderErrorsAreFatalAbortsTheJob() throws Exception
    {
        final Result r = run("call-errhandler", 60, scenario(2, List.of(), "call-errhandler", "1",
            Integer.toString(MPI_ERR_ARG)));
        assertEquals(MPI_ERR_ARG, r.exit, r.toString());
        assertTrue(r.err.contains("shmpi: rank 1: MPI_ERR_ARG on MPI_COMM_WORLD: error raised by the application"),
            r.toString());
        assertTrue(r.err.contains("shmrun: rank 1 (pid "), r.toString());
        assertFalse(r.out.contains("UNEXPECTED"), r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    /**
     * File.callErrhandler under ERRORS_ARE_FATAL set on the file aborts the job (under ERRORS_RETURN: junit's
     * OpenMpiBehaviourTest).
     */
    @Test
    void fileCallErrhandlerUnderErrorsAreFatalAbortsTheJob(@TempDir final Path dir) throws Exception
    {
        final String file = dir.resolve("fatal.dat").toString();
        final Result r = run("file-call-errhandler", 60, scenario(2, List.of(), "file-call-errhandler", "1",
            Integer.toString(MPI_ERR_IO), file));
        assertEquals(MPI_ERR_IO, r.exit, r.toString());
        assertTrue(r.err.contains("shmpi: rank 1: MPI_ERR_IO on file " + file), r.toString());
        assertTrue(r.err.contains("error raised by the application"), r.toString());
        assertFalse(r.out.contains("UNEXPECTED"), r.toString());
        assertEquals(List.of(), jobDirectoriesOf(r.pid));
    }

    private static final int MPI_ERR_IO = 35;
    private static final int MPI_ERR_RANK = 6;
    private static final int MPI_ERR_ARG = 13;
}
