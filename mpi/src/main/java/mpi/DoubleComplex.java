package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;

/**
 * A view of one complex number ({@code MPI.DOUBLE_COMPLEX}: real part, then imaginary part) in a
 * buffer or array, as in Open MPI's bindings: {@code get(buffer, index)} views the
 * {@code index}-th number.
 */
public final class DoubleComplex
{
    private final DoubleBuffer buffer;
    private final int at;

    private DoubleComplex(final DoubleBuffer buffer, final int index)
    {
        this.buffer = buffer;
        this.at = 2 * index;
    }

    public static DoubleComplex get(final DoubleBuffer buffer)
    {
        return get(buffer, 0);
    }

    public static DoubleComplex get(final DoubleBuffer buffer, final int index)
    {
        return new DoubleComplex(buffer, index);
    }

    public static DoubleComplex get(final double[] array)
    {
        return get(array, 0);
    }

    public static DoubleComplex get(final double[] array, final int index)
    {
        return new DoubleComplex(DoubleBuffer.wrap(array), index);
    }

    /** Over a byte buffer in native order. */
    public static DoubleComplex get(final ByteBuffer buffer)
    {
        return get(buffer, 0);
    }

    public static DoubleComplex get(final ByteBuffer buffer, final int index)
    {
        return new DoubleComplex(buffer.duplicate().order(ByteOrder.nativeOrder()).asDoubleBuffer(), index);
    }

    public double getReal()
    {
        return buffer.get(at);
    }

    public double getImag()
    {
        return buffer.get(at + 1);
    }

    public void putReal(final double real)
    {
        buffer.put(at, real);
    }

    public void putImag(final double imag)
    {
        buffer.put(at + 1, imag);
    }

    /** The buffer the view reads and writes. */
    public DoubleBuffer getBuffer()
    {
        return buffer;
    }
}
