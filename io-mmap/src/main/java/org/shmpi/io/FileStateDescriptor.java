package org.shmpi.io;

/**
 * Layout of an open file's shared state segment ({@code file-<id>}, {@link SegmentWords}: the
 * members share memory), made by member 0 at open and removed by it at close. Each word on a
 * cache line of its own.
 * <ul>
 * <li>{@link #SHARED_POINTER_OFFSET}: the shared file pointer, in etypes of the view; moved by
 * any member with an atomic add (shared accesses), by member 0 alone between two barriers
 * (ordered accesses, seekShared, setView).</li>
 * <li>{@link #ATOMIC_LOCK_OFFSET}: in atomic mode, 0 or the world rank + 1 of the member inside
 * an access; taken by compare-and-set, released by a release store.</li>
 * <li>{@link #RESERVED_END_OFFSET}: the file byte up to which shared-pointer appends have had
 * blocks reserved past the end of the file; raised by compare-and-set by the member whose
 * append crosses it (which then reserves the blocks), set to 0 by member 0 alone between two
 * barriers (setSize), read at close by member 0 to give back what was not written.</li>
 * </ul>
 */
final class FileStateDescriptor
{
    static final int SHARED_POINTER_OFFSET = 0;
    static final int ATOMIC_LOCK_OFFSET = 64;
    static final int RESERVED_END_OFFSET = 128;
    static final int LENGTH = 192;

    private FileStateDescriptor()
    {
    }
}
