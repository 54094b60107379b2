package org.shmpi.junit.samples;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiTest;

import mpi.MPI;

/** A deliberate deadlock (head-to-head receives), then a test that passes in a fresh job. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
@TestMethodOrder(MethodOrderer.MethodName.class)
public class HangSample
{
    @MpiTest(np = 2, timeout = 4)
    void a_headToHead()
    {
        final int other = 1 - MPI.COMM_WORLD.getRank();
        MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, other, 7);
    }

    @MpiTest(np = 2)
    void b_afterTheHang()
    {
        MPI.COMM_WORLD.barrier();
    }
}
