package org.shmpi.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.shmpi.shm.JobFile;
import org.shmpi.shm.JobFileDescriptor;
import org.shmpi.shm.RankProcess;
import org.shmpi.shm.RankState;
import org.shmpi.shm.WaitRecord;

/**
 * The status of a running job, for {@code shmrun --status}, {@code --timeout} expiry and SIGQUIT:
 * for every rank its state, the MPI call it is blocked in and for how long (from its job file
 * slot), what its engines have outstanding by peer (from the status file its watchdog writes on
 * request), and a verdict on the graph of waits ({@link WaitGraph}).
 *
 * <p>It samples every rank's wait record, asks the ranks for their status files, waits for them
 * (at most {@code answerTimeoutMs}), and samples again: a rank counts as blocked only in a wait
 * it was in at both samples, so a call that merely happened to wait at the first sample is not
 * taken for a deadlock.
 */
final class StatusReport
{
    /** How long a report waits for the ranks' status files by default. */
    static final long ANSWER_TIMEOUT_MS = 2_000;
    /** The shortest time between the two samples of the wait records. */
    private static final long MIN_SAMPLE_GAP_MS = 150;

    private StatusReport()
    {
    }

    /** Collects the report of the job whose directory is {@code dir} (its job file mapped as {@code job}). */
    static String collect(final Path dir, final JobFile job, final boolean threads, final long answerTimeoutMs)
    {
        final int n = job.worldSize();
        final long startNs = System.nanoTime();
        final WaitRecord[] first = sample(job);
        final int request = job.requestStatus(threads ? JobFileDescriptor.STATUS_FLAG_THREADS : 0);
        final long deadline = startNs + answerTimeoutMs * 1_000_000L;
        final boolean[] answered = new boolean[n];
        while (true)
        {
            boolean all = true;
            for (int r = 0; r < n; r++)
            {
                final int state = job.state(r);
                answered[r] = job.statusAnswered(r) - request >= 0;
                if (!answered[r] && (state == RankState.STARTED || state == RankState.INITIALIZED))
                {
                    all = false;
                }
            }
            final long now = System.nanoTime();
            if ((all && now - startNs >= MIN_SAMPLE_GAP_MS * 1_000_000L) || now - deadline > 0)
            {
                break;
            }
            sleep(10);
        }
        final WaitRecord[] second = sample(job);
        final long nowNs = System.nanoTime();

        final int[] states = new int[n];
        final WaitRecord[] stable = new WaitRecord[n];
        final String[] files = new String[n];
        final Map<Integer, String> contextNames = new TreeMap<>();
        for (int r = 0; r < n; r++)
        {
            states[r] = job.state(r);
            if (first[r] != null && first[r].isBlocked() && first[r].sameWaitAs(second[r]))
            {
                stable[r] = second[r];
            }
            files[r] = answered[r] ? read(RankProcess.statusFile(dir, r)) : null;
            if (files[r] != null)
            {
                parseContexts(files[r], contextNames);
            }
        }

        final StringBuilder out = new StringBuilder(2048);
        out.append("shmrun: status of job ").append(dir).append(" (").append(n).append(n == 1 ? " rank" : " ranks")
            .append(", launcher pid ").append(job.launcherPid()).append(")\n");
        for (int r = 0; r < n; r++)
        {
            out.append("rank ").append(r);
            final long pid = job.pid(r);
            if (pid > 0)
            {
                out.append(" (pid ").append(pid).append(')');
            }
            out.append(": ").append(RankState.name(states[r]));
            final WaitRecord w = second[r];
            if (w != null && w.isBlocked())
            {
                out.append(", blocked ").append(seconds(nowNs - w.sinceNanos)).append(" in ")
                    .append(WaitGraph.describeWait(w, contextNames));
                if (w.bytes > 0)
                {
                    out.append(", ").append(w.bytes).append(" bytes");
                }
                if (stable[r] == null)
                {
                    out.append(" (just started)");
                }
            }
            else if (states[r] == RankState.INITIALIZED)
            {
                out.append(", running (not blocked in MPI)");
            }
            out.append('\n');
            if (files[r] != null)
            {
                appendIndented(out, files[r]);
            }
            else if (states[r] == RankState.STARTED || states[r] == RankState.INITIALIZED)
            {
                out.append("    (no status file: the rank did not answer within ").append(answerTimeoutMs)
                    .append(" ms)\n");
            }
        }
        out.append("verdict: ").append(new WaitGraph(states, stable, contextNames).verdict()).append('\n');
        return out.toString();
    }

    private static WaitRecord[] sample(final JobFile job)
    {
        final int n = job.worldSize();
        final WaitRecord[] records = new WaitRecord[n];
        for (int r = 0; r < n; r++)
        {
            for (int attempt = 0; attempt < 1000 && records[r] == null; attempt++)
            {
                records[r] = job.readWait(r);
                if (records[r] == null)
                {
                    Thread.onSpinWait();
                }
            }
        }
        return records;
    }

    /** The status file's lines after its first (the "rank N pid P" line the report already has). */
    private static void appendIndented(final StringBuilder out, final String file)
    {
        final List<String> lines = file.lines().toList();
        for (int i = 1; i < lines.size(); i++)
        {
            out.append("    ").append(lines.get(i)).append('\n');
        }
    }

    /** Reads {@code contexts: 0=MPI_COMM_WORLD, 1=...} from a status file. */
    static void parseContexts(final String file, final Map<Integer, String> names)
    {
        for (final String line : file.lines().toList())
        {
            if (line.startsWith("contexts:"))
            {
                for (final String entry : line.substring("contexts:".length()).split(","))
                {
                    final int eq = entry.indexOf('=');
                    if (eq > 0)
                    {
                        try
                        {
                            names.put(Integer.parseInt(entry.substring(0, eq).trim()), entry.substring(eq + 1).trim());
                        }
                        catch (final NumberFormatException ignore)
                        {
                            // Not one of ours.
                        }
                    }
                }
            }
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    static String seconds(final long nanos)
    {
        return String.format(java.util.Locale.ROOT, "%.1f s", Math.max(0, nanos) / 1e9);
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
