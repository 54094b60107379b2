package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.WaitRecord;

/**
 * The rank's wait record and status description: a blocking call that has to wait shows in the
 * rank's job file slot while it waits and is cleared after; a call that completes at once writes
 * nothing; the engine describes its queues by peer when a waiting thread is asked to.
 */
class WaitRecordTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private ThreadedJob job;

    @AfterEach
    void removeJob() throws IOException
    {
        ThreadedJob.closeAndCheckRemoved(job);
    }

    /** Waits until rank {@code rank}'s slot shows a wait (or fails after 20 s). */
    private static WaitRecord awaitBlocked(final JobFile file, final int rank) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() - deadline < 0)
        {
            final WaitRecord w = file.readWait(rank);
            if (w != null && w.isBlocked())
            {
                return w;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("rank " + rank + " never showed as blocked");
    }

    /** As the rank's watchdog asks: rank 0's waiting thread answers. */
    private String describeRankZero(final AtomicReferenceArray<PointToPointEngine> engines)
    {
        while (engines.get(0) == null)
        {
            Thread.onSpinWait();
        }
        return job.context(0).progress().describe(5_000);
    }

    @Test
    @Timeout(60)
    void aBlockedReceiveIsRecordedWhileItWaitsDescribedByPeerAndClearedAfter() throws Exception
    {
        job = ThreadedJob.start("wait-record", 2, 1 << 16);
        final AtomicReferenceArray<PointToPointEngine> engines = new AtomicReferenceArray<>(2);
        final AtomicReference<String> described = new AtomicReference<>();
        final AtomicReference<WaitRecord> seen = new AtomicReference<>();
        job.runEngines(50, engine ->
        {
            engines.set(engine.rank(), engine);
            final byte[] data = new byte[8];
            if (engine.rank() == 0)
            {
                engine.recv(5, 1, 7, data, BYTES, data.length);
                assertEquals(42, data[3]);
            }
            else
            {
                seen.set(awaitBlocked(job.job(), 0));
                described.set(describeRankZero(engines));
                data[3] = 42;
                engine.send(5, 0, 7, data, BYTES, data.length);
            }
        });
        final WaitRecord w = seen.get();
        assertEquals(BlockedCall.RECV, w.call);
        assertEquals(BlockedCall.ON_RECV, w.on);
        assertEquals(1, w.peer);
        assertEquals(7, w.tag);
        assertEquals(5, w.context);
        assertEquals(8, w.bytes);
        assertTrue(System.nanoTime() - w.sinceNanos > 0, "since is a nanoTime of the past");
        assertNotNull(described.get(), "a waiting thread answers the status request");
        assertTrue(described.get().contains("posted receives, context 5: from 1: 1 (tag 7; 8 bytes)"), described.get());
        assertFalse(job.job().readWait(0).isBlocked(), "the record is cleared when the wait ends");
        assertFalse(job.job().readWait(1).isBlocked());
    }

    @Test
    @Timeout(60)
    void callsThatCompleteAtOnceWriteNothing() throws Exception
    {
        job = ThreadedJob.start("no-wait", 2, 1 << 16);
        job.runEngines(50, engine ->
        {
            final byte[] data = new byte[16];
            final int me = engine.rank();
            final int before = job.job().readWait(me).sequence;
            if (me == 1)
            {
                // An eager send into an empty ring completes at once.
                engine.send(0, 0, 3, data, BYTES, data.length);
                assertEquals(before, job.job().readWait(me).sequence, "a send that did not wait wrote a record");
            }
            else
            {
                while (engine.probe(0, 1, 3) == null)
                {
                    Thread.onSpinWait();
                }
                final int queued = job.job().readWait(me).sequence;
                assertEquals(before, queued, "a nonblocking probe writes no record");
                engine.recv(0, 1, 3, data, BYTES, data.length);
                assertEquals(queued, job.job().readWait(me).sequence, "a receive matched at once wrote a record");
            }
        });
    }

    @Test
    @Timeout(60)
    void aBlockedProbeAndAnUnexpectedMessageAreDescribed() throws Exception
    {
        job = ThreadedJob.start("probe-record", 2, 1 << 16);
        final AtomicReferenceArray<PointToPointEngine> engines = new AtomicReferenceArray<>(2);
        final AtomicReference<String> described = new AtomicReference<>();
        final AtomicReference<WaitRecord> seen = new AtomicReference<>();
        job.runEngines(50, engine ->
        {
            engines.set(engine.rank(), engine);
            final byte[] data = new byte[4];
            if (engine.rank() == 0)
            {
                assertNull(job.context(engine.rank()).progress().describe(50), "nobody waits: no answer");
                final UnexpectedMessage m = engine.probeBlocking(2, RecvRequest.ANY_SOURCE, 11);
                assertEquals(11, m.tag());
                engine.recv(2, 1, 11, data, BYTES, data.length);
                engine.recv(2, 1, 10, data, BYTES, data.length);
            }
            else
            {
                engine.send(2, 0, 10, data, BYTES, data.length);
                seen.set(awaitBlocked(job.job(), 0));
                described.set(describeRankZero(engines));
                engine.send(2, 0, 11, data, BYTES, data.length);
            }
        });
        final WaitRecord w = seen.get();
        assertEquals(BlockedCall.PROBE, w.call);
        assertEquals(BlockedCall.ON_MESSAGE, w.on);
        assertEquals(BlockedCall.ANY_PEER, w.peer);
        assertEquals(11, w.tag);
        assertEquals(2, w.context);
        assertNotNull(described.get());
        assertTrue(described.get().contains("unexpected messages, context 2: from 1: 1 (tag 10; 4 bytes)"),
            described.get());
    }
}
