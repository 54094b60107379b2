package org.shmpi.junit;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

import mpi.Comm;
import mpi.MPI;

/**
 * Assertions that every rank of a communicator calls together. Each rank evaluates its part,
 * then the ranks tell each other how it went: when it failed anywhere, it fails everywhere, so
 * no rank goes on to wait for a rank that has already left the test. The rank where the check
 * failed throws its own error; the others throw {@link OtherRankFailed} naming it, and the
 * test's failure reports the rank's own error.
 *
 * <p>A plain JUnit assertion is fine where only the failing rank's later communication
 * matters less than its message; it fails that rank alone, and the test ends once the other
 * ranks finish or are stopped ({@code shmpi.test.grace.ms}).
 *
 * <p>The ranks exchange their outcomes through point-to-point messages on the communicator
 * with tag {@link #TAG}; a receive with {@code ANY_TAG} posted around a check could take one.
 */
public final class MpiAssert
{
    /** The tag of the messages the checks exchange. */
    public static final int TAG = Integer.MAX_VALUE - 11;

    /** The longest failure description a rank sends, in bytes. */
    private static final int MAX_DESCRIPTION = 8 << 10;

    private MpiAssert()
    {
    }

    /** This rank in {@code MPI.COMM_WORLD}. */
    public static int rank()
    {
        return MPI.COMM_WORLD.getRank();
    }

    /** The size of {@code MPI.COMM_WORLD}. */
    public static int size()
    {
        return MPI.COMM_WORLD.getSize();
    }

    /**
     * Collective over {@code COMM_WORLD}: runs {@code check} on every rank; fails on every rank if it failed on
     * any.
     */
    public static void assertAll(final Executable check)
    {
        assertAll(MPI.COMM_WORLD, check);
    }

    /** Collective over {@code comm}: runs {@code check} on every rank; fails on every rank if it failed on any. */
    public static void assertAll(final Comm comm, final Executable check)
    {
        Throwable local = null;
        try
        {
            check.execute();
        }
        catch (final Throwable t)
        {
            local = t;
        }
        share(comm, local);
    }

    /** Collective: {@code condition} must hold on every rank. */
    public static void assertTrue(final boolean condition, final String message)
    {
        assertAll(() -> Assertions.assertTrue(condition, message));
    }

    /** Collective: {@code expected} equals {@code actual} on every rank. */
    public static void assertEquals(final Object expected, final Object actual)
    {
        assertAll(() -> Assertions.assertEquals(expected, actual));
    }

    /** Collective: {@code expected} equals {@code actual} on every rank. */
    public static void assertEquals(final Object expected, final Object actual, final String message)
    {
        assertAll(() -> Assertions.assertEquals(expected, actual, message));
    }

    /** Collective: {@code expected} equals {@code actual} on every rank. */
    public static void assertEquals(final long expected, final long actual, final String message)
    {
        assertAll(() -> Assertions.assertEquals(expected, actual, message));
    }

    /** Collective: {@code actual} is within {@code delta} of {@code expected} on every rank. */
    public static void assertEquals(final double expected, final double actual, final double delta,
        final String message)
    {
        assertAll(() -> Assertions.assertEquals(expected, actual, delta, message));
    }

    /**
     * Collective: on every rank {@code r} of {@code COMM_WORLD}, {@code actual} equals
     * {@code expected.apply(r)}, e.g. {@code assertEqualsByRank(r -> (r + size - 1) % size, from)}.
     */
    public static void assertEqualsByRank(final IntFunction<?> expected, final Object actual)
    {
        final int r = rank();
        assertAll(() -> Assertions.assertEquals(expected.apply(r), actual, "on rank " + r));
    }

    /**
     * Collective: {@code value} is the same on every rank of {@code COMM_WORLD} (compared by
     * {@code toString}, arrays by their elements). Fails naming the first rank whose value
     * differs from rank 0's.
     */
    public static void assertSameOnAllRanks(final Object value)
    {
        final Comm comm = MPI.COMM_WORLD;
        final String mine = text(value);
        final String[] all = exchange(comm, mine);
        int differs = -1;
        for (int r = 1; r < all.length; r++)
        {
            if (!all[r].equals(all[0]))
            {
                differs = r;
                break;
            }
        }
        if (differs >= 0)
        {
            final String msg = "rank " + differs + " has " + all[differs] + " where rank 0 has " + all[0];
            if (comm.getRank() == differs)
            {
                throw new AssertionFailedError(msg, all[0], all[differs]);
            }
            throw new OtherRankFailed(differs, "check failed on rank " + differs + ": " + msg);
        }
    }

