package org.shmpi.shm.settings;

import java.util.Locale;

/**
 * One {@code shmpi.*} setting, declared once in {@link SettingsRegistry}: its name, what it
 * means, its default, and what values it takes. It is read the same way everywhere: a system
 * property ({@code -Dshmpi.a.b=v}, which {@code shmrun --mca a.b v} passes on), else the
 * environment variable {@code SHMPI_A_B}, else the default.
 */
public final class Setting
{
    /** What kind of value a setting takes. */
    public enum Kind
    {
        /** Any text (a path, a list of flags). */
        TEXT,
        /** A whole number within [min, max], a power of two if so declared. */
        NUMBER,
        /** {@code true} or {@code false}, in any case. */
        BOOLEAN,
        /** One of a few words, in any case. */
        CHOICE
    }

    private final String name;
    private final String area;
    private final Kind kind;
    private final String defaultValue;
    private final long min;
    private final long max;
    private final boolean powerOfTwo;
    private final long multiple;
    private final String[] choices;
    private final String meaning;

    private Setting(
        final String name, final String area, final Kind kind, final String defaultValue, final long min,
        final long max, final boolean powerOfTwo, final long multiple, final String[] choices, final String meaning)
    {
        this.multiple = multiple;
        this.name = name;
        this.area = area;
        this.kind = kind;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.powerOfTwo = powerOfTwo;
        this.choices = choices;
        this.meaning = meaning;
    }

    /** A text setting; {@code defaultValue} null means unset (the reader decides). */
    static Setting text(final String name, final String area, final String defaultValue, final String meaning)
    {
        return new Setting(name, area, Kind.TEXT, defaultValue, 0, 0, false, 1, null, meaning);
    }

    /** A whole number in [{@code min}, {@code max}]. */
    static Setting number(
        final String name, final String area, final long defaultValue, final long min, final long max,
        final String meaning)
    {
        return new Setting(name, area, Kind.NUMBER, Long.toString(defaultValue), min, max, false, 1, null, meaning);
    }

    /** A power of two in [{@code min}, {@code max}]. */
    static Setting powerOfTwo(
        final String name, final String area, final long defaultValue, final long min, final long max,
        final String meaning)
    {
        return new Setting(name, area, Kind.NUMBER, Long.toString(defaultValue), min, max, true, 1, null, meaning);
    }

    /**
     * A multiple of {@code multiple} in [{@code min}, {@code max}]; a null {@code defaultValue}
     * means the default depends on the job ({@code meaning} says how).
     */
    static Setting multipleOf(
        final String name, final String area, final Long defaultValue, final long multiple, final long min,
        final long max, final String meaning)
    {
        return new Setting(name, area, Kind.NUMBER, defaultValue == null ? null : defaultValue.toString(), min, max,
            false, multiple, null, meaning);
    }

    /** {@code true} or {@code false}. */
    static Setting bool(final String name, final String area, final boolean defaultValue, final String meaning)
    {
        return new Setting(name, area, Kind.BOOLEAN, Boolean.toString(defaultValue), 0, 0, false, 1, null, meaning);
    }

    /** One of {@code choices}; the first is the default. */
    static Setting choice(final String name, final String area, final String meaning, final String... choices)
    {
        return new Setting(name, area, Kind.CHOICE, choices[0], 0, 0, false, 1, choices, meaning);
    }

    /** The property name, {@code shmpi.a.b}. */
    public String name()
    {
        return name;
    }

    /** The environment variable that also sets it: {@code shmpi.a.b} is {@code SHMPI_A_B}. */
    public String envName()
    {
        return envName(name);
    }

    /** The environment variable of property {@code property}. */
    public static String envName(final String property)
    {
        return property.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The part of shmpi it tunes (a heading of docs/settings.md). */
    public String area()
    {
        return area;
    }

    public Kind kind()
    {
        return kind;
    }

    /** The default as text; null when unset by default. */
    public String defaultValue()
    {
        return defaultValue;
    }

    /** What it does, one or two sentences. */
    public String meaning()
    {
        return meaning;
    }

    /** What values it takes, in words. */
    public String allowed()
    {
        switch (kind)
        {
            case NUMBER:
                return (powerOfTwo ? "a power of two, " : multiple > 1 ? "a multiple of " + multiple + ", " : "") +
                    min + " to " + max;
            case BOOLEAN:
                return "true or false";
            case CHOICE:
                return String.join(", ", choices);
            default:
                return "text";
        }
    }

    /**
     * The value {@code text} normalised (trimmed; choices and booleans in lower case), or an
     * {@link IllegalArgumentException} naming the setting, the value and what it takes.
     */
    public String validate(final String text)
    {
        final String v = text.trim();
        switch (kind)
        {
            case NUMBER:
            {
                final long n;
                try
                {
                    n = Long.parseLong(v);
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalArgumentException("not a number: " + name + "=" + v, ex);
                }
                if (n < min || n > max)
                {
                    throw new IllegalArgumentException(
                        "out of range: " + name + "=" + v + ", allowed=[" + min + "," + max + "]");
                }
                if (powerOfTwo && Long.bitCount(n) != 1)
                {
                    throw new IllegalArgumentException("must be a power of two: " + name + "=" + v);
                }
                if (n % multiple != 0)
                {
                    throw new IllegalArgumentException("must be a multiple of " + multiple + ": " + name + "=" + v);
                }
                return v;
            }
            case BOOLEAN:
            {
                final String b = v.toLowerCase(Locale.ROOT);
                if (!b.equals("true") && !b.equals("false"))
                {
                    throw new IllegalArgumentException("not true or false: " + name + "=" + v);
                }
                return b;
            }
            case CHOICE:
            {
                final String c = v.toLowerCase(Locale.ROOT);
                for (final String allowed : choices)
                {
                    if (allowed.equals(c))
                    {
                        return c;
                    }
                }
                throw new IllegalArgumentException("bad " + name + ": " + v + " (" + allowed() + ")");
            }
            default:
                return text;
        }
    }

    @Override
    public String toString()
    {
        return name;
    }
}
