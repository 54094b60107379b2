package org.shmpi.junit;

import org.shmpi.shm.settings.SettingsRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The extension's settings: a system property {@code shmpi.test.X}, else the environment
 * variable {@code SHMPI_TEST_X}, else the default.
 */
final class Settings
{
    /** Rank counts above this are skipped; {@code 0}: no cap. */
    static final String MAX_NP = SettingsRegistry.TEST_MAX_NP.name();
    /** Default seconds before a run fails as hung. */
    static final String TIMEOUT = SettingsRegistry.TEST_TIMEOUT.name();
    /** Seconds a job may take to start (every rank's JVM up and {@code MPI.Init} done). */
    static final String START_TIMEOUT = SettingsRegistry.TEST_START_TIMEOUT.name();
    /** Milliseconds the other ranks get to finish once one rank failed, before the job is stopped. */
    static final String GRACE = SettingsRegistry.TEST_GRACE_MS.name();
    /** Keep the job directory in shared memory, and name it in failures. */
    static final String KEEP = SettingsRegistry.TEST_KEEP.name();
    /** Extra JVM options for every rank, separated by spaces. */
    static final String JVM_ARGS = SettingsRegistry.TEST_JVM_ARGS.name();
    /** Extra options for the launcher ({@code shmrun}), separated by spaces. */
    static final String SHMRUN_ARGS = SettingsRegistry.TEST_SHMRUN_ARGS.name();

    static final int DEFAULT_TIMEOUT_S = 60;
    static final int DEFAULT_START_TIMEOUT_S = 120;
    static final int DEFAULT_GRACE_MS = 2_000;

    private Settings()
    {
    }

    static String get(final String name)
    {
        final String p = System.getProperty(name);
        if (p != null && !p.isBlank())
        {
            return p.trim();
        }
        final String e = System.getenv(envName(name));
        return e == null || e.isBlank() ? null : e.trim();
    }

    /** {@code shmpi.test.max.np} to {@code SHMPI_TEST_MAX_NP}. */
    static String envName(final String name)
    {
        return name.toUpperCase(java.util.Locale.ROOT).replace('.', '_');
    }

    static int getInt(final String name, final int defaultValue)
    {
        final String v = get(name);
        if (v == null)
        {
            return defaultValue;
        }
        try
        {
            final int i = Integer.parseInt(v);
            if (i < 0)
            {
                throw new NumberFormatException();
            }
            return i;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("bad setting " + name + " (" + envName(name) + "): '" + v +
                "' is not a whole number >= 0");
        }
    }

    static boolean getBoolean(final String name)
    {
        final String v = get(name);
        return v != null && (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes"));
    }

    static int maxNp()
    {
        return getInt(MAX_NP, 0);
    }

    /** The JVM flags the launcher and the ranks need (the parent POM's {@code shmpi.jvm.flags}). */
    static String jvmFlags()
    {
        try (InputStream in = Settings.class.getResourceAsStream("jvm-flags.properties"))
        {
            if (in == null)
            {
                throw new IllegalStateException("shmpi-junit: jvm-flags.properties missing from the jar");
            }
            final Properties p = new Properties();
            p.load(in);
            return p.getProperty("flags", "").trim();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
