package mpi;

/**
 * The pair type MPI_FLOAT_INT: a float value and an int index, laid out as C lays out the struct (value, then index,
 * aligned), for
 * {@code MINLOC} and {@code MAXLOC}; {@code MPI.floatInt} is the instance. {@link #getData}
 * gives a {@link Data} view of one pair in a buffer.
 */
public final class FloatInt extends Struct
{
    private final int valueOffset = addFloat();
    private final int indexOffset = addInt();

    FloatInt()
    {
    }

    /** {@code MPI.FLOAT_INT}: the same layout, so that data sent as either is received as the other. */
    @Override
    Datatype namedType()
    {
        return MPI.FLOAT_INT;
    }

    @Override
    protected Data newData()
    {
        return new Data();
    }

    /** One pair in a buffer. */
    public final class Data extends Struct.Data
    {
        public float getValue()
        {
            return getFloat(valueOffset);
        }

        public int getIndex()
        {
            return getInt(indexOffset);
        }

        public void putValue(final float v)
        {
            putFloat(valueOffset, v);
        }

        public void putIndex(final int i)
        {
            putInt(indexOffset, i);
        }
    }
}
