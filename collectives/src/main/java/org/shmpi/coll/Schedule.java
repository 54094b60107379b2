package org.shmpi.coll;

import java.util.ArrayList;
import java.util.function.BooleanSupplier;

import org.agrona.UnsafeApi;
import org.shmpi.ring.EngineRequest;
import org.shmpi.ring.ExternalRequest;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ProgressAgent;
import org.shmpi.ring.SendRequest;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * An operation made of rounds of point-to-point transfers on internal contexts: each
 * {@link Step} posts sends and receives, and the step it returns runs once they have all
 * completed. The same steps serve a blocking call, which drives them inline
 * ({@link #runToCompletion}), and a nonblocking one, which hands them to the rank's progress
 * engine ({@link #start}) and returns {@link #request()}. Every collective algorithm is one,
 * and so is the context-id agreement of the communicator constructors, so that the blocking,
 * nonblocking and persistent forms of each share one implementation.
 *
 * <p>Steps run on whichever thread drives progress (with the progress lock held under
 * {@code THREAD_MULTIPLE}); they must not block and must not call user code.
 */
public final class Schedule implements ProgressAgent
{
    /** One round: post transfers with {@link #send}/{@link #recv}; return what runs after them, or null when done. */
    @FunctionalInterface
    public interface Step
    {
        Step run(Schedule s);
    }

    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private final RankContext ctx;
    private final String role;
    private final ArrayList<EngineRequest> pending = new ArrayList<>();
    private final ExternalRequest done = new ExternalRequest();
    private Step next;
    /** A condition on shared memory the current round also waits for (null: none). */
    private BooleanSupplier gate;
    private RuntimeException failure;

    public Schedule(final RankContext ctx, final String role, final Step first)
    {
        this.ctx = ctx;
        this.role = role;
        this.next = first;
    }

    /** Posts a send of {@code data} (which must stay untouched until the round ends) to world rank {@code dest}. */
    public void send(final int context, final int dest, final int tag, final byte[] data)
    {
        send(context, dest, tag, data, 0, data.length);
    }

    /** Posts a send of {@code data[offset, offset + length)} to world rank {@code dest}. */
    public void send(final int context, final int dest, final int tag, final byte[] data, final int offset,
        final int length)
    {
        pending.add(ctx.transport().isend(context, dest, tag, data, BYTES + offset, length, SendRequest.MODE_STANDARD));
    }

    /** Posts a receive of exactly {@code into.length} bytes from world rank {@code source}. */
    public void recv(final int context, final int source, final int tag, final byte[] into)
    {
        recv(context, source, tag, into, 0, into.length);
    }

    /** Posts a receive of {@code length} bytes into {@code into[offset, ...)} from world rank {@code source}. */
    public void recv(final int context, final int source, final int tag, final byte[] into, final int offset,
        final int length)
    {
        pending.add(ctx.transport().irecv(context, source, tag, into, BYTES + offset, length));
    }

    /**
     * Makes the current round also wait until {@code condition} holds: a condition on shared
     * memory (another member's flag), for the shared-memory algorithms. It must be a pure read.
     * While a round waits on one, the progress engine polls instead of sleeping until woken.
     */
    public void await(final BooleanSupplier condition)
    {
        gate = condition;
    }

    /**
     * Runs every step whose transfers have completed; true when the last one has run. A step
     * that throws, or a transfer that failed, ends the schedule with that failure.
     */
    public boolean advance()
    {
        while (next != null)
        {
            if (gate != null)
            {
                if (!gate.getAsBoolean())
                {
                    return false;
                }
                gate = null;
            }
            for (int i = 0; i < pending.size(); i++)
            {
                final EngineRequest r = pending.get(i);
                if (!r.isComplete())
                {
                    return false;
                }
                if (r.errorClass() != ErrorClass.SUCCESS)
                {
                    throw new ShmpiException(r.errorClass(), role + ": an internal transfer failed");
                }
            }
            pending.clear();
            next = next.run(this);
        }
        return true;
    }

    /** Drives the steps on the calling thread until the last has run; waits are recorded as {@code call}. */
    public void runToCompletion(final int call)
    {
        while (!advance())
        {
            if (gate != null)
            {
                ctx.progress().awaitShared(gate, call);
            }
            else
            {
                ctx.progress().await(firstIncomplete(), call);
            }
        }
    }

    /**
     * Runs what can run now and leaves the rest to the progress engine; {@link #request()}
     * completes when the last step has run (with the failure's class if one failed).
     */
    public void start()
    {
        if (advance())
        {
            ctx.progress().completeExternal(done, ErrorClass.SUCCESS);
            return;
        }
        ctx.progress().register(this);
    }

    /** Completes when a {@link #start started} schedule has finished. */
    public ExternalRequest request()
    {
        return done;
    }

    /** What ended the schedule, if a step or a transfer failed; null otherwise. */
    public RuntimeException failure()
    {
        return failure;
    }

    private EngineRequest firstIncomplete()
    {
        for (int i = 0; i < pending.size(); i++)
        {
            if (!pending.get(i).isComplete())
            {
                return pending.get(i);
            }
        }
        return done;
    }

    @Override
    public int doWork()
    {
        if (done.isComplete())
        {
            return 0;
        }
        final int before = pending.size();
        try
        {
            if (!advance())
            {
                return pending.size() != before ? 1 : 0;
            }
            ctx.progress().deregister(this);
            ctx.progress().completeExternal(done, ErrorClass.SUCCESS);
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
            ctx.progress().deregister(this);
            final int errorClass =
                ex instanceof ShmpiException ? ((ShmpiException)ex).errorClass() : ErrorClass.ERR_INTERN;
            ctx.progress().completeExternal(done, errorClass);
        }
        return 1;
    }

    @Override
    public boolean needsPolling()
    {
        return gate != null;
    }

    @Override
    public void describe(final StringBuilder out)
    {
        out.append("  ").append(role).append(": ").append(pending.size()).append(" transfers in the current round")
            .append(gate != null ? ", waiting on shared memory\n" : "\n");
    }

    @Override
    public String roleName()
    {
        return role;
    }
}
