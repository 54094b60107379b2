package mpi;

import static mpi.Collectives.*;

import org.shmpi.coll.Reducer;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.reduce.Reductions;

/**
 * The reductions of the collectives: a predefined op runs its {@code types} kernel (cached per op on the
 * datatype), a user op its Java function on arrays or byte buffers ({@link UserOpReducer}); and
 * {@code MPI_REDUCE_LOCAL}.
 * Arguments, packing and the running of schedules are {@link Collectives}'.
 */
final class OpReducers
{
    private OpReducers()
    {
    }

    /**
     * The reduction of {@code op} on items of {@code type}: a predefined op runs its kernel on
     * the type's elements, which must all be of one basic kind that MPI allows for the op; a
     * user op runs its function (arrays when {@code arrays}, else byte buffers).
     */
    static Reducer reducer(final Op op, final Datatype type, final boolean arrays)
    {
        if (op == null || op.isNull())
        {
            throw new MPIException(ErrorClass.ERR_OP, "null or freed operation: " + op);
        }
        if (op.function != null)
        {
            return UserOpReducer.of(op, type, arrays);
        }
        if (op.code == Reductions.REPLACE || op.code == Reductions.NO_OP)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is for one-sided accumulates only");
        }
        final int kind = type.uniformKind();
        final Reductions.Kernel kernel = kind < 0 ? null : Reductions.kernel(op.code, kind);
        if (kernel == null)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is not defined on " +
                type.getName() + (kind < 0 ? " (elements of several kinds)" : ""));
        }
        final Object cached = type.reducers[op.code];
        if (cached != null)
        {
            return (KernelReducer)cached;
        }
        final KernelReducer made = new KernelReducer(kernel, type.size / BasicKind.size(kind));
        type.reducers[op.code] = made;
        return made;
    }

    /** A predefined op: its kernel runs on arrays and on shared memory alike. */
    private static final class KernelReducer implements Reducer
    {
        private final Reductions.Kernel kernel;
        private final long perItem;

        KernelReducer(final Reductions.Kernel kernel, final long perItem)
        {
            this.kernel = kernel;
            this.perItem = perItem;
        }

        @Override
        public Class<?> elementArray()
        {
            return Reductions.arrayClass(kernel);
        }

        @Override
        public void apply(final byte[] in, final int inOffset, final byte[] inout, final int inoutOffset,
            final int items)
        {
            kernel.apply(in, BYTES + inOffset, inout, BYTES + inoutOffset, items * perItem);
        }

        @Override
        public void applyAt(final Object inBase, final long inOffset, final Object inoutBase, final long inoutOffset,
            final int items, final int bytes)
        {
            kernel.apply(inBase, inOffset, inoutBase, inoutOffset, items * perItem);
        }
    }

    static boolean isArray(final Object buf)
    {
        return buf != null && buf.getClass().isArray();
    }

    /** Java binding of {@code MPI_REDUCE_LOCAL}: {@code inoutbuf = inbuf op inoutbuf}, element-wise, locally. */
    static void reduceLocal(final Object inbuf, final Object inoutbuf, final int count, final Datatype type,
        final Op op)
    {
        final Reducer r = reducer(op, type, isArray(inoutbuf));
        final int bytes = check(inbuf, 0, count, type);
        check(inoutbuf, 0, count, type);
        final DataLayout layout = type.layout();
        if (layout.isContiguous())
        {
            // On the caller's memory: a predefined op's kernel (on two arrays of the element type,
            // the vectorised loop itself); a user op's function on the caller's own arrays, or on
            // views of its direct buffers, where it can.
            r.applyAt(Buffers.base(inbuf), Buffers.offset(inbuf), Buffers.base(inoutbuf), Buffers.offset(inoutbuf),
                count, bytes);
            return;
        }
        if (r instanceof UserOpReducer)
        {
            // Packed straight into the function's arrays or buffers, and the result unpacked from them.
            ((UserOpReducer)r).reduce(layout, Buffers.base(inbuf), Buffers.offset(inbuf), Buffers.base(inoutbuf),
                Buffers.offset(inoutbuf), count, bytes);
            return;
        }
        final byte[] a = packed(inbuf, 0, count, type);
        final byte[] b = packed(inoutbuf, 0, count, type);
        r.apply(a, 0, b, 0, count);
        unpack(b, 0, b.length, inoutbuf, 0, type);
    }
}
