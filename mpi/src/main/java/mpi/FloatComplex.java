package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * A view of one complex number ({@code MPI.FLOAT_COMPLEX}: real part, then imaginary part) in a
 * buffer or array, as in Open MPI's bindings: {@code get(buffer, index)} views the
 * {@code index}-th number.
 */
public final class FloatComplex
{
    private final FloatBuffer buffer;
    private final int at;

    private FloatComplex(final FloatBuffer buffer, final int index)
    {
        this.buffer = buffer;
        this.at = 2 * index;
    }

    public static FloatComplex get(final FloatBuffer buffer)
    {
        return get(buffer, 0);
    }

    public static FloatComplex get(final FloatBuffer buffer, final int index)
    {
        return new FloatComplex(buffer, index);
    }

    public static FloatComplex get(final float[] array)
    {
        return get(array, 0);
    }

    public static FloatComplex get(final float[] array, final int index)
    {
        return new FloatComplex(FloatBuffer.wrap(array), index);
    }

    /** Over a byte buffer in native order. */
    public static FloatComplex get(final ByteBuffer buffer)
    {
        return get(buffer, 0);
    }

    public static FloatComplex get(final ByteBuffer buffer, final int index)
    {
        return new FloatComplex(buffer.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer(), index);
    }

    public float getReal()
    {
        return buffer.get(at);
    }

    public float getImag()
    {
        return buffer.get(at + 1);
    }

    public void putReal(final float real)
    {
        buffer.put(at, real);
    }

    public void putImag(final float imag)
    {
        buffer.put(at + 1, imag);
    }

    /** The buffer the view reads and writes. */
    public FloatBuffer getBuffer()
    {
        return buffer;
    }
}
