/**
 * Machine topology (CPUs, cores, packages, NUMA nodes, caches) from {@code /sys} or a text file,
 * CPU sets in the Linux cpulist format, rank-to-CPU mapping policies and the {@code taskset}
 * prefix that binds a rank's process. No static mutable state: every piece is an immutable object.
 */
package org.shmpi.affinity;
