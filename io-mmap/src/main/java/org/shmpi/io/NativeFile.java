package org.shmpi.io;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The few libc file calls Java's channels lack: {@code fallocate} (reserve blocks, so that a store
 * into a mapping can never fault on a full file system), {@code mmap} of a whole window past the
 * end of the file (which {@code FileChannel.map} would grow), {@code msync} and {@code fsync} on a
 * descriptor of our own. Bound through JNA on first use; {@link #AVAILABLE} is false where that
 * fails (the file then maps through its channel and reserves space by writing zeros).
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
    static final int FALLOC_FL_KEEP_SIZE = 1;
    static final int FALLOC_FL_PUNCH_HOLE = 2;

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

    static native int ftruncate(int fd, long length);

    /** Open-file-description locks (Linux 3.15+): held per open, released when its descriptor closes. */
    static final int F_OFD_SETLK = 37;
    static final int F_OFD_SETLKW = 38;
    static final short F_RDLCK = 0;
    static final short F_WRLCK = 1;
    /** {@code struct flock} (LP64 glibc): l_type at 0, l_whence at 2, l_start at 8, l_len at 16, l_pid at 24. */
    static final int FLOCK_BYTES = 32;

    /** {@code fcntl(fd, cmd, struct flock *)}. */
    static native int fcntl(int fd, int cmd, long flock);

    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;
    static final int MS_SYNC = 4;

    /** {@code mmap}: unlike {@code FileChannel.map}, mapping past the end of the file does not grow it. -1: failed. */
    static native long mmap(long address, long length, int prot, int flags, int fd, long offset);

    static native int munmap(long address, long length);

    /** {@code pwrite} from native memory: bytes written, or -1 (errno). */
    static native long pwrite(int fd, long address, long count, long offset);

    static native int msync(long address, long length, int flags);

    /** {@code madvise} advice (Linux 5.14+): fault the pages in writable, in one call. */
    static final int MADV_POPULATE_WRITE = 23;

    static native int madvise(long address, long length, int advice);

    /** errno of the last native call of this thread. */
    static int errno()
    {
        return Native.getLastError();
    }
}
