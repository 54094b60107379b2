package org.shmpi.bridge;

import java.nio.charset.StandardCharsets;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * A PMIx client through JNA (no native code of ours): what a rank needs from the PMIx server of
 * the launcher that started it ({@code srun --mpi=pmix}, Open MPI's {@code mpirun}, PRRTE's
 * {@code prterun}): its rank and namespace, job-level values (size, nodes), per-process values
 * (local rank, node id), and a key-value exchange among all ranks (put, commit, fence, get) that
 * replaces shmpi's own rendezvous. The library is the system's {@code libpmix} (PMIx 4).
 *
 * <p>Layouts from {@code pmix_common.h}: {@code pmix_proc_t} is the namespace (256 chars) and a
 * 32-bit rank; {@code pmix_value_t} is a 16-bit type and, 8 bytes in, a union of at most 24.
 */
final class Pmix
{
    static final int NSPACE_BYTES = 256;
    static final int PROC_BYTES = NSPACE_BYTES + 4;
    static final int RANK_WILDCARD = 0xFFFFFFFE;
    static final short TYPE_STRING = 3;
    static final short TYPE_SIZE = 4;
    static final short TYPE_INT = 6;
    static final short TYPE_UINT = 11;
    static final short TYPE_UINT16 = 13;
    static final short TYPE_UINT32 = 14;
    static final short TYPE_PROC_RANK = 40;
    static final byte SCOPE_GLOBAL = 3;
    private static final int VALUE_BYTES = 64;
    private static final int DATA_OFFSET = 8;

    /** The entry points of libpmix used here. */
    interface Lib extends Library
    {
        int PMIx_Init(Pointer proc, Pointer info, long ninfo);

        int PMIx_Finalize(Pointer info, long ninfo);

        int PMIx_Get(Pointer proc, String key, Pointer info, long ninfo, PointerByReference value);

        int PMIx_Put(byte scope, String key, Pointer value);

        int PMIx_Commit();

        int PMIx_Fence(Pointer procs, long nprocs, Pointer info, long ninfo);
    }

    private final Lib lib;
    private final String nspace;
    private final int rank;
    private boolean finalized;

    private Pmix(final Lib lib, final String nspace, final int rank)
    {
        this.lib = lib;
        this.nspace = nspace;
        this.rank = rank;
    }

    /**
     * Connects to the launcher's PMIx server. Throws {@link IllegalStateException} with the reason
     * when the library is missing or the server refuses.
     */
    static Pmix connect()
    {
        final Lib lib;
        try
        {
            lib = Native.load("pmix", Lib.class);
        }
        catch (final UnsatisfiedLinkError ex)
        {
            throw new IllegalStateException("the launcher offers PMIx (PMIX_RANK is set) but libpmix cannot be " +
                "loaded: " + ex.getMessage() + " (install libpmix2, or set jna.library.path)", ex);
        }
        final Memory proc = new Memory(PROC_BYTES);
        proc.clear();
        final int rc = lib.PMIx_Init(proc, null, 0);
        if (rc != 0)
        {
            throw new IllegalStateException("PMIx_Init failed: status " + rc);
        }
        return new Pmix(lib, proc.getString(0, StandardCharsets.US_ASCII.name()), proc.getInt(NSPACE_BYTES));
    }

    String nspace()
    {
        return nspace;
    }

    int rank()
    {
        return rank;
    }

    private Memory proc(final int r)
    {
        final Memory p = new Memory(PROC_BYTES);
        p.clear();
        final byte[] name = nspace.getBytes(StandardCharsets.US_ASCII);
        p.write(0, name, 0, Math.min(name.length, NSPACE_BYTES - 1));
        p.setInt(NSPACE_BYTES, r);
        return p;
    }

    private Pointer get(final int r, final String key)
    {
        final PointerByReference ref = new PointerByReference();
        final int rc = lib.PMIx_Get(proc(r), key, null, 0, ref);
        if (rc != 0 || ref.getValue() == null)
        {
            throw new IllegalStateException("PMIx_Get(" + (r == RANK_WILDCARD ? "job" : "rank " + r) + ", " + key +
                ") failed: status " + rc);
        }
        return ref.getValue();
    }

    /** An integer value of rank {@code r} ({@link #RANK_WILDCARD}: of the job). */
    long number(final int r, final String key)
    {
        final Pointer v = get(r, key);
        final short type = v.getShort(0);
        switch (type)
        {
            case TYPE_UINT16:
                return v.getShort(DATA_OFFSET) & 0xFFFF;
            case TYPE_UINT32:
            case TYPE_UINT:
            case TYPE_PROC_RANK:
                return v.getInt(DATA_OFFSET) & 0xFFFFFFFFL;
            case TYPE_INT:
                return v.getInt(DATA_OFFSET);
            case TYPE_SIZE:
                return v.getLong(DATA_OFFSET);
            default:
                throw new IllegalStateException("PMIx value " + key + " has type " + type + ", not a number");
        }
    }

    /** A string value rank {@code r} put. */
    String string(final int r, final String key)
    {
        final Pointer v = get(r, key);
        if (v.getShort(0) != TYPE_STRING)
        {
            throw new IllegalStateException("PMIx value " + key + " of rank " + r + " is not a string");
        }
        final Pointer s = v.getPointer(DATA_OFFSET);
        return s == null ? "" : s.getString(0, StandardCharsets.UTF_8.name());
    }

    /** Publishes a string under {@code key} for every rank of the job (after {@link #commitAndFence}). */
    void put(final String key, final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        final Memory text = new Memory(bytes.length + 1);
        text.write(0, bytes, 0, bytes.length);
        text.setByte(bytes.length, (byte)0);
        final Memory v = new Memory(VALUE_BYTES);
        v.clear();
        v.setShort(0, TYPE_STRING);
        v.setPointer(DATA_OFFSET, text);
        final int rc = lib.PMIx_Put(SCOPE_GLOBAL, key, v);
        if (rc != 0)
        {
            throw new IllegalStateException("PMIx_Put(" + key + ") failed: status " + rc);
        }
    }

    /** Commits what this rank put and waits until every rank of the job has (a collective). */
    void commitAndFence()
    {
        int rc = lib.PMIx_Commit();
        if (rc != 0)
        {
            throw new IllegalStateException("PMIx_Commit failed: status " + rc);
        }
        rc = lib.PMIx_Fence(proc(RANK_WILDCARD), 1, null, 0);
        if (rc != 0)
        {
            throw new IllegalStateException("PMIx_Fence failed: status " + rc);
        }
    }

    /** Tells the server this rank is done (once). */
    synchronized void finish()
    {
        if (!finalized)
        {
            finalized = true;
            lib.PMIx_Finalize(null, 0);
        }
    }
}
