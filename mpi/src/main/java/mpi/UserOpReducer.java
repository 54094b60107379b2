package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReference;

import org.agrona.UnsafeApi;
import org.shmpi.coll.Reducer;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;

/**
 * The reduction of a user op ({@code new Op(function, commute)}) on items of one datatype: calls
 * its {@link UserFunction}, copying no more than the form requires.
 * <p>
 * The form: arrays first when the operation was given Java arrays and the datatype's base type
 * has a primitive array (every type but the pair and complex ones), byte buffers otherwise. If
 * the function throws {@code UnsupportedOperationException} (it does not override that form) the
 * other form is called, and the op goes to that one first from then on.
 * <p>
 * What the function gets, operand by operand ({@code in}, {@code inout}):
 * <ul>
 * <li>arrays: an operand that is an array of the base type, from element 0 and exactly
 * {@code count} items long (the caller's own arrays in {@code reduceLocal} with a contiguous
 * datatype), is handed over itself; any other (a collective's packed bytes, shared memory, a
 * slice, a direct buffer, a longer array, a type with gaps) is copied into a scratch array of
 * exactly that length and, for {@code inout}, copied back: one copy in, one out;</li>
 * <li>byte buffers: native order, position 0, capacity and limit the items' bytes; a view of the
 * memory itself where it holds the packed bytes ({@code byte[]} data, a direct buffer, shared
 * memory), else a copy.</li>
 * </ul>
 * The scratch arrays belong to the op ({@link OpState}) and are reused from call to call. A
 * reducer is immutable; the op keeps the last one made, so a loop of reductions makes none.
 */
final class UserOpReducer implements Reducer
{
    /** A bit of {@link OpState#missingForms}: the function does not override the array form. */
    private static final int ARRAYS = 1;
    /** A bit of {@link OpState#missingForms}: the function does not override the byte buffer form. */
    private static final int BUFFERS = 2;

    private final UserFunction function;
    private final OpState state;
    private final Datatype type;
    /** Whether the operation was given arrays (the key of {@link OpState#last}). */
    private final boolean arraysGiven;
    /** The base type's primitive array class; null for the pair and complex types (byte buffers only). */
    private final Class<?> arrayClass;
    private final long arrayBase;
    private final int elementBytes;

    private UserOpReducer(final UserFunction function, final OpState state, final Datatype type,
        final boolean arraysGiven)
    {
        this.function = function;
        this.state = state;
        this.type = type;
        this.arraysGiven = arraysGiven;
        this.arrayClass = BasicKind.primitiveArray(type.id);
        this.arrayBase = arrayClass == null ? 0 : UnsafeApi.arrayBaseOffset(arrayClass);
        this.elementBytes = arrayClass == null ? 1 : UnsafeApi.arrayIndexScale(arrayClass);
    }

    /** The reducer of user op {@code op} on {@code type}; {@code arrays}: the operation was given Java arrays. */
    static UserOpReducer of(final Op op, final Datatype type, final boolean arrays)
    {
        final OpState s = op.userState;
        final UserOpReducer last = s.last;
        if (last != null && last.type == type && last.arraysGiven == arrays)
        {
            return last;
        }
        final UserOpReducer made = new UserOpReducer(op.function, s, type, arrays);
        // Benign race: a reducer has only final fields, so any thread may see and use it.
        s.last = made;
        return made;
    }

    @Override
    public void apply(final byte[] in, final int inOffset, final byte[] inout, final int inoutOffset, final int items)
    {
        reduce(DataLayout.CONTIGUOUS, in, BYTES + inOffset, inout, BYTES + inoutOffset, items,
            Collectives.intBytes((long)items * type.size));
    }

    @Override
    public void applyAt(final Object inBase, final long inOffset, final Object inoutBase, final long inoutOffset,
        final int items, final int bytes)
    {
        reduce(DataLayout.CONTIGUOUS, inBase, inOffset, inoutBase, inoutOffset, items, bytes);
    }

