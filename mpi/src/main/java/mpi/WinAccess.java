package mpi;

import java.nio.Buffer;

import org.shmpi.rma.ShmWindow;
import org.shmpi.shm.ErrorClass;
import org.shmpi.types.BasicKind;
import org.shmpi.types.DataLayout;
import org.shmpi.types.TypeMap;
import org.shmpi.types.reduce.Reductions;

/**
 * The one-sided communication operations of a {@link Win}, behind its put, get, accumulate,
 * get-accumulate, fetch-and-op and compare-and-swap: every argument is checked before anything
 * in shared memory is touched, then the operation runs on the window's {@link ShmWindow}.
 * Failures go through the window's error handler.
 */
final class WinAccess
{
    private WinAccess()
    {
    }

    private static TypeMap targetMap(final Datatype type)
    {
        return type.derived ? type.map : null;
    }

    /** Checks the target type and that it carries as many bytes as the origin. */
    private static void checkTarget(final long originBytes, final int targetCount, final Datatype targetType)
    {
        if (targetCount < 0)
        {
            throw new MPIException(ErrorClass.ERR_COUNT, "negative target count: " + targetCount);
        }
        MPI.checkDatatype(targetType);
        if (!targetType.usable())
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "target datatype not committed: " + targetType.getName());
        }
        if ((long)targetCount * targetType.size != originBytes)
        {
            throw new MPIException(ErrorClass.ERR_TYPE, "origin data has " + originBytes + " bytes, target data " +
                (long)targetCount * targetType.size + ": the type signatures differ");
        }
    }

    /** {@link Win#put} ({@code put}) or {@link Win#get}, checked, through the window's error handler. */
    static void move(final Win win, final boolean put, final Buffer origin, final int orgCount, final Datatype orgType,
        final int targetRank, final int targetDisp, final int targetCount, final Datatype targetType)
    {
        final ShmWindow w = win.live();
        try
        {
            final long bytes = Buffers.bytes(origin, orgCount, orgType);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(bytes, targetCount, targetType);
            if (put)
            {
                w.put(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                    targetMap(targetType), targetCount);
            }
            else
            {
                w.get(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                    targetMap(targetType), targetCount);
            }
        }
        catch (final RuntimeException ex)
        {
            throw win.handle(ex);
        }
    }

    /**
     * The kernel of a predefined {@code op} on the elements of {@code type} (which must all be of
     * one basic kind, the same as {@code other}'s); REPLACE and NO_OP included, user ops refused.
     */
    private static Reductions.Kernel accumulateKernel(final Op op, final Datatype type, final Datatype other)
    {
        if (op == null || op.isNull())
        {
            throw new MPIException(ErrorClass.ERR_OP, "null or freed operation");
        }
        if (op.function != null)
        {
            throw new MPIException(ErrorClass.ERR_OP, "one-sided accumulates take predefined operations only");
        }
        MPI.checkDatatype(type);
        final int kind = type.uniformKind();
        if (other != null)
        {
            MPI.checkDatatype(other);
            if (other.uniformKind() != kind)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "origin and target datatypes must be made of the same " +
                    "predefined datatype: " + type.getName() + ", " + other.getName());
            }
        }
        final Reductions.Kernel kernel = kind < 0 ? null : Reductions.kernel(op.code, kind);
        if (kernel == null)
        {
            throw new MPIException(ErrorClass.ERR_OP, Reductions.name(op.code) + " is not defined on " +
                type.getName() + (kind < 0 ? " (elements of several kinds)" : ""));
        }
        return kernel;
    }

    /** {@link Win#accumulate}. */
    static void accumulate(final Win win, final Buffer origin, final int orgCount, final Datatype orgType,
        final int targetRank, final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
    {
        final ShmWindow w = win.live();
        try
        {
            final long bytes = Buffers.bytes(origin, orgCount, orgType);
            accumulateKernel(op, orgType, targetType);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(bytes, targetCount, targetType);
            w.accumulate(Buffers.base(origin), Buffers.offset(origin), orgType.layout(), bytes, targetRank, targetDisp,
                targetMap(targetType), targetCount, op.code, orgType.uniformKind(), null, 0, null);
        }
        catch (final RuntimeException ex)
        {
            throw win.handle(ex);
        }
    }

    /** {@link Win#getAccumulate}. */
    static void getAccumulate(final Win win, final Buffer origin, final int orgCount, final Datatype orgType,
        final Buffer result, final int resultCount, final Datatype resultType, final int targetRank,
        final int targetDisp, final int targetCount, final Datatype targetType, final Op op)
    {
        final ShmWindow w = win.live();
        try
        {
            final long resultBytes = Buffers.bytes(result, resultCount, resultType);
            accumulateKernel(op, resultType, targetType);
            // With NO_OP the origin buffer is not read (MPI lets it be anything).
            final boolean noOp = op.code == Reductions.NO_OP && op.function == null;
            final long bytes = noOp ? resultBytes : Buffers.bytes(origin, orgCount, orgType);
            if (!noOp)
            {
                accumulateKernel(op, orgType, targetType);
            }
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            checkTarget(resultBytes, targetCount, targetType);
            if (bytes != resultBytes)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "origin has " + bytes + " bytes, result " + resultBytes);
            }
            final Object base = noOp ? Buffers.base(result) : Buffers.base(origin);
            final long offset = noOp ? Buffers.offset(result) : Buffers.offset(origin);
            final Datatype inType = noOp ? resultType : orgType;
            if (noOp && !resultType.layout().isContiguous())
            {
                // The kernel reads nothing of the origin; any contiguous bytes of the right length will do.
                final byte[] ignored = new byte[(int)bytes];
                w.accumulate(ignored, Buffers.BYTE_ARRAY_BASE, DataLayout.CONTIGUOUS, bytes,
                    targetRank, targetDisp, targetMap(targetType), targetCount, op.code, resultType.uniformKind(),
                    Buffers.base(result), Buffers.offset(result),
                    resultType.layout());
                return;
            }
            w.accumulate(base, offset, inType.layout(), bytes, targetRank, targetDisp, targetMap(targetType),
                targetCount, op.code, resultType.uniformKind(), Buffers.base(result),
                Buffers.offset(result), resultType.layout());
        }
        catch (final RuntimeException ex)
        {
            throw win.handle(ex);
        }
    }

    /** {@link Win#fetchAndOp}. */
    static void fetchAndOp(final Win win, final Buffer origin, final Buffer result, final Datatype type,
        final int targetRank, final int targetDisp, final Op op)
    {
        final ShmWindow w = win.live();
        try
        {
            accumulateKernel(op, type, null);
            if (type.derived)
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "fetchAndOp takes a predefined datatype, not " +
                    type.getName());
            }
            final boolean noOp = op.code == Reductions.NO_OP;
            Buffers.bytes(result, 1, type);
            if (!noOp)
            {
                Buffers.bytes(origin, 1, type);
            }
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            final int kind = type.uniformKind();
            final Object inBase = noOp ? Buffers.base(result) : Buffers.base(origin);
            final long inOffset = noOp ? Buffers.offset(result) : Buffers.offset(origin);
            w.fetchAndOp(inBase, inOffset, Buffers.base(result), Buffers.offset(result), op.code, kind, targetRank,
                targetDisp);
        }
        catch (final RuntimeException ex)
        {
            throw win.handle(ex);
        }
    }

    /** {@link Win#compareAndSwap}. */
    static void compareAndSwap(final Win win, final Buffer origin, final Buffer compare, final Buffer result,
        final Datatype type, final int targetRank, final int targetDisp)
    {
        final ShmWindow w = win.live();
        try
        {
            MPI.checkDatatype(type);
            final int kind = type.uniformKind();
            if (type.derived || !(kind == BasicKind.BYTE || kind == BasicKind.CHAR || kind == BasicKind.SHORT ||
                kind == BasicKind.BOOLEAN || kind == BasicKind.INT || kind == BasicKind.LONG))
            {
                throw new MPIException(ErrorClass.ERR_TYPE, "compareAndSwap takes an integer, boolean or byte " +
                    "datatype, not " + type.getName());
            }
            Buffers.bytes(origin, 1, type);
            Buffers.bytes(compare, 1, type);
            Buffers.bytes(result, 1, type);
            if (targetRank == MPI.PROC_NULL)
            {
                return;
            }
            w.compareAndSwap(Buffers.base(origin), Buffers.offset(origin), Buffers.base(compare),
                Buffers.offset(compare), Buffers.base(result), Buffers.offset(result), BasicKind.size(kind), targetRank,
                targetDisp);
        }
        catch (final RuntimeException ex)
        {
            throw win.handle(ex);
        }
    }
}
