package org.shmpi.ring;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts operations by peer for status reports: how many, which tags (the first few distinct),
 * how many bytes. Built only when a status is asked for, never on the message path.
 */
final class PeerSummary
{
    private static final int MAX_TAGS = 6;

    private static final class Entry
    {
        int count;
        long bytes;
        final int[] tags = new int[MAX_TAGS];
        int tagCount;
        boolean moreTags;

        void add(final int tag, final long length)
        {
            count++;
            bytes += length;
            for (int i = 0; i < tagCount; i++)
            {
                if (tags[i] == tag)
                {
                    return;
                }
            }
            if (tagCount < MAX_TAGS)
            {
                tags[tagCount++] = tag;
            }
            else
            {
                moreTags = true;
            }
        }
    }

    /** By peer (world rank; -1 = any source), in rank order with "any" first. */
    private final Map<Integer, Entry> byPeer = new TreeMap<>();

    void add(final int peer, final int tag, final long bytes)
    {
        byPeer.computeIfAbsent(peer, p -> new Entry()).add(tag, bytes);
    }

    boolean isEmpty()
    {
        return byPeer.isEmpty();
    }

    /**
     * Appends one line: {@code <title>: from 1: 2 (tags 7, 9; 16 bytes); from any: 1 (any tag; 8 bytes)}.
     *
     * @param preposition "from" or "to"
     */
    void appendTo(final StringBuilder out, final String title, final String preposition)
    {
        out.append(title).append(':');
        String sep = " ";
        for (final Map.Entry<Integer, Entry> e : byPeer.entrySet())
        {
            final Entry x = e.getValue();
            out.append(sep).append(preposition).append(' ')
                .append(e.getKey() < 0 ? "any" : Integer.toString(e.getKey())).append(": ").append(x.count)
                .append(" (");
            if (x.tagCount == 1)
            {
                out.append(tagText(x.tags[0]));
            }
            else
            {
                out.append("tags ");
                for (int i = 0; i < x.tagCount; i++)
                {
                    out.append(i > 0 ? ", " : "").append(x.tags[i] < 0 ? "any" : Integer.toString(x.tags[i]));
                }
                if (x.moreTags)
                {
                    out.append(", ...");
                }
            }
            out.append("; ").append(x.bytes).append(" bytes)");
            sep = "; ";
        }
        out.append('\n');
    }

    static String tagText(final int tag)
    {
        return tag < 0 ? "any tag" : "tag " + tag;
    }
}
