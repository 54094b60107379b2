package org.shmpi.io;

import java.nio.ByteOrder;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.BasicKind;

/**
 * The {@code "external32"} file representation of packed data: each basic element big-endian.
 * Java's basic sizes are external32's, so only the byte order changes; pair types whose native
 * form has padding ({@code SHORT_INT}, {@code LONG_INT}, {@code DOUBLE_INT}) would change size,
 * which a view's arithmetic does not follow, and are refused with {@code ERR_CONVERSION}.
 */
final class External32Order
{
    private static final boolean SWAP = ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN;

    private External32Order()
    {
    }

    /** Size of each part of an element of {@code kind} (1 for bytes: nothing to swap). */
    static int partBytes(final int kind)
    {
        switch (kind)
        {
            case BasicKind.BYTE:
            case BasicKind.BOOLEAN:
            case BasicKind.PACKED:
                return 1;
            case BasicKind.CHAR:
            case BasicKind.SHORT:
                return 2;
            case BasicKind.INT:
            case BasicKind.FLOAT:
            case BasicKind.INT2:
            case BasicKind.FLOAT_INT:
            case BasicKind.FLOAT_COMPLEX:
                return 4;
            case BasicKind.LONG:
            case BasicKind.DOUBLE:
            case BasicKind.DOUBLE_COMPLEX:
                return 8;
            default:
                throw new ShmpiException(ErrorClass.ERR_CONVERSION, "no external32 file form for basic kind " + kind +
                    " (a pair type with padding)");
        }
    }

    /** Checks that every kind of {@code signature} converts; before anything is written. */
    static void check(final long[][] signature)
    {
        for (final long[] run : signature)
        {
            partBytes((int)run[0]);
        }
    }

    /**
     * Swaps the first {@code bytes} packed bytes of {@code b} (from index 0), element by element
     * of {@code signature} repeated.
     */
    static void swap(final byte[] b, final long bytes, final long[][] signature)
    {
        if (!SWAP)
        {
            return;
        }
        int at = 0;
        while (at < bytes)
        {
            for (final long[] run : signature)
            {
                final int kind = (int)run[0];
                final int part = partBytes(kind);
                final long runBytes = run[1] * BasicKind.size(kind);
                final int end = (int)Math.min(bytes, at + runBytes);
                if (part > 1)
                {
                    for (int p = at; p + part <= end; p += part)
                    {
                        for (int i = 0; i < part / 2; i++)
                        {
                            final byte t = b[p + i];
                            b[p + i] = b[p + part - 1 - i];
                            b[p + part - 1 - i] = t;
                        }
                    }
                }
                at = end;
                if (at >= bytes)
                {
                    return;
                }
            }
        }
    }
}
