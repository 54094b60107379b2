package org.shmpi.types;

import java.util.Arrays;

/**
 * The type map of a datatype, flattened: the bytes one item covers, as blocks of (byte
 * displacement, byte length) in type-map order, merged where one ends where the next begins;
 * the signature (the sequence of basic elements, run-length coded); and the bounds MPI defines.
 * Immutable. The constructors are MPI's type constructors, with every displacement and stride
 * in bytes (the {@code mpi} layer converts Java's element units).
 *
 * <p>Bounds follow the standard (MPI-2.2 section 4.1): {@code lb} and {@code ub} are the least
 * and greatest bound over the copies of the old types; a struct's {@code ub} is rounded up so
 * that its extent is a multiple of the largest alignment of its parts, unless some part has
 * explicit bounds ({@link #resized}); {@code trueLb} and {@code trueUb} bound the bytes the
 * blocks cover, which the range checks use. {@link #trueExtent()} reports MPI's true extent,
 * which ends at the last data byte: a pair type's tail padding (MPI_LONG_INT is 16 bytes, its
 * data ends at 12) is copied but is not data. A map with no data has all of them at 0.
 *
 * <p>{@link #layout()} is the copy program the engines use for {@code count} items of it.
 */
public final class TypeMap
{
    private final long[] disp;
    private final long[] len;
    /** Packed offset of each block's first byte; one more entry: the size. */
    private final long[] packedStart;
    private final long lb;
    private final long ub;
    private final long trueLb;
    private final long trueUb;
    /** One past the last data byte: {@code trueUb} less any tail padding of basic pair types there. */
    private final long dataUb;
    private final boolean explicitBounds;
    private final int alignment;
    /** Signature, run-length coded: {@code sigCount[i]} basic elements of kind {@code sigKind[i]}. */
    private final int[] sigKind;
    private final long[] sigCount;
    private DataLayout layout;

    private TypeMap(final long[] disp, final long[] len, final long lb, final long ub, final long trueLb,
        final long trueUb, final long dataUb, final boolean explicitBounds, final int alignment, final int[] sigKind,
        final long[] sigCount)
    {
        this.disp = disp;
        this.len = len;
        this.packedStart = new long[disp.length + 1];
        for (int i = 0; i < disp.length; i++)
        {
            packedStart[i + 1] = packedStart[i] + len[i];
        }
        this.lb = lb;
        this.ub = ub;
        this.trueLb = trueLb;
        this.trueUb = trueUb;
        this.dataUb = dataUb;
        this.explicitBounds = explicitBounds;
        this.alignment = alignment;
        this.sigKind = sigKind;
        this.sigCount = sigCount;
    }

    /**
     * A basic type: {@code bytes} bytes at displacement 0, one element of {@code kind}, aligned to its size (at
     * most 8).
     */
    public static TypeMap basic(final int kind, final int bytes)
    {
        return basic(kind, bytes, bytes);
    }

    /**
     * A basic type of {@code bytes} bytes whose data ends at byte {@code dataEnd} (a pair type
     * with tail padding: value, index, padding), one element of {@code kind}.
     */
    public static TypeMap basic(final int kind, final int bytes, final int dataEnd)
    {
        if (bytes <= 0 || dataEnd <= 0 || dataEnd > bytes)
        {
            throw new IllegalArgumentException("basic type of " + bytes + " bytes, data ending at " + dataEnd);
        }
        return new TypeMap(new long[] {0}, new long[] {bytes}, 0, bytes, 0, bytes, dataEnd, false, Math.min(bytes, 8),
            new int[] {kind}, new long[] {1});
    }

    /** {@code MPI_TYPE_CONTIGUOUS}: {@code count} copies of {@code old}, one extent apart. */
    public static TypeMap contiguous(final int count, final TypeMap old)
    {
        return hvector(count, 1, old.extent(), old);
    }

