package org.shmpi.io;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.ShmpiException;

/**
 * The {@code shmpi.io.*} settings an open reads: how large a window of a file is mapped and how
 * many windows are mapped at once. Read afresh at each {@code MPI_File_open} (a property set
 * since {@code MPI_Init} counts), each from a property, else its environment variable
 * ({@code shmpi.io.chunk}: {@code SHMPI_IO_CHUNK}).
 *
 * <p>The only place io-mmap parses a setting: {@link #from} is what a settings registry replaces.
 * A value out of range is {@code ERR_ARG}, which open raises on every member alike.
 */
final class IoSettings
{
    /** Bytes of each mapped window of a file: a power of two from 4 KiB to 1 GiB. */
    static final String CHUNK_PROP = "shmpi.io.chunk";
    static final long CHUNK_DEFAULT = 64L << 20;

    /** Windows of one file mapped at once per process: 2 or more. */
    static final String MAPPED_PROP = "shmpi.io.mapped";
    static final int MAPPED_DEFAULT = 64;

    private final long chunkBytes;
    private final int maxMapped;

    private IoSettings(final long chunkBytes, final int maxMapped)
    {
        this.chunkBytes = chunkBytes;
        this.maxMapped = maxMapped;
    }

    /** The settings of this process now: its system properties, else its environment. */
    static IoSettings fromSystem()
    {
        return from(System.getProperties(), System.getenv());
    }

    /**
     * The settings given by {@code props}, else by {@code env} (under the upper-case name with
     * {@code _} for {@code .}), else the defaults; {@code ERR_ARG} naming the first bad one.
     */
    static IoSettings from(final Properties props, final Map<String, String> env)
    {
        final long chunk = setting(props, env, CHUNK_PROP, CHUNK_DEFAULT, 4096, 1L << 30, true);
        final int mapped = (int)setting(props, env, MAPPED_PROP, MAPPED_DEFAULT, 2, 1 << 20, false);
        return new IoSettings(chunk, mapped);
    }

    /** Bytes of each mapped window of a file ({@code shmpi.io.chunk}, 64 MiB by default). */
    long chunkBytes()
    {
        return chunkBytes;
    }

    /** Windows mapped at once per file ({@code shmpi.io.mapped}, 64 by default). */
    int maxMapped()
    {
        return maxMapped;
    }

    private static long setting(final Properties props, final Map<String, String> env, final String name,
        final long fallback, final long min, final long max, final boolean powerOfTwo)
    {
        String v = props.getProperty(name);
        if (v == null)
        {
            v = env.get(name.toUpperCase(Locale.ROOT).replace('.', '_'));
        }
        if (v == null || v.isBlank())
        {
            return fallback;
        }
        final long n;
        try
        {
            n = Long.parseLong(v.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "setting " + name + " is not a number: " + v);
        }
        if (n < min || n > max || powerOfTwo && Long.bitCount(n) != 1)
        {
            throw new ShmpiException(ErrorClass.ERR_ARG, "setting " + name + " must be " +
                (powerOfTwo ? "a power of two " : "") + "from " + min + " to " + max + ": " + v);
        }
        return n;
    }
}
