package org.shmpi.launcher.progs;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import mpi.CartComm;
import mpi.Datatype;
import mpi.Group;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/**
 * The error class of each kind of bad argument (FuzzIT): a table of calls, each a valid call with
 * one argument made bad, and the class the MPI standard gives for it. Every rank makes the same
 * calls with the same arguments, so collectives with a bad argument are bad on every rank alike,
 * the way a real program's are; after each row the communicator must still work (a barrier and an
 * allreduce whose result is checked). Then {@code MPI.Finalize}, and a second table: calls after
 * Finalize are {@code ERR_OTHER}, the few calls the standard allows at any time still work.
 * Prints {@code MISMATCH rank R row: expected X, got Y} per wrong row and
 * {@code TABLE rank R rows N classes [...] mismatches M}.
 *
 * <p>Argument: a directory for the file rows.
 */
public final class ErrorTable
{
    private static final int NONE = -1;
    private static final List<String> MISMATCHES = new ArrayList<>();
    private static final java.util.Set<Integer> CLASSES = new java.util.TreeSet<>();
    private static int rows;
    private static int rank;
    private static HangGuard guard;

    private ErrorTable()
    {
    }

    /** One call of the table. */
    private interface Call
    {
        void run() throws MPIException;
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        guard = HangGuard.start(MPI.COMM_WORLD.getRank());
        final Path dir = Path.of(args[0]);
        rank = MPI.COMM_WORLD.getRank();
        final int n = MPI.COMM_WORLD.getSize();
        final Intracomm c = MPI.COMM_WORLD.dup();
        c.setErrhandler(MPI.ERRORS_RETURN);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        final int[] one = {7};
        final int[] two = new int[2];
        final int[] many = new int[4 * n];
        final Datatype freed = Datatype.createContiguous(2, MPI.INT);
        freed.commit();
        freed.free();
        final Datatype uncommitted = Datatype.createVector(2, 1, 2, MPI.INT);
        final int tagUb = (Integer)MPI.COMM_WORLD.getAttr(MPI.TAG_UB);

        // Point-to-point: every check before anything is sent.
        row("send count -1", MPI.ERR_COUNT, () -> c.send(one, -1, MPI.INT, 0, 0));
        row("send dest = size", MPI.ERR_RANK, () -> c.send(one, 1, MPI.INT, n, 0));
        row("send dest -5", MPI.ERR_RANK, () -> c.send(one, 1, MPI.INT, -5, 0));
        row("send dest ANY_SOURCE", MPI.ERR_RANK, () -> c.send(one, 1, MPI.INT, MPI.ANY_SOURCE, 0));
        row("send tag -7", MPI.ERR_TAG, () -> c.send(one, 1, MPI.INT, 0, -7));
        row("send tag ANY_TAG", MPI.ERR_TAG, () -> c.send(one, 1, MPI.INT, 0, MPI.ANY_TAG));
        row("send tag > TAG_UB", MPI.ERR_TAG, () -> c.send(one, 1, MPI.INT, 0, tagUb + 1));
        row("send null buffer", MPI.ERR_BUFFER, () -> c.send(null, 1, MPI.INT, 0, 0));
        row("send null type", MPI.ERR_TYPE, () -> c.send(one, 1, null, 0, 0));
        row("send freed type", MPI.ERR_TYPE, () -> c.send(one, 1, freed, 0, 0));
        row("send uncommitted type", MPI.ERR_TYPE, () -> c.send(many, 1, uncommitted, 0, 0));
        row("send DATATYPE_NULL", MPI.ERR_TYPE, () -> c.send(one, 1, MPI.DATATYPE_NULL, 0, 0));
        row("send array too short", MPI.ERR_BUFFER, () -> c.send(two, 3, MPI.INT, 0, 0));
        // A buffer is its bytes (as in Open MPI's bindings, which reinterpret the array): bounds in bytes.
        row("send int[2] as 1 DOUBLE", NONE, () -> c.send(two, 1, MPI.DOUBLE, MPI.PROC_NULL, 0));
        row("send int[2] as 2 DOUBLE", MPI.ERR_BUFFER, () -> c.send(two, 2, MPI.DOUBLE, 0, 0));
        row("iSend direct buffer too short", MPI.ERR_BUFFER, () ->
            c.iSend(MPI.newIntBuffer(2), 3, MPI.INT, 0, 0).free());
        row("recv source = size", MPI.ERR_RANK, () -> c.recv(one, 1, MPI.INT, n, 0));
        row("recv tag -7", MPI.ERR_TAG, () -> c.recv(one, 1, MPI.INT, 0, -7));
        row("recv count -1", MPI.ERR_COUNT, () -> c.recv(one, -1, MPI.INT, 0, 0));
        row("iRecv array too short", MPI.ERR_BUFFER, () -> c.iRecv(MPI.newIntBuffer(1), 2, MPI.INT, 0, 0));
        row("probe source -5", MPI.ERR_RANK, () -> c.probe(-5, 0));
        row("sendRecv dest = size", MPI.ERR_RANK, () ->
            c.sendRecv(one, 1, MPI.INT, n, 0, two, 1, MPI.INT, 0, 0));
        row("send PROC_NULL, bad count", MPI.ERR_COUNT, () -> c.send(one, -1, MPI.INT, MPI.PROC_NULL, 0));
        row("send PROC_NULL", NONE, () -> c.send(one, 1, MPI.INT, MPI.PROC_NULL, 0));

