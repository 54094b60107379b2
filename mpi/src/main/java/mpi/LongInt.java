package mpi;

/**
 * The pair type MPI_LONG_INT: a long value and an int index, laid out as C lays out the struct (value, then index,
 * aligned), for
 * {@code MINLOC} and {@code MAXLOC}; {@code MPI.longInt} is the instance. {@link #getData}
 * gives a {@link Data} view of one pair in a buffer.
 */
public final class LongInt extends Struct
{
    private final int valueOffset = addLong();
    private final int indexOffset = addInt();

    LongInt()
    {
    }

    /** {@code MPI.LONG_INT}: the same layout, so that data sent as either is received as the other. */
    @Override
    Datatype namedType()
    {
        return MPI.LONG_INT;
    }

    @Override
    protected Data newData()
    {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data
    {
        public long getValue()
        {
            return getLong(valueOffset);
        }

        public int getIndex()
        {
            return getInt(indexOffset);
        }

        public void putValue(final long v)
        {
            putLong(valueOffset, v);
        }

        public void putIndex(final int i)
        {
            putInt(indexOffset, i);
        }
    }
}
