package org.shmpi.launcher.progs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import mpi.CartComm;
import mpi.Comm;
import mpi.Datatype;
import mpi.Group;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Status;

/**
 * Calls public methods of package {@code mpi} with random and boundary arguments (FuzzIT): every
 * rank draws the same calls from the same seed; with several ranks every call is on
 * {@code COMM_SELF} (ranks and sizes drawn against the world's size); methods that wait for
 * another rank's matching call (receives, probes, waits, synchronous sends, PSCW, ports, spawn)
 * and those that end or stop the process are left out. Under ERRORS_RETURN every call must
 * return or throw {@link MPIException}; anything else is printed as a DEFECT line with the method
 * and arguments. A call that takes more than 20 s is a hang: printed, and the process halts.
 * Prints {@code FUZZ rank R calls N returned A mpiexceptions B classes [...] defects D}.
 *
 * <p>Arguments: seed, calls.
 */
public final class ApiFuzz
{
    private static final Set<String> LEFT_OUT = Set.of("recv", "sendRecv", "sendRecvReplace", "probe", "mProbe",
        "mRecv", "waitFor", "waitAll", "waitAny", "waitSome", "sSend", "accept", "connect", "spawn",
        "spawnMultiple", "abort", "Finalize", "Init", "InitThread", "setErrhandler", "call", "start", "complete",
        "post", "lock", "lockAll", "join", "disconnect", "getParent", "publishName", "unpublishName",
        "openPort", "closePort", "lookupName", "attachBuffer", "detachBuffer", "pControl", "bSend", "rSend",
        "wait", "startAll", "iRecv", "recvInit", "irecv", "iProbe", "improbe", "imProbe", "imRecv", "cancel",
        "getStatus", "testAll", "testAny", "testSome", "test", "free", "setAttr", "deleteAttr", "createKeyval",
        "freeKeyval", "completionCallback", "detach", "readAtAll", "writeAtAll");
    /** Handles freed before the calls, drawn as arguments and receivers beside live ones. */
    private static Datatype freedType;
    private static Intracomm freedComm;
    private static Info freedInfo;
    private static Group freedGroup;

