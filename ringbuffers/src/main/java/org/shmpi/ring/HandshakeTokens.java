package org.shmpi.ring;

import org.agrona.collections.Long2ObjectHashMap;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * Tokens name requests across ranks in hand-shakes: a synchronous or rendezvous send waits under
 * its token for the receiver's ACK or CTS; a rendezvous receive waits under its token for RDATA
 * fragments. Progress thread only.
 */
final class HandshakeTokens
{
    private final Long2ObjectHashMap<SendRequest> sends = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<RecvRequest> recvs = new Long2ObjectHashMap<>();
    private long next = 1;

    long next()
    {
        return next++;
    }

    /** Gives {@code s} a token (if it has none) and registers it to be found by it. */
    void awaitReply(final SendRequest s)
    {
        if (s.token == 0)
        {
            s.token = next++;
        }
        sends.put(s.token, s);
    }

    void awaitData(final RecvRequest r)
    {
        r.token = next++;
        recvs.put(r.token, r);
    }

    /** Removes and returns the send waiting under {@code token}; a frame for an unknown one is a bug. */
    SendRequest takeSend(final long token, final String frame)
    {
        final SendRequest s = sends.remove(token);
        if (s == null)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, frame + " for an unknown send: token=" + token);
        }
        return s;
    }

    RecvRequest recv(final long token)
    {
        final RecvRequest r = recvs.get(token);
        if (r == null)
        {
            throw new ShmpiException(ErrorClass.ERR_INTERN, "data for an unknown receive: token=" + token);
        }
        return r;
    }

    void doneRecv(final long token)
    {
        recvs.remove(token);
    }

    /** Appends the hand-shakes in progress by peer (status reports). */
    void describe(final StringBuilder out)
    {
        if (!sends.isEmpty())
        {
            final PeerSummary waiting = new PeerSummary();
            sends.values().forEach(s -> waiting.add(s.dest, s.tag, s.length));
            waiting.appendTo(out, "sends waiting for the receiver (synchronous ack or rendezvous go-ahead)", "to");
        }
        if (!recvs.isEmpty())
        {
            final PeerSummary waiting = new PeerSummary();
            recvs.values().forEach(r -> waiting.add(r.matchedSource, r.matchedTag, r.messageLength));
            waiting.appendTo(out, "matched receives waiting for their data", "from");
        }
    }
}