    /**
     * {@code MPI_TYPE_CREATE_HVECTOR}: {@code count} blocks of {@code blockLength} copies of
     * {@code old}, block starts {@code strideBytes} apart.
     */
    public static TypeMap hvector(final int count, final int blockLength, final long strideBytes, final TypeMap old)
    {
        nonNegative("count", count);
        nonNegative("blockLength", blockLength);
        withinLimit((long)count * blockLength, old);
        final Builder b = new Builder();
        if (old.isDense() && strideBytes == blockLength * old.extent())
        {
            // Blocks that follow each other: one run, however many copies.
            b.placeRepeated(old, 0, (long)count * blockLength);
            return b.build(old.explicitBounds, old.alignment);
        }
        blocksWithinLimit((long)count * (old.isDense() ? 1 : (long)blockLength * old.disp.length));
        for (int i = 0; i < count; i++)
        {
            b.placeRepeated(old, i * strideBytes, blockLength);
        }
        return b.build(old.explicitBounds, old.alignment);
    }

    /**
     * {@code MPI_TYPE_CREATE_HINDEXED}: block {@code i} is {@code blockLengths[i]} copies of
     * {@code old} from byte {@code displacements[i]}.
     */
    public static TypeMap hindexed(final int[] blockLengths, final long[] displacements, final TypeMap old)
    {
        sameLength(blockLengths.length, displacements.length, "displacements");
        long copies = 0;
        for (final int n : blockLengths)
        {
            copies += Math.max(0, n);
        }
        withinLimit(copies, old);
        blocksWithinLimit(old.isDense() ? blockLengths.length : copies * old.disp.length);
        final Builder b = new Builder();
        for (int i = 0; i < blockLengths.length; i++)
        {
            nonNegative("blockLengths[" + i + "]", blockLengths[i]);
            b.placeRepeated(old, displacements[i], blockLengths[i]);
        }
        return b.build(old.explicitBounds, old.alignment);
    }

    /**
     * {@code MPI_TYPE_CREATE_STRUCT}: block {@code i} is {@code blockLengths[i]} copies of
     * {@code types[i]} from byte {@code displacements[i]}.
     */
    public static TypeMap struct(final int[] blockLengths, final long[] displacements, final TypeMap[] types)
    {
        sameLength(blockLengths.length, displacements.length, "displacements");
        sameLength(blockLengths.length, types.length, "types");
        long bytes = 0;
        for (int i = 0; i < blockLengths.length; i++)
        {
            bytes += Math.max(0, blockLengths[i]) * Math.max(1, types[i].size());
        }
        if (bytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("a struct of " + bytes + " bytes: more than 2 GiB");
        }
        long separate = 0;
        for (int i = 0; i < blockLengths.length; i++)
        {
            separate += types[i].isDense() ? 1 : Math.max(0, blockLengths[i]) * (long)types[i].disp.length;
        }
        blocksWithinLimit(separate);
        final Builder b = new Builder();
        int align = 1;
        boolean explicit = false;
        for (int i = 0; i < blockLengths.length; i++)
        {
            nonNegative("blockLengths[" + i + "]", blockLengths[i]);
            b.placeRepeated(types[i], displacements[i], blockLengths[i]);
            if (blockLengths[i] > 0)
            {
                align = Math.max(align, types[i].alignment);
                explicit |= types[i].explicitBounds;
            }
        }
        final TypeMap t = b.build(explicit, align);
        if (explicit || t.disp.length == 0)
        {
            return t;
        }
        // The standard's epsilon: the extent rounds up to a multiple of the largest alignment.
        final long extent = t.ub - t.lb;
        final long padded = (extent + align - 1) / align * align;
        return padded == extent ? t
            : new TypeMap(t.disp, t.len, t.lb, t.lb + padded, t.trueLb, t.trueUb, t.dataUb, false,
            align, t.sigKind, t.sigCount);
    }

