package org.shmpi.junit.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiAssert;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/**
 * {@code @MpiTest} on a class: the class runs at 1 and 2 ranks (64: above the cap), its
 * {@code @Test} methods and its {@code @MpiTest} method on every rank; each rank appends
 * {@code np method rank pid} to {@value #LOG}.
 */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
@TestMethodOrder(MethodOrderer.MethodName.class)
@MpiTest(np = {1, 2, 64}, timeout = 30)
public class ClassLevelSample
{
    public static final String LOG = "target/class-level-sample.log";

    private int size;

    @BeforeEach
    void setUp()
    {
        size = MPI.COMM_WORLD.getSize();
    }

    private void log(final String method) throws IOException
    {
        Files.writeString(Path.of(LOG), size + " " + method + " " + MPI.COMM_WORLD.getRank() + " " +
            ProcessHandle.current().pid() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
    }

    @Test
    void a() throws IOException
    {
        log("a");
        MpiAssert.assertSameOnAllRanks(size);
    }

    @Test
    void b() throws IOException
    {
        log("b");
        final int[] sum = {MPI.COMM_WORLD.getRank()};
        if (MPI.COMM_WORLD.getRank() != 0)
        {
            MPI.COMM_WORLD.send(sum, 1, MPI.INT, 0, 4);
        }
        else
        {
            for (int r = 1; r < size; r++)
            {
                final int[] got = new int[1];
                MPI.COMM_WORLD.recv(got, 1, MPI.INT, r, 4);
                sum[0] += got[0];
            }
            assertEquals(size * (size - 1) / 2, sum[0]);
        }
    }

    /** An @MpiTest method in an @MpiTest class: once per class run, at its rank count (np ignored). */
    @MpiTest(np = 7)
    void c() throws IOException
    {
        log("c");
        MPI.COMM_WORLD.barrier();
    }
}