        // Collectives: the same bad argument on every rank.
        row("bcast count -1", MPI.ERR_COUNT, () -> c.bcast(one, -1, MPI.INT, 0));
        row("bcast root = size", MPI.ERR_ROOT, () -> c.bcast(one, 1, MPI.INT, n));
        row("bcast root -1", MPI.ERR_ROOT, () -> c.bcast(one, 1, MPI.INT, -1));
        row("bcast null type", MPI.ERR_TYPE, () -> c.bcast(one, 1, null, 0));
        row("bcast null buffer", MPI.ERR_BUFFER, () -> c.bcast(null, 1, MPI.INT, 0));
        row("bcast freed type", MPI.ERR_TYPE, () -> c.bcast(one, 1, freed, 0));
        row("reduce null op", MPI.ERR_OP, () -> c.reduce(one, two, 1, MPI.INT, null, 0));
        row("reduce MINLOC on INT", MPI.ERR_OP, () -> c.reduce(one, two, 1, MPI.INT, MPI.MINLOC, 0));
        row("reduce root = size", MPI.ERR_ROOT, () -> c.reduce(one, two, 1, MPI.INT, MPI.SUM, n));
        row("allReduce count -1", MPI.ERR_COUNT, () -> c.allReduce(one, two, -1, MPI.INT, MPI.SUM));
        row("allReduce null op", MPI.ERR_OP, () -> c.allReduce(one, two, 1, MPI.INT, null));
        row("allReduce BAND on DOUBLE", MPI.ERR_OP, () ->
            c.allReduce(new double[1], new double[1], 1, MPI.DOUBLE, MPI.BAND));
        row("allReduce receive array too short", MPI.ERR_BUFFER, () ->
            c.allReduce(many, two, 3, MPI.INT, MPI.SUM));
        row("gather root = size", MPI.ERR_ROOT, () -> c.gather(one, 1, MPI.INT, many, 1, MPI.INT, n));
        row("gather count -1", MPI.ERR_COUNT, () -> c.gather(one, -1, MPI.INT, many, 1, MPI.INT, 0));
        row("allGather null type", MPI.ERR_TYPE, () -> c.allGather(one, 1, null, many, 1, MPI.INT));
        row("scatter root -3", MPI.ERR_ROOT, () -> c.scatter(many, 1, MPI.INT, one, 1, MPI.INT, -3));
        row("allToAll count -1", MPI.ERR_COUNT, () -> c.allToAll(many, -1, MPI.INT, many, 1, MPI.INT));
        row("scan null op", MPI.ERR_OP, () -> c.scan(one, two, 1, MPI.INT, null));
        row("iAllReduce count -1", MPI.ERR_COUNT, () ->
            c.iAllReduce(MPI.newIntBuffer(1), MPI.newIntBuffer(1), -1, MPI.INT, MPI.SUM));
        row("iBcast root = size", MPI.ERR_ROOT, () -> c.iBcast(MPI.newIntBuffer(1), 1, MPI.INT, n));

