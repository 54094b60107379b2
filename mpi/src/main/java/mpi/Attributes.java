package mpi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.shmpi.shm.ErrorClass;

/**
 * Attribute caching (MPI-2.2 section 6.7) for one kind of object (datatypes here; communicators
 * and windows take the same class): the keyvals of that kind, and each object's attributes.
 * A keyval from {@link #createKeyval} copies its attribute to a dup, as Open MPI's bindings do
 * (the value object itself: a dup's attribute is the same object, not a deep copy); freeing the
 * object drops its attributes. A freed keyval is invalid for new calls; attributes already
 * cached under it stay until deleted or their object is freed.
 */
final class Attributes
{
    /** Keyvals start above the predefined attribute keys. */
    private static final AtomicInteger NEXT = new AtomicInteger(1000);

    private final String kind;
    private final Map<Integer, Boolean> keyvals = new ConcurrentHashMap<>();

    Attributes(final String kind)
    {
        this.kind = kind;
    }

    int createKeyval()
    {
        final int k = NEXT.getAndIncrement();
        keyvals.put(k, Boolean.TRUE);
        return k;
    }

    void freeKeyval(final int keyval)
    {
        if (keyvals.remove(keyval) == null)
        {
            throw new MPIException(ErrorClass.ERR_KEYVAL, "freeKeyval: not a " + kind + " keyval: " + keyval);
        }
    }

    private void checkLive(final int keyval, final String call)
    {
        if (!keyvals.containsKey(keyval))
        {
            throw new MPIException(ErrorClass.ERR_KEYVAL, call + ": not a live " + kind + " keyval: " + keyval);
        }
    }

    /** One object's attributes. */
    final class Cache
    {
        private final Map<Integer, Object> values = new ConcurrentHashMap<>();

        void set(final int keyval, final Object value)
        {
            checkLive(keyval, "setAttr");
            if (value == null)
            {
                values.remove(keyval);
            }
            else
            {
                values.put(keyval, value);
            }
        }

        Object get(final int keyval)
        {
            if (!values.containsKey(keyval))
            {
                checkLive(keyval, "getAttr");
            }
            return values.get(keyval);
        }

        void delete(final int keyval)
        {
            if (values.remove(keyval) == null)
            {
                checkLive(keyval, "deleteAttr");
            }
        }

        /** The attributes a dup gets: every one (each keyval copies). */
        void copyInto(final Cache dup)
        {
            dup.values.putAll(values);
        }

        void clear()
        {
            values.clear();
        }
    }
}