    /**
     * {@code MPI_TYPE_CREATE_RESIZED}: the same data, with lower bound {@code lb} and extent {@code extent}, in
     * bytes.
     */
    public static TypeMap resized(final TypeMap old, final long lb, final long extent)
    {
        return new TypeMap(old.disp, old.len, lb, lb + extent, old.trueLb, old.trueUb, old.dataUb, true, old.alignment,
            old.sigKind, old.sigCount);
    }

    /** Order of the dimensions of {@link #subarray}: the last one varies fastest (C) or the first one (Fortran). */
    public enum Order
    {
        C, FORTRAN
    }

    /**
     * {@code MPI_TYPE_CREATE_SUBARRAY}: the {@code subsizes} block from {@code starts} of an
     * {@code sizes} array of {@code old}; its extent is the whole array's.
     */
    public static TypeMap subarray(final int[] sizes, final int[] subsizes, final int[] starts, final Order order,
        final TypeMap old)
    {
        final int n = sizes.length;
        if (n < 1)
        {
            throw new IllegalArgumentException("subarray of " + n + " dimensions");
        }
        sameLength(n, subsizes.length, "subsizes");
        sameLength(n, starts.length, "starts");
        // Dimensions from the fastest-varying one; stride[k]: bytes between neighbours in dimension k.
        final int[] dims = new int[n];
        for (int k = 0; k < n; k++)
        {
            dims[k] = order == Order.C ? n - 1 - k : k;
        }
        long stride = old.extent();
        long offset = 0;
        TypeMap t = old;
        for (int k = 0; k < n; k++)
        {
            final int d = dims[k];
            if (sizes[d] < 1 || subsizes[d] < 1 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
            {
                throw new IllegalArgumentException("subarray dimension " + d + ": size=" + sizes[d] + ", subsize=" +
                    subsizes[d] + ", start=" + starts[d]);
            }
            t = k == 0 ? contiguous(subsizes[d], old) : hvector(subsizes[d], 1, stride, t);
            offset += starts[d] * stride;
            stride *= sizes[d];
        }
        return resized(hindexed(new int[] {1}, new long[] {offset}, t), 0, stride);
    }

    /** Distribution of one dimension of {@link #darray}: blocks. */
    public static final int DISTRIBUTE_BLOCK = 0;
    /** Distribution of one dimension of {@link #darray}: round robin of blocks of {@code darg}. */
    public static final int DISTRIBUTE_CYCLIC = 1;
    /** Distribution of one dimension of {@link #darray}: not distributed (its process count is 1). */
    public static final int DISTRIBUTE_NONE = 2;
    /** The default distribution argument. */
    public static final int DISTRIBUTE_DFLT_DARG = -1;

    /**
     * {@code MPI_TYPE_CREATE_DARRAY}: the part of a {@code gsizes} array of {@code old} that
     * process {@code rank} of a {@code psizes} grid (row-major, {@code size} processes) owns
     * under the given distributions; its extent is the whole array's. The elements are in the
     * array's order ({@code order}: the last dimension fastest for C).
     */
    public static TypeMap darray(final int size, final int rank, final int[] gsizes, final int[] distribs,
        final int[] dargs, final int[] psizes, final Order order, final TypeMap old)
    {
        final int n = gsizes.length;
        sameLength(n, distribs.length, "distribs");
        sameLength(n, dargs.length, "dargs");
        sameLength(n, psizes.length, "psizes");
        long procs = 1;
        for (final int p : psizes)
        {
            if (p < 1)
            {
                throw new IllegalArgumentException("darray: process grid size " + p);
            }
            procs *= p;
        }
        if (n < 1 || procs != size || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("darray: " + n + " dimensions, grid of " + procs + " processes, size " +
                size + ", rank " + rank);
        }
        // The rank's coordinates in the process grid: row-major whatever the array order.
        final int[] coords = new int[n];
        int r = rank;
        for (int d = n - 1; d >= 0; d--)
        {
            coords[d] = r % psizes[d];
            r /= psizes[d];
        }
        // Strides of the array's dimensions, in bytes.
        final long[] stride = new long[n];
        long s = old.extent();
        for (int k = 0; k < n; k++)
        {
            final int d = order == Order.C ? n - 1 - k : k;
            if (gsizes[d] < 1)
            {
                throw new IllegalArgumentException("darray: global size " + gsizes[d] + " of dimension " + d);
            }
            stride[d] = s;
            s *= gsizes[d];
        }
        // From the fastest dimension out: copies of the inner type at the owned indices.
        TypeMap t = old;
        for (int k = 0; k < n; k++)
        {
            final int d = order == Order.C ? n - 1 - k : k;
            final long[] owned = owned(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], d);
            final int[] ones = new int[owned.length];
            Arrays.fill(ones, 1);
            for (int i = 0; i < owned.length; i++)
            {
                owned[i] *= stride[d];
            }
            t = hindexed(ones, owned, t);
        }
        return resized(t, 0, s);
    }

