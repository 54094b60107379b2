package org.shmpi.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.RankState;
import org.shmpi.shm.WaitRecord;

/**
 * Who waits on whom: the graph of the ranks' blocking calls, and the one-line verdict of a
 * status report. A rank blocked on a named peer has an edge to it; a cycle of such edges is a
 * deadlock, printed from its lowest rank along the edges, each entry waiting for the next:
 * {@code deadlock: rank 0 recv from 1 (tag 7) <- rank 1 recv from 0 (tag 7)}. A chain that ends
 * at a rank that has finalized or failed can never complete either ({@code stuck: ...}). When
 * every rank still running is blocked and no cycle names them (receives from any source), that
 * is a deadlock too. Only waits seen unchanged across the report's two samples count.
 */
final class WaitGraph
{
    private final int[] states;
    private final WaitRecord[] waits;
    private final Map<Integer, String> contextNames;

    /**
     * @param states       each rank's {@link RankState}
     * @param waits        each rank's wait, where it was blocked in the same call in both samples;
     *                     null where it was not blocked (or its wait changed)
     * @param contextNames names of context ids (from the ranks' status files), may be empty
     */
    WaitGraph(final int[] states, final WaitRecord[] waits, final Map<Integer, String> contextNames)
    {
        this.states = states;
        this.waits = waits;
        this.contextNames = contextNames;
    }

