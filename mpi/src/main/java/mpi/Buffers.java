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
 * <p>Arrays are addressed from element 0, buffers from their first element (their position is
 * ignored), as in Open MPI's bindings; {@code MPI.slice} makes a buffer that starts further in.
 * A direct buffer's first element is at its {@code address} field, which a slice or view already
 * points at its own start; a heap buffer's is {@code arrayOffset()} elements into its array.
 * A null buffer is allowed with count 0 (MPI lets any buffer go with count 0): it resolves to
 * an empty array, so the engines never see a null base with a zero offset.
 *
 * <p>Three calls instead of one result object, so that a send allocates nothing here:
 * {@link #bytes} checks and sizes, then {@link #base} and {@link #offset} address.
 */
final class Buffers
{
    static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long BOOLEAN_ARRAY_BASE = UnsafeApi.arrayBaseOffset(boolean[].class);
    private static final long CHAR_ARRAY_BASE = UnsafeApi.arrayBaseOffset(char[].class);
    private static final long SHORT_ARRAY_BASE = UnsafeApi.arrayBaseOffset(short[].class);
    private static final long INT_ARRAY_BASE = UnsafeApi.arrayBaseOffset(int[].class);
    private static final long LONG_ARRAY_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    private static final long FLOAT_ARRAY_BASE = UnsafeApi.arrayBaseOffset(float[].class);
    private static final long DOUBLE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    /** What a null buffer of count 0 resolves to. */
    private static final byte[] EMPTY = new byte[0];

    private Buffers()
    {
    }

    /**
     * Checks {@code count}, {@code type} and {@code buf} (kind, and room for {@code count}
     * elements from its first element) and returns the number of bytes of the message.
     */
    static long bytes(final Object buf, final int count, final Datatype type)
    {
        return bytesAt(buf, 0, count, type);
    }

    /**
     * As {@link #bytes}, for {@code count} items starting {@code at} bytes into the buffer (a
     * block of a gather or an all-to-all): every byte they touch must lie in the buffer.
     */
    static long bytesAt(final Object buf, final long at, final int count, final Datatype type)
    {
        // Every call of every send, receive and file access comes through here: the checks that
        // fail go to methods of their own, so that what the JIT compiles per call is small.
        if (count < 0 || type == null || !type.usable() || buf == null)
        {
            return unusual(buf, count, type);
        }
        final long bytes = (long)count * type.size;
        final long capacityBytes = buf instanceof Buffer ? bufferBytes((Buffer)buf) : arrayBytes(buf);
        if (capacityBytes < 0)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffer must be a primitive array or a " +
                "java.nio.Buffer: type=" + buf.getClass().getName());
        }
        if (type.derived)
        {
            return derivedBytes(buf, at, count, type, bytes, capacityBytes);
        }
        if (bytes > 0 && (at < 0 || at + bytes > capacityBytes))
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "buffer too small for count: count=" + count +
                ", datatype=" + type.getName() + ", atByte=" + at + ", neededBytes=" + bytes + ", bufferBytes=" +
                capacityBytes);
        }
        return bytes;
    }

    /**
     * {@link #bytesAt} of a negative count, a null, freed or uncommitted type, or a null buffer:
     * the error in the order the checks are made, or 0 for a null buffer of count 0.
     */
    private static long unusual(final Object buf, final int count, final Datatype type)
    {
        if (count < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + count);
        }
        MPI.checkDatatype(type);
        if (!type.usable())
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "datatype not committed: " + type.getName());
        }
        if (count == 0)
        {
            return 0;
        }
        throw new MPIException(ErrorClass.ERR_BUFFER, "null buffer with count=" + count);
    }

    private static long bufferBytes(final Buffer b)
    {
        if (!b.isDirect() && !b.hasArray())
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "heap buffers without an accessible array " +
                "(read-only, or a view of another type) are not supported: buffer=" + b.getClass().getSimpleName());
        }
        return (long)b.capacity() * elementSize(b);
    }

    /**
     * Every byte the type map touches must lie in the buffer's memory: checked before anything
     * moves. Open MPI checks nothing here, so a type with a negative lower bound over
     * {@code MPI.slice(buf, k)} reaches back before the slice's first element into {@code buf}.
     * shmpi allows the same, but only within the memory the buffer is a view of (the whole
     * array, or the whole direct allocation), so nothing outside the application's own buffer
     * can be read or written.
     */
    private static long derivedBytes(final Object buf, final long at, final int count, final Datatype type,
        final long bytes, final long capacityBytes)
    {
        if (count == 0)
        {
            return 0;
        }
        final long low = at + type.map.touchedLow(count);
        final long high = at + type.map.touchedHigh(count);
        if ((low < 0 || high > capacityBytes) && !withinAllocation(buf, low, high))
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, "datatype runs outside the buffer: count=" + count +
                ", datatype=" + type.getName() + ", touches bytes [" + low + ", " + high + "), bufferBytes=" +
                capacityBytes);
        }
        return bytes;
    }

    /**
     * Whether bytes {@code [low, high)} from {@code buf}'s first element lie within the memory
     * {@code buf} is a view of: the whole backing array of a heap buffer, the whole allocation
     * (or mapping) a direct buffer was sliced from. False for an array (its first element is
     * its start) or when the allocation cannot be found.
     */
    private static boolean withinAllocation(final Object buf, final long low, final long high)
    {
        if (!(buf instanceof Buffer))
        {
            return false;
        }
        final Buffer b = (Buffer)buf;
        final int elementSize = elementSize(b);
        if (!b.isDirect())
        {
            final long before = (long)b.arrayOffset() * elementSize;
            return low >= -before && high <= arrayBytes(b.array()) - before;
        }
        final Object root = Allocation.root(b);
        if (!(root instanceof Buffer) || !((Buffer)root).isDirect())
        {
            return false;
        }
        final Buffer r = (Buffer)root;
        final long start = UnsafeApi.getLong(r, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
        final long end = start + (long)r.capacity() * elementSize(r);
        final long address = UnsafeApi.getLong(b, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
        return address + low >= start && address + high <= end;
    }

    /**
     * The buffer a direct buffer was made from (by slice, duplicate or a view), read from the
     * JDK's attachment field ({@code att}) of each direct buffer class; the buffer itself when
     * it has none. Only used when a check would otherwise fail.
     */
    private static final class Allocation extends ClassValue<Long>
    {
        private static final Allocation OFFSETS = new Allocation();

        @Override
        protected Long computeValue(final Class<?> type)
        {
            for (Class<?> c = type; c != null; c = c.getSuperclass())
            {
                try
                {
                    return UnsafeApi.objectFieldOffset(c.getDeclaredField("att"));
                }
                catch (final NoSuchFieldException | RuntimeException ex)
                {
                    // not declared here: try the superclass
                }
            }
            return -1L;
        }

        static Object root(final Buffer b)
        {
            Object at = b;
            for (int hops = 0; hops < 8 && at instanceof Buffer; hops++)
            {
                final long offset = OFFSETS.get(at.getClass());
                final Object next = offset < 0 ? null : UnsafeApi.getReference(at, offset);
                if (!(next instanceof Buffer))
                {
                    return at;
                }
                at = next;
            }
            return at;
        }
    }

    /** The {@code Unsafe} base object of a buffer checked by {@link #bytes}: its array, or null when direct. */
    static Object base(final Object buf)
    {
        if (buf == null)
        {
            return EMPTY;
        }
        if (buf instanceof Buffer)
        {
            final Buffer b = (Buffer)buf;
            return b.isDirect() ? null : b.array();
        }
        return buf;
    }

    /** The {@code Unsafe} offset (or, when direct, the address) of the first element of a checked buffer. */
    static long offset(final Object buf)
    {
        if (buf == null)
        {
            return BYTE_ARRAY_BASE;
        }
        if (buf instanceof Buffer)
        {
            final Buffer b = (Buffer)buf;
            if (b.isDirect())
            {
                return UnsafeApi.getLong(b, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
            }
            return arrayBase(b.array()) + (long)b.arrayOffset() * elementSize(b);
        }
        return arrayBase(buf);
    }

    private static long arrayBase(final Object array)
    {
        return array instanceof byte[] ? BYTE_ARRAY_BASE : otherArrayBase(array);
    }

    private static long otherArrayBase(final Object array)
    {
        if (array instanceof int[])
        {
            return INT_ARRAY_BASE;
        }
        if (array instanceof double[])
        {
            return DOUBLE_ARRAY_BASE;
        }
        if (array instanceof long[])
        {
            return LONG_ARRAY_BASE;
        }
        if (array instanceof float[])
        {
            return FLOAT_ARRAY_BASE;
        }
        if (array instanceof char[])
        {
            return CHAR_ARRAY_BASE;
        }
        if (array instanceof short[])
        {
            return SHORT_ARRAY_BASE;
        }
        return BOOLEAN_ARRAY_BASE;
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

    /**
     * The size in bytes of a primitive array, -1 for anything else. By type tests rather than
     * {@code java.lang.reflect.Array.getLength}, a native call that is slow before the JIT
     * compiler has run (every call of a fresh job) and not inlined by C1.
     */
    private static long arrayBytes(final Object buf)
    {
        return buf instanceof byte[] ? ((byte[])buf).length : otherArrayBytes(buf);
    }

    private static long otherArrayBytes(final Object buf)
    {
        if (buf instanceof int[])
        {
            return ((int[])buf).length * 4L;
        }
        if (buf instanceof double[])
        {
            return ((double[])buf).length * 8L;
        }
        if (buf instanceof long[])
        {
            return ((long[])buf).length * 8L;
        }
        if (buf instanceof float[])
        {
            return ((float[])buf).length * 4L;
        }
        if (buf instanceof char[])
        {
            return ((char[])buf).length * 2L;
        }
        if (buf instanceof short[])
        {
            return ((short[])buf).length * 2L;
        }
        if (buf instanceof boolean[])
        {
            return ((boolean[])buf).length;
        }
        return -1;
    }
}
