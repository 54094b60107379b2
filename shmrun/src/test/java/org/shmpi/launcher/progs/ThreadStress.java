package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import mpi.GRequest;
import mpi.MPI;
import mpi.Message;
import mpi.Request;
import mpi.Status;

/**
 * THREAD_MULTIPLE stress: several threads per rank send, receive, probe and wait at the same
 * time. Thread t of every rank talks on its own tags: each round it sends one message to every
 * rank (itself included) and receives one from every rank with ANY_SOURCE receives, probes,
 * matched probes and nonblocking calls mixed at random. The round is part of the tag: with
 * synchronous and rendezvous sends, an ANY_SOURCE receive that took a faster peer's next-round
 * message would leave this round's send unmatched (an unsafe program, not an MPI bug). Every message carries (sender,
 * thread, round) and a checksum; per sender, rounds must arrive in order.
 * Prints {@code THREADS OK rank=.. messages=..}.
 *
 * <p>Then a completion-callback stress ({@link #callbacks}): threads register
 * {@code Request.onComplete} callbacks while other threads' progress completes the operations,
 * and generalized requests are completed by a helper thread while they are being registered on.
 * FORBIDDEN outcomes: a callback lost, run twice, or run before its operation completed. Prints
 * {@code CALLBACKS OK rank=.. callbacks=..}.
 *
 * <p>Arguments: threads per rank (default 4), rounds (default 300).
 */
