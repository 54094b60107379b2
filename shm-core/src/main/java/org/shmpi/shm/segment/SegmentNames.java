package org.shmpi.shm.segment;

import org.shmpi.shm.JobDirectory;

/**
 * The one place where segment file names are made. Every name is unique within a job and never
 * reused (heap ids and window ids only grow), so a peer's cached mapping of a name can never
 * belong to a later, different file.
 * <pre>
 *  inbox-&lt;rank&gt;            a rank's inbox ring              INBOX
 *  heap-&lt;rank&gt;-&lt;id&gt;        one MPI.newByteBuffer allocation   HEAP
 *  coll-&lt;context&gt;-&lt;rank&gt;    a communicator's collective state   COLLECTIVE
 *  coll-&lt;context&gt;-&lt;rank&gt;-large  its slots for large messages  COLLECTIVE
 *  win-&lt;id&gt;-&lt;rank&gt;         a rank's part of a window (reserved) WINDOW
 *  file-&lt;id&gt;               shared state of an open file (reserved) FILE
 * </pre>
 * The job file itself ({@link JobDirectory#JOB_FILE_NAME}) is not a segment and not managed here.
 */
public final class SegmentNames
{
    public static final String HEAP_PREFIX = "heap-";
    public static final String COLLECTIVE_PREFIX = "coll-";
    public static final String WINDOW_PREFIX = "win-";
    public static final String FILE_PREFIX = "file-";

    /** Longest name; file systems allow 255 bytes, and names are ASCII. */
    public static final int MAX_NAME_LENGTH = 255;

    private SegmentNames()
    {
    }

    public static String inbox(final int rank)
    {
        return JobDirectory.INBOX_FILE_PREFIX + checkRank(rank);
    }

    public static String heap(final int rank, final long id)
    {
        return HEAP_PREFIX + checkRank(rank) + "-" + checkId(id);
    }

    public static String collective(final int context, final int rank)
    {
        return COLLECTIVE_PREFIX + checkId(context) + "-" + checkRank(rank);
    }

    /** The large-message slots of the communicator whose state is {@link #collective}{@code (context, rank)}. */
    public static String collectiveLarge(final int context, final int rank)
    {
        return collective(context, rank) + "-large";
    }

    public static String window(final long id, final int rank)
    {
        return WINDOW_PREFIX + checkId(id) + "-" + checkRank(rank);
    }

    public static String file(final long id)
    {
        return FILE_PREFIX + checkId(id);
    }

    /**
     * Checks that {@code name} is one plain file name in the job directory: not empty, no path
     * separator, not {@code .}/{@code ..}, not the job file, printable ASCII.
     */
    public static String checkName(final String name)
    {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH || name.equals(".") ||
            name.equals("..") || name.equals(JobDirectory.JOB_FILE_NAME))
        {
            throw new IllegalArgumentException("not a segment name: name=" + name);
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7F || c == '/')
            {
                throw new IllegalArgumentException("not a segment name: name=" + name + ", badCharIndex=" + i);
            }
        }
        return name;
    }

    private static int checkRank(final int rank)
    {
        if (rank < 0)
        {
            throw new IllegalArgumentException("negative rank in a segment name: rank=" + rank);
        }
        return rank;
    }

    private static long checkId(final long id)
    {
        if (id < 0)
        {
            throw new IllegalArgumentException("negative id in a segment name: id=" + id);
        }
        return id;
    }
}
