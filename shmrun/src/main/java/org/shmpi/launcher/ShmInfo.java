package org.shmpi.launcher;

import java.util.Map;

import org.shmpi.affinity.Topology;
import org.shmpi.shm.CrossMemory;
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

    /** How a large message from a direct buffer (not in the shared heap) reaches its receiver here. */
    static String singleCopy(final ShmpiConfig config)
    {
        if (!config.cmaEnabled())
        {
            return "through the ring (" + ShmpiConfig.CMA_ENABLED_PROP + "=false)";
        }
        final int probe = CrossMemory.probe();
        return probe == 0 ? "one copy, cross-memory attach (process_vm_readv)" :
            "through the ring (process_vm_readv " + (probe < 0 ? "not bound" : "refused: " +
            CrossMemory.errnoName(probe)) + ")";
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
        sb.append("large messages from direct buffers: ").append(singleCopy(config)).append('\n');
        sb.append('\n').append("Topology:\n");
        final Topology topology = Topology.detect(System.getProperties());
        for (final String line : topology.describe().split("\n"))
        {
            sb.append("  ").append(line).append('\n');
        }
        sb.append('\n').append("Launcher (rank JVMs):\n");
        final String setting = System.getProperty(RankJvmDefaults.PROP_NAME, System.getenv(RankJvmDefaults.ENV_NAME));
        sb.append("  ").append(RankJvmDefaults.PROP_NAME).append(" / ").append(RankJvmDefaults.ENV_NAME).append(" = ")
            .append(setting == null ? "default" : setting).append('\n');
        sb.append("  default JVM flags: ").append(String.join(" ", RankJvmDefaults.selected(null, setting)))
            .append('\n');
        String dir = System.getProperty(ClassDataArchive.DIR_PROP, System.getenv(ClassDataArchive.DIR_ENV));
        ClassDataArchive archive = null;
        try
        {
            archive = RankJvmDefaults.isDefault(null, setting) ? Shmrun.archive(null, Shmrun.shmpiClasspath()) : null;
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            dir = "(" + ex.getMessage() + ")";
        }
        sb.append("  ").append(ClassDataArchive.DIR_PROP).append(" / ").append(ClassDataArchive.DIR_ENV).append(" = ")
            .append(dir == null ? "(default)" : dir).append('\n');
        sb.append("  class-data archive: ").append(archive == null ? "none" :
            archive.file() + (archive.exists() ? " (built)" : " (built after the next job)")).append('\n');
        sb.append('\n').append("Settings (system property / environment variable = value):\n");
        for (final Map.Entry<String, String> e : config.effectiveValues().entrySet())
        {
            sb.append("  ").append(e.getKey()).append(" / ").append(ShmpiConfig.envName(e.getKey())).append(" = ")
                .append(e.getValue()).append('\n');
        }
        return sb.toString();
    }
}
