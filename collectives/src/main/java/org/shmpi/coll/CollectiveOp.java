package org.shmpi.coll;

/**
 * The collective operations whose algorithm a setting chooses ({@code shmpi.coll.<op>.algorithm}):
 * the shared-memory algorithms exist for these; every other collective runs point-to-point
 * schedules.
 */
public enum CollectiveOp
{
    BARRIER("barrier"),
    BCAST("bcast"),
    REDUCE("reduce"),
    ALLREDUCE("allreduce"),
    GATHER("gather"),
    SCATTER("scatter"),
    ALLGATHER("allgather"),
    ALLTOALL("alltoall"),
    REDUCESCATTER("reducescatter");

    private final String settingName;

    CollectiveOp(final String settingName)
    {
        this.settingName = settingName;
    }

    /** The {@code <op>} of its {@code shmpi.coll.<op>.algorithm} setting. */
    public String settingName()
    {
        return settingName;
    }
}
