package org.shmpi.junit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.opentest4j.ValueWrapper;

/**
 * How the ranks' results of one run of a test job become the test's outcome as JUnit sees it:
 * nothing when every rank passed, else the failure (or abort) with every failed rank's message,
 * stack trace and output, and the failures of a run the job had to stop (a rank still busy
 * after another failed, a hang, a rank that exited). Builds the messages only; stopping the job
 * is {@link TestJob}'s.
 */
final class Outcomes
{
    private final int np;
    private final OutputTail tail;
    private final TestJobDirectory directory;

    Outcomes(final int np, final OutputTail tail, final TestJobDirectory directory)
    {
        this.np = np;
        this.tail = tail;
        this.directory = directory;
    }

    /** Each rank's output, into this JVM's stdout, while the test is still the current one. */
    static void printOutputs(final Wire.Result[] results)
    {
        for (final Wire.Result r : results)
        {
            if (r != null && !r.output.isEmpty())
            {
                for (final String line : r.output.split("\n"))
                {
                    System.out.println("[rank " + r.rank + "] " + line);
                }
            }
        }
    }

    /** The test's failure from every rank's result, or null when every rank passed. */
    Throwable outcome(final Wire.Result[] results)
    {
        Wire.Result primary = null;
        final List<Wire.Result> failed = new ArrayList<>();
        Wire.Result aborted = null;
        for (final Wire.Result r : results)
        {
            if (r == null)
            {
                continue;
            }
            if (r.outcome == Wire.FAILED)
            {
                failed.add(r);
                if (primary == null && !OtherRankFailed.class.getName().equals(r.throwableClass))
                {
                    primary = r;
                }
            }
            else if (r.outcome == Wire.ABORTED && aborted == null)
            {
                aborted = r;
            }
        }
        if (failed.isEmpty())
        {
            if (aborted != null)
            {
                final TestAbortedException a =
                    new TestAbortedException("rank " + aborted.rank + " (of " + np + "): " + aborted.message);
                final Throwable t = deserialize(aborted.serialized);
                a.setStackTrace(t == null ? new StackTraceElement[0] : t.getStackTrace());
                return a;
            }
            return null;
        }
        if (primary == null)
        {
            primary = failed.get(0);
        }
        final MpiTestFailure f = failureOf(primary, failed.size());
        for (final Wire.Result r : failed)
        {
            if (r != primary)
            {
                f.addSuppressed(failureOf(r, 1));
            }
        }
        return f;
    }

    private MpiTestFailure failureOf(final Wire.Result r, final int failedRanks)
    {
        final Throwable t = deserialize(r.serialized);
        final StringBuilder msg = new StringBuilder();
        msg.append("rank ").append(r.rank).append(" (of ").append(np).append(") failed");
        if (failedRanks > 1)
        {
            msg.append(" (").append(failedRanks).append(" ranks failed)");
        }
        msg.append(": ").append(r.throwableClass).append(": ").append(r.message);
        if (t == null)
        {
            msg.append("\nstack trace of rank ").append(r.rank).append(":\n").append(r.stackTrace);
        }
        if (!r.output.isEmpty())
        {
            msg.append("\noutput of rank ").append(r.rank).append(":\n").append(indent(r.output));
        }
        directory.appendKept(msg);
        Object expected = null;
        Object actual = null;
        if (t instanceof AssertionFailedError)
        {
            final AssertionFailedError afe = (AssertionFailedError)t;
            expected = afe.isExpectedDefined() ? valueOf(afe.getExpected()) : null;
            actual = afe.isActualDefined() ? valueOf(afe.getActual()) : null;
        }
        final MpiTestFailure f = expected != null || actual != null ?
            new MpiTestFailure(r.rank, msg.toString(), expected, actual, t == null ? null : t.getCause()) :
            new MpiTestFailure(r.rank, msg.toString());
        if (t != null)
        {
            f.setStackTrace(t.getStackTrace());
            if (f.getCause() == null && t.getCause() != null)
            {
                f.initCause(t.getCause());
            }
            for (final Throwable s : t.getSuppressed())
            {
                f.addSuppressed(s);
            }
        }
        else
        {
            f.setStackTrace(new StackTraceElement[0]);
        }
        return f;
    }

    private static Object valueOf(final ValueWrapper w)
    {
        return w == null ? null : w.getValue() != null ? w.getValue() : w.getStringRepresentation();
    }

