package org.shmpi.affinity;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * An immutable set of CPU ids, written in the Linux "cpulist" format used by
 * {@code /sys/devices/system/cpu/online}, {@code Cpus_allowed_list} and {@code taskset -c}.
 *
 * <p>Accepted syntax: comma-separated elements, each a single id {@code n}, a range
 * {@code a-b}, or a strided range {@code a-b:used/group} (from each group of {@code group} ids
 * starting at {@code a}, the first {@code used} ones). Whitespace around elements is ignored;
 * the empty string is the empty set. {@link #toString()} always gives the canonical form:
 * ascending, runs collapsed to {@code a-b}, e.g. {@code "0-3,8,10-11"}.
 *
 * <p>Stored as a sorted array of distinct ids, compact for the sparse sets that masks usually are.
 */
public final class CpuSet
{
    /** Largest CPU id accepted; bounds memory when parsing hostile input (Linux NR_CPUS is at most 8192). */
    public static final int MAX_CPU_ID = 65_535;

    private static final CpuSet EMPTY = new CpuSet(new int[0]);

    private final int[] ids;

    private CpuSet(final int[] sortedDistinctIds)
    {
        this.ids = sortedDistinctIds;
    }

    /** @return the empty set. */
    public static CpuSet empty()
    {
        return EMPTY;
    }

    /**
     * A set of the given ids, in any order, duplicates allowed.
     *
     * @param cpuIds CPU ids, each in {@code [0, MAX_CPU_ID]}
     * @return the set
     */
    public static CpuSet of(final int... cpuIds)
    {
        Objects.requireNonNull(cpuIds, "cpuIds");
        final BitSet bits = new BitSet();
        for (final int id : cpuIds)
        {
            checkId(id);
            bits.set(id);
        }
        return fromBits(bits);
    }

    /**
     * The ids {@code from..to}, both inclusive.
     *
     * @param from first id
     * @param to   last id, not below {@code from}
     * @return the set
     */
    public static CpuSet range(final int from, final int to)
    {
        checkId(from);
        checkId(to);
        if (to < from)
        {
            throw new IllegalArgumentException("empty range: from=" + from + ", to=" + to);
        }
        return new CpuSet(IntStream.rangeClosed(from, to).toArray());
    }

    /**
     * Parses the Linux cpulist format.
     *
     * @param text e.g. {@code "0-3,8,10-11"}; surrounding whitespace (a trailing newline) is ignored
     * @return the set
     * @throws IllegalArgumentException with {@code value=} naming the input when it is malformed
     */
    public static CpuSet parse(final String text)
    {
        Objects.requireNonNull(text, "text");
        final String trimmed = text.strip();
        if (trimmed.isEmpty())
        {
            return EMPTY;
        }
        final BitSet bits = new BitSet();
        for (final String rawElement : trimmed.split(",", -1))
        {
            final String element = rawElement.strip();
            if (element.isEmpty())
            {
                throw invalid(text, "empty element");
            }
            parseElement(text, element, bits);
        }
        return fromBits(bits);
    }

    private static void parseElement(final String text, final String element, final BitSet bits)
    {
        String rangePart = element;
        int used = 1;
        int group = 1;
        final int colon = element.indexOf(':');
        if (colon >= 0)
        {
            rangePart = element.substring(0, colon);
            final String stride = element.substring(colon + 1);
            final int slash = stride.indexOf('/');
            if (slash < 0)
            {
                throw invalid(text, "stride needs used/group: element=" + element);
            }
            used = parseNumber(text, stride.substring(0, slash));
            group = parseNumber(text, stride.substring(slash + 1));
            if (used < 1 || group < 1 || used > group)
            {
                throw invalid(text, "bad stride: element=" + element);
            }
        }
        final int dash = rangePart.indexOf('-');
        final int from;
        final int to;
        if (dash < 0)
        {
            if (colon >= 0)
            {
                throw invalid(text, "stride needs a range: element=" + element);
            }
            from = parseNumber(text, rangePart);
            to = from;
        }
        else
        {
            from = parseNumber(text, rangePart.substring(0, dash));
            to = parseNumber(text, rangePart.substring(dash + 1));
        }
        if (to < from)
        {
            throw invalid(text, "descending range: element=" + element);
        }
        for (int id = from; id <= to; id++)
        {
            if ((id - from) % group < used)
            {
                bits.set(id);
            }
        }
    }

    // Digits only: Integer.parseInt would also accept signs, which the kernel format never has.
    private static int parseNumber(final String text, final String token)
    {
        final String digits = token.strip();
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw invalid(text, "not a cpu number: token=" + token);
        }
        final int value = Integer.parseInt(digits);
        if (value > MAX_CPU_ID)
        {
            throw invalid(text, "cpu id too large: id=" + value + ", max=" + MAX_CPU_ID);
        }
        return value;
    }

    private static IllegalArgumentException invalid(final String text, final String reason)
    {
        return new IllegalArgumentException("invalid cpu list: value=\"" + text + "\", " + reason);
    }

    private static void checkId(final int id)
    {
        if (id < 0 || id > MAX_CPU_ID)
        {
            throw new IllegalArgumentException("cpu id out of range: id=" + id + ", max=" + MAX_CPU_ID);
        }
    }

    private static CpuSet fromBits(final BitSet bits)
    {
        return bits.isEmpty() ? EMPTY : new CpuSet(bits.stream().toArray());
    }

    /**
     * @param cpu a CPU id
     * @return whether it is in the set
     */
    public boolean contains(final int cpu)
    {
        return Arrays.binarySearch(ids, cpu) >= 0;
    }

    /**
     * @param other another set
     * @return whether every id of {@code other} is in this set
     */
    public boolean containsAll(final CpuSet other)
    {
        for (final int id : other.ids)
        {
            if (!contains(id))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the number of ids. */
    public int size()
    {
        return ids.length;
    }

    /** @return whether the set has no ids. */
    public boolean isEmpty()
    {
        return ids.length == 0;
    }

    /** @return the ids in ascending order, a fresh copy. */
    public int[] toArray()
    {
        return ids.clone();
    }

    /** @return the ids in ascending order. */
    public IntStream stream()
    {
        return Arrays.stream(ids);
    }

    /**
     * @param index position in ascending order
     * @return the id at that position
     */
    public int get(final int index)
    {
        if (index < 0 || index >= ids.length)
        {
            throw new IndexOutOfBoundsException("index=" + index + ", size=" + ids.length);
        }
        return ids[index];
    }

    /**
     * @return the smallest id
     * @throws java.util.NoSuchElementException if the set is empty
     */
    public int first()
    {
        if (ids.length == 0)
        {
            throw new java.util.NoSuchElementException("empty cpu set");
        }
        return ids[0];
    }

    /**
     * @return the largest id
     * @throws java.util.NoSuchElementException if the set is empty
     */
    public int last()
    {
        if (ids.length == 0)
        {
            throw new java.util.NoSuchElementException("empty cpu set");
        }
        return ids[ids.length - 1];
    }

    /**
     * @param other another set
     * @return ids in either set
     */
    public CpuSet union(final CpuSet other)
    {
        final BitSet bits = toBits();
        bits.or(other.toBits());
        return fromBits(bits);
    }

    /**
     * @param other another set
     * @return ids in both sets
     */
    public CpuSet intersect(final CpuSet other)
    {
        final BitSet bits = toBits();
        bits.and(other.toBits());
        return fromBits(bits);
    }

    /**
     * @param other another set
     * @return ids in this set and not in {@code other}
     */
    public CpuSet minus(final CpuSet other)
    {
        final BitSet bits = toBits();
        bits.andNot(other.toBits());
        return fromBits(bits);
    }

    private BitSet toBits()
    {
        final BitSet bits = new BitSet();
        for (final int id : ids)
        {
            bits.set(id);
        }
        return bits;
    }

    @Override
    public boolean equals(final Object o)
    {
        return this == o || (o instanceof CpuSet && Arrays.equals(ids, ((CpuSet)o).ids));
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(ids);
    }

    /** @return the canonical cpulist form, e.g. {@code "0-3,8,10-11"}; empty string for the empty set. */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < ids.length)
        {
            int j = i;
            while (j + 1 < ids.length && ids[j + 1] == ids[j] + 1)
            {
                j++;
            }
            if (sb.length() > 0)
            {
                sb.append(',');
            }
            sb.append(ids[i]);
            if (j > i)
            {
                sb.append('-').append(ids[j]);
            }
            i = j + 1;
        }
        return sb.toString();
    }
}
