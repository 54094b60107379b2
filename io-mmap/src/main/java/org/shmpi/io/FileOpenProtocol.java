package org.shmpi.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.shmpi.ring.RankContext;
import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;
import org.shmpi.shm.segment.Segment;
import org.shmpi.shm.segment.SegmentKind;
import org.shmpi.shm.segment.SegmentManager;
import org.shmpi.shm.segment.SegmentNames;

/**
 * {@code MPI_File_open} and {@code MPI_File_close}, collective over the file's members. Open is
 * three steps, each ended by an allgather so that a failure anywhere fails the open everywhere
 * with the class of the lowest member that failed: (1) the arguments and the {@link IoSettings},
 * alike on every member; (2) member 0 creates or checks the file and, when the members share
 * memory, makes the shared state segment ({@link FileStateDescriptor}); (3) every member maps the
 * shared state (or, across nodes, member 0 starts serving the shared words by messages:
 * {@link ServedWords}) and the file. On a failure in step 3 each member undoes what it made.
 * Close waits for every member, gives back the blocks reserved past the end (member 0, when no
 * other open is left), unmaps, and removes the shared state. Nothing here needs the members to
 * share a machine but the segment: the file is on a file system they all see, and every other
 * step is collective.
 *
 * <p>One object per open call: the state of the handshake in progress.
 */
final class FileOpenProtocol
{
    private static final long OPEN_TIMEOUT_NS = 30_000_000_000L;
    /** With member 0's world rank, the id of a shared state segment (unique in the job). */
    private static final AtomicLong NEXT_ID = new AtomicLong(1);
    private static final int ALL_MODES = 511;

    private final RankContext ctx;
    private final FileMembers members;
    private final String name;
    private final int amode;
    private final Map<String, String> hints;
    private final int me;
    /** This member's failure in the current step: its class (0: none) and why. */
    private int error;
    private String why;
    private Segment state;
    private SharedWords words;
    private Path real;
    private MappedFile mapped;

    private FileOpenProtocol(final RankContext ctx, final FileMembers members, final String name, final int amode,
        final Map<String, String> hints)
    {
        this.ctx = ctx;
        this.members = members;
        this.name = name;
        this.amode = amode;
        this.hints = hints;
        this.me = members.rank();
    }

    /** See {@link ShmFile#open}. */
    static ShmFile open(final RankContext ctx, final FileMembers members, final String name, final int amode,
        final Map<String, String> hints)
    {
        final FileOpenProtocol protocol = new FileOpenProtocol(ctx, members, name, amode, hints);
        // 1. The arguments, everywhere alike.
        final IoSettings settings = protocol.agreeOnArguments();
        final Path path = Path.of(name);
        // 2. Member 0 creates or checks the file and makes the shared state.
        final long id = protocol.makeSharedState(path);
        // 3. Every member opens it.
        protocol.mapEverywhere(path, id, settings);
        return protocol.opened(path);
    }

    /** Checks an access mode as MPI defines it; why it is not valid, else null. */
    static String amodeError(final int amode)
    {
        if ((amode & ~ALL_MODES) != 0)
        {
            return "unknown bits in the access mode: " + amode;
        }
        final int rw = Integer.bitCount(amode & (ShmFile.MODE_RDONLY | ShmFile.MODE_WRONLY | ShmFile.MODE_RDWR));
        if (rw != 1)
        {
            return "the access mode needs exactly one of MODE_RDONLY, MODE_WRONLY, MODE_RDWR: " + amode;
        }
        if ((amode & ShmFile.MODE_RDONLY) != 0 && (amode & (ShmFile.MODE_CREATE | ShmFile.MODE_EXCL)) != 0)
        {
            return "MODE_RDONLY with MODE_CREATE or MODE_EXCL: " + amode;
        }
        if ((amode & ShmFile.MODE_RDWR) != 0 && (amode & ShmFile.MODE_SEQUENTIAL) != 0)
        {
            return "MODE_RDWR with MODE_SEQUENTIAL: " + amode;
        }
        return null;
    }

    /** Step 1: the access mode, the name and the settings, checked here and compared among the members. */
    private IoSettings agreeOnArguments()
    {
        IoSettings settings = null;
        final String amodeWhy = amodeError(amode);
        if (amodeWhy != null)
        {
            error = ErrorClass.ERR_AMODE;
            why = amodeWhy;
        }
        else if (name == null || name.isEmpty())
        {
            error = ErrorClass.ERR_BAD_FILE;
            why = "no file name";
        }
        else
        {
            // Validated with every other setting when the rank started (ShmpiConfig).
            settings = IoSettings.of(ctx.settings());
        }
        final long nameHash = name == null ? 0 : name.hashCode();
        final long[] all = members.allgather(new long[] {error, amode, nameHash});
        agree(all, 3, "open");
        for (int r = 1; r < members.world().length; r++)
        {
            if (all[3 * r + 1] != all[1])
            {
                throw new ShmpiException(ErrorClass.ERR_AMODE, "open: member " + r + " passed access mode " +
                    all[3 * r + 1] + ", member 0 " + all[1] + " (it must be the same everywhere)");
            }
            if (all[3 * r + 2] != all[2])
            {
                throw new ShmpiException(ErrorClass.ERR_FILE, "open: the members name different files");
            }
        }
        return settings;
    }

