package org.shmpi.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import org.agrona.BufferUtil;

/**
 * Cross-memory attach: {@code process_vm_readv(2)} through JNA direct mapping of libc, so that a
 * receiver copies a large message straight out of the sender's process into its own memory (one
 * copy, no shared mapping of the sender's buffer needed).
 *
 * <p>The kernel allows it when the reader may ptrace the target (same user, and under Yama's
 * {@code ptrace_scope=1} only if the target named it a tracer): {@link #open} therefore first
 * lets any process of the user read this one ({@code prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)},
 * as Open MPI's shared-memory transport does; a no-op error where Yama is absent), then reads a
 * few bytes of its own memory to learn whether the call works at all (seccomp filters of
 * containers often answer EPERM, old kernels ENOSYS). A peer can still refuse later (another
 * Yama scope, a different user): {@link #read} returns the errno and the caller falls back.
 *
 * <p>An instance owns the two {@code struct iovec} it passes to the kernel: one thread at a time
 * (the progress thread) may use it.
 */
public final class CrossMemory
{
    /** errno: operation not permitted (ptrace access refused, seccomp). */
    public static final int EPERM = 1;
    /** errno: no such process (the peer is gone). */
    public static final int ESRCH = 3;
    /** errno: bad address, here or in the peer. */
    public static final int EFAULT = 14;
    /** errno: the kernel lacks the call. */
    public static final int ENOSYS = 38;

    private static final int PR_SET_PTRACER = 0x59616d61;
    private static final long PR_SET_PTRACER_ANY = -1L;
    /** Bytes per call at most: the kernel moves less than 2 GiB per call anyway. */
    private static final long MAX_CALL_BYTES = 1L << 30;
    private static final int IOV_BASE = 0;
    private static final int IOV_LEN = 8;
    private static final int IOVEC_BYTES = 16;

    /** Bound to libc, and the process made readable, on first use; see {@link #open}. */
    private static final class Libc
    {
        /** errno of the self-read at load, 0 when it worked; -1 when libc could not be bound. */
        static final int PROBE;

        static
        {
            int probe;
            try
            {
                Native.register(Libc.class, NativeLibrary.getInstance("c"));
                allowAnyTracer();
                probe = selfProbe();
            }
            catch (final LinkageError | RuntimeException ex)
            {
                probe = -1;
            }
            PROBE = probe;
        }

        /** libc {@code process_vm_readv}; returns bytes read, or -1 and errno. */
        static native long process_vm_readv(
            int pid, long localIov, long localCount, long remoteIov, long remoteCount, long flags)
            throws LastErrorException;

        /**
         * libc {@code prctl}. It is variadic in C; on x86-64 and AArch64 integer arguments go in
         * the same registers either way.
         */
        static native int prctl(int option, long arg2, long arg3, long arg4, long arg5) throws LastErrorException;

        private Libc()
        {
        }

        private static void allowAnyTracer()
        {
            try
            {
                prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
            }
            catch (final LastErrorException ex)
            {
                // EINVAL without Yama: nothing restricts ptrace beyond the user, nothing to allow.
            }
        }

        private static int selfProbe()
        {
            final ByteBuffer b = ByteBuffer.allocateDirect(IOVEC_BYTES * 2 + 16).order(ByteOrder.nativeOrder());
            final long base = BufferUtil.address(b);
            final long from = base + IOVEC_BYTES * 2;
            final long to = from + 8;
            b.putLong(IOVEC_BYTES * 2, 0x5348_4d50_4943_4d41L);
            b.putLong(IOV_BASE, to);
            b.putLong(IOV_LEN, 8);
            b.putLong(IOVEC_BYTES + IOV_BASE, from);
            b.putLong(IOVEC_BYTES + IOV_LEN, 8);
            try
            {
                final long n = process_vm_readv((int)ProcessHandle.current().pid(), base, 1, base + IOVEC_BYTES, 1, 0);
                return n == 8 && b.getLong(IOVEC_BYTES * 2 + 8) == 0x5348_4d50_4943_4d41L ? 0 : EFAULT;
            }
            catch (final LastErrorException ex)
            {
                return ex.getErrorCode();
            }
        }
    }

    private final ByteBuffer iovecs;
    private final long localIov;
    private final long remoteIov;

    private CrossMemory()
    {
        iovecs = ByteBuffer.allocateDirect(IOVEC_BYTES * 2).order(ByteOrder.nativeOrder());
        localIov = BufferUtil.address(iovecs);
        remoteIov = localIov + IOVEC_BYTES;
    }

    /**
     * Cross-memory attach for this process, or null where it does not work here (not Linux, libc
     * not bound, or the self-read refused). The first call makes the process readable by any
     * process of its user (see the class comment).
     */
    public static CrossMemory open()
    {
        if (!"Linux".equals(System.getProperty("os.name")))
        {
            return null;
        }
        return probe() == 0 ? new CrossMemory() : null;
    }

    /**
     * What the self-read at load answered: 0 when it works, an errno when the kernel refused it,
     * -1 when libc could not be bound (diagnostics, {@code shminfo}).
     */
    public static int probe()
    {
        return Libc.PROBE;
    }

    /**
     * Copies {@code length} bytes at {@code remoteAddress} in process {@code pid} to
     * {@code localAddress} here, in as many calls as the kernel needs (it may return short).
     * Returns 0 when every byte arrived, else the errno of the call that failed (a short read
     * followed by no progress counts as {@link #EFAULT}); then part of the bytes may have arrived.
     * A hot path: no exception and no allocation unless the call fails.
     */
    public int read(final long pid, final long localAddress, final long remoteAddress, final long length)
    {
        long done = 0;
        while (done < length)
        {
            final long chunk = Math.min(MAX_CALL_BYTES, length - done);
            iovecs.putLong(IOV_BASE, localAddress + done);
            iovecs.putLong(IOV_LEN, chunk);
            iovecs.putLong(IOVEC_BYTES + IOV_BASE, remoteAddress + done);
            iovecs.putLong(IOVEC_BYTES + IOV_LEN, chunk);
            final long n;
            try
            {
                n = Libc.process_vm_readv((int)pid, localIov, 1, remoteIov, 1, 0);
            }
            catch (final LastErrorException ex)
            {
                return ex.getErrorCode();
            }
            if (n <= 0)
            {
                return EFAULT;
            }
            done += n;
        }
        return 0;
    }

    /** The name of the errno values {@link #read} may return, for messages. */
    public static String errnoName(final int errno)
    {
        switch (errno)
        {
            case EPERM: return "EPERM";
            case ESRCH: return "ESRCH";
            case EFAULT: return "EFAULT";
            case ENOSYS: return "ENOSYS";
            default: return "errno " + errno;
        }
    }
}
