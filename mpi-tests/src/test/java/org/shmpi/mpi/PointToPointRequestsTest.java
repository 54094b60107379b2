package org.shmpi.mpi;

import static org.shmpi.mpi.Expect.expect;
import static org.shmpi.mpi.Expect.expectError;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Comm;
import mpi.GRequest;
import mpi.MPI;
import mpi.Message;
import mpi.PeerCounters;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;

/**
 * The point-to-point engine through the public API: nonblocking, persistent, every send mode,
 * probes, matched probes, the wait/test family, cancel, buffered mode, generalized and detached
 * requests, counters. Every rank of COMM_WORLD runs each method, at 1, 2 and 4 ranks; one
 * method per check, one per message size where a check has several.
 * <p>One file, longer than the house's ~700 lines, because the methods of a class share one job
 * per rank count ({@link MpiTest}): split in two, the suite would start a second set of rank
 * JVMs at 1, 2 and 4 ranks for the same checks.
 */
@MpiTest(np = {1, 2, 4})
class PointToPointRequestsTest
{
    private Comm world;
    private int rank;
    private int size;

    @BeforeEach
    void setUp()
    {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        size = world.getSize();
    }

    /** Every check receives what it sends: nothing may be left for the next method of the job. */
    @AfterEach
    void nothingLeftUnreceived()
    {
        Expect.nothingLeftUnreceived();
    }

    @Test
    void tagUb()
    {
        expect(((Integer)world.getAttr(MPI.TAG_UB)) == Integer.MAX_VALUE, "TAG_UB");
    }

    @Test
    void allPairsIsendIrecv0()
    {
        allPairs(0, false);
    }

    @Test
    void allPairsIsendIrecv1()
    {
        allPairs(1, false);
    }

    @Test
    void allPairsIsendIrecv1000()
    {
        allPairs(1000, false);
    }

    @Test
    void allPairsIsendIrecv20000()
    {
        allPairs(20_000, false);
    }

    @Test
    void allPairsIsendIrecv300000()
    {
        allPairs(300_000, false);
    }

    @Test
    void allPairsDirect0()
    {
        allPairs(0, true);
    }

    @Test
    void allPairsDirect1()
    {
        allPairs(1, true);
    }

    @Test
    void allPairsDirect1000()
    {
        allPairs(1000, true);
    }

    @Test
    void allPairsDirect20000()
    {
        allPairs(20_000, true);
    }

    @Test
    void allPairsDirect300000()
    {
        allPairs(300_000, true);
    }

    private static int value(final int from, final int to, final int i)
    {
        return from * 1_000_003 + to * 7919 + i;
    }

    /** Every rank isends to every rank (itself included) and irecvs from every rank, then waitAll. */
    private void allPairs(final int n, final boolean direct)
    {
        final List<Request> reqs = new ArrayList<>();
        final Object[] in = new Object[size];
        for (int p = 0; p < size; p++)
        {
            if (direct)
            {
                final IntBuffer b = MPI.newIntBuffer(n);
                in[p] = b;
                reqs.add(world.iRecv(b, n, MPI.INT, p, 3));
            }
            else
            {
                in[p] = new int[n];
                reqs.add(world.iRecv(in[p], n, MPI.INT, p, 3));
            }
        }
        for (int p = 0; p < size; p++)
        {
            if (direct)
            {
                final IntBuffer b = MPI.newIntBuffer(n);
                for (int i = 0; i < n; i++)
                {
                    b.put(i, value(rank, p, i));
                }
                reqs.add(world.iSend(b, n, MPI.INT, p, 3));
            }
            else
            {
                final int[] a = new int[n];
                for (int i = 0; i < n; i++)
                {
                    a[i] = value(rank, p, i);
                }
                reqs.add(world.iSend(a, n, MPI.INT, p, 3));
            }
        }
        final Status[] st = Request.waitAllStatus(reqs.toArray(new Request[0]));
        for (int p = 0; p < size; p++)
        {
            expect(st[p].getSource() == p && st[p].getCount(MPI.INT) == n, "status " + st[p]);
            for (int i = 0; i < n; i++)
            {
                final int got = direct ? ((IntBuffer)in[p]).get(i) : ((int[])in[p])[i];
                if (got != value(p, rank, i))
                {
                    throw new AssertionError("from " + p + " [" + i + "] = " + got);
                }
            }
        }
        for (final Request r : reqs)
        {
            expect(r.isNull(), "completed requests become null");
        }
    }

