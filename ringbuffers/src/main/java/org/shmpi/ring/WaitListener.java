package org.shmpi.ring;

/** Told of each wait that idled long enough to be recorded, on the waiting thread (the job report). */
@FunctionalInterface
public interface WaitListener
{
    /** A wait on world rank {@code peer} (negative: none named) ended after {@code nanos} since it was recorded. */
    void waited(int peer, long nanos);
}
