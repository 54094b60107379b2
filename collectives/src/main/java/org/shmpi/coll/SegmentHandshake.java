package org.shmpi.coll;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

import org.agrona.concurrent.AtomicBuffer;
import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;

/**
 * The set-up of a communicator's collective segment, shared by both collective engines
 * ({@link ShmCollectives}, {@link ShmLargeCollectives}): member 0 creates the segment and writes
 * its header, all agree, the others map it and check the header against their own view of the
 * communicator.
 * <p>
 * Each member also prepares to wake every other member now, while all are alive, so that waking
 * never has to map a file that a member leaving MPI has already removed.
 * <p>
 * {@code agree} is the communicator's agreement (the largest of the members' values; for the
 * throwing form, a plain barrier that returns its argument). In the throwing form a member that
 * cannot create or map the segment throws; in the other, every member returns null and leaves
 * nothing behind, and the communicator's collectives take the point-to-point schedules.
 */
final class SegmentHandshake
{
    /** Agreement values of the set-up: made and mapped everywhere, or not. */
    static final int SET_UP = 0;
    static final int UNAVAILABLE = 1;

    private static final long OPEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private SegmentHandshake()
    {
    }

    /**
     * Runs the handshake for segment {@code name} of {@code length} payload bytes among world
     * ranks {@code world} (this process is {@code world[me]}).
     *
     * @param header   writes the header, on member 0, before any other member can map it
     * @param mismatch on the other members: null when the header fits this member's view,
     *                 else what differs (the set-up then fails with {@code ERR_INTERN})
     * @return the mapped segment, or null when {@code failuresThrow} is false and some member
     *         could not create or map it
     */
    static Segment join(final RankContext ctx, final int[] world, final int me, final String name,
        final long length, final Consumer<AtomicBuffer> header, final Function<AtomicBuffer, String> mismatch,
        final IntUnaryOperator agree, final boolean failuresThrow)
    {
        final SegmentManager manager = ctx.segments();
        Segment segment = null;
        try
        {
            int status = SET_UP;
            if (me == 0)
            {
                try
                {
                    segment = manager.create(SegmentKind.COLLECTIVE, name, length, SegmentManager.TOUCH_PAGES,
                        header);
                }
                catch (final IOException ex)
                {
                    status = failed(name, ex, failuresThrow);
                }
            }
            for (final int w : world)
            {
                ctx.wakeups().prepareWake(w);
            }
            if (agree.applyAsInt(status) != SET_UP)
            {
                return null;
            }
            if (me != 0)
            {
                // It exists: member 0 made it before the agreement.
                try
                {
                    segment = manager.open(SegmentKind.COLLECTIVE, name, world[0], System.nanoTime() + OPEN_TIMEOUT_NS);
                }
                catch (final IOException ex)
                {
                    status = failed(name, ex, failuresThrow);
                }
            }
            if (!failuresThrow && agree.applyAsInt(status) != SET_UP)
            {
                if (segment != null)
                {
                    if (me == 0)
                    {
                        manager.remove(segment);
                    }
                    else
                    {
                        manager.forget(segment);
                    }
                }
                return null;
            }
            if (me != 0)
            {
                final String differs = mismatch.apply(segment.buffer());
                if (differs != null)
                {
                    manager.release(segment);
                    throw new ShmpiException(ErrorClass.ERR_INTERN, "collective segment " + name + " " + differs);
                }
            }
            return segment;
        }
        catch (final IOException ex)
        {
            throw setUpFailed(name, ex);
        }
    }

    private static int failed(final String name, final IOException ex, final boolean failuresThrow) throws IOException
    {
        if (failuresThrow)
        {
            throw ex;
        }
        if (WARNED.compareAndSet(false, true))
        {
            System.err.println("shmpi: cannot set up the collective segment " + name + " (" + ex.getMessage() +
                "); this communicator's collectives use point-to-point messages");
        }
        return UNAVAILABLE;
    }

    private static ShmpiException setUpFailed(final String name, final IOException ex)
    {
        return new ShmpiException(ErrorClass.ERR_INTERN, "cannot set up the collective segment " + name + ": " +
            ex.getMessage(), ex);
    }
}
