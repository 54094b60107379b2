package org.shmpi.ring;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/** Thrown out of a blocking call when the job was aborted while the call waited. */
public final class JobAbortedException extends ShmpiException
{
    private static final long serialVersionUID = 1L;

    public JobAbortedException(final String message)
    {
        super(ErrorClass.ERR_OTHER, message);
    }
}