    private static Throwable deserialize(final byte[] bytes)
    {
        if (bytes.length == 0)
        {
            return null;
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))
        {
            @Override
            protected Class<?> resolveClass(final ObjectStreamClass desc) throws IOException, ClassNotFoundException
            {
                try
                {
                    return Class.forName(desc.getName(), false, Thread.currentThread().getContextClassLoader());
                }
                catch (final ClassNotFoundException ex)
                {
                    return super.resolveClass(desc);
                }
            }
        })
        {
            return (Throwable)in.readObject();
        }
        catch (final IOException | ClassNotFoundException | ClassCastException ex)
        {
            return null;
        }
    }

    /**
     * The failure of a run stopped because ranks had not finished {@code graceMs} after rank
     * {@code firstFailed} failed, with {@code report} ({@code shmrun --status}) saying what each
     * rank was doing.
     */
    MpiTestFailure stoppedAfterFailure(final Wire.Result[] results, final Wire.Result[] early,
        final int firstFailed, final int graceMs, final String report)
    {
        final List<Integer> running = unfinished(results);
        final Wire.Result[] known = results.clone();
        for (int r = 0; r < np; r++)
        {
            known[r] = known[r] == null ? early[r] : known[r];
        }
        final Throwable base = outcome(known);
        final MpiTestFailure f = failureOf(known[firstFailed], 1);
        final String after = results[firstFailed] == null ? " (rank " + firstFailed + " itself was still in its " +
            "@AfterEach methods)" : "";
        final String msg = f.getMessage() + "\n" + ranks(running) + " had not finished " + graceMs +
            " ms after rank " + firstFailed + " failed (" + Settings.GRACE + ")" + after + "; the job was stopped. " +
            "What every rank was doing:\n" + report + tail.describe();
        final MpiTestFailure stopped = new MpiTestFailure(firstFailed, msg);
        stopped.setStackTrace(f.getStackTrace());
        if (f.getCause() != null)
        {
            stopped.initCause(f.getCause());
        }
        if (base != null)
        {
            for (final Throwable s : base.getSuppressed())
            {
                stopped.addSuppressed(s);
            }
        }
        return stopped;
    }

    /**
     * The failure of a run that did not end within {@code timeoutS}, with {@code report}
     * ({@code shmrun --status}) saying what each rank was doing.
     */
    MpiTestFailure hang(final Wire.Result[] results, final int timeoutS, final String report)
    {
        final StringBuilder msg = new StringBuilder();
        msg.append("timed out after ").append(timeoutS).append(" s with ").append(np).append(" rank")
            .append(np == 1 ? "" : "s").append(": ").append(ranks(unfinished(results)))
            .append(" had not finished (@MpiTest(timeout = ...) or ").append(Settings.TIMEOUT)
            .append(" sets the limit). What every rank was doing:\n").append(report).append(tail.describe());
        directory.appendKept(msg);
        final MpiTestFailure f = new MpiTestFailure(-1, msg.toString());
        f.setStackTrace(new StackTraceElement[0]);
        return f;
    }

    /**
     * The failure of a run during which the ranks {@code gone} exited, the first of them first;
     * {@code exitStatus} is the launcher's, null while it still runs. The caller adds what ranks
     * had reported ({@link #outcome}) as suppressed.
     */
    MpiTestFailure crash(final List<Integer> gone, final Integer exitStatus)
    {
        final StringBuilder msg = new StringBuilder();
        msg.append("rank ").append(gone.get(0)).append(" (of ").append(np)
            .append(") exited during the test; the job ended");
        if (gone.size() > 1)
        {
            msg.append(", ").append(ranks(gone.subList(1, gone.size()))).append(" stopped with it");
        }
        if (exitStatus != null)
        {
            msg.append(" (shmrun exit status ").append(exitStatus.intValue()).append(')');
        }
        msg.append('\n').append(tail.describe());
        directory.appendKept(msg);
        final MpiTestFailure f = new MpiTestFailure(gone.get(0), msg.toString());
        f.setStackTrace(new StackTraceElement[0]);
        return f;
    }

    private static List<Integer> unfinished(final Wire.Result[] results)
    {
        final List<Integer> out = new ArrayList<>();
        for (int r = 0; r < results.length; r++)
        {
            if (results[r] == null)
            {
                out.add(r);
            }
        }
        return out;
    }

    private static String ranks(final List<Integer> ranks)
    {
        return (ranks.size() == 1 ? "rank " : "ranks ") +
            ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    private static String indent(final String s)
    {
        return Arrays.stream(s.split("\n")).map(l -> "  " + l).collect(Collectors.joining("\n"));
    }
}
