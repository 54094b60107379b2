package org.shmpi.bench.jmh;

import static org.shmpi.ring.FrameDescriptor.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.shmpi.ring.Inbox;
import org.shmpi.shm.Futex;

/**
 * One eager frame through a ring, on one thread: claim, write the 56-byte frame header and an
 * 8-byte payload, commit, then read it back (the consumer's read also zeroes the slot). No
 * contention: the cost of the ring operations themselves.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class RingBenchmark
{
    static final int CAPACITY = 1 << 20;
    static final int FRAME_LENGTH = HEADER_LENGTH + 8;

    /** Adds up the payloads it reads, so that the read cannot be optimised away. */
    static final class Sum implements MessageHandler
    {
        long sum;

        @Override
        public void onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            sum += buffer.getLong(index + HEADER_LENGTH) + buffer.getInt(index + TAG_OFFSET);
        }
    }

    /** A ring in process memory: on a heap byte[] or a direct buffer. */
    @State(Scope.Thread)
    public static class Memory
    {
        @Param({"heap", "direct"})
        public String memory;

        ManyToOneRingBuffer ring;
        final Sum handler = new Sum();
        int sequence;

        @Setup
        public void setup()
        {
            final int length = CAPACITY + RingBufferDescriptor.TRAILER_LENGTH;
            final UnsafeBuffer buffer = "heap".equals(memory) ?
                new UnsafeBuffer(new byte[length]) : new UnsafeBuffer(ByteBuffer.allocateDirect(length));
            ring = new ManyToOneRingBuffer(buffer);
        }
    }

    /** A real inbox file (Inbox.create) in a temporary directory, not in /dev/shm. */
    @State(Scope.Thread)
    public static class InboxFile
    {
        Path dir;
        Inbox inbox;
        ManyToOneRingBuffer ring;
        final Sum handler = new Sum();
        int sequence;

        @Setup
        public void setup() throws IOException
        {
            dir = Files.createTempDirectory("shmpi-jmh-");
            inbox = Inbox.create(dir.resolve("inbox-0"), 0, ProcessHandle.current().pid(), CAPACITY, Futex.open(true));
            ring = inbox.ring();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException
        {
            inbox.close();
            Files.deleteIfExists(inbox.path());
            Files.deleteIfExists(dir);
        }
    }

    static long writeAndRead(final ManyToOneRingBuffer ring, final Sum handler, final int sequence)
    {
        final int index = ring.tryClaim(TYPE_DATA, FRAME_LENGTH);
        if (index < 0)
        {
            throw new IllegalStateException("ring full");
        }
        final MutableDirectBuffer b = ring.buffer();
        b.putInt(index + CONTEXT_OFFSET, 0);
        b.putInt(index + SOURCE_OFFSET, 1);
        b.putInt(index + TAG_OFFSET, 5);
        b.putInt(index + FLAGS_OFFSET, 0);
        b.putInt(index + SEQUENCE_OFFSET, sequence);
        b.putInt(index + RESERVED_OFFSET, 0);
        b.putLong(index + MESSAGE_LENGTH_OFFSET, 8);
        b.putLong(index + FRAGMENT_OFFSET_OFFSET, 0);
        b.putLong(index + TOKEN_OFFSET, 0);
        b.putLong(index + PEER_TOKEN_OFFSET, 0);
        b.putLong(index + HEADER_LENGTH, sequence);
        ring.commit(index);
        return readOne(ring, handler);
    }

    /**
     * Reads the one frame. A read stops at the end of the buffer, so when the claim wrapped (a
     * padding record before the frame) the frame comes with a second read, as in the real loop.
     */
    static long readOne(final ManyToOneRingBuffer ring, final Sum handler)
    {
        if (ring.read(handler, 1) != 1 && ring.read(handler, 1) != 1)
        {
            throw new IllegalStateException("frame not read");
        }
        return handler.sum;
    }

    /** Claim + header + 8-byte payload + commit, then read(), on a heap or direct 1 MiB ring. */
    @Benchmark
    public long writeRead(final Memory m)
    {
        return writeAndRead(m.ring, m.handler, m.sequence++);
    }

    /** The same on a mapped inbox file, as a rank's inbox is. */
    @Benchmark
    public long inboxWriteRead(final InboxFile f)
    {
        return writeAndRead(f.ring, f.handler, f.sequence++);
    }

    /** The whole eager send path on an inbox: the above plus the sender's wakeIfSleeping (nobody sleeps). */
    @Benchmark
    public long inboxWriteWakeRead(final InboxFile f)
    {
        final ManyToOneRingBuffer ring = f.ring;
        final int index = ring.tryClaim(TYPE_DATA, FRAME_LENGTH);
        if (index < 0)
        {
            throw new IllegalStateException("ring full");
        }
        final MutableDirectBuffer b = ring.buffer();
        final int sequence = f.sequence++;
        b.putInt(index + CONTEXT_OFFSET, 0);
        b.putInt(index + SOURCE_OFFSET, 1);
        b.putInt(index + TAG_OFFSET, 5);
        b.putInt(index + FLAGS_OFFSET, 0);
        b.putInt(index + SEQUENCE_OFFSET, sequence);
        b.putInt(index + RESERVED_OFFSET, 0);
        b.putLong(index + MESSAGE_LENGTH_OFFSET, 8);
        b.putLong(index + FRAGMENT_OFFSET_OFFSET, 0);
        b.putLong(index + TOKEN_OFFSET, 0);
        b.putLong(index + PEER_TOKEN_OFFSET, 0);
        b.putLong(index + HEADER_LENGTH, sequence);
        ring.commit(index);
        f.inbox.wakeWord().wakeIfSleeping();
        return readOne(ring, f.handler);
    }
}
