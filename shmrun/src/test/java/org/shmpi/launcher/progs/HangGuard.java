package org.shmpi.launcher.progs;

/**
 * A call that takes more than 20 s is a hang (ApiFuzz, ErrorTable): a daemon thread prints
 * {@code HANG rank R: <call>} and halts the process, so that the test sees it instead of timing out.
 */
final class HangGuard
{
    private static final long LIMIT_NS = 20_000_000_000L;
    private volatile String current = "";
    private volatile long since;

    private HangGuard()
    {
    }

    /** Starts the guard of rank {@code rank}. */
    static HangGuard start(final int rank)
    {
        final HangGuard g = new HangGuard();
        final Thread t = new Thread(() ->
        {
            while (true)
            {
                try
                {
                    Thread.sleep(1_000);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
                final long at = g.since;
                if (at != 0 && System.nanoTime() - at > LIMIT_NS)
                {
                    System.out.println("HANG rank " + rank + ": " + g.current);
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
            }
        }, "hang-guard");
        t.setDaemon(true);
        t.start();
        return g;
    }

    /** A call {@code what} begins. */
    void enter(final String what)
    {
        current = what;
        since = System.nanoTime();
    }

    /** The call returned or threw. */
    void leave()
    {
        since = 0;
    }

    /** The call in progress, or the last one. */
    String current()
    {
        return current;
    }
}