    /** The verdict line. */
    String verdict()
    {
        final int n = states.length;
        final List<Integer> cycle = findCycle();
        if (cycle != null)
        {
            return "deadlock: " + chain(cycle, null);
        }
        for (int r = 0; r < n; r++)
        {
            final List<Integer> path = new ArrayList<>();
            int at = r;
            while (at >= 0 && waits[at] != null && waits[at].peer >= 0 && waits[at].peer < n && path.size() <= n)
            {
                path.add(at);
                at = waits[at].peer;
                if (!isLive(at))
                {
                    return "stuck: " + chain(path, "rank " + at + " " + endedAs(states[at]));
                }
            }
        }
        for (int r = 0; r < n; r++)
        {
            // The longest chain that ends at a rank busy outside MPI: no deadlock, but who waits for it.
            if (waits[r] != null && !isWaitedOnByBlocked(r))
            {
                final List<Integer> path = new ArrayList<>();
                int at = r;
                while (at >= 0 && at < n && waits[at] != null && waits[at].peer >= 0 && path.size() <= n)
                {
                    path.add(at);
                    at = waits[at].peer;
                }
                if (at >= 0 && at < n && waits[at] == null && isLive(at) && !path.isEmpty())
                {
                    return "no deadlock found: " + chain(path, "rank " + at + " is running outside MPI");
                }
            }
        }
        int live = 0;
        int blocked = 0;
        final List<Integer> running = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            if (isLive(r))
            {
                live++;
                if (waits[r] != null)
                {
                    blocked++;
                }
                else
                {
                    running.add(r);
                }
            }
        }
        if (live > 0 && blocked == live)
        {
            final List<String> all = new ArrayList<>();
            for (int r = 0; r < n; r++)
            {
                if (isLive(r))
                {
                    all.add(describe(r));
                }
            }
            return "deadlock: every rank is blocked: " + String.join(", ", all);
        }
        if (blocked == 0)
        {
            return "no deadlock: no rank is blocked in MPI";
        }
        return "no deadlock found: " + (running.size() == 1 ? "rank " : "ranks ") + joinRanks(running) +
            (running.size() == 1 ? " is" : " are") + " not blocked in MPI";
    }

    private boolean isWaitedOnByBlocked(final int rank)
    {
        for (int r = 0; r < waits.length; r++)
        {
            if (r != rank && waits[r] != null && waits[r].peer == rank)
            {
                return true;
            }
        }
        return false;
    }

    private boolean isLive(final int rank)
    {
        final int s = states[rank];
        return s == RankState.STARTED || s == RankState.INITIALIZED;
    }

    private static String endedAs(final int state)
    {
        switch (state)
        {
            case RankState.FINALIZED: return "has finalized";
            case RankState.FAILED: return "has failed";
            case RankState.NONE: return "has not started";
            default: return "is " + RankState.name(state);
        }
    }

    /** The first cycle found from the lowest rank, rotated to start at its lowest member; or null. */
    private List<Integer> findCycle()
    {
        final int n = states.length;
        for (int start = 0; start < n; start++)
        {
            final List<Integer> path = new ArrayList<>();
            int at = start;
            while (at >= 0 && at < n && waits[at] != null && waits[at].peer >= 0 && isLive(at))
            {
                final int seen = path.indexOf(at);
                if (seen >= 0)
                {
                    final List<Integer> cycle = new ArrayList<>(path.subList(seen, path.size()));
                    int min = 0;
                    for (int i = 1; i < cycle.size(); i++)
                    {
                        if (cycle.get(i) < cycle.get(min))
                        {
                            min = i;
                        }
                    }
                    final List<Integer> rotated = new ArrayList<>(cycle.subList(min, cycle.size()));
                    rotated.addAll(cycle.subList(0, min));
                    return rotated;
                }
                if (path.size() > n)
                {
                    break;
                }
                path.add(at);
                at = waits[at].peer;
            }
        }
        return null;
    }

    private String chain(final List<Integer> ranks, final String end)
    {
        final List<String> parts = new ArrayList<>();
        for (final int r : ranks)
        {
            parts.add(describe(r));
        }
        if (end != null)
        {
            parts.add(end);
        }
        return String.join(" <- ", parts);
    }

    /** One rank's wait, e.g. {@code rank 0 recv from 1 (tag 7)} or {@code rank 1 barrier (waits for 0)}. */
    String describe(final int rank)
    {
        return "rank " + rank + " " + describeWait(waits[rank], contextNames);
    }

    /** A wait without the rank, e.g. {@code recv from 1 (tag 7)}, {@code waitall (send to 2, tag 5)}. */
    static String describeWait(final WaitRecord w, final Map<Integer, String> contextNames)
    {
        final String call = BlockedCall.callName(w.call);
        if (w.call == BlockedCall.BARRIER || w.call == BlockedCall.FINALIZE)
        {
            return call + (w.peer >= 0 ? " (waits for " + w.peer + ")" : "");
        }
        if (BlockedCall.isPointToPoint(w.call))
        {
            return call + " " + direction(w) + " (" + tagText(w.tag) + ")" + on(w.context, contextNames);
        }
        if (w.on == BlockedCall.ON_OTHER || w.peer == BlockedCall.NO_PEER)
        {
            return call;
        }
        return call + " (" + operation(w) + " " + direction(w) + ", " + tagText(w.tag) + ")" +
            on(w.context, contextNames);
    }

    private static String operation(final WaitRecord w)
    {
        switch (w.on)
        {
            case BlockedCall.ON_SEND: return "send";
            case BlockedCall.ON_RECV: return "recv";
            case BlockedCall.ON_MESSAGE: return "probe";
            default: return "wait";
        }
    }

    private static String direction(final WaitRecord w)
    {
        final String peer = w.peer == BlockedCall.ANY_PEER ? "any" : Integer.toString(w.peer);
        return (w.on == BlockedCall.ON_SEND ? "to " : "from ") + peer;
    }

    private static String tagText(final int tag)
    {
        return tag == BlockedCall.ANY_TAG ? "any tag" : "tag " + tag;
    }

    /** Nothing for MPI_COMM_WORLD's point-to-point context, else {@code on NAME}. */
    private static String on(final int context, final Map<Integer, String> contextNames)
    {
        final String name = contextNames.get(context);
        if (name == null)
        {
            return contextNames.isEmpty() && context == 0 ? "" : " on context " + context;
        }
        return "MPI_COMM_WORLD".equals(name) ? "" : " on " + name;
    }

    private static String joinRanks(final List<Integer> ranks)
    {
        final List<String> s = new ArrayList<>();
        for (final int r : ranks)
        {
            s.add(Integer.toString(r));
        }
        return String.join(", ", s);
    }
}
