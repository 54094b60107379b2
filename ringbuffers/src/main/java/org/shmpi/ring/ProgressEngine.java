package org.shmpi.ring;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.shmpi.shm.BackoffIdler;
import org.shmpi.shm.BlockedCall;
import org.shmpi.shm.JobFile;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.WakeWord;

/**
 * A rank's progress engine: a duty cycle over registered {@link ProgressAgent}s, driven inline by
 * blocking calls and by {@link #progress()}; idling between cycles (spin, yield, then sleep on
 * the rank's wake word, which senders wake); the lock that serializes the engines in
 * THREAD_MULTIPLE mode; and request completion ({@link #completion()}), whose callbacks run after
 * the lock is released.
 *
 * <p><b>Threads</b>: without {@code threadSafe}, one thread at a time drives progress (MPI thread
 * levels up to SERIALIZED) and there is no lock. With it (THREAD_MULTIPLE) every entry point of
 * every engine takes {@link #lock()}; a thread that waits releases it while idling; one waiting
 * thread at a time sleeps on the wake word, the others park and are unparked when requests
 * complete.
 */
public final class ProgressEngine
{
    private final JobFile job;
    private final WakeWord wakeWord;
    private final BooleanSupplier inboxPending;
    private final ReentrantLock lock;
    private final RequestCompletion completion;
    private final BackoffIdler singleIdler;
    private final ThreadLocal<BackoffIdler> idlers;
    /** Every idler made, for the job report's counts. */
    private final List<BackoffIdler> allIdlers = new CopyOnWriteArrayList<>();
    private volatile boolean countingIdles;
    /** Told of every wait that idled long enough to be recorded (the job report), or null. */
    private volatile WaitListener waitListener;
    /** Copy-on-write under the lock: the duty cycle iterates it without allocating. */
    private ProgressAgent[] agents = new ProgressAgent[0];
    private volatile Thread futexSleeper;
    private final Set<Thread> parked = ConcurrentHashMap.newKeySet();
    /**
     * Idle steps (spins, at first) before a wait is recorded: a wait that ends within them, a
     * ping-pong's receive say, is over in microseconds and costs not even the record's stores.
     */
    static final int RECORD_AFTER_IDLES = 64;
    /** The job file slot that waits are recorded in; -1: none (engine tests without a rank). */
    private int recordRank = -1;
    /** The thread whose wait the slot shows (under the lock); null: the slot shows none. */
    private Thread recordOwner;
    private volatile Snapshot snapshot;

    /** A status request from the rank's watchdog, answered by a thread that drives progress. */
    private static final class Snapshot
    {
        volatile String text;
    }

    /**
     * @param job          the job file (its abort word ends every wait)
     * @param wakeWord     the word this rank sleeps on, which producers wake
     * @param inboxPending whether work arrived (checked after announcing sleep)
     */
    public ProgressEngine(
        final JobFile job, final WakeWord wakeWord, final BooleanSupplier inboxPending, final ShmpiConfig config,
        final boolean threadSafe)
    {
        this.job = job;
        this.wakeWord = wakeWord;
        this.inboxPending = inboxPending;
        this.lock = threadSafe ? new ReentrantLock() : null;
        this.completion = new RequestCompletion(threadSafe);
        this.singleIdler = threadSafe ? null : BackoffIdler.from(config);
        this.idlers = threadSafe ? ThreadLocal.withInitial(() -> newIdler(config)) : null;
        if (singleIdler != null)
        {
            allIdlers.add(singleIdler);
        }
        this.sharedSpins = config.oversubscribed() ? 0 : SHARED_SPINS;
        this.oversubscribed = config.oversubscribed();
    }

    /** Whether the job has more ranks than cores ({@code shmpi.oversubscribed}, set by shmrun alike on every rank). */
    public boolean oversubscribed()
    {
        return oversubscribed;
    }

    /**
     * Reads of a shared-memory condition before {@link #awaitShared} enters the duty-cycle loop,
     * when the ranks do not outnumber the cores (with more ranks than cores a spinning waiter
     * holds the core its peer needs, so then none). About 2-4 us of reads here.
     */
    static final int SHARED_SPINS = 1_000;
    private final int sharedSpins;
    private final boolean oversubscribed;

    /** Completing requests: every engine of this rank completes its requests through this. */
    public RequestCompletion completion()
    {
        return completion;
    }

    public boolean isThreadSafe()
    {
        return lock != null;
    }

    /** Adds an agent to the duty cycle. */
    public void register(final ProgressAgent agent)
    {
        lock();
        try
        {
            final ProgressAgent[] next = Arrays.copyOf(agents, agents.length + 1);
            next[agents.length] = agent;
            agents = next;
        }
        finally
        {
            unlock();
        }
    }

