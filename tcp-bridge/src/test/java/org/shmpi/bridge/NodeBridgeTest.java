package org.shmpi.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.ring.Transport;

/**
 * The bridge with ranks as threads and "nodes" as separate /dev/shm directories joined over
 * loopback TCP: what the engine's protocols need from it (every size, both buffer kinds, the
 * rendezvous without shared addresses, order and wildcards), and what it must refuse. The data
 * cases run twice: with the bridge's threads alone (blocking connections, the default), and with
 * each node's first rank doing its socket work itself ({@link NodeBridge#inline}, as with
 * {@code shmpi.bridge.inline}).
 */
class NodeBridgeTest
{
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final int[] SIZES = {0, 1, 100, 4_000, 70_000, 300_000, 2_000_000};
    private static final int RING = 256 * 1024;

    private static byte pattern(final int src, final int dest, final int i, final int kind)
    {
        return (byte)(src * 31 + dest * 7 + i * 13 + kind * 101);
    }

    /**
     * Every rank sends every size to every other rank, from arrays, from direct buffers and from
     * its shared heap.
     */
    private static void allToAll(final RankContext ctx, final int[] sizes) throws Exception
    {
        final Transport t = ctx.transport();
        final int me = ctx.rank();
        final int n = ctx.worldSize();
        final List<EngineRequest> requests = new ArrayList<>();
        final List<Object[]> checks = new ArrayList<>();
        for (int peer = 0; peer < n; peer++)
        {
            if (peer == me)
            {
                continue;
            }
            for (int s = 0; s < sizes.length; s++)
            {
                final byte[] in = new byte[sizes[s]];
                requests.add(t.irecv(0, peer, s, in, BYTES, in.length));
                checks.add(new Object[] {in, peer, s, 0});
                final ByteBuffer direct = ByteBuffer.allocateDirect(Math.max(1, sizes[s]));
                requests.add(t.irecv(0, peer, 100 + s, null, BufferUtil.address(direct), sizes[s]));
                checks.add(new Object[] {direct, peer, s, 1});
                final ByteBuffer shared = ByteBuffer.allocateDirect(Math.max(1, sizes[s]));
                requests.add(t.irecv(0, peer, 200 + s, null, BufferUtil.address(shared), sizes[s]));
                checks.add(new Object[] {shared, peer, s, 2});
            }
        }
        final List<Object> keep = new ArrayList<>();
        for (int peer = 0; peer < n; peer++)
        {
            if (peer == me)
            {
                continue;
            }
            for (int s = 0; s < sizes.length; s++)
            {
                final byte[] out = new byte[sizes[s]];
                final ByteBuffer direct = ByteBuffer.allocateDirect(Math.max(1, sizes[s]));
                for (int i = 0; i < sizes[s]; i++)
                {
                    out[i] = pattern(me, peer, i, 0);
                    direct.put(i, pattern(me, peer, i, 1));
                }
                // Memory of the rank's shared heap (what MPI.newByteBuffer hands out): a local peer
                // copies it straight out of the heap; a remote one must not be told where it is.
                final ByteBuffer shared = ctx.heap().allocate(Math.max(1, sizes[s]));
                for (int i = 0; i < sizes[s]; i++)
                {
                    shared.put(i, pattern(me, peer, i, 2));
                }
                keep.add(out);
                keep.add(direct);
                keep.add(shared);
                requests.add(t.isend(0, peer, s, out, BYTES, out.length, SendRequest.MODE_STANDARD));
                requests.add(t.isend(0, peer, 100 + s, null, BufferUtil.address(direct), sizes[s],
                    SendRequest.MODE_STANDARD));
                requests.add(t.isend(0, peer, 200 + s, null, BufferUtil.address(shared), sizes[s],
                    SendRequest.MODE_STANDARD));
            }
        }
        for (final EngineRequest r : requests)
        {
            ctx.progress().await(r);
        }
        // The sends read their direct buffers by address until they complete: keep those buffers
        // (and their memory) alive until then, or a collector frees them under a running stream.
        java.lang.ref.Reference.reachabilityFence(keep);
        for (final Object[] c : checks)
        {
            final int peer = (Integer)c[1];
            final int size = sizes[(Integer)c[2]];
            final int kind = (Integer)c[3];
            for (int i = 0; i < size; i++)
            {
                final byte got = kind == 0 ? ((byte[])c[0])[i] : ((ByteBuffer)c[0]).get(i);
                final String[] kinds = {"array", "direct", "shared heap"};
                if (got != pattern(peer, me, i, kind))
                {
                    throw new AssertionError("rank " + me + " from " + peer + ", " + size + " B " + kinds[kind] +
                        ": byte " + i + " is " + got);
                }
            }
        }
        assertEquals(3 * sizes.length * (n - 1) * 2, requests.size());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everySizeCrossesTwoNodesFromArraysDirectBuffersAndTheSharedHeap(final boolean inline) throws Exception
    {
        try (NodeJob job = NodeJob.start("bridge-sizes", new int[] {0, 0, 1, 1}, RING, inline))
        {
            job.run(90, ctx -> allToAll(ctx, SIZES));
            assertTrue(job.bridge(0).framesForwarded() > 0 && job.bridge(1).framesDelivered() > 0,
                "frames went through the bridge");
            assertTrue(job.failures.isEmpty(), job.failures.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void threeNodesWithRanksInterleaved(final boolean inline) throws Exception
    {
        try (NodeJob job = NodeJob.start("bridge-three", new int[] {0, 1, 2, 0, 1, 2}, RING, inline))
        {
            job.run(90, ctx -> allToAll(ctx, new int[] {8, 70_000, 300_000}));
            assertTrue(job.failures.isEmpty(), job.failures.toString());
        }
    }

    /** A wildcard receive takes messages from local and remote senders, each sender's in its order. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anySourceKeepsEachSendersOrder(final boolean inline) throws Exception
    {
        final int count = 2_000;
        try (NodeJob job = NodeJob.start("bridge-order", new int[] {0, 0, 1, 1}, RING, inline))
        {
            job.run(90, ctx ->
            {
                final Transport t = ctx.transport();
                final long[] word = new long[1];
                final long longs = UnsafeApi.arrayBaseOffset(long[].class);
                if (ctx.rank() == 0)
                {
                    final long[] next = new long[ctx.worldSize()];
                    for (int i = 0; i < count * (ctx.worldSize() - 1); i++)
                    {
                        final RecvRequest r = t.recv(0, RecvRequest.ANY_SOURCE, 5, word, longs, 8);
                        assertEquals(next[r.source()], word[0], "message of rank " + r.source() + " out of order");
                        next[r.source()]++;
                    }
                    for (int src = 1; src < ctx.worldSize(); src++)
                    {
                        assertEquals(count, next[src], "messages from rank " + src);
                    }
                }
                else
                {
                    for (int i = 0; i < count; i++)
                    {
                        word[0] = i;
                        t.send(0, 0, 5, word, longs, 8);
                    }
                }
            });
        }
    }

    /**
     * Ping-pong between the first ranks of two nodes (each sends and reads in its own thread),
     * then bursts of small messages gathered into few writes, then a stream of large ones: every
     * byte arrives, in order.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void pingPongBurstsAndStreamsBetweenTheRanksThatRunTheBridges(final boolean inline) throws Exception
    {
        try (NodeJob job = NodeJob.start("bridge-inline", new int[] {0, 1}, RING, inline))
        {
            job.run(90, ctx ->
            {
                final Transport t = ctx.transport();
                final int me = ctx.rank();
                final int peer = 1 - me;
                for (final int size : new int[] {1, 1_000, 20_000, 200_000})
                {
                    final byte[] ball = new byte[size];
                    for (int i = 0; i < 300; i++)
                    {
                        if (me == 0)
                        {
                            ball[size - 1] = (byte)i;
                            t.send(0, peer, 1, ball, BYTES, size);
                            t.recv(0, peer, 1, ball, BYTES, size);
                            assertEquals((byte)(i + 1), ball[size - 1], "pong " + i + " of " + size + " B");
                        }
                        else
                        {
                            t.recv(0, peer, 1, ball, BYTES, size);
                            ball[size - 1]++;
                            t.send(0, peer, 1, ball, BYTES, size);
                        }
                    }
                }
                final int burst = 64;
                for (final int size : new int[] {8, 3_000, 60_000})
                {
                    for (int round = 0; round < 20; round++)
                    {
                        final List<EngineRequest> rs = new ArrayList<>();
                        final byte[][] data = new byte[burst][size];
                        for (int m = 0; m < burst; m++)
                        {
                            if (me == 0)
                            {
                                data[m][0] = (byte)m;
                                data[m][size - 1] = (byte)(round + m);
                                rs.add(t.isend(0, peer, 2, data[m], BYTES, size, SendRequest.MODE_STANDARD));
                            }
                            else
                            {
                                rs.add(t.irecv(0, peer, 2, data[m], BYTES, size));
                            }
                        }
                        for (final EngineRequest r : rs)
                        {
                            ctx.progress().await(r);
                        }
                        if (me == 1)
                        {
                            for (int m = 0; m < burst; m++)
                            {
                                assertEquals((byte)m, data[m][0], "message " + m + " of the burst, in order");
                                assertEquals((byte)(round + m), data[m][size - 1]);
                            }
                        }
                        final byte[] ack = new byte[1];
                        if (me == 1)
                        {
                            t.send(0, peer, 3, ack, BYTES, 1);
                        }
                        else
                        {
                            t.recv(0, peer, 3, ack, BYTES, 1);
                        }
                    }
                }
            });
            assertTrue(job.failures.isEmpty(), job.failures.toString());
        }
    }

    /** A connection without the job's secret is refused and reported; the job goes on. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aStrangerIsRefusedAndTheJobGoesOn() throws Exception
    {
        try (NodeJob job = NodeJob.start("bridge-stranger", new int[] {0, 1}, RING))
        {
            final InetSocketAddress at = job.bridge(0).address();
            try (Socket s = new Socket(at.getAddress(), at.getPort()))
            {
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeLong(NodeBridge.MAGIC);
                out.writeInt(NodeBridge.VERSION);
                out.writeInt(1);
                out.writeInt(0);
                final byte[] wrong = job.secret.clone();
                wrong[0] ^= 1;
                out.write(wrong);
                out.flush();
                final DataInputStream in = new DataInputStream(s.getInputStream());
                assertEquals(NodeBridge.MAGIC, in.readLong());
                assertEquals(1, in.readInt(), "refused");
                s.setSoTimeout(5_000);
                assertEquals(-1, in.read(), "closed after the refusal");
            }
            try (Socket s = new Socket(at.getAddress(), at.getPort()))
            {
                s.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes());
                s.setSoTimeout(5_000);
                try
                {
                    final int b = s.getInputStream().read();
                    assertEquals(-1, b, "closed");
                }
                catch (final IOException closed)
                {
                    // reset by the refusal: as good as a close
                }
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (job.refusals.size() < 2 && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            assertEquals(2, job.refusals.size(), job.refusals.toString());
            assertTrue(job.refusals.get(0).contains("wrong job secret"), job.refusals.get(0));
            assertTrue(job.refusals.get(1).contains("not a shmpi bridge"), job.refusals.get(1));
            job.run(30, ctx -> allToAll(ctx, new int[] {8, 300_000}));
            assertTrue(job.failures.isEmpty(), job.failures.toString());
        }
    }

    /** A connection lost while the job runs is reported with both nodes named, never silently. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLostConnectionNamesBothNodes() throws Exception
    {
        try (NodeJob job = NodeJob.start("bridge-lost", new int[] {0, 1}, RING))
        {
            job.bridge(1).close();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (job.failures.isEmpty() && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            assertEquals(1, job.failures.size(), job.failures.toString());
            final String f = job.failures.get(0);
            assertTrue(f.contains("between node 0") && f.contains("and node 1"), f);
        }
    }

    /** Closing a bridge removes the stand-in inboxes it made, and only those. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingRemovesTheStandIns() throws Exception
    {
        final Path dir = Files.createTempDirectory(Path.of("/dev/shm"), "shmpi-test-bridge");
        try
        {
            final NodeBridge b = NodeBridge.open(dir, 0, new int[] {0, 1, 1}, RING, new byte[NodeBridge.SECRET_LENGTH],
                new InetSocketAddress(0), org.shmpi.shm.Futex.open(true), f -> { }, f -> { });
            assertFalse(Files.exists(dir.resolve("inbox-0")), "no stand-in for a rank of this node");
            assertTrue(Files.exists(dir.resolve("inbox-1")) && Files.exists(dir.resolve("inbox-2")));
            b.close();
            try (var left = Files.list(dir))
            {
                assertEquals(0, left.count(), "nothing left in the directory");
            }
        }
        finally
        {
            NodeJob.deleteRecursively(dir);
        }
    }
}
