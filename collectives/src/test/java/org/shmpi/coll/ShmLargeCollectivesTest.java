package org.shmpi.coll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.shmpi.ring.RankContext;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.types.DataLayout;

/**
 * The large-message shared-memory collectives with ranks as threads of this JVM (more threads
 * than cores at 5 and 8): a random sequence of every operation, the same on every rank, with
 * chunks of 4 KiB and sizes from one byte to several rounds (both slot parities, last rounds
 * short), data that changes every operation (a slot overwritten too early shows), in place and
 * not, and a reduction that is neither commutative nor associative, so that the result shows
 * the exact order of combination: it must be {@link ReductionOrder}'s. The data of bcast,
 * gather, allgather, scatter and all-to-all lies at random in the rank's shared-memory heap,
 * which the others then read in place (single copy), or in an array.
 */
class ShmLargeCollectivesTest
{
    private static final int CONTEXT = 11;
    private static final int CHUNK = 4096;
    private ThreadedJob job;

    @AfterEach
    void close() throws Exception
    {
        if (job != null)
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
    }

    /** Per byte: inout = 3 in + 5 inout + 1 (mod 256). */
    private static final Reducer MIX = (in, io, inout, ioo, items) ->
    {
        for (int i = 0; i < items; i++)
        {
            inout[ioo + i] = (byte)(3 * in[io + i] + 5 * inout[ioo + i] + 1);
        }
    };

