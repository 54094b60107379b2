package org.shmpi.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.shmpi.junit.MpiTest;

import mpi.Group;
import mpi.Info;
import mpi.MPI;
import mpi.MPIException;

/**
 * Groups (every operation against tables worked out from the standard's definitions), Info
 * objects, MPI.INFO_ENV and the version calls, at 1, 2, 3, 4 and 6 ranks.
 */
@MpiTest(np = {1, 2, 3, 4, 6})
class GroupInfoEnvironmentTest
{
    private static int errorOf(final Runnable call)
    {
        return assertThrows(MPIException.class, call::run).getErrorClass();
    }

    private static int[] ranks(final Group g)
    {
        // The world ranks of g's members, through translateRanks to the world group.
        final int[] in = new int[g.getSize()];
        for (int i = 0; i < in.length; i++)
        {
            in[i] = i;
        }
        final Group world = MPI.COMM_WORLD.getGroup();
        final int[] out = Group.translateRanks(g, in, world);
        world.free();
        return out;
    }

    /**
     * WTIME_IS_GLOBAL is true, so a time read after a message arrived is never earlier than one
     * the sender read before sending it, on any pair of ranks: a token passes around the ring
     * twice with the sender's clock reading, and every receiver checks its own against it.
     */
    @Test
    void wtimeIsOneClockForAllRanks()
    {
        final mpi.Intracomm world = MPI.COMM_WORLD;
        assertEquals(1, world.getAttr(MPI.WTIME_IS_GLOBAL));
        final int n = world.getSize();
        final int me = world.getRank();
        final double[] t = new double[1];
        for (int lap = 0; lap < 2; lap++)
        {
            if (me == 0)
            {
                t[0] = MPI.wtime();
                world.send(t, 1, MPI.DOUBLE, (me + 1) % n, 31);
                world.recv(t, 1, MPI.DOUBLE, (me + n - 1) % n, 31);
                assertTrue(MPI.wtime() >= t[0], "rank 0 read an earlier time than rank " + (n - 1) + " sent");
            }
            else
            {
                world.recv(t, 1, MPI.DOUBLE, me - 1, 31);
                final double now = MPI.wtime();
                assertTrue(now >= t[0], "rank " + me + " read " + now + " after rank " + (me - 1) + " sent " + t[0]);
                t[0] = MPI.wtime();
                world.send(t, 1, MPI.DOUBLE, (me + 1) % n, 31);
            }
        }
        assertTrue(MPI.wtick() > 0 && MPI.wtick() <= 1e-6, "wtick " + MPI.wtick());
    }

