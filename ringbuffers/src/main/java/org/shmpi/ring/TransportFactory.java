package org.shmpi.ring;

import java.io.IOException;

/**
 * Makes the point-to-point transport of a rank once its context holds every other service: the
 * seam where a transport other than the shared-memory one (or one routing between several) is
 * plugged in. The rank's own inbox exists before the transport: it carries the wake word every
 * engine of the rank sleeps on.
 */
@FunctionalInterface
public interface TransportFactory
{
    /** The shared-memory transport of {@link PointToPointEngine}. */
    TransportFactory SHARED_MEMORY = PointToPointEngine::new;

    /** Creates the transport of {@code context}, reading and writing frames through {@code inboxes}. */
    Transport create(RankContext context, InboxTransport inboxes) throws IOException;
}
