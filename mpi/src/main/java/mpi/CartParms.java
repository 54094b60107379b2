package mpi;

/** Java binding of {@code MPI_CART_GET}'s results: the grid's dimensions, periods and the caller's coordinates. */
public final class CartParms
{
    private final int[] dims;
    private final boolean[] periods;
    private final int[] coords;

    CartParms(final int[] dims, final boolean[] periods, final int[] coords)
    {
        this.dims = dims;
        this.periods = periods;
        this.coords = coords;
    }

    /** Number of dimensions. */
    public int getDimCount()
    {
        return dims.length;
    }

    /** Processes along dimension {@code i}. */
    public int getDim(final int i)
    {
        return dims[i];
    }

    /** Whether dimension {@code i} wraps around. */
    public boolean getPeriod(final int i)
    {
        return periods[i];
    }

    /** The caller's coordinate along dimension {@code i}. */
    public int getCoord(final int i)
    {
        return coords[i];
    }
}
