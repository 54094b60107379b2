package org.shmpi.io;

/**
 * Layout of an open file's shared state segment ({@code file-<id>}), made by member 0 at open
 * and removed by it at close. Each word on a cache line of its own.
 * <ul>
 * <li>{@link #SHARED_POINTER_OFFSET}: the shared file pointer, in etypes of the view; moved by
 * any member with an atomic add (shared accesses), by member 0 alone between two barriers
 * (ordered accesses, seekShared, setView).</li>
 * <li>{@link #ATOMIC_LOCK_OFFSET}: in atomic mode, 0 or the world rank + 1 of the member inside
 * an access; taken by compare-and-set, released by a release store.</li>
 * </ul>
 */
final class FileStateDescriptor
{
    static final int SHARED_POINTER_OFFSET = 0;
    static final int ATOMIC_LOCK_OFFSET = 64;
    static final int LENGTH = 128;

    private FileStateDescriptor()
    {
    }
}
