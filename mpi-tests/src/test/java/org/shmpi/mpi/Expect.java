package org.shmpi.mpi;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/** The assertions of the point-to-point checks, as the shmrun check programs they replace had them. */
final class Expect
{
    private Expect()
    {
    }

    /** Fails this rank with {@code what} unless {@code ok}. */
    static void expect(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }

    /**
     * Fails if a message that no check received has arrived on {@code COMM_WORLD} or
     * {@code COMM_SELF} of this rank; receives every such message first, so that the next method
     * of the job (the methods of a class share one job per rank count) does not take it for its own.
     */
    static void nothingLeftUnreceived()
    {
        final StringBuilder left = new StringBuilder();
        int count = 0;
        for (final Comm comm : new Comm[] {MPI.COMM_WORLD, MPI.COMM_SELF})
        {
            Status s;
            while (count < 1000 && (s = comm.iProbe(MPI.ANY_SOURCE, MPI.ANY_TAG)) != null)
            {
                final int bytes = s.getCount(MPI.BYTE);
                comm.recv(new byte[bytes], bytes, MPI.BYTE, s.getSource(), s.getTag());
                left.append(count++ == 0 ? "" : "; ").append(comm.getName()).append(" source ").append(s.getSource())
                    .append(" tag ").append(s.getTag()).append(", ").append(bytes).append(" bytes");
            }
        }
        if (count > 0)
        {
            throw new AssertionError(count + " message(s) left unreceived: " + left);
        }
    }

    /** {@code call} must throw an MPIException of {@code errorClass}. */
    static void expectError(final int errorClass, final Runnable call)
    {
        try
        {
            call.run();
        }
        catch (final MPIException ex)
        {
            expect(ex.getErrorClass() == errorClass, "expected error class " + errorClass + " got " +
                ex.getErrorClass() + ": " + ex.getMessage());
            return;
        }
        throw new AssertionError("expected error class " + errorClass + ", call succeeded");
    }
}
