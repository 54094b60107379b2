package mpi;

import org.shmpi.shm.ErrorClass;

/**
 * An MPI datatype. This release has the basic types: each maps one Java primitive array type
 * (and the matching {@link java.nio.Buffer} type) to elements of a fixed size. As in Open MPI a
 * datatype is {@link Freeable} and {@link Cloneable}: {@link #clone()} is {@link #dup()}, a new
 * datatype with the same type map that the application frees; the predefined ones
 * ({@code MPI.INT}, ...) cannot be freed.
 */
public final class Datatype implements Freeable, Cloneable
{
    static final int NULL_ID = 0;
    static final int BYTE_ID = 1;
    static final int CHAR_ID = 2;
    static final int SHORT_ID = 3;
    static final int BOOLEAN_ID = 4;
    static final int INT_ID = 5;
    static final int LONG_ID = 6;
    static final int FLOAT_ID = 7;
    static final int DOUBLE_ID = 8;
    static final int PACKED_ID = 9;
    static final int INT2_ID = 10;
    static final int SHORT_INT_ID = 11;
    static final int LONG_INT_ID = 12;
    static final int FLOAT_INT_ID = 13;
    static final int DOUBLE_INT_ID = 14;
    static final int FLOAT_COMPLEX_ID = 15;
    static final int DOUBLE_COMPLEX_ID = 16;

    final int id;
    final int size;
    /** Basic elements per item: 2 for the pair and complex types, else 1. */
    final int elementsPerItem;
    /** Size of the first element of a pair (for counting a partial pair), else the size. */
    final int firstPartSize;
    private final String name;
    /** One of the {@code MPI.XXX} constants, which cannot be freed; false for a dup. */
    private final boolean predefined;
    /** Set by {@link #free()} of a dup: it is then {@code MPI.DATATYPE_NULL}. */
    private boolean freed;

    private Datatype(
        final int id, final int size, final String name)
    {
        this(id, size, name, 1, size, true);
    }

    private Datatype(
        final int id,
        final int size,
        final String name,
        final int elementsPerItem,
        final int firstPartSize)
    {
        this(id, size, name, elementsPerItem, firstPartSize, true);
    }

    private Datatype(
        final int id,
        final int size,
        final String name,
        final int elementsPerItem,
        final int firstPartSize,
        final boolean predefined)
    {
        this.id = id;
        this.size = size;
        this.name = name;
        this.elementsPerItem = elementsPerItem;
        this.firstPartSize = firstPartSize;
        this.predefined = predefined;
    }

    static Datatype basic(final int id)
    {
        switch (id)
        {
            case NULL_ID: return new Datatype(NULL_ID, 0, "MPI_DATATYPE_NULL");
            case BYTE_ID: return new Datatype(BYTE_ID, 1, "MPI_BYTE");
            case CHAR_ID: return new Datatype(CHAR_ID, 2, "MPI_CHAR");
            case SHORT_ID: return new Datatype(SHORT_ID, 2, "MPI_SHORT");
            case BOOLEAN_ID: return new Datatype(BOOLEAN_ID, 1, "MPI_BOOLEAN");
            case INT_ID: return new Datatype(INT_ID, 4, "MPI_INT");
            case LONG_ID: return new Datatype(LONG_ID, 8, "MPI_LONG");
            case FLOAT_ID: return new Datatype(FLOAT_ID, 4, "MPI_FLOAT");
            case DOUBLE_ID: return new Datatype(DOUBLE_ID, 8, "MPI_DOUBLE");
            case PACKED_ID: return new Datatype(PACKED_ID, 1, "MPI_PACKED");
            // Pair types as laid out in a direct ByteBuffer: value, then int index, C alignment.
            case INT2_ID: return new Datatype(INT2_ID, 8, "MPI_2INT", 2, 4);
            case SHORT_INT_ID:
                return new Datatype(SHORT_INT_ID, 8, "MPI_SHORT_INT", 2, 2);
            case LONG_INT_ID: return new Datatype(LONG_INT_ID, 16, "MPI_LONG_INT", 2, 8);
            case FLOAT_INT_ID: return new Datatype(FLOAT_INT_ID, 8, "MPI_FLOAT_INT", 2, 4);
            case DOUBLE_INT_ID:
                return new Datatype(DOUBLE_INT_ID, 16, "MPI_DOUBLE_INT", 2, 8);
            case FLOAT_COMPLEX_ID:
                return new Datatype(FLOAT_COMPLEX_ID, 8, "MPI_C_FLOAT_COMPLEX", 2, 4);
            case DOUBLE_COMPLEX_ID: return new Datatype(DOUBLE_COMPLEX_ID, 16, "MPI_C_DOUBLE_COMPLEX", 2, 8);
            default: throw new IllegalArgumentException("unknown basic datatype: id=" + id);
        }
    }

    /** Java binding of {@code MPI_TYPE_SIZE}: bytes of data in one element. */
    public int getSize()
    {
        return size;
    }

    /** Java binding of {@code MPI_TYPE_GET_EXTENT}: the extent, in elements of the base type (1). */
    public int getExtent()
    {
        return 1;
    }

    /** Java binding of {@code MPI_TYPE_GET_EXTENT}: the lower bound (0 for basic types). */
    public int getLb()
    {
        return 0;
    }

    /** Java binding of {@code MPI_TYPE_GET_NAME}. */
    public String getName()
    {
        return name;
    }

    /** Java binding of {@code MPI_TYPE_COMMIT}; basic types are always committed. */
    public void commit()
    {
        // Basic types need no commit.
    }

    /**
     * Java binding of {@code MPI_TYPE_DUP}: a new datatype with the same type map (and name),
     * to be freed by the application.
     */
    public Datatype dup()
    {
        MPI.check();
        try
        {
            MPI.checkDatatype(this);
        }
        catch (final MPIException ex)
        {
            throw MPI.COMM_WORLD.handle(ex);
        }
        return new Datatype(id, size, name, elementsPerItem, firstPartSize, false);
    }

    /** Java binding of {@code MPI_TYPE_DUP}, as in Open MPI: the same as {@link #dup()}. */
    @Override
    public Datatype clone()
    {
        return dup();
    }

    /**
     * Java binding of {@code MPI_TYPE_FREE}: a datatype made by {@link #dup()} becomes
     * {@code MPI.DATATYPE_NULL} (operations already started with it are not affected). The
     * predefined types cannot be freed: {@code MPI.ERR_TYPE}, raised on {@code MPI.COMM_WORLD}
     * (MPI's rule for errors outside any communicator).
     */
    @Override
    public void free()
    {
        MPI.check();
        if (predefined || freed)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_TYPE, predefined ?
                "a predefined datatype cannot be freed: " + name : "datatype already freed: " + name));
        }
        freed = true;
    }

    /** Whether this is {@code MPI.DATATYPE_NULL} (or a freed dup). */
    public boolean isNull()
    {
        return id == NULL_ID || freed;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
