package org.shmpi.junit.samples;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/** An @AfterEach that blocks (a barrier) after rank 1's body failed while rank 0 waits for rank 1. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
public class AfterEachSample
{
    @AfterEach
    void meet()
    {
        MPI.COMM_WORLD.barrier();
    }

    @MpiTest(np = 2, timeout = 60)
    void rankOneFails()
    {
        if (MPI.COMM_WORLD.getRank() == 1)
        {
            throw new IllegalStateException("body of rank one");
        }
        MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, 1, 3);
    }
}
