package org.shmpi.junit;

import org.opentest4j.AssertionFailedError;

/**
 * What an {@link MpiAssert} check throws on a rank where it held, when it failed on another
 * rank: every rank leaves the check, so none waits for the failed one. The test's failure names
 * the rank where it failed, with that rank's own error.
 */
public final class OtherRankFailed extends AssertionFailedError
{
    private static final long serialVersionUID = 1L;

    private final int failedRank;

    OtherRankFailed(final int failedRank, final String message)
    {
        super(message);
        this.failedRank = failedRank;
    }

    /** The lowest rank where the check failed. */
    public int failedRank()
    {
        return failedRank;
    }
}
