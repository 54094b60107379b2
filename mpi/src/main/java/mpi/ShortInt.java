package mpi;

/**
 * The pair type MPI_SHORT_INT: a short value and an int index, laid out as C lays out the struct (value, then index,
 * aligned), for
 * {@code MINLOC} and {@code MAXLOC}; {@code MPI.shortInt} is the instance. {@link #getData}
 * gives a {@link Data} view of one pair in a buffer.
 */
public final class ShortInt extends Struct
{
    private final int valueOffset = addShort();
    private final int indexOffset = addInt();

    ShortInt()
    {
    }

    /** {@code MPI.SHORT_INT}: the same layout, so that data sent as either is received as the other. */
    @Override
    Datatype namedType()
    {
        return MPI.SHORT_INT;
    }

    @Override
    protected Data newData()
    {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data
    {
        public short getValue()
        {
            return getShort(valueOffset);
        }

        public int getIndex()
        {
            return getInt(indexOffset);
        }

        public void putValue(final short v)
        {
            putShort(valueOffset, v);
        }

        public void putIndex(final int i)
        {
            putInt(indexOffset, i);
        }
    }
}
