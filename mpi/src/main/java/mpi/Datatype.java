package mpi;


/**
 * An MPI datatype. This release has the basic types: each maps one Java primitive array type
 * (and the matching {@link java.nio.Buffer} type) to elements of a fixed size.
 */
public final class Datatype
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

    private Datatype(
        final int id, final int size, final String name)
    {
        this(id, size, name, 1, size);
    }

    private Datatype(
        final int id, final int size, final String name, final int elementsPerItem, final int firstPartSize)
    {
        this.id = id;
        this.size = size;
        this.name = name;
        this.elementsPerItem = elementsPerItem;
        this.firstPartSize = firstPartSize;
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

    /** Java binding of {@code MPI_TYPE_FREE}; predefined types cannot be freed. */
    public void free()
    {
        // Predefined types are never freed.
    }

    /** Whether this is {@code MPI.DATATYPE_NULL}. */
    public boolean isNull()
    {
        return id == NULL_ID;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
