package org.shmpi.shm;

import java.util.concurrent.locks.LockSupport;

import org.agrona.UnsafeApi;

/** Fallback when no futex is available: naps of at most 50 µs, re-reading the word between. */
final class PollingFutex implements Futex
{
    private static final long NAP_NS = 50_000;

    @Override
    public void await(final long address, final int expected, final long timeoutNs)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        while (UnsafeApi.getIntVolatile(null, address) == expected && deadline - System.nanoTime() > 0)
        {
            LockSupport.parkNanos(NAP_NS);
        }
    }

    @Override
    public void wake(final long address, final int count)
    {
        // Sleepers poll; nothing to do.
    }

    @Override
    public boolean wakesSleepers()
    {
        return false;
    }
}
