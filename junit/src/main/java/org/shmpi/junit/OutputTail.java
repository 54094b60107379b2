package org.shmpi.junit;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last lines the launcher of a test job printed since the current run began: each rank's
 * stdout and stderr (told apart by {@code shmrun --tag-output}) and the launcher's own lines.
 * Shown when a rank crashes or the job hangs, when the rank could not send its output itself.
 */
final class OutputTail
{
    static final int LINES_PER_SOURCE = 60;
    /** Key of the launcher's own lines. */
    static final int LAUNCHER = -1;

    private final Map<Integer, ArrayDeque<String>> lines = new HashMap<>();
    private final Map<Integer, Integer> dropped = new HashMap<>();

    /** One line as the launcher printed it ({@code [1,R]<stdout>:text} for a rank's). */
    synchronized void add(final String line)
    {
        int source = LAUNCHER;
        String text = line;
        if (line.startsWith("[1,"))
        {
            final int close = line.indexOf(']');
            final int colon = line.indexOf(">:", close);
            if (close > 3 && colon > close)
            {
                try
                {
                    source = Integer.parseInt(line.substring(3, close));
                    text = line.substring(colon + 2);
                    if (line.startsWith("<stderr>", close + 1))
                    {
                        text = "(stderr) " + text;
                    }
                }
                catch (final NumberFormatException ex)
                {
                    source = LAUNCHER;
                }
            }
        }
        final ArrayDeque<String> q = lines.computeIfAbsent(source, k -> new ArrayDeque<>());
        q.addLast(text);
        if (q.size() > LINES_PER_SOURCE)
        {
            q.removeFirst();
            dropped.merge(source, 1, Integer::sum);
        }
    }

    synchronized void reset()
    {
        lines.clear();
        dropped.clear();
    }

    /** Every source's lines, rank by rank, then the launcher's; empty when nothing was printed. */
    synchronized String describe()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Map.Entry<Integer, ArrayDeque<String>> e : new TreeMap<>(lines).entrySet())
        {
            final int source = e.getKey();
            sb.append(source == LAUNCHER ? "output of shmrun" : "output of rank " + source);
            final int d = dropped.getOrDefault(source, 0);
            sb.append(d > 0 ? " (last " + LINES_PER_SOURCE + " lines)" : "").append(":\n");
            for (final String l : e.getValue())
            {
                sb.append("  ").append(l).append('\n');
            }
        }
        return sb.toString();
    }
}
