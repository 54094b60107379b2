package org.shmpi.launcher.progs;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * Randomized point-to-point stress: every rank sends a seeded random sequence of messages (random
 * destinations, tags, sizes from empty to 1 MiB, and send modes) and receives with random
 * ANY_SOURCE or specific-source receives, always ANY_TAG. Every rank can regenerate every
 * sender's plan, so each receiver checks every message's size and every byte, and that messages
 * of each sender arrive in send order. Prints {@code STRESS OK rank=.. received=..} or fails.
 *
 * <p>Arguments: messages per rank (default 25000), seed.
 */
public final class Stress
{
    private static final int MAX = 1 << 20;
    private static final int WINDOW = 16;

    private Stress()
    {
    }

    /** One planned message. */
    private static final class Msg
    {
        final int dest;
        final int tag;
        final int size;
        final int mode;

        Msg(final int dest, final int tag, final int size, final int mode)
        {
            this.dest = dest;
            this.tag = tag;
            this.size = size;
            this.mode = mode;
        }
    }

    static List<Msg> plan(final int sender, final int size, final int count, final long seed)
    {
        final Random rnd = new Random(seed * 31 + sender);
        final List<Msg> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int dest = rnd.nextInt(size);
            final int tag = rnd.nextInt(1000);
            final int p = rnd.nextInt(1000);
            final int bytes = p < 5 ? 65_536 + rnd.nextInt(MAX - 65_536 + 1) : p < 60 ? 4_096 + rnd.nextInt(61_441) :
                p < 80 ? 0 : 8 + rnd.nextInt(249);
            // 0 send, 1 iSend, 2 isSend, 3 bSend, 4 sSend-nonblocking-only, for small eager messages blocking ones.
            final int mode = rnd.nextInt(4);
            out.add(new Msg(dest, tag, bytes, mode));
        }
        return out;
    }

    static void fill(final byte[] buf, final int src, final int dest, final int seq, final int size)
    {
        long x = (((long)src << 40) ^ ((long)dest << 20) ^ seq) * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < size; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            buf[i] = (byte)x;
        }
        if (size >= 4)
        {
            buf[0] = (byte)seq;
            buf[1] = (byte)(seq >>> 8);
            buf[2] = (byte)(seq >>> 16);
            buf[3] = (byte)(seq >>> 24);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int count = args.length > 0 ? Integer.parseInt(args[0]) : 25_000;
        final long seed = args.length > 1 ? Long.parseLong(args[1]) : 12345;
        MPI.attachBuffer(new byte[8 << 20]);

        // What each sender sends to me, in order (sizes by sequence number per sender).
        final List<List<Msg>> plans = new ArrayList<>();
        final List<List<Integer>> toMe = new ArrayList<>();
        int expected = 0;
        for (int s = 0; s < size; s++)
        {
            final List<Msg> p = plan(s, size, count, seed);
            plans.add(p);
            final List<Integer> sizes = new ArrayList<>();
            for (final Msg m : p)
            {
                if (m.dest == rank)
                {
                    sizes.add(m.size);
                }
            }
            toMe.add(sizes);
            expected += sizes.size();
        }
        final List<Msg> mine = plans.get(rank);
        final int[] seqTo = new int[size];
        final int[] nextFrom = new int[size];
        final int[] postedFrom = new int[size];
        final Random rnd = new Random(seed ^ rank);

        final Request[] sends = new Request[WINDOW];
        final Object[] sendBufs = new Object[WINDOW];
        final Request[] recvs = new Request[WINDOW];
        final long[] recvOrder = new long[WINDOW];
        final List<long[]> records = new ArrayList<>();
        final byte[][] recvBufs = new byte[WINDOW][];
        for (int i = 0; i < WINDOW; i++)
        {
            sends[i] = MPI.REQUEST_NULL;
            recvs[i] = MPI.REQUEST_NULL;
            recvBufs[i] = new byte[MAX];
        }
        int nextSend = 0;
        int posted = 0;
        int received = 0;
        int anyPosted = 0;
        final byte[] expectBuf = new byte[MAX];
        while (nextSend < mine.size() || received < expected || activeCount(sends) > 0)
        {
            // Start sends into free window slots.
            for (int i = 0; i < WINDOW && nextSend < mine.size(); i++)
            {
                if (!sends[i].isNull())
                {
                    continue;
                }
                final Msg m = mine.get(nextSend++);
                final byte[] buf = new byte[m.size];
                fill(buf, rank, m.dest, seqTo[m.dest]++, m.size);
                final boolean small = m.size <= 256;
                switch (m.mode)
                {
                    case 0:
                        if (small)
                        {
                            MPI.COMM_WORLD.send(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        }
                        else
                        {
                            sends[i] = MPI.COMM_WORLD.iSend(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        }
                        break;
                    case 1:
                        sends[i] = MPI.COMM_WORLD.iSend(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        break;
                    case 2:
                        sends[i] = MPI.COMM_WORLD.isSend(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        break;
                    default:
                        if (small)
                        {
                            MPI.COMM_WORLD.bSend(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        }
                        else
                        {
                            sends[i] = MPI.COMM_WORLD.iSend(buf, m.size, MPI.BYTE, m.dest, m.tag);
                        }
                        break;
                }
                sendBufs[i] = buf;
            }
            // Post receives into free slots: ANY_SOURCE, or a specific source that still owes messages.
            for (int i = 0; i < WINDOW && posted < expected; i++)
            {
                if (!recvs[i].isNull())
                {
                    continue;
                }
                int source = MPI.ANY_SOURCE;
                if (rnd.nextInt(3) == 0)
                {
                    final int s = rnd.nextInt(size);
                    // Only when every outstanding message of s is certainly covered.
                    if (postedFrom[s] + anyPosted < toMe.get(s).size())
                    {
                        source = s;
                    }
                }
                if (source == MPI.ANY_SOURCE)
                {
                    anyPosted++;
                }
                else
                {
                    postedFrom[source]++;
                }
                recvs[i] = MPI.COMM_WORLD.iRecv(recvBufs[i], MAX, MPI.BYTE, source, MPI.ANY_TAG);
                recvOrder[i] = posted;
                posted++;
            }
            final Status[] done = Request.testSomeStatus(recvs);
            if (done != null)
            {
                for (final Status st : done)
                {
                    final int src = st.getSource();
                    final int n = st.getCount(MPI.BYTE);
                    final byte[] got = recvBufs[st.getIndex()];
                    int seq = -1;
                    if (n >= 4)
                    {
                        seq = (got[0] & 0xFF) | (got[1] & 0xFF) << 8 | (got[2] & 0xFF) << 16 | (got[3] & 0xFF) << 24;
                        if (seq < 0 || seq >= toMe.get(src).size() || toMe.get(src).get(seq) != n)
                        {
                            throw new IllegalStateException("rank " + rank + ": message " + seq + " from " + src +
                                " has " + n + " bytes, which no planned message has");
                        }
                        fill(expectBuf, src, rank, seq, n);
                        if (!java.util.Arrays.equals(expectBuf, 0, n, got, 0, n))
                        {
                            throw new IllegalStateException("rank " + rank + ": message " + seq + " from " + src +
                                " corrupted");
                        }
                    }
                    records.add(new long[] {recvOrder[st.getIndex()], src, seq, n});
                    nextFrom[src]++;
                    received++;
                }
            }
            Request.testSome(sends);
            for (int i = 0; i < WINDOW; i++)
            {
                if (sends[i].isNull())
                {
                    sendBufs[i] = null;
                }
            }
            if (done == null || done.length == 0)
            {
                Thread.yield();
            }
        }
        // Non-overtaking: per source, the receives in posting order got that source's messages in send order.
        records.sort((a, b) -> Long.compare(a[0], b[0]));
        final int[] position = new int[size];
        for (final long[] r : records)
        {
            final int src = (int)r[1];
            final int at = position[src]++;
            final boolean ok = r[2] >= 0 ? r[2] == at : toMe.get(src).get(at) == r[3];
            if (!ok)
            {
                throw new IllegalStateException("rank " + rank + ": receive #" + r[0] + " got message " + r[2] +
                    " (" + r[3] + " bytes) from " + src + " where message " + at + " was due: overtaken");
            }
        }
        for (int s = 0; s < size; s++)
        {
            if (nextFrom[s] != toMe.get(s).size())
            {
                throw new IllegalStateException("rank " + rank + ": got " + nextFrom[s] + " of " +
                    toMe.get(s).size() + " from " + s);
            }
        }
        MPI.detachBuffer();
        MPI.COMM_WORLD.barrier();
        System.out.println("STRESS OK rank=" + rank + " sent=" + mine.size() + " received=" + received);
        MPI.Finalize();
    }

    private static int activeCount(final Request[] rs)
    {
        int n = 0;
        for (final Request r : rs)
        {
            if (!r.isNull())
            {
                n++;
            }
        }
        return n;
    }
}
