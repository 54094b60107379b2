package mpi;

import java.nio.ByteOrder;

import org.shmpi.shm.ErrorClass;

/**
 * The {@code "external32"} data representation (MPI-2.2 section 13.5.2) of packed data: every
 * basic element big-endian at a fixed size, pair types without their padding, so bytes written
 * on one machine read the same on another. Sizes are the Java ones: boolean and byte 1, char
 * and short 2, int and float 4, long and double 8. A pair is its value then its int index
 * ({@code SHORT_INT} 6 bytes, {@code LONG_INT} and {@code DOUBLE_INT} 12, {@code FLOAT_INT}
 * and {@code INT2} 8), a complex number its two parts.
 *
 * <p>Conversion works on the native packed bytes ({@link Comm#pack}'s), walking the type's
 * signature: each basic element is a list of parts (offset in the native element, bytes).
 */
final class External32
{
    private static final boolean SWAP = ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN;

    private External32()
    {
    }

    /** Parts of one element of a basic kind: {native offset, bytes} pairs. */
    private static int[] parts(final int kind)
    {
        switch (kind)
        {
            case Datatype.BYTE_ID:
            case Datatype.BOOLEAN_ID:
            case Datatype.PACKED_ID:
                return new int[] {0, 1};
            case Datatype.CHAR_ID:
            case Datatype.SHORT_ID:
                return new int[] {0, 2};
            case Datatype.INT_ID:
            case Datatype.FLOAT_ID:
                return new int[] {0, 4};
            case Datatype.LONG_ID:
            case Datatype.DOUBLE_ID:
                return new int[] {0, 8};
            case Datatype.INT2_ID:
            case Datatype.FLOAT_INT_ID:
            case Datatype.FLOAT_COMPLEX_ID:
                return new int[] {0, 4, 4, 4};
            case Datatype.SHORT_INT_ID:
                return new int[] {0, 2, 4, 4};
            case Datatype.LONG_INT_ID:
            case Datatype.DOUBLE_INT_ID:
                return new int[] {0, 8, 8, 4};
            case Datatype.DOUBLE_COMPLEX_ID:
                return new int[] {0, 8, 8, 8};
            default:
                throw new MPIException(ErrorClass.ERR_TYPE, "no external32 form for " +
                    Datatype.Kinds.of(kind).getName());
        }
    }

    private static int externalBytes(final int[] parts)
    {
        int n = 0;
        for (int i = 1; i < parts.length; i += 2)
        {
            n += parts[i];
        }
        return n;
    }

    /** External32 bytes of {@code count} items of {@code type}; MPI.ERR_COUNT beyond 2 GiB. */
    static int size(final int count, final Datatype type)
    {
        long perItem = 0;
        for (final long[] run : type.map.signature())
        {
            perItem += run[1] * externalBytes(parts((int)run[0]));
        }
        final long bytes = perItem * count;
        if (bytes > Integer.MAX_VALUE)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "external32 size beyond 2 GiB: bytes=" + bytes);
        }
        return (int)bytes;
    }

    /**
     * Converts {@code count} items of native packed bytes ({@code nat} from {@code natAt}) to
     * external32 in {@code ext} from {@code extAt} ({@code toExternal}), or the other way.
     */
    static void convert(final byte[] nat, final int natAt, final byte[] ext, final int extAt, final int count,
        final Datatype type, final boolean toExternal)
    {
        final long[][] sig = type.map.signature();
        final int[][] parts = new int[sig.length][];
        final int[] nativeSize = new int[sig.length];
        for (int r = 0; r < sig.length; r++)
        {
            parts[r] = parts((int)sig[r][0]);
            nativeSize[r] = Datatype.Kinds.of((int)sig[r][0]).size;
        }
        int n = natAt;
        int e = extAt;
        for (int item = 0; item < count; item++)
        {
            for (int r = 0; r < sig.length; r++)
            {
                final int[] p = parts[r];
                for (long k = 0; k < sig[r][1]; k++)
                {
                    for (int i = 0; i < p.length; i += 2)
                    {
                        final int from = n + p[i];
                        final int unit = p[i + 1];
                        for (int b = 0; b < unit; b++)
                        {
                            final int nb = from + (SWAP ? unit - 1 - b : b);
                            if (toExternal)
                            {
                                ext[e + b] = nat[nb];
                            }
                            else
                            {
                                nat[nb] = ext[e + b];
                            }
                        }
                        e += unit;
                    }
                    n += nativeSize[r];
                }
            }
        }
    }
}
