package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.CrossMemory;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.settings.Setting;
import org.shmpi.shm.settings.SettingsRegistry;

/** {@code shminfo} lists every setting of the registry with its variable and effective value. */
class ShmInfoTest
{
    @Test
    void printsEverySettingWithItsEffectiveValue()
    {
        final Properties p = new Properties();
        p.setProperty("shmpi.coll.shm.barrier", "release");
        final String report = ShmInfo.report(ShmpiConfig.from(p, Map.of("SHMPI_IO_MAPPED", "7")));
        for (final Setting s : SettingsRegistry.all())
        {
            assertTrue(report.contains("  " + s.name() + " / " + s.envName() + " = "), s.name() + " in\n" + report);
        }
        assertTrue(report.contains("shmpi.coll.shm.barrier / SHMPI_COLL_SHM_BARRIER = release"), report);
        assertTrue(report.contains("shmpi.io.mapped / SHMPI_IO_MAPPED = 7"), report);
        assertTrue(report.contains("shmpi.idle.spins / SHMPI_IDLE_SPINS = 200"), report);
    }

    @Test
    void saysHowLargeMessagesFromDirectBuffersTravel()
    {
        final Properties off = new Properties();
        off.setProperty(ShmpiConfig.CMA_ENABLED_PROP, "false");
        assertEquals("through the ring (shmpi.cma.enabled=false)", ShmInfo.singleCopy(ShmpiConfig.from(off, Map.of())));
        final String on = ShmInfo.singleCopy(ShmpiConfig.defaults());
        assertEquals(CrossMemory.probe() == 0, on.startsWith("one copy"), on);
        assertTrue(ShmInfo.report(ShmpiConfig.defaults()).contains("large messages from direct buffers: " + on));
    }
}
