package org.shmpi.io;

import java.util.ArrayDeque;

import org.agrona.UnsafeApi;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.RecvRequest;
import org.shmpi.ring.SendRequest;
import org.shmpi.ring.Transport;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * The shared words of a file whose members do not all share memory (they run on several
 * nodes): member 0 keeps them in fields of its own and serves the others' requests, which come
 * as messages on the file's private context. Its server is a progress agent: it runs on every
 * duty cycle of whatever MPI call member 0 is in (a wait in any blocking call, a test), so the
 * others' shared-pointer accesses and atomic-mode locks progress only while member 0 is inside
 * MPI calls, as MPI's progress rule allows; member 0's own accesses to the words run one duty
 * cycle too. Member 0's own calls change the fields directly, holding the progress lock as its
 * server does, so its accesses and the others' are applied one at a time in one order. Appends
 * do not reserve blocks ahead here.
 *
 * <p>Messages, all on the file's context, one request and one reply at a time per member:
 * <pre>
 * REQUEST_TAG  member -> member 0   0 long op | 8 long value
 * REPLY_TAG    member 0 -> member   0 long value
 *
 * ADD     value: etypes to add to the shared pointer   reply: the pointer before
 * GET                                                  reply: the pointer
 * LOCK    value: the holder word (world rank + 1)      reply (0) when the lock is the member's
 * UNLOCK                                               reply (0) once released
 * </pre>
 * Waiting lock requests are granted in arrival order, member 0's own among them.
 */
final class ServedWords implements SharedWords, ProgressAgent
{
    static final int ADD = 1;
    static final int GET = 2;
    static final int LOCK = 3;
    static final int UNLOCK = 4;

    static final int REQUEST_TAG = 1;
    static final int REPLY_TAG = 2;

    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    /** Member 0's own place in the queue of lock requests. */
    private static final int SELF = -1;

    private final RankContext ctx;
    private final Transport transport;
    private final int context;
    /** Member 0's world rank. */
    private final int server;
    /** Whether this is member 0, which keeps the words. */
    private final boolean serving;

    // Member 0's words and server: touched only with the progress lock held (its duty cycle, its own calls).
    private long pointer;
    /** The atomic-mode lock: 0, or the holder's world rank + 1. */
    private long holder;
    /** World ranks waiting for the lock, in arrival order ({@link #SELF}: member 0). */
    private final ArrayDeque<Integer> waiting = new ArrayDeque<>();
    private final byte[] header = new byte[16];
    private RecvRequest headerRecv;
    private byte[] replyBuffer = new byte[8];
    private SendRequest lastReply;
    private boolean stopped;
    /** Member 0's holder word while it waits for the lock in its queue. */
    private long selfHolder;

    // The other members' request in flight (one at a time: their calls hold this object's monitor).
    private final byte[] request = new byte[16];
    private final byte[] reply = new byte[8];

    private ServedWords(final RankContext ctx, final int context, final int server, final boolean serving)
    {
        this.ctx = ctx;
        this.transport = ctx.transport();
        this.context = context;
        this.server = server;
        this.serving = serving;
    }

    /**
     * The words of {@code members}' file, at open (every member, before the step that ends the
     * open): member 0 starts serving them, at pointer 0 with the lock free.
     */
    static ServedWords open(final RankContext ctx, final FileMembers members)
    {
        final ServedWords w = new ServedWords(ctx, members.context(), members.world()[0], members.rank() == 0);
        if (w.serving)
        {
            ctx.progress().register(w);
        }
        return w;
    }

    // ------------------------------------------------------------------------------------------
    // The words, as every member uses them

    @Override
    public long addToPointer(final long etypes)
    {
        if (!serving)
        {
            return ask(ADD, etypes);
        }
        final long was;
        ctx.progress().lock();
        try
        {
            was = pointer;
            pointer += etypes;
        }
        finally
        {
            ctx.progress().unlock();
        }
        serveWaiting();
        return was;
    }

    @Override
    public long pointer()
    {
        if (!serving)
        {
            return ask(GET, 0);
        }
        final long at;
        ctx.progress().lock();
        try
        {
            at = pointer;
        }
        finally
        {
            ctx.progress().unlock();
        }
        serveWaiting();
        return at;
    }

    @Override
    public void putPointer(final long etypes)
    {
        if (!serving)
        {
            throw new IllegalStateException("only member 0 puts the shared pointer");
        }
        ctx.progress().lock();
        try
        {
            pointer = etypes;
        }
        finally
        {
            ctx.progress().unlock();
        }
    }

    @Override
    public void lock(final long holderWord)
    {
        if (!serving)
        {
            // The reply comes when the lock is this member's.
            ask(LOCK, holderWord);
            return;
        }
        ctx.progress().lock();
        try
        {
            if (holder == 0 && waiting.isEmpty())
            {
                holder = holderWord;
                return;
            }
            selfHolder = holderWord;
            waiting.add(SELF);
        }
        finally
        {
            ctx.progress().unlock();
        }
        // The duty cycles of this wait serve the others' requests, among them the unlock that hands it on.
        ctx.progress().awaitUntil(() -> holder == holderWord && !waiting.contains(SELF), BlockedCall.OTHER, null);
    }

