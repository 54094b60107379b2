package mpi;

import org.shmpi.shm.ErrorClass;

/**
 * The per-rank blocks of a gather, scatter, all-gather or all-to-all in one user buffer: block
 * i is {@code counts[i]} items of {@code types[i]} starting at byte {@code at[i]} of the buffer,
 * and bytes {@code [offsets[i], offsets[i] + lengths[i])} of the packed array that the
 * algorithms move. Made after checking that every block lies in the buffer, so nothing moves
 * when one does not.
 */
final class Blocks
{
    final Object buf;
    final long[] at;
    final int[] counts;
    final Datatype[] types;
    final int[] lengths;
    final int[] offsets;
    final int total;

    private Blocks(final Object buf, final long[] at, final int[] counts, final Datatype[] types)
    {
        this.buf = buf;
        this.at = at;
        this.counts = counts;
        this.types = types;
        final int n = counts.length;
        this.lengths = new int[n];
        for (int i = 0; i < n; i++)
        {
            lengths[i] = Collectives.check(buf, at[i], counts[i], types[i]);
        }
        this.offsets = Collectives.prefix(lengths);
        this.total = Collectives.sum(lengths);
    }

    /** {@code n} blocks of {@code counts[i]} items of {@code type} at item {@code displs[i]} (the v-collectives). */
    static Blocks items(final Object buf, final int[] counts, final int[] displs, final Datatype type, final int n,
        final String what)
    {
        Collectives.checkedCounts(counts, n, what + "count");
        Collectives.checkedDispls(displs, n, what + " displs");
        MPI.checkDatatype(type);
        final long[] at = new long[n];
        final Datatype[] types = new Datatype[n];
        for (int i = 0; i < n; i++)
        {
            at[i] = Collectives.at(type, displs[i]);
            types[i] = type;
        }
        return new Blocks(buf, at, java.util.Arrays.copyOf(counts, n), types);
    }

    /**
     * {@code n} blocks of {@code counts[i]} items of {@code types[i]} at byte {@code displs[i]} (the w-collectives).
     */
    static Blocks bytes(final Object buf, final int[] counts, final int[] displs, final Datatype[] types, final int n,
        final String what)
    {
        Collectives.checkedCounts(counts, n, what + "count");
        Collectives.checkedDispls(displs, n, what + " displs");
        if (types == null || types.length < n)
        {
            throw new MPIException(ErrorClass.ERR_ARG, what + " types: a datatype per rank is needed: size=" + n);
        }
        final long[] at = new long[n];
        for (int i = 0; i < n; i++)
        {
            at[i] = displs[i];
        }
        return new Blocks(buf, at, java.util.Arrays.copyOf(counts, n), java.util.Arrays.copyOf(types, n));
    }

    /** Every block, packed in order. */
    byte[] packAll()
    {
        final byte[] out = new byte[total];
        for (int i = 0; i < counts.length; i++)
        {
            Collectives.pack(buf, at[i], types[i], out, offsets[i], lengths[i]);
        }
        return out;
    }

    /** Block {@code i}, packed. */
    byte[] pack(final int i)
    {
        final byte[] out = new byte[lengths[i]];
        Collectives.pack(buf, at[i], types[i], out, 0, lengths[i]);
        return out;
    }

    /** Unpacks every block from {@code packed} (laid out as {@link #offsets}) into the buffer. */
    void unpackAll(final byte[] packed)
    {
        for (int i = 0; i < counts.length; i++)
        {
            Collectives.unpack(packed, offsets[i], lengths[i], buf, at[i], types[i]);
        }
    }
}
