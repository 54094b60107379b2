package org.shmpi.mpi;

import org.shmpi.junit.MpiTest;

/**
 * {@link CollectivesTest} again with the point-to-point algorithms forced for every operation
 * ({@code shmpi.coll.algorithm=p2p}), so that both families are tested whatever the sizes
 * choose by default.
 */
@MpiTest(np = {1, 2, 3, 4, 5, 8}, shmrunArgs = {"-Dshmpi.coll.algorithm=p2p"})
class CollectivesP2pTest extends CollectivesTest
{
}
