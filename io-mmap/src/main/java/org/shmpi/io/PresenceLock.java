package org.shmpi.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.agrona.BufferUtil;

/**
 * Whether other writable opens of a file are left, in any process: every writable open holds a
 * shared lock ({@code fcntl} open-file-description lock) on {@link #PRESENCE_BYTE} while it is
 * open, which the kernel drops when its descriptor is closed, so a closing open that can make its
 * lock exclusive is the last one. Without the native calls (no descriptor) nothing is held and no
 * open is the last writer.
 */
final class PresenceLock
{
    /**
     * The byte every writable open of a file holds a shared lock on while it is open (far past
     * any data: a lock does not touch the file's bytes), so that a closing open can tell whether
     * it is the last one.
     */
    private static final long PRESENCE_BYTE = 1L << 62;

    private final int fd;
    /** Whether this open holds its shared lock on {@link #PRESENCE_BYTE}. */
    private final boolean present;

    /** Takes the shared lock of a {@code writable} open on descriptor {@code fd} (-1: none), waiting for it. */
    PresenceLock(final int fd, final boolean writable)
    {
        this.fd = fd;
        this.present = writable && lock(NativeFile.F_OFD_SETLKW, NativeFile.F_RDLCK);
    }

    /** Whether this open holds its shared lock, so that other opens can see it. */
    boolean present()
    {
        return present;
    }

    /**
     * Whether this open holds its presence lock and no other writable open of the file, in any
     * process, holds one (its shared lock becomes exclusive).
     */
    boolean lastWriter()
    {
        return present && lock(NativeFile.F_OFD_SETLK, NativeFile.F_WRLCK);
    }

    /** Takes a lock of {@code type} on {@link #PRESENCE_BYTE} ({@code cmd}: wait or not); whether it holds it. */
    private boolean lock(final int cmd, final short type)
    {
        if (fd < 0)
        {
            return false;
        }
        final ByteBuffer flock = ByteBuffer.allocateDirect(NativeFile.FLOCK_BYTES).order(ByteOrder.nativeOrder());
        flock.putShort(0, type).putShort(2, (short)0).putLong(8, PRESENCE_BYTE).putLong(16, 1).putInt(24, 0);
        int r;
        do
        {
            r = NativeFile.fcntl(fd, cmd, BufferUtil.address(flock));
        }
        while (r != 0 && NativeFile.errno() == NativeFile.EINTR);
        return r == 0;
    }
}
