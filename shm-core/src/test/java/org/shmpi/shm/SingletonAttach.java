package org.shmpi.shm;

import java.util.Map;
import java.util.Properties;

/**
 * Run as its own JVM by {@link RankProcessTest}: attaches as a singleton under the shared-memory
 * directory given as the argument, and reports how that went on stdout.
 */
public final class SingletonAttach
{
    private SingletonAttach()
    {
    }

    public static void main(final String[] args)
    {
        final Properties p = new Properties();
        p.setProperty(ShmpiConfig.SHM_DIR_PROP, args[0]);
        try (RankProcess process = RankProcess.attach(ShmpiConfig.from(p, Map.of()), Map.of()))
        {
            System.out.println("ATTACHED " + process.directory());
        }
        catch (final Throwable t)
        {
            System.out.println("FAILED " + t);
        }
    }
}
