package org.shmpi.shm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Every shmpi setting, by name, with its default. A setting {@code shmpi.a.b} is read from the
 * system property {@code shmpi.a.b}, else from the environment variable {@code SHMPI_A_B}, else
 * it takes its default. {@code shmrun --mca a.b VALUE} passes {@code -Dshmpi.a.b=VALUE} to
 * every rank. The values are read and validated once, when the object is built.
 */
public final class ShmpiConfig
{
    /** Directory under which job directories are created. */
    public static final String SHM_DIR_PROP = "shmpi.shm.dir";
    public static final String SHM_DIR_DEFAULT = "/dev/shm";

    /** Capacity in bytes of each rank's inbox ring (a power of two). */
    public static final String RING_CAPACITY_PROP = "shmpi.ring.capacity";
    public static final int RING_CAPACITY_DEFAULT = 1 << 20;

    /** Largest message sent eagerly; larger ones use the rendezvous protocol. */
    public static final String EAGER_LIMIT_PROP = "shmpi.eager.limit";
    public static final int EAGER_LIMIT_DEFAULT = 64 * 1024;

    /** How long {@code MPI.Init} waits for every rank of the job to attach. */
    public static final String INIT_TIMEOUT_MS_PROP = "shmpi.init.timeout.ms";
    public static final long INIT_TIMEOUT_MS_DEFAULT = 60_000;

    /** Interval at which ranks and the launcher write their heartbeat. */
    public static final String HEARTBEAT_INTERVAL_MS_PROP = "shmpi.heartbeat.interval.ms";
    public static final long HEARTBEAT_INTERVAL_MS_DEFAULT = 100;

    /** A rank whose launcher's heartbeat is older than this exits: the launcher is gone. */
    public static final String LAUNCHER_TIMEOUT_MS_PROP = "shmpi.launcher.timeout.ms";
    public static final long LAUNCHER_TIMEOUT_MS_DEFAULT = 3_000;

    /** Busy polls before a waiting rank starts to yield. */
    /**
     * Set by {@code shmrun} when the job has more ranks than the CPUs it may run on. Then a
     * waiting rank does not spin (spinning only keeps the core from the rank it waits for) and
     * yields for longer before it sleeps: {@link #IDLE_SPINS_OVERSUBSCRIBED} and
     * {@link #IDLE_YIELDS_OVERSUBSCRIBED} become the defaults of the two settings below.
     */
    public static final String OVERSUBSCRIBED_PROP = "shmpi.oversubscribed";
    public static final boolean OVERSUBSCRIBED_DEFAULT = false;
    public static final int IDLE_SPINS_OVERSUBSCRIBED = 0;
    public static final int IDLE_YIELDS_OVERSUBSCRIBED = 1000;

    public static final String IDLE_SPINS_PROP = "shmpi.idle.spins";
    public static final int IDLE_SPINS_DEFAULT = 200;

    /** Yields before a waiting rank sleeps on its wake word. */
    public static final String IDLE_YIELDS_PROP = "shmpi.idle.yields";
    public static final int IDLE_YIELDS_DEFAULT = 20;

    /** Longest single sleep of a waiting rank; a lost wake-up costs at most this. */
    public static final String IDLE_SLEEP_MAX_US_PROP = "shmpi.idle.sleep.max.us";
    public static final long IDLE_SLEEP_MAX_US_DEFAULT = 50_000;

    /** After an abort, how long the launcher lets ranks exit before it kills them. */
    public static final String ABORT_GRACE_MS_PROP = "shmpi.abort.grace.ms";
    public static final long ABORT_GRACE_MS_DEFAULT = 1_000;

    /** Use futex wait/wake (via JNA) for sleeping ranks; false falls back to timed parking. */
    public static final String FUTEX_ENABLED_PROP = "shmpi.futex.enabled";
    public static final boolean FUTEX_ENABLED_DEFAULT = true;

    /** Keep the ranks' segment files when they close (set by {@code shmrun --keep-shm}), for inspection. */
    public static final String SHM_KEEP_PROP = "shmpi.shm.keep";
    public static final boolean SHM_KEEP_DEFAULT = false;

    private final Map<String, String> values = new LinkedHashMap<>();
    private final String shmDir;
    private final int ringCapacity;
    private final int eagerLimit;
    private final long initTimeoutMs;
    private final long heartbeatIntervalMs;
    private final long launcherTimeoutMs;
    private final boolean oversubscribed;
    private final int idleSpins;
    private final int idleYields;
    private final long idleSleepMaxUs;
    private final long abortGraceMs;
    private final boolean futexEnabled;
    private final boolean shmKeep;

