package org.shmpi.mpi;

import org.shmpi.junit.MpiTest;

/**
 * {@link CollectivesTest} again with the shared-memory barrier forced to member 0's release
 * ({@code shmpi.coll.shm.barrier=release}) where the default is the flat one: np 2, and np 3 on
 * a machine with 3 cores or more. ({@link CollectivesFlatBarrierTest} forces the other way.)
 */
@MpiTest(np = {2, 3}, shmrunArgs = {"-Dshmpi.coll.shm.barrier=release"})
class CollectivesReleaseBarrierTest extends CollectivesTest
{
}
