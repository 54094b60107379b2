package org.shmpi.junit;

import org.opentest4j.AssertionFailedError;

/**
 * The failure of an {@code @MpiTest} run, as the test JVM reports it. A failure of a rank's
 * code carries the rank number and output in its message and the rank's own stack trace (its
 * cause and suppressed exceptions too, when the exception serializes); expected and actual
 * values of an assertion stay, for IDE diffs. A crash or a hang carries what the job printed and
 * the status report of every rank.
 */
public class MpiTestFailure extends AssertionFailedError
{
    private static final long serialVersionUID = 1L;

    private final int rank;

    MpiTestFailure(final int rank, final String message, final Object expected, final Object actual,
        final Throwable cause)
    {
        super(message, expected, actual, cause);
        this.rank = rank;
    }

    MpiTestFailure(final int rank, final String message)
    {
        super(message);
        this.rank = rank;
    }

    /** The rank whose failure this is; -1 for a failure of the job as a whole (a hang). */
    public int rank()
    {
        return rank;
    }
}
