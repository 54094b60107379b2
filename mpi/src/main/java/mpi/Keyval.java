package mpi;

/**
 * + Attribute callbacks (MPI-2.2 section 6.7.2), which Open MPI's Java bindings lack: the copy
 * and delete functions a keyval made by {@code createKeyval(copy, delete)} runs. Open MPI's
 * no-argument {@code createKeyval()} is {@code createKeyval(Keyval.DUP, Keyval.NO_DELETE)}.
 */
public final class Keyval
{
    /**
     * Runs when the object an attribute is cached on is duplicated ({@code Datatype.dup}).
     * Returns the value the new object caches under the same keyval, or {@code null} to leave
     * the new object without it. An exception makes the dup fail: attributes already copied to
     * the new object are deleted again (their delete callbacks run) and the exception reaches
     * the caller ({@code MPI.ERR_OTHER} unless it is an {@link MPIException}).
     */
    @FunctionalInterface
    public interface Copy
    {
        /**
         * @param object the object being duplicated
         * @param keyval the attribute's keyval
         * @param value  the value cached on {@code object}
         * @return the new object's value, or {@code null} for none
         */
        Object copy(Object object, int keyval, Object value);
    }

    /**
     * Runs when a cached value goes: {@code deleteAttr}, {@code setAttr} over an existing value
     * (for the old one), and {@code free} of the object (each attribute, in no set order). An
     * exception makes that call fail with it ({@code MPI.ERR_OTHER} unless it is an
     * {@link MPIException}); the attribute is not removed then.
     */
    @FunctionalInterface
    public interface Delete
    {
        /**
         * @param object the object the value is cached on
         * @param keyval the attribute's keyval
         * @param value  the value going
         */
        void delete(Object object, int keyval, Object value);
    }

    /** {@code MPI_TYPE_DUP_FN} and its kin: the new object gets the same value object. */
    public static final Copy DUP = (object, keyval, value) -> value;

    /** {@code MPI_TYPE_NULL_COPY_FN} and its kin: the new object gets no value. */
    public static final Copy NO_COPY = (object, keyval, value) -> null;

    /** {@code MPI_TYPE_NULL_DELETE_FN} and its kin: nothing runs. */
    public static final Delete NO_DELETE = (object, keyval, value) -> { };

    private Keyval()
    {
    }
}
