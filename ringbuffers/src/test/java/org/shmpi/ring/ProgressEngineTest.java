package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The seams other engines use: agents registered with a rank's progress engine are driven by
 * blocking calls; requests completed from outside any engine wake a sleeping waiter; callbacks
 * run exactly once, at once when registered on a completed request.
 */
class ProgressEngineTest
{
    private ThreadedJob job;

    @AfterEach
    void removeJob() throws IOException
    {
        ThreadedJob.closeAndCheckRemoved(job);
    }

    @Test
    @Timeout(60)
    void aRegisteredAgentIsDrivenByAWaitAndCanBeRemoved() throws Exception
    {
        job = ThreadedJob.start("agents", 1, 1 << 16);
        job.runEngines(50, engine ->
        {
            final ProgressEngine progress = job.context(engine.rank()).progress();
            final ExternalRequest request = new ExternalRequest();
            final AtomicInteger cycles = new AtomicInteger();
            final ProgressAgent agent = new ProgressAgent()
            {
                @Override
                public int doWork()
                {
                    if (cycles.incrementAndGet() == 100)
                    {
                        progress.completion().complete(request);
                        return 1;
                    }
                    return 0;
                }

                @Override
                public boolean needsPolling()
                {
                    // Nobody wakes the waiter for this agent's work: it must keep polling.
                    return !request.isComplete();
                }

                @Override
                public String roleName()
                {
                    return "test";
                }
            };
            progress.register(agent);
            engine.await(request);
            assertTrue(request.isComplete());
            assertEquals(100, cycles.get(), "completed on the 100th duty cycle, and the wait returned then");
            assertTrue(progress.deregister(agent));
            assertFalse(progress.deregister(agent), "already removed");
            final int before = cycles.get();
            engine.progress();
            assertEquals(before, cycles.get(), "a removed agent is not driven");
        });
    }

    @Test
    @Timeout(60)
    void anExternalCompletionFromAnotherThreadWakesASleepingWaiter() throws Exception
    {
        job = ThreadedJob.start("external", 1, 1 << 16);
        job.runEngines(50, engine ->
        {
            final ExternalRequest request = new ExternalRequest();
            final AtomicReference<Thread> ranOn = new AtomicReference<>();
            final AtomicInteger runs = new AtomicInteger();
            request.onComplete(r ->
            {
                runs.incrementAndGet();
                ranOn.set(Thread.currentThread());
            });
            final Thread completer = new Thread(() ->
            {
                // Long enough for the waiter to pass spinning and yielding and sleep on its futex.
                try
                {
                    Thread.sleep(300);
                }
                catch (final InterruptedException ignore)
                {
                    Thread.currentThread().interrupt();
                }
                assertTrue(job.context(engine.rank()).progress().completeExternal(request, 0));
            }, "completer");
            completer.start();
            // The failure mode is a waiter that never returns: the test's timeout catches it.
            engine.await(request);
            completer.join();
            assertEquals(1, runs.get(), "callback ran once");
            assertSame(completer, ranOn.get(), "on the completing thread");
            assertFalse(job.context(engine.rank()).progress().completeExternal(request, 0),
                "second completion is refused");
            final AtomicInteger late = new AtomicInteger();
            request.onComplete(r -> late.incrementAndGet());
            assertEquals(1, late.get(), "a callback registered on a completed request runs at once");
            assertEquals(1, runs.get(), "the first callback did not run again");
        });
    }
}
