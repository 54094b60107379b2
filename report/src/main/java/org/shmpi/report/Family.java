package org.shmpi.report;

/** What an MPI call belongs to, for the sections of the report. */
public enum Family
{
    P2P("point-to-point"),
    COLLECTIVE("collective"),
    RMA("one-sided"),
    IO("MPI-IO"),
    OTHER("other");

    private final String label;

    Family(final String label)
    {
        this.label = label;
    }

    /** How the report names the family. */
    public String label()
    {
        return label;
    }
}