    private ApiFuzz()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        freedType = Datatype.createContiguous(3, MPI.INT);
        freedType.commit();
        freedType.free();
        freedComm = MPI.COMM_SELF.dup();
        freedComm.setErrhandler(MPI.ERRORS_RETURN);
        freedComm.free();
        freedInfo = new Info();
        freedInfo.free();
        freedGroup = MPI.COMM_WORLD.getGroup();
        freedGroup.free();
        final long seed = Long.parseLong(args[0]);
        final int calls = Integer.parseInt(args[1]);
        final int rank = MPI.COMM_WORLD.getRank();
        final HangGuard guard = HangGuard.start(rank);
        final List<Method> methods = new ArrayList<>();
        for (final Class<?> c : new Class<?>[] {Comm.class, Intracomm.class, Intercomm.class, Group.class,
            Datatype.class, Info.class, Op.class, Status.class, CartComm.class, MPI.class})
        {
            for (final Method m : c.getMethods())
            {
                if (m.getDeclaringClass().getPackageName().equals("mpi") && !LEFT_OUT.contains(m.getName()))
                {
                    methods.add(m);
                }
            }
        }
        methods.sort(Comparator.comparing(Method::toGenericString));
        final Random rnd = new Random(seed);
        int returned = 0;
        int mpi = 0;
        final Set<String> classes = new TreeSet<>(Comparator.comparingInt(Integer::parseInt));
        final Map<String, String> defects = new TreeMap<>();
        // Several ranks: every call on COMM_SELF (a collective with arguments valid on some ranks
        // only is an erroneous program, whose later behaviour MPI leaves undefined).
        final Intracomm base = MPI.COMM_WORLD.getSize() == 1 ? MPI.COMM_WORLD : MPI.COMM_SELF;
        Intracomm fuzzComm = base.dup();
        fuzzComm.setErrhandler(MPI.ERRORS_RETURN);
        for (int i = 0; i < calls; i++)
        {
            final Method m = methods.get(rnd.nextInt(methods.size()));
            final Object[] a = new Object[m.getParameterCount()];
            final Class<?>[] types = m.getParameterTypes();
            for (int k = 0; k < a.length; k++)
            {
                a[k] = value(types[k], rnd, fuzzComm);
            }
            final Object target = Modifier.isStatic(m.getModifiers()) ? null :
                receiver(m.getDeclaringClass(), rnd, fuzzComm);
            if (!Modifier.isStatic(m.getModifiers()) && target == null)
            {
                continue;
            }
            guard.enter(m.getDeclaringClass().getSimpleName() + "." + m.getName() + describe(a));
            try
            {
                m.invoke(target, a);
                returned++;
            }
            catch (final InvocationTargetException ex)
            {
                final Throwable t = ex.getCause();
                if (t instanceof MPIException)
                {
                    mpi++;
                    classes.add(Integer.toString(((MPIException)t).getErrorClass()));
                }
                else
                {
                    final String key = m.getDeclaringClass().getSimpleName() + "." + m.getName() + " -> " +
                        t.getClass().getSimpleName();
                    defects.putIfAbsent(key, guard.current() + ": " + t);
                }
            }
            catch (final IllegalAccessException | IllegalArgumentException ex)
            {
                // Not callable with these arguments through reflection: not a call of the API.
            }
            finally
            {
                guard.leave();
            }
            if (i % 200 == 199)
            {
                // A fresh communicator now and then (the calls may have freed or broken it); all ranks alike.
                fuzzComm = base.dup();
                fuzzComm.setErrhandler(MPI.ERRORS_RETURN);
            }
        }
        for (final String d : defects.values())
        {
            System.out.println("DEFECT rank " + rank + " " + d);
        }
        System.out.println("FUZZ rank " + rank + " calls " + calls + " returned " + returned + " mpiexceptions " +
            mpi + " classes " + classes + " defects " + defects.size());
        System.out.flush();
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_ARE_FATAL);
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }

    private static String describe(final Object[] a)
    {
        final StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < a.length; i++)
        {
            final Object v = a[i];
            b.append(i == 0 ? "" : ", ");
            if (v == null)
            {
                b.append("null");
            }
            else if (v.getClass().isArray())
            {
                b.append(v.getClass().getComponentType().getSimpleName()).append('[')
                    .append(java.lang.reflect.Array.getLength(v)).append(']');
            }
            else if (v instanceof Buffer)
            {
                b.append(v.getClass().getSimpleName()).append('[').append(((Buffer)v).capacity()).append(']');
            }
            else
            {
                b.append(v);
            }
        }
        return b.append(')').toString();
    }

    private static Object receiver(final Class<?> c, final Random rnd, final Intracomm comm)
    {
        if (c == Comm.class || c == Intracomm.class)
        {
            return pick(rnd, MPI.COMM_SELF, comm, comm, comm, comm, comm, freedComm);
        }
        if (c == Group.class)
        {
            return rnd.nextInt(8) == 0 ? freedGroup : MPI.COMM_WORLD.getGroup();
        }
        if (c == Datatype.class)
        {
            return pick(rnd, MPI.INT, MPI.DOUBLE, MPI.BYTE, MPI.CHAR, MPI.INT2, MPI.DATATYPE_NULL, freedType);
        }
        if (c == Info.class)
        {
            return rnd.nextInt(8) == 0 ? freedInfo : new Info();
        }
        if (c == Op.class)
        {
            return pick(rnd, MPI.SUM, MPI.MAX, MPI.BAND, MPI.MINLOC, MPI.REPLACE);
        }
        if (c == Status.class)
        {
            return null;
        }
        return null;
    }

    @SafeVarargs
    private static <T> T pick(final Random rnd, final T... values)
    {
        return values[rnd.nextInt(values.length)];
    }

    private static Object value(final Class<?> t, final Random rnd, final Intracomm comm)
    {
        final int size = MPI.COMM_WORLD.getSize();
        if (t == int.class)
        {
            return pick(rnd, -1, 0, 1, 2, 3, size - 1, size, size + 1, 7, 64, Integer.MAX_VALUE, Integer.MIN_VALUE,
                MPI.ANY_SOURCE, MPI.PROC_NULL, MPI.ROOT, MPI.UNDEFINED, MPI.ANY_TAG, rnd.nextInt(100));
        }
        if (t == long.class)
        {
            return pick(rnd, -1L, 0L, 1L, 8L, 1L << 40, Long.MAX_VALUE);
        }
        if (t == boolean.class)
        {
            return rnd.nextBoolean();
        }
        if (t == double.class)
        {
            return pick(rnd, 0.0, -1.0, 1.5);
        }
        if (t == String.class)
        {
            return pick(rnd, null, "", "x", "a name", "q".repeat(5000));
        }
        final int n = pick(rnd, 0, 1, 2, 4, 16, 64);
        if (t == int[].class)
        {
            return rnd.nextInt(6) == 0 ? null : fill(new int[n], rnd, size);
        }
        if (t == long[].class)
        {
            return rnd.nextInt(6) == 0 ? null : new long[n];
        }
        if (t == double[].class)
        {
            return rnd.nextInt(6) == 0 ? null : new double[n];
        }
        if (t == boolean[].class)
        {
            return rnd.nextInt(6) == 0 ? null : new boolean[n];
        }
        if (t == int[][].class)
        {
            return rnd.nextInt(4) == 0 ? null : new int[][] {fill(new int[3], rnd, size)};
        }
        if (t == Object.class)
        {
            return pick(rnd, null, new int[n], new double[n], new byte[n], new char[n], new long[n], "not an array",
                ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()));
        }
        if (t == Buffer.class || t == ByteBuffer.class)
        {
            return rnd.nextInt(5) == 0 ? null : rnd.nextBoolean() ? MPI.newByteBuffer(4 * n) :
                ByteBuffer.allocate(4 * n);
        }
        if (t == java.nio.IntBuffer.class)
        {
            return rnd.nextInt(5) == 0 ? null : MPI.newIntBuffer(n);
        }
        if (t == java.nio.DoubleBuffer.class)
        {
            return rnd.nextInt(5) == 0 ? null : MPI.newDoubleBuffer(n);
        }
        if (t == Datatype.class)
        {
            return pick(rnd, null, MPI.INT, MPI.DOUBLE, MPI.BYTE, MPI.CHAR, MPI.DOUBLE_INT, MPI.DATATYPE_NULL,
                MPI.PACKED, freedType);
        }
        if (t == Datatype[].class)
        {
            return rnd.nextInt(4) == 0 ? null : new Datatype[] {MPI.INT, MPI.DOUBLE};
        }
        if (t == Op.class)
        {
            return pick(rnd, null, MPI.SUM, MPI.MAX, MPI.MINLOC, MPI.BOR, MPI.NO_OP);
        }
        if (t == Comm.class || t == Intracomm.class)
        {
            return pick(rnd, null, comm, MPI.COMM_SELF, MPI.COMM_WORLD.getSize() == 1 ? MPI.COMM_WORLD : comm,
                freedComm);
        }
        if (t == Group.class)
        {
            return pick(rnd, null, MPI.COMM_WORLD.getGroup(), MPI.GROUP_EMPTY, freedGroup);
        }
        if (t == Group[].class)
        {
            return new Group[] {MPI.COMM_WORLD.getGroup()};
        }
        if (t == Info.class)
        {
            return pick(rnd, null, MPI.INFO_NULL, new Info(), freedInfo);
        }
        if (t == Status.class)
        {
            return null;
        }
        return null;
    }

    private static int[] fill(final int[] a, final Random rnd, final int size)
    {
        for (int i = 0; i < a.length; i++)
        {
            a[i] = pick(rnd, 0, 1, -1, size, size - 1, 2);
        }
        return a;
    }
}