    /**
     * {@code inout = in op inout} for {@code items} items ({@code bytes} packed bytes) whose
     * operands are in {@code Unsafe} addressing and laid out in memory by {@code layout}
     * ({@code CONTIGUOUS}: as packed bytes; else a datatype's layout, packed into scratch).
     */
    void reduce(final DataLayout layout, final Object inBase, final long inOffset, final Object inoutBase,
        final long inoutOffset, final int items, final int bytes)
    {
        final int missing = state.missingForms;
        final boolean arrays = arrayClass != null && (arraysGiven ? (missing & ARRAYS) == 0 : (missing & BUFFERS) != 0);
        Scratch scratch = usesScratch(arrays, layout, inBase, inOffset, inoutBase, inoutOffset, bytes) ?
            state.take() : null;
        try
        {
            try
            {
                call(arrays, scratch, layout, inBase, inOffset, inoutBase, inoutOffset, items, bytes);
            }
            catch (final UnsupportedOperationException notThisForm)
            {
                if (arrayClass == null)
                {
                    throw notThisForm;
                }
                // Benign race: bits are only ever added; a lost one costs one more exception.
                state.missingForms |= arrays ? ARRAYS : BUFFERS;
                if (scratch == null && usesScratch(!arrays, layout, inBase, inOffset, inoutBase, inoutOffset, bytes))
                {
                    scratch = state.take();
                }
                call(!arrays, scratch, layout, inBase, inOffset, inoutBase, inoutOffset, items, bytes);
            }
        }
        finally
        {
            if (scratch != null)
            {
                state.giveBack(scratch);
            }
        }
    }

    /**
     * Whether the form needs the scratch: arrays, unless both operands are whole arrays of the
     * base type; byte buffers, unless both are {@code byte[]} data (native memory takes the
     * scratch's cached views, any other array a copy).
     */
    private boolean usesScratch(final boolean arrays, final DataLayout layout, final Object inBase,
        final long inOffset, final Object inoutBase, final long inoutOffset, final int bytes)
    {
        if (!layout.isContiguous())
        {
            return true;
        }
        if (arrays)
        {
            final int length = bytes / elementBytes;
            return !isWholeArray(inBase, inOffset, length) || !isWholeArray(inoutBase, inoutOffset, length);
        }
        return !(inBase instanceof byte[]) || !(inoutBase instanceof byte[]);
    }

    private void call(final boolean arrays, final Scratch scratch, final DataLayout layout, final Object inBase,
        final long inOffset, final Object inoutBase, final long inoutOffset, final int items, final int bytes)
    {
        if (arrays)
        {
            callWithArrays(scratch, layout, inBase, inOffset, inoutBase, inoutOffset, items, bytes);
        }
        else
        {
            callWithBuffers(scratch, layout, inBase, inOffset, inoutBase, inoutOffset, items, bytes);
        }
    }

    private void callWithArrays(final Scratch scratch, final DataLayout layout, final Object inBase,
        final long inOffset, final Object inoutBase, final long inoutOffset, final int items, final int bytes)
    {
        final int length = bytes / elementBytes;
        final boolean flat = layout.isContiguous();
        final Object a = flat && isWholeArray(inBase, inOffset, length) ? inBase : scratch.array(arrayClass, length, 0);
        final Object b = flat && isWholeArray(inoutBase, inoutOffset, length) ? inoutBase :
            scratch.array(arrayClass, length, 1);
        if (a != inBase)
        {
            layout.pack(inBase, inOffset, 0, a, arrayBase, bytes);
        }
        if (b != inoutBase)
        {
            layout.pack(inoutBase, inoutOffset, 0, b, arrayBase, bytes);
        }
        function.call(a, b, items, type);
        if (b != inoutBase)
        {
            layout.unpack(b, arrayBase, bytes, inoutBase, inoutOffset, 0);
        }
    }

    /** Whether {@code base}/{@code offset} is an array of the base type from element 0, {@code length} long. */
    private boolean isWholeArray(final Object base, final long offset, final int length)
    {
        return offset == arrayBase && base != null && base.getClass() == arrayClass && Scratch.length(base) == length;
    }

