package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.shmpi.shm.ShmpiConfig.*;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ShmpiConfigTest
{
    private static Properties props(final String... nameValues)
    {
        final Properties p = new Properties();
        for (int i = 0; i < nameValues.length; i += 2)
        {
            p.setProperty(nameValues[i], nameValues[i + 1]);
        }
        return p;
    }

    /** Every setting: its name, two distinct valid values as text, and its getter. */
    static Stream<Arguments> settings()
    {
        return Stream.of(
            setting(SHM_DIR_PROP, "/tmp/a", "/tmp/b", ShmpiConfig::shmDir),
            setting(RING_CAPACITY_PROP, "65536", "131072", ShmpiConfig::ringCapacity),
            setting(EAGER_LIMIT_PROP, "0", "4096", ShmpiConfig::eagerLimit),
            setting(INIT_TIMEOUT_MS_PROP, "5", "70000", ShmpiConfig::initTimeoutMs),
            setting(HEARTBEAT_INTERVAL_MS_PROP, "1", "60000", ShmpiConfig::heartbeatIntervalMs),
            setting(LAUNCHER_TIMEOUT_MS_PROP, "10", "12345", ShmpiConfig::launcherTimeoutMs),
            setting(IDLE_SPINS_PROP, "0", "7", ShmpiConfig::idleSpins),
            setting(IDLE_YIELDS_PROP, "0", "3", ShmpiConfig::idleYields),
            setting(IDLE_SLEEP_MAX_US_PROP, "1", "10000000", ShmpiConfig::idleSleepMaxUs),
            setting(ABORT_GRACE_MS_PROP, "0", "60000", ShmpiConfig::abortGraceMs),
            setting(FUTEX_ENABLED_PROP, "false", "true", ShmpiConfig::futexEnabled));
    }

    private static Arguments setting(
        final String name, final String a, final String b, final Function<ShmpiConfig, Object> getter)
    {
        return Arguments.of(name, a, b, getter);
    }

    @Test
    void defaultsAreTheDeclaredDefaults()
    {
        final ShmpiConfig c = ShmpiConfig.defaults();
        assertEquals("/dev/shm", c.shmDir());
        assertEquals(1 << 20, c.ringCapacity());
        assertEquals(64 * 1024, c.eagerLimit());
        assertEquals(60_000L, c.initTimeoutMs());
        assertEquals(100L, c.heartbeatIntervalMs());
        assertEquals(3_000L, c.launcherTimeoutMs());
        assertEquals(IDLE_SPINS_DEFAULT, c.idleSpins());
        assertEquals(IDLE_YIELDS_DEFAULT, c.idleYields());
        assertEquals(50_000L, c.idleSleepMaxUs());
        assertEquals(1_000L, c.abortGraceMs());
        assertEquals(true, c.futexEnabled());
        assertEquals(false, c.shmKeep());
    }

    @Test
    void effectiveValuesListEverySettingInDeclarationOrder()
    {
        final Map<String, String> values = ShmpiConfig.defaults().effectiveValues();
        final List<String> declared = new java.util.ArrayList<>();
        org.shmpi.shm.settings.SettingsRegistry.all().forEach(setting -> declared.add(setting.name()));
        assertEquals(declared, List.copyOf(values.keySet()));
        assertTrue(values.keySet().containsAll(List.of(SHM_DIR_PROP, RING_CAPACITY_PROP, EAGER_LIMIT_PROP,
            INIT_TIMEOUT_MS_PROP, HEARTBEAT_INTERVAL_MS_PROP, LAUNCHER_TIMEOUT_MS_PROP, OVERSUBSCRIBED_PROP,
            IDLE_SPINS_PROP, IDLE_YIELDS_PROP, IDLE_SLEEP_MAX_US_PROP, ABORT_GRACE_MS_PROP, FUTEX_ENABLED_PROP,
            SHM_KEEP_PROP, "shmpi.coll.algorithm", "shmpi.coll.shm.barrier", "shmpi.io.chunk", "shmpi.io.mapped",
            "shmpi.topology.file", "shmpi.launcher.jvm.defaults", "shmpi.test.timeout")));
        assertEquals(Integer.toString(RING_CAPACITY_DEFAULT), values.get(RING_CAPACITY_PROP));
        assertEquals("/dev/shm", values.get(SHM_DIR_PROP));
        assertThrows(UnsupportedOperationException.class, () -> values.put("x", "y"));

        final Map<String, String> set = ShmpiConfig.from(props(IDLE_SPINS_PROP, "9"), Map.of()).effectiveValues();
        assertEquals("9", set.get(IDLE_SPINS_PROP));
    }

    /** More ranks than CPUs: no spinning, longer yielding, unless the settings say otherwise. */
    @Test
    void oversubscribedJobsChangeTheIdleDefaultsOnly()
    {
        final ShmpiConfig plain = ShmpiConfig.defaults();
        assertEquals(IDLE_SPINS_DEFAULT, plain.idleSpins());
        assertEquals(IDLE_YIELDS_DEFAULT, plain.idleYields());
        final ShmpiConfig over = ShmpiConfig.from(props(OVERSUBSCRIBED_PROP, "true"), Map.of());
        assertTrue(over.oversubscribed());
        assertEquals(IDLE_SPINS_OVERSUBSCRIBED, over.idleSpins());
        assertEquals(IDLE_YIELDS_OVERSUBSCRIBED, over.idleYields());
        final Properties both = props(OVERSUBSCRIBED_PROP, "true");
        both.setProperty(IDLE_SPINS_PROP, "7");
        assertEquals(7, ShmpiConfig.from(both, Map.of()).idleSpins(), "an explicit setting wins");
    }

    @ParameterizedTest
    @CsvSource({
        "shmpi.ring.capacity, SHMPI_RING_CAPACITY",
        "shmpi.init.timeout.ms, SHMPI_INIT_TIMEOUT_MS",
        "shmpi.futex.enabled, SHMPI_FUTEX_ENABLED",
    })
    void environmentNameIsUpperCaseWithUnderscores(final String property, final String env)
    {
        assertEquals(env, ShmpiConfig.envName(property));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("settings")
    void propertyBeatsEnvironmentBeatsDefault(
        final String name, final String a, final String b, final Function<ShmpiConfig, Object> getter)
    {
        final Object dflt = getter.apply(ShmpiConfig.defaults());
        final ShmpiConfig fromEnv = ShmpiConfig.from(new Properties(), Map.of(envName(name), a));
        assertEquals(a, String.valueOf(getter.apply(fromEnv)), "environment beats default");
        final ShmpiConfig fromBoth = ShmpiConfig.from(props(name, b), Map.of(envName(name), a));
        assertEquals(b, String.valueOf(getter.apply(fromBoth)), "property beats environment");
        final ShmpiConfig fromProp = ShmpiConfig.from(props(name, a), Map.of());
        assertEquals(a, String.valueOf(getter.apply(fromProp)));
        // The test values must differ from the default, or the checks above prove nothing.
        assertFalse(a.equals(String.valueOf(dflt)) && b.equals(String.valueOf(dflt)));
        // A variable named like the property (not the SHMPI_ form) is not read.
        assertEquals(dflt, getter.apply(ShmpiConfig.from(new Properties(), Map.of(name, a))));
    }

    @Test
    void anInvalidEnvironmentValueHiddenByAPropertyIsNotAnError()
    {
        final ShmpiConfig c = ShmpiConfig.from(props(RING_CAPACITY_PROP, "65536"),
            Map.of(envName(RING_CAPACITY_PROP), "garbage"));
        assertEquals(65536, c.ringCapacity());
    }

    @Test
    void numbersAreTrimmed()
    {
        assertEquals(131072, ShmpiConfig.from(props(RING_CAPACITY_PROP, " 131072 "), Map.of()).ringCapacity());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "shmpi.ring.capacity|abc|not a number: shmpi.ring.capacity=abc",
        "shmpi.ring.capacity|32768|out of range: shmpi.ring.capacity=32768, allowed=[65536,1073741824]",
        "shmpi.ring.capacity|2147483648|out of range: shmpi.ring.capacity=2147483648",
        "shmpi.ring.capacity|100000|must be a power of two: shmpi.ring.capacity=100000",
        "shmpi.ring.capacity|1.5|not a number: shmpi.ring.capacity=1.5",
        "shmpi.init.timeout.ms|0|out of range: shmpi.init.timeout.ms=0",
        "shmpi.heartbeat.interval.ms|60001|out of range: shmpi.heartbeat.interval.ms=60001, allowed=[1,60000]",
        "shmpi.launcher.timeout.ms|9|out of range: shmpi.launcher.timeout.ms=9",
        "shmpi.idle.spins|-1|out of range: shmpi.idle.spins=-1",
        "shmpi.idle.spins|2147483648|out of range: shmpi.idle.spins=2147483648",
        "shmpi.idle.yields|x|not a number: shmpi.idle.yields=x",
        "shmpi.idle.sleep.max.us|0|out of range: shmpi.idle.sleep.max.us=0",
        "shmpi.idle.sleep.max.us|10000001|out of range: shmpi.idle.sleep.max.us=10000001",
        "shmpi.abort.grace.ms|-5|out of range: shmpi.abort.grace.ms=-5",
        "shmpi.futex.enabled|ture|not true or false: shmpi.futex.enabled=ture",
        "shmpi.eager.limit|-1|out of range: shmpi.eager.limit=-1",
    })
    void invalidValuesAreRejectedWithNameAndValue(final String name, final String value, final String message)
    {
        final IllegalArgumentException fromProp = assertThrows(IllegalArgumentException.class,
            () -> ShmpiConfig.from(props(name, value), Map.of()));
        assertTrue(fromProp.getMessage().contains(message), fromProp.getMessage());

        final IllegalArgumentException fromEnv = assertThrows(IllegalArgumentException.class,
            () -> ShmpiConfig.from(new Properties(), Map.of(envName(name), value)));
        assertTrue(fromEnv.getMessage().contains(message), fromEnv.getMessage());
    }

    @Test
    void systemSourcesAreRead()
    {
        final String old = System.getProperty(IDLE_YIELDS_PROP);
        System.setProperty(IDLE_YIELDS_PROP, "17");
        try
        {
            assertEquals(17, ShmpiConfig.fromSystem().idleYields());
        }
        finally
        {
            if (old == null)
            {
                System.clearProperty(IDLE_YIELDS_PROP);
            }
            else
            {
                System.setProperty(IDLE_YIELDS_PROP, old);
            }
        }
    }
}
