package mpi;

import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;

/**
 * What a communicator carries besides its group and contexts, behind {@link Comm}'s methods for
 * them: cached attributes and their keyvals (the predefined attributes answered here), info
 * hints, the name, and the per-peer traffic counters. The values live in the {@link Comm}; the
 * rules live here.
 */
final class CommAttributes
{
    /** The keyvals of communicator attributes. */
    static final Attributes KEYVALS = new Attributes("communicator");

    private CommAttributes()
    {
    }

    /** {@code getAttr}: a predefined attribute's value, or the value cached under {@code keyval} (or null). */
    static Object get(final Comm comm, final int keyval)
    {
        comm.check();
        switch (keyval)
        {
            case MPI.TAG_UB: return Comm.MAX_TAG;
            case MPI.HOST: return MPI.PROC_NULL;
            case MPI.IO: return MPI.ANY_SOURCE;
            case MPI.WTIME_IS_GLOBAL: return 1;
            case MPI.APPNUM: return Spawns.appnum();
            case MPI.LASTUSEDCODE: return ErrorCodes.lastUsed();
            case MPI.UNIVERSE_SIZE: return Spawns.universeSize();
            default:
                try
                {
                    if (keyval < 0)
                    {
                        throw new MPIException(ErrorClass.ERR_KEYVAL, "invalid keyval: " + keyval);
                    }
                    return comm.attributes.get(keyval);
                }
                catch (final RuntimeException ex)
                {
                    throw comm.handle(ex);
                }
        }
    }

    /** {@code setAttr}: the predefined attributes are read-only. */
    static void set(final Comm comm, final int keyval, final Object value)
    {
        try
        {
            comm.check();
            if (keyval >= 0 && keyval <= MPI.UNIVERSE_SIZE)
            {
                throw new MPIException(ErrorClass.ERR_KEYVAL, "setAttr: predefined attribute " + keyval +
                    " is read-only");
            }
            comm.attributes.set(comm, keyval, value);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code deleteAttr}: the predefined attributes cannot be deleted. */
    static void delete(final Comm comm, final int keyval)
    {
        try
        {
            comm.check();
            if (keyval >= 0 && keyval <= MPI.UNIVERSE_SIZE)
            {
                throw new MPIException(ErrorClass.ERR_KEYVAL, "deleteAttr: predefined attribute " + keyval +
                    " cannot be deleted");
            }
            comm.attributes.delete(comm, keyval);
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code setInfo}: {@code comm}'s hints become a copy of {@code newInfo}'s. */
    static void setInfo(final Comm comm, final Info newInfo)
    {
        try
        {
            comm.check();
            if (newInfo == null || newInfo.isNull())
            {
                throw new MPIException(ErrorClass.ERR_INFO, "setInfo: null or freed info");
            }
            final Info copy = newInfo.dup();
            synchronized (comm)
            {
                comm.info = copy;
            }
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code getInfo}: a copy of {@code comm}'s hints. */
    static Info getInfo(final Comm comm)
    {
        try
        {
            comm.check();
            synchronized (comm)
            {
                return comm.info.dup();
            }
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code setName}: cut at {@code MPI.MAX_OBJECT_NAME - 1} characters. */
    static void setName(final Comm comm, final String newName)
    {
        try
        {
            comm.check();
            if (newName == null)
            {
                throw new MPIException(ErrorClass.ERR_ARG, "setName: null name");
            }
            comm.name = newName.length() >= MPI.MAX_OBJECT_NAME ?
                newName.substring(0, MPI.MAX_OBJECT_NAME - 1) : newName;
        }
        catch (final RuntimeException ex)
        {
            throw comm.handle(ex);
        }
    }

    /** {@code getPeerCounters}: the transport's counters of the world ranks {@code comm} addresses. */
    static PeerCounters peerCounters(final Comm comm)
    {
        comm.check();
        final RankContext ctx = MPI.context();
        final long[] ms = ctx.transport().messagesSent();
        final long[] bs = ctx.transport().bytesSent();
        final long[] mr = ctx.transport().messagesReceived();
        final long[] br = ctx.transport().bytesReceived();
        final int n = comm.peers.length;
        final long[][] out = new long[4][n];
        for (int i = 0; i < n; i++)
        {
            final int w = comm.peers[i];
            out[0][i] = ms[w];
            out[1][i] = bs[w];
            out[2][i] = mr[w];
            out[3][i] = br[w];
        }
        return new PeerCounters(out[0], out[1], out[2], out[3]);
    }
}
