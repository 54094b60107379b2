package org.shmpi.bridge;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * How the nodes of a job learn about each other at start: every node's first rank registers its
 * node number, its bridge's address, its ranks and its ring capacity with one server (the first
 * node's first rank, or the launcher); once every node has registered, the server answers each
 * with the whole table. A connection must prove the job's secret first; a stranger is refused and
 * reported, and the server goes on waiting for the real nodes.
 *
 * <p>One round trip per node, all at once: the table is {@code nodes} entries of an address and a
 * rank list, a few bytes per rank.
 */
public final class Rendezvous
{
    /** "SHMPIRV1". */
    static final long MAGIC = 0x53484D5049525631L;
    private static final int OK = 0;
    private static final int REFUSED = 1;
    private static final int MISMATCH = 2;
    private static final int HANDSHAKE_TIMEOUT_MS = 2_000;

    /** One node's entry. */
    public record Entry(int node, InetSocketAddress bridge, int ringCapacity, int[] ranks)
    {
    }

    /** What every node gets back: the node of every rank and the bridge of every node. */
    public record Table(int[] nodeOfRank, InetSocketAddress[] bridges)
    {
    }

    private Rendezvous()
    {
    }

    /**
     * Serves one job's rendezvous on {@code server}: takes {@code own} as registered, waits for the
     * other {@code nodes - 1} within {@code timeoutMs}, answers everyone, and returns the table.
     *
     * @throws IOException naming the nodes that never registered, or the nodes that disagree
     */
    public static Table serve(
        final ServerSocket server, final int nodes, final int worldSize, final byte[] secret, final Entry own,
        final long timeoutMs, final Consumer<String> onRefused) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final Entry[] entries = new Entry[nodes];
        final Socket[] sockets = new Socket[nodes];
        entries[own.node()] = own;
        int registered = 1;
        try
        {
            while (registered < nodes)
            {
                final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0)
                {
                    final List<Integer> missing = new ArrayList<>();
                    for (int n = 0; n < nodes; n++)
                    {
                        if (entries[n] == null)
                        {
                            missing.add(n);
                        }
                    }
                    throw new IOException("nodes " + missing + " never reached the job's rendezvous at " +
                        server.getLocalSocketAddress() + " within " + timeoutMs + " ms");
                }
                server.setSoTimeout((int)Math.min(leftMs, Integer.MAX_VALUE));
                final Socket s;
                try
                {
                    s = server.accept();
                }
                catch (final SocketTimeoutException ex)
                {
                    continue;
                }
                final String refusal = admit(s, nodes, secret, entries, sockets);
                if (refusal == null)
                {
                    registered++;
                }
                else
                {
                    onRefused.accept("shmpi rendezvous: refused a connection from " + s.getRemoteSocketAddress() +
                        ": " + refusal);
                    closeQuietly(s);
                }
            }
            final Table table = table(entries, worldSize);
            final String mismatch = table == null ?
                "the nodes' rank lists do not cover ranks 0.." + (worldSize - 1) + " once each" :
                capacityMismatch(entries);
            for (int n = 0; n < nodes; n++)
            {
                if (sockets[n] != null)
                {
                    final DataOutputStream out = new DataOutputStream(sockets[n].getOutputStream());
                    out.writeLong(MAGIC);
                    out.writeInt(mismatch == null ? OK : MISMATCH);
                    if (mismatch == null)
                    {
                        writeEntries(out, entries);
                    }
                    else
                    {
                        out.writeUTF(mismatch);
                    }
                    out.flush();
                }
            }
            if (mismatch != null)
            {
                throw new IOException("the job's nodes disagree: " + mismatch);
            }
            return table;
        }
        finally
        {
            for (final Socket s : sockets)
            {
                if (s != null)
                {
                    closeQuietly(s);
                }
            }
        }
    }

    private static String admit(
        final Socket s, final int nodes, final byte[] secret, final Entry[] entries, final Socket[] sockets)
    {
        try
        {
            s.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            final DataInputStream in = new DataInputStream(s.getInputStream());
            if (in.readLong() != MAGIC)
            {
                return "not a shmpi rendezvous client";
            }
            final byte[] proof = new byte[NodeBridge.SECRET_LENGTH];
            in.readFully(proof);
            if (!MessageDigest.isEqual(proof, secret))
            {
                refuse(s);
                return "wrong job secret";
            }
            final Entry e = readEntry(in);
            if (e.node() < 0 || e.node() >= nodes || entries[e.node()] != null)
            {
                refuse(s);
                return "node " + e.node() + " is out of range or registered already";
            }
            s.setSoTimeout(0);
            entries[e.node()] = e;
            sockets[e.node()] = s;
            return null;
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    /** Tells a refused client so (if it still listens: a stranger may be gone already). */
    private static void refuse(final Socket s)
    {
        try
        {
            final DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeLong(MAGIC);
            out.writeInt(REFUSED);
            out.flush();
        }
        catch (final IOException ignored)
        {
            // nobody to tell
        }
    }

    /**
     * Registers {@code own} with the server at {@code address} (retrying until it listens) and
     * returns the table, all within {@code timeoutMs}.
     */
    public static Table register(
        final InetSocketAddress address, final byte[] secret, final Entry own, final int worldSize,
        final long timeoutMs) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        IOException last = null;
        while (System.nanoTime() - deadline < 0)
        {
            try (Socket s = new Socket())
            {
                s.connect(address, HANDSHAKE_TIMEOUT_MS);
                final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeLong(MAGIC);
                out.write(secret);
                writeEntry(out, own);
                out.flush();
                final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                s.setSoTimeout((int)Math.max(1, leftMs));
                final DataInputStream in = new DataInputStream(s.getInputStream());
                if (in.readLong() != MAGIC)
                {
                    throw new IOException("the rendezvous at " + address + " is not a shmpi job's");
                }
                final int status = in.readInt();
                if (status == REFUSED)
                {
                    throw new IOException("the rendezvous at " + address + " refused node " + own.node() +
                        " (another job's, or this node registered twice)");
                }
                if (status == MISMATCH)
                {
                    throw new IOException("the job's nodes disagree: " + in.readUTF());
                }
                final Entry[] entries = readEntries(in);
                final Table table = table(entries, worldSize);
                if (table == null)
                {
                    throw new IOException("the rendezvous at " + address + " answered an incomplete table");
                }
                return table;
            }
            catch (final java.net.ConnectException | java.net.NoRouteToHostException ex)
            {
                // The server is not listening yet.
                last = ex;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            catch (final SocketTimeoutException ex)
            {
                last = ex;
                break;
            }
        }
        throw new IOException("node " + own.node() + " cannot reach the job's rendezvous at " + address + " within " +
            timeoutMs + " ms" + (last != null ? ": " + last.getMessage() : ""), last);
    }

    private static Table table(final Entry[] entries, final int worldSize)
    {
        final int[] nodeOfRank = new int[worldSize];
        java.util.Arrays.fill(nodeOfRank, -1);
        final InetSocketAddress[] bridges = new InetSocketAddress[entries.length];
        int seen = 0;
        for (int n = 0; n < entries.length; n++)
        {
            if (entries[n] == null || entries[n].node() != n)
            {
                return null;
            }
            bridges[n] = entries[n].bridge();
            for (final int r : entries[n].ranks())
            {
                if (r < 0 || r >= worldSize || nodeOfRank[r] >= 0)
                {
                    return null;
                }
                nodeOfRank[r] = n;
                seen++;
            }
        }
        return seen == worldSize ? new Table(nodeOfRank, bridges) : null;
    }

    private static String capacityMismatch(final Entry[] entries)
    {
        for (final Entry e : entries)
        {
            if (e.ringCapacity() != entries[0].ringCapacity())
            {
                return "inbox ring capacity " + e.ringCapacity() + " on node " + e.node() + " but " +
                    entries[0].ringCapacity() + " on node 0 (use the same shmpi.ring.capacity everywhere)";
            }
        }
        return null;
    }

    private static void writeEntry(final DataOutputStream out, final Entry e) throws IOException
    {
        out.writeInt(e.node());
        final byte[] address = e.bridge().getAddress().getAddress();
        out.writeByte(address.length);
        out.write(address);
        out.writeShort(e.bridge().getPort());
        out.writeInt(e.ringCapacity());
        out.writeInt(e.ranks().length);
        for (final int r : e.ranks())
        {
            out.writeInt(r);
        }
    }

    private static Entry readEntry(final DataInputStream in) throws IOException
    {
        final int node = in.readInt();
        final int length = in.readUnsignedByte();
        if (length != 4 && length != 16)
        {
            throw new IOException("bad address length " + length);
        }
        final byte[] address = new byte[length];
        in.readFully(address);
        final int port = in.readUnsignedShort();
        final int capacity = in.readInt();
        final int count = in.readInt();
        if (count < 0 || count > 1 << 20)
        {
            throw new IOException("bad rank count " + count);
        }
        final int[] ranks = new int[count];
        for (int i = 0; i < count; i++)
        {
            ranks[i] = in.readInt();
        }
        return new Entry(node, new InetSocketAddress(InetAddress.getByAddress(address), port), capacity, ranks);
    }

    private static void writeEntries(final DataOutputStream out, final Entry[] entries) throws IOException
    {
        out.writeInt(entries.length);
        for (final Entry e : entries)
        {
            writeEntry(out, e);
        }
    }

    private static Entry[] readEntries(final DataInputStream in) throws IOException
    {
        final int n = in.readInt();
        if (n < 1 || n > 1 << 20)
        {
            throw new IOException("bad node count " + n);
        }
        final Entry[] entries = new Entry[n];
        for (int i = 0; i < n; i++)
        {
            entries[i] = readEntry(in);
        }
        return entries;
    }

    private static void closeQuietly(final Socket s)
    {
        try
        {
            s.close();
        }
        catch (final IOException ignored)
        {
            // done with it
        }
    }
}
