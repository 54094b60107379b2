package mpi;

/** Java binding of the result of {@code MPI_GET_VERSION}: the MPI standard version implemented. */
public final class Version
{
    private final int version;
    private final int subVersion;

    Version(final int version, final int subVersion)
    {
        this.version = version;
        this.subVersion = subVersion;
    }

    /** The major version ({@code MPI.VERSION}). */
    public int getVersion()
    {
        return version;
    }

    /** The minor version ({@code MPI.SUBVERSION}). */
    public int getSubVersion()
    {
        return subVersion;
    }

    @Override
    public String toString()
    {
        return version + "." + subVersion;
    }
}