        // Communicators and groups.
        final Intracomm gone = c.dup();
        gone.setErrhandler(MPI.ERRORS_RETURN);
        gone.free();
        row("barrier on a freed communicator", MPI.ERR_COMM, gone::barrier);
        row("send on a freed communicator", MPI.ERR_COMM, () -> gone.send(one, 1, MPI.INT, 0, 0));
        row("split color -5", MPI.ERR_ARG, () -> c.split(-5, 0));
        row("create null group", MPI.ERR_GROUP, () -> c.create(null));
        final Group world = c.getGroup();
        row("group incl rank = size", MPI.ERR_RANK, () -> world.incl(new int[] {n}));
        row("group incl duplicate", MPI.ERR_RANK, () -> world.incl(new int[] {0, 0}));
        row("group excl -1", MPI.ERR_RANK, () -> world.excl(new int[] {-1}));
        row("group translateRanks rank = size", MPI.ERR_RANK, () ->
            Group.translateRanks(world, new int[] {n}, world));
        row("group rangeIncl stride 0", MPI.ERR_ARG, () -> world.rangeIncl(new int[][] {{0, 0, 0}}));
        row("createCart dims -1", MPI.ERR_DIMS, () -> c.createCart(new int[] {-1}, new boolean[] {false}, false));
        row("createCart too many processes", MPI.ERR_ARG, () ->
            c.createCart(new int[] {n + 1}, new boolean[] {false}, false));
        row("createDims nnodes -1", MPI.ERR_DIMS, () -> CartComm.createDims(-1, new int[2]));
        row("createDims no dimensions", MPI.ERR_DIMS, () -> CartComm.createDims(n, new int[0]));
        row("createDims null dims", MPI.ERR_ARG, () -> CartComm.createDims(n, null));
        final CartComm cart = c.createCart(new int[] {n}, new boolean[] {false}, false);
        cart.setErrhandler(MPI.ERRORS_RETURN);
        row("cart getRank coordinate out of range", MPI.ERR_ARG, () -> cart.getRank(new int[] {n}));
        row("cart getCoords rank = size", MPI.ERR_RANK, () -> cart.getCoords(n));
        final Group freedGroup = c.getGroup();
        freedGroup.free();
        row("size of a freed group", MPI.ERR_GROUP, freedGroup::getSize);
        row("create with a freed group", MPI.ERR_GROUP, () -> c.create(freedGroup));
        row("free a predefined op", MPI.ERR_OP, MPI.SUM::free);
        row("getAttr invalid keyval", MPI.ERR_KEYVAL, () -> c.getAttr(-12345));

        // Datatypes.
        row("createContiguous count -1", MPI.ERR_COUNT, () -> Datatype.createContiguous(-1, MPI.INT));
        row("createVector null old type", MPI.ERR_TYPE, () -> Datatype.createVector(2, 1, 2, null));
        row("createVector blocklength -1", MPI.ERR_ARG, () -> Datatype.createVector(2, -1, 2, MPI.INT));
        row("createIndexed arrays of other lengths", MPI.ERR_ARG, () ->
            Datatype.createIndexed(new int[] {1, 1}, new int[] {0}, MPI.INT));
        row("createStruct arrays of other lengths", MPI.ERR_ARG, () ->
            Datatype.createStruct(new int[] {1}, new int[] {0, 4}, new Datatype[] {MPI.INT}));
        row("commit a freed type", MPI.ERR_TYPE, freed::commit);