    private void callWithBuffers(final Scratch scratch, final DataLayout layout, final Object inBase,
        final long inOffset, final Object inoutBase, final long inoutOffset, final int items, final int bytes)
    {
        final boolean flat = layout.isContiguous();
        ByteBuffer a = flat ? view(scratch, inBase, inOffset, bytes, 0) : null;
        if (a == null)
        {
            final byte[] copy = scratch.bytes(bytes, 0);
            layout.pack(inBase, inOffset, 0, copy, BYTES, bytes);
            a = view(scratch, copy, BYTES, bytes, 0);
        }
        ByteBuffer b = flat ? view(scratch, inoutBase, inoutOffset, bytes, 1) : null;
        final byte[] inoutCopy = b == null ? scratch.bytes(bytes, 1) : null;
        if (inoutCopy != null)
        {
            layout.pack(inoutBase, inoutOffset, 0, inoutCopy, BYTES, bytes);
            b = view(scratch, inoutCopy, BYTES, bytes, 1);
        }
        function.call(a, b, items, type);
        if (inoutCopy != null)
        {
            layout.unpack(inoutCopy, BYTES, bytes, inoutBase, inoutOffset, 0);
        }
    }

    /**
     * A native-order byte buffer of exactly {@code bytes} bytes at {@code base}/{@code offset}
     * (operand {@code operand}), sharing that memory: for a {@code byte[]}, or native memory (a
     * null base: a direct buffer's or shared memory's address); null for any other array.
     */
    private static ByteBuffer view(final Scratch scratch, final Object base, final long offset, final int bytes,
        final int operand)
    {
        if (base instanceof byte[])
        {
            return ByteBuffer.wrap((byte[])base, (int)(offset - BYTES), bytes).slice().order(ByteOrder.nativeOrder());
        }
        return base == null ? scratch.nativeView(offset, bytes, operand) : null;
    }

    /**
     * What the reductions of one user op keep from call to call: its scratch arrays, the forms its
     * function lacks, and the last reducer made.
     */
    static final class OpState
    {
        /** The scratch when no reduction holds it; null while one does (or before the first). */
        private final AtomicReference<Scratch> idle = new AtomicReference<>();
        /** {@link #ARRAYS} and {@link #BUFFERS} bits: forms whose call threw {@code UnsupportedOperationException}. */
        volatile int missingForms;
        /** Read and written racily: see {@link #of}. */
        UserOpReducer last;

        /**
         * The op's scratch for one reduction. A reduction that finds it taken (one on another
         * thread, or the function itself reducing with its own op) gets one of its own.
         */
        Scratch take()
        {
            final Scratch s = idle.getAndSet(null);
            return s != null ? s : new Scratch();
        }

        void giveBack(final Scratch s)
        {
            idle.set(s);
        }

        /** {@code MPI_OP_FREE}: lets the scratch go (a reduction still running gives its back when it ends). */
        void drop()
        {
            idle.set(null);
            last = null;
        }
    }

    /**
     * Scratch arrays of exact lengths, since a function may loop to its arrays' length: a few
     * lengths are kept ({@link #WAYS}, which covers a pipelined collective's full and last chunks),
     * each with an array per operand, the least recently used replaced. Arrays of more than
     * {@link #KEPT_MAX_BYTES} are made per call and not kept, so that one huge reduction does not
     * hold its memory for the op's lifetime. Not for concurrent use ({@link OpState#take}).
     */
    static final class Scratch
    {
        static final int WAYS = 4;
        static final int KEPT_MAX_BYTES = 1 << 20;

        /** Per way: the array of operand 0 ({@code in}) and 1 ({@code inout}), of one class and length. */
        private final Object[][] arrays = new Object[WAYS][2];
        private final Class<?>[] classes = new Class<?>[WAYS];
        private final int[] lengths = new int[WAYS];
        private final long[] lastUse = new long[WAYS];
        private long uses;
        /** Byte scratch of the buffer form, per operand: grown as needed (a view has the exact length). */
        private final byte[][] bytes = {new byte[0], new byte[0]};
        /** Per operand: the last view of native memory and its address, reused while they are the same. */
        private final ByteBuffer[] views = new ByteBuffer[2];
        private final long[] viewAddresses = new long[2];

