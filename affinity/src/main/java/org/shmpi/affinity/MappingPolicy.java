package org.shmpi.affinity;

import java.util.Locale;
import java.util.Objects;

/** How ranks are bound to CPUs; see {@link RankMapper} for the exact placement of each. */
public enum MappingPolicy
{
    /** Each rank on one hardware thread, filling distinct cores before sharing any. */
    CORE,
    /** Each rank on every allowed CPU of one NUMA node, nodes taken round-robin. */
    NUMA,
    /** No binding: the kernel schedules the rank anywhere it is allowed. */
    NONE;

    /**
     * @param text {@code "core"}, {@code "numa"} or {@code "none"}, any case, surrounding blanks ignored
     * @return the policy
     * @throws IllegalArgumentException naming the value and the allowed ones
     */
    public static MappingPolicy parse(final String text)
    {
        Objects.requireNonNull(text, "text");
        for (final MappingPolicy policy : values())
        {
            if (policy.name().equalsIgnoreCase(text.strip()))
            {
                return policy;
            }
        }
        throw new IllegalArgumentException("unknown mapping policy: value=" + text + ", allowed=core,numa,none");
    }

    /** @return the lower-case name {@link #parse(String)} accepts. */
    public String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
