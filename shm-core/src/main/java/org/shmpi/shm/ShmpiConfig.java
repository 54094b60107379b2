package org.shmpi.shm;

import static org.shmpi.shm.settings.SettingsRegistry.*;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.shmpi.shm.settings.Setting;
import org.shmpi.shm.settings.SettingsRegistry;

/**
 * The values of every setting of {@link SettingsRegistry} for one rank (or the launcher): each
 * read once, when the object is built, from the system property {@code shmpi.a.b}, else the
 * environment variable {@code SHMPI_A_B}, else its default, and validated then: a bad value of
 * any setting fails here with one line naming it. {@code shmrun --mca a.b VALUE} passes
 * {@code -Dshmpi.a.b=VALUE} to every rank. Engines above this module read their own settings
 * through {@link #text}, {@link #number}, {@link #bool}, and keep what they derive from them in a
 * {@link #view} (one per config, made once).
 */
public final class ShmpiConfig
{
    public static final String SHM_DIR_PROP = SHM_DIR.name();
    public static final String RING_CAPACITY_PROP = RING_CAPACITY.name();
    public static final int RING_CAPACITY_DEFAULT = Integer.parseInt(RING_CAPACITY.defaultValue());
    public static final String EAGER_LIMIT_PROP = EAGER_LIMIT.name();
    public static final String CMA_ENABLED_PROP = CMA_ENABLED.name();
    public static final String INIT_TIMEOUT_MS_PROP = INIT_TIMEOUT_MS.name();
    public static final String HEARTBEAT_INTERVAL_MS_PROP = HEARTBEAT_INTERVAL_MS.name();
    public static final String LAUNCHER_TIMEOUT_MS_PROP = LAUNCHER_TIMEOUT_MS.name();
    public static final String OVERSUBSCRIBED_PROP = OVERSUBSCRIBED.name();
    public static final String IDLE_SPINS_PROP = IDLE_SPINS.name();
    public static final String IDLE_YIELDS_PROP = IDLE_YIELDS.name();
    public static final String IDLE_SLEEP_MAX_US_PROP = IDLE_SLEEP_MAX_US.name();
    public static final String ABORT_GRACE_MS_PROP = ABORT_GRACE_MS.name();
    public static final String FUTEX_ENABLED_PROP = FUTEX_ENABLED.name();
    public static final String SHM_KEEP_PROP = SHM_KEEP.name();
    public static final int IDLE_SPINS_DEFAULT = 200;
    public static final int IDLE_YIELDS_DEFAULT = 20;
    /** The idle defaults when the job has more ranks than CPUs: waiting ranks do not spin. */
    public static final int IDLE_SPINS_OVERSUBSCRIBED = 0;
    public static final int IDLE_YIELDS_OVERSUBSCRIBED = 1000;

    /** Values by setting name (null: unset, no default), in declaration order. */
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<Class<?>, Object> views = new ConcurrentHashMap<>();
    private final String shmDir;
    private final int ringCapacity;
    private final int eagerLimit;
    private final boolean cmaEnabled;
    private final boolean bridgeInline;
    private final long connectTimeoutMs;
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
        for (final Setting s : SettingsRegistry.all())
        {
            String text = props.getProperty(s.name());
            if (text == null)
            {
                text = env.get(s.envName());
            }
            values.put(s.name(), text == null ? s.defaultValue() : s.validate(text));
        }
        shmDir = text(SHM_DIR);
        ringCapacity = (int)number(RING_CAPACITY);
        eagerLimit = (int)number(EAGER_LIMIT);
        cmaEnabled = bool(CMA_ENABLED);
        bridgeInline = bool(BRIDGE_INLINE);
        connectTimeoutMs = number(CONNECT_TIMEOUT_MS);
        initTimeoutMs = number(INIT_TIMEOUT_MS);
        heartbeatIntervalMs = number(HEARTBEAT_INTERVAL_MS);
        launcherTimeoutMs = number(LAUNCHER_TIMEOUT_MS);
        oversubscribed = bool(OVERSUBSCRIBED);
        idleSpins = (int)number(IDLE_SPINS, oversubscribed ? IDLE_SPINS_OVERSUBSCRIBED : IDLE_SPINS_DEFAULT);
        idleYields = (int)number(IDLE_YIELDS, oversubscribed ? IDLE_YIELDS_OVERSUBSCRIBED : IDLE_YIELDS_DEFAULT);
        idleSleepMaxUs = number(IDLE_SLEEP_MAX_US);
        abortGraceMs = number(ABORT_GRACE_MS);
        futexEnabled = bool(FUTEX_ENABLED);
        shmKeep = bool(SHM_KEEP);
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
        return Setting.envName(property);
    }

    /** Whether {@code s} has a value (given, or a default). */
    public boolean isSet(final Setting s)
    {
        return values.get(s.name()) != null;
    }

    /** The value of {@code s} as text (null when unset without a default). */
    public String text(final Setting s)
    {
        return values.get(s.name());
    }

    /** The value of number setting {@code s}, which must have one. */
    public long number(final Setting s)
    {
        return Long.parseLong(values.get(s.name()));
    }

    /** The value of number setting {@code s}, or {@code fallback} when unset. */
    public long number(final Setting s, final long fallback)
    {
        final String v = values.get(s.name());
        return v == null ? fallback : Long.parseLong(v);
    }

    /** The value of boolean setting {@code s}. */
    public boolean bool(final Setting s)
    {
        return Boolean.parseBoolean(values.get(s.name()));
    }

    /**
     * What {@code make} derives from these settings, made once per config and kept: how an engine
     * above this module holds its own settings (e.g. the collectives' choices) without a global.
     */
    @SuppressWarnings("unchecked")
    public <T> T view(final Class<T> type, final Function<ShmpiConfig, T> make)
    {
        final Object v = views.get(type);
        if (v != null)
        {
            return (T)v;
        }
        return (T)views.computeIfAbsent(type, t -> make.apply(this));
    }

    /** Every setting with its effective value ("(unset)" when it has none), in declaration order. */
    public Map<String, String> effectiveValues()
    {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final Map.Entry<String, String> e : values.entrySet())
        {
            out.put(e.getKey(), e.getValue() == null ? "(unset)" : e.getValue());
        }
        out.put(IDLE_SPINS.name(), Integer.toString(idleSpins));
        out.put(IDLE_YIELDS.name(), Integer.toString(idleYields));
        return Collections.unmodifiableMap(out);
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

    /** How long a connect waits for an accept ({@code shmpi.connect.timeout.ms}). */
    /** {@code shmpi.port.address}: what a port's name offers to other machines ("" : chosen). */
    public String portAddress()
    {
        return text(SettingsRegistry.PORT_ADDRESS);
    }

    public long connectTimeoutMs()
    {
        return connectTimeoutMs;
    }

    /** Whether the rank that runs a node's bridge does its socket work itself ({@code shmpi.bridge.inline}). */
    public boolean bridgeInline()
    {
        return bridgeInline;
    }

    /** Whether large messages from direct buffers may be read with cross-memory attach ({@link #CMA_ENABLED_PROP}). */
    public boolean cmaEnabled()
    {
        return cmaEnabled;
    }

    public long initTimeoutMs()
    {
        return initTimeoutMs;
    }

    public long heartbeatIntervalMs()
    {
        return heartbeatIntervalMs;
    }

    /** {@code shmpi.rank.timeout.ms}: a rank without a heartbeat that long is unresponsive (0: never). */
    public long rankTimeoutMs()
    {
        return number(RANK_TIMEOUT_MS);
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
