package mpi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.shm.ErrorClass;

/**
 * The error classes and codes of this process (MPI-2.2 section 8.5): the predefined classes
 * {@code 0..MPI.ERR_LASTCODE}, each its own code, then those added by
 * {@link MPI#addErrorClass()} and {@link MPI#addErrorCode(int)}, numbered on from
 * {@code ERR_LASTCODE + 1} in one sequence, with their strings. Like MPI's, the registry is
 * local: a program that wants the same numbers on every rank adds them in the same order.
 */
final class ErrorCodes
{
    /** Largest string {@link MPI#addErrorString} keeps: {@code MPI_MAX_ERROR_STRING} less the terminator. */
    static final int MAX_STRING = MPI.MAX_ERROR_STRING - 1;

    /** Class of each added code (an added class maps to itself). */
    private static final Map<Integer, Integer> CLASS_OF = new ConcurrentHashMap<>();
    private static final Map<Integer, String> STRINGS = new ConcurrentHashMap<>();
    private static int last = ErrorClass.ERR_LASTCODE;

    private ErrorCodes()
    {
    }

    static synchronized int addClass()
    {
        final int c = ++last;
        CLASS_OF.put(c, c);
        return c;
    }

    static synchronized int addCode(final int errorClass)
    {
        if (!isClass(errorClass) || errorClass == ErrorClass.SUCCESS)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "addErrorCode: not an error class: " + errorClass);
        }
        final int c = ++last;
        CLASS_OF.put(c, errorClass);
        return c;
    }

    static synchronized int lastUsed()
    {
        return last;
    }

    private static boolean isClass(final int c)
    {
        return (c >= 0 && c <= ErrorClass.ERR_LASTCODE) || Integer.valueOf(c).equals(CLASS_OF.get(c));
    }

    /** The class of {@code code}; a number that is no code is its own class (as the predefined ones are). */
    static int classOf(final int code)
    {
        final Integer c = CLASS_OF.get(code);
        return c == null ? code : c;
    }

    static void setString(final int code, final String s)
    {
        if (code <= ErrorClass.ERR_LASTCODE || !CLASS_OF.containsKey(code))
        {
            throw new MPIException(ErrorClass.ERR_ARG, "addErrorString: not an added error class or code " +
                "(predefined ones keep their strings): " + code);
        }
        if (s == null || s.length() > MAX_STRING)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "addErrorString: a string has at most " + MAX_STRING +
                " characters");
        }
        STRINGS.put(code, s);
    }

    static String string(final int code)
    {
        final String s = STRINGS.get(code);
        if (s != null)
        {
            return s;
        }
        if (code >= 0 && code <= ErrorClass.ERR_LASTCODE)
        {
            return ErrorClass.name(code);
        }
        if (CLASS_OF.containsKey(code))
        {
            return ""; // MPI: an added class or code without a string has the empty string
        }
        throw new MPIException(ErrorClass.ERR_ARG, "getErrorString: not an error code: " + code);
    }
}