    /** The indices of one dimension that grid coordinate {@code c} owns, in order. */
    private static long[] owned(final int g, final int distrib, final int darg, final int p, final int c, final int d)
    {
        final long[] out = new long[g];
        int n = 0;
        switch (distrib)
        {
            case DISTRIBUTE_NONE:
                if (p != 1)
                {
                    throw new IllegalArgumentException("darray: dimension " + d + " is not distributed but has " + p +
                        " processes");
                }
                for (int i = 0; i < g; i++)
                {
                    out[n++] = i;
                }
                break;
            case DISTRIBUTE_BLOCK:
            {
                final long b = darg == DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
                if (b < 1 || b * p < g)
                {
                    throw new IllegalArgumentException("darray: block size " + darg + " of dimension " + d +
                        " does not cover " + g + " elements on " + p + " processes");
                }
                for (long i = c * b; i < Math.min((long)g, (c + 1) * b); i++)
                {
                    out[n++] = i;
                }
                break;
            }
            case DISTRIBUTE_CYCLIC:
            {
                final long b = darg == DISTRIBUTE_DFLT_DARG ? 1 : darg;
                if (b < 1)
                {
                    throw new IllegalArgumentException("darray: cyclic block size " + darg + " of dimension " + d);
                }
                for (long start = c * b; start < g; start += p * b)
                {
                    for (long i = start; i < Math.min((long)g, start + b); i++)
                    {
                        out[n++] = i;
                    }
                }
                break;
            }
            default:
                throw new IllegalArgumentException("darray: distribution " + distrib + " of dimension " + d);
        }
        return Arrays.copyOf(out, n);
    }

    /** Bytes of data in one item (the packed size). */
    public long size()
    {
        return packedStart[disp.length];
    }

    public long lb()
    {
        return lb;
    }

    public long ub()
    {
        return ub;
    }

    public long extent()
    {
        return ub - lb;
    }

    public long trueLb()
    {
        return trueLb;
    }

    /** MPI's true extent: from the first data byte to one past the last. */
    public long trueExtent()
    {
        return dataUb - trueLb;
    }

    /** Number of blocks in the flattened map (1 for a basic type). */
    public int blocks()
    {
        return disp.length;
    }

    /** Byte displacement of block {@code i}. */
    public long blockDisplacement(final int i)
    {
        return disp[i];
    }

    /** Byte length of block {@code i}. */
    public long blockLength(final int i)
    {
        return len[i];
    }

    /** The signature, run-length coded, as pairs {kind, count}; adjacent runs of one kind are merged. */
    public long[][] signature()
    {
        final long[][] out = new long[sigKind.length][];
        for (int i = 0; i < sigKind.length; i++)
        {
            out[i] = new long[] {sigKind[i], sigCount[i]};
        }
        return out;
    }

    /** True when {@code count} items are one run of bytes from displacement 0: a plain copy. */
    public boolean isContiguous()
    {
        return disp.length == 1 && disp[0] == 0 && len[0] == extent();
    }

