package org.shmpi.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import org.agrona.UnsafeApi;
import org.shmpi.ring.ThreadedJob;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.types.DataLayout;

/**
 * A JVM of its own ({@link ShmFileTest#aQuotaExceededIsErrQuota}) whose writes past {@link #LIMIT}
 * the kernel refuses with {@code EDQUOT}, as a user quota of that many bytes would: this kernel
 * has no quota support to set one up (no tmpfs quotas, no quota format for ext4), so a seccomp
 * filter installed on every thread answers {@code pwrite64}, {@code fallocate} and
 * {@code ftruncate} at or past the limit with that errno. Two ranks as threads then meet the
 * limit through each path the file engine writes by, and must see {@code ERR_QUOTA} and keep what
 * they wrote below it. Exit 0: passed; 3: no seccomp here (the test is skipped); else failed.
 */
public final class QuotaChild
{
    /** Bytes of the file below which writes succeed. */
    static final long LIMIT = 64L << 20;
    /** The 64 KiB each of the two ranks writes just below the limit. */
    static final int PIECE = 64 * 1024;

    private static final long BYTES = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long INTS = UnsafeApi.arrayBaseOffset(int[].class);

    private QuotaChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path path = Path.of(args[0]);
        if (!"amd64".equals(System.getProperty("os.arch")) || !NativeFile.AVAILABLE)
        {
            System.out.println("SKIP: the filter's system call numbers are x86-64's, and it needs libc");
            System.exit(3);
        }
        final String refused = installFilter(LIMIT);
        if (refused != null)
        {
            System.out.println("SKIP: " + refused);
            System.exit(3);
        }
        selfCheck(path.resolveSibling("probe.dat"));
        final ThreadedJob job = ThreadedJob.start("io-quota", 2, 64 * 1024);
        try
        {
            job.run(60, ctx ->
            {
                final FileMembers m = ShmFileTest.members(ctx, 2);
                final ShmFile f = ShmFile.open(ctx, m, path.toString(), ShmFile.MODE_CREATE | ShmFile.MODE_RDWR,
                    Map.of());
                final int me = m.rank();
                final byte[] mine = new byte[PIECE];
                Arrays.fill(mine, (byte)(me + 1));
                f.writeAt(LIMIT - 2L * PIECE + (long)PIECE * me, mine, BYTES, DataLayout.CONTIGUOUS, PIECE, null);
                m.barrier();
                // From a byte[]: a pwrite.
                expectQuota("pwrite", () -> f.writeAt(LIMIT + (long)PIECE * me, mine, BYTES, DataLayout.CONTIGUOUS,
                    PIECE, null));
                // From an int[]: blocks reserved (fallocate) before stores into the mapping.
                final int[] ints = new int[PIECE / 4];
                expectQuota("reserve", () -> f.writeAt(LIMIT + (4L << 20) + (long)PIECE * me, ints, INTS,
                    DataLayout.CONTIGUOUS, PIECE, null));
                // Appends at the shared pointer, moved to the limit.
                f.seekShared(LIMIT, ShmFile.SEEK_SET);
                expectQuota("append", () -> f.writeShared(mine, BYTES, DataLayout.CONTIGUOUS, PIECE, null));
                m.barrier();
                // Collective size changes fail on every member.
                expectQuota("setSize", () -> f.setSize(LIMIT + 4096));
                expectQuota("preallocate", () -> f.preallocate(LIMIT + 4096));
                // What was written below the limit is intact, and the file did not grow.
                final byte[] back = new byte[PIECE];
                for (int r = 0; r < 2; r++)
                {
                    f.readAt(LIMIT - 2L * PIECE + (long)PIECE * r, back, BYTES, DataLayout.CONTIGUOUS, PIECE, null);
                    for (final byte b : back)
                    {
                        if (b != r + 1)
                        {
                            throw new AssertionError("rank " + me + " read " + b + " in rank " + r + "'s bytes");
                        }
                    }
                }
                if (f.fileSize() != LIMIT)
                {
                    throw new AssertionError("size " + f.fileSize() + " after refused writes, not " + LIMIT);
                }
                m.barrier();
                f.close();
            });
        }
        finally
        {
            ThreadedJob.closeAndCheckRemoved(job);
        }
        System.out.println("QUOTA OK");
    }

    private static void expectQuota(final String what, final Runnable call)
    {
        try
        {
            call.run();
        }
        catch (final ShmpiException ex)
        {
            if (ex.errorClass() != ErrorClass.ERR_QUOTA)
            {
                throw new AssertionError(what + ": error class " + ex.errorClass() + ", not ERR_QUOTA", ex);
            }
            return;
        }
        throw new AssertionError(what + " past the quota succeeded");
    }

    /** The filter answers as the kernel would on a quota: a plain channel write at the limit fails. */
    private static void selfCheck(final Path probe) throws IOException
    {
        try (FileChannel c = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.DELETE_ON_CLOSE))
        {
            c.write(ByteBuffer.allocate(16), 0);
            try
            {
                c.write(ByteBuffer.allocate(16), LIMIT);
            }
            catch (final IOException ex)
            {
                if (String.valueOf(ex.getMessage()).contains("quota"))
                {
                    return;
                }
                throw ex;
            }
            throw new AssertionError("the filter let a write at the limit through");
        }
        finally
        {
            Files.deleteIfExists(probe);
        }
    }

    // Classic BPF, as seccomp runs it on struct seccomp_data (nr at 0, arch at 4, args from 16).
    private static final int LD_W_ABS = 0x20;
    private static final int JEQ_K = 0x15;
    private static final int JGT_K = 0x25;
    private static final int JSET_K = 0x45;
    private static final int FALLOCATE = 285;
    private static final int FALLOC_FL_PUNCH_HOLE = 2;
    private static final int ADD_X = 0x0c;
    private static final int TAX = 0x07;
    private static final int RET_K = 0x06;
    private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    private static final int RET_ALLOW = 0x7FFF0000;
    private static final int RET_ERRNO = 0x00050000;
    private static final int EDQUOT = 122;
    /**
     * x86-64 system calls, the argument that is the file position (or the new length), and the
     * one that is the byte count (-1: none): refused when position + count passes the limit.
     */
    private static final int[][] CALLS = {{18, 3, 2}, {FALLOCATE, 2, 3}, {77, 1, -1}};

    /** A jump target not yet placed: resolved when the program is laid out. */
    private static final int NEXT = -1;
    private static final int DENY = -2;
    private static final int ALLOW = -3;

    /** Installs the filter on every thread of this process; null when done, else why not. */
    private static String installFilter(final long limit)
    {
        // {code, jump if true, jump if false, k}; jumps name an instruction (or NEXT, DENY, ALLOW).
        final List<int[]> code = new ArrayList<>();
        final List<Integer> blockEnds = new ArrayList<>();
        code.add(new int[] {LD_W_ABS, 0, 0, 4});
        code.add(new int[] {JEQ_K, 2, ALLOW, AUDIT_ARCH_X86_64});
        for (final int[] call : CALLS)
        {
            final int pos = 16 + 8 * call[1];
            code.add(new int[] {LD_W_ABS, 0, 0, 0});
            code.add(new int[] {JEQ_K, code.size() + 1, NEXT, call[0]});
            if (call[0] == FALLOCATE)
            {
                // Punching a hole frees blocks, which no quota refuses.
                code.add(new int[] {LD_W_ABS, 0, 0, 16 + 8});
                code.add(new int[] {JSET_K, ALLOW, code.size() + 1, FALLOC_FL_PUNCH_HOLE});
            }
            code.add(new int[] {LD_W_ABS, 0, 0, pos + 4});
            code.add(new int[] {JEQ_K, code.size() + 1, DENY, 0});
            if (call[2] >= 0)
            {
                final int len = 16 + 8 * call[2];
                code.add(new int[] {LD_W_ABS, 0, 0, len + 4});
                code.add(new int[] {JEQ_K, code.size() + 1, DENY, 0});
                code.add(new int[] {LD_W_ABS, 0, 0, len});
                code.add(new int[] {JGT_K, DENY, code.size() + 1, (int)limit});
                code.add(new int[] {TAX, 0, 0, 0});
            }
            code.add(new int[] {LD_W_ABS, 0, 0, pos});
            code.add(new int[] {JGT_K, DENY, code.size() + 1, (int)limit});
            if (call[2] >= 0)
            {
                // Both parts are at most the limit (under 2^31): the sum cannot wrap.
                code.add(new int[] {ADD_X, 0, 0, 0});
            }
            code.add(new int[] {JGT_K, DENY, NEXT, (int)limit});
            blockEnds.add(code.size());
        }
        final int allow = code.size();
        code.add(new int[] {RET_K, 0, 0, RET_ALLOW});
        final int deny = code.size();
        code.add(new int[] {RET_K, 0, 0, RET_ERRNO | EDQUOT});
        final int[][] program = new int[code.size()][];
        int block = 0;
        for (int k = 0; k < program.length; k++)
        {
            final int[] insn = code.get(k).clone();
            while (block < blockEnds.size() && k >= blockEnds.get(block))
            {
                block++;
            }
            if ((insn[0] & 0x07) == 0x05)
            {
                for (int j = 1; j <= 2; j++)
                {
                    final int target = insn[j] == NEXT ? blockEnds.get(block) : insn[j] == DENY ? deny :
                        insn[j] == ALLOW ? allow : insn[j];
                    insn[j] = target - (k + 1);
                }
            }
            program[k] = insn;
        }
        final Memory filter = new Memory(8L * program.length);
        for (int k = 0; k < program.length; k++)
        {
            filter.setShort(8L * k, (short)program[k][0]);
            filter.setByte(8L * k + 2, (byte)program[k][1]);
            filter.setByte(8L * k + 3, (byte)program[k][2]);
            filter.setInt(8L * k + 4, program[k][3]);
        }
        final Memory fprog = new Memory(16);
        fprog.clear();
        fprog.setShort(0, (short)program.length);
        fprog.setPointer(8, filter);
        final NativeLibrary c = NativeLibrary.getInstance("c");
        // prctl(PR_SET_NO_NEW_PRIVS, 1): a filter may then be installed without privileges.
        final Function prctl = c.getFunction("prctl");
        if (prctl.invokeInt(new Object[] {38, 1L, 0L, 0L, 0L}) != 0)
        {
            return "prctl(PR_SET_NO_NEW_PRIVS) failed";
        }
        // seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog): every thread.
        final Function syscall = c.getFunction("syscall");
        final long r = syscall.invokeLong(new Object[] {317L, 1L, 1L, fprog});
        return r == 0 ? null : "seccomp(SECCOMP_SET_MODE_FILTER) returned " + r;
    }
}
