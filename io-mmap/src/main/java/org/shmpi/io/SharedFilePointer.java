package org.shmpi.io;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;

/**
 * The shared file pointer of an open file (one of its {@link SharedWords}, in etypes of the
 * view) and the accesses that use it: shared ones ({@code _shared}: each member
 * moves it atomically past what it takes), ordered ones ({@code _ordered}, collective: member 0
 * moves it past every member's part, which follow in rank order), {@code seek_shared}; and the
 * blocks that appends at it reserve ahead of the end of the file (the reserved end, another of
 * the shared words, when they keep one). The data moves themselves are
 * {@link FileAccess}'s; checks of the file's state and access mode are the caller's.
 */
final class SharedFilePointer
{
    /** The least a shared-pointer append reserves ahead of itself. */
    static final long AHEAD_MIN = 4L << 20;
    /** The most. */
    static final long AHEAD_MAX = 64L << 20;

    private final FileMembers members;
    private final SharedWords shared;
    private final MappedFile file;
    private final FileAccess access;
    /**
     * Whether shared-pointer appends reserve blocks ahead: when the shared words keep a reserved
     * end, while this open's presence is visible to other opens (its lock), until a reservation
     * fails.
     */
    private boolean reserving;

    SharedFilePointer(final FileMembers members, final SharedWords shared, final MappedFile file,
        final FileAccess access)
    {
        this.members = members;
        this.shared = shared;
        this.file = file;
        this.access = access;
        this.reserving = shared.reservesAhead() && file.present();
    }

    // ------------------------------------------------------------------------------------------
    // Where it is

    /** {@code MPI_File_get_position_shared}: the shared pointer, in etypes. */
    long position()
    {
        return shared.pointer();
    }

    /** The file byte the shared pointer is at in the current view ({@code MPI_DISPLACEMENT_CURRENT}). */
    long fileByte()
    {
        final FileViewMap view = access.view();
        return view.fileByte(shared.pointer() * view.etypeSize);
    }

    /**
     * Collective, at open: the shared pointer starts at {@code etypes}. Member 0 alone stores it
     * (no member reads it before the barrier after it).
     */
    void startAt(final long etypes)
    {
        if (members.rank() == 0)
        {
            // The barrier below makes it visible to every member.
            shared.putPointer(etypes);
        }
        members.barrier();
    }

    /**
     * Collective: puts the shared pointer at {@code etypes}, member 0 alone between two barriers
     * (no member moves or reads it meanwhile).
     */
    void moveTo(final long etypes)
    {
        members.barrier();
        if (members.rank() == 0)
        {
            // Between the barriers: the second one makes it visible to every member.
            shared.putPointer(etypes);
        }
        members.barrier();
    }

    /** {@code MPI_File_seek_shared}, collective: every member passes the same offset and whence. */
    void seek(final long offset, final int whence)
    {
        final long[] all = members.allgather(new long[] {offset, whence});
        for (int r = 0; r < all.length / 2; r++)
        {
            if (all[2 * r] != offset || all[2 * r + 1] != whence)
            {
                throw new ShmpiException(ErrorClass.ERR_ARG, "seekShared: the members pass different positions");
            }
        }
        // No member moves it during a collective seek.
        final long current = shared.pointer();
        final long target = access.seekTarget(current, offset, whence);
        moveTo(target);
    }

    // ------------------------------------------------------------------------------------------
    // Accesses at it

    /** {@code MPI_File_read_shared}: at the shared pointer, moved atomically past what this member takes. */
    long readShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        access.checkEtypes(bytes);
        // One atomic step: each member's part is its own, whichever order they come in.
        final long at = shared.addToPointer(bytes / access.view().etypeSize);
        return access.access(false, at, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_shared}. */
    long writeShared(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        access.checkEtypes(bytes);
        // One atomic step: each member's part is its own, whichever order they come in.
        final long at = shared.addToPointer(bytes / access.view().etypeSize);
        reserveAhead(at, bytes);
        return access.plain(at, layout, bytes, kinds) ? access.writePlain(at, base, memOffset, bytes, true) :
            access.access(true, at, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_read_ordered}, collective: member after member from the shared pointer. */
    long readOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        final long at = orderedStart(bytes);
        return access.access(false, at, base, memOffset, layout, bytes, kinds);
    }

    /** {@code MPI_File_write_ordered}, collective. */
    long writeOrdered(final Object base, final long memOffset, final DataLayout layout, final long bytes,
        final long[][] kinds)
    {
        final long at = orderedStart(bytes);
        reserveAhead(at, bytes);
        return access.plain(at, layout, bytes, kinds) ? access.writePlain(at, base, memOffset, bytes, true) :
            access.access(true, at, base, memOffset, layout, bytes, kinds);
    }

    /** Where this member's part of an ordered access starts; the shared pointer moves past every part. */
    private long orderedStart(final long bytes)
    {
        access.checkEtypes(bytes);
        final long mine = bytes / access.view().etypeSize;
        final long[] counts = members.allgather(new long[] {mine});
        long before = 0;
        long total = 0;
        for (int r = 0; r < counts.length; r++)
        {
            if (r < members.rank())
            {
                before += counts[r];
            }
            total += counts[r];
        }
        long start = 0;
        if (members.rank() == 0)
        {
            // Added by member 0 alone; the allgather below tells every member where it was.
            start = shared.addToPointer(total);
        }
        start = members.allgather(new long[] {start})[0];
        return start + before;
    }

    // ------------------------------------------------------------------------------------------
    // Blocks reserved ahead of appends

    /**
     * Before an append at the shared pointer ({@code bytes} at etype {@code at}): when it ends
     * past what appends have reserved so far, the member that raises the reserved end reserves
     * blocks from there to well past its own end (16 appends of this size, 4 to 64 MiB) without
     * growing the file. Appends from several processes into one file otherwise allocate blocks
     * one write at a time under the inode's lock; on ext4, 4 MiB appends were slow (7-13 ms
     * instead of 0.5) in more runs without it (A/B pairs in docs/io.md). The last writable open
     * gives back at close what no append used ({@link MappedFile#lastWriter}).
     */
    private void reserveAhead(final long at, final long bytes)
    {
        if (bytes <= 0 || !reserving)
        {
            return;
        }
        final FileViewMap view = access.view();
        final long logical = at * view.etypeSize;
        final long start = view.fileByte(logical);
        final long end = view.fileByte(logical + bytes - 1) + 1;
        // raiseReserved loads it again before its compare-and-set.
        if (end > shared.reservedEnd())
        {
            raiseReserved(start, end);
        }
    }

    /** One append in 16 or so: raises the reserved end past {@code end}, unless another member does. */
    private void raiseReserved(final long start, final long end)
    {
        long have;
        while (end > (have = shared.reservedEnd()))
        {
            final long ahead = Math.min(AHEAD_MAX, Math.max(AHEAD_MIN, 16 * (end - start)));
            final long want = (end + ahead + 4095) & ~4095L;
            // Of the members crossing the reserved end at once, one raises it and reserves.
            if (shared.raiseReservedEnd(have, want))
            {
                // Not from the old end when the pointer jumped past it (seekShared): no gap is filled.
                reserving = file.reserveAhead(Math.max(have, start & ~4095L), want);
                return;
            }
        }
    }

    /**
     * After setSize on member 0 alone, between collective steps: a shorter file lost its blocks
     * past the new end, those reserved ahead with them.
     */
    void forgetReserved()
    {
        // The allgather that ends setSize comes before any member's next append.
        shared.forgetReserved();
    }
}
