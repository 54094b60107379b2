package org.shmpi.io;

import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.settings.SettingsRegistry;

/**
 * The {@code shmpi.io.*} settings an open uses: how large a window of a file is mapped and how
 * many windows are mapped at once. Declared in {@link SettingsRegistry} ({@code shmpi.io.chunk},
 * {@code shmpi.io.mapped}), read and validated with every other setting when the rank starts.
 */
final class IoSettings
{
    private final long chunkBytes;
    private final int maxMapped;

    private IoSettings(final long chunkBytes, final int maxMapped)
    {
        this.chunkBytes = chunkBytes;
        this.maxMapped = maxMapped;
    }

    /** The io settings of {@code config}. */
    static IoSettings of(final ShmpiConfig config)
    {
        return new IoSettings(config.number(SettingsRegistry.IO_CHUNK), (int)config.number(SettingsRegistry.IO_MAPPED));
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
}