    /**
     * Collective: runs {@code check} on rank {@code rank} of {@code COMM_WORLD} only; every rank
     * fails if it failed there.
     */
    public static void onRank(final int rank, final Executable check)
    {
        onRanks(r -> r == rank, check);
    }

    /**
     * Collective: runs {@code check} on the ranks of {@code COMM_WORLD} that {@code ranks} accepts; every rank
     * fails if it failed on one.
     */
    public static void onRanks(final IntPredicate ranks, final Executable check)
    {
        final int r = rank();
        assertAll(() ->
        {
            if (ranks.test(r))
            {
                check.execute();
            }
        });
    }

    /**
     * The heart of every check: every rank of {@code comm} says whether its part failed; if
     * any did, every rank throws (its own failure, or {@link OtherRankFailed}).
     */
    static void share(final Comm comm, final Throwable local)
    {
        final String mine = local == null ? "" : describe(local);
        final String[] all = exchange(comm, mine);
        int first = -1;
        int failed = 0;
        for (int r = 0; r < all.length; r++)
        {
            if (!all[r].isEmpty())
            {
                failed++;
                if (first < 0)
                {
                    first = r;
                }
            }
        }
        if (failed == 0)
        {
            return;
        }
        if (local != null)
        {
            throw MpiAssert.<RuntimeException>sneaky(local);
        }
        throw new OtherRankFailed(first, "check failed on " + (failed == 1 ? "rank " + first :
            failed + " of " + all.length + " ranks, first on rank " + first) + ": " + all[first]);
    }

    /** Every rank's string, on every rank of {@code comm}; through rank 0, in rank order. */
    static String[] exchange(final Comm comm, final String mine)
    {
        final int rank = comm.getRank();
        final int size = comm.getSize();
        final String[] all = new String[size];
        if (rank == 0)
        {
            all[0] = mine;
            for (int r = 1; r < size; r++)
            {
                all[r] = recvString(comm, r);
            }
            for (int r = 1; r < size; r++)
            {
                for (final String s : all)
                {
                    sendString(comm, r, s);
                }
            }
        }
        else
        {
            sendString(comm, 0, mine);
            for (int r = 0; r < size; r++)
            {
                all[r] = recvString(comm, 0);
            }
        }
        return all;
    }

    private static void sendString(final Comm comm, final int dest, final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        comm.send(new int[] {b.length}, 1, MPI.INT, dest, TAG);
        if (b.length > 0)
        {
            comm.send(b, b.length, MPI.BYTE, dest, TAG);
        }
    }

    private static String recvString(final Comm comm, final int source)
    {
        final int[] len = new int[1];
        comm.recv(len, 1, MPI.INT, source, TAG);
        if (len[0] == 0)
        {
            return "";
        }
        final byte[] b = new byte[len[0]];
        comm.recv(b, b.length, MPI.BYTE, source, TAG);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static String describe(final Throwable t)
    {
        String s = t instanceof AssertionError ? String.valueOf(t.getMessage()) : t.toString();
        if (s.isEmpty())
        {
            s = t.getClass().getName();
        }
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return b.length <= MAX_DESCRIPTION ? s : new String(Arrays.copyOf(b, MAX_DESCRIPTION), StandardCharsets.UTF_8);
    }

    private static String text(final Object v)
    {
        if (v instanceof Object[])
        {
            return Arrays.deepToString((Object[])v);
        }
        if (v instanceof int[])
        {
            return Arrays.toString((int[])v);
        }
        if (v instanceof long[])
        {
            return Arrays.toString((long[])v);
        }
        if (v instanceof double[])
        {
            return Arrays.toString((double[])v);
        }
        if (v instanceof byte[])
        {
            return Arrays.toString((byte[])v);
        }
        return Objects.toString(v);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(final Throwable t) throws T
    {
        throw (T)t;
    }
}
