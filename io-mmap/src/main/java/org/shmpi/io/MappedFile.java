package org.shmpi.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.TreeMap;

import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * One process's access to a file: the file mapped in windows ("chunks") of {@link #chunkBytes},
 * each mapped whole by {@code mmap} when first touched (past the end of the file too: only bytes
 * inside the file are ever touched), at most {@link #maxMapped} at once (least recently used
 * unmapped first), so a file may be larger than memory and than the address space one mapping
 * can cover. Without the native calls the channel maps each window no longer than the file
 * (mapping past it would grow the file) and maps it again when the file has grown.
 *
 * <p>Reads copy out of the mapping. A store into a mapping whose page has no disk block behind it
 * faults ({@code SIGBUS}) when the file system is full; so before a write stores anything, the
 * byte range it writes is reserved with {@code fallocate} (once: reserved ranges are remembered),
 * which fails cleanly with {@code ENOSPC}/{@code EDQUOT} as {@code ERR_NO_SPACE}/{@code ERR_QUOTA}.
 * Where {@code fallocate} is not available the range is reserved by writing zeros through the
 * channel first. Its methods hold its monitor: threads of one process may use one file at once (an unmap
 * under another thread's copy would crash the process).
 */
final class MappedFile implements AutoCloseable
{
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    private final FileChannel channel;
    private final String path;
    private final boolean writable;
    /**
     * A descriptor of our own for mmap, fallocate and fsync (-1: none; the channel maps, each
     * window no longer than the file, and forces).
     */
    private final int fd;
    private final int chunkShift;
    private final long chunkBytes;
    private final int maxMapped;

    private MappedByteBuffer[] chunks = new MappedByteBuffer[0];
    private long[] chunkAddress = new long[0];
    private long[] chunkLength = new long[0];
    private long[] lastUse = new long[0];
    private long useClock;
    private int mapped;
    /** The file's size as last learned. */
    private long knownSize;
    /** Byte ranges known to have blocks (start to end), merged. */
    private final TreeMap<Long, Long> reserved = new TreeMap<>();
    /** The reserved range that covered the last access (checked first: accesses repeat). */
    private long lastStart;
    private long lastEnd;
    private boolean fallocateWorks;
    /**
     * The range {@link #reserve} last gave blocks: pages no mapping of this process has touched,
     * which a store would fault in one by one (microseconds each under a hypervisor); a write
     * into it faults them in with one {@code madvise} first.
     */
    private long freshStart;
    private long freshEnd;
    private boolean populateWorks = true;
    /** This open's shared lock, while it is open, if it is writable: whether it is the last writer. */
    private final PresenceLock presence;
    /** Copies between memory and the mapped windows or the staging buffer (one per file). */
    private final NativeCopy copy = new NativeCopy();

    MappedFile(final FileChannel channel, final String path, final boolean writable, final long chunkBytes,
        final int maxMapped) throws IOException
    {
        if (Long.bitCount(chunkBytes) != 1 || chunkBytes < 4096 || chunkBytes > (1L << 30))
        {
            throw new IllegalArgumentException("chunk must be a power of two from 4 KiB to 1 GiB: " + chunkBytes);
        }
        this.channel = channel;
        this.path = path;
        this.writable = writable;
        this.chunkShift = Long.numberOfTrailingZeros(chunkBytes);
        this.chunkBytes = chunkBytes;
        this.maxMapped = Math.max(2, maxMapped);
        this.knownSize = channel.size();
        int d = -1;
        if (NativeFile.AVAILABLE)
        {
            d = NativeFile.open(path, (writable ? NativeFile.O_RDWR : NativeFile.O_RDONLY) | NativeFile.O_CLOEXEC);
        }
        this.fd = d;
        this.fallocateWorks = d >= 0 && writable;
        this.presence = new PresenceLock(d, writable);
    }

    /**
     * Whether this open may give back blocks reserved past the end of the file: it holds its
     * presence lock, and no other writable open of the file, in any process, holds one (its
     * shared lock becomes exclusive). Then no one else can be appending while it gives them back.
     */
    synchronized boolean lastWriter()
    {
        return presence.lastWriter();
    }

    /** Whether appends may reserve ahead: only an open whose presence other opens can see. */
    boolean present()
    {
        return presence.present();
    }

    /** The file's current size (asks the file system). */
    synchronized long size() throws IOException
    {
        knownSize = channel.size();
        return knownSize;
    }

    /**
     * The file's size when an access needs bytes up to {@code end}: the size last learned if it
     * reaches that far (the file only shrinks by a collective setSize, which every process
     * learns), else the current one (another process may have grown it).
     */
    synchronized long sizeFor(final long end) throws IOException
    {
        return end <= knownSize ? knownSize : size();
    }

    /** Forgets the range {@link #reserve} last gave blocks: its pages are all faulted in by now. */
    synchronized void populated()
    {
        freshStart = 0;
        freshEnd = 0;
    }

    /**
     * Copies up to {@code length} bytes at {@code position} into {@code base}/{@code offset};
     * returns how many there were before the end of the file.
     */
    synchronized long read(final long position, final Object base, final long offset, final long length)
        throws IOException
    {
        long n = length;
        if (position + n > knownSize)
        {
            size();
            n = Math.max(0, Math.min(n, knownSize - position));
        }
        long done = 0;
        while (done < n)
        {
            final long at = position + done;
            final long in = at & (chunkBytes - 1);
            final long m = Math.min(n - done, chunkBytes - in);
            final long address = chunk((int)(at >>> chunkShift), in + m);
            copy.copyOut(address + in, base, offset + done, m);
            done += m;
        }
        return n;
    }

    /**
     * Copies {@code length} bytes of {@code base}/{@code offset} to {@code position}, growing the
     * file when they end past it. {@link #reserve} the range first.
     */
    synchronized void write(final long position, final Object base, final long offset, final long length)
        throws IOException
    {
        long done = 0;
        while (done < length)
        {
            final long at = position + done;
            final long in = at & (chunkBytes - 1);
            final long m = Math.min(length - done, chunkBytes - in);
            final long address = chunk((int)(at >>> chunkShift), in + m);
            if (at < freshEnd && at + m > freshStart && populateWorks && chunks[(int)(at >>> chunkShift)] == null)
            {
                populate(address, in, m);
            }
            copy.copyIn(base, offset + done, address + in, m);
            done += m;
        }
    }

    /**
     * A first write of a range: writes {@code length} bytes of a {@code byte[]} ({@code base},
     * Unsafe offset {@code offset}) at {@code position} with a {@code pwrite} when this process
     * has not reserved or written any of them yet: the page cache allocates each page as it fills
     * it, where reserving first would zero the pages (or, on a disk file system, make unwritten
     * extents that each first store converts in a page fault) and the stores then fill them
     * again. A full file system is {@code ERR_NO_SPACE} from the write, not a fault. Returns false
     * (nothing written) when the bytes are not a {@code byte[]} or some of the range was reserved
     * before: then the mapping is the faster way. {@code remember} false (appends at the shared
     * pointer, which are seldom written again) does not record the range: interleaved appends of
     * several processes would add one disjoint range per call.
     */
    synchronized boolean writeFresh(final long position, final Object base, final long offset, final long length,
        final boolean remember) throws IOException
    {
        if (!(base instanceof byte[]) || length > Integer.MAX_VALUE || touchesReserved(position, position + length))
        {
            return false;
        }
        if (fd >= 0)
        {
            writeNative(position, base, offset, length);
        }
        else
        {
            writeChannel(position, (byte[])base, offset, length);
        }
        knownSize = Math.max(knownSize, position + length);
        if (remember)
        {
            addReserved(position, position + length);
        }
        return true;
    }

    /** {@link #writeFresh} without the native library: through the channel. */
    private void writeChannel(final long position, final byte[] base, final long offset, final long length)
        throws IOException
    {
        final ByteBuffer b = ByteBuffer.wrap(base, (int)(offset - BYTE_BASE), (int)length);
        long at = position;
        try
        {
            while (b.hasRemaining())
            {
                at += channel.write(b, at);
            }
        }
        catch (final IOException ex)
        {
            throw FileErrors.ioError(ex, "write of bytes " + position + " to " + (position + length));
        }
    }

    /** Native memory a {@code pwrite} copies from: the heap array is staged here, a piece at a time. */
    private ByteBuffer stage;
    private long stageAddress;
    private static final int STAGE_BYTES = 1 << 20;

    /**
     * {@code pwrite}s {@code length} bytes of {@code base}/{@code offset} at {@code position}
     * straight from this file's staging buffer: one copy, one system call, none of the
     * channel's layers (which a short job runs in the interpreter for thousands of calls).
     */
    private void writeNative(final long position, final Object base, final long offset, final long length)
    {
        if (stage == null || stage.capacity() < Math.min(STAGE_BYTES, length))
        {
            growStage(length);
        }
        long done = 0;
        while (done < length)
        {
            final long piece = Math.min(stage.capacity(), length - done);
            copy.copyIn(base, offset + done, stageAddress, piece);
            long sent = 0;
            while (sent < piece)
            {
                final long n = NativeFile.pwrite(fd, stageAddress + sent, piece - sent, position + done + sent);
                if (n < 0)
                {
                    failedWrite(position, length);
                    continue;
                }
                sent += n;
            }
            done += piece;
        }
    }

    /** Sized to the writes seen (each new page of it faults once, tens of microseconds here). */
    private void growStage(final long length)
    {
        stage = ByteBuffer.allocateDirect((int)Math.min(STAGE_BYTES, (length + 4095) & ~4095L));
        stageAddress = BufferUtil.address(stage);
    }

    /** After a {@code pwrite} returned -1: returns to try again when interrupted, else throws. */
    private static void failedWrite(final long position, final long length)
    {
        final int errno = NativeFile.errno();
        if (errno != NativeFile.EINTR)
        {
            throw FileErrors.writeError(errno, position, position + length);
        }
    }

    private boolean touchesReserved(final long start, final long end)
    {
        if (start < lastEnd && end > lastStart)
        {
            return true;
        }
        final Map.Entry<Long, Long> before = reserved.floorEntry(start);
        if (before != null && before.getValue() > start)
        {
            return true;
        }
        final Map.Entry<Long, Long> after = reserved.ceilingEntry(start);
        return after != null && after.getKey() < end;
    }

    /**
     * Makes sure {@code [start, end)} has disk blocks and lies inside the file (the file grows to
     * {@code end} when shorter; it never shrinks), so stores into it cannot fault.
     */
    synchronized void reserve(final long start, final long end) throws IOException
    {
        // The same range as last time (a rewrite loop) is the common case: nothing else inline.
        if (end <= start || start >= lastStart && end <= lastEnd)
        {
            return;
        }
        reserveRange(start, end);
    }

    private void reserveRange(final long start, final long end) throws IOException
    {
        final Map.Entry<Long, Long> covering = reserved.floorEntry(start);
        if (covering != null && covering.getValue() >= end)
        {
            lastStart = covering.getKey();
            lastEnd = covering.getValue();
            return;
        }
        boolean done = false;
        if (fallocateWorks)
        {
            int r;
            do
            {
                r = NativeFile.fallocate(fd, 0, start, end - start);
            }
            while (r != 0 && NativeFile.errno() == NativeFile.EINTR);
            if (r == 0)
            {
                done = true;
            }
            else
            {
                final int errno = NativeFile.errno();
                if (errno == NativeFile.EOPNOTSUPP || errno == NativeFile.ENOSYS)
                {
                    fallocateWorks = false;
                }
                else
                {
                    throw FileErrors.spaceError(errno, start, end);
                }
            }
        }
        if (!done)
        {
            zeroFill(start, end);
        }
        knownSize = Math.max(knownSize, end);
        addReserved(start, end);
        freshStart = start;
        freshEnd = end;
    }

    /**
     * Gives blocks to {@code [start, end)} without changing the file's size (fallocate with
     * {@code FALLOC_FL_KEEP_SIZE}), for appends yet to come: a write that lands on blocks given
     * ahead does not allocate them one append at a time. Returns false when it could not (no
     * fallocate here, or no room): the writes then allocate as they go and report a full file
     * system themselves.
     */
    synchronized boolean reserveAhead(final long start, final long end)
    {
        if (!fallocateWorks || end <= start)
        {
            return false;
        }
        int r;
        do
        {
            r = NativeFile.fallocate(fd, NativeFile.FALLOC_FL_KEEP_SIZE, start, end - start);
        }
        while (r != 0 && NativeFile.errno() == NativeFile.EINTR);
        return r == 0;
    }

    /**
     * Gives back the blocks past the end of the file that {@link #reserveAhead} gave and no
     * write used ({@code reservedEnd}: how far reservations went): a hole punched from the first
     * whole page past the end (tmpfs), then a truncate to the same size (ext4 ignores holes
     * punched past the end, and frees blocks kept past it on any truncate).
     */
    synchronized void releaseBeyond(final long reservedEnd) throws IOException
    {
        final long size = channel.size();
        final long from = (size + 4095) & ~4095L;
        if (fd < 0)
        {
            return;
        }
        // Opens closed before this one left theirs: each reserved at most AHEAD_MAX past an append
        // that ended inside the file.
        final long end = Math.max(reservedEnd, from + SharedFilePointer.AHEAD_MAX + 8192);
        int r;
        do
        {
            r = NativeFile.fallocate(fd, NativeFile.FALLOC_FL_KEEP_SIZE | NativeFile.FALLOC_FL_PUNCH_HOLE, from,
                end - from);
        }
        while (r != 0 && NativeFile.errno() == NativeFile.EINTR);
        if (r != 0 && NativeFile.errno() != NativeFile.EOPNOTSUPP)
        {
            throw new IOException("punching the blocks reserved past the end of " + path + ": errno " +
                NativeFile.errno());
        }
        do
        {
            r = NativeFile.ftruncate(fd, size);
        }
        while (r != 0 && NativeFile.errno() == NativeFile.EINTR);
        if (r != 0)
        {
            throw new IOException("truncating " + path + " to its size: errno " + NativeFile.errno());
        }
    }

    /** Reserves by writing zeros where the file has none yet (bytes already in the file are kept). */
    private void zeroFill(final long start, final long end) throws IOException
    {
        final long size = size();
        if (end <= size)
        {
            // Inside the file: holes may remain (a sparse file); without fallocate the way to give
            // them blocks is rewriting what is there, which a store through the mapping does no worse.
            return;
        }
        final ByteBuffer zeros = ByteBuffer.allocate((int)Math.min(1 << 20, end - Math.max(start, size)));
        long at = Math.max(start, size);
        while (at < end)
        {
            zeros.clear().limit((int)Math.min(zeros.capacity(), end - at));
            try
            {
                at += channel.write(zeros, at);
            }
            catch (final IOException ex)
            {
                throw FileErrors.ioError(ex, "reserving bytes " + start + " to " + end);
            }
        }
    }

    private void addReserved(final long start, final long end)
    {
        long s = start;
        long e = end;
        final Map.Entry<Long, Long> before = reserved.floorEntry(s);
        if (before != null && before.getValue() >= s)
        {
            s = before.getKey();
            e = Math.max(e, before.getValue());
        }
        Map.Entry<Long, Long> next = reserved.ceilingEntry(s);
        while (next != null && next.getKey() <= e)
        {
            e = Math.max(e, next.getValue());
            reserved.remove(next.getKey());
            next = reserved.ceilingEntry(s);
        }
        reserved.put(s, e);
    }

    /** Sets the size: shorter drops mappings and reservations past it; longer leaves a hole. */
    synchronized void setSize(final long size) throws IOException
    {
        if (size < channel.size())
        {
            dropFrom(size);
            channel.truncate(size);
        }
        else if (size > channel.size())
        {
            // Extending by writing one byte would give that byte a block; a hole is what MPI asks
            // for ("the new region's contents are undefined"), so extend through ftruncate.
            try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(path, "rw"))
            {
                raf.setLength(size);
            }
        }
        knownSize = channel.size();
    }

    /** Forgets mappings and reservations at or past {@code size} (the file is about to shrink). */
    synchronized void dropFrom(final long size)
    {
        for (int c = 0; c < chunks.length; c++)
        {
            if (chunkAddress[c] != 0 && ((long)c << chunkShift) + chunkLength[c] > size)
            {
                unmap(c);
            }
        }
        reserved.tailMap(size, true).clear();
        lastStart = 0;
        lastEnd = 0;
        final Map.Entry<Long, Long> last = reserved.lastEntry();
        if (last != null && last.getValue() > size)
        {
            reserved.put(last.getKey(), size);
        }
        knownSize = Math.min(knownSize, size);
    }

    /** Writes the mapped pages and the file's metadata to the device. */
    synchronized void sync() throws IOException
    {
        for (int c = 0; c < chunks.length; c++)
        {
            if (chunkAddress[c] != 0)
            {
                force(c);
            }
        }
        if (fd >= 0)
        {
            if (NativeFile.fsync(fd) != 0)
            {
                throw new ShmpiException(ErrorClass.ERR_IO, "fsync failed: errno " + NativeFile.errno());
            }
        }
        else
        {
            channel.force(true);
        }
    }

    /** The address of chunk {@code c}, mapped at least {@code need} bytes long. */
    private long chunk(final int c, final long need) throws IOException
    {
        // Small, so that a short job's first calls compile it quickly: mapping is the rare case.
        if (c < chunks.length && chunkAddress[c] != 0 && chunkLength[c] >= need)
        {
            lastUse[c] = ++useClock;
            return chunkAddress[c];
        }
        return mapChunk(c, need);
    }

    private long mapChunk(final int c, final long need) throws IOException
    {
        if (c >= chunks.length)
        {
            final int n = Math.max(c + 1, chunks.length * 2);
            chunks = java.util.Arrays.copyOf(chunks, n);
            chunkAddress = java.util.Arrays.copyOf(chunkAddress, n);
            chunkLength = java.util.Arrays.copyOf(chunkLength, n);
            lastUse = java.util.Arrays.copyOf(lastUse, n);
        }
        lastUse[c] = ++useClock;
        if (chunkAddress[c] != 0 && chunkLength[c] >= need)
        {
            return chunkAddress[c];
        }
        if (chunkAddress[c] != 0)
        {
            unmap(c);
        }
        else if (mapped >= maxMapped)
        {
            unmapLeastRecent(c);
        }
        final long start = (long)c << chunkShift;
        if (fd >= 0)
        {
            // The whole window, whatever the file's size: callers touch only bytes inside the file
            // (reads stop at its end, writes reserve first), so the part past it is never touched.
            final long address = NativeFile.mmap(0, chunkBytes, NativeFile.PROT_READ |
                (writable ? NativeFile.PROT_WRITE : 0), NativeFile.MAP_SHARED, fd, start);
            if (address == -1)
            {
                throw new ShmpiException(ErrorClass.ERR_IO, "mmap of bytes " + start + " to " + (start + chunkBytes) +
                    " failed: errno " + NativeFile.errno());
            }
            chunkAddress[c] = address;
            chunkLength[c] = chunkBytes;
            mapped++;
            return address;
        }
        final long length = Math.min(chunkBytes, Math.max(knownSize, channel.size()) - start);
        if (length < need)
        {
            // Not inside the file yet: a write reserves (grows the file) before it stores.
            throw new ShmpiException(ErrorClass.ERR_IO, "access past the end of the file at " + (start + need));
        }
        final MappedByteBuffer b = channel.map(writable ? FileChannel.MapMode.READ_WRITE :
            FileChannel.MapMode.READ_ONLY, start, length);
        chunks[c] = b;
        chunkAddress[c] = BufferUtil.address(b);
        chunkLength[c] = length;
        mapped++;
        return chunkAddress[c];
    }

    private void unmapLeastRecent(final int keep)
    {
        int victim = -1;
        for (int i = 0; i < chunks.length; i++)
        {
            if (chunkAddress[i] != 0 && i != keep && (victim < 0 || lastUse[i] < lastUse[victim]))
            {
                victim = i;
            }
        }
        if (victim >= 0)
        {
            unmap(victim);
        }
    }

    private void populate(final long chunkAddress, final long in, final long length)
    {
        final long from = (chunkAddress + in) & ~4095L;
        final long to = (chunkAddress + in + length + 4095) & ~4095L;
        if (NativeFile.madvise(from, to - from, NativeFile.MADV_POPULATE_WRITE) != 0)
        {
            // An older kernel: the stores fault the pages in themselves.
            populateWorks = false;
        }
    }

    /** Unmaps window {@code c}: its dirty pages stay in the page cache (a shared mapping), nothing is lost. */
    private void unmap(final int c)
    {
        if (chunks[c] != null)
        {
            IoUtil.unmap(chunks[c]);
            chunks[c] = null;
        }
        else
        {
            NativeFile.munmap(chunkAddress[c], chunkLength[c]);
        }
        chunkAddress[c] = 0;
        chunkLength[c] = 0;
        mapped--;
    }

    /** Writes window {@code c}'s dirty pages to the device. */
    private void force(final int c)
    {
        if (chunks[c] != null)
        {
            chunks[c].force();
        }
        else if (NativeFile.msync(chunkAddress[c], chunkLength[c], NativeFile.MS_SYNC) != 0)
        {
            throw new ShmpiException(ErrorClass.ERR_IO, "msync failed: errno " + NativeFile.errno());
        }
    }

    synchronized int mappedChunks()
    {
        return mapped;
    }

    @Override
    public synchronized void close() throws IOException
    {
        for (int c = 0; c < chunks.length; c++)
        {
            if (chunkAddress[c] != 0)
            {
                unmap(c);
            }
        }
        if (fd >= 0)
        {
            NativeFile.close(fd);
        }
        channel.close();
    }
}
