package org.shmpi.mpi;

import org.shmpi.junit.MpiTest;

/**
 * {@link CollectivesTest} again with the flat shared-memory barrier forced
 * ({@code shmpi.coll.shm.barrier=flat}) where the default is member 0's release: more ranks than
 * cores, as np 3 and 5 are on a 2-core machine.
 */
@MpiTest(np = {3, 5}, shmrunArgs = {"-Dshmpi.coll.shm.barrier=flat"})
class CollectivesFlatBarrierTest extends CollectivesTest
{
}