    @Test
    void groupsOfTheWorld()
    {
        final int n = MPI.COMM_WORLD.getSize();
        final int me = MPI.COMM_WORLD.getRank();
        final Group world = MPI.COMM_WORLD.getGroup();
        assertEquals(n, world.getSize());
        assertEquals(me, world.getRank());
        final Group self = MPI.COMM_SELF.getGroup();
        assertArrayEquals(new int[] {me}, ranks(self));
        assertEquals(0, self.getRank());

        // incl in reverse order: rank r is world rank n - 1 - r.
        final int[] reverse = new int[n];
        for (int i = 0; i < n; i++)
        {
            reverse[i] = n - 1 - i;
        }
        final Group rev = world.incl(reverse);
        assertEquals(n - 1 - me, rev.getRank());
        assertArrayEquals(reverse, ranks(rev));
        assertEquals(n == 1 ? MPI.IDENT : MPI.SIMILAR, Group.compare(world, rev));

        // excl {0}: world ranks 1..n-1; rank 0 is not a member.
        final Group rest = world.excl(new int[] {0});
        assertEquals(n - 1, rest.getSize());
        assertEquals(me == 0 ? MPI.UNDEFINED : me - 1, rest.getRank());
        assertEquals(MPI.UNEQUAL, Group.compare(world, rest));

        // rangeIncl {n-1, 0, -2}: n-1, n-3, ... down to 0 or 1.
        final Group down = world.rangeIncl(new int[][] {{n - 1, 0, -2}});
        final int[] expectDown = new int[(n + 1) / 2];
        for (int i = 0; i < expectDown.length; i++)
        {
            expectDown[i] = n - 1 - 2 * i;
        }
        assertArrayEquals(expectDown, ranks(down));
        // rangeExcl of the same triplet leaves the other parity, in world order.
        final Group other = world.rangeExcl(new int[][] {{n - 1, 0, -2}});
        assertEquals(n - expectDown.length, other.getSize());
        for (final int r : ranks(other))
        {
            assertEquals((n - 1 - r) % 2, 1, "rank " + r);
        }

        // union(down, rest) = down's members, then rest's others in rest's order;
        // intersection(rest, down) and difference(rest, down) in rest's order.
        final java.util.List<Integer> u = new java.util.ArrayList<>();
        for (final int r : expectDown)
        {
            u.add(r);
        }
        for (int r = 1; r < n; r++)
        {
            if (!u.contains(r))
            {
                u.add(r);
            }
        }
        assertArrayEquals(u.stream().mapToInt(Integer::intValue).toArray(), ranks(Group.union(down, rest)));
        final java.util.List<Integer> inter = new java.util.ArrayList<>();
        final java.util.List<Integer> diff = new java.util.ArrayList<>();
        for (int r = 1; r < n; r++)
        {
            ((n - 1 - r) % 2 == 0 ? inter : diff).add(r);
        }
        assertArrayEquals(inter.stream().mapToInt(Integer::intValue).toArray(), ranks(Group.intersection(rest, down)));
        assertArrayEquals(diff.stream().mapToInt(Integer::intValue).toArray(), ranks(Group.difference(rest, down)));
        assertEquals(0, Group.difference(world, world).getSize());

        // translateRanks: world rank 0 is not in rest; PROC_NULL stays PROC_NULL.
        assertArrayEquals(new int[] {MPI.UNDEFINED, MPI.PROC_NULL}, Group.translateRanks(world,
            new int[] {0, MPI.PROC_NULL}, rest));

        // Communicators compare by identity, then by their groups.
        assertEquals(MPI.IDENT, mpi.Comm.compare(MPI.COMM_WORLD, MPI.COMM_WORLD));
        assertEquals(n == 1 ? MPI.CONGRUENT : MPI.UNEQUAL, mpi.Comm.compare(MPI.COMM_WORLD, MPI.COMM_SELF));

        // The empty group.
        assertEquals(0, MPI.GROUP_EMPTY.getSize());
        assertEquals(MPI.UNDEFINED, MPI.GROUP_EMPTY.getRank());
        assertEquals(MPI.IDENT, Group.compare(MPI.GROUP_EMPTY, world.incl(new int[0])));
        assertEquals(MPI.ERR_GROUP, errorOf(MPI.GROUP_EMPTY::free));

        // Bad arguments.
        assertEquals(MPI.ERR_RANK, errorOf(() -> world.incl(new int[] {n})));
        assertEquals(MPI.ERR_RANK, errorOf(() -> world.incl(new int[] {0, 0})));
        assertEquals(MPI.ERR_RANK, errorOf(() -> world.excl(new int[] {-1})));
        assertEquals(MPI.ERR_ARG, errorOf(() -> world.rangeIncl(new int[][] {{0, 0, 0}})));
        if (n > 1)
        {
            assertEquals(MPI.ERR_ARG, errorOf(() -> world.rangeIncl(new int[][] {{0, n - 1, -1}})));
        }
        assertEquals(MPI.ERR_RANK, errorOf(() -> world.rangeIncl(new int[][] {{0, n, 1}})));
        assertEquals(MPI.ERR_RANK, errorOf(() -> Group.translateRanks(world, new int[] {n}, rest)));
        rev.free();
        assertTrue(rev.isNull());
        assertEquals(MPI.ERR_GROUP, errorOf(rev::getSize));
        assertEquals(MPI.ERR_GROUP, errorOf(() -> Group.union(rev, world)));
        world.free();
        self.free();
        rest.free();
        down.free();
        other.free();
    }

    @Test
    void infoObjects()
    {
        final Info info = new Info();
        assertEquals(0, info.size());
        info.set("b", "2");
        info.set("a", "1");
        info.set("b", "two");
        assertEquals(2, info.size());
        assertEquals("b", info.getKey(0), "keys keep the order they were first set in");
        assertEquals("a", info.getKey(1));
        assertEquals("two", info.get("b"));
        assertNull(info.get("c"));
        final Info copy = info.dup();
        info.delete("b");
        assertEquals(1, info.size());
        assertEquals("two", copy.get("b"), "a dup is independent");
        assertEquals("a", copy.clone().getKey(1));
        assertEquals(MPI.ERR_INFO_NOKEY, errorOf(() -> info.delete("b")));
        assertEquals(MPI.ERR_INFO_KEY, errorOf(() -> info.set("k".repeat(MPI.MAX_INFO_KEY), "v")));
        assertEquals(MPI.ERR_INFO_KEY, errorOf(() -> info.get("")));
        assertEquals(MPI.ERR_INFO_VALUE, errorOf(() -> info.set("k", "v".repeat(MPI.MAX_INFO_VAL))));
        assertEquals(MPI.ERR_INFO_VALUE, errorOf(() -> info.set("k", null)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> info.getKey(1)));
        info.set("k".repeat(MPI.MAX_INFO_KEY - 1), "v".repeat(MPI.MAX_INFO_VAL - 1));
        info.free();
        assertTrue(info.isNull());
        assertEquals(MPI.ERR_INFO, errorOf(info::size));
        assertTrue(MPI.INFO_NULL.isNull());
        assertEquals(MPI.ERR_INFO, errorOf(() -> MPI.INFO_NULL.get("a")));
        assertEquals(MPI.ERR_INFO, errorOf(MPI.INFO_NULL::free));
        copy.free();
    }

