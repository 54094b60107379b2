package org.shmpi.mpi;

import org.shmpi.junit.MpiTest;

/**
 * {@link LargeCollectivesTest} with the point-to-point algorithms forced: the same messages, and
 * floating-point sums of the same bits as the shared-memory algorithms give.
 */
@MpiTest(np = {1, 2, 3, 5, 8}, shmrunArgs = {"-Dshmpi.coll.algorithm=p2p"})
class LargeCollectivesP2pTest extends LargeCollectivesTest
{
}
