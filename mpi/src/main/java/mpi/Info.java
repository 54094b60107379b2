package mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.shmpi.shm.ErrorClass;

/**
 * Java binding of an MPI info object (MPI-2.2 section 9): an ordered map from string keys to
 * string values; {@link #getKey(int)} numbers the keys in the order they were first set. A key
 * is at most {@code MPI.MAX_INFO_KEY - 1} characters and a value at most
 * {@code MPI.MAX_INFO_VAL - 1} ({@code MPI.ERR_INFO_KEY}, {@code MPI.ERR_INFO_VALUE}).
 * {@code MPI.INFO_NULL} and a freed info are null ({@code MPI.ERR_INFO} when used);
 * {@code MPI.INFO_ENV} is filled by {@code MPI.Init} and read-only.
 */
public final class Info implements Freeable, Cloneable
{
    private Map<String, String> entries;
    private final boolean predefined;

    /** Java binding of {@code MPI_INFO_CREATE}: a new, empty info object. */
    public Info()
    {
        this(new LinkedHashMap<>(), false);
    }

    private Info(final Map<String, String> entries, final boolean predefined)
    {
        this.entries = entries;
        this.predefined = predefined;
    }

    /** {@code MPI.INFO_NULL}. */
    static Info nullInfo()
    {
        return new Info(null, true);
    }

    /** {@code MPI.INFO_ENV}, empty until {@code MPI.Init} fills it. */
    static Info environment()
    {
        return new Info(new LinkedHashMap<>(), true);
    }

    /** Replaces {@code MPI.INFO_ENV}'s entries (at Init). */
    synchronized void fill(final Map<String, String> values)
    {
        entries.clear();
        entries.putAll(values);
    }

    private Map<String, String> live(final String call)
    {
        MPI.check();
        if (entries == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO, call + ": null or freed info object"));
        }
        return entries;
    }

    private Map<String, String> writable(final String call)
    {
        final Map<String, String> m = live(call);
        if (predefined)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO, call + ": MPI.INFO_ENV is read-only"));
        }
        return m;
    }

    private static void checkKey(final String key, final String call)
    {
        if (key == null || key.isEmpty() || key.length() >= MPI.MAX_INFO_KEY)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO_KEY, call + ": a key has 1 to " +
                (MPI.MAX_INFO_KEY - 1) + " characters: " + (key == null ? "null" : "\"" + key + "\"")));
        }
    }

    /** Java binding of {@code MPI_INFO_SET}: sets {@code key} to {@code value}, replacing any value. */
    public synchronized void set(final String key, final String value)
    {
        final Map<String, String> m = writable("set");
        checkKey(key, "set");
        if (value == null || value.length() >= MPI.MAX_INFO_VAL)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO_VALUE, "set: a value is not null and " +
                "has at most " + (MPI.MAX_INFO_VAL - 1) + " characters; key \"" + key + "\""));
        }
        m.put(key, value);
    }

    /** Java binding of {@code MPI_INFO_GET}: the value of {@code key}, or null if it is not set. */
    public synchronized String get(final String key)
    {
        final Map<String, String> m = live("get");
        checkKey(key, "get");
        return m.get(key);
    }

    /** Java binding of {@code MPI_INFO_DELETE}: a key that is not set is {@code MPI.ERR_INFO_NOKEY}. */
    public synchronized void delete(final String key)
    {
        final Map<String, String> m = writable("delete");
        checkKey(key, "delete");
        if (m.remove(key) == null)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO_NOKEY, "delete: key not set: \"" + key +
                "\""));
        }
    }

    /** Java binding of {@code MPI_INFO_GET_NKEYS}. */
    public synchronized int size()
    {
        return live("size").size();
    }

    /**
     * Java binding of {@code MPI_INFO_GET_NTHKEY}: key number {@code keynum} (0 to size - 1, else {@code MPI.ERR_ARG}).
     */
    public synchronized String getKey(final int keynum)
    {
        final Map<String, String> m = live("getKey");
        if (keynum < 0 || keynum >= m.size())
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_ARG, "getKey: key number " + keynum +
                " outside 0.." + (m.size() - 1)));
        }
        final List<String> keys = new ArrayList<>(m.keySet());
        return keys.get(keynum);
    }

    /** Java binding of {@code MPI_INFO_DUP}: a new info object with the same keys, values and order. */
    public synchronized Info dup()
    {
        return new Info(new LinkedHashMap<>(live("dup")), false);
    }

    /** The same as {@link #dup()}, as in Open MPI. */
    @Override
    public Info clone()
    {
        return dup();
    }

    /** Java binding of {@code MPI_INFO_FREE}: the object becomes null. The predefined ones cannot be freed. */
    @Override
    public synchronized void free()
    {
        live("free");
        if (predefined)
        {
            throw MPI.COMM_WORLD.handle(new MPIException(ErrorClass.ERR_INFO, "free: MPI.INFO_ENV cannot be freed"));
        }
        entries = null;
    }

    /** Whether this is {@code MPI.INFO_NULL} or freed. */
    public boolean isNull()
    {
        return entries == null;
    }

    @Override
    public synchronized String toString()
    {
        return entries == null ? "MPI_INFO_NULL" : "Info" + entries;
    }
}
