package org.shmpi.rma;

import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Passive-target synchronisation of one member: {@code MPI_Win_lock}, {@code MPI_Win_lock_all},
 * their unlocks and the flushes. A lock is taken through the window's {@link WindowControl} (the
 * target's LOCK word in its control block on one machine, a request to the target's service
 * across machines); under {@code MODE_NOCHECK} it is not taken and the unlock is a full fence
 * alone.
 */
final class PassiveTarget
{
    private final int n;
    private final WindowControl control;
    private final Epochs epochs;
    /** This member's messages to served targets; null when no target serves its memory. */
    private final WindowService.Origin origin;

    PassiveTarget(final int n, final WindowControl control, final Epochs epochs, final WindowService.Origin origin)
    {
        this.n = n;
        this.control = control;
        this.epochs = epochs;
        this.origin = origin;
    }

    /** {@code MPI_Win_lock} on member {@code target}. */
    void lock(final int lockType, final int target, final int assertion)
    {
        if (lockType != ShmWindow.LOCK_EXCLUSIVE && lockType != ShmWindow.LOCK_SHARED)
        {
            throw new ShmpiException(ErrorClass.ERR_LOCKTYPE, "not a lock type: " + lockType);
        }
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK, "lock");
        WindowArguments.checkRank(target, n);
        if (epochs.lockAll())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_CONFLICT, "lock of target " + target + " while this member " +
                "holds lockAll: the two passive-target epochs would conflict");
        }
        if (epochs.lockOn(target) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "target " + target + " is already locked by this member");
        }
        if (epochs.accessOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "lock inside a start/complete access epoch");
        }
        if ((assertion & ShmWindow.MODE_NOCHECK) != 0)
        {
            epochs.locked(target, lockType | Epochs.LOCK_NOCHECK);
        }
        else
        {
            control.lock(target, lockType == ShmWindow.LOCK_EXCLUSIVE);
            epochs.locked(target, lockType);
        }
    }

    /** {@code MPI_Win_unlock}: completes the operations on {@code target} and releases its lock. */
    void unlock(final int target)
    {
        WindowArguments.checkRank(target, n);
        if (epochs.lockOn(target) == 0)
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "unlock of target " + target + ", which this member " +
                "has not locked");
        }
        flushServed(target);
        final int held = epochs.unlocked(target);
        if ((held & Epochs.LOCK_NOCHECK) != 0)
        {
            UnsafeApi.fullFence();
            return;
        }
        control.unlock(target, (held & 0xFF) == ShmWindow.LOCK_EXCLUSIVE);
    }

    /** {@code MPI_Win_lock_all}: a shared lock on every member. */
    void lockAll(final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK, "lockAll");
        if (epochs.passiveOpen() || epochs.accessOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "lockAll inside a " + epochs.describeOpen() + " epoch");
        }
        final boolean checked = (assertion & ShmWindow.MODE_NOCHECK) == 0;
        if (checked)
        {
            for (int t = 0; t < n; t++)
            {
                control.lock(t, false);
            }
        }
        epochs.lockedAll(checked);
    }

    /** {@code MPI_Win_unlock_all}. */
    void unlockAll()
    {
        if (!epochs.lockAll())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "unlockAll without lockAll");
        }
        flushServed(-1);
        if (!epochs.unlockedAll())
        {
            UnsafeApi.fullFence();
            return;
        }
        for (int t = 0; t < n; t++)
        {
            control.unlock(t, false);
        }
    }

    /**
     * {@code MPI_Win_flush} and {@code MPI_Win_flush_local}: every operation of this member on
     * {@code target} is already complete in the target's memory when its call returns; the flush
     * is the full fence that orders them before whatever this member does next.
     */
    void flush(final int target)
    {
        WindowArguments.checkRank(target, n);
        if (!epochs.passiveOn(target))
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "flush of target " + target + " outside a " +
                "passive-target epoch on it");
        }
        flushServed(target);
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_flush_all} and {@code MPI_Win_flush_local_all}. */
    void flushAll()
    {
        if (!epochs.passiveOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "flushAll outside a passive-target epoch");
        }
        flushServed(-1);
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_sync}: a full memory fence between this member's loads and stores and the window's. */
    void sync()
    {
        UnsafeApi.fullFence();
    }

    /** Completes this member's operations on served memory of {@code target} (every target: -1) there. */
    private void flushServed(final int target)
    {
        if (origin != null)
        {
            origin.flush(target);
        }
    }
}