        // Info.
        final Info info = new Info();
        row("info set key too long", MPI.ERR_INFO_KEY, () -> info.set("k".repeat(MPI.MAX_INFO_KEY + 1), "v"));
        row("info set empty key", MPI.ERR_INFO_KEY, () -> info.set("", "v"));
        row("info set value too long", MPI.ERR_INFO_VALUE, () -> info.set("k", "v".repeat(MPI.MAX_INFO_VAL + 1)));
        row("info delete missing key", MPI.ERR_INFO_NOKEY, () -> info.delete("no-such-key"));
        final Info freedInfo = new Info();
        freedInfo.free();
        row("info set on a freed info", MPI.ERR_INFO, () -> freedInfo.set("k", "v"));
        row("dup with a freed info", MPI.ERR_INFO, () -> c.dupWithInfo(freedInfo));
        row("info get null key", MPI.ERR_INFO_KEY, () -> info.get(null));

        // RMA.
        final IntBuffer base = MPI.newIntBuffer(4);
        final Win win = new Win(base, 4, 4, MPI.INFO_NULL, c);
        win.setErrhandler(MPI.ERRORS_RETURN);
        row("put outside an epoch", MPI.ERR_RMA_SYNC, () -> win.put(MPI.newIntBuffer(1), 1, MPI.INT, 0, 0, 1, MPI.INT));
        win.fence(0);
        row("put target rank = size", MPI.ERR_RANK, () -> win.put(MPI.newIntBuffer(1), 1, MPI.INT, n, 0, 1, MPI.INT));
        row("put negative displacement", MPI.ERR_DISP, () ->
            win.put(MPI.newIntBuffer(1), 1, MPI.INT, 0, -1, 1, MPI.INT));
        row("put past the window", MPI.ERR_RMA_RANGE, () ->
            win.put(MPI.newIntBuffer(1), 1, MPI.INT, 0, 4, 1, MPI.INT));
        row("put count -1", MPI.ERR_COUNT, () -> win.put(MPI.newIntBuffer(1), -1, MPI.INT, 0, 0, 1, MPI.INT));
        row("accumulate null op", MPI.ERR_OP, () ->
            win.accumulate(MPI.newIntBuffer(1), 1, MPI.INT, 0, 0, 1, MPI.INT, null));
        win.fence(0);
        row("lock rank = size", MPI.ERR_RANK, () -> win.lock(MPI.LOCK_SHARED, n, 0));
        row("unlock not locked", MPI.ERR_RMA_SYNC, () -> win.unlock(0));
        row("window size -1", MPI.ERR_SIZE, () -> new Win(MPI.newByteBuffer(4), -1, 1, MPI.INFO_NULL, c));
        row("window disp unit 0", MPI.ERR_DISP, () -> new Win(MPI.newByteBuffer(4), 4, 0, MPI.INFO_NULL, c));
        win.free();

        // Files (the default file error handler is ERRORS_RETURN).
        final String missing = dir.resolve("no-such-file").toString();
        final String made = dir.resolve("table-" + n + ".dat").toString();
        row("open missing read-only", MPI.ERR_NO_SUCH_FILE, () -> new mpi.File(c, missing, MPI.MODE_RDONLY));
        row("open read-only and write-only", MPI.ERR_AMODE, () ->
            new mpi.File(c, made, MPI.MODE_RDONLY | MPI.MODE_WRONLY | MPI.MODE_CREATE));
        row("open read-only with create", MPI.ERR_AMODE, () ->
            new mpi.File(c, made, MPI.MODE_RDONLY | MPI.MODE_CREATE));
        final mpi.File f = new mpi.File(c, made, MPI.MODE_RDWR | MPI.MODE_CREATE);
        c.barrier();
        final mpi.File ro = new mpi.File(c, made, MPI.MODE_RDONLY);
        row("write to a read-only file", MPI.ERR_READ_ONLY, () ->
            ro.write(ByteBuffer.allocateDirect(4), 4, MPI.BYTE));
        row("read with count -1", MPI.ERR_COUNT, () -> f.read(ByteBuffer.allocateDirect(4), -1, MPI.BYTE));
        row("seek before the start", MPI.ERR_ARG, () -> f.seek(-8, MPI.SEEK_SET));
        ro.close();
        f.close();
        if (rank == 0)
        {
            Files.deleteIfExists(Path.of(made));
        }

