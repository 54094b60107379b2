package org.shmpi.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The floor under shmpi: two JVMs exchanging messages over two Agrona ring buffers in one file
 * in {@code /dev/shm}, with no MPI layer at all (no matching, no frame header, no wake-up: both
 * sides spin). Prints the same OSU-style tables as {@link OsuLatency} (ping-pong) and, with
 * {@code --bw}, {@link OsuBw} (a window of messages, then a 4-byte ack).
 *
 * <p>A message is copied once into the ring (claim, copy, commit) and once out of it, in frames
 * of at most the ring's largest message ({@code capacity / 8}), like shmpi's fragments. By
 * default the rings are {@link ManyToOneRingBuffer}s of 1 MiB, the same kind and size as a
 * shmpi inbox, so the difference to shmpi is the MPI layer; {@code --ring one} uses
 * {@link OneToOneRingBuffer} instead.
 *
 * <p>Start two processes, rank 0 first or second (rank 0 creates the file, rank 1 waits for it;
 * rank 0 deletes it as soon as rank 1 has mapped it, so nothing is left in /dev/shm):
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp shmpi-bench.jar:agrona.jar \
 *     org.shmpi.bench.RawRingPingPong --rank 1 --file /dev/shm/raw-ring-$$ [options] &amp;
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp shmpi-bench.jar:agrona.jar \
 *     org.shmpi.bench.RawRingPingPong --rank 0 --file /dev/shm/raw-ring-$$ [options]
 * </pre>
 */
public final class RawRingPingPong
{
    private static final String PROGRAM = "RawRingPingPong";
    private static final int MAGIC = 0x52415752; // "RAWR"
    private static final int MAGIC_OFFSET = 0;
    private static final int CAPACITY_OFFSET = 4;
    private static final int RING_KIND_OFFSET = 8;
    private static final int ATTACHED_OFFSET = 64;
    private static final int PID_OFFSET = 128;
    private static final int HEADER_BYTES = 4096;
    private static final int DATA_MSG = 1;
    private static final int ACK_BYTES = 4;
    private static final long ATTACH_TIMEOUT_NS = 60_000_000_000L;

    private RawRingPingPong()
    {
    }

