package mpi;

import java.lang.ref.Reference;

import org.shmpi.shm.ErrorClass;

/**
 * The work behind {@link Comm}'s pack and unpack methods ({@code MPI_PACK}, {@code MPI_UNPACK},
 * their sizes, and the {@code "external32"} forms): items travel through the type's layout as
 * they would in a message; the packed buffer is checked before any byte moves, by the two checks
 * at the end of this class.
 */
final class Packing
{
    private Packing()
    {
    }

    /** {@code pack}: returns the position after the packed items. */
    static int pack(
        final Comm comm, final Object inbuf, final int incount, final Datatype type, final byte[] outbuf,
        final int position)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(inbuf, incount, type);
            checkPackBuffer(outbuf, position, bytes, "pack");
            type.layout().pack(Buffers.base(inbuf), Buffers.offset(inbuf), 0, outbuf,
                Buffers.BYTE_ARRAY_BASE + position, bytes);
            return (int)(position + bytes);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(inbuf);
        }
    }

    /** {@code unpack}: returns the position after the unpacked items. */
    static int unpack(
        final Comm comm, final byte[] inbuf, final int position, final Object outbuf, final int outcount,
        final Datatype type)
    {
        try
        {
            comm.check();
            final long bytes = Buffers.bytes(outbuf, outcount, type);
            checkPackBuffer(inbuf, position, bytes, "unpack");
            type.layout().unpack(inbuf, Buffers.BYTE_ARRAY_BASE + position, bytes, Buffers.base(outbuf),
                Buffers.offset(outbuf), 0);
            return (int)(position + bytes);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(outbuf);
        }
    }

    /** {@code packSize}: bytes that {@code pack} needs for {@code incount} items of {@code type}. */
    static int packSize(final Comm comm, final int incount, final Datatype type)
    {
        try
        {
            comm.check();
            if (incount < 0)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + incount);
            }
            MPI.checkDatatype(type);
            final long bytes = (long)incount * type.size;
            if (bytes > Integer.MAX_VALUE)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "packSize beyond 2 GiB: bytes=" + bytes);
            }
            return (int)bytes;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code packExternal}: packs locally, then converts to {@code "external32"} ({@link External32}). */
    static int packExternal(
        final Comm comm, final String datarep, final Object inbuf, final int incount, final Datatype type,
        final byte[] outbuf, final int position)
    {
        try
        {
            comm.check();
            checkDatarep(datarep);
            final long bytes = Buffers.bytes(inbuf, incount, type);
            final int external = External32.size(incount, type);
            checkPackBuffer(outbuf, position, external, "packExternal");
            final byte[] local = new byte[(int)bytes];
            type.layout().pack(Buffers.base(inbuf), Buffers.offset(inbuf), 0, local, Buffers.BYTE_ARRAY_BASE, bytes);
            External32.convert(local, 0, outbuf, position, incount, type, true);
            return position + external;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(inbuf);
        }
    }

    /** {@code unpackExternal}: converts from {@code "external32"}, then unpacks locally. */
    static int unpackExternal(
        final Comm comm, final String datarep, final byte[] inbuf, final int position, final Object outbuf,
        final int outcount, final Datatype type)
    {
        try
        {
            comm.check();
            checkDatarep(datarep);
            final long bytes = Buffers.bytes(outbuf, outcount, type);
            final int external = External32.size(outcount, type);
            checkPackBuffer(inbuf, position, external, "unpackExternal");
            final byte[] local = new byte[(int)bytes];
            External32.convert(local, 0, inbuf, position, outcount, type, false);
            type.layout().unpack(local, Buffers.BYTE_ARRAY_BASE, bytes, Buffers.base(outbuf), Buffers.offset(outbuf),
                0);
            return position + external;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
        finally
        {
            Reference.reachabilityFence(outbuf);
        }
    }

    /** {@code packExternalSize}: bytes {@code packExternal} needs. */
    static int packExternalSize(final Comm comm, final String datarep, final int incount, final Datatype type)
    {
        try
        {
            checkDatarep(datarep);
            if (incount < 0)
            {
                throw new MPIException(ErrorClass.ERR_COUNT, "negative count: count=" + incount);
            }
            MPI.checkDatatype(type);
            return External32.size(incount, type);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    private static void checkDatarep(final String datarep)
    {
        if (!"external32".equals(datarep))
        {
            throw new MPIException(ErrorClass.ERR_ARG, "datarep must be \"external32\": " + datarep);
        }
    }

    private static void checkPackBuffer(final byte[] packed, final int position, final long bytes, final String what)
    {
        if (packed == null)
        {
            throw new MPIException(ErrorClass.ERR_BUFFER, what + ": null packed buffer");
        }
        if (position < 0 || position > packed.length)
        {
            throw new MPIException(ErrorClass.ERR_ARG, what + ": position " + position + " outside the packed " +
                "buffer of " + packed.length + " bytes");
        }
        if (position + bytes > packed.length)
        {
            throw new MPIException(ErrorClass.ERR_TRUNCATE, what + ": " + bytes + " bytes from position " +
                position + " do not fit the packed buffer of " + packed.length + " bytes");
        }
    }
}