        // Requests.
        final Request[] none = new Request[0];
        row("waitAll on no requests", NONE, () -> Request.waitAll(none));
        row("waitAll null array", MPI.ERR_REQUEST, () -> Request.waitAll(null));

        c.free();
        MPI.COMM_WORLD.barrier();
        final String table = "TABLE rank " + rank + " rows " + rows + " classes " + CLASSES;
        MPI.Finalize();

        // After Finalize: the calls the standard allows at any time still work; the rest are ERR_OTHER.
        final int before = rows;
        check("isFinalized after Finalize", MPI.isFinalized());
        check("isInitialized after Finalize", MPI.isInitialized());
        row("getVersion after Finalize", NONE, MPI::getVersion);
        row("getLibVersion after Finalize", NONE, MPI::getLibVersion);
        row("getRank after Finalize", MPI.ERR_OTHER, MPI.COMM_WORLD::getRank);
        row("send after Finalize", MPI.ERR_OTHER, () -> MPI.COMM_SELF.send(one, 1, MPI.INT, 0, 0));
        row("barrier after Finalize", MPI.ERR_OTHER, MPI.COMM_WORLD::barrier);
        row("dup after Finalize", MPI.ERR_OTHER, MPI.COMM_WORLD::dup);
        row("new window after Finalize", MPI.ERR_OTHER, () ->
            new Win(MPI.newByteBuffer(4), 4, 1, MPI.INFO_NULL, MPI.COMM_WORLD));
        row("type commit after Finalize", MPI.ERR_OTHER, () -> Datatype.createContiguous(2, MPI.INT).commit());
        row("Finalize twice", MPI.ERR_OTHER, MPI::Finalize);
        row("Init after Finalize", MPI.ERR_OTHER, () -> MPI.Init(new String[0]));
        for (final String m : MISMATCHES)
        {
            System.out.println("MISMATCH rank " + rank + " " + m);
        }
        System.out.println(table + " after-finalize " + (rows - before) + " mismatches " + MISMATCHES.size());
        System.out.flush();
    }

    private static void check(final String name, final boolean ok)
    {
        rows++;
        if (!ok)
        {
            MISMATCHES.add(name + ": false");
        }
    }

    private static void row(final String name, final int expected, final Call call)
    {
        rows++;
        int got = NONE;
        String detail = "";
        guard.enter(name);
        try
        {
            call.run();
        }
        catch (final MPIException ex)
        {
            got = ex.getErrorClass();
            detail = " (" + ex.getMessage() + ")";
            CLASSES.add(got);
        }
        catch (final RuntimeException | Error ex)
        {
            MISMATCHES.add(name + ": expected " + name(expected) + ", got " + ex);
            return;
        }
        finally
        {
            guard.leave();
        }
        if (got != expected)
        {
            MISMATCHES.add(name + ": expected " + name(expected) + ", got " + name(got) + detail);
        }
        if (!MPI.isFinalized())
        {
            healthy(name);
        }
    }

    /** The world still works after the row: a barrier, and an allreduce with the known sum. */
    private static void healthy(final String name)
    {
        try
        {
            MPI.COMM_WORLD.barrier();
            final int[] sum = new int[1];
            MPI.COMM_WORLD.allReduce(new int[] {rank + 1}, sum, 1, MPI.INT, MPI.SUM);
            final int n = MPI.COMM_WORLD.getSize();
            if (sum[0] != n * (n + 1) / 2)
            {
                MISMATCHES.add(name + ": allreduce afterwards gave " + sum[0]);
            }
        }
        catch (final MPIException ex)
        {
            MISMATCHES.add(name + ": the world broken afterwards: " + ex);
        }
    }

    private static String name(final int errorClass)
    {
        if (errorClass == NONE)
        {
            return "success";
        }
        for (final java.lang.reflect.Field field : MPI.class.getFields())
        {
            try
            {
                if (field.getName().startsWith("ERR_") && field.getType() == int.class &&
                    field.getInt(null) == errorClass)
                {
                    return field.getName();
                }
            }
            catch (final IllegalAccessException ex)
            {
                return Integer.toString(errorClass);
            }
        }
        return Integer.toString(errorClass);
    }
}
