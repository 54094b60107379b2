package org.shmpi.mpi;

import org.shmpi.junit.MpiTest;

/** {@link CrossMemoryTest} with {@code shmpi.cma.enabled=false}: every large message streams through the ring. */
@MpiTest(np = {2}, shmrunArgs = {"-Dshmpi.cma.enabled=false"})
class CrossMemoryOffTest extends CrossMemoryTest
{
    @Override
    boolean expectReads()
    {
        return false;
    }
}