public final class ThreadStress
{
    private ThreadStress()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int provided = MPI.InitThread(args, MPI.THREAD_MULTIPLE);
        if (provided != MPI.THREAD_MULTIPLE)
        {
            throw new IllegalStateException("THREAD_MULTIPLE not provided: " + provided);
        }
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> workers = new ArrayList<>();
        final long[] counts = new long[threads];
        for (int t = 0; t < threads; t++)
        {
            final int tag = t;
            final Thread w = new Thread(() ->
            {
                try
                {
                    counts[tag] = work(rank, size, tag, rounds);
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    ex.printStackTrace();
                }
            }, "worker-" + t);
            workers.add(w);
            w.start();
        }
        for (final Thread w : workers)
        {
            w.join();
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("a worker failed", failure.get());
        }
        MPI.COMM_WORLD.barrier();
        long total = 0;
        for (final long c : counts)
        {
            total += c;
        }
        System.out.println("THREADS OK rank=" + rank + " messages=" + total);
        final int callbacks = callbacks(rank, size, threads, rounds);
        MPI.COMM_WORLD.barrier();
        System.out.println("CALLBACKS OK rank=" + rank + " callbacks=" + callbacks);
        MPI.Finalize();
    }

    /** Tags of the callback stress: above every tag of the message stress. */
    private static final int CALLBACK_TAG = 1_000_000;

    /**
     * Each thread, per round: a receive from the previous rank and a send to the next, both
     * registered on at a random moment (before or after another thread's progress may have
     * completed them), and a generalized request that a helper thread completes while it is
     * being registered on. Every callback must run exactly once, and never before completion.
     * Returns the number of callbacks that ran.
     */
    private static int callbacks(final int rank, final int size, final int threads, final int rounds)
        throws InterruptedException
    {
        final int next = (rank + 1) % size;
        final int prev = (rank + size - 1) % size;
        final int perThread = 3 * rounds;
        final AtomicIntegerArray runs = new AtomicIntegerArray(threads * perThread);
        final AtomicInteger early = new AtomicInteger();
        final AtomicInteger wrongData = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final LinkedBlockingQueue<Runnable> completions = new LinkedBlockingQueue<>();
        final Thread completer = new Thread(() ->
        {
            try
            {
                for (Runnable c = completions.take(); c != STOP; c = completions.take())
                {
                    c.run();
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "grequest-completer");
        completer.start();
        final List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            final Thread w = new Thread(() ->
            {
                try
                {
                    final Random rnd = new Random(rank * 7919L + thread);
                    for (int round = 0; round < rounds; round++)
                    {
                        final int tag = CALLBACK_TAG + thread * rounds + round;
                        final int at = thread * perThread + 3 * round;
                        final int[] in = new int[1];
                        final Request r = MPI.COMM_WORLD.iRecv(in, 1, MPI.INT, prev, tag);
                        final Request s = MPI.COMM_WORLD.iSend(new int[] {tag}, 1, MPI.INT, next, tag);
                        final AtomicBoolean done = new AtomicBoolean();
                        final GRequest g = GRequest.start(null, null, null);
                        completions.add(() ->
                        {
                            done.set(true);
                            g.complete();
                        });
                        pause(rnd);
                        r.onComplete(st ->
                        {
                            if (in[0] != tag || st.getTag() != tag || st.getSource() != prev)
                            {
                                wrongData.incrementAndGet();
                            }
                            runs.incrementAndGet(at);
                        });
                        pause(rnd);
                        s.onComplete(st -> runs.incrementAndGet(at + 1));
                        g.onComplete(st ->
                        {
                            if (!done.get())
                            {
                                early.incrementAndGet();
                            }
                            runs.incrementAndGet(at + 2);
                        });
                    }
                    // Drive progress until every callback of this thread has run (or 60 s passed).
                    final long deadline = System.nanoTime() + 60_000_000_000L;
                    while (!allRan(runs, thread * perThread, perThread) && System.nanoTime() - deadline < 0)
                    {
                        MPI.progress();
                        Thread.yield();
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    ex.printStackTrace();
                }
            }, "callbacks-" + t);
            workers.add(w);
            w.start();
        }
        for (final Thread w : workers)
        {
            w.join();
        }
        completions.add(STOP);
        completer.join();
        if (failure.get() != null)
        {
            throw new IllegalStateException("a callback worker failed", failure.get());
        }
        // Let any late (duplicate) callback run before counting.
        for (int i = 0; i < 100; i++)
        {
            MPI.progress();
        }
        int ran = 0;
        for (int i = 0; i < runs.length(); i++)
        {
            final int n = runs.get(i);
            if (n != 1)
            {
                throw new IllegalStateException("rank " + rank + ": callback " + i + " (thread " + i / perThread +
                    ", round " + i % perThread / 3 + ", kind " + i % 3 + ") ran " + n + " times");
            }
            ran += n;
        }
        if (early.get() != 0 || wrongData.get() != 0)
        {
            throw new IllegalStateException("rank " + rank + ": " + early.get() + " generalized-request callbacks " +
                "ran before complete(), " + wrongData.get() + " receive callbacks saw wrong data or status");
        }
        return ran;
    }

    private static final Runnable STOP = () -> { };

    /** Sometimes nothing, sometimes a little progress or spinning: lets the completion race the registration. */
    private static void pause(final Random rnd)
    {
        switch (rnd.nextInt(3))
        {
            case 0:
                break;
            case 1:
                MPI.progress();
                break;
            default:
                for (int i = rnd.nextInt(2_000); i > 0; i--)
                {
                    Thread.onSpinWait();
                }
                break;
        }
    }

    private static boolean allRan(final AtomicIntegerArray runs, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            if (runs.get(i) == 0)
            {
                return false;
            }
        }
        return true;
    }

    private static int length(final Random rnd)
    {
        final int p = rnd.nextInt(100);
        return p < 3 ? 70_000 + rnd.nextInt(200_000) : p < 10 ? 2_000 + rnd.nextInt(10_000) : 16 + rnd.nextInt(100);
    }

    private static void fill(final ByteBuffer b, final int src, final int tag, final int round, final int n)
    {
        b.putInt(0, src);
        b.putInt(4, tag);
        b.putInt(8, round);
        b.putInt(12, n);
        for (int i = 16; i < n; i++)
        {
            b.put(i, (byte)(src * 31 + tag * 17 + round * 7 + i));
        }
    }

    private static void verify(final ByteBuffer b, final Status st, final int me, final int tag, final int[] next)
    {
        final int src = b.getInt(0);
        final int round = b.getInt(8);
        final int n = b.getInt(12);
        if (src != st.getSource() || b.getInt(4) != tag || st.getTag() != tag || st.getCount(MPI.BYTE) != n)
        {
            throw new IllegalStateException("rank " + me + " tag " + tag + ": bad header from " + st);
        }
        if (round != next[src])
        {
            throw new IllegalStateException("rank " + me + " tag " + tag + ": round " + round + " from " + src +
                " where " + next[src] + " was due");
        }
        next[src]++;
        for (int i = 16; i < n; i++)
        {
            if (b.get(i) != (byte)(src * 31 + tag * 17 + round * 7 + i))
            {
                throw new IllegalStateException("rank " + me + " tag " + tag + ": byte " + i + " corrupted");
            }
        }
    }

    private static long work(final int me, final int size, final int thread, final int rounds)
    {
        final Random rnd = new Random(me * 1000L + thread);
        final int[] next = new int[size];
        final ByteBuffer in = MPI.newByteBuffer(300_000);
        long messages = 0;
        for (int round = 0; round < rounds; round++)
        {
            final int tag = thread * 100_000 + round;
            final List<Request> sends = new ArrayList<>();
            for (int p = 0; p < size; p++)
            {
                final int n = length(new Random(p * 7_000_003L + thread * 1009L + round));
                final ByteBuffer out = MPI.newByteBuffer(n);
                fill(out, me, tag, round, n);
                sends.add(rnd.nextBoolean() ? MPI.COMM_WORLD.iSend(out, n, MPI.BYTE, p, tag) :
                    MPI.COMM_WORLD.isSend(out, n, MPI.BYTE, p, tag));
            }
            for (int k = 0; k < size; k++)
            {
                final Status st;
                switch (rnd.nextInt(4))
                {
                    case 0:
                        st = MPI.COMM_WORLD.recv(in, in.capacity(), MPI.BYTE, MPI.ANY_SOURCE, tag);
                        break;
                    case 1:
                        st = MPI.COMM_WORLD.iRecv(in, in.capacity(), MPI.BYTE, MPI.ANY_SOURCE, tag).waitStatus();
                        break;
                    case 2:
                    {
                        final Message m = new Message();
                        m.mProbe(MPI.ANY_SOURCE, tag, MPI.COMM_WORLD);
                        st = m.mRecv(in, in.capacity(), MPI.BYTE);
                        break;
                    }
                    default:
                    {
                        final Status probed = MPI.COMM_WORLD.probe(MPI.ANY_SOURCE, tag);
                        // No other thread uses our tags, so the probed message is still ours.
                        st = MPI.COMM_WORLD.recv(in, in.capacity(), MPI.BYTE, probed.getSource(), tag);
                        if (st.getSource() != probed.getSource())
                        {
                            throw new IllegalStateException("probe and receive disagree");
                        }
                        break;
                    }
                }
                verify(in, st, me, tag, next);
                messages++;
            }
            Request.waitAll(sends.toArray(new Request[0]));
        }
        for (int p = 0; p < size; p++)
        {
            if (next[p] != rounds)
            {
                throw new IllegalStateException(
                    "rank " + me + " thread " + thread + ": " + next[p] + " rounds from " + p);
            }
        }
        return messages;
    }
}
