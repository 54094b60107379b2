package org.shmpi.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmpi.junit.samples.SampleMain;

/**
 * The README's example, {@code examples/junit-project}, compiled against this module's class
 * path (shmpi-junit and what it brings, as a user's project gets it) and run in a test JVM
 * started without any shmpi JVM flag: every run passes; with {@code SHMPI_TEST_MAX_NP=2} in the
 * environment the 4-rank runs are skipped.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UserProjectTest
{
    @Test
    void theReadmeExampleCompilesAndPassesInAPlainTestJvm() throws Exception
    {
        final Path source = Path.of("..", "examples", "junit-project", "src", "test", "java", "org", "example",
            "RingTest.java");
        assertTrue(Files.isRegularFile(source), source.toAbsolutePath().toString());
        final Path out = Files.createTempDirectory(Path.of("target"), "user-project");
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final String cp = String.join(File.pathSeparator, ClassPaths.ofThisJvm());
        assertEquals(0, javac.run(null, null, null, "--release", "17", "-cp", cp, "-d", out.toString(),
            source.toString()));
        final String text = runRingTest(out + File.pathSeparator + cp, null);
        assertTrue(text.contains("SAMPLE org.example.RingTest started=4 succeeded=4 failed=0 skipped=0"), text);
        // The cap from the environment, as CI would set it: the 4-rank runs are skipped, not failed.
        final String capped = runRingTest(out + File.pathSeparator + cp, "2");
        assertTrue(capped.contains("SAMPLE org.example.RingTest started=2 succeeded=2 failed=0 skipped=2"), capped);
    }

    private static String runRingTest(final String cp, final String maxNp) throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder(ShmrunProcess.javaCommand(), "-cp", cp, SampleMain.class.getName(),
            "org.example.RingTest");
        pb.environment().remove("SHMPI_TEST_MAX_NP");
        if (maxNp != null)
        {
            pb.environment().put("SHMPI_TEST_MAX_NP", maxNp);
        }
        pb.redirectErrorStream(true);
        final Process p = pb.start();
        final byte[] output = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS));
        final String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }
}
