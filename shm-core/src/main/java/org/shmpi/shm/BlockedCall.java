package org.shmpi.shm;

/**
 * What a rank is blocked in, as recorded in its job file slot ({@link JobFile#recordWait}): the
 * MPI call ({@code CALL_*}) and the operation inside it that has not completed ({@code ON_*}),
 * e.g. a barrier waiting for a receive from its partner of the round.
 */
public final class BlockedCall
{
    /** Not blocked (the slot's record is empty). */
    public static final int NONE = 0;
    public static final int SEND = 1;
    public static final int SSEND = 2;
    public static final int RECV = 3;
    public static final int PROBE = 4;
    public static final int MPROBE = 5;
    public static final int WAIT = 6;
    public static final int WAITALL = 7;
    public static final int WAITANY = 8;
    public static final int WAITSOME = 9;
    public static final int BARRIER = 10;
    public static final int SENDRECV = 11;
    public static final int FINALIZE = 12;
    public static final int BUFFER_DETACH = 13;
    /** A wait inside shmpi that is none of the above (e.g. a collective not yet named here). */
    public static final int OTHER = 14;

    /** The operation waited for: a send to the peer. */
    public static final int ON_SEND = 1;
    /** The operation waited for: a receive from the peer. */
    public static final int ON_RECV = 2;
    /** The operation waited for: a message from the peer to arrive (probe). */
    public static final int ON_MESSAGE = 3;
    /** Something that is not a point-to-point operation (a generalized request, buffer space). */
    public static final int ON_OTHER = 4;

    /** Peer value: a receive from {@code MPI.ANY_SOURCE}. */
    public static final int ANY_PEER = -1;
    /** Peer value: no peer (the wait is not on a point-to-point operation). */
    public static final int NO_PEER = -2;
    /** Tag value: {@code MPI.ANY_TAG}. */
    public static final int ANY_TAG = -1;

    private BlockedCall()
    {
    }

    /** The name of a call as MPI users know it, e.g. {@code recv}, {@code barrier}. */
    public static String callName(final int call)
    {
        switch (call)
        {
            case NONE: return "none";
            case SEND: return "send";
            case SSEND: return "ssend";
            case RECV: return "recv";
            case PROBE: return "probe";
            case MPROBE: return "mprobe";
            case WAIT: return "wait";
            case WAITALL: return "waitall";
            case WAITANY: return "waitany";
            case WAITSOME: return "waitsome";
            case BARRIER: return "barrier";
            case SENDRECV: return "sendrecv";
            case FINALIZE: return "finalize";
            case BUFFER_DETACH: return "buffer detach";
            case OTHER: return "wait";
            default: return "call(" + call + ")";
        }
    }

    /** Whether the call is the point-to-point operation itself (its record needs no "waits on"). */
    public static boolean isPointToPoint(final int call)
    {
        return call == SEND || call == SSEND || call == RECV || call == PROBE || call == MPROBE;
    }
}
