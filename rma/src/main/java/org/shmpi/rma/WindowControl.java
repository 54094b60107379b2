package org.shmpi.rma;

/**
 * A window's synchronisation as one member uses it, whatever carries it: the PSCW signals (a
 * post from a target to its origins, a complete from an origin to its targets), the members'
 * locks, and the accumulate lock that keeps plain read-modify-write loops apart from atomic
 * updates of the same memory. {@link ActiveTarget}, {@link PassiveTarget} and
 * {@link WindowAccess} hold the epoch rules; this holds only how the signals and locks travel.
 *
 * <p>{@link ControlBlocks} carries them in the window segment every member maps (atomic words);
 * {@link MessageControl} as messages to the members' window services, for members on different
 * machines.
 */
interface WindowControl
{
    /** Tells the first {@code count} of {@code origins} (window ranks) that this member posted to them. */
    void post(int[] origins, int count);

    /** Waits for {@code target}'s next post to this member. */
    void awaitPost(int target);

    /** Tells the first {@code count} of {@code targets} that this member completed its access epoch. */
    void complete(int[] targets, int count);

    /** Waits for {@code origin}'s next complete to this member. */
    void awaitComplete(int origin);

    /**
     * Whether {@code origin}'s next complete to this member has come; true means a following
     * {@link #awaitComplete} returns at once.
     */
    boolean completed(int origin);

    /** Takes {@code target}'s lock, exclusive or shared; blocks until granted. */
    void lock(int target, boolean exclusive);

    /** Releases {@code target}'s lock taken by {@link #lock}. */
    void unlock(int target, boolean exclusive);

    /** Takes {@code target}'s accumulate lock (shared: atomic updates; exclusive: a plain loop). */
    void lockAccumulates(int target, boolean exclusive);

    /** Releases {@code target}'s accumulate lock. */
    void unlockAccumulates(int target, boolean exclusive);
}
