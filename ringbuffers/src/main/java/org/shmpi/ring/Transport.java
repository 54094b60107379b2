package org.shmpi.ring;

import org.shmpi.types.DataLayout;

/**
 * A rank's point-to-point messaging: what the {@code mpi} layer and the collective, window and
 * file engines send and receive through. Ranks are world ranks, {@code context} a context id of
 * {@link ContextIds}; data is addressed as Unsafe base/offset and copied through a
 * {@link DataLayout}. Waiting is the {@link ProgressEngine}'s: a request returned here completes
 * in the rank's duty cycle, whichever transport moves its frames.
 *
 * <p>{@link PointToPointEngine} implements it over shared-memory inboxes; a transport that reaches
 * ranks on other machines implements it too and is made by a {@link TransportFactory}.
 */
public interface Transport extends AutoCloseable
{
    /** Largest message sent eagerly (copied into the receiver's queue without a handshake). */
    long eagerLimit();

    /** Blocking standard-mode send of {@code length} contiguous bytes. */
    void send(int context, int dest, int tag, Object base, long offset, long length);

    /** Blocking standard-mode send of {@code length} packed bytes laid out as {@code layout}. */
    void send(int context, int dest, int tag, Object base, long offset, long length, DataLayout layout);

    /** Blocking standard-mode send, recorded as MPI call {@code call} if it blocks. */
    void send(int context, int dest, int tag, Object base, long offset, long length, int call);

    /** Starts a contiguous send in {@code mode} ({@link SendRequest}'s modes). */
    SendRequest isend(int context, int dest, int tag, Object base, long offset, long length, int mode);

    /**
     * Starts a send laid out as {@code layout}; a send that completed at once may return a shared
     * completed request. The buffer stays untouched until the request completes.
     */
    SendRequest isend(int context, int dest, int tag, Object base, long offset, long length, int mode,
        DataLayout layout);

    /**
     * Blocking contiguous receive. A single-threaded transport may reuse the returned request on
     * the next blocking receive.
     */
    RecvRequest recv(int context, int source, int tag, Object base, long offset, long capacity);

    /** Blocking receive into memory laid out as {@code layout}. */
    RecvRequest recv(int context, int source, int tag, Object base, long offset, long capacity, DataLayout layout);

    /** Blocking receive, recorded as MPI call {@code call} if it blocks. */
    RecvRequest recv(int context, int source, int tag, Object base, long offset, long capacity, DataLayout layout,
        int call);

    /** Starts a contiguous receive. */
    RecvRequest irecv(int context, int source, int tag, Object base, long offset, long capacity);

    /** Starts a receive into memory laid out as {@code layout}. */
    RecvRequest irecv(int context, int source, int tag, Object base, long offset, long capacity, DataLayout layout);

    /** Posts a receive made by the caller. */
    void post(RecvRequest request);

    /** Receives a message taken by {@link #matchedProbe} into contiguous memory. */
    RecvRequest matchedReceive(UnexpectedMessage msg, Object base, long offset, long capacity);

    /** Receives a message taken by {@link #matchedProbe} into memory laid out as {@code layout}. */
    RecvRequest matchedReceive(UnexpectedMessage msg, Object base, long offset, long capacity, DataLayout layout);

    /** The first matching message not yet received (left queued), or null. */
    UnexpectedMessage probe(int context, int source, int tag);

    /** Removes and returns the first matching message not yet received, or null. */
    UnexpectedMessage matchedProbe(int context, int source, int tag);

    /** Waits for a matching message and returns it, left queued. */
    UnexpectedMessage probeBlocking(int context, int source, int tag);

    /** Waits for a matching message, removes and returns it. */
    UnexpectedMessage matchedProbeBlocking(int context, int source, int tag);

    /** Cancels a request if it still can be; true if it was (it is then complete). */
    boolean cancel(EngineRequest request);

    /** One duty cycle if {@code request} is not complete yet, then whether it is. */
    boolean test(EngineRequest request);

    /** Messages sent to each world rank (a copy). */
    long[] messagesSent();

    /** Bytes sent to each world rank (a copy). */
    long[] bytesSent();

    /** Messages received from each world rank (a copy). */
    long[] messagesReceived();

    /** Bytes received from each world rank (a copy). */
    long[] bytesReceived();

    /** Stops taking part in the rank's duty cycle; the rank context frees the shared memory. */
    @Override
    void close();
}
