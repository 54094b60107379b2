package org.shmpi.ring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLongArray;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The steady state of the message path allocates nothing: blocking send and receive, and a
 * one-frame nonblocking send, on arrays and on direct buffers. Each rank thread counts the bytes
 * it allocates (HotSpot's per-thread allocation counter, exact whether code is interpreted or
 * compiled) over a measured run after a warm-up. The FORBIDDEN outcome is allocation per message:
 * one object per message would be at least 16 bytes x 40,000 messages, one per hundred still
 * 6 KB. What may remain is a one-time lazy allocation (a thread's first futex sleep makes its
 * timespec buffer), hence the bound of 2,000 bytes rather than 0.
 */
class AllocationTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int WARM_UP = 5_000;
    private static final int MEASURED = 20_000;
    private static final long ONE_TIME_BYTES = 2_000;

    private ThreadedJob job;

    @AfterEach
    void removeJob() throws IOException
    {
        ThreadedJob.closeAndCheckRemoved(job);
    }

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    @Timeout(120)
    void pingPongOnArraysAndDirectBuffersAllocatesNothing() throws Exception
    {
        job = ThreadedJob.start("allocation", 2, 1 << 20);
        final AtomicLongArray allocated = new AtomicLongArray(2);
        job.runEngines(100, engine ->
        {
            final int me = engine.rank();
            final int peer = 1 - me;
            final byte[] array = new byte[64];
            final ByteBuffer direct = ByteBuffer.allocateDirect(4096);
            final long address = BufferUtil.address(direct);
            long before = 0;
            for (int i = 0; i < WARM_UP + MEASURED; i++)
            {
                if (i == WARM_UP)
                {
                    before = allocatedBytes();
                }
                final boolean useArray = (i & 1) == 0;
                final Object base = useArray ? array : null;
                final long offset = useArray ? BYTES : address;
                final int length = useArray ? 8 : 4096;
                if (me == 0)
                {
                    if ((i & 2) == 0)
                    {
                        engine.send(0, peer, 7, base, offset, length);
                    }
                    else
                    {
                        final SendRequest s = engine.isend(0, peer, 7, base, offset, length, SendRequest.MODE_STANDARD);
                        engine.await(s);
                    }
                    engine.recv(0, peer, 8, base, offset, length);
                }
                else
                {
                    engine.recv(0, peer, 7, base, offset, length);
                    engine.send(0, peer, 8, base, offset, length);
                }
            }
            allocated.set(me, allocatedBytes() - before);
            direct.clear();
        });
        for (int r = 0; r < 2; r++)
        {
            final long bytes = allocated.get(r);
            assertTrue(bytes < ONE_TIME_BYTES, "rank " + r + " allocated " + bytes + " bytes over " + MEASURED +
                " round trips");
        }
    }
}
