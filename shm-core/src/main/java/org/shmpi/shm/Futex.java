package org.shmpi.shm;

/**
 * Wait and wake on a 32-bit word in shared memory, across processes. {@link #open} returns the
 * Linux futex (through JNA) when it can be loaded, else a fallback that polls with short sleeps:
 * correct, but a sleeper then notices a wake-up only when its nap ends.
 */
public interface Futex
{
    /**
     * Sleeps while the int at {@code address} equals {@code expected}, at most {@code timeoutNs}.
     * Returns early on a wake, on a value change, or spuriously; callers re-check their condition.
     */
    void await(long address, int expected, long timeoutNs);

    /** Wakes up to {@code count} sleepers on {@code address}. */
    void wake(long address, int count);

    /** Whether sleepers are really woken by {@link #wake} (false for the polling fallback). */
    boolean wakesSleepers();

    /** The best available implementation, or the polling one when {@code enabled} is false. */
    static Futex open(final boolean enabled)
    {
        if (enabled)
        {
            final Futex linux = LinuxFutex.tryLoad();
            if (linux != null)
            {
                return linux;
            }
        }
        return new PollingFutex();
    }
}