    @Override
    public void unlock()
    {
        if (!serving)
        {
            ask(UNLOCK, 0);
            return;
        }
        ctx.progress().lock();
        try
        {
            handOn();
        }
        finally
        {
            ctx.progress().unlock();
        }
        serveWaiting();
    }

    /**
     * Member 0, after an access of its own to the words: one duty cycle, so that the others'
     * requests are served while member 0 makes such calls one after another (appends in a loop)
     * and not only once it waits somewhere.
     */
    private void serveWaiting()
    {
        ctx.progress().progress();
    }

    @Override
    public boolean reservesAhead()
    {
        return false;
    }

    @Override
    public long reservedEnd()
    {
        return 0;
    }

    @Override
    public boolean raiseReservedEnd(final long have, final long want)
    {
        return false;
    }

    @Override
    public void forgetReserved()
    {
        // Nothing reserved ahead here.
    }

    /** Member 0 stops serving: every member has had its last answer (close's barrier, or a failed open). */
    @Override
    public void release()
    {
        if (!serving)
        {
            return;
        }
        ctx.progress().lock();
        try
        {
            stopped = true;
            ctx.progress().deregister(this);
            if (headerRecv != null && !headerRecv.isComplete())
            {
                transport.cancel(headerRecv);
            }
            headerRecv = null;
        }
        finally
        {
            ctx.progress().unlock();
        }
    }

    /** A member other than 0: one request to member 0 and its answer. */
    private synchronized long ask(final int op, final long value)
    {
        UnsafeApi.putLong(request, BYTES, op);
        UnsafeApi.putLong(request, BYTES + 8, value);
        final RecvRequest answer = transport.irecv(context, server, REPLY_TAG, reply, BYTES, 8);
        final SendRequest sent = transport.isend(context, server, REQUEST_TAG, request, BYTES, 16,
            SendRequest.MODE_STANDARD);
        ctx.progress().await(sent, BlockedCall.OTHER);
        ctx.progress().await(answer, BlockedCall.OTHER);
        final int failed = sent.errorClass() != ErrorClass.SUCCESS ? sent.errorClass() : answer.errorClass();
        if (failed != ErrorClass.SUCCESS)
        {
            throw new ShmpiException(failed, "the file's shared words: request " + op + " to member 0 (world rank " +
                server + ") failed");
        }
        return UnsafeApi.getLong(reply, BYTES);
    }

    // ------------------------------------------------------------------------------------------
    // Member 0's server

    @Override
    public String roleName()
    {
        return "file shared words";
    }

    @Override
    public void describe(final StringBuilder out)
    {
        out.append("  file shared words (context ").append(context).append("): pointer ").append(pointer)
            .append(", atomic lock ").append(holder == 0 ? "free" : "held by world rank " + (holder - 1))
            .append(", waiting ").append(waiting).append('\n');
    }

    @Override
    public int doWork()
    {
        int work = 0;
        while (!stopped)
        {
            if (headerRecv == null)
            {
                headerRecv = transport.irecv(context, RecvRequest.ANY_SOURCE, REQUEST_TAG, header, BYTES, 16);
            }
            if (!headerRecv.isComplete())
            {
                return work;
            }
            final RecvRequest done = headerRecv;
            headerRecv = null;
            if (done.errorClass() != ErrorClass.SUCCESS)
            {
                return work;
            }
            serve(done.source());
            work++;
        }
        return work;
    }

    private void serve(final int source)
    {
        final long op = UnsafeApi.getLong(header, BYTES);
        final long value = UnsafeApi.getLong(header, BYTES + 8);
        if (op == ADD)
        {
            final long was = pointer;
            pointer += value;
            answer(source, was);
        }
        else if (op == GET)
        {
            answer(source, pointer);
        }
        else if (op == LOCK)
        {
            if (holder == 0 && waiting.isEmpty())
            {
                holder = value;
                answer(source, 0);
            }
            else
            {
                waiting.add(source);
            }
        }
        else if (op == UNLOCK)
        {
            handOn();
            answer(source, 0);
        }
        else
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "file shared words: unknown request " + op +
                " from world rank " + source);
        }
    }

    /** The lock goes to the first waiting member, if any (the progress lock held). */
    private void handOn()
    {
        holder = 0;
        final Integer next = waiting.poll();
        if (next == null)
        {
            return;
        }
        if (next == SELF)
        {
            // Member 0's own wait sees it in its next duty cycle.
            holder = selfHolder;
        }
        else
        {
            holder = next + 1L;
            answer(next, 0);
        }
    }

    /** Sends {@code value} to world rank {@code dest}; a reply still in flight keeps its buffer. */
    private void answer(final int dest, final long value)
    {
        if (lastReply != null && !lastReply.isComplete())
        {
            replyBuffer = new byte[8];
        }
        UnsafeApi.putLong(replyBuffer, BYTES, value);
        lastReply = transport.isend(context, dest, REPLY_TAG, replyBuffer, BYTES, 8, SendRequest.MODE_STANDARD);
    }
}