    /**
     * Step 2: member 0 creates or checks the file and, when the members share memory, creates the
     * shared state segment; its id (0: none).
     */
    private long makeSharedState(final Path path)
    {
        long id = 0;
        error = 0;
        why = null;
        if (me == 0)
        {
            try
            {
                FilePaths.createOrCheck(path, amode, hints == null ? null : hints.get("file_perm"));
                if (members.sharesMemory())
                {
                    id = ((long)members.world()[0] << 32) | NEXT_ID.getAndIncrement();
                    // The payload starts zeroed (pointer 0, lock free, nothing reserved); the segment's
                    // version word, published last by create, makes it visible to the opens of step 3.
                    state = ctx.segments().create(SegmentKind.FILE, SegmentNames.file(id),
                        FileStateDescriptor.LENGTH);
                }
            }
            catch (final ShmpiException ex)
            {
                error = ex.errorClass();
                why = ex.getMessage();
            }
            catch (final IOException ex)
            {
                error = ErrorClass.ERR_IO;
                why = "cannot make the file's shared state: " + ex.getMessage();
            }
        }
        final long[] all = members.allgather(new long[] {error, id});
        if (all[0] != 0)
        {
            throw new ShmpiException((int)all[0], me == 0 ? why : "open of " + name + " failed on member 0" +
                " (class " + ErrorClass.name((int)all[0]) + ")");
        }
        return all[1];
    }

    /**
     * Step 3: every member maps the shared state (member 0 has it), or member 0 starts serving the
     * shared words, and every member maps the file; undone everywhere on a failure.
     */
    private void mapEverywhere(final Path path, final long id, final IoSettings settings)
    {
        final SegmentManager segments = ctx.segments();
        error = 0;
        why = null;
        try
        {
            if (!members.sharesMemory())
            {
                // Served before the allgather below: no member asks before the open has ended everywhere.
                words = ServedWords.open(ctx, members);
            }
            else
            {
                if (me != 0)
                {
                    state = segments.open(SegmentKind.FILE, SegmentNames.file(id), members.world()[0],
                        System.nanoTime() + OPEN_TIMEOUT_NS);
                }
                words = new SegmentWords(segments, state, me == 0);
            }
            final boolean writable = (amode & ShmFile.MODE_RDONLY) == 0;
            final FileChannel channel = FilePaths.openChannel(path, writable);
            real = path.toRealPath();
            mapped = new MappedFile(channel, real.toString(), writable, settings.chunkBytes(), settings.maxMapped());
        }
        catch (final ShmpiException ex)
        {
            error = ex.errorClass();
            why = ex.getMessage();
        }
        catch (final IOException ex)
        {
            error = ErrorClass.ERR_IO;
            why = ex.getMessage();
        }
        final long[] all = members.allgather(new long[] {error});
        try
        {
            agree(all, 1, "open of " + name);
        }
        catch (final ShmpiException ex)
        {
            closeQuietly(mapped);
            if (words != null)
            {
                words.release();
            }
            throw ex;
        }
    }

    /** The open file, counted open in this process; with MODE_APPEND both pointers start at its end. */
    private ShmFile opened(final Path path)
    {
        final ShmFile f = new ShmFile(members, path, real, amode, words, mapped,
            hints == null ? new HashMap<>() : new HashMap<>(hints));
        FilePaths.opened(real);
        if ((amode & ShmFile.MODE_APPEND) != 0)
        {
            f.startAtEnd();
        }
        return f;
    }

    /** Throws, on every member alike, the first error of {@code all} (stride {@code stride}, class first). */
    private void agree(final long[] all, final int stride, final String call)
    {
        for (int r = 0; r < all.length / stride; r++)
        {
            final int failed = (int)all[r * stride];
            if (failed != 0)
            {
                throw new ShmpiException(failed, r == me ? call + ": " + why : call + " failed on member " + r +
                    " (class " + ErrorClass.name(failed) + ")" + (error != 0 ? "; here: " + why : ""));
            }
        }
    }

    /**
     * {@code MPI_File_close} after the first barrier (every member is closing): unmaps, gives back
     * what was reserved past the end, removes (member 0) or releases the shared words, and deletes
     * the file with {@code MODE_DELETE_ON_CLOSE}.
     */
    static void close(final FileMembers members, final Path path, final Path realPath, final int amode,
        final SharedWords words, final MappedFile file)
    {
        FilePaths.closed(realPath);
        // Blocks reserved past the end are given back by member 0, once the other members'
        // descriptors (and their presence locks) are closed, and only when no other open of the
        // file anywhere is left that could be appending into them.
        ShmpiException failure = null;
        if (members.rank() != 0)
        {
            closeQuietly(file);
        }
        members.barrier();
        if (members.rank() == 0)
        {
            if ((amode & ShmFile.MODE_DELETE_ON_CLOSE) == 0 && file.lastWriter())
            {
                try
                {
                    // After the barrier: no member appends any more.
                    file.releaseBeyond(words.reservedEnd());
                }
                catch (final IOException ex)
                {
                    failure = FileErrors.ioError(ex, "close");
                }
            }
            closeQuietly(file);
        }
        // Every member has had its last answer from member 0 before the first barrier.
        words.release();
        if ((amode & ShmFile.MODE_DELETE_ON_CLOSE) != 0)
        {
            // Everyone has unmapped it after the barrier... member 0 deletes it after one more.
            members.barrier();
            if (members.rank() == 0)
            {
                FilePaths.deleteIfExists(path);
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private static void closeQuietly(final MappedFile f)
    {
        if (f != null)
        {
            try
            {
                f.close();
            }
            catch (final IOException ignored)
            {
                // Closing: nothing left to report to.
            }
        }
    }
}