    /** Added error classes, codes and strings; a user error handler sees each failure, then the caller gets it. */
    @Test
    void errorClassesCodesAndUserHandlers()
    {
        final int cls = MPI.addErrorClass();
        assertTrue(cls > MPI.ERR_LASTCODE, "class " + cls);
        final int code = MPI.addErrorCode(cls);
        assertTrue(code > cls);
        assertEquals(code, MPI.COMM_WORLD.getAttr(MPI.LASTUSEDCODE));
        assertEquals(cls, MPI.getErrorClass(code));
        assertEquals(cls, MPI.getErrorClass(cls));
        assertEquals(MPI.ERR_RANK, MPI.getErrorClass(MPI.ERR_RANK));
        assertEquals("", MPI.getErrorString(code));
        MPI.addErrorString(code, "the widget is stuck");
        assertEquals("the widget is stuck", MPI.getErrorString(code));
        assertEquals("MPI_ERR_RANK", MPI.getErrorString(MPI.ERR_RANK));
        final MPIException mine = new MPIException(code, "widget");
        assertEquals(code, mine.getErrorCode());
        assertEquals(cls, mine.getErrorClass());
        assertEquals(MPI.ERR_ARG, errorOf(() -> MPI.addErrorString(MPI.ERR_RANK, "no")));
        assertEquals(MPI.ERR_ARG, errorOf(() -> MPI.addErrorString(code, "x".repeat(MPI.MAX_ERROR_STRING))));
        assertEquals(MPI.ERR_ARG, errorOf(() -> MPI.addErrorCode(code + 1000)));
        assertEquals(MPI.ERR_ARG, errorOf(() -> MPI.getErrorString(code + 1000)));

        final java.util.List<String> seen = new java.util.ArrayList<>();
        final mpi.Errhandler logging = mpi.Comm.createErrhandler(
            (comm, e) -> seen.add(comm.getName() + " " + e.getErrorClass() + " " + e.getErrorCode()));
        final int n = MPI.COMM_WORLD.getSize();
        try
        {
            MPI.COMM_WORLD.setErrhandler(logging);
            assertEquals(logging, MPI.COMM_WORLD.getErrhandler());
            assertEquals(MPI.ERR_RANK, errorOf(() -> MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, n, 0)));
            MPI.COMM_WORLD.callErrhandler(code);
            assertEquals(java.util.List.of("MPI_COMM_WORLD " + MPI.ERR_RANK + " " + MPI.ERR_RANK,
                "MPI_COMM_WORLD " + cls + " " + code), seen);
            logging.free();
            assertTrue(logging.isNull());
            assertEquals(MPI.ERR_TAG, errorOf(() -> MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, 0, -5)));
            assertEquals(3, seen.size(), "a freed handle stays in use where it is set");
            assertEquals(MPI.ERR_ARG, errorOf(() -> MPI.COMM_SELF.setErrhandler(logging)));
            assertEquals(MPI.ERR_ARG, errorOf(MPI.ERRORS_RETURN::free));
            MPI.COMM_WORLD.setErrhandler(mpi.Comm.createErrhandler((comm, e) ->
            {
                throw new IllegalStateException("handled: " + e.getErrorClass());
            }));
            final IllegalStateException own = assertThrows(IllegalStateException.class,
                () -> MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, n, 0));
            assertEquals("handled: " + MPI.ERR_RANK, own.getMessage());
        }
        finally
        {
            MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        }
    }

    /**
     * Communicator names, hints and cached attributes with their callbacks; delete order on free is the reverse
     * of setting.
     */
    @Test
    void communicatorNamesInfoAndAttributes()
    {
        final mpi.Comm self = MPI.COMM_SELF;
        assertEquals("MPI_COMM_WORLD", MPI.COMM_WORLD.getName());
        assertEquals("MPI_COMM_SELF", self.getName());
        try
        {
            self.setName("n".repeat(MPI.MAX_OBJECT_NAME + 5));
            assertEquals(MPI.MAX_OBJECT_NAME - 1, self.getName().length());
            self.setName("mine");
            assertEquals("mine", self.getName());
        }
        finally
        {
            self.setName("MPI_COMM_SELF");
        }
        assertEquals(false, MPI.COMM_WORLD.isInter());
        assertEquals(MPI.UNDEFINED, MPI.COMM_WORLD.getTopology());

        final Info hints = new Info();
        hints.set("mpi_assert_no_any_tag", "true");
        self.setInfo(hints);
        hints.set("other", "1");
        final Info used = self.getInfo();
        assertEquals(1, used.size(), "setInfo keeps a copy");
        assertEquals("true", used.get("mpi_assert_no_any_tag"));
        used.free();
        hints.free();
        assertEquals(MPI.ERR_INFO, errorOf(() -> self.setInfo(MPI.INFO_NULL)));

        final java.util.List<String> log = new java.util.ArrayList<>();
        final int key = mpi.Comm.createKeyval((o, k, v) -> v, (o, k, v) -> log.add(((mpi.Comm)o).getName() + " " + v));
        MPI.COMM_WORLD.setAttr(key, "a");
        MPI.COMM_WORLD.setAttr(key, "b");
        assertEquals("b", MPI.COMM_WORLD.getAttr(key));
        assertEquals(null, self.getAttr(key));
        MPI.COMM_WORLD.deleteAttr(key);
        assertEquals(null, MPI.COMM_WORLD.getAttr(key));
        assertEquals(java.util.List.of("MPI_COMM_WORLD a", "MPI_COMM_WORLD b"), log);
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> MPI.COMM_WORLD.setAttr(MPI.TAG_UB, 1)));
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> MPI.COMM_WORLD.deleteAttr(MPI.APPNUM)));
        final int typeKey = mpi.Datatype.createKeyval();
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> MPI.COMM_WORLD.setAttr(typeKey, 1)), "a datatype keyval");
        mpi.Comm.freeKeyval(key);
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> MPI.COMM_WORLD.getAttr(key)));
        assertEquals(MPI.ERR_KEYVAL, errorOf(() -> mpi.Comm.freeKeyval(key)));

        // Freeing an object deletes its attributes the last set first (the rule COMM_SELF's follow at Finalize).
        log.clear();
        final int k1 = mpi.Datatype.createKeyval(mpi.Keyval.DUP, (o, k, v) -> log.add("1:" + v));
        final int k2 = mpi.Datatype.createKeyval(mpi.Keyval.DUP, (o, k, v) -> log.add("2:" + v));
        final mpi.Datatype t = mpi.Datatype.createContiguous(2, MPI.INT);
        t.setAttr(k2, "x");
        t.setAttr(k1, "y");
        t.setAttr(k2, "z");
        t.free();
        assertEquals(java.util.List.of("2:x", "2:z", "1:y"), log);
        mpi.Datatype.freeKeyval(k1);
        mpi.Datatype.freeKeyval(k2);
        mpi.Datatype.freeKeyval(typeKey);
    }

    @Test
    void environmentAndVersion()
    {
        final Info env = MPI.INFO_ENV;
        assertEquals(Integer.toString(MPI.COMM_WORLD.getSize()), env.get("maxprocs"));
        assertEquals(env.get("maxprocs"), env.get("soft"));
        assertEquals("org.shmpi.junit.RankRunner", env.get("command"), "the main class the rank JVM runs");
        assertEquals(4, env.get("argv").split(" ").length,
            "RankRunner's host, port, token and pid: " + env.get("argv"));
        assertEquals(MPI.getProcessorName(), env.get("host"));
        assertEquals(System.getProperty("os.arch"), env.get("arch"));
        assertEquals(System.getProperty("user.dir"), env.get("wdir"));
        assertEquals(new String[] {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
            "MPI_THREAD_MULTIPLE"}[MPI.queryThread()], env.get("thread_level"));
        assertEquals(11, env.size());
        assertEquals(MPI.ERR_INFO, errorOf(() -> env.set("a", "b")));
        assertEquals(MPI.ERR_INFO, errorOf(env::free));
        final Info envCopy = env.dup();
        envCopy.set("extra", "1");
        assertEquals(12, envCopy.size(), "a dup of INFO_ENV is writable");
        assertEquals(11, env.size());
        envCopy.free();

        assertEquals(MPI.VERSION, MPI.getVersion().getVersion());
        assertEquals(MPI.SUBVERSION, MPI.getVersion().getSubVersion());
        assertEquals(3, MPI.VERSION);
        assertEquals(1, MPI.SUBVERSION);
        assertTrue(MPI.getLibVersion().startsWith("shmpi "), MPI.getLibVersion());
        MPI.pControl(1, null);
    }
}