    /** The lowest byte displacement that {@code count} items touch (0 with no data). */
    public long touchedLow(final long count)
    {
        if (count == 0 || disp.length == 0)
        {
            return 0;
        }
        return trueLb + Math.min(0, (count - 1) * extent());
    }

    /** One past the highest byte displacement that {@code count} items touch (0 with no data). */
    public long touchedHigh(final long count)
    {
        if (count == 0 || disp.length == 0)
        {
            return 0;
        }
        return trueUb + Math.max(0, (count - 1) * extent());
    }

    /** The copy program for any number of items of this map, starting at the user's buffer. */
    public DataLayout layout()
    {
        // Chosen once (a benign race: every thread computes the same program); a send asks per message.
        final DataLayout l = layout;
        return l != null ? l : chooseLayout();
    }

    private DataLayout chooseLayout()
    {
        final DataLayout l = isContiguous() ? DataLayout.CONTIGUOUS : strided() ?
            new StridedLayout(disp[0], len[0], disp.length > 1 ? disp[1] - disp[0] : len[0], disp.length,
                extent()) : new FlatLayout(this);
        layout = l;
        return l;
    }

    /** Whether every block has one length and the blocks are equally spaced: a vector's shape. */
    private boolean strided()
    {
        if (disp.length == 0)
        {
            return false;
        }
        final long step = disp.length > 1 ? disp[1] - disp[0] : 0;
        for (int i = 1; i < disp.length; i++)
        {
            if (len[i] != len[0] || disp[i] - disp[i - 1] != step)
            {
                return false;
            }
        }
        return true;
    }

    /** The block holding packed offset {@code within} (0 <= within < size) of one item. */
    int blockAt(final long within)
    {
        int i = Arrays.binarySearch(packedStart, 0, disp.length, within);
        if (i < 0)
        {
            i = -i - 2;
        }
        // Zero-length blocks never occur (the builder drops them), so the first match is the block.
        return i;
    }

    /** The blocks' byte displacements, shared (never written after the map is built). */
    long[] displacements()
    {
        return disp;
    }

    /** The blocks' byte lengths, shared (never written after the map is built). */
    long[] lengths()
    {
        return len;
    }

    long packedStart(final int block)
    {
        return packedStart[block];
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("TypeMap{size=").append(size()).append(", lb=").append(lb)
            .append(", extent=").append(extent()).append(", trueLb=").append(trueLb).append(", trueExtent=")
            .append(trueExtent()).append(", blocks=");
        for (int i = 0; i < Math.min(disp.length, 8); i++)
        {
            sb.append(i == 0 ? "" : " ").append('(').append(disp[i]).append(',').append(len[i]).append(')');
        }
        return sb.append(disp.length > 8 ? " ... " + disp.length + " blocks}" : "}").toString();
    }

    /**
     * A type of {@code copies} copies of {@code old} must hold at most 2 GiB of data (sizes are
     * ints in the Java API): checked before the copies are placed one by one, so that an absurd
     * count is an error at once rather than minutes of work.
     */
    private static void withinLimit(final long copies, final TypeMap old)
    {
        if (copies * Math.max(1, old.size()) > Integer.MAX_VALUE || copies > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("a type of " + copies + " copies of a " + old.size() +
                "-byte type: more than 2 GiB");
        }
    }

    /** Most separate blocks a type map holds (two longs each): 16 Mi. */
    static final long MAX_BLOCKS = 1L << 24;

    private static void blocksWithinLimit(final long blocks)
    {
        if (blocks > MAX_BLOCKS)
        {
            throw new IllegalArgumentException("a type of " + blocks + " separate blocks: more than " + MAX_BLOCKS);
        }
    }

    /** One block of data at its lower bound, as long as its extent, one kind of element: copies just follow. */
    boolean isDense()
    {
        return disp.length == 1 && sigKind.length == 1 && len[0] > 0 && disp[0] == lb && len[0] == extent();
    }

    private static void nonNegative(final String what, final int v)
    {
        if (v < 0)
        {
            throw new IllegalArgumentException("negative " + what + ": " + v);
        }
    }

