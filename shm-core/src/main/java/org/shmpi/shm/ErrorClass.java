package org.shmpi.shm;

/**
 * MPI error classes, with the numeric values of the Open MPI 5.0 C headers, so that a program
 * comparing {@code getErrorClass()} with a literal behaves as it did on Open MPI.
 */
public final class ErrorClass
{
    public static final int SUCCESS = 0;
    public static final int ERR_BUFFER = 1;
    public static final int ERR_COUNT = 2;
    public static final int ERR_TYPE = 3;
    public static final int ERR_TAG = 4;
    public static final int ERR_COMM = 5;
    public static final int ERR_RANK = 6;
    public static final int ERR_REQUEST = 7;
    public static final int ERR_ROOT = 8;
    public static final int ERR_GROUP = 9;
    public static final int ERR_OP = 10;
    public static final int ERR_TOPOLOGY = 11;
    public static final int ERR_DIMS = 12;
    public static final int ERR_ARG = 13;
    public static final int ERR_UNKNOWN = 14;
    public static final int ERR_TRUNCATE = 15;
    public static final int ERR_OTHER = 16;
    public static final int ERR_INTERN = 17;
    public static final int ERR_IN_STATUS = 18;
    public static final int ERR_PENDING = 19;
    public static final int ERR_ACCESS = 20;
    public static final int ERR_AMODE = 21;
    public static final int ERR_ASSERT = 22;
    public static final int ERR_BAD_FILE = 23;
    public static final int ERR_BASE = 24;
    public static final int ERR_CONVERSION = 25;
    public static final int ERR_DISP = 26;
    public static final int ERR_DUP_DATAREP = 27;
    public static final int ERR_FILE_EXISTS = 28;
    public static final int ERR_FILE_IN_USE = 29;
    public static final int ERR_FILE = 30;
    public static final int ERR_INFO_KEY = 31;
    public static final int ERR_INFO_NOKEY = 32;
    public static final int ERR_INFO_VALUE = 33;
    public static final int ERR_INFO = 34;
    public static final int ERR_IO = 35;
    public static final int ERR_KEYVAL = 36;
    public static final int ERR_LOCKTYPE = 37;
    public static final int ERR_NAME = 38;
    public static final int ERR_NO_MEM = 39;
    public static final int ERR_NOT_SAME = 40;
    public static final int ERR_NO_SPACE = 41;
    public static final int ERR_NO_SUCH_FILE = 42;
    public static final int ERR_PORT = 43;
    public static final int ERR_QUOTA = 44;
    public static final int ERR_READ_ONLY = 45;
    public static final int ERR_RMA_CONFLICT = 46;
    public static final int ERR_RMA_SYNC = 47;
    public static final int ERR_SERVICE = 48;
    public static final int ERR_SIZE = 49;
    public static final int ERR_SPAWN = 50;
    public static final int ERR_UNSUPPORTED_DATAREP = 51;
    public static final int ERR_UNSUPPORTED_OPERATION = 52;
    public static final int ERR_WIN = 53;
    /** Target memory outside the window (MPI-3; Open MPI's values from here to ERR_RMA_FLAVOR). */
    public static final int ERR_RMA_RANGE = 55;
    public static final int ERR_RMA_ATTACH = 56;
    public static final int ERR_RMA_SHARED = 57;
    public static final int ERR_RMA_FLAVOR = 58;
    /** A process of the job was aborted (Open MPI's value). */
    public static final int ERR_PROC_ABORTED = 74;
    public static final int ERR_SYSRESOURCE = -2;
    /** Highest predefined error code; user codes start above it. */
    public static final int ERR_LASTCODE = 92;

    private ErrorClass()
    {
    }

    /** Symbolic name of an error class, e.g. {@code MPI_ERR_RANK}, for messages. */
    public static String name(final int errorClass)
    {
        switch (errorClass)
        {
            case SUCCESS: return "MPI_SUCCESS";
            case ERR_BUFFER: return "MPI_ERR_BUFFER";
            case ERR_COUNT: return "MPI_ERR_COUNT";
            case ERR_TYPE: return "MPI_ERR_TYPE";
            case ERR_TAG: return "MPI_ERR_TAG";
            case ERR_COMM: return "MPI_ERR_COMM";
            case ERR_RANK: return "MPI_ERR_RANK";
            case ERR_REQUEST: return "MPI_ERR_REQUEST";
            case ERR_ROOT: return "MPI_ERR_ROOT";
            case ERR_GROUP: return "MPI_ERR_GROUP";
            case ERR_OP: return "MPI_ERR_OP";
            case ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
            case ERR_DIMS: return "MPI_ERR_DIMS";
            case ERR_ARG: return "MPI_ERR_ARG";
            case ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
            case ERR_PROC_ABORTED: return "MPI_ERR_PROC_ABORTED";
            case ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
            case ERR_OTHER: return "MPI_ERR_OTHER";
            case ERR_INTERN: return "MPI_ERR_INTERN";
            case ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
            case ERR_PENDING: return "MPI_ERR_PENDING";
            case ERR_NO_MEM: return "MPI_ERR_NO_MEM";
            case ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
            case ERR_ASSERT: return "MPI_ERR_ASSERT";
            case ERR_BASE: return "MPI_ERR_BASE";
            case ERR_DISP: return "MPI_ERR_DISP";
            case ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE";
            case ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT";
            case ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
            case ERR_SIZE: return "MPI_ERR_SIZE";
            case ERR_WIN: return "MPI_ERR_WIN";
            case ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE";
            case ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH";
            case ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED";
            case ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR";
            case ERR_ACCESS: return "MPI_ERR_ACCESS";
            case ERR_AMODE: return "MPI_ERR_AMODE";
            case ERR_BAD_FILE: return "MPI_ERR_BAD_FILE";
            case ERR_CONVERSION: return "MPI_ERR_CONVERSION";
            case ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP";
            case ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS";
            case ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE";
            case ERR_FILE: return "MPI_ERR_FILE";
            case ERR_INFO_KEY: return "MPI_ERR_INFO_KEY";
            case ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY";
            case ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE";
            case ERR_INFO: return "MPI_ERR_INFO";
            case ERR_IO: return "MPI_ERR_IO";
            case ERR_KEYVAL: return "MPI_ERR_KEYVAL";
            case ERR_NAME: return "MPI_ERR_NAME";
            case ERR_NOT_SAME: return "MPI_ERR_NOT_SAME";
            case ERR_NO_SPACE: return "MPI_ERR_NO_SPACE";
            case ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE";
            case ERR_PORT: return "MPI_ERR_PORT";
            case ERR_QUOTA: return "MPI_ERR_QUOTA";
            case ERR_READ_ONLY: return "MPI_ERR_READ_ONLY";
            case ERR_SERVICE: return "MPI_ERR_SERVICE";
            case ERR_SPAWN: return "MPI_ERR_SPAWN";
            case ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP";
            case ERR_SYSRESOURCE: return "MPI_ERR_SYSRESOURCE";
            default: return "MPI error class " + errorClass;
        }
    }
}
