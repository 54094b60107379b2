package org.shmpi.rma;

import java.util.Arrays;

/**
 * The epochs this member has open, as an origin (a fence epoch, a start/complete access epoch,
 * locks) and as a target (a post/wait exposure epoch): what {@link ActiveTarget} and
 * {@link PassiveTarget} open and close, and ask before they open another (MPI forbids some
 * together), and which targets an access ({@link WindowAccess}) may reach. This member's own
 * bookkeeping, used by its one thread: nothing here is in shared memory. The arrays are reused
 * from epoch to epoch (the epoch calls allocate nothing).
 */
final class Epochs
{
    /** Marks a lock held without its lock word (taken under MODE_NOCHECK), ORed with the lock type. */
    static final int LOCK_NOCHECK = 1 << 8;

    private boolean fenceEpoch;
    /** Start/complete access epoch: open, and which targets it names. */
    private boolean accessOpen;
    private final boolean[] accessGroup;
    /** Post/wait exposure epoch: the origins it names in {@code exposureGroup}; -1 when none is open. */
    private int exposureCount = -1;
    private final int[] exposureGroup;
    /** Per target: 0, or the lock type held (ORed with LOCK_NOCHECK when taken without the lock word). */
    private final int[] locks;
    private int lockedTargets;
    private boolean lockAll;
    /** Whether lockAll took the lock words (not under MODE_NOCHECK). */
    private boolean lockAllChecked;

    Epochs(final int n)
    {
        this.accessGroup = new boolean[n];
        this.exposureGroup = new int[n];
        this.locks = new int[n];
    }

    // ------------------------------------------------------------------------------------------
    // Every kind

    /** Whether an epoch is open (a fence epoch does not count: free and fence end it). */
    boolean anyOpen()
    {
        return accessOpen || exposureCount >= 0 || lockedTargets > 0 || lockAll;
    }

    /** The kind of the open epoch, for messages. */
    String describeOpen()
    {
        return accessOpen ? "start/complete" : exposureCount >= 0 ? "post/wait" :
            lockAll ? "lockAll" : lockedTargets > 0 ? "lock" : "fence";
    }

    /** Whether an access epoch to {@code target} is open: a fence epoch, start naming it, a lock on it. */
    boolean allowsAccess(final int target)
    {
        return fenceEpoch || locks[target] != 0 || lockAll || accessOpen && accessGroup[target];
    }

    // ------------------------------------------------------------------------------------------
    // Active target: fence, start/complete, post/wait

    /** Records whether a fence epoch is open after a fence. */
    void fenceEpoch(final boolean open)
    {
        fenceEpoch = open;
    }

    boolean accessOpen()
    {
        return accessOpen;
    }

    /** Opens the start/complete access epoch to {@code targets}. */
    void openAccess(final int[] targets)
    {
        Arrays.fill(accessGroup, false);
        for (final int t : targets)
        {
            accessGroup[t] = true;
        }
        accessOpen = true;
    }

    void closeAccess()
    {
        accessOpen = false;
    }

    /** Whether the access epoch (open or last closed) names {@code target}. */
    boolean inAccessGroup(final int target)
    {
        return accessGroup[target];
    }

    boolean exposureOpen()
    {
        return exposureCount >= 0;
    }

    /** Opens the post/wait exposure epoch to {@code origins} (the array is read, not kept). */
    void openExposure(final int[] origins)
    {
        System.arraycopy(origins, 0, exposureGroup, 0, origins.length);
        exposureCount = origins.length;
    }

    void closeExposure()
    {
        exposureCount = -1;
    }

    /** Origins the open exposure epoch names. */
    int exposureCount()
    {
        return exposureCount;
    }

    /** The {@code i}th origin the open exposure epoch names. */
    int exposureOrigin(final int i)
    {
        return exposureGroup[i];
    }

    // ------------------------------------------------------------------------------------------
    // Passive target: lock, lockAll

    /** Whether a lock or lockAll epoch is open. */
    boolean passiveOpen()
    {
        return lockedTargets > 0 || lockAll;
    }

    /** Whether this member holds a lock on {@code target} (or every member's, by lockAll). */
    boolean passiveOn(final int target)
    {
        return locks[target] != 0 || lockAll;
    }

    /** 0, or the lock this member holds on {@code target} (its type, ORed with LOCK_NOCHECK). */
    int lockOn(final int target)
    {
        return locks[target];
    }

    /** Whether this member holds {@code target}'s exclusive lock, taken by the lock word. */
    boolean holdsExclusive(final int target)
    {
        return (locks[target] & 0xFF) == ShmWindow.LOCK_EXCLUSIVE && (locks[target] & LOCK_NOCHECK) == 0;
    }

    /** Records the lock {@code held} on {@code target}. */
    void locked(final int target, final int held)
    {
        locks[target] = held;
        lockedTargets++;
    }

    /** Forgets the lock on {@code target}; returns it. */
    int unlocked(final int target)
    {
        final int held = locks[target];
        locks[target] = 0;
        lockedTargets--;
        return held;
    }

    boolean lockAll()
    {
        return lockAll;
    }

    /** Records lockAll; {@code checked}: it took the lock words. */
    void lockedAll(final boolean checked)
    {
        lockAllChecked = checked;
        lockAll = true;
    }

    /** Forgets lockAll; returns whether it took the lock words. */
    boolean unlockedAll()
    {
        lockAll = false;
        return lockAllChecked;
    }
}
