package org.shmpi.report;

/**
 * What the launcher knows of a job, for the report's {@code "job"} object.
 *
 * @param command     the command line the ranks ran
 * @param ranks       the world size requested
 * @param exitCode    the job's exit code, or null when it is not known (yet)
 * @param startMillis when the job started, milliseconds since the epoch (0: not known)
 * @param wallNs      the launcher's measured wall time of the job, nanoseconds (0: not known)
 */
public record JobInfo(String command, int ranks, Integer exitCode, long startMillis, long wallNs)
{
    /** Checks the values. */
    public JobInfo
    {
        if (ranks < 0)
        {
            throw new IllegalArgumentException("ranks must not be negative: ranks=" + ranks);
        }
        command = command == null ? "" : command;
    }
}
