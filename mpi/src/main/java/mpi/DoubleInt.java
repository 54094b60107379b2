package mpi;

/**
 * The pair type MPI_DOUBLE_INT: a double value and an int index, laid out as C lays out the struct (value, then index,
 * aligned), for
 * {@code MINLOC} and {@code MAXLOC}; {@code MPI.doubleInt} is the instance. {@link #getData}
 * gives a {@link Data} view of one pair in a buffer.
 */
public final class DoubleInt extends Struct
{
    private final int valueOffset = addDouble();
    private final int indexOffset = addInt();

    DoubleInt()
    {
    }

    /** {@code MPI.DOUBLE_INT}: the same layout, so that data sent as either is received as the other. */
    @Override
    Datatype namedType()
    {
        return MPI.DOUBLE_INT;
    }

    @Override
    protected Data newData()
    {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data
    {
        public double getValue()
        {
            return getDouble(valueOffset);
        }

        public int getIndex()
        {
            return getInt(indexOffset);
        }

        public void putValue(final double v)
        {
            putDouble(valueOffset, v);
        }

        public void putIndex(final int i)
        {
            putInt(indexOffset, i);
        }
    }
}