    private static void sameLength(final int n, final int m, final String what)
    {
        if (n != m)
        {
            throw new IllegalArgumentException(what + " has " + m + " entries, blockLengths " + n);
        }
    }

    /** Appends copies of maps at byte shifts, merging blocks and signature runs. */
    private static final class Builder
    {
        private long[] disp = new long[8];
        private long[] len = new long[8];
        private int blocks;
        private int[] sigKind = new int[4];
        private long[] sigCount = new long[4];
        private int runs;
        private long lb = Long.MAX_VALUE;
        private long ub = Long.MIN_VALUE;
        private long trueLb = Long.MAX_VALUE;
        private long trueUb = Long.MIN_VALUE;
        private long dataUb = Long.MIN_VALUE;
        private boolean placed;

        void place(final TypeMap t, final long shift)
        {
            placed = true;
            lb = Math.min(lb, t.lb + shift);
            ub = Math.max(ub, t.ub + shift);
            if (t.disp.length > 0)
            {
                trueLb = Math.min(trueLb, t.trueLb + shift);
                trueUb = Math.max(trueUb, t.trueUb + shift);
                dataUb = Math.max(dataUb, t.dataUb + shift);
            }
            for (int i = 0; i < t.disp.length; i++)
            {
                block(t.disp[i] + shift, t.len[i]);
            }
            for (int i = 0; i < t.sigKind.length; i++)
            {
                run(t.sigKind[i], t.sigCount[i]);
            }
        }

        /** {@code n} copies of {@code t}, one extent apart from {@code shift}; one step when {@code t} is dense. */
        void placeRepeated(final TypeMap t, final long shift, final long n)
        {
            if (n <= 0)
            {
                return;
            }
            if (!t.isDense())
            {
                for (long j = 0; j < n; j++)
                {
                    place(t, shift + j * t.extent());
                }
                return;
            }
            final long last = (n - 1) * t.extent();
            placed = true;
            lb = Math.min(lb, t.lb + shift);
            ub = Math.max(ub, t.ub + shift + last);
            trueLb = Math.min(trueLb, t.trueLb + shift);
            trueUb = Math.max(trueUb, t.trueUb + shift + last);
            dataUb = Math.max(dataUb, t.dataUb + shift + last);
            block(t.disp[0] + shift, n * t.len[0]);
            run(t.sigKind[0], n * t.sigCount[0]);
        }

        private void block(final long d, final long n)
        {
            if (n == 0)
            {
                return;
            }
            if (blocks > 0 && disp[blocks - 1] + len[blocks - 1] == d)
            {
                len[blocks - 1] += n;
                return;
            }
            if (blocks == disp.length)
            {
                disp = Arrays.copyOf(disp, blocks * 2);
                len = Arrays.copyOf(len, blocks * 2);
            }
            disp[blocks] = d;
            len[blocks] = n;
            blocks++;
        }

        private void run(final int kind, final long count)
        {
            if (runs > 0 && sigKind[runs - 1] == kind)
            {
                sigCount[runs - 1] += count;
                return;
            }
            if (runs == sigKind.length)
            {
                sigKind = Arrays.copyOf(sigKind, runs * 2);
                sigCount = Arrays.copyOf(sigCount, runs * 2);
            }
            sigKind[runs] = kind;
            sigCount[runs] = count;
            runs++;
        }

        TypeMap build(final boolean explicitBounds, final int alignment)
        {
            if (!placed)
            {
                lb = 0;
                ub = 0;
            }
            if (blocks == 0)
            {
                trueLb = 0;
                trueUb = 0;
                dataUb = 0;
            }
            return new TypeMap(Arrays.copyOf(disp, blocks), Arrays.copyOf(len, blocks), lb, ub, trueLb, trueUb, dataUb,
                explicitBounds, alignment, Arrays.copyOf(sigKind, runs), Arrays.copyOf(sigCount, runs));
        }
    }
}
