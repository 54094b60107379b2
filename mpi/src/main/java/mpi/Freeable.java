package mpi;

/** A handle whose resources {@link #free()} releases. */
public interface Freeable
{
    /** Releases the object; it is unusable afterwards. */
    void free();
}
