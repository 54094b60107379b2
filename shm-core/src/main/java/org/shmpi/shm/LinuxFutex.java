package org.shmpi.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import org.agrona.BufferUtil;

/**
 * {@code futex(2)} through JNA direct mapping of libc's {@code syscall}. The word lives in a
 * {@code MAP_SHARED} file mapping, so the non-private operations are used: the kernel keys the
 * wait queue by inode and offset, which is what lets a process wake a sleeper in another.
 */
final class LinuxFutex implements Futex
{
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;

    private final long sysFutex;
    private final ThreadLocal<ByteBuffer> timespec =
        ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()));

    private LinuxFutex(final long sysFutex)
    {
        this.sysFutex = sysFutex;
    }

    /** Bound to libc on first use of this class; see {@link #tryLoad}. */
    private static final class Libc
    {
        static
        {
            Native.register(Libc.class, NativeLibrary.getInstance("c"));
        }

        /**
         * libc {@code syscall}. It is variadic in C; on x86-64 and AArch64 integer arguments go in
         * the same registers either way, and glibc's implementation only moves registers.
         */
        static native long syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6);

        private Libc()
        {
        }
    }

    static LinuxFutex tryLoad()
    {
        if (!"Linux".equals(System.getProperty("os.name")))
        {
            return null;
        }
        final String arch = System.getProperty("os.arch");
        final long nr;
        if ("amd64".equals(arch) || "x86_64".equals(arch))
        {
            nr = 202;
        }
        else if ("aarch64".equals(arch))
        {
            nr = 98;
        }
        else
        {
            return null;
        }
        try
        {
            // Probe: a wake on a private word with no sleepers must return 0.
            final ByteBuffer probe = ByteBuffer.allocateDirect(8);
            final long r = Libc.syscall(nr, BufferUtil.address(probe), FUTEX_WAKE, 1, 0, 0, 0);
            return r == 0 ? new LinuxFutex(nr) : null;
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }

    @Override
    public void await(final long address, final int expected, final long timeoutNs)
    {
        final ByteBuffer ts = timespec.get();
        ts.putLong(0, timeoutNs / 1_000_000_000L);
        ts.putLong(8, timeoutNs % 1_000_000_000L);
        Libc.syscall(sysFutex, address, FUTEX_WAIT, expected, BufferUtil.address(ts), 0, 0);
    }

    @Override
    public void wake(final long address, final int count)
    {
        Libc.syscall(sysFutex, address, FUTEX_WAKE, count, 0, 0, 0);
    }

    @Override
    public boolean wakesSleepers()
    {
        return true;
    }
}
