package org.shmpi.rma;

import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

/**
 * The one-sided operations of one member as an origin: a put is a copy into the target's mapped
 * region, a get a copy out of it, an accumulate an atomic read-modify-write of each element
 * there, made atomic with respect to every other accumulate by the target's accumulate word
 * (ACC_LOCK of its control block). Memory the target serves itself goes to its
 * {@link WindowService} as messages instead. Each access is checked first (an epoch that allows
 * it, the displacement, the range and the matching size); nothing waits for the target.
 */
final class WindowAccess
{
    /** Accumulates of this many elements or more run as one plain loop under the exclusive accumulate word. */
    static final int BULK_ELEMENTS = 16;
    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);

    private final int me;
    private final WindowMemory memory;
    /** A dynamic window's attached memory (null for the other flavors). */
    private final AttachTable attachments;
    private final Epochs epochs;
    private final WindowControl control;
    /** This member's messages to served targets; null when no target serves its memory. */
    private final WindowService.Origin origin;

    /** Where the last checked access goes: Unsafe base object, and whether the target serves it. */
    private Object resolvedObject;
    private boolean resolvedRemote;

    private final byte[] scratch = new byte[16];
    private byte[] staging = new byte[0];
    private byte[] results = new byte[0];

    WindowAccess(final int me, final WindowMemory memory, final Epochs epochs, final WindowControl control,
        final WindowService.Origin origin)
    {
        this.me = me;
        this.memory = memory;
        this.attachments = memory.attachments();
        this.epochs = epochs;
        this.control = control;
        this.origin = origin;
    }

    /**
     * {@code MPI_Put}: {@code bytes} packed bytes of origin data ({@code layout} over
     * {@code originBase}/{@code originOffset}) into {@code targetCount} items of
     * {@code targetMap} (null: {@code bytes} contiguous bytes) at displacement
     * {@code targetDisp} of member {@code target}'s region.
     */
    void put(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        if (bytes == 0)
        {
            return;
        }
        if (resolvedRemote)
        {
            origin.put(originBase, originOffset, layout, bytes, target, at, targetMap, targetCount);
            return;
        }
        final Object tb = resolvedObject;
        if (targetMap == null || targetMap.isContiguous())
        {
            layout.pack(originBase, originOffset, 0, tb, at, bytes);
        }
        else if (layout.isContiguous())
        {
            targetMap.layout().unpack(originBase, originOffset, bytes, tb, at, 0);
        }
        else
        {
            final byte[] s = staging(bytes);
            layout.pack(originBase, originOffset, 0, s, BYTES, bytes);
            targetMap.layout().unpack(s, BYTES, bytes, tb, at, 0);
        }
    }

    /** {@code MPI_Get}: the reverse of {@link #put}. */
    void get(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        if (bytes == 0)
        {
            return;
        }
        if (resolvedRemote)
        {
            origin.get(originBase, originOffset, layout, bytes, target, at, targetMap, targetCount);
            return;
        }
        final Object tb = resolvedObject;
        if (targetMap == null || targetMap.isContiguous())
        {
            layout.unpack(tb, at, bytes, originBase, originOffset, 0);
        }
        else if (layout.isContiguous())
        {
            targetMap.layout().pack(tb, at, 0, originBase, originOffset, bytes);
        }
        else
        {
            final byte[] s = staging(bytes);
            targetMap.layout().pack(tb, at, 0, s, BYTES, bytes);
            layout.unpack(s, BYTES, bytes, originBase, originOffset, 0);
        }
    }

    /**
     * {@code MPI_Accumulate} and, with a result buffer, {@code MPI_Get_accumulate}: each element
     * of the target (of basic kind {@code kind}) becomes {@code origin op target}, atomically with
     * respect to every other accumulate on it; the target's values before are unpacked into the
     * result ({@code resultLayout} over {@code resultBase}/{@code resultOffset}) when
     * {@code resultLayout} is not null. Fewer than {@link #BULK_ELEMENTS} aligned elements of 1, 2,
     * 4 or 8 bytes change by one compare-and-set each, with the target's accumulate word shared;
     * anything else runs as one plain loop with the word exclusive, and without the word while
     * this member holds the target's exclusive lock (nobody else can touch it then).
     */
    void accumulate(final Object originBase, final long originOffset, final DataLayout layout, final long bytes,
        final int target, final long targetDisp, final TypeMap targetMap, final long targetCount,
        final int reduction, final int kind, final Object resultBase, final long resultOffset,
        final DataLayout resultLayout)
    {
        final long at = targetAddress(target, targetDisp, targetMap, targetCount, bytes);
        final Reductions.Kernel kernel = kernelOf(reduction, kind);
        final int elementSize = BasicKind.size(kind);
        if (bytes == 0)
        {
            return;
        }
        if (bytes % elementSize != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "accumulate of " + bytes + " bytes is not a whole " +
                "number of " + elementSize + "-byte elements");
        }
        if (resolvedRemote)
        {
            final byte[] copy = packedCopy(originBase, originOffset, layout, bytes);
            origin.accumulate(copy, bytes, target, at, targetMap, targetCount, reduction, kind, resultBase,
                resultOffset, resultLayout);
            if (resultLayout != null)
            {
                origin.complete();
            }
            return;
        }
        final Object tb = resolvedObject;
        final Object in;
        final long inOffset;
        if (layout.isContiguous())
        {
            in = originBase;
            inOffset = originOffset;
        }
        else
        {
            in = staging(bytes);
            inOffset = BYTES;
            layout.pack(originBase, originOffset, 0, in, BYTES, bytes);
        }
        final byte[] old = resultLayout == null ? null : results(bytes);
        final boolean alone = alone(target);
        final boolean contiguous = targetMap == null || targetMap.isContiguous();
        // One atomic instruction per element for a few aligned elements of 1, 2, 4 or 8 bytes (with
        // the accumulate word shared); else one plain loop with the word exclusive.
        final boolean atomics = !alone && contiguous && bytes / elementSize < BULK_ELEMENTS &&
            (elementSize == 1 || elementSize == 2 || elementSize == 4 || elementSize == 8) &&
            (at & (elementSize - 1)) == 0;
        if (!alone)
        {
            lockAccumulates(target, !atomics);
        }
        try
        {
            if (contiguous)
            {
                apply(kernel, elementSize, in, inOffset, tb, at, bytes, old, 0, !atomics);
            }
            else
            {
                final long extent = targetMap.extent();
                final int blocks = targetMap.blocks();
                long packed = 0;
                for (long item = 0; item < targetCount; item++)
                {
                    for (int b = 0; b < blocks; b++)
                    {
                        final long length = targetMap.blockLength(b);
                        apply(kernel, elementSize, in, inOffset + packed, tb,
                            at + item * extent + targetMap.blockDisplacement(b), length, old, packed, true);
                        packed += length;
                    }
                }
            }
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !atomics);
            }
        }
        if (old != null)
        {
            resultLayout.unpack(old, BYTES, bytes, resultBase, resultOffset, 0);
        }
    }

    /**
     * {@code MPI_Fetch_and_op}: one element of {@code kind}; sums of 4- and 8-byte integers,
     * replace and no-op are one atomic instruction, the rest a compare-and-set loop.
     */
    void fetchAndOp(final Object originBase, final long originOffset, final Object resultBase,
        final long resultOffset, final int reduction, final int kind, final int target, final long targetDisp)
    {
        final int elementSize = BasicKind.size(kind);
        final long at = targetAddress(target, targetDisp, null, 1, elementSize);
        final Reductions.Kernel kernel = kernelOf(reduction, kind);
        if (resolvedRemote)
        {
            origin.accumulate(packedCopy(originBase, originOffset, DataLayout.CONTIGUOUS, elementSize), elementSize,
                target, at, null, 1, reduction, kind, resultBase, resultOffset, DataLayout.CONTIGUOUS);
            origin.complete();
            return;
        }
        final Object tb = resolvedObject;
        final boolean integerSum = reduction == Reductions.SUM && (kind == BasicKind.INT || kind == BasicKind.LONG);
        final boolean replace = reduction == Reductions.REPLACE;
        final boolean noOp = reduction == Reductions.NO_OP;
        final boolean alone = alone(target);
        if ((elementSize == 8 && (at & 7) == 0 || elementSize == 4 && (at & 3) == 0) && (integerSum || replace || noOp))
        {
            if (!alone)
            {
                lockAccumulates(target, false);
            }
            try
            {
                if (elementSize == 8)
                {
                    final long v = noOp ? UnsafeApi.getLongVolatile(tb, at) : replace ?
                        UnsafeApi.getAndSetLong(tb, at, UnsafeApi.getLong(originBase, originOffset)) :
                        UnsafeApi.getAndAddLong(tb, at, UnsafeApi.getLong(originBase, originOffset));
                    UnsafeApi.putLong(resultBase, resultOffset, v);
                }
                else
                {
                    final int v = noOp ? UnsafeApi.getIntVolatile(tb, at) : replace ?
                        UnsafeApi.getAndSetInt(tb, at, UnsafeApi.getInt(originBase, originOffset)) :
                        UnsafeApi.getAndAddInt(tb, at, UnsafeApi.getInt(originBase, originOffset));
                    UnsafeApi.putInt(resultBase, resultOffset, v);
                }
            }
            finally
            {
                if (!alone)
                {
                    unlockAccumulates(target, false);
                }
            }
            return;
        }
        final byte[] old = results(elementSize);
        final boolean atomic = !alone &&
            (elementSize == 1 || elementSize == 2 || elementSize == 4 || elementSize == 8) &&
            (at & (elementSize - 1)) == 0;
        if (!alone)
        {
            lockAccumulates(target, !atomic);
        }
        try
        {
            apply(kernel, elementSize, originBase, originOffset, tb, at, elementSize, old, 0, !atomic);
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !atomic);
            }
        }
        UnsafeApi.copyMemory(old, BYTES, resultBase, resultOffset, elementSize);
    }

    /**
     * Whether nobody else can update {@code target}'s memory now: this member holds its exclusive
     * lock, or the memory is this member's own and served (the others reach it only through this
     * member's service, on this thread).
     */
    private boolean alone(final int target)
    {
        return epochs.holdsExclusive(target) || target == me && memory.isServed(me);
    }

    /**
     * {@code MPI_Compare_and_swap}: if the target element equals {@code compare}, it becomes the
     * origin's; the element before lands in the result. One instruction for 1, 2, 4 and 8 bytes
     * at aligned addresses, else under the target's accumulate lock.
     */
    void compareAndSwap(final Object originBase, final long originOffset, final Object compareBase,
        final long compareOffset, final Object resultBase, final long resultOffset, final int elementSize,
        final int target, final long targetDisp)
    {
        final long at = targetAddress(target, targetDisp, null, 1, elementSize);
        if (resolvedRemote)
        {
            final byte[] in = new byte[2 * elementSize];
            UnsafeApi.copyMemory(originBase, originOffset, in, BYTES, elementSize);
            UnsafeApi.copyMemory(compareBase, compareOffset, in, BYTES + elementSize, elementSize);
            origin.compareAndSwap(in, elementSize, target, at, resultBase, resultOffset);
            origin.complete();
            return;
        }
        final Object tb = resolvedObject;
        final boolean alone = alone(target);
        final boolean instruction = elementSize == 8 && (at & 7) == 0 || elementSize == 4 && (at & 3) == 0 ||
            elementSize == 2 && (at & 1) == 0 || elementSize == 1;
        if (!alone)
        {
            lockAccumulates(target, !instruction);
        }
        try
        {
            swap(originBase, originOffset, compareBase, compareOffset, resultBase, resultOffset, elementSize, tb, at);
        }
        finally
        {
            if (!alone)
            {
                unlockAccumulates(target, !instruction);
            }
        }
    }

    private void swap(final Object originBase, final long originOffset, final Object compareBase,
        final long compareOffset, final Object resultBase, final long resultOffset, final int elementSize,
        final Object tb, final long at)
    {
        if (elementSize == 8 && (at & 7) == 0)
        {
            UnsafeApi.putLong(resultBase, resultOffset, UnsafeApi.compareAndExchangeLong(tb, at,
                UnsafeApi.getLong(compareBase, compareOffset), UnsafeApi.getLong(originBase, originOffset)));
        }
        else if (elementSize == 4 && (at & 3) == 0)
        {
            UnsafeApi.putInt(resultBase, resultOffset, UnsafeApi.compareAndExchangeInt(tb, at,
                UnsafeApi.getInt(compareBase, compareOffset), UnsafeApi.getInt(originBase, originOffset)));
        }
        else if (elementSize == 2 && (at & 1) == 0)
        {
            UnsafeApi.putShort(resultBase, resultOffset, UnsafeApi.compareAndExchangeShort(tb, at,
                UnsafeApi.getShort(compareBase, compareOffset), UnsafeApi.getShort(originBase, originOffset)));
        }
        else if (elementSize == 1)
        {
            UnsafeApi.putByte(resultBase, resultOffset, UnsafeApi.compareAndExchangeByte(tb, at,
                UnsafeApi.getByte(compareBase, compareOffset), UnsafeApi.getByte(originBase, originOffset)));
        }
        else
        {
            // Under the exclusive accumulate word (taken by the caller).
            UnsafeApi.copyMemory(tb, at, scratch, BYTES, elementSize);
            if (sameBytes(scratch, BYTES, compareBase, compareOffset, elementSize))
            {
                UnsafeApi.copyMemory(originBase, originOffset, tb, at, elementSize);
            }
            UnsafeApi.copyMemory(scratch, BYTES, resultBase, resultOffset, elementSize);
        }
    }

    private static boolean sameBytes(final Object a, final long ao, final Object b, final long bo, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (UnsafeApi.getByte(a, ao + i) != UnsafeApi.getByte(b, bo + i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code length} bytes of target elements at {@code at} combined with the origin elements at
     * {@code in}/{@code inOffset}; their values before go to {@code old[oldAt...]} when given.
     */
    private void apply(final Reductions.Kernel kernel, final int es, final Object in, final long inOffset,
        final Object tb, final long at, final long length, final byte[] old, final long oldAt, final boolean bulk)
    {
        if (bulk)
        {
            if (old != null)
            {
                UnsafeApi.copyMemory(tb, at, old, BYTES + oldAt, length);
            }
            kernel.apply(in, inOffset, tb, at, length / es);
            return;
        }
        final byte[] s = scratch;
        for (long i = 0; i < length; i += es)
        {
            final long a = at + i;
            switch (es)
            {
                case 8:
                {
                    long before;
                    do
                    {
                        before = UnsafeApi.getLongVolatile(tb, a);
                        UnsafeApi.putLong(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetLong(tb, a, before, UnsafeApi.getLong(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putLong(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                case 4:
                {
                    int before;
                    do
                    {
                        before = UnsafeApi.getIntVolatile(tb, a);
                        UnsafeApi.putInt(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetInt(tb, a, before, UnsafeApi.getInt(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putInt(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                case 2:
                {
                    short before;
                    do
                    {
                        before = UnsafeApi.getShortVolatile(tb, a);
                        UnsafeApi.putShort(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetShort(tb, a, before, UnsafeApi.getShort(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putShort(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
                default:
                {
                    byte before;
                    do
                    {
                        before = UnsafeApi.getByteVolatile(tb, a);
                        UnsafeApi.putByte(s, BYTES, before);
                        kernel.apply(in, inOffset + i, s, BYTES, 1);
                    }
                    while (!UnsafeApi.compareAndSetByte(tb, a, before, UnsafeApi.getByte(s, BYTES)));
                    if (old != null)
                    {
                        UnsafeApi.putByte(old, BYTES + oldAt + i, before);
                    }
                    break;
                }
            }
        }
    }

    /**
     * Checks an access to {@code targetCount} items of {@code targetMap} (null: {@code bytes}
     * contiguous bytes) at displacement {@code targetDisp} of {@code target}: an epoch that allows
     * it, the displacement, the range and the matching size; returns its address here.
     */
    private long targetAddress(final int target, final long targetDisp, final TypeMap targetMap, final long targetCount,
        final long bytes)
    {
        memory.checkRank(target);
        if (!epochs.allowsAccess(target))
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_SYNC, "no access epoch to target " + target +
                " is open (fence, start or lock first)");
        }
        if (targetDisp < 0)
        {
            throw new ShmpiException(ErrorClass.ERR_DISP, "negative target displacement: " + targetDisp);
        }
        final long targetBytes = targetMap == null ? bytes : targetMap.size() * targetCount;
        if (targetBytes != bytes)
        {
            throw new ShmpiException(ErrorClass.ERR_TYPE, "origin has " + bytes + " bytes of data, target " +
                targetBytes + ": the type signatures differ");
        }
        final long start = targetDisp * memory.dispUnit(target);
        final long low = start + (targetMap == null ? 0 : targetMap.touchedLow(targetCount));
        final long high = start + (targetMap == null ? bytes : targetMap.touchedHigh(targetCount));
        if (attachments != null)
        {
            if (bytes == 0)
            {
                resolvedRemote = false;
                resolvedObject = null;
                return 0;
            }
            attachments.lookup(target, start, low, high);
            resolvedObject = attachments.object;
            resolvedRemote = attachments.remote;
            return attachments.address;
        }
        resolvedObject = memory.memoryOf(target);
        resolvedRemote = memory.remote(target);
        if (bytes > 0 && (low < 0 || high > memory.regionSize(target)))
        {
            throw new ShmpiException(ErrorClass.ERR_RMA_RANGE, "target " + target + ": bytes [" + low + ", " + high +
                ") lie outside its window of " + memory.regionSize(target) + " bytes");
        }
        return memory.address(target) + start;
    }

    private static Reductions.Kernel kernelOf(final int reduction, final int kind)
    {
        final Reductions.Kernel k = Reductions.kernel(reduction, kind);
        if (k == null)
        {
            throw new ShmpiException(ErrorClass.ERR_OP, Reductions.name(reduction) + " is not defined on elements of " +
                "kind " + kind);
        }
        return k;
    }

    private static byte[] packedCopy(final Object base, final long offset, final DataLayout layout, final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to send: " + bytes);
        }
        final byte[] copy = new byte[(int)bytes];
        layout.pack(base, offset, 0, copy, BYTES, bytes);
        return copy;
    }

    private byte[] staging(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to stage: " + bytes);
        }
        if (staging.length < bytes)
        {
            staging = new byte[(int)bytes];
        }
        return staging;
    }

    private byte[] results(final long bytes)
    {
        if (bytes > Integer.MAX_VALUE - 16)
        {
            throw new ShmpiException(ErrorClass.ERR_COUNT, "too many bytes to fetch: " + bytes);
        }
        if (results.length < bytes)
        {
            results = new byte[(int)bytes];
        }
        return results;
    }

    /**
     * The target's accumulate word taken for updates one element at a time by atomic
     * instructions (shared: any number at once), or for a loop of plain read-modify-writes
     * (exclusive): a plain loop may not run while an atomic update of the same memory is under way.
     */
    private void lockAccumulates(final int target, final boolean exclusive)
    {
        control.lockAccumulates(target, exclusive);
    }

    private void unlockAccumulates(final int target, final boolean exclusive)
    {
        control.unlockAccumulates(target, exclusive);
    }
}