    @Test
    void sendModes()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        for (final int n : new int[] {10, 100_000})
        {
            final int[] out = new int[n];
            Arrays.fill(out, rank + 1);
            for (int mode = 0; mode < 4; mode++)
            {
                final int[] in = new int[n];
                // Ready mode needs the receive posted first: post, barrier, then send.
                final Request r = world.iRecv(in, n, MPI.INT, prev, 40 + mode);
                world.barrier();
                final Request s;
                switch (mode)
                {
                    case 0: s = world.iSend(out, n, MPI.INT, next, 40); break;
                    case 1: s = world.isSend(out, n, MPI.INT, next, 41); break;
                    case 2: s = world.irSend(out, n, MPI.INT, next, 42); break;
                    default:
                        MPI.attachBuffer(new byte[n * 4 + MPI.BSEND_OVERHEAD]);
                        s = world.ibSend(out, n, MPI.INT, next, 43);
                        break;
                }
                Request.waitAll(new Request[] {r, s});
                if (mode == 3)
                {
                    expect(MPI.detachBuffer().length == n * 4 + MPI.BSEND_OVERHEAD, "detached buffer");
                }
                expect(in[0] == prev + 1 && in[n - 1] == prev + 1, "mode " + mode + " data");
            }
            // Blocking forms, in an order that cannot deadlock even when each send waits for its match.
            final int[] in = new int[n];
            if (size == 1)
            {
                final Request r = world.iRecv(in, n, MPI.INT, 0, 50);
                world.sSend(out, n, MPI.INT, 0, 50);
                r.waitFor();
            }
            else if (rank % 2 == 0)
            {
                world.sSend(out, n, MPI.INT, next, 50);
                world.recv(in, n, MPI.INT, prev, 50);
            }
            else
            {
                world.recv(in, n, MPI.INT, prev, 50);
                world.sSend(out, n, MPI.INT, next, 50);
            }
            expect(in[n - 1] == prev + 1, "sSend data");
        }
    }

    /** An isSend is not complete before the receiver matched it; a small isend is. */
    @Test
    void ssendWaitsForMatch() throws InterruptedException
    {
        if (size < 2)
        {
            return;
        }
        if (rank == 0)
        {
            final Request small = world.iSend(new int[] {1}, 1, MPI.INT, 1, 60);
            expect(small.test(), "an eager standard send completes at once");
            final Request sync = world.isSend(new int[] {2}, 1, MPI.INT, 1, 61);
            for (int i = 0; i < 20; i++)
            {
                Thread.sleep(5);
                expect(!sync.test(), "synchronous send complete before its receive was posted");
            }
            world.send(new int[] {3}, 1, MPI.INT, 1, 62);
            sync.waitFor();
        }
        else if (rank == 1)
        {
            final int[] in = new int[1];
            world.recv(in, 1, MPI.INT, 0, 60);
            world.recv(in, 1, MPI.INT, 0, 62);
            world.recv(in, 1, MPI.INT, 0, 61);
            expect(in[0] == 2, "synchronous message");
        }
    }

    /** A large standard send completes only once matched (rendezvous), then without the receiver's help. */
    @Test
    void largeSendWaitsForMatch() throws InterruptedException
    {
        if (size < 2)
        {
            return;
        }
        final int n = 1 << 20;
        if (rank == 0)
        {
            final int[] big = new int[n];
            Arrays.fill(big, 77);
            final Request s = world.iSend(big, n, MPI.INT, 1, 70);
            for (int i = 0; i < 10; i++)
            {
                Thread.sleep(5);
                expect(!s.test(), "large send complete before any receive was posted");
            }
            world.send(new int[] {1}, 1, MPI.INT, 1, 71);
            s.waitFor();
        }
        else if (rank == 1)
        {
            final int[] go = new int[1];
            world.recv(go, 1, MPI.INT, 0, 71);
            final int[] in = new int[n];
            final Status st = world.recv(in, n, MPI.INT, 0, 70);
            expect(st.getCount(MPI.INT) == n && in[n - 1] == 77 && in[0] == 77, "large data");
        }
    }

    /**
     * Buffered mode as MPI defines it: the room of a message that has left the attached buffer
     * is reusable (an eager message leaves at once, into the receiver's ring), a rendezvous
     * message holds its room until it has been received, a buffer too small for one message
     * fails with ERR_BUFFER, and detach waits for the messages still in the buffer.
     */
    @Test
    void buffered()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        // With no buffer attached, a message above the eager limit has nowhere to go (one within
        // it is sent at once: OpenMpiBehaviourTest).
        expectError(MPI.ERR_BUFFER, () -> world.bSend(new int[1 << 20], 1 << 20, MPI.INT, next, 80));
        final int n = 1000;
        final byte[] roomForOne = new byte[n * 4 + MPI.BSEND_OVERHEAD];
        MPI.attachBuffer(roomForOne);
        expectError(MPI.ERR_BUFFER, () -> MPI.attachBuffer(new byte[10]));
        // Eight eager messages through room for one: each leaves the buffer before the next comes.
        final int[] out = new int[n];
        for (int i = 0; i < 8; i++)
        {
            Arrays.fill(out, i);
            if (i % 2 == 0)
            {
                world.bSend(out, n, MPI.INT, next, 81);
            }
            else
            {
                expect(world.ibSend(out, n, MPI.INT, next, 81).test(), "ibSend completes at once");
            }
            Arrays.fill(out, -1);   // the user's buffer is free at once
        }
        final int[] in = new int[n];
        for (int i = 0; i < 8; i++)
        {
            world.recv(in, n, MPI.INT, prev, 81);
            expect(in[0] == i && in[n - 1] == i, "buffered message " + i + " came as " + in[0]);
        }
        expect(MPI.detachBuffer() == roomForOne, "detach returns the attached buffer");
        expect(MPI.detachBuffer() == null, "nothing attached any more");
        // One byte short of one message: fails, with nothing in flight.
        MPI.attachBuffer(new byte[n * 4 + MPI.BSEND_OVERHEAD - 1]);
        expectError(MPI.ERR_BUFFER, () -> world.bSend(new int[n], n, MPI.INT, next, 82));
        expectError(MPI.ERR_BUFFER, () -> world.ibSend(new int[n], n, MPI.INT, next, 82));
        MPI.detachBuffer();
        // A rendezvous message keeps its room until it is received; detach waits for it.
        final int big = 100_000;
        final byte[] roomForBig = new byte[big * 4 + MPI.BSEND_OVERHEAD];
        MPI.attachBuffer(roomForBig);
        final int[] bigOut = new int[big];
        for (int i = 0; i < big; i++)
        {
            bigOut[i] = value(rank, next, i);
        }
        world.bSend(bigOut, big, MPI.INT, next, 83);
        Arrays.fill(bigOut, -1);
        // No receive is posted before the barrier below, so the first message is still in the buffer.
        expectError(MPI.ERR_BUFFER, () -> world.bSend(new int[big], big, MPI.INT, next, 84));
        world.barrier();
        final int[] bigIn = new int[big];
        final Request r = world.iRecv(bigIn, big, MPI.INT, prev, 83);
        expect(MPI.detachBuffer() == roomForBig, "detach of the rendezvous buffer");
        // Detach returned, so the message has left: scribbling over the buffer cannot reach the receiver.
        Arrays.fill(roomForBig, (byte)0x5A);
        r.waitFor();
        for (int i = 0; i < big; i++)
        {
            if (bigIn[i] != value(prev, rank, i))
            {
                throw new AssertionError("rendezvous buffered message [" + i + "] = " + bigIn[i]);
            }
        }
    }

    @Test
    void persistent()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int n = 50_000;
        final int[] out = new int[n];
        final int[] in = new int[n];
        final Prequest send = world.sendInit(out, n, MPI.INT, next, 90);
        final Prequest recv = world.recvInit(in, n, MPI.INT, prev, 90);
        final Prequest[] both = {recv, send};
        expect(recv.waitStatus().getSource() == MPI.ANY_SOURCE, "inactive request: empty status");
        for (int iter = 0; iter < 10; iter++)
        {
            Arrays.fill(out, rank * 100 + iter);
            Prequest.startAll(both);
            expectError(MPI.ERR_REQUEST, () -> send.start());
            final Status[] st = Request.waitAllStatus(both);
            expect(st[0].getSource() == prev && st[0].getCount(MPI.INT) == n, "status " + st[0]);
            expect(in[0] == prev * 100 + iter && in[n - 1] == prev * 100 + iter, "iteration " + iter);
            expect(!recv.isNull() && !send.isNull(), "persistent requests stay usable");
        }
        send.free();
        recv.free();
        expect(send.isNull(), "freed");
    }

    /** Messages of one sender keep their order across the eager and rendezvous protocols. */
    @Test
    void protocolOrder()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int big = 100_000;
        final int[][] sizes = {{big, 3}, {3, big}, {big, big, 3, 3, big}};
        for (final int[] seq : sizes)
        {
            final List<Request> sends = new ArrayList<>();
            for (int i = 0; i < seq.length; i++)
            {
                final int[] m = new int[seq[i]];
                Arrays.fill(m, i);
                sends.add(world.iSend(m, m.length, MPI.INT, next, 100));
            }
            for (int i = 0; i < seq.length; i++)
            {
                final int[] in = new int[big];
                final Status st = world.recv(in, big, MPI.INT, prev, MPI.ANY_TAG);
                expect(st.getCount(MPI.INT) == seq[i] && in[0] == i && in[seq[i] - 1] == i,
                    "message " + i + " of " + Arrays.toString(seq) + " came as count " + st.getCount(MPI.INT) +
                    " value " + in[0]);
            }
            Request.waitAll(sends.toArray(new Request[0]));
        }
    }

    @Test
    void probe()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final Request[] s = {
            world.iSend(new int[5], 5, MPI.INT, next, 5),
            world.iSend(new int[6], 6, MPI.INT, next, 6),
            world.iSend(new int[200_000], 200_000, MPI.INT, next, 7)};
        Status st = world.probe(prev, 7);
        expect(st.getSource() == prev && st.getTag() == 7 && st.getCount(MPI.INT) == 200_000, "probe " + st);
        st = world.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
        expect(st.getTag() == 5 && st.getCount(MPI.INT) == 5, "probe any gives the oldest: " + st);
        expect(world.iProbe(prev, 99) == null, "iProbe with no match");
        while (world.iProbe(prev, 6) == null)
        {
            Thread.onSpinWait();
        }
        for (final int tag : new int[] {7, 5, 6})
        {
            final Status p = world.probe(prev, tag);
            final int[] in = new int[p.getCount(MPI.INT)];
            final Status r = world.recv(in, in.length, MPI.INT, p.getSource(), p.getTag());
            expect(r.getTag() == tag && r.getCount(MPI.INT) == in.length, "recv after probe " + r);
        }
        Request.waitAll(s);
    }

    @Test
    void matchedProbe()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final Message none = new Message();
        expect(none.isNull(), "new message is null");
        expect(none.imProbe(prev, 111, world) == null && none.isNull(), "improbe with no match");
        final Request[] s = {
            world.iSend(new int[] {1, 2, 3}, 3, MPI.INT, next, 110),
            world.iSend(new int[150_000], 150_000, MPI.INT, next, 110)};
        final Message m = new Message();
        final Status st = m.mProbe(prev, 110, world);
        expect(st.getCount(MPI.INT) == 3 && !m.isNull(), "mprobe " + st);
        // The probed message is ours: a receive on the same source and tag takes the next one.
        final int[] big = new int[150_000];
        final Request other = world.iRecv(big, big.length, MPI.INT, prev, 110);
        final int[] in = new int[3];
        final Status got = m.mRecv(in, 3, MPI.INT);
        expect(in[2] == 3 && got.getSource() == prev, "mrecv " + got);
        expect(other.waitStatus().getCount(MPI.INT) == 150_000, "the other receive got the large one");
        final Message m2 = new Message();
        final Request s2 = world.iSend(new int[] {9}, 1, MPI.INT, next, 112);
        Status p;
        while ((p = m2.imProbe(MPI.ANY_SOURCE, 112, world)) == null)
        {
            Thread.onSpinWait();
        }
        expect(p.getTag() == 112, "improbe");
        final int[] one = new int[1];
        m2.imRecv(one, 1, MPI.INT).waitFor();
        expect(one[0] == 9, "imrecv");
        final Message noProc = new Message();
        noProc.mProbe(MPI.PROC_NULL, 1, world);
        expect(noProc.isNoProc(), "probe of PROC_NULL");
        expect(noProc.mRecv(one, 1, MPI.INT).getSource() == MPI.PROC_NULL, "mrecv of no-proc");
        Request.waitAll(s);
        s2.waitFor();
    }

    @Test
    void waitTestFamily()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int[][] in = new int[3][1];
        final Request[] r = {
            world.iRecv(in[0], 1, MPI.INT, prev, 121), MPI.REQUEST_NULL,
            world.iRecv(in[1], 1, MPI.INT, prev, 122), world.iRecv(in[2], 1, MPI.INT, prev, 123)};
        // Nobody sends before the barrier: nothing can have arrived.
        expect(Request.testAny(r) == MPI.UNDEFINED, "nothing arrived yet");
        expect(!Request.testAll(r), "not all");
        expect(Request.testSome(r).length == 0, "none yet");
        world.barrier();
        world.send(new int[] {22}, 1, MPI.INT, next, 122);
        final Status any = Request.waitAnyStatus(r);
        expect(any.getIndex() == 2 && in[1][0] == 22 && r[2].isNull(), "waitAny index " + any.getIndex());
        world.barrier();
        world.send(new int[] {21}, 1, MPI.INT, next, 121);
        world.send(new int[] {23}, 1, MPI.INT, next, 123);
        final List<Integer> seen = new ArrayList<>();
        while (seen.size() < 2)
        {
            for (final int i : Request.waitSome(r))
            {
                seen.add(i);
            }
        }
        seen.sort(Integer::compare);
        expect(seen.equals(List.of(0, 3)), "waitSome indices " + seen);
        expect(Request.waitSome(r) == null, "all inactive: waitSome gives null");
        expect(Request.waitAny(r) == MPI.UNDEFINED, "all inactive: waitAny gives UNDEFINED");
        expect(in[0][0] == 21 && in[2][0] == 23, "data");
        final Request[] t = {world.iRecv(new int[1], 1, MPI.INT, prev, 124)};
        world.send(new int[] {24}, 1, MPI.INT, next, 124);
        Status[] all;
        while ((all = Request.testAllStatus(t)) == null)
        {
            Thread.onSpinWait();
        }
        expect(all[0].getTag() == 124, "testAll status");
    }

    @Test
    void cancel()
    {
        final Request r = world.iRecv(new int[1], 1, MPI.INT, MPI.ANY_SOURCE, 130);
        r.cancel();
        final Status st = r.waitStatus();
        expect(st.isCancelled(), "posted receive cancelled");
        final Request s = world.iSend(new int[1], 1, MPI.INT, rank, 131);
        s.waitFor();
        final Request late = world.iSend(new int[1], 1, MPI.INT, rank, 131);
        late.cancel();
        final Status ls = late.waitStatus();
        expect(!ls.isCancelled(), "an eager send already in the ring is not cancelled");
        world.recv(new int[1], 1, MPI.INT, rank, 131);
        world.recv(new int[1], 1, MPI.INT, rank, 131);
    }

    @Test
    void procNull()
    {
        final Request s = world.iSend(new int[1], 1, MPI.INT, MPI.PROC_NULL, 1);
        final Request r = world.iRecv(new int[1], 1, MPI.INT, MPI.PROC_NULL, 1);
        expect(s.test(), "PROC_NULL send completes at once");
        final Status st = r.testStatus();
        expect(st != null && st.getSource() == MPI.PROC_NULL && st.getTag() == MPI.ANY_TAG &&
            st.getCount(MPI.INT) == 0, "PROC_NULL receive status " + st);
        expect(world.sendRecv(new int[1], 1, MPI.INT, MPI.PROC_NULL, 1, new int[1], 1, MPI.INT, MPI.PROC_NULL, 1)
            .getSource() == MPI.PROC_NULL, "sendRecv with PROC_NULL");
    }

    @Test
    void pairTypes()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final ByteBuffer out = MPI.newByteBuffer(4 * 8);
        for (int i = 0; i < 4; i++)
        {
            out.putInt(i * 8, rank * 10 + i);
            out.putInt(i * 8 + 4, i);
        }
        final ByteBuffer in = MPI.newByteBuffer(4 * 8);
        final Status st = world.sendRecv(out, 4, MPI.INT2, next, 140, in, 4, MPI.INT2, prev, 140);
        expect(st.getCount(MPI.INT2) == 4 && st.getElements(MPI.INT2) == 8, "INT2 count " + st.getCount(MPI.INT2));
        expect(in.getInt(3 * 8) == prev * 10 + 3 && in.getInt(3 * 8 + 4) == 3, "INT2 data");
        final ByteBuffer dOut = MPI.newByteBuffer(2 * 16);
        dOut.putDouble(16, 2.5);
        dOut.putInt(24, 7);
        final ByteBuffer dIn = MPI.newByteBuffer(2 * 16);
        final Status ds = world.sendRecv(dOut, 2, MPI.DOUBLE_INT, next, 141, dIn, 2, MPI.DOUBLE_INT, prev, 141);
        expect(ds.getCount(MPI.DOUBLE_INT) == 2 && dIn.getDouble(16) == 2.5 && dIn.getInt(24) == 7, "DOUBLE_INT");
        final float[] c = {1, 2, 3, 4};
        final float[] cin = new float[4];
        final Status cs = world.sendRecv(c, 2, MPI.FLOAT_COMPLEX, next, 142, cin, 2, MPI.FLOAT_COMPLEX, prev, 142);
        expect(cs.getCount(MPI.FLOAT_COMPLEX) == 2 && cs.getElements(MPI.FLOAT_COMPLEX) == 4 && cin[3] == 4,
            "FLOAT_COMPLEX");
    }

    @Test
    void nonblockingErrors()
    {
        expectError(MPI.ERR_BUFFER, () -> world.iSend((java.nio.Buffer)null, 1, MPI.INT, 0, 0));
        expectError(MPI.ERR_BUFFER, () -> world.iRecv(new int[2], 3, MPI.INT, 0, 0));
        expectError(MPI.ERR_RANK, () -> world.iSend(new int[2], 2, MPI.INT, size, 0));
        expectError(MPI.ERR_RANK, () -> world.iRecv(new int[2], 2, MPI.INT, -7, 0));
        expectError(MPI.ERR_TAG, () -> world.isSend(new int[2], 2, MPI.INT, 0, -1));
        expectError(MPI.ERR_COUNT, () -> world.sendInit(new int[2], -2, MPI.INT, 0, 0));
        expectError(MPI.ERR_TYPE, () -> world.recvInit(new int[2], 2, MPI.DATATYPE_NULL, 0, 0));
        expectError(MPI.ERR_REQUEST, () -> Request.waitAll(null));
        expectError(MPI.ERR_REQUEST, () -> Request.waitAll(new Request[] {null}));
        expectError(MPI.ERR_REQUEST, () -> new Message().mRecv(new int[1], 1, MPI.INT));
        // Heap buffers are accepted (Open MPI refuses them in nonblocking calls).
        final IntBuffer heap = IntBuffer.allocate(4);
        final Request r = world.iRecv(heap, 4, MPI.INT, rank, 150);
        world.send(new int[] {1, 2, 3, 4}, 4, MPI.INT, rank, 150);
        r.waitFor();
        expect(heap.get(3) == 4, "heap IntBuffer in a nonblocking receive");
    }

    @Test
    void truncateNonblocking()
    {
        final byte[] small = new byte[10];
        final Request r = world.iRecv(small, 10, MPI.BYTE, rank, 160);
        world.send(new byte[100_000], 100_000, MPI.BYTE, rank, 160 - 0);
        expectError(MPI.ERR_TRUNCATE, r::waitFor);
        final Request r2 = world.iRecv(small, 10, MPI.BYTE, rank, 161);
        final Request s2 = world.iSend(new byte[20], 20, MPI.BYTE, rank, 161);
        expectError(MPI.ERR_IN_STATUS, () -> Request.waitAll(new Request[] {r2, s2}));
    }

    @Test
    void sendRecvReplace()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int[] buf = new int[100_000];
        Arrays.fill(buf, rank);
        final Status st = world.sendRecvReplace(buf, buf.length, MPI.INT, next, 170, prev, 170);
        expect(st.getSource() == prev && buf[0] == prev && buf[99_999] == prev, "sendRecvReplace");
    }

    @Test
    void detachedAndCallbacks() throws InterruptedException
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger received = new AtomicInteger();
        final int[][] in = new int[5][1];
        for (int i = 0; i < 5; i++)
        {
            final int k = i;
            world.iRecvDetached(in[i], 1, MPI.INT, prev, 180 + i, st ->
            {
                if (st.getTag() == 180 + k && in[k][0] == prev + k)
                {
                    received.incrementAndGet();
                }
            });
        }
        for (int i = 0; i < 5; i++)
        {
            world.iSendDetached(new int[] {rank + i}, 1, MPI.INT, next, 180 + i, st -> sent.incrementAndGet());
        }
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while ((sent.get() < 5 || received.get() < 5) && System.nanoTime() < deadline)
        {
            MPI.progress();
            Thread.yield();
        }
        expect(sent.get() == 5 && received.get() == 5, "callbacks: sent=" + sent + " received=" + received);
    }

    @Test
    void generalizedRequest() throws InterruptedException
    {
        final AtomicInteger freed = new AtomicInteger();
        final GRequest g = GRequest.start(st ->
        {
            st.setElements(MPI.INT, 42);
            st.setCancelled(false);
        }, freed::incrementAndGet, complete -> { });
        final int[] in = new int[1];
        final Request r = world.iRecv(in, 1, MPI.INT, rank, 190);
        final Thread t = new Thread(() ->
        {
            try
            {
                Thread.sleep(100);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            g.complete();
        });
        t.start();
        expect(!g.test(), "not complete before the application says so");
        world.send(new int[] {5}, 1, MPI.INT, rank, 190);
        final Status[] st = Request.waitAllStatus(new Request[] {r, g});
        t.join();
        expect(st[1].getCount(MPI.INT) == 42 && in[0] == 5, "query function filled the status");
        expect(freed.get() == 1 && g.isNull(), "free function once, request null");
    }

    @Test
    void peerCounters()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final PeerCounters before = world.getPeerCounters();
        world.sendRecv(new byte[1000], 1000, MPI.BYTE, next, 200, new byte[1000], 1000, MPI.BYTE, prev, 200);
        final PeerCounters after = world.getPeerCounters();
        expect(after.size() == size, "one entry per rank");
        expect(after.messagesSent(next) - before.messagesSent(next) == 1 &&
            after.bytesSent(next) - before.bytesSent(next) == 1000, "sent to next");
        expect(after.messagesReceived(prev) - before.messagesReceived(prev) == 1 &&
            after.bytesReceived(prev) - before.bytesReceived(prev) == 1000, "received from prev");
    }

    /** The engine's count of large messages received by one copy out of a sender's heap. */
    private static long sharedCopies() throws Exception
    {
        final java.lang.reflect.Method m = MPI.class.getDeclaredMethod("context");
        m.setAccessible(true);
        final Object context = m.invoke(null);
        final Object transport = context.getClass().getMethod("transport").invoke(context);
        return (Long)transport.getClass().getMethod("sharedCopies").invoke(transport);
    }

    /** Large messages from MPI.newXxxBuffer memory are copied once, straight out of the sender's heap. */
    @Test
    void sharedHeapSingleCopy() throws Exception
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final long before = sharedCopies();
        final int n = (1 << 20) + 3;
        final ByteBuffer out = MPI.newByteBuffer(n);
        for (int i = 0; i < n; i++)
        {
            out.put(i, (byte)(rank * 13 + i));
        }
        // Posted receive into an array.
        final byte[] in = new byte[n];
        world.sendRecv(out, n, MPI.BYTE, next, 210, in, n, MPI.BYTE, prev, 210);
        for (int i = 0; i < n; i++)
        {
            if (in[i] != (byte)(prev * 13 + i))
            {
                throw new AssertionError("byte " + i + " from the heap buffer of " + prev);
            }
        }
        // Unexpected first (probed before the receive is posted), into a heap IntBuffer view.
        final IntBuffer ints = MPI.newIntBuffer(100_000);
        for (int i = 0; i < 100_000; i++)
        {
            ints.put(i, rank * 1_000_000 + i);
        }
        final Request s = world.isSend(ints, 100_000, MPI.INT, next, 211);
        world.probe(prev, 211);
        final IntBuffer got = MPI.newIntBuffer(100_000);
        world.recv(got, 100_000, MPI.INT, prev, 211);
        s.waitFor();
        expect(got.get(0) == prev * 1_000_000 && got.get(99_999) == prev * 1_000_000 + 99_999, "IntBuffer view");
        // Truncation on this path too: nothing written past the receive.
        final byte[] small = new byte[200_000];
        final Request r = world.iRecv(small, 100_000, MPI.BYTE, prev, 212);
        final Request s2 = world.iSend(out, n, MPI.BYTE, next, 212);
        expectError(MPI.ERR_TRUNCATE, r::waitFor);
        s2.waitFor();
        expect(small[99_999] == (byte)(prev * 13 + 99_999) && small[100_000] == 0, "truncated single copy");
        expect(sharedCopies() - before == 3, "single copies: " + (sharedCopies() - before));
    }

    /** MPI allows any buffer, null included, with count 0: in every kind of send and receive. */
    @Test
    void nullBufferCountZero()
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        world.send(null, 0, MPI.INT, next, 220);
        Status st = world.recv(null, 0, MPI.INT, prev, 220);
        expect(st.getSource() == prev && st.getTag() == 220 && st.getCount(MPI.INT) == 0, "blocking " + st);
        // Nonblocking, through both overloads (a null literal picks the Buffer one).
        final Request[] nb = {
            world.iRecv(null, 0, MPI.INT, prev, 221), world.iRecv((Object)null, 0, MPI.INT, prev, 222),
            world.iSend(null, 0, MPI.INT, next, 221), world.isSend((Object)null, 0, MPI.INT, next, 222)};
        final Status[] all = Request.waitAllStatus(nb);
        expect(all[0].getSource() == prev && all[0].getCount(MPI.INT) == 0 && all[1].getTag() == 222, "nonblocking");
        // Persistent, started twice.
        final Prequest ps = world.sendInit(null, 0, MPI.BYTE, next, 223);
        final Prequest pr = world.recvInit(null, 0, MPI.BYTE, prev, 223);
        for (int i = 0; i < 2; i++)
        {
            Prequest.startAll(new Prequest[] {pr, ps});
            final Status[] p = Request.waitAllStatus(new Request[] {pr, ps});
            expect(p[0].getSource() == prev && p[0].getCount(MPI.BYTE) == 0, "persistent " + p[0]);
        }
        ps.free();
        pr.free();
        st = world.sendRecv(null, 0, MPI.INT, next, 224, null, 0, MPI.INT, prev, 224);
        expect(st.getSource() == prev && st.getCount(MPI.INT) == 0, "sendRecv " + st);
        st = world.sendRecvReplace(null, 0, MPI.INT, next, 225, prev, 225);
        expect(st.getSource() == prev && st.getCount(MPI.INT) == 0, "sendRecvReplace " + st);
        // Probe, then receive what the probe says: count 0 into null.
        world.send(null, 0, MPI.DOUBLE, next, 226);
        final Status probed = world.probe(prev, 226);
        expect(probed.getCount(MPI.DOUBLE) == 0, "probe " + probed);
        world.recv(null, probed.getCount(MPI.DOUBLE), MPI.DOUBLE, probed.getSource(), probed.getTag());
        world.send(null, 0, MPI.INT, next, 227);
        final Message m = new Message();
        m.mProbe(prev, 227, world);
        expect(m.mRecv(null, 0, MPI.INT).getSource() == prev, "mProbe, mRecv");
        // Buffered: a count-0 message takes only the overhead.
        MPI.attachBuffer(new byte[MPI.BSEND_OVERHEAD]);
        world.bSend(null, 0, MPI.INT, next, 228);
        world.recv(null, 0, MPI.INT, prev, 228);
        MPI.detachBuffer();
        // A message with data does not fit a count-0 receive; null with a count stays an error.
        world.send(new int[] {1}, 1, MPI.INT, next, 229);
        expectError(MPI.ERR_TRUNCATE, () -> world.recv(null, 0, MPI.INT, prev, 229));
        expectError(MPI.ERR_BUFFER, () -> world.send(null, 1, MPI.INT, next, 229));
        expectError(MPI.ERR_BUFFER, () -> world.recv(null, 1, MPI.INT, prev, 229));
        expectError(MPI.ERR_BUFFER, () -> world.iRecv(null, 2, MPI.INT, prev, 229));
        expectError(MPI.ERR_BUFFER, () -> world.sendInit((Object)null, 3, MPI.INT, next, 229));
        expectError(MPI.ERR_TYPE, () -> world.send(null, 0, MPI.DATATYPE_NULL, next, 229));
    }

    /**
     * MPI_REQUEST_FREE of an operation on MPI.newByteBuffer memory (a mapped segment, unmapped
     * by a Cleaner once unreachable): the buffer must stay reachable while the operation is
     * pending, even with no reference left in the program, and become collectable once it has
     * completed. Both a receive and a send (whose receiver copies straight out of the sender's
     * segment), 1 MiB each; the data is checked.
     */
    @Test
    void freedRequestKeepsBuffer() throws InterruptedException
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int n = 1 << 20;
        final WeakReference<ByteBuffer> recvRef = freedReceive(prev, n);
        final WeakReference<ByteBuffer> sendRef = freedSend(next, n);
        expect(collectGarbage(), "a full GC ran (its canary was cleared)");
        expect(recvRef.get() != null, "the buffer of a freed, pending receive was collected");
        expect(sendRef.get() != null, "the buffer of a freed, pending send was collected");
        world.barrier();
        final byte[] out = new byte[n];
        for (int i = 0; i < n; i++)
        {
            out[i] = (byte)(rank * 29 + i);
        }
        // Into next's freed receive; then a marker: once it arrives, that receive has completed.
        world.send(out, n, MPI.BYTE, next, 230);
        world.send(new int[1], 1, MPI.INT, next, 232);
        world.recv(new int[1], 1, MPI.INT, prev, 232);
        checkFreedReceive(recvRef, prev, n);
        // What prev's freed send carries, copied out of its segment.
        final byte[] in = new byte[n];
        world.recv(in, n, MPI.BYTE, prev, 231);
        for (int i = 0; i < n; i++)
        {
            if (in[i] != (byte)(prev * 31 + i))
            {
                throw new AssertionError("from a freed send: byte " + i + " = " + in[i]);
            }
        }
        expect(awaitCollected(recvRef), "the buffer of a completed freed receive is never collected");
        expect(awaitCollected(sendRef), "the buffer of a completed freed send is never collected");
    }

    /**
     * What this rank's freed receive got from prev, if its buffer is still there. In a method of
     * its own: a local holding the buffer in the caller's frame would keep it reachable for the
     * rest of the caller while that frame runs interpreted (the JVM keeps dead locals of
     * interpreted frames), and the check that it is collected would fail unless the JIT happened
     * to compile the caller in time (under -Xint it failed on every rank).
     */
    private static void checkFreedReceive(final WeakReference<ByteBuffer> recvRef, final int prev, final int n)
    {
        final ByteBuffer got = recvRef.get();
        if (got != null)
        {
            for (int i = 0; i < n; i++)
            {
                if (got.get(i) != (byte)(prev * 29 + i))
                {
                    throw new AssertionError("freed receive: byte " + i + " = " + got.get(i));
                }
            }
        }
    }

    /** Posts a receive into a fresh heap buffer, frees the request; only the engine can keep the buffer. */
    private WeakReference<ByteBuffer> freedReceive(final int source, final int n)
    {
        final ByteBuffer b = MPI.newByteBuffer(n);
        world.iRecv(b, n, MPI.BYTE, source, 230).free();
        return new WeakReference<>(b);
    }

    /** Starts a large send from a fresh heap buffer, frees the request. */
    private WeakReference<ByteBuffer> freedSend(final int dest, final int n)
    {
        final ByteBuffer b = MPI.newByteBuffer(n);
        for (int i = 0; i < n; i++)
        {
            b.put(i, (byte)(rank * 31 + i));
        }
        world.iSend(b, n, MPI.BYTE, dest, 231).free();
        return new WeakReference<>(b);
    }

    /** Runs full GCs until a fresh, unreferenced object is cleared (proof that one ran); false after 10 s. */
    private static boolean collectGarbage() throws InterruptedException
    {
        final WeakReference<Object> canary = new WeakReference<>(new Object());
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (canary.get() != null)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            System.gc();
            Thread.sleep(10);
        }
        return true;
    }

    /** Drives progress and GCs until {@code ref} is cleared; false after 20 s. */
    private static boolean awaitCollected(final WeakReference<?> ref) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (ref.get() != null)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            MPI.progress();
            System.gc();
            Thread.sleep(10);
        }
        return true;
    }
}
