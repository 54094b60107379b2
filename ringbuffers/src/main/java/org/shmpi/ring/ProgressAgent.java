package org.shmpi.ring;

/**
 * A unit of work that a rank's {@link ProgressEngine} runs on every duty cycle, Agrona
 * {@code Agent} style. The point-to-point engine is one; nonblocking collectives, RMA, nonblocking
 * I/O and generalized requests register their own. {@link #doWork} is called with the progress
 * lock held (in THREAD_MULTIPLE mode), by whichever thread drives progress at that moment; it must
 * not block. It completes requests through {@link ProgressEngine#completion()}.
 */
public interface ProgressAgent
{
    /** One duty cycle; returns the amount of work done, 0 when there was nothing to do. */
    int doWork();

    /**
     * Whether this agent has work that advances only by being polled (e.g. waiting for space in a
     * peer's ring): a waiting thread then must not sleep until woken, since nobody will wake it.
     */
    default boolean needsPolling()
    {
        return false;
    }

    /**
     * Appends lines on the agent's outstanding work, by peer, for a status report (who waits on
     * whom). Called with the progress lock held, by the thread that drives progress; never on
     * the message path.
     */
    default void describe(final StringBuilder out)
    {
    }

    /**
     * The thread driving progress is about to sleep until woken (nothing to do for a while):
     * work this agent does on the duty cycle must be left to whoever does it otherwise.
     */
    default void beforeSleep()
    {
    }

    /** A short name for diagnostics. */
    String roleName();
}
