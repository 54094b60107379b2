package org.shmpi.ring;

/** Messages and bytes sent to and received from each world rank. Progress thread only. */
final class TrafficCounters
{
    final long[] messagesSent;
    final long[] bytesSent;
    final long[] messagesReceived;
    final long[] bytesReceived;

    TrafficCounters(final int worldSize)
    {
        messagesSent = new long[worldSize];
        bytesSent = new long[worldSize];
        messagesReceived = new long[worldSize];
        bytesReceived = new long[worldSize];
    }

    void sent(final int dest, final long bytes)
    {
        messagesSent[dest]++;
        bytesSent[dest] += bytes;
    }

    void unsent(final int dest, final long bytes)
    {
        messagesSent[dest]--;
        bytesSent[dest] -= bytes;
    }

    void received(final int source, final long bytes)
    {
        messagesReceived[source]++;
        bytesReceived[source] += bytes;
    }
}
