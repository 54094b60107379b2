package mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.shmpi.shm.ErrorClass;

/**
 * Attribute caching (MPI-2.2 section 6.7) for one kind of object (datatypes here; communicators
 * and windows take the same class): the keyvals of that kind with their copy and delete
 * callbacks ({@link Keyval}), and each object's attributes. Open MPI's bindings' keyvals copy
 * the value object to a dup ({@link Keyval#DUP}); a dup's attribute is the same object, not a
 * deep copy. A freed keyval is invalid for new calls; attributes already cached under it stay,
 * with its callbacks, until deleted or their object is freed.
 */
final class Attributes
{
    /** Keyvals start above the predefined attribute keys. */
    private static final AtomicInteger NEXT = new AtomicInteger(1000);

    /** One keyval's callbacks. */
    private record Callbacks(Keyval.Copy copy, Keyval.Delete delete)
    {
    }

    /** A cached value with the callbacks of the keyval it was set under. */
    private record Entry(Object value, Callbacks callbacks)
    {
    }

    private final String kind;
    private final Map<Integer, Callbacks> live = new ConcurrentHashMap<>();

    Attributes(final String kind)
    {
        this.kind = kind;
    }

    /**
     * {@code MPI_*_CREATE_KEYVAL} of this kind: the public calls of every kind come here (MPI
     * must be initialized; errors go through {@code MPI.COMM_WORLD}'s handler, as for any call
     * outside a communicator).
     */
    int createKeyval(final Keyval.Copy copy, final Keyval.Delete delete)
    {
        MPI.check();
        if (copy == null || delete == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "createKeyval: null " +
                (copy == null ? "copy" : "delete") + " callback (Keyval.NO_COPY and Keyval.NO_DELETE do nothing)"));
        }
        final int k = NEXT.getAndIncrement();
        live.put(k, new Callbacks(copy, delete));
        return k;
    }

    /** {@code MPI_*_FREE_KEYVAL} of this kind (see {@link #createKeyval}). */
    void freeKeyval(final int keyval)
    {
        MPI.check();
        if (live.remove(keyval) == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_KEYVAL, "freeKeyval: not a " + kind +
                " keyval: " + keyval));
        }
    }

    private Callbacks checkLive(final int keyval, final String call)
    {
        final Callbacks c = live.get(keyval);
        if (c == null)
        {
            throw new MPIException(ErrorClass.ERR_KEYVAL, call + ": not a live " + kind + " keyval: " + keyval);
        }
        return c;
    }

    private static MPIException callbackFailed(final String which, final int keyval, final RuntimeException ex)
    {
        if (ex instanceof MPIException m)
        {
            return m;
        }
        final MPIException m = new MPIException(ErrorClass.ERR_OTHER, which + " callback of keyval " + keyval +
            " threw " + ex);
        m.initCause(ex);
        return m;
    }

    /**
     * One object's attributes, in the order they were set (a value set again moves to the
     * end): {@link #clear} deletes them in the reverse of that order, as MPI-3 specifies for
     * {@code MPI_COMM_SELF} at Finalize. Callbacks run with no lock held.
     */
    final class Cache
    {
        private final Map<Integer, Entry> values =
            java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>());

        void set(final Object owner, final int keyval, final Object value)
        {
            final Callbacks c = checkLive(keyval, "setAttr");
            final Entry old = values.get(keyval);
            if (old != null)
            {
                runDelete(owner, keyval, old);
            }
            values.remove(keyval);
            if (value != null)
            {
                values.put(keyval, new Entry(value, c));
            }
        }

        Object get(final int keyval)
        {
            final Entry e = values.get(keyval);
            if (e == null)
            {
                checkLive(keyval, "getAttr");
                return null;
            }
            return e.value;
        }

        void delete(final Object owner, final int keyval)
        {
            final Entry e = values.get(keyval);
            if (e == null)
            {
                checkLive(keyval, "deleteAttr");
                return;
            }
            runDelete(owner, keyval, e);
            values.remove(keyval);
        }

        private void runDelete(final Object owner, final int keyval, final Entry e)
        {
            try
            {
                e.callbacks.delete.delete(owner, keyval, e.value);
            }
            catch (final RuntimeException ex)
            {
                throw callbackFailed("delete", keyval, ex);
            }
        }

        /**
         * The attributes {@code dup} (owned by {@code newOwner}) gets: what each keyval's copy
         * callback returns. If one throws, what was copied is deleted again and it propagates.
         */
        void copyInto(final Object owner, final Cache dup, final Object newOwner)
        {
            final List<Map.Entry<Integer, Entry>> all;
            synchronized (values)
            {
                all = new ArrayList<>(values.entrySet());
            }
            for (final Map.Entry<Integer, Entry> kv : all)
            {
                final Entry e = kv.getValue();
                final Object copied;
                try
                {
                    copied = e.callbacks.copy.copy(owner, kv.getKey(), e.value);
                }
                catch (final RuntimeException ex)
                {
                    try
                    {
                        dup.clear(newOwner);
                    }
                    catch (final RuntimeException cleanup)
                    {
                        ex.addSuppressed(cleanup);
                    }
                    throw callbackFailed("copy", kv.getKey(), ex);
                }
                if (copied != null)
                {
                    dup.values.put(kv.getKey(), new Entry(copied, e.callbacks));
                }
            }
        }

        /**
         * Deletes every attribute (on free), running each delete callback, the last set first.
         * All run even if one throws; the first failure propagates and the attributes that
         * failed stay.
         */
        void clear(final Object owner)
        {
            final List<RuntimeException> failures = new ArrayList<>();
            final List<Integer> keys;
            synchronized (values)
            {
                keys = new ArrayList<>(values.keySet());
            }
            java.util.Collections.reverse(keys);
            for (final Integer keyval : keys)
            {
                try
                {
                    delete(owner, keyval);
                }
                catch (final RuntimeException ex)
                {
                    failures.add(ex);
                }
            }
            if (!failures.isEmpty())
            {
                final RuntimeException first = failures.get(0);
                failures.subList(1, failures.size()).forEach(first::addSuppressed);
                throw first;
            }
        }
    }
}
