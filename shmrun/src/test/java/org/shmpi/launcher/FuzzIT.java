package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input. The API fuzzer ({@code progs.ApiFuzz}) at 1 to 4 ranks: thousands of calls of
 * package {@code mpi}'s public methods with random and boundary arguments under ERRORS_RETURN;
 * every call returns or throws MPIException, none hangs, the job finalizes. The fixed seeds found
 * defects once (ArithmeticException from newIntBuffer(Integer.MAX_VALUE), IllegalArgumentException
 * from newByteBuffer(Integer.MAX_VALUE), type constructors that looped for minutes or ran out of
 * heap on huge counts) and keep them found; seed 0 means a new one each run (printed). The error
 * table ({@code progs.ErrorTable}) checks the class of each kind of bad argument, collectives with
 * the same bad argument on every rank included, and the calls after Finalize. After each run the
 * job's segments (kept with --keep-shm) are walked by {@link SegmentCheck}: consistent with a
 * clean end (rings empty, every rank finalized, no lock held, collective counters agreed).
 */
@Timeout(600)
class FuzzIT
{
    @ParameterizedTest(name = "np {0}, seed {1}")
    @CsvSource({"1, 1", "1, 3", "4, 2", "2, 0"})
    void everyCallReturnsOrThrowsMpiException(final int np, final long fixedSeed) throws Exception
    {
        final long seed = fixedSeed != 0 ? fixedSeed : System.nanoTime();
        final ShmrunHarness.Result r = ShmrunHarness.run("fuzz-" + np + "-" + seed, 300, "--keep-shm", "-np",
            Integer.toString(np), "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.ApiFuzz",
            Long.toString(seed), "6000");
        System.out.println("FuzzIT np " + np + " seed " + seed + ": " + r.outLines().stream()
            .filter(l -> l.startsWith("FUZZ rank 0")).findFirst().orElse("(no summary)"));
        assertEquals(0, r.exit, r::toString);
        assertTrue(!r.out.contains("DEFECT") && !r.out.contains("HANG"), r::toString);
        for (int rank = 0; rank < np; rank++)
        {
            assertTrue(r.out.contains("FUZZ rank " + rank + " calls 6000 "), r::toString);
        }
        consistent(r);
    }

    /** The job's segments, kept (--keep-shm), are consistent with a clean end; then removed. */
    private static void consistent(final ShmrunHarness.Result r) throws Exception
    {
        final java.util.List<Path> kept = ShmrunHarness.jobDirectoriesOf(r.pid);
        assertEquals(1, kept.size(), r::toString);
        final java.util.List<String> problems = SegmentCheck.check(kept.get(0));
        assertEquals(java.util.List.of(), problems, () -> "segments of " + kept.get(0) + " (kept)");
        ShmrunHarness.deleteTree(kept.get(0));
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {1, 2, 4})
    void everyBadArgumentHasItsErrorClass(final int np) throws Exception
    {
        final Path dir = Files.createTempDirectory("error-table");
        final ShmrunHarness.Result r = ShmrunHarness.run("error-table-" + np, 180, "--keep-shm", "-np",
            Integer.toString(np),
            "-cp", ShmrunHarness.TEST_CLASSES.toString(), "org.shmpi.launcher.progs.ErrorTable", dir.toString());
        System.out.println("FuzzIT error table np " + np + ": " + r.outLines().stream()
            .filter(l -> l.startsWith("TABLE rank 0")).findFirst().orElse("(no summary)"));
        assertEquals(0, r.exit, r::toString);
        assertTrue(!r.out.contains("MISMATCH") && !r.out.contains("HANG"), r::toString);
        for (int rank = 0; rank < np; rank++)
        {
            assertTrue(r.out.contains("TABLE rank " + rank + " rows "), r::toString);
            assertTrue(r.out.contains(" mismatches 0"), r::toString);
        }
        consistent(r);
        Files.delete(dir);
    }
}
