package org.shmpi.io;

/**
 * The words the members of an open file share: the shared file pointer (in etypes of the view),
 * the atomic-mode lock, and the end up to which shared-pointer appends have reserved blocks. Two
 * ways to keep them, chosen at open by whether the members share memory
 * ({@link FileMembers#sharesMemory}): {@link SegmentWords}, a shared-memory segment every member
 * maps and changes with atomic instructions; {@link ServedWords}, words member 0 keeps and the
 * others change by messages, served by member 0's progress engine.
 *
 * <p>"Member 0 alone" methods are called by member 0 between two collective steps, while no
 * member uses the words; the others may be called by any member at any time.
 */
interface SharedWords
{
    /** Adds {@code etypes} to the shared pointer in one atomic step; where it was. */
    long addToPointer(long etypes);

    /** The shared pointer. */
    long pointer();

    /** Member 0 alone: puts the shared pointer at {@code etypes}. */
    void putPointer(long etypes);

    /**
     * Takes the atomic-mode lock for {@code holder} (the member's world rank + 1), waiting while
     * another member holds it. What the previous holder wrote is visible once it returns.
     */
    void lock(long holder);

    /** Releases the atomic-mode lock: what this holder wrote becomes visible to the next one. */
    void unlock();

    /** Whether shared-pointer appends reserve blocks ahead through {@link #raiseReservedEnd}. */
    boolean reservesAhead();

    /** The file byte up to which appends have reserved blocks (0: none). */
    long reservedEnd();

    /** Raises the reserved end from {@code have} to {@code want} unless it moved meanwhile; whether it did. */
    boolean raiseReservedEnd(long have, long want);

    /** Member 0 alone: no blocks are reserved any more (setSize dropped them). */
    void forgetReserved();

    /**
     * At close or after a failed open, once no member uses them any more: member 0 removes them,
     * the others let go of their view of them.
     */
    void release();
}
