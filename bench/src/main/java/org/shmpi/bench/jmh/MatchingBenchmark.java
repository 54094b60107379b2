package org.shmpi.bench.jmh;

import static org.shmpi.ring.FrameDescriptor.*;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.shmpi.ring.MatchingEngine;
import org.shmpi.ring.RecvRequest;

/**
 * Matching one 8-byte eager message, with {@code queueLength - 1} non-matching entries ahead of
 * the one that matches (so 1 = the match is the only entry, 100 = it is the last of 100). The
 * frame is built by hand in a direct buffer, as a sender writes it; no ring, one thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@State(Scope.Thread)
public class MatchingBenchmark
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int FRAME_INDEX = 64;
    private static final int CONTEXT = 0;
    private static final int SOURCE = 1;
    private static final int TAG = 5;
    private static final int OTHER_TAG = 99;
    private static final int PAYLOAD = 8;

    @Param({"1", "100"})
    public int queueLength;

    private MatchingEngine postedEngine;
    private MatchingEngine unexpectedEngine;
    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final UnsafeBuffer otherFrame = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final byte[] into = new byte[PAYLOAD];

    private static void writeFrame(final UnsafeBuffer b, final int tag)
    {
        b.putInt(FRAME_INDEX + CONTEXT_OFFSET, CONTEXT);
        b.putInt(FRAME_INDEX + SOURCE_OFFSET, SOURCE);
        b.putInt(FRAME_INDEX + TAG_OFFSET, tag);
        b.putInt(FRAME_INDEX + FLAGS_OFFSET, 0);
        b.putInt(FRAME_INDEX + SEQUENCE_OFFSET, 0);
        b.putLong(FRAME_INDEX + MESSAGE_LENGTH_OFFSET, PAYLOAD);
        b.putLong(FRAME_INDEX + FRAGMENT_OFFSET_OFFSET, 0);
        b.putLong(FRAME_INDEX + TOKEN_OFFSET, 0);
        b.putLong(FRAME_INDEX + HEADER_LENGTH, 0x0102030405060708L);
    }

    @Setup
    public void setup()
    {
        writeFrame(frame, TAG);
        writeFrame(otherFrame, OTHER_TAG);

        postedEngine = new MatchingEngine();
        for (int i = 1; i < queueLength; i++)
        {
            postedEngine.post(new RecvRequest(CONTEXT, SOURCE, OTHER_TAG, new byte[PAYLOAD], BYTES, PAYLOAD));
        }

        unexpectedEngine = new MatchingEngine();
        for (int i = 1; i < queueLength; i++)
        {
            unexpectedEngine.onData(otherFrame, FRAME_INDEX, HEADER_LENGTH + PAYLOAD);
        }
        if (postedEngine.postedCount() != queueLength - 1 || unexpectedEngine.unexpectedCount() != queueLength - 1)
        {
            throw new IllegalStateException("queues not set up");
        }
    }

    /** Receive posted first (it queues last), then the message arrives and is matched against the posted queue. */
    @Benchmark
    public RecvRequest postThenArrive()
    {
        final RecvRequest r = new RecvRequest(CONTEXT, SOURCE, TAG, into, BYTES, PAYLOAD);
        postedEngine.post(r);
        postedEngine.onData(frame, FRAME_INDEX, HEADER_LENGTH + PAYLOAD);
        if (!r.isComplete())
        {
            throw new IllegalStateException("not matched");
        }
        return r;
    }

    /**
     * The message arrives first (buffered, queued last), then the receive is posted and searches the unexpected
     * queue.
     */
    @Benchmark
    public RecvRequest arriveThenPost()
    {
        unexpectedEngine.onData(frame, FRAME_INDEX, HEADER_LENGTH + PAYLOAD);
        final RecvRequest r = new RecvRequest(CONTEXT, SOURCE, TAG, into, BYTES, PAYLOAD);
        unexpectedEngine.post(r);
        if (!r.isComplete())
        {
            throw new IllegalStateException("not matched");
        }
        return r;
    }
}
