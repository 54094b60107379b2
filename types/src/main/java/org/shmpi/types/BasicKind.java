package org.shmpi.types;

/**
 * The basic element kinds a type map is made of (the {@code kind} of {@link TypeMap#basic}), with
 * their sizes in memory. The public datatypes ({@code MPI.INT}, ...) use these numbers. The pair
 * kinds are laid out as a C struct of the value then an {@code int} index, with C alignment
 * (so {@link #SHORT_INT} is 8 bytes and its index sits at byte 4); the complex kinds are two
 * floating-point numbers, real part first.
 */
public final class BasicKind
{
    public static final int NULL = 0;
    public static final int BYTE = 1;
    /** A Java {@code char}: an unsigned 16-bit integer. */
    public static final int CHAR = 2;
    public static final int SHORT = 3;
    /** A Java {@code boolean}: one byte, 0 or 1. */
    public static final int BOOLEAN = 4;
    public static final int INT = 5;
    public static final int LONG = 6;
    public static final int FLOAT = 7;
    public static final int DOUBLE = 8;
    public static final int PACKED = 9;
    public static final int INT2 = 10;
    public static final int SHORT_INT = 11;
    public static final int LONG_INT = 12;
    public static final int FLOAT_INT = 13;
    public static final int DOUBLE_INT = 14;
    public static final int FLOAT_COMPLEX = 15;
    public static final int DOUBLE_COMPLEX = 16;
    /** One above the highest kind. */
    public static final int COUNT = 17;

    private static final int[] SIZES = {0, 1, 2, 2, 1, 4, 8, 4, 8, 1, 8, 8, 16, 8, 16, 8, 16};
    /** Byte offset of the index in a pair kind; -1 for the others. */
    private static final int[] INDEX_OFFSETS = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 4, 4, 8, 4, 8, -1, -1};

    private BasicKind()
    {
    }

    /** Bytes of one element of {@code kind} in memory. */
    public static int size(final int kind)
    {
        return SIZES[kind];
    }

    /**
     * The Java array class that holds elements of {@code kind} one per array element
     * ({@code byte[]} for BYTE, ..., {@code double[]} for DOUBLE, {@code boolean[]} for BOOLEAN),
     * or null for the pair, complex and PACKED kinds.
     */
    public static Class<?> primitiveArray(final int kind)
    {
        switch (kind)
        {
            case BYTE: return byte[].class;
            case CHAR: return char[].class;
            case SHORT: return short[].class;
            case BOOLEAN: return boolean[].class;
            case INT: return int[].class;
            case LONG: return long[].class;
            case FLOAT: return float[].class;
            case DOUBLE: return double[].class;
            default: return null;
        }
    }

    /** Byte offset of the index within a pair kind. */
    public static int indexOffset(final int kind)
    {
        return INDEX_OFFSETS[kind];
    }
}
