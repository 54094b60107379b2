package org.shmpi.shm;

/** Lifecycle of a rank as published in its job file slot. Values only grow. */
public final class RankState
{
    /** Slot not yet written. */
    public static final int NONE = 0;
    /** The rank's process has mapped the job file and published its pid. */
    public static final int STARTED = 1;
    /** {@code MPI.Init} has set up the rank's inbox; peers may send to it. */
    public static final int INITIALIZED = 2;
    /** {@code MPI.Finalize} returned. */
    public static final int FINALIZED = 3;
    /** The rank failed (exception out of main, abort); exit code holds the status. */
    public static final int FAILED = 4;

    private RankState()
    {
    }

    public static String name(final int state)
    {
        switch (state)
        {
            case NONE: return "NONE";
            case STARTED: return "STARTED";
            case INITIALIZED: return "INITIALIZED";
            case FINALIZED: return "FINALIZED";
            case FAILED: return "FAILED";
            default: return "UNKNOWN(" + state + ")";
        }
    }
}