        /** An array of {@code arrayClass}, exactly {@code length} long, for operand {@code operand} (0 or 1). */
        Object array(final Class<?> arrayClass, final int length, final int operand)
        {
            int way = -1;
            int oldest = 0;
            for (int w = 0; w < WAYS; w++)
            {
                if (classes[w] == arrayClass && lengths[w] == length)
                {
                    way = w;
                    break;
                }
                if (lastUse[w] < lastUse[oldest])
                {
                    oldest = w;
                }
            }
            if (way < 0)
            {
                if ((long)length * UnsafeApi.arrayIndexScale(arrayClass) > KEPT_MAX_BYTES)
                {
                    return newArray(arrayClass, length);
                }
                way = oldest;
                classes[way] = arrayClass;
                lengths[way] = length;
                arrays[way][0] = null;
                arrays[way][1] = null;
            }
            lastUse[way] = ++uses;
            Object a = arrays[way][operand];
            if (a == null)
            {
                a = newArray(arrayClass, length);
                arrays[way][operand] = a;
            }
            return a;
        }

        /** A byte array of at least {@code length} bytes for operand {@code operand} (0 or 1). */
        byte[] bytes(final int length, final int operand)
        {
            final byte[] b = bytes[operand];
            if (b.length >= length)
            {
                return b;
            }
            final byte[] made = new byte[length];
            if (length <= KEPT_MAX_BYTES)
            {
                bytes[operand] = made;
            }
            return made;
        }

        /**
         * A byte buffer over {@code bytes} bytes of native memory at {@code address}, for operand
         * {@code operand}: made by JNI's {@code NewDirectByteBuffer} (through JNA, as Segment's
         * views; it does not own the memory), which costs more than a small reduction, so the last
         * one is kept and handed out again, cleared and in native order, for the same memory (a
         * loop of reduceLocal on the same direct buffers).
         */
        ByteBuffer nativeView(final long address, final int bytes, final int operand)
        {
            if (bytes == 0)
            {
                return ByteBuffer.allocate(0).order(ByteOrder.nativeOrder());
            }
            ByteBuffer v = views[operand];
            if (v == null || viewAddresses[operand] != address || v.capacity() != bytes)
            {
                v = new com.sun.jna.Pointer(address).getByteBuffer(0, bytes);
                views[operand] = v;
                viewAddresses[operand] = address;
            }
            v.clear();
            return v.order(ByteOrder.nativeOrder());
        }

        /**
         * A new primitive array; by class tests rather than {@code java.lang.reflect.Array}, whose
         * native calls are slow before the JIT has compiled them (the first calls of a job).
         */
        private static Object newArray(final Class<?> arrayClass, final int length)
        {
            if (arrayClass == double[].class)
            {
                return new double[length];
            }
            if (arrayClass == int[].class)
            {
                return new int[length];
            }
            if (arrayClass == long[].class)
            {
                return new long[length];
            }
            if (arrayClass == float[].class)
            {
                return new float[length];
            }
            if (arrayClass == byte[].class)
            {
                return new byte[length];
            }
            if (arrayClass == short[].class)
            {
                return new short[length];
            }
            if (arrayClass == char[].class)
            {
                return new char[length];
            }
            if (arrayClass == boolean[].class)
            {
                return new boolean[length];
            }
            throw new IllegalArgumentException("not a primitive array class: " + arrayClass);
        }

        /** The length of a primitive array (as {@link #newArray}, without reflection). */
        static int length(final Object array)
        {
            if (array instanceof double[])
            {
                return ((double[])array).length;
            }
            if (array instanceof int[])
            {
                return ((int[])array).length;
            }
            if (array instanceof long[])
            {
                return ((long[])array).length;
            }
            if (array instanceof float[])
            {
                return ((float[])array).length;
            }
            if (array instanceof byte[])
            {
                return ((byte[])array).length;
            }
            if (array instanceof short[])
            {
                return ((short[])array).length;
            }
            if (array instanceof char[])
            {
                return ((char[])array).length;
            }
            if (array instanceof boolean[])
            {
                return ((boolean[])array).length;
            }
            throw new IllegalArgumentException("not a primitive array: " + array.getClass());
        }
    }
}