    public static void main(final String[] args) throws IOException, InterruptedException
    {
        int rank = -1;
        String file = null;
        boolean oneToOne = false;
        int capacity = 1 << 20;
        boolean bw = false;
        final List<String> rest = new ArrayList<>();
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--rank":
                        rank = Integer.parseInt(need(args, ++i));
                        break;
                    case "--file":
                        file = need(args, ++i);
                        break;
                    case "--ring":
                        final String kind = need(args, ++i);
                        if (!"one".equals(kind) && !"many".equals(kind))
                        {
                            throw new IllegalArgumentException("--ring takes one or many, not " + kind);
                        }
                        oneToOne = "one".equals(kind);
                        break;
                    case "--capacity":
                        capacity = Integer.parseInt(need(args, ++i));
                        if (!BitUtil.isPowerOfTwo(capacity) || capacity < 4096)
                        {
                            throw new IllegalArgumentException("--capacity must be a power of two >= 4096");
                        }
                        break;
                    case "--bw":
                        bw = true;
                        break;
                    default:
                        rest.add(args[i]);
                }
            }
            final OsuOptions.Kind kind = bw ? OsuOptions.Kind.BANDWIDTH : OsuOptions.Kind.LATENCY;
            final OsuOptions o = OsuOptions.parse(rest.toArray(new String[0]), kind);
            if (o.help)
            {
                System.out.print(usage(kind));
                return;
            }
            if ((rank != 0 && rank != 1) || file == null)
            {
                throw new IllegalArgumentException("--rank 0|1 and --file PATH are required");
            }
            new RawRingPingPong.Run(rank, Paths.get(file), oneToOne, capacity, o).run();
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println(PROGRAM + ": " + ex.getMessage());
            System.err.print(usage(bw ? OsuOptions.Kind.BANDWIDTH : OsuOptions.Kind.LATENCY));
            System.exit(1);
        }
    }

    private static String need(final String[] args, final int i)
    {
        if (i >= args.length)
        {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static String usage(final OsuOptions.Kind kind)
    {
        return "Usage: " + PROGRAM + " --rank 0|1 --file /dev/shm/NAME [--bw] [--ring many|one] " +
            "[--capacity BYTES] [options]\n" +
            "  start one process of each rank with the same file and options; rank 0 prints\n" +
            OsuOptions.usage(PROGRAM, kind);
    }

    /** One side of the pair. */
    private static final class Run
    {
        private final int rank;
        private final Path file;
        private final boolean oneToOne;
        private final int capacity;
        private final OsuOptions o;
        private UnsafeBuffer header;
        private long peerPid;

        Run(final int rank, final Path file, final boolean oneToOne, final int capacity, final OsuOptions o)
        {
            this.rank = rank;
            this.file = file;
            this.oneToOne = oneToOne;
            this.capacity = capacity;
            this.o = o;
        }

        void run() throws IOException, InterruptedException
        {
            final int ringBytes = capacity + RingBufferDescriptor.TRAILER_LENGTH;
            final int ringStride = BitUtil.align(ringBytes, 4096);
            final long fileBytes = HEADER_BYTES + 2L * ringStride;
            final MappedByteBuffer mapped = rank == 0 ? create(fileBytes) : attach(fileBytes);
            try
            {
                final RingBuffer toOne = ring(new UnsafeBuffer(mapped, HEADER_BYTES, ringBytes));
                final RingBuffer toZero = ring(new UnsafeBuffer(mapped, HEADER_BYTES + ringStride, ringBytes));
                final RingBuffer out = rank == 0 ? toOne : toZero;
                final RingBuffer in = rank == 0 ? toZero : toOne;
                measure(out, in);
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }

        private RingBuffer ring(final UnsafeBuffer buffer)
        {
            return oneToOne ? new OneToOneRingBuffer(buffer) : new ManyToOneRingBuffer(buffer);
        }

        /** Rank 0: creates the file under a temporary name, initialises it, renames it into place. */
        private MappedByteBuffer create(final long fileBytes) throws IOException, InterruptedException
        {
            final Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
            final Thread cleanup = new Thread(() ->
            {
                try
                {
                    Files.deleteIfExists(tmp);
                    Files.deleteIfExists(file);
                }
                catch (final IOException ignored)
                {
                    // best effort at exit
                }
            });
            Runtime.getRuntime().addShutdownHook(cleanup);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            final MappedByteBuffer mapped;
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileBytes);
            }
            mapped.order(ByteOrder.nativeOrder());
            header = new UnsafeBuffer(mapped, 0, HEADER_BYTES);
            // Touch every page now, so page faults do not land in the measurement.
            new UnsafeBuffer(mapped, 0, (int)fileBytes).setMemory(0, (int)fileBytes, (byte)0);
            header.putInt(CAPACITY_OFFSET, capacity);
            header.putInt(RING_KIND_OFFSET, oneToOne ? 1 : 2);
            header.putLong(PID_OFFSET, ProcessHandle.current().pid());
            header.putIntVolatile(MAGIC_OFFSET, MAGIC);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);

            final long deadline = System.nanoTime() + ATTACH_TIMEOUT_NS;
            while (header.getIntVolatile(ATTACHED_OFFSET) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("rank 1 did not attach to " + file + " within 60 s");
                }
                Thread.sleep(1);
            }
            peerPid = header.getLongVolatile(PID_OFFSET + 8);
            // Both sides have it mapped: the name is no longer needed.
            Files.deleteIfExists(file);
            return mapped;
        }

        /** Rank 1: waits for rank 0's file, maps it, checks it, says it is attached. */
        private MappedByteBuffer attach(final long fileBytes) throws IOException, InterruptedException
        {
            final long deadline = System.nanoTime() + ATTACH_TIMEOUT_NS;
            MappedByteBuffer mapped = null;
            while (mapped == null)
            {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
                {
                    if (ch.size() == fileBytes)
                    {
                        mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, fileBytes);
                    }
                }
                catch (final java.nio.file.NoSuchFileException notYet)
                {
                    // rank 0 has not renamed it into place yet
                }
                if (mapped == null)
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new IllegalStateException("no ring file " + file + " from rank 0 within 60 s");
                    }
                    Thread.sleep(1);
                }
            }
            mapped.order(ByteOrder.nativeOrder());
            header = new UnsafeBuffer(mapped, 0, HEADER_BYTES);
            if (header.getIntVolatile(MAGIC_OFFSET) != MAGIC || header.getInt(CAPACITY_OFFSET) != capacity ||
                header.getInt(RING_KIND_OFFSET) != (oneToOne ? 1 : 2))
            {
                throw new IllegalStateException(file + ": not a ring file of this configuration (same --ring and " +
                    "--capacity on both ranks?)");
            }
            peerPid = header.getLong(PID_OFFSET);
            header.putLong(PID_OFFSET + 8, ProcessHandle.current().pid());
            header.putIntVolatile(ATTACHED_OFFSET, 1);
            return mapped;
        }

        private void measure(final RingBuffer out, final RingBuffer in)
        {
            final boolean bw = o.kind == OsuOptions.Kind.BANDWIDTH;
            final int bytes = o.bufferBytes();
            final UnsafeBuffer src = buffer(bytes, (byte)'a');
            final UnsafeBuffer dst = buffer(bytes, (byte)'b');
            final UnsafeBuffer ack = buffer(ACK_BYTES, (byte)'c');
            final Sender sender = new Sender(out, this);
            final Receiver receiver = new Receiver(in, this);
            if (rank == 0)
            {
                final String ringName = (oneToOne ? "OneToOneRingBuffer" : "ManyToOneRingBuffer") + " " +
                    (capacity >> 10) + " KiB, frames up to " + out.maxMsgLength() + " B";
                OsuReport.header(bw ?
                    "# OSU MPI-style Bandwidth Test (raw Agrona ring stream between 2 JVMs, no MPI layer, window " +
                        o.window + ")" :
                    "# OSU MPI-style Latency Test (raw Agrona ring ping-pong between 2 JVMs, no MPI layer)",
                    o, "Rings: two " + ringName + ", in one file in " + file.getParent() + "; both sides spin",
                    OsuReport.javaVersion());
            }
            if (o.jitWarmup())
            {
                jitWarmup(sender, receiver, src, dst, ack, bw);
            }
            for (final int size : o.sizes())
            {
                final int iterations = o.iterations(size);
                if (bw)
                {
                    final long ns = windows(sender, receiver, src, dst, ack, size, o.warmup(size), iterations);
                    if (rank == 0)
                    {
                        OsuReport.row(size, size / 1e6 * iterations * o.window / (ns / 1e9));
                    }
                }
                else
                {
                    final long ns = pingPong(sender, receiver, src, dst, size, o.warmup(size), iterations);
                    if (rank == 0)
                    {
                        OsuReport.row(size, ns / 1e3 / (2.0 * iterations));
                    }
                }
            }
        }

        /**
         * The JIT warm-up, as the MPI benchmarks do it: chunks of the benchmark's loop at a small
         * size until at least -j messages and -J seconds; after each chunk rank 0 sends rank 1 a
         * 4-byte "another chunk?" flag.
         */
        private void jitWarmup(final Sender sender, final Receiver receiver, final UnsafeBuffer src,
            final UnsafeBuffer dst, final UnsafeBuffer ack, final boolean bw)
        {
            final UnsafeBuffer flag = new UnsafeBuffer(new byte[ACK_BYTES]);
            final long end = System.nanoTime() + (long)(o.jitSeconds * 1e9);
            long messages = 0;
            boolean more;
            do
            {
                if (bw)
                {
                    windows(sender, receiver, src, dst, ack, o.preludeSize(), 0, o.jitChunk());
                }
                else
                {
                    pingPong(sender, receiver, src, dst, o.preludeSize(), 0, o.jitChunk());
                }
                messages += o.jitChunkMessages();
                if (rank == 0)
                {
                    more = messages < o.jitPrelude || System.nanoTime() - end < 0;
                    flag.putInt(0, more ? 1 : 0);
                    sender.send(flag, ACK_BYTES);
                }
                else
                {
                    receiver.receive(flag, ACK_BYTES, 1);
                    more = flag.getInt(0) != 0;
                }
            }
            while (more);
        }

        private UnsafeBuffer buffer(final int bytes, final byte fill)
        {
            if (o.directBuffers)
            {
                final ByteBuffer b = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
                final UnsafeBuffer u = new UnsafeBuffer(b);
                u.setMemory(0, bytes, fill);
                return u;
            }
            final byte[] a = new byte[bytes];
            Arrays.fill(a, fill);
            return new UnsafeBuffer(a);
        }

        private long pingPong(final Sender sender, final Receiver receiver, final UnsafeBuffer src,
            final UnsafeBuffer dst, final int size, final int warmup, final int iterations)
        {
            long start = System.nanoTime();
            final int total = warmup + iterations;
            for (int i = 0; i < total; i++)
            {
                if (i == warmup)
                {
                    start = System.nanoTime();
                }
                if (rank == 0)
                {
                    sender.send(src, size);
                    receiver.receive(dst, size, 1);
                }
                else
                {
                    receiver.receive(dst, size, 1);
                    sender.send(src, size);
                }
            }
            return System.nanoTime() - start;
        }

        private long windows(final Sender sender, final Receiver receiver, final UnsafeBuffer src,
            final UnsafeBuffer dst, final UnsafeBuffer ack, final int size, final int warmup, final int iterations)
        {
            long start = System.nanoTime();
            final int total = warmup + iterations;
            final int window = o.window;
            for (int i = 0; i < total; i++)
            {
                if (i == warmup)
                {
                    start = System.nanoTime();
                }
                if (rank == 0)
                {
                    for (int w = 0; w < window; w++)
                    {
                        sender.send(src, size);
                    }
                    receiver.receive(ack, ACK_BYTES, 1);
                }
                else
                {
                    receiver.receive(dst, size, window);
                    sender.send(ack, ACK_BYTES);
                }
            }
            return System.nanoTime() - start;
        }

        /** Called now and then from spin loops: a dead peer ends this side instead of spinning forever. */
        void checkPeer()
        {
            if (peerPid != 0 && !ProcessHandle.of(peerPid).map(ProcessHandle::isAlive).orElse(false))
            {
                throw new IllegalStateException(String.format(Locale.ROOT, "peer process %d is gone", peerPid));
            }
        }
    }

    /** Claims, copies, commits: one copy into the ring, in frames of at most maxMsgLength. */
    private static final class Sender
    {
        private final RingBuffer ring;
        private final Run run;
        private final int maxFrame;

        Sender(final RingBuffer ring, final Run run)
        {
            this.ring = ring;
            this.run = run;
            this.maxFrame = ring.maxMsgLength();
        }

        void send(final UnsafeBuffer src, final int length)
        {
            int offset = 0;
            do
            {
                final int n = Math.min(maxFrame, length - offset);
                int index;
                long spins = 0;
                while ((index = ring.tryClaim(DATA_MSG, n)) < 0)
                {
                    if ((++spins & 0xFFFFF) == 0)
                    {
                        run.checkPeer();
                    }
                    Thread.onSpinWait();
                }
                if (n > 0)
                {
                    ring.buffer().putBytes(index, src, offset, n);
                }
                ring.commit(index);
                offset += n;
            }
            while (offset < length);
        }
    }

    /**
     * Reads frames and copies them out of the ring into the destination, spinning while empty;
     * stops after the frame that completes the awaited messages, leaving later ones in the ring.
     */
    private static final class Receiver implements ControlledMessageHandler
    {
        private final RingBuffer ring;
        private final Run run;
        private MutableDirectBuffer dst;
        private int messageLength;
        private int filled;
        private long messages;
        private long target;

        Receiver(final RingBuffer ring, final Run run)
        {
            this.ring = ring;
            this.run = run;
        }

        /** Waits for {@code count} whole messages of {@code length} bytes, each copied into {@code into}. */
        void receive(final MutableDirectBuffer into, final int length, final int count)
        {
            dst = into;
            messageLength = length;
            target = messages + count;
            long spins = 0;
            while (messages < target)
            {
                if (ring.controlledRead(this) == 0)
                {
                    if ((++spins & 0xFFFFF) == 0)
                    {
                        run.checkPeer();
                    }
                    Thread.onSpinWait();
                }
            }
        }

        @Override
        public Action onMessage(
            final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
        {
            if (length > 0)
            {
                dst.putBytes(filled, buffer, index, length);
            }
            filled += length;
            if (filled >= messageLength)
            {
                if (filled != messageLength)
                {
                    throw new IllegalStateException("frame sizes do not add up: " + filled + " != " + messageLength);
                }
                filled = 0;
                messages++;
            }
            return messages < target ? Action.CONTINUE : Action.BREAK;
        }
    }
}
