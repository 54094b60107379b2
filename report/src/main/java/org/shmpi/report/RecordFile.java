package org.shmpi.report;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A rank's record file as the rank writes it: a file it maps once, with two slots for the record's
 * text and a header naming the slot that holds the last complete one. A flush copies the text
 * into the other slot and then publishes it, without a system call, so it costs the rank a copy of
 * a few kilobytes; what the rank wrote is in the page cache at once, so a rank killed with
 * SIGKILL leaves its last flush (half a write goes into the unpublished slot).
 * <p>
 * Layout (little-endian): {@code [0, 8)} magic {@code "SHMPIREC"}; {@code [8, 16)} the
 * publication, {@code sequence << 1 | slot}; {@code [16, 20)} and {@code [20, 24)} the length of
 * slot 0 and slot 1; {@code [24, 28)} the capacity of a slot; slots at {@code 64} and
 * {@code 64 + capacity}. One writer (the rank); readers read the file after the job or while it
 * runs.
 */
public final class RecordFile implements AutoCloseable
{
    static final byte[] MAGIC = "SHMPIREC".getBytes(StandardCharsets.US_ASCII);
    private static final int PUBLISHED = 8;
    private static final int LENGTHS = 16;
    private static final int CAPACITY = 24;
    private static final int HEADER = 64;

    private final Path path;
    private FileChannel channel;
    private MappedByteBuffer map;
    private int capacity;
    private long sequence;

    private RecordFile(final Path path)
    {
        this.path = path;
    }

    /** Makes (or replaces) the record file {@code path} with slots of {@code capacity} bytes. */
    public static RecordFile create(final Path path, final int capacity) throws IOException
    {
        final RecordFile f = new RecordFile(path);
        f.map(capacity);
        return f;
    }

    private void map(final int cap) throws IOException
    {
        // A new file beside the old one, then renamed over it: a reader never sees a file half made.
        final Path tmp = path.resolveSibling(path.getFileName() + ".new");
        final FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.READ, StandardOpenOption.WRITE);
        final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, HEADER + 2L * cap);
        m.order(ByteOrder.LITTLE_ENDIAN);
        m.put(0, MAGIC);
        m.putInt(CAPACITY, cap);
        m.putLong(PUBLISHED, -1);
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        close();
        channel = ch;
        map = m;
        capacity = cap;
    }

    /** Publishes {@code text} as the record (a record without counters). */
    public void write(final String text) throws IOException
    {
        write(text.getBytes(StandardCharsets.UTF_8), null);
    }

    /**
     * Publishes a record (the rank's flush): {@code text}, then, when {@code counters} is given,
     * a 0 byte, padding to a multiple of 8 from the slot's start, and {@code counters} from its
     * position to its limit ({@link Counters}: copied, not formatted).
     */
    public void write(final byte[] text, final ByteBuffer counters) throws IOException
    {
        final int at = counters == null ? text.length : align(text.length + 1);
        final int length = at + (counters == null ? 0 : counters.remaining());
        if (length > capacity)
        {
            map(Math.max(length + (length >> 1), 2 * capacity));
        }
        final long published = map.getLong(PUBLISHED);
        final int slot = published < 0 ? 0 : (int) (1 - (published & 1));
        final int base = HEADER + slot * capacity;
        map.put(base, text);
        if (counters != null)
        {
            for (int i = text.length; i < at; i++)
            {
                map.put(base + i, (byte) 0);
            }
            map.put(base + at, counters, counters.position(), counters.remaining());
        }
        map.putInt(LENGTHS + 4 * slot, length);
        // The slot's bytes before its publication (TSO on x86; a fence elsewhere).
        VarHandle.releaseFence();
        map.putLong(PUBLISHED, (++sequence << 1) | slot);
    }

    private static int align(final int n)
    {
        return (n + 7) & ~7;
    }

    /** Whether {@code bytes} (a file's start) is a record file. */
    static boolean isRecordFile(final byte[] bytes)
    {
        if (bytes.length < HEADER)
        {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++)
        {
            if (bytes[i] != MAGIC[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The record last published in the record file {@code bytes}, or null when none was: its text
     * and, when it has them, its counters.
     */
    static Published published(final byte[] bytes)
    {
        final ByteBuffer h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final long published = h.getLong(PUBLISHED);
        if (published < 0)
        {
            return null;
        }
        final int slot = (int) (published & 1);
        final int cap = h.getInt(CAPACITY);
        final int len = h.getInt(LENGTHS + 4 * slot);
        final int at = HEADER + slot * cap;
        if (len < 0 || len > cap || at + len > bytes.length)
        {
            throw new IllegalArgumentException("a damaged record file (slot " + slot + ", " + len + " bytes)");
        }
        int end = at;
        while (end < at + len && bytes[end] != 0)
        {
            end++;
        }
        final String text = new String(bytes, at, end - at, StandardCharsets.UTF_8);
        if (end == at + len)
        {
            return new Published(text, null);
        }
        final int from = at + align(end - at + 1);
        final ByteBuffer counters = ByteBuffer.wrap(bytes, from, Math.max(0, at + len - from)).slice()
            .order(ByteOrder.LITTLE_ENDIAN);
        return new Published(text, counters);
    }

    /** A published record: its text and its counters (null when it has none). */
    record Published(String text, ByteBuffer counters)
    {
    }

    @Override
    public void close() throws IOException
    {
        if (channel != null)
        {
            channel.close();
            channel = null;
        }
    }
}
