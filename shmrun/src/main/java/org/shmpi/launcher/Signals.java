package org.shmpi.launcher;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.IntConsumer;

/**
 * Handlers for SIGINT and SIGTERM, so that the launcher knows which signal it got (the exit
 * status is 128 + signal) and can stop the ranks first. Uses {@code sun.misc.Signal} from the
 * {@code jdk.unsupported} module by reflection: it is the only JDK way to handle a named signal,
 * and reflection keeps the strict compiler from failing on its "internal API" warning.
 */
final class Signals
{
    private Signals()
    {
    }

    /** Installs {@code handler} for each named signal; returns false if it could not. */
    static boolean handle(final IntConsumer handler, final String... names)
    {
        try
        {
            final Class<?> signalClass = Class.forName("sun.misc.Signal");
            final Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            final Constructor<?> ctor = signalClass.getConstructor(String.class);
            final Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            final Method getNumber = signalClass.getMethod("getNumber");
            final Object proxy = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerClass},
                (p, m, a) ->
                {
                    if ("handle".equals(m.getName()))
                    {
                        handler.accept((Integer)getNumber.invoke(a[0]));
                        return null;
                    }
                    if ("hashCode".equals(m.getName()))
                    {
                        return System.identityHashCode(p);
                    }
                    if ("equals".equals(m.getName()))
                    {
                        return p == a[0];
                    }
                    return "shmrun signal handler";
                });
            for (final String name : names)
            {
                handle.invoke(null, ctor.newInstance(name), proxy);
            }
            return true;
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return false;
        }
    }

    static String name(final int signal)
    {
        switch (signal)
        {
            case 1: return "SIGHUP";
            case 2: return "SIGINT";
            case 3: return "SIGQUIT";
            case 4: return "SIGILL";
            case 6: return "SIGABRT";
            case 7: return "SIGBUS";
            case 8: return "SIGFPE";
            case 9: return "SIGKILL";
            case 11: return "SIGSEGV";
            case 13: return "SIGPIPE";
            case 14: return "SIGALRM";
            case 15: return "SIGTERM";
            default: return "SIG" + signal;
        }
    }
}
