package org.shmpi.shm;

/** Why a job was aborted, as recorded in the job file's abort word. */
public final class AbortKind
{
    /** A rank called {@code Comm.abort} (MPI_Abort). */
    public static final int MPI_ABORT = 1;
    /** A rank failed: an exception escaped main, or an error under ERRORS_ARE_FATAL. */
    public static final int RANK_FAILED = 2;
    /** The launcher saw a rank exit badly or die. */
    public static final int RANK_EXITED = 3;
    /** The job ran past {@code shmrun --timeout}. */
    public static final int TIMEOUT = 4;
    /** The launcher got SIGINT or SIGTERM. */
    public static final int LAUNCHER_SIGNALLED = 5;
    /** Init did not complete: some ranks never attached. */
    public static final int INIT_TIMEOUT = 6;
    /** A multi-node job lost a node: its connection ended, or its first rank died. */
    public static final int NODE_LOST = 7;

    private AbortKind()
    {
    }
}
