package mpi;

import org.shmpi.shm.ErrorClass;
import org.shmpi.types.reduce.Reductions;

/**
 * Java binding of {@code MPI_Op}: a reduction operation. The predefined ones are
 * {@code MPI.MAX}, {@code MIN}, {@code SUM}, {@code PROD}, {@code LAND}, {@code BAND},
 * {@code LOR}, {@code BOR}, {@code LXOR}, {@code BXOR}, {@code MINLOC}, {@code MAXLOC} (on the
 * datatypes MPI allows each, {@code MPI.ERR_OP} otherwise), and {@code REPLACE} and
 * {@code NO_OP}, which only one-sided accumulates take. {@code new Op(function, commute)} makes
 * a user operation ({@code MPI_OP_CREATE}); reductions apply every operation in rank order, so a
 * non-commutative one gets the order MPI requires, and the same inputs give the same bits on
 * every run.
 */
public final class Op implements Freeable
{
    /** {@link Reductions} code of a predefined operation; -1 for a user one. */
    final int code;
    final UserFunction function;
    /** What a user op's reductions keep between calls ({@link UserOpReducer}); null for a predefined op. */
    final UserOpReducer.OpState userState;
    private final boolean commute;
    private final String name;
    private volatile boolean freed;

    Op(final int code)
    {
        this.code = code;
        this.function = null;
        this.userState = null;
        this.commute = true;
        this.name = Reductions.name(code);
    }

    /**
     * Java binding of {@code MPI_OP_CREATE}: an operation computed by {@code function};
     * {@code commute} says whether it is commutative (it is always applied in rank order).
     */
    public Op(final UserFunction function, final boolean commute)
    {
        if (function == null)
        {
            throw new MPIException(ErrorClass.ERR_ARG, "Op: the user function is null");
        }
        this.code = -1;
        this.function = function;
        this.userState = new UserOpReducer.OpState();
        this.commute = commute;
        this.name = "user op " + function.getClass().getName();
    }

    /** Java binding of {@code MPI_OP_COMMUTATIVE}. */
    public boolean isCommutative()
    {
        return commute;
    }

    /**
     * Java binding of {@code MPI_OP_FREE}: a user operation becomes null ({@link #isNull()}).
     * Freeing a predefined operation is {@code MPI.ERR_OP}.
     */
    @Override
    public void free()
    {
        if (code >= 0)
        {
            throw new MPIException(ErrorClass.ERR_OP, "a predefined operation cannot be freed: " + name);
        }
        freed = true;
        userState.drop();
    }

    /** Whether this is {@code MPI_OP_NULL}: a freed user operation. */
    public boolean isNull()
    {
        return freed;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
