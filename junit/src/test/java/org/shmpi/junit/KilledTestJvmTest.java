package org.shmpi.junit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmpi.junit.samples.SampleMain;
import org.shmpi.junit.samples.SleeperSample;

/**
 * A test JVM killed with SIGKILL in the middle of a test body cannot stop its ranks itself:
 * they notice it gone, exit, and the launcher removes the job from shared memory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KilledTestJvmTest
{
    @Test
    void ranksAndLauncherEndAndNothingStaysInSharedMemory() throws Exception
    {
        final Path marker = Path.of("target", "sleeper-" + System.nanoTime()).toAbsolutePath();
        final ProcessBuilder pb = new ProcessBuilder(ShmrunProcess.javaCommand(), "-cp",
            System.getProperty("java.class.path"), SampleMain.class.getName(), SleeperSample.class.getName());
        pb.environment().put("SHMPI_SLEEPER_MARKER", marker.toString());
        pb.redirectErrorStream(true);
        final File log = marker.resolveSibling(marker.getFileName() + ".log").toFile();
        pb.redirectOutput(log);
        final Process testJvm = pb.start();
        final List<ProcessHandle> ranks = new ArrayList<>();
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            for (int r = 0; r < 2; r++)
            {
                final Path m = Path.of(marker + "." + r);
                while (!Files.isRegularFile(m) || Files.readString(m).isEmpty())
                {
                    assertTrue(System.nanoTime() < deadline && testJvm.isAlive(),
                        "the sample never started: " + Files.readString(log.toPath()));
                    Thread.sleep(50);
                }
                ranks.add(ProcessHandle.of(Long.parseLong(Files.readString(m).trim())).orElseThrow());
            }
            final ProcessHandle launcher = ranks.get(0).parent().orElseThrow();
            final Path root = Path.of("/dev/shm", "shmpi-" + System.getProperty("user.name"));
            assertTrue(hasJobOf(root, launcher.pid()), "the job's directory while it runs");

            testJvm.destroyForcibly();
            testJvm.waitFor(10, TimeUnit.SECONDS);
            for (final ProcessHandle p : List.of(ranks.get(0), ranks.get(1), launcher))
            {
                p.onExit().get(30, TimeUnit.SECONDS);
                assertFalse(p.isAlive(), "still alive: " + p.pid());
            }
            assertFalse(hasJobOf(root, launcher.pid()), "left in shared memory by launcher " + launcher.pid());
        }
        finally
        {
            testJvm.destroyForcibly();
            for (final ProcessHandle p : ranks)
            {
                p.destroyForcibly();
            }
            for (int r = 0; r < 2; r++)
            {
                Files.deleteIfExists(Path.of(marker + "." + r));
            }
            Files.deleteIfExists(log.toPath());
        }
    }

    private static boolean hasJobOf(final Path root, final long pid) throws Exception
    {
        if (!Files.isDirectory(root))
        {
            return false;
        }
        try (var dirs = Files.list(root))
        {
            final Optional<Path> d = dirs.filter(p -> p.getFileName().toString().startsWith(pid + "-")).findFirst();
            return d.isPresent();
        }
    }
}
