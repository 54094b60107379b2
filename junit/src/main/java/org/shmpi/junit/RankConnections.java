package org.shmpi.junit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The controller's end of the per-rank connections of a test job ({@link Wire}): accepting each
 * rank's hello, sending the ranks their commands, and one reader thread per rank that turns what
 * the rank sends (a result, or the connection closing) into {@link Event}s on one queue.
 */
final class RankConnections
{
    private final int np;
    private final Socket[] sockets;
    private final DataOutputStream[] outs;
    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Thread> readers = new ArrayList<>();

    /** What a reader thread saw: a result, or (result null) the rank's connection closing. */
    static final class Event
    {
        final int rank;
        final Wire.Result result;

        Event(final int rank, final Wire.Result result)
        {
            this.rank = rank;
            this.result = result;
        }
    }

    RankConnections(final int np)
    {
        this.np = np;
        this.sockets = new Socket[np];
        this.outs = new DataOutputStream[np];
    }

    /**
     * Accepts connections on {@code server} until every rank of the job has said hello with
     * {@code token}; connections with a wrong token, size or rank are dropped.
     *
     * @throws MpiTestFailure when the launcher ends first or the ranks do not join within
     *                        {@code startTimeoutS}
     */
    void accept(final ServerSocket server, final long token, final int startTimeoutS, final ShmrunProcess launcher)
        throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(startTimeoutS);
        server.setSoTimeout(200);
        int joined = 0;
        while (joined < np)
        {
            if (!launcher.isAlive())
            {
                launcher.waitFor(2_000);
                throw new MpiTestFailure(-1, "the test job of " + np + " rank" + (np == 1 ? "" : "s") +
                    " ended before every rank joined (shmrun exit status " + launcher.exitValue() + ")\n" +
                    launcher.tail().describe());
            }
            if (System.nanoTime() > deadline)
            {
                throw new MpiTestFailure(-1, "the test job of " + np + " ranks did not start within " +
                    startTimeoutS + " s (" + Settings.START_TIMEOUT + "); " + joined + " rank(s) joined\n" +
                    launcher.tail().describe());
            }
            final Socket s;
            try
            {
                s = server.accept();
            }
            catch (final SocketTimeoutException ex)
            {
                continue;
            }
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            final int rank;
            try
            {
                if (in.readInt() != Wire.MAGIC || in.readLong() != token)
                {
                    s.close();
                    continue;
                }
                rank = in.readInt();
                final int size = in.readInt();
                in.readLong();
                if (size != np || rank < 0 || rank >= np || sockets[rank] != null)
                {
                    s.close();
                    continue;
                }
            }
            catch (final IOException ex)
            {
                s.close();
                continue;
            }
            s.setSoTimeout(0);
            sockets[rank] = s;
            outs[rank] = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            final Thread reader = new Thread(() -> read(rank, in), "shmpi-junit-rank-" + rank);
            reader.setDaemon(true);
            reader.start();
            readers.add(reader);
            joined++;
        }
    }

    private void read(final int rank, final DataInputStream in)
    {
        try
        {
            while (true)
            {
                events.add(new Event(rank, Wire.Result.read(rank, in)));
            }
        }
        catch (final IOException ex)
        {
            events.add(new Event(rank, null));
        }
    }

    /** True when some rank's connection has closed. */
    boolean anyClosed()
    {
        for (final Event e : events)
        {
            if (e.result == null)
            {
                return true;
            }
        }
        return false;
    }

    /** Drops the results still queued, keeping the news of connections that closed. */
    void dropResults()
    {
        events.removeIf(e -> e.result != null);
    }

    /** The next event, waiting up to {@code timeout}; null when none came. */
    Event poll(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return events.poll(timeout, unit);
    }

    /** Tells {@code rank} to run {@code className.methodName()} as run {@code id}. */
    void sendRun(final int rank, final int id, final String className, final String methodName) throws IOException
    {
        outs[rank].writeByte(Wire.RUN);
        outs[rank].writeInt(id);
        Wire.writeString(outs[rank], className);
        Wire.writeString(outs[rank], methodName);
        outs[rank].flush();
    }

    /** Tells every rank to finalize and exit; false when some rank could not be told. */
    boolean sendExit()
    {
        boolean all = true;
        for (final DataOutputStream out : outs)
        {
            try
            {
                out.writeByte(Wire.EXIT);
                out.flush();
            }
            catch (final IOException ex)
            {
                all = false;
            }
        }
        return all;
    }

    /** The reader threads, one per rank that joined. */
    List<Thread> readers()
    {
        return readers;
    }

    void close()
    {
        for (final Socket s : sockets)
        {
            if (s != null)
            {
                try
                {
                    s.close();
                }
                catch (final IOException ex)
                {
                    // Closing.
                }
            }
        }
    }
}
