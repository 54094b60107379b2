package org.shmpi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hosts of a job started with a host file or {@code --host}, in Open MPI's syntax, and which
 * rank runs where.
 * <ul>
 * <li>Host file: one host per line, {@code name [slots=N] [max_slots=M]}; {@code #} starts a
 *     comment; a host named twice adds its slots; without {@code slots} a host has one.</li>
 * <li>{@code --host a:4,b:4} (or {@code a,a,b}: each mention one slot).</li>
 * <li>Mapping: by slot (default: fill each host's slots in order), by node ({@code --map-by
 *     node}: one rank per host in turn), or {@code -npernode N} (N on each host in order). More
 *     ranks than slots is an error unless {@code --oversubscribe}; then the mapping wraps.
 *     Without {@code -np} the job has as many ranks as slots.</li>
 * </ul>
 */
final class Hosts
{
    /** One host with its slots. */
    record Host(String name, int slots)
    {
    }

    private final List<Host> hosts;

    private Hosts(final List<Host> hosts)
    {
        this.hosts = hosts;
    }

    List<Host> hosts()
    {
        return hosts;
    }

    int slots()
    {
        int n = 0;
        for (final Host h : hosts)
        {
            n += h.slots();
        }
        return n;
    }

    static Hosts parseFile(final Path file) throws IOException
    {
        final Map<String, Integer> slots = new LinkedHashMap<>();
        int lineNo = 0;
        for (final String raw : Files.readAllLines(file))
        {
            lineNo++;
            final int hash = raw.indexOf('#');
            final String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (line.isEmpty())
            {
                continue;
            }
            final String[] words = line.split("\\s+");
            int n = 1;
            for (int w = 1; w < words.length; w++)
            {
                final String word = words[w];
                if (word.startsWith("slots=") || word.startsWith("slots:"))
                {
                    n = number(word.substring(6), file + ":" + lineNo);
                }
                else if (!word.startsWith("max_slots=") && !word.startsWith("max-slots="))
                {
                    throw new LaunchOptions.UsageException("host file " + file + ":" + lineNo + ": unknown word '" +
                        word + "' (expected: host [slots=N] [max_slots=M])");
                }
            }
            slots.merge(words[0], n, Integer::sum);
        }
        if (slots.isEmpty())
        {
            throw new LaunchOptions.UsageException("host file " + file + " names no host");
        }
        return of(slots);
    }

    static Hosts parseList(final String list)
    {
        final Map<String, Integer> slots = new LinkedHashMap<>();
        for (final String part : list.split(","))
        {
            final String p = part.trim();
            if (p.isEmpty())
            {
                continue;
            }
            final int colon = p.lastIndexOf(':');
            if (colon > 0)
            {
                slots.merge(p.substring(0, colon), number(p.substring(colon + 1), "--host " + list), Integer::sum);
            }
            else
            {
                slots.merge(p, 1, Integer::sum);
            }
        }
        if (slots.isEmpty())
        {
            throw new LaunchOptions.UsageException("--host names no host: " + list);
        }
        return of(slots);
    }

    private static Hosts of(final Map<String, Integer> slots)
    {
        final List<Host> list = new ArrayList<>();
        slots.forEach((name, n) -> list.add(new Host(name, n)));
        return new Hosts(list);
    }

    private static int number(final String text, final String where)
    {
        try
        {
            final int n = Integer.parseInt(text.trim());
            if (n < 1)
            {
                throw new NumberFormatException();
            }
            return n;
        }
        catch (final NumberFormatException ex)
        {
            throw new LaunchOptions.UsageException(where + ": slots must be a number of at least 1: " + text);
        }
    }

    /**
     * The host index of every rank of a job of {@code np} ranks ({@code np < 0}: as many as slots,
     * or hosts times {@code perNode}).
     */
    int[] map(final int np, final boolean byNode, final int perNode, final boolean oversubscribe)
    {
        final int capacity = perNode > 0 ? perNode * hosts.size() : slots();
        final int n = np > 0 ? np : capacity;
        if (n > capacity && !oversubscribe)
        {
            throw new LaunchOptions.UsageException("not enough slots: " + n + " ranks, " + capacity + " slots on " +
                hosts.size() + " host" + (hosts.size() == 1 ? "" : "s") + " (add slots, or --oversubscribe)");
        }
        final int[] hostOf = new int[n];
        if (perNode > 0)
        {
            for (int r = 0; r < n; r++)
            {
                hostOf[r] = r / perNode % hosts.size();
            }
            return hostOf;
        }
        final int[] used = new int[hosts.size()];
        int h = 0;
        for (int r = 0; r < n; r++)
        {
            if (byNode)
            {
                // One per host in turn, skipping hosts that are full (unless all are).
                int tries = 0;
                while (used[h] >= hosts.get(h).slots() && tries < hosts.size())
                {
                    h = (h + 1) % hosts.size();
                    tries++;
                }
                hostOf[r] = h;
                used[h]++;
                h = (h + 1) % hosts.size();
            }
            else
            {
                int tries = 0;
                while (used[h] >= hosts.get(h).slots() && tries < hosts.size())
                {
                    h = (h + 1) % hosts.size();
                    tries++;
                }
                if (tries == hosts.size())
                {
                    // Every host full (oversubscribed): start the next round.
                    java.util.Arrays.fill(used, 0);
                    h = 0;
                }
                hostOf[r] = h;
                used[h]++;
            }
        }
        return hostOf;
    }
}
