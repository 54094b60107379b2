package org.shmpi.io;

/**
 * What an open file needs of the communicator it is opened on: who its members are, a context
 * for messages of its own and two collective steps among them. The public layer passes its
 * communicator's own.
 */
public interface FileMembers
{
    /** World ranks of the members, by rank in the file's group. */
    int[] world();

    /** This process's rank in the file's group. */
    int rank();

    /**
     * A point-to-point context of the file's own, used by nothing else: the shared words go by
     * messages on it when the members do not share memory ({@link ServedWords}).
     */
    int context();

    /** Returns when every member has called it. */
    void barrier();

    /** Every member's {@code mine} (all of one length), member after member. */
    long[] allgather(long[] mine);

    /**
     * Whether every member can map every other's shared memory (all run on one machine); else
     * the file's shared words (shared pointer, atomic-mode lock, reserved end) go by messages.
     */
    default boolean sharesMemory()
    {
        return true;
    }
}
