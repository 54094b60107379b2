package org.shmpi.junit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.opentest4j.TestAbortedException;

import mpi.MPI;

/**
 * The main class of every rank of a test job: initialises MPI, connects to the controller, then
 * runs the test methods it is sent, one at a time on the main thread, until told to exit. Each
 * run: a new instance of the test class, its {@code @BeforeEach} methods (superclass first),
 * the method, its {@code @AfterEach} methods (subclass first, all of them even when one
 * fails); {@code COMM_WORLD} and {@code COMM_SELF} use {@code ERRORS_RETURN} so that an MPI
 * error is an exception of the rank that made it. What the run prints to
 * {@code System.out}/{@code System.err} goes to the rank's output as usual and is also sent
 * back with the result.
 */
public final class RankRunner
{
    private RankRunner()
    {
    }

    /** @param args host, port, token, pid of the test JVM */
    public static void main(final String[] args) throws Exception
    {
        watchController(Long.parseLong(args[3]));
        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final Socket socket = new Socket(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        socket.setTcpNoDelay(true);
        final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        out.writeInt(Wire.MAGIC);
        out.writeLong(Long.parseLong(args[2]));
        out.writeInt(rank);
        out.writeInt(size);
        out.writeLong(ProcessHandle.current().pid());
        out.flush();

        final PrintStream realOut = System.out;
        final PrintStream realErr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(new Tee(realOut, captured), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(realErr, captured), true, StandardCharsets.UTF_8));
        while (true)
        {
            final byte kind;
            try
            {
                kind = in.readByte();
            }
            catch (final EOFException ex)
            {
                // The controller is gone (its JVM died): nothing more will come, and no one is
                // left to report to. Leave at once; the launcher ends the job.
                realErr.println("shmpi-junit: rank " + rank + ": the test JVM closed the connection; exiting");
                Runtime.getRuntime().halt(3);
                return;
            }
            if (kind == Wire.EXIT)
            {
                break;
            }
            if (kind != Wire.RUN)
            {
                throw new IOException("rank " + rank + ": unknown command " + kind + " from the test JVM");
            }
            final int id = in.readInt();
            final String className = Wire.readString(in);
            final String methodName = Wire.readString(in);
            synchronized (captured)
            {
                captured.reset();
            }
            final long start = System.nanoTime();
            final Throwable failure = run(className, methodName, bodyFailure ->
            {
                // Tell the test JVM now: an @AfterEach that blocks must not hide it.
                final String soFar;
                synchronized (captured)
                {
                    soFar = captured.toString(StandardCharsets.UTF_8);
                }
                final Wire.Result r = result(rank, id, bodyFailure, System.nanoTime() - start, soFar);
                try
                {
                    new Wire.Result(r.rank, r.id, r.outcome, r.nanos, r.throwableClass, r.message, r.stackTrace,
                        r.serialized, r.output, true).write(out);
                }
                catch (final IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            final long nanos = System.nanoTime() - start;
            System.out.flush();
            System.err.flush();
            final String output;
            synchronized (captured)
            {
                output = captured.toString(StandardCharsets.UTF_8);
            }
            result(rank, id, failure, nanos, output).write(out);
        }
        System.setOut(realOut);
        System.setErr(realErr);
        MPI.Finalize();
        socket.close();
    }

    /**
     * A test JVM that dies (killed, crashed) cannot stop its ranks: each rank leaves as soon as it
     * sees it gone, even in the middle of a test body, and the launcher then ends the job and
     * removes it from shared memory.
     */
    private static void watchController(final long pid)
    {
        final ProcessHandle controller = ProcessHandle.of(pid).orElse(null);
        final Thread t = new Thread(() ->
        {
            while (controller != null && controller.isAlive())
            {
                try
                {
                    Thread.sleep(250);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
            }
            System.err.println("shmpi-junit: the test JVM (pid " + pid + ") is gone; this rank exits");
            Runtime.getRuntime().halt(3);
        }, "shmpi-junit-controller-watch");
        t.setDaemon(true);
        t.start();
    }

    static Wire.Result result(final int rank, final int id, final Throwable failure, final long nanos,
        final String output)
    {
        if (failure == null)
        {
            return new Wire.Result(rank, id, Wire.PASSED, nanos, "", "", "", new byte[0], output);
        }
        final StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        return new Wire.Result(rank, id, failure instanceof TestAbortedException ? Wire.ABORTED : Wire.FAILED, nanos,
            failure.getClass().getName(), String.valueOf(failure.getMessage()), trace.toString(), serialize(failure),
            output);
    }

    /** The throwable in Java serialization, or no bytes when some part of it does not serialize. */
    static byte[] serialize(final Throwable t)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes))
        {
            oos.writeObject(t);
        }
        catch (final IOException | RuntimeException ex)
        {
            return new byte[0];
        }
        return bytes.toByteArray();
    }

    /** Runs one test method as JUnit would on this rank; returns what it threw, or null. */
    static Throwable run(final String className, final String methodName,
        final java.util.function.Consumer<Throwable> bodyFailed)
    {
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        MPI.COMM_SELF.setErrhandler(MPI.ERRORS_RETURN);
        final Class<?> testClass;
        final Method method;
        final Object instance;
        try
        {
            testClass = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
            method = findMethod(testClass, methodName);
            instance = Modifier.isStatic(method.getModifiers()) ? null : newInstance(testClass);
        }
        catch (final Throwable ex)
        {
            return unwrap(ex);
        }
        Throwable failure = null;
        try
        {
            for (final Method m : AnnotationSupport.findAnnotatedMethods(testClass, BeforeEach.class,
                HierarchyTraversalMode.TOP_DOWN))
            {
                invoke(m, instance);
            }
            invoke(method, instance);
        }
        catch (final Throwable ex)
        {
            failure = unwrap(ex);
        }
        final List<Method> after = AnnotationSupport.findAnnotatedMethods(testClass, AfterEach.class,
            HierarchyTraversalMode.BOTTOM_UP);
        if (failure != null && !after.isEmpty())
        {
            bodyFailed.accept(failure);
        }
        for (final Method m : after)
        {
            try
            {
                invoke(m, instance);
            }
            catch (final Throwable ex)
            {
                if (failure == null)
                {
                    failure = unwrap(ex);
                }
                else
                {
                    failure.addSuppressed(unwrap(ex));
                }
            }
        }
        return failure;
    }

    private static Method findMethod(final Class<?> c, final String name) throws NoSuchMethodException
    {
        for (Class<?> k = c; k != null; k = k.getSuperclass())
        {
            for (final Method m : k.getDeclaredMethods())
            {
                if (m.getName().equals(name) && m.getParameterCount() == 0)
                {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(c.getName() + "." + name + "() (an @MpiTest method takes no parameters)");
    }

    private static Object newInstance(final Class<?> c) throws ReflectiveOperationException
    {
        if (c.getEnclosingClass() != null && !Modifier.isStatic(c.getModifiers()))
        {
            throw new IllegalArgumentException("@MpiTest in inner class " + c.getName() +
                ": put it in a top-level or static nested class");
        }
        final Constructor<?> ctor = c.getDeclaredConstructor();
        ctor.setAccessible(true);
        return ctor.newInstance();
    }

    private static void invoke(final Method m, final Object instance) throws Throwable
    {
        m.setAccessible(true);
        m.invoke(Modifier.isStatic(m.getModifiers()) ? null : instance);
    }

    private static Throwable unwrap(final Throwable t)
    {
        return t instanceof InvocationTargetException && t.getCause() != null ? t.getCause() : t;
    }

    /** Writes to the rank's own stream and to the capture of the current run. */
    private static final class Tee extends OutputStream
    {
        private final OutputStream real;
        private final ByteArrayOutputStream capture;

        Tee(final OutputStream real, final ByteArrayOutputStream capture)
        {
            this.real = real;
            this.capture = capture;
        }

        @Override
        public void write(final int b) throws IOException
        {
            real.write(b);
            synchronized (capture)
            {
                capture.write(b);
            }
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            real.write(b, off, len);
            synchronized (capture)
            {
                capture.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException
        {
            real.flush();
        }
    }
}
