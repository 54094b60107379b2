package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;

/**
 * Turns a user buffer (a primitive array, or a {@link Buffer}) plus count and datatype into the
 * {@code Unsafe} address pair the engines copy from or to, after checking it. Nothing here
 * touches shared memory: a bad buffer fails before any frame is written.
 *
 * <p>Arrays are addressed from element 0, direct buffers from their first element (their
 * position is ignored), as in Open MPI's bindings; use {@code MPI.slice} to start further in.
 */
final class Buffers
{
    /** Result of {@link #resolve}: where the data is, and how many bytes. */
    static final class Region
    {
        final Object base;
        final long offset;
        final long bytes;

        Region(final Object base, final long offset, final long bytes)
        {
            this.base = base;
            this.offset = offset;
            this.bytes = bytes;
        }
    }

    static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    private Buffers()
    {
    }

    static Region resolve(final Object buf, final int count, final Datatype type)
    {
        if (count < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + count);
        }
        MPI.checkDatatype(type);
        if (buf == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "null buffer with count=" + count);
        }
        final long bytes = (long)count * type.size;
        final Object base;
        final long offset;
        final long capacityBytes;
        if (buf instanceof Buffer)
        {
            final Buffer b = (Buffer)buf;
            final int elementSize = elementSize(b);
            capacityBytes = (long)b.capacity() * elementSize;
            if (b.isDirect())
            {
                base = null;
                offset = UnsafeApi.getLong(b, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
            }
            else if (b.hasArray())
            {
                final Object array = b.array();
                base = array;
                offset = UnsafeApi.arrayBaseOffset(array.getClass()) + (long)b.arrayOffset() * elementSize;
            }
            else
            {
                throw new MPIException(ErrorClass.ERR_BUFFER,
                    "read-only heap buffers are not supported: buffer=" + b.getClass().getSimpleName());
            }
        }
        else
        {
            final int elementSize = arrayElementSize(buf);
            if (elementSize == 0)
            {
                throw new MPIException(ErrorClass.ERR_BUFFER, "buffer must be a primitive array or a " +
                    "java.nio.Buffer: type=" + buf.getClass().getName());
            }
            base = buf;
            offset = UnsafeApi.arrayBaseOffset(buf.getClass());
            capacityBytes = (long)java.lang.reflect.Array.getLength(buf) * elementSize;
        }
        if (bytes > capacityBytes)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffer too small for count: count=" + count +
                ", datatype=" + type.getName() + ", neededBytes=" + bytes + ", bufferBytes=" + capacityBytes);
        }
        return new Region(base, offset, bytes);
    }

    private static int elementSize(final Buffer b)
    {
        if (b instanceof ByteBuffer)
        {
            return 1;
        }
        if (b instanceof CharBuffer || b instanceof ShortBuffer)
        {
            return 2;
        }
        if (b instanceof IntBuffer || b instanceof FloatBuffer)
        {
            return 4;
        }
        if (b instanceof LongBuffer || b instanceof DoubleBuffer)
        {
            return 8;
        }
        throw new MPIException(ErrorClass.ERR_BUFFER, "unsupported buffer type: " + b.getClass().getName());
    }

    private static int arrayElementSize(final Object buf)
    {
        if (buf instanceof byte[] || buf instanceof boolean[])
        {
            return 1;
        }
        if (buf instanceof char[] || buf instanceof short[])
        {
            return 2;
        }
        if (buf instanceof int[] || buf instanceof float[])
        {
            return 4;
        }
        if (buf instanceof long[] || buf instanceof double[])
        {
            return 8;
        }
        return 0;
    }
}