    /** Removes an agent from the duty cycle; whether it was registered. */
    public boolean deregister(final ProgressAgent agent)
    {
        lock();
        try
        {
            for (int i = 0; i < agents.length; i++)
            {
                if (agents[i] == agent)
                {
                    final ProgressAgent[] next = new ProgressAgent[agents.length - 1];
                    System.arraycopy(agents, 0, next, 0, i);
                    System.arraycopy(agents, i + 1, next, i, agents.length - i - 1);
                    agents = next;
                    return true;
                }
            }
            return false;
        }
        finally
        {
            unlock();
        }
    }

    /** Takes the engines' lock (THREAD_MULTIPLE only; a no-op otherwise). Entry points never nest. */
    public void lock()
    {
        if (lock != null)
        {
            lock.lock();
        }
    }

    public void unlock()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }

    /** Runs completion callbacks queued so far, unless this thread holds the lock. */
    public void runCallbacks()
    {
        if (completion.hasCallbacks() && (lock == null || !lock.isHeldByCurrentThread()))
        {
            completion.runCallbacks();
        }
    }

    /** One duty cycle from outside: progress, then run completion callbacks. Returns work done. */
    public int progress()
    {
        final int work;
        lock();
        try
        {
            work = progressLocked();
            answerSnapshot();
        }
        finally
        {
            unlock();
        }
        runCallbacks();
        return work;
    }

    /** One duty cycle over every agent, with the lock held. */
    public int progressLocked()
    {
        int work = 0;
        final ProgressAgent[] a = agents;
        for (int i = 0; i < a.length; i++)
        {
            work += a[i].doWork();
        }
        if (completion.takeCompletions() > 0 && lock != null)
        {
            wakeWaiters();
        }
        return work;
    }

    /**
     * Records the calls this rank blocks in, in slot {@code rank} of the job file (see
     * {@link JobFile#recordWait}): a few plain stores when a wait starts to idle, none when it
     * completes at once.
     */
    public void recordWaitsAs(final int rank)
    {
        recordRank = rank;
    }

    /** Blocks until {@code request} completes, driving progress and idling between cycles. */
    public void await(final EngineRequest request)
    {
        if (!request.complete)
        {
            waitLoop(request, null, request.blockedCall(), request, 0, 0, 0, 0, null);
        }
    }

    /** As {@link #await(EngineRequest)}, recorded as MPI call {@code call} ({@link BlockedCall}). */
    public void await(final EngineRequest request, final int call)
    {
        if (!request.complete)
        {
            waitLoop(request, null, call, request, 0, 0, 0, 0, null);
        }
    }

    /**
     * Blocks until {@code done} is true, driving progress. {@code done} is evaluated with the
     * engines' state consistent (under the lock in thread-safe mode).
     */
    public void awaitUntil(final BooleanSupplier done)
    {
        waitLoop(null, done, BlockedCall.OTHER, null, BlockedCall.ON_OTHER, BlockedCall.NO_PEER, 0, -1, null);
    }

    /**
     * Blocks until {@code condition} holds, where the condition reads memory that other ranks
     * write directly (flags of a shared-memory collective) rather than messages. It must be pure
     * (no side effects: it is also evaluated outside the lock) and its writers must wake this
     * rank after publishing ({@code PointToPointEngine.wakeRank}): the condition is re-checked
     * after the sleep is announced, so such a wake-up is never lost.
     */
    /**
     * How many times {@link #awaitShared} reads its condition alone before its duty-cycle loop:
     * 0 when the ranks outnumber the cores. A caller that spins on a condition of its own first
     * (to do something once it holds or once it stops spinning) spins as long.
     */
    public int sharedSpins()
    {
        return sharedSpins;
    }

    private final ThreadLocal<SharedWakeCheck> sharedWakeChecks = ThreadLocal.withInitial(SharedWakeCheck::new);

    public void awaitShared(final BooleanSupplier condition, final int call)
    {
        // A shared flag usually flips within a cache-line transfer or two of the peer's write:
        // watch it alone first (no duty cycle between reads), when every rank has a core of its
        // own. A bounded spin: what the peer needs from this rank (ring space, an answer) is
        // served by the duty cycles of the loop below.
        for (int i = 0; i < sharedSpins; i++)
        {
            if (condition.getAsBoolean())
            {
                return;
            }
            Thread.onSpinWait();
        }
        // The sleeper's wake check (frames in the inbox, or the condition) is this thread's own
        // reusable object, not a capturing lambda: a wait allocates nothing.
        final SharedWakeCheck wakeCheck = sharedWakeChecks.get();
        final BooleanSupplier outer = wakeCheck.condition;
        wakeCheck.condition = condition;
        try
        {
            waitLoop(null, condition, call, null, BlockedCall.ON_OTHER, BlockedCall.NO_PEER, 0, -1, wakeCheck);
        }
        finally
        {
            wakeCheck.condition = outer;
        }
    }

    /** Whether a thread waiting on a shared condition has something to do: inbox frames, or the condition. */
    private final class SharedWakeCheck implements BooleanSupplier
    {
        private BooleanSupplier condition;

        @Override
        public boolean getAsBoolean()
        {
            return inboxPending.getAsBoolean() || condition.getAsBoolean();
        }
    }

    /**
     * As {@link #awaitUntil(BooleanSupplier)}, recorded as MPI call {@code call} waiting on
     * {@code on} (e.g. the first request of a waitall not yet complete; null: on nothing named).
     */
    public void awaitUntil(final BooleanSupplier done, final int call, final EngineRequest on)
    {
        waitLoop(null, done, call, on, BlockedCall.ON_OTHER, BlockedCall.NO_PEER, 0, -1, null);
    }

    /**
     * As {@link #awaitUntil(BooleanSupplier)}, recorded as MPI call {@code call} waiting for
     * {@code on} ({@code BlockedCall.ON_*}) with {@code peer} (world rank), {@code tag} and
     * {@code context}, e.g. a probe.
     */
    public void awaitUntil(
        final BooleanSupplier done, final int call, final int on, final int peer, final int tag, final int context)
    {
        waitLoop(null, done, call, null, on, peer, tag, context, null);
    }

    /**
     * The one wait loop: until {@code request} is complete (when given: a field read, no lambda on
     * the hot path) or {@code done} is true, run duty cycles, and idle when one did nothing. After
     * {@link #RECORD_AFTER_IDLES} idle steps it records the wait ({@code call}, and
     * {@code onRequest}'s peer, tag, context and size, else the given ones) in the rank's slot;
     * it clears the record on the way out. While idling it answers status requests.
     * {@code wakeCheck} (may be null): what, besides the inbox, must keep it from sleeping.
     */
    private void waitLoop(
        final EngineRequest request, final BooleanSupplier done, final int call, final EngineRequest onRequest,
        final int on, final int peer, final int tag, final int context, final BooleanSupplier wakeCheck)
    {
        final BackoffIdler idler = idler();
        idler.reset();
        boolean recorded = false;
        long since = 0;
        int idles = 0;
        lock();
        try
        {
            while (!(request != null ? request.complete : done.getAsBoolean()))
            {
                if (progressLocked() > 0)
                {
                    idler.reset();
                    drainCallbacks();
                    continue;
                }
                if (request != null ? request.complete : done.getAsBoolean())
                {
                    break;
                }
                if (!recorded && ++idles > RECORD_AFTER_IDLES && recordRank >= 0 && recordOwner == null)
                {
                    recordOwner = Thread.currentThread();
                    recorded = true;
                    since = System.nanoTime();
                    if (onRequest != null)
                    {
                        job.recordWait(recordRank, call, onRequest.waitOn(), onRequest.waitPeer(), onRequest.waitTag(),
                            onRequest.waitContext(), onRequest.waitBytes(), since);
                    }
                    else
                    {
                        job.recordWait(recordRank, call, on, peer, tag, context, 0, since);
                    }
                }
                idle(idler, wakeCheck);
                answerSnapshot();
                checkAborted();
            }
        }
        finally
        {
            if (recorded)
            {
                recordOwner = null;
                job.clearWait(recordRank);
                final WaitListener l = waitListener;
                if (l != null)
                {
                    l.waited(onRequest != null ? onRequest.waitPeer() : peer, System.nanoTime() - since);
                }
            }
            unlock();
        }
        runCallbacks();
    }

    /**
     * Watchdog thread: asks a thread that drives progress to describe the agents' outstanding
     * work ({@link ProgressAgent#describe}), waking it if it sleeps.
     *
     * @return the description, or null when no thread drove progress within {@code timeoutMs}
     *         (nobody is inside an MPI call)
     */
    public String describe(final long timeoutMs)
    {
        final Snapshot request = new Snapshot();
        snapshot = request;
        wake();
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (request.text == null && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(500_000);
        }
        snapshot = null;
        return request.text;
    }

    /** With the lock held: answers a pending status request. One volatile read when none is. */
    private void answerSnapshot()
    {
        final Snapshot request = snapshot;
        if (request != null && request.text == null)
        {
            final StringBuilder out = new StringBuilder(256);
            final ProgressAgent[] a = agents;
            for (int i = 0; i < a.length; i++)
            {
                a[i].describe(out);
            }
            request.text = out.toString();
        }
    }

    /**
     * Completes an operation that no engine runs (a generalized request), from any thread: marks
     * it complete, runs its callback on the calling thread, and wakes every waiting thread of this
     * rank. Returns false when it was already complete.
     */
    public boolean completeExternal(final ExternalRequest request, final int errorClass)
    {
        if (!request.finish(errorClass))
        {
            return false;
        }
        wake();
        return true;
    }

    /**
     * Wakes every thread waiting in this rank's engines, e.g. because something outside them (a
     * generalized request) completed. Safe from any thread.
     */
    public void wake()
    {
        completion.bump();
        for (final Thread t : parked)
        {
            LockSupport.unpark(t);
        }
        wakeWord.wakeIfSleeping();
    }

    private BackoffIdler newIdler(final ShmpiConfig config)
    {
        final BackoffIdler idler = BackoffIdler.from(config);
        if (countingIdles)
        {
            idler.count();
        }
        allIdlers.add(idler);
        return idler;
    }

    /**
     * The job report: counts idle steps from now on, and tells {@code listener} (on the waiting
     * thread) of every wait that idled long enough to be recorded ({@link #RECORD_AFTER_IDLES}).
     */
    public void report(final WaitListener listener)
    {
        waitListener = listener;
        countingIdles = true;
        for (final BackoffIdler i : allIdlers)
        {
            i.count();
        }
    }

    /** Idle steps so far, every thread: spins, yields, sleeps (counted once {@link #report} was called). */
    public long[] idleCounts()
    {
        final long[] c = new long[3];
        for (final BackoffIdler i : allIdlers)
        {
            i.addCounts(c);
        }
        return c;
    }

    private BackoffIdler idler()
    {
        return singleIdler != null ? singleIdler : idlers.get();
    }

    /** Callbacks run outside the lock: they may call the engines again. */
    private void drainCallbacks()
    {
        if (completion.hasCallbacks())
        {
            unlockForIdle();
            try
            {
                completion.runCallbacks();
            }
            finally
            {
                lock();
            }
        }
    }

    /**
     * The check a sleeper makes after announcing its sleep, preceded by the agents'
     * {@link ProgressAgent#beforeSleep}: the idler calls it only right before a sleep. One
     * object: one thread at a time may sleep on the wake word (the single driving thread, or the
     * futex sleeper under the lock).
     */
    private final class SleepCheck implements BooleanSupplier
    {
        private BooleanSupplier inner;

        SleepCheck around(final BooleanSupplier check)
        {
            inner = check;
            return this;
        }

        @Override
        public boolean getAsBoolean()
        {
            final ProgressAgent[] a = agents;
            for (int i = 0; i < a.length; i++)
            {
                a[i].beforeSleep();
            }
            return inner.getAsBoolean();
        }
    }

    private final SleepCheck sleepCheck = new SleepCheck();

    private boolean needsPolling()
    {
        final ProgressAgent[] a = agents;
        for (int i = 0; i < a.length; i++)
        {
            if (a[i].needsPolling())
            {
                return true;
            }
        }
        return false;
    }

    private void idle(final BackoffIdler idler, final BooleanSupplier wakeCheck)
    {
        final boolean polling = needsPolling();
        if (lock == null)
        {
            if (polling)
            {
                idler.idle();
            }
            else
            {
                idler.idle(wakeWord, sleepCheck.around(wakeCheck != null ? wakeCheck : inboxPending));
            }
            return;
        }
        final Thread me = Thread.currentThread();
        if (!polling && futexSleeper == null)
        {
            futexSleeper = me;
            // Never evaluate done() here: it runs outside the lock and may have side effects
            // (a matched probe takes its message). Another thread's progress shows as a new generation.
            final long seen = completion.generation();
            unlockForIdle();
            try
            {
                idler.idle(wakeWord, sleepCheck.around(() -> inboxPending.getAsBoolean() ||
                    completion.generation() != seen || wakeCheck != null && wakeCheck.getAsBoolean()));
            }
            finally
            {
                lock.lock();
                futexSleeper = null;
            }
        }
        else
        {
            parked.add(me);
            unlockForIdle();
            try
            {
                if (polling)
                {
                    idler.idle();
                }
                else
                {
                    LockSupport.parkNanos(200_000);
                }
            }
            finally
            {
                parked.remove(me);
                lock.lock();
            }
        }
    }

    private void wakeWaiters()
    {
        for (final Thread t : parked)
        {
            LockSupport.unpark(t);
        }
        if (futexSleeper != null && futexSleeper != Thread.currentThread())
        {
            wakeWord.wakeIfSleeping();
        }
    }

    /** Entry points never nest (callbacks run outside the lock), so the hold count here is one. */
    private void unlockForIdle()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }

    private void checkAborted()
    {
        // One acquire load of the job file's abort word: cheap enough for every idle step.
        if (job.isAborted())
        {
            throw new JobAbortedException("job aborted: " +
                (job.isAbortPublished() ? job.abortReason() : "(reason pending)"));
        }
    }
}
