package org.shmpi.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes of other jobs a job talks to, and the ids its ranks know them by: the file
 * {@code peers} in the job directory, one line per process ({@code <job> <rank> <pid> <start>}),
 * the process on line {@code i} being id {@code worldSize + i} in every rank of the job. Lines are
 * only appended, under an exclusive lock on the file, by whichever process registers a peer
 * (a rank of this job, or a rank of another job registering itself or its group before it sends
 * here); readers take a shared lock. Not on any hot path: a rank looks up an id once.
 */
public final class PeerTable
{
    public static final String FILE_NAME = "peers";
    /** Most processes of other jobs a job can know (each rank's per-peer arrays have room for them). */
    public static final int MAX_ENTRIES = 1024;

    /** A process of some job: the job's key (its directory under the user root), rank, pid and start. */
    public record Entry(String job, int rank, long pid, long startMillis)
    {
        String line()
        {
            return job + " " + rank + " " + pid + " " + startMillis + "\n";
        }

        static Entry parse(final String line)
        {
            final String[] f = line.split(" ");
            return new Entry(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
        }
    }

    private final Path file;
    private final int worldSize;
    private final List<Entry> entries = new ArrayList<>();

    /** The table of the job in {@code jobDir}, whose world has {@code worldSize} ranks. */
    public PeerTable(final Path jobDir, final int worldSize)
    {
        this.file = jobDir.resolve(FILE_NAME);
        this.worldSize = worldSize;
    }

    public int worldSize()
    {
        return worldSize;
    }

    /** The id of {@code e} in this job, added when it is not there yet. */
    public synchronized int idOf(final Entry e) throws IOException
    {
        final int known = find(e);
        if (known >= 0)
        {
            return known;
        }
        createIfMissing();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final FileLock lock = ch.lock();
            try
            {
                return add(ch, e);
            }
            finally
            {
                lock.release();
            }
        }
    }

    private int add(final FileChannel ch, final Entry e) throws IOException
    {
        reload(ch);
        final int again = find(e);
        if (again >= 0)
        {
            return again;
        }
        if (entries.size() >= MAX_ENTRIES)
        {
            throw new IOException("the job knows " + MAX_ENTRIES + " processes of other jobs already: " + file);
        }
        final ByteBuffer line = ByteBuffer.wrap(e.line().getBytes(StandardCharsets.UTF_8));
        long at = ch.size();
        while (line.hasRemaining())
        {
            at += ch.write(line, at);
        }
        entries.add(e);
        return worldSize + entries.size() - 1;
    }

    /** The process with id {@code id} (at least the world size), or null when the table has none. */
    public synchronized Entry entry(final int id) throws IOException
    {
        final int i = id - worldSize;
        if (i < 0)
        {
            return null;
        }
        if (i >= entries.size() && Files.exists(file))
        {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
            {
                final FileLock lock = ch.lock(0, Long.MAX_VALUE, true);
                try
                {
                    reload(ch);
                }
                finally
                {
                    lock.release();
                }
            }
        }
        return i < entries.size() ? entries.get(i) : null;
    }

    private int find(final Entry e)
    {
        for (int i = 0; i < entries.size(); i++)
        {
            final Entry k = entries.get(i);
            if (k.job().equals(e.job()) && k.rank() == e.rank())
            {
                return worldSize + i;
            }
        }
        return -1;
    }

    private void createIfMissing() throws IOException
    {
        try
        {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (final FileAlreadyExistsException ignore)
        {
            // Another process made it first.
        }
    }

    private void reload(final FileChannel ch) throws IOException
    {
        final long size = ch.size();
        final ByteBuffer all = ByteBuffer.allocate((int)size);
        long at = 0;
        while (all.hasRemaining())
        {
            final int n = ch.read(all, at);
            if (n < 0)
            {
                break;
            }
            at += n;
        }
        final String text = new String(all.array(), 0, all.position(), StandardCharsets.UTF_8);
        entries.clear();
        for (final String line : text.split("\n"))
        {
            if (!line.isEmpty())
            {
                entries.add(Entry.parse(line));
            }
        }
    }

    /**
     * World size and, for {@code rank}, pid and start time, read from the job file in
     * {@code jobDir} without mapping it: {@code {worldSize, pid, start}}; pid 0 when the rank has
     * not published one.
     */
    public static long[] peekJob(final Path jobDir, final int rank) throws IOException
    {
        try (FileChannel ch = FileChannel.open(jobDir.resolve(JobDirectory.JOB_FILE_NAME), StandardOpenOption.READ))
        {
            final ByteBuffer header = read(ch, 0, JobFileDescriptor.RANK_SLOTS_OFFSET);
            final int size = header.getInt(JobFileDescriptor.WORLD_SIZE_OFFSET);
            if (header.getInt(JobFileDescriptor.VERSION_OFFSET) == 0 || size < 1)
            {
                throw new IOException("not a ready job file: " + jobDir);
            }
            if (rank < 0 || rank >= size)
            {
                return new long[] {size, 0, 0};
            }
            final ByteBuffer slot = read(ch, JobFileDescriptor.slotOffset(rank), JobFileDescriptor.RANK_SLOT_LENGTH);
            return new long[] {size, slot.getLong(JobFileDescriptor.SLOT_PID_OFFSET),
                slot.getLong(JobFileDescriptor.SLOT_PID_START_TIME_OFFSET)};
        }
    }

    private static ByteBuffer read(final FileChannel ch, final long position, final int length) throws IOException
    {
        final ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.nativeOrder());
        long at = position;
        while (b.hasRemaining())
        {
            final int n = ch.read(b, at);
            if (n < 0)
            {
                throw new IOException("job file too short");
            }
            at += n;
        }
        return b.flip();
    }
}