    private static byte[] data(final int owner, final int k, final int bytes)
    {
        final byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++)
        {
            b[i] = (byte)(owner * 31 + k * 7 + i * 13 + (i >> 8));
        }
        return b;
    }

    private static byte[] mixed(final int n, final int k, final int bytes)
    {
        final byte[][] slots = new byte[n][];
        for (int r = 0; r < n; r++)
        {
            slots[r] = data(r, k, bytes);
        }
        return slots[ReductionOrder.fold(n, (in, inout) -> MIX.apply(slots[in], 0, slots[inout], 0, bytes))];
    }

    /** {@code bytes} as the data of an operation: in this rank's shared heap (kept in {@code keep}) or an array. */
    private static PackedData source(final RankContext ctx, final byte[] bytes, final boolean heap,
        final List<ByteBuffer> keep)
    {
        if (!heap)
        {
            return PackedData.of(bytes);
        }
        try
        {
            final ByteBuffer b = ctx.heap().allocate(Math.max(1, bytes.length));
            b.put(0, bytes);
            keep.add(b);
            return new PackedData(DataLayout.CONTIGUOUS, null, BufferUtil.address(b), 0);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @ParameterizedTest(name = "np={0}")
    @ValueSource(ints = {2, 3, 5, 8})
    void randomSequencesOfOperations(final int n) throws Exception
    {
        job = ThreadedJob.start("shmlarge-" + n, n, 64 * 1024);
        job.run(170, ctx -> sequence(ctx, n));
    }

    /**
     * With more ranks than CPUs a root hands out its own buffer (readers copy in place, the root
     * waits for them) only from {@link ShmLargeCollectives#ROOTED_DIRECT_MIN_OVERSUBSCRIBED} on;
     * below, it writes its slots and returns. Without oversubscription, always.
     */
    @ParameterizedTest(name = "oversubscribed={0}")
    @ValueSource(booleans = {true, false})
    void rootsHandOutTheirBufferOnlyWhereItPays(final boolean oversubscribed) throws Exception
    {
        final int n = 3;
        final java.util.Properties settings = new java.util.Properties();
        settings.setProperty("shmpi.oversubscribed", Boolean.toString(oversubscribed));
        job = ThreadedJob.start("shmlarge-root-" + oversubscribed, n, 64 * 1024, settings);
        final int big = (int)ShmLargeCollectives.ROOTED_DIRECT_MIN_OVERSUBSCRIBED;
        job.run(120, ctx ->
        {
            final int me = ctx.rank();
            final int[] world = {0, 1, 2};
            final Members attaching = new Members(ctx, world, me, CONTEXT + 1, 1);
            final ShmLargeCollectives shm = ShmLargeCollectives.attach(ctx, world, me, CONTEXT, 64 * 1024, () ->
                new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
            final List<ByteBuffer> keep = new ArrayList<>();
            final int small = 64 * 1024;
            byte[] buf = me == 0 ? data(0, 1, small) : new byte[small];
            shm.bcast(0, me == 0 ? source(ctx, buf, true, keep) : PackedData.of(buf), small);
            assertArrayEquals(data(0, 1, small), buf, "bcast of 64 KiB");
            final long afterSmall = shm.singleCopies();
            org.junit.jupiter.api.Assertions.assertEquals(me != 0 && !oversubscribed, afterSmall > 0,
                "64 KiB read in place by rank " + me);
            buf = me == 0 ? data(0, 2, big) : new byte[big];
            shm.bcast(0, me == 0 ? source(ctx, buf, true, keep) : PackedData.of(buf), big);
            assertArrayEquals(data(0, 2, big), buf, "bcast of " + big);
            org.junit.jupiter.api.Assertions.assertEquals(me != 0, shm.singleCopies() > afterSmall,
                big + " bytes read in place by rank " + me);
            java.lang.ref.Reference.reachabilityFence(keep);
            shm.close();
        });
    }

    private static void sequence(final RankContext ctx, final int n)
    {
        final int me = ctx.rank();
        final int[] world = new int[n];
        Arrays.setAll(world, r -> r);
        final Members attaching = new Members(ctx, world, me, CONTEXT + 1, 1);
        final ShmLargeCollectives shm = ShmLargeCollectives.attach(ctx, world, me, CONTEXT, CHUNK, () ->
            new Barrier(attaching).schedule(attaching, "attach").runToCompletion(0));
        final Random random = new Random(11);
        final int[] sizes = {1, 100, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 77};
        for (int k = 0; k < 150; k++)
        {
            final int op = random.nextInt(8);
            final int root = random.nextInt(n);
            final int bytes = sizes[random.nextInt(sizes.length)];
            final boolean inPlace = random.nextBoolean();
            // Each rank draws alike: whether this operation's data lies in the shared heap differs by rank.
            final boolean heap = random.nextInt(n + 1) > me;
            final List<ByteBuffer> keep = new ArrayList<>();
            final String what =
                "op " + k + " (" + op + "), " + bytes + " bytes, root " + root + ", in place " + inPlace;
            switch (op)
            {
                case 0:
                {
                    final byte[] mine = data(me, k, bytes);
                    final byte[] out = inPlace ? mine : new byte[bytes];
                    shm.allreduce(PackedData.of(mine), PackedData.of(out), bytes, 1, MIX);
                    assertArrayEquals(mixed(n, k, bytes), out, "allreduce " + what);
                    break;
                }
                case 1:
                {
                    final byte[] mine = data(me, k, bytes);
                    final byte[] out = inPlace ? mine : new byte[bytes];
                    shm.reduce(root, PackedData.of(mine), me == root ? PackedData.of(out) : null, bytes, 1, MIX);
                    if (me == root)
                    {
                        assertArrayEquals(mixed(n, k, bytes), out, "reduce " + what);
                    }
                    break;
                }
                case 2:
                {
                    final byte[] buf = me == root ? data(root, k, bytes) : new byte[bytes];
                    shm.bcast(root, me == root ? source(ctx, buf, heap, keep) : PackedData.of(buf), bytes);
                    assertArrayEquals(data(root, k, bytes), buf, "bcast " + what);
                    break;
                }
                case 3:
                case 4:
                {
                    final boolean all = op == 3;
                    final byte[] out = new byte[n * bytes];
                    final boolean place = inPlace && (all || me == root);
                    if (place)
                    {
                        System.arraycopy(data(me, k, bytes), 0, out, me * bytes, bytes);
                    }
                    final PackedData send = place ? null : source(ctx, data(me, k, bytes), heap, keep);
                    if (all)
                    {
                        shm.allgather(send, PackedData.of(out), bytes);
                    }
                    else
                    {
                        shm.gather(root, send, me == root ? PackedData.of(out) : null, bytes);
                    }
                    if (all || me == root)
                    {
                        for (int r = 0; r < n; r++)
                        {
                            assertArrayEquals(data(r, k, bytes), Arrays.copyOfRange(out, r * bytes, (r + 1) * bytes),
                                (all ? "allgather " : "gather ") + what + ", block " + r);
                        }
                    }
                    break;
                }
                case 5:
                {
                    final byte[] all = new byte[n * bytes];
                    if (me == root)
                    {
                        for (int r = 0; r < n; r++)
                        {
                            System.arraycopy(data(100 + r, k, bytes), 0, all, r * bytes, bytes);
                        }
                    }
                    final byte[] mine = new byte[bytes];
                    final boolean place = inPlace && me == root;
                    shm.scatter(root, me == root ? source(ctx, all, heap, keep) : null,
                        place ? null : PackedData.of(mine), bytes);
                    if (!place)
                    {
                        assertArrayEquals(data(100 + me, k, bytes), mine, "scatter " + what);
                    }
                    break;
                }
                case 7:
                {
                    // Reduce-scatter: member r keeps bytes [r * bytes / n, (r + 1) * bytes / n) of the result.
                    final long from = (long)me * bytes / n;
                    final long to = (long)(me + 1) * bytes / n;
                    final byte[] mine = data(me, k, bytes);
                    final byte[] out = inPlace ? mine : new byte[bytes];
                    shm.reduceScatter(PackedData.of(mine), PackedData.of(out), bytes, 1, MIX, from, to - from);
                    assertArrayEquals(Arrays.copyOfRange(mixed(n, k, bytes), (int)from, (int)to),
                        Arrays.copyOfRange(out, 0, (int)(to - from)), "reduceScatter " + what);
                    break;
                }
                default:
                {
                    final byte[] send = new byte[n * bytes];
                    for (int r = 0; r < n; r++)
                    {
                        System.arraycopy(data(1000 * me + r, k, bytes), 0, send, r * bytes, bytes);
                    }
                    final byte[] got = new byte[n * bytes];
                    shm.alltoall(source(ctx, send, heap, keep), PackedData.of(got), bytes);
                    for (int r = 0; r < n; r++)
                    {
                        assertArrayEquals(data(1000 * r + me, k, bytes), Arrays.copyOfRange(got, r * bytes,
                            (r + 1) * bytes), "alltoall " + what + ", from " + r);
                    }
                    break;
                }
            }
            java.lang.ref.Reference.reachabilityFence(keep);
        }
        org.junit.jupiter.api.Assertions.assertTrue(shm.singleCopies() > 0, "some pieces were read in place");
        shm.close();
    }
}
