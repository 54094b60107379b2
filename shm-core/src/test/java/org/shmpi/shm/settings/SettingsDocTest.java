package org.shmpi.shm.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.shmpi.shm.ShmpiConfig;

/**
 * docs/settings.md is generated from {@link SettingsRegistry}: this test fails when the file in the
 * repository differs from what the code declares. {@code -Dshmpi.settings.write=true} rewrites it.
 */
class SettingsDocTest
{
    private static final Path DOC = Path.of("..", "docs", "settings.md");

    @Test
    void docsSettingsMdIsWhatTheRegistryDeclares() throws IOException
    {
        final String generated = SettingsRegistry.markdown();
        if (Boolean.getBoolean("shmpi.settings.write"))
        {
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        assertEquals(generated, Files.readString(DOC, StandardCharsets.UTF_8),
            "docs/settings.md is stale: run mvn -pl shm-core test -Dtest=SettingsDocTest -Dshmpi.settings.write=true");
    }

    @Test
    void everySettingIsDeclaredOnceUnderShmpi()
    {
        final Set<String> names = new HashSet<>();
        for (final Setting s : SettingsRegistry.all())
        {
            assertTrue(s.name().startsWith("shmpi."), s.name());
            assertTrue(names.add(s.name()), "declared twice: " + s.name());
            assertTrue(!s.meaning().isBlank(), s.name());
            if (s.defaultValue() != null)
            {
                assertEquals(s.defaultValue(), s.validate(s.defaultValue()), "default of " + s.name() + " is valid");
            }
        }
    }

    @Test
    void everySettingIsValidatedWhenTheConfigIsRead()
    {
        final Properties p = new Properties();
        p.setProperty("shmpi.coll.shm.barrier", "sometimes");
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> ShmpiConfig.from(p, Map.of()));
        assertTrue(bad.getMessage().contains("shmpi.coll.shm.barrier"), bad.getMessage());
        final IllegalArgumentException fromEnv = assertThrows(IllegalArgumentException.class,
            () -> ShmpiConfig.from(new Properties(), Map.of("SHMPI_COLL_SHM_DATA_BYTES", "1000")));
        assertTrue(fromEnv.getMessage().contains("must be a multiple of 128: shmpi.coll.shm.data.bytes=1000"),
            fromEnv.getMessage());
        final IllegalArgumentException io = assertThrows(IllegalArgumentException.class,
            () -> ShmpiConfig.from(new Properties(), Map.of("SHMPI_IO_CHUNK", "5000")));
        assertTrue(io.getMessage().contains("must be a power of two: shmpi.io.chunk=5000"), io.getMessage());
        final Properties ok = new Properties();
        ok.setProperty("shmpi.coll.bcast.algorithm", " P2P ");
        assertEquals("p2p", ShmpiConfig.from(ok, Map.of()).text(SettingsRegistry.collAlgorithm("bcast")));
    }
}
