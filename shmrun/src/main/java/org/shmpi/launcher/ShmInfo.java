package org.shmpi.launcher;

import java.util.Map;

import org.shmpi.affinity.Topology;
import org.shmpi.shm.Futex;
import org.shmpi.shm.ShmpiConfig;

/** {@code shminfo}: version, the machine's topology as shmpi sees it, and effective settings. */
public final class ShmInfo
{
    private ShmInfo()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            System.out.print(report(ShmpiConfig.fromSystem()));
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("shminfo: bad setting: " + ex.getMessage());
            System.exit(2);
        }
    }

    static String report(final ShmpiConfig config)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("shmpi ").append(Version.VERSION).append('\n');
        sb.append("java: ").append(System.getProperty("java.vm.name")).append(' ')
            .append(System.getProperty("java.version")).append(" (").append(System.getProperty("java.home"))
            .append(")\n");
        final Futex futex = Futex.open(config.futexEnabled());
        sb.append("wake-up: ").append(futex.wakesSleepers() ? "futex (JNA)" : "polling (no futex available)")
            .append('\n');
        sb.append('\n').append("Topology:\n");
        final Topology topology = Topology.detect(System.getProperties());
        for (final String line : topology.describe().split("\n"))
        {
            sb.append("  ").append(line).append('\n');
        }
        sb.append('\n').append("Settings (system property / environment variable = value):\n");
        for (final Map.Entry<String, String> e : config.effectiveValues().entrySet())
        {
            sb.append("  ").append(e.getKey()).append(" / ").append(ShmpiConfig.envName(e.getKey())).append(" = ")
                .append(e.getValue()).append('\n');
        }
        return sb.toString();
    }
}
