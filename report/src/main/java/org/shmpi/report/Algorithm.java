package org.shmpi.report;

/** Which algorithm ran a collective call. */
public enum Algorithm
{
    FLAT("flat shared memory"),
    HIERARCHICAL("hierarchical (NUMA)"),
    PIPELINED("pipelined shared memory"),
    P2P("point-to-point schedule");

    private final String label;

    Algorithm(final String label)
    {
        this.label = label;
    }

    /** How the report names the algorithm. */
    public String label()
    {
        return label;
    }
}
