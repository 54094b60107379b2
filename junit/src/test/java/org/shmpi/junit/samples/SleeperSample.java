package org.shmpi.junit.samples;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/** Sleeps inside the test body, after writing its pid to a marker file: its test JVM gets killed meanwhile. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
public class SleeperSample
{
    @MpiTest(np = 2, timeout = 300)
    void sleeps() throws Exception
    {
        final String marker = System.getenv("SHMPI_SLEEPER_MARKER");
        Files.writeString(Path.of(marker + "." + MPI.COMM_WORLD.getRank()),
            Long.toString(ProcessHandle.current().pid()));
        Thread.sleep(300_000);
    }
}