    private ShmpiConfig(final Properties props, final Map<String, String> env)
    {
        shmDir = string(props, env, SHM_DIR_PROP, SHM_DIR_DEFAULT);
        ringCapacity = (int)number(props, env, RING_CAPACITY_PROP, RING_CAPACITY_DEFAULT, 64 * 1024, 1 << 30);
        if (Integer.bitCount(ringCapacity) != 1)
        {
            throw new IllegalArgumentException(
                "ring capacity must be a power of two: " + RING_CAPACITY_PROP + "=" + ringCapacity);
        }
        eagerLimit = (int)number(props, env, EAGER_LIMIT_PROP, EAGER_LIMIT_DEFAULT, 0, 1 << 30);
        initTimeoutMs = number(props, env, INIT_TIMEOUT_MS_PROP, INIT_TIMEOUT_MS_DEFAULT, 1, Long.MAX_VALUE);
        heartbeatIntervalMs = number(
            props, env, HEARTBEAT_INTERVAL_MS_PROP, HEARTBEAT_INTERVAL_MS_DEFAULT, 1, 60_000);
        launcherTimeoutMs = number(
            props, env, LAUNCHER_TIMEOUT_MS_PROP, LAUNCHER_TIMEOUT_MS_DEFAULT, 10, Long.MAX_VALUE);
        oversubscribed = bool(props, env, OVERSUBSCRIBED_PROP, OVERSUBSCRIBED_DEFAULT);
        idleSpins = (int)number(props, env, IDLE_SPINS_PROP,
            oversubscribed ? IDLE_SPINS_OVERSUBSCRIBED : IDLE_SPINS_DEFAULT, 0, Integer.MAX_VALUE);
        idleYields = (int)number(props, env, IDLE_YIELDS_PROP,
            oversubscribed ? IDLE_YIELDS_OVERSUBSCRIBED : IDLE_YIELDS_DEFAULT, 0, Integer.MAX_VALUE);
        idleSleepMaxUs = number(props, env, IDLE_SLEEP_MAX_US_PROP, IDLE_SLEEP_MAX_US_DEFAULT, 1, 10_000_000);
        abortGraceMs = number(props, env, ABORT_GRACE_MS_PROP, ABORT_GRACE_MS_DEFAULT, 0, 60_000);
        futexEnabled = bool(props, env, FUTEX_ENABLED_PROP, FUTEX_ENABLED_DEFAULT);
        shmKeep = bool(props, env, SHM_KEEP_PROP, SHM_KEEP_DEFAULT);
    }

    /** Settings from the system properties and environment of this process. */
    public static ShmpiConfig fromSystem()
    {
        return new ShmpiConfig(System.getProperties(), System.getenv());
    }

    /** Settings from the given sources (tests, the launcher). */
    public static ShmpiConfig from(final Properties props, final Map<String, String> env)
    {
        return new ShmpiConfig(props, env);
    }

    /** Defaults only. */
    public static ShmpiConfig defaults()
    {
        return new ShmpiConfig(new Properties(), Collections.emptyMap());
    }

    /** The environment variable that also sets a property: shmpi.a.b becomes SHMPI_A_B. */
    public static String envName(final String property)
    {
        return property.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    private String string(
        final Properties props, final Map<String, String> env, final String name, final String dflt)
    {
        String value = props.getProperty(name);
        if (value == null)
        {
            value = env.get(envName(name));
        }
        if (value == null)
        {
            value = dflt;
        }
        values.put(name, value);
        return value;
    }

    private long number(
        final Properties props,
        final Map<String, String> env,
        final String name,
        final long dflt,
        final long min,
        final long max)
    {
        final String text = string(props, env, name, Long.toString(dflt)).trim();
        final long value;
        try
        {
            value = Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not a number: " + name + "=" + text, ex);
        }
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(
                "out of range: " + name + "=" + value + ", allowed=[" + min + "," + max + "]");
        }
        return value;
    }

    private boolean bool(
        final Properties props, final Map<String, String> env, final String name, final boolean dflt)
    {
        final String text = string(props, env, name, Boolean.toString(dflt)).trim();
        if (text.equalsIgnoreCase("true"))
        {
            return true;
        }
        if (text.equalsIgnoreCase("false"))
        {
            return false;
        }
        throw new IllegalArgumentException("not true or false: " + name + "=" + text);
    }

    /** Every setting with its effective value, in declaration order (for {@code shminfo}). */
    public Map<String, String> effectiveValues()
    {
        return Collections.unmodifiableMap(values);
    }

    public String shmDir()
    {
        return shmDir;
    }

    public int ringCapacity()
    {
        return ringCapacity;
    }

    public int eagerLimit()
    {
        return eagerLimit;
    }

    public long initTimeoutMs()
    {
        return initTimeoutMs;
    }

    public long heartbeatIntervalMs()
    {
        return heartbeatIntervalMs;
    }

    public long launcherTimeoutMs()
    {
        return launcherTimeoutMs;
    }

    /** Whether the job has more ranks than CPUs ({@link #OVERSUBSCRIBED_PROP}). */
    public boolean oversubscribed()
    {
        return oversubscribed;
    }

    public int idleSpins()
    {
        return idleSpins;
    }

    public int idleYields()
    {
        return idleYields;
    }

    public long idleSleepMaxUs()
    {
        return idleSleepMaxUs;
    }

    public long abortGraceMs()
    {
        return abortGraceMs;
    }

    public boolean futexEnabled()
    {
        return futexEnabled;
    }

    public boolean shmKeep()
    {
        return shmKeep;
    }
}
