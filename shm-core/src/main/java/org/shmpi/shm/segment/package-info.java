/**
 * Segment files of a job: the common header every one of them starts with
 * ({@link org.shmpi.shm.segment.SegmentHeaderDescriptor}), their names
 * ({@link org.shmpi.shm.segment.SegmentNames}), and the per-rank
 * {@link org.shmpi.shm.segment.SegmentManager} that creates, maps, caches and removes them.
 */
package org.shmpi.shm.segment;
