package org.shmpi.coll;

/**
 * A collective algorithm as {@link Schedule} steps: {@link #first()} starts it, and when it ends
 * it hands over to the step given to {@link #then} (so algorithms chain: a reduce then a
 * broadcast is an allreduce), or finishes the schedule.
 */
public abstract class Collective
{
    private Schedule.Step next;

    /** The step that starts this algorithm. */
    public abstract Schedule.Step first();

    /** Runs {@code step} when this algorithm is done, in the same schedule. */
    public final Collective then(final Schedule.Step step)
    {
        this.next = step;
        return this;
    }

    /** Runs {@code other} when this algorithm is done. */
    public final Collective then(final Collective other)
    {
        return then(other.first());
    }

    /** What runs after this algorithm: called by the algorithm's last step. */
    protected final Schedule.Step done(final Schedule s)
    {
        return next == null ? null : next.run(s);
    }

    /** A schedule running this algorithm alone (or with what follows it). */
    public final Schedule schedule(final Members m, final String role)
    {
        return new Schedule(m.ctx, role, first());
    }
}
