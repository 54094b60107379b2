package org.shmpi.io;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The few libc file calls Java's channels lack: {@code fallocate} (reserve blocks, so that a store
 * into a mapping can never fault on a full file system) and {@code fsync} on a descriptor of our
 * own. Bound through JNA on first use; {@link #AVAILABLE} is false where that fails (the file then
 * reserves space by writing zeros through its channel).
 */
final class NativeFile
{
    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 0x80000;

    static final int ENOSPC = 28;
    static final int EFBIG = 27;
    static final int EDQUOT = 122;
    static final int EOPNOTSUPP = 95;
    static final int ENOSYS = 38;
    static final int EINTR = 4;

    static final boolean AVAILABLE = load();

    private NativeFile()
    {
    }

    private static boolean load()
    {
        if (!"Linux".equals(System.getProperty("os.name")))
        {
            return false;
        }
        try
        {
            Native.register(NativeFile.class, NativeLibrary.getInstance("c"));
            return true;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    static native int open(String path, int flags);

    static native int close(int fd);

    static native int fallocate(int fd, int mode, long offset, long length);

    static native int fsync(int fd);

    /** errno of the last native call of this thread. */
    static int errno()
    {
        return Native.getLastError();
    }
}
