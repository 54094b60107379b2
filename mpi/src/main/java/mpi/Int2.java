package mpi;

/**
 * The pair type MPI_2INT value and index: two ints, laid out as C lays out the struct (value, then index, aligned), for
 * {@code MINLOC} and {@code MAXLOC}; {@code MPI.int2} is the instance. {@link #getData}
 * gives a {@link Data} view of one pair in a buffer.
 */
public final class Int2 extends Struct
{
    private final int valueOffset = addInt();
    private final int indexOffset = addInt();

    Int2()
    {
    }

    /** {@code MPI.INT2}: the same layout, so that data sent as either is received as the other. */
    @Override
    Datatype namedType()
    {
        return MPI.INT2;
    }

    @Override
    protected Data newData()
    {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data
    {
        public int getValue()
        {
            return getInt(valueOffset);
        }

        public int getIndex()
        {
            return getInt(indexOffset);
        }

        public void putValue(final int v)
        {
            putInt(valueOffset, v);
        }

        public void putIndex(final int i)
        {
            putInt(indexOffset, i);
        }
    }
}
