package org.shmpi.affinity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Process binding helpers. A rank is pinned by starting its JVM under {@code taskset}, so the
 * affinity holds from the first instruction (before the JIT and GC threads start) and needs no
 * native code; this class only builds the command prefix and reads back the current mask.
 */
public final class Binding
{
    /**
     * Property the launcher sets on every rank: the CPUs it placed the rank on (a CPU list of the
     * launcher's topology), or, for a rank it did not bind, every CPU the rank may use. It tells
     * a rank where it runs when the topology is a file describing another machine, where
     * {@code taskset} cannot bind for real.
     */
    public static final String RANK_CPUS_PROP_NAME = "shmpi.rank.cpus";

    private static final String ALLOWED_LIST_KEY = "Cpus_allowed_list:";

    private Binding()
    {
    }

    /**
     * The command prefix that runs a program bound to {@code cpus}, e.g.
     * {@code ["taskset", "-c", "0-3"]}; the launcher appends the {@code java ...} command.
     *
     * @param cpus the CPUs, non-empty
     * @return an immutable list
     */
    public static List<String> taskset(final CpuSet cpus)
    {
        Objects.requireNonNull(cpus, "cpus");
        if (cpus.isEmpty())
        {
            throw new IllegalArgumentException("cannot bind to no cpus: cpus=\"\"");
        }
        return List.of("taskset", "-c", cpus.toString());
    }

    /** @return the CPUs this process may run on, from {@code /proc/self/status}. */
    public static CpuSet currentAffinity()
    {
        return currentAffinity(Path.of("/proc/self/status"));
    }

    /**
     * Where this process runs as far as placement is concerned: the CPUs of
     * {@value #RANK_CPUS_PROP_NAME} when set, else {@link #currentAffinity()}.
     *
     * @param settings configuration properties
     * @return the CPUs, non-empty
     * @throws IllegalArgumentException naming the property if its value is not a non-empty CPU list
     */
    public static CpuSet rankCpus(final Properties settings)
    {
        final String value = settings.getProperty(RANK_CPUS_PROP_NAME);
        if (value == null || value.isBlank())
        {
            return currentAffinity();
        }
        final CpuSet cpus;
        try
        {
            cpus = CpuSet.parse(value.strip());
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("bad cpu list: " + RANK_CPUS_PROP_NAME + "=" + value + ", "
                + e.getMessage(), e);
        }
        if (cpus.isEmpty())
        {
            throw new IllegalArgumentException("empty cpu list: " + RANK_CPUS_PROP_NAME + "=" + value);
        }
        return cpus;
    }

    /**
     * Reads {@code Cpus_allowed_list} from a {@code /proc/<pid>/status}-style file.
     *
     * @param procSelfStatus the status file
     * @return the allowed CPUs
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if it has no well-formed {@code Cpus_allowed_list} line
     */
    public static CpuSet currentAffinity(final Path procSelfStatus)
    {
        final String text;
        try
        {
            text = Files.readString(procSelfStatus, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read status file: file=" + procSelfStatus, e);
        }
        final String line = findAllowedLine(text).orElseThrow(() -> new IllegalArgumentException(
            "no " + ALLOWED_LIST_KEY + " line: file=" + procSelfStatus));
        return CpuSet.parse(line);
    }

    /**
     * @param statusText contents of a status file
     * @return the parsed {@code Cpus_allowed_list}, empty if absent or malformed
     */
    static Optional<CpuSet> parseCpusAllowedList(final String statusText)
    {
        return findAllowedLine(statusText).flatMap(value ->
        {
            try
            {
                return Optional.of(CpuSet.parse(value));
            }
            catch (final IllegalArgumentException e)
            {
                return Optional.empty();
            }
        });
    }

    private static Optional<String> findAllowedLine(final String statusText)
    {
        for (final String line : statusText.split("\\R"))
        {
            if (line.startsWith(ALLOWED_LIST_KEY))
            {
                return Optional.of(line.substring(ALLOWED_LIST_KEY.length()));
            }
        }
        return Optional.empty();
    }
}
