package org.shmpi.rma;

import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Active-target synchronisation of one member: {@code MPI_Win_fence}, and the post/start/
 * complete/wait epochs (PSCW); the signals travel by the window's {@link WindowControl}.
 */
final class ActiveTarget
{
    private final WindowMembers members;
    private final int n;
    private final WindowControl control;
    private final Epochs epochs;
    /** This member's messages to served targets; null when no target serves its memory. */
    private final WindowService.Origin origin;
    /** The targets of a complete (reused: the epoch calls allocate nothing). */
    private final int[] targets;

    ActiveTarget(final WindowMembers members, final int n, final WindowControl control, final Epochs epochs,
        final WindowService.Origin origin)
    {
        this.members = members;
        this.n = n;
        this.control = control;
        this.epochs = epochs;
        this.origin = origin;
        this.targets = new int[n];
    }

    /**
     * {@code MPI_Win_fence}: completes this member's operations (a full fence), then waits for
     * every member, unless {@code MODE_NOPRECEDE} and {@code MODE_NOSUCCEED} say that the fence
     * neither ends nor starts an epoch. An access epoch is open after it unless
     * {@code MODE_NOSUCCEED}.
     */
    void fence(final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOSTORE | ShmWindow.MODE_NOPUT |
            ShmWindow.MODE_NOPRECEDE | ShmWindow.MODE_NOSUCCEED, "fence");
        if (epochs.anyOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "fence inside a " + epochs.describeOpen() + " epoch");
        }
        flushServed();
        UnsafeApi.fullFence();
        final int neither = ShmWindow.MODE_NOPRECEDE | ShmWindow.MODE_NOSUCCEED;
        if ((assertion & neither) != neither)
        {
            members.barrier();
        }
        epochs.fenceEpoch((assertion & ShmWindow.MODE_NOSUCCEED) == 0);
    }

    /**
     * {@code MPI_Win_post}: opens an exposure epoch to the members {@code origins} (window ranks;
     * the array is read, not kept).
     */
    void post(final int[] origins, final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK | ShmWindow.MODE_NOSTORE |
            ShmWindow.MODE_NOPUT, "post");
        if (epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "post while an exposure epoch is open");
        }
        WindowArguments.checkGroup(origins, n);
        epochs.openExposure(origins);
        if ((assertion & ShmWindow.MODE_NOCHECK) != 0)
        {
            return;
        }
        control.post(origins, origins.length);
    }

    /** {@code MPI_Win_start}: opens an access epoch to {@code targets}, once each has posted. */
    void start(final int[] targets, final int assertion)
    {
        WindowArguments.checkAssertion(assertion, ShmWindow.MODE_NOCHECK, "start");
        if (epochs.accessOpen() || epochs.passiveOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "start inside a " + epochs.describeOpen() + " epoch");
        }
        WindowArguments.checkGroup(targets, n);
        if ((assertion & ShmWindow.MODE_NOCHECK) == 0)
        {
            for (final int t : targets)
            {
                control.awaitPost(t);
            }
        }
        epochs.openAccess(targets);
    }

    /** {@code MPI_Win_complete}: ends the access epoch; each target learns it. */
    void complete()
    {
        if (!epochs.accessOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "complete without start");
        }
        epochs.closeAccess();
        flushServed();
        int count = 0;
        for (int t = 0; t < n; t++)
        {
            if (epochs.inAccessGroup(t))
            {
                targets[count++] = t;
            }
        }
        control.complete(targets, count);
    }

    /** {@code MPI_Win_wait}: ends the exposure epoch once every origin of it has completed. */
    void waitFor()
    {
        if (!epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "wait without post");
        }
        for (int i = 0; i < epochs.exposureCount(); i++)
        {
            control.awaitComplete(epochs.exposureOrigin(i));
        }
        epochs.closeExposure();
        UnsafeApi.fullFence();
    }

    /** {@code MPI_Win_test}: {@link #waitFor} if every origin has completed, else false at once. */
    boolean test()
    {
        if (!epochs.exposureOpen())
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "test without post");
        }
        for (int i = 0; i < epochs.exposureCount(); i++)
        {
            if (!control.completed(epochs.exposureOrigin(i)))
            {
                return false;
            }
        }
        waitFor();
        return true;
    }

    /** Completes this member's operations on served memory of every target there. */
    private void flushServed()
    {
        if (origin != null)
        {
            origin.flush(-1);
        }
    }
}
