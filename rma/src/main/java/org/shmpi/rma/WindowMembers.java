package org.shmpi.rma;

/**
 * What a window needs of the communicator it is made on: who its members are and two collective
 * steps among them. The public layer passes its communicator's own (the shared-memory barrier);
 * {@link ScheduleMembers} runs them as point-to-point schedules.
 */
public interface WindowMembers
{
    /** World ranks of the members, by window rank. */
    int[] world();

    /** This process's window rank. */
    int rank();

    /**
     * A context of its own for the window's messages (one-sided operations on memory that the
     * others cannot map), used by nothing else.
     */
    int context();

    /** Returns when every member has called it. */
    void barrier();

    /** Every member's {@code mine} (all of one length), member after member. */
    long[] allgather(long[] mine);

    /**
     * Whether every member can map every other's shared memory (all run on one machine); else
     * the window's synchronisation and data go by messages.
     */
    default boolean sharesMemory()
    {
        return true;
    }
}
