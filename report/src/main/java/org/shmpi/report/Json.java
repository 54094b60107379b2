package org.shmpi.report;

/**
 * A small JSON writer: objects, arrays, strings, integers, numbers, booleans and null, with
 * commas placed by the writer. Containers up to {@link #PRETTY_DEPTH} deep start each element on
 * a line of its own, deeper ones stay on one line (a matrix row is one line).
 */
final class Json
{
    private static final int PRETTY_DEPTH = 2;
    private static final int MAX_DEPTH = 64;

    private final StringBuilder out = new StringBuilder(1 << 16);
    /** Per open container: whether it has an element yet. */
    private final boolean[] hasElement = new boolean[MAX_DEPTH];
    private int depth;
    /** A name was just written: the next value belongs to it. */
    private boolean afterName;

    Json beginObject()
    {
        return open('{');
    }

    Json endObject()
    {
        return close('}');
    }

    Json beginArray()
    {
        return open('[');
    }

    Json endArray()
    {
        return close(']');
    }

    /** The name of the next value in an object. */
    Json name(final String name)
    {
        separate();
        string(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    Json value(final long v)
    {
        separate();
        out.append(v);
        return this;
    }

    Json value(final boolean v)
    {
        separate();
        out.append(v);
        return this;
    }

    /** A number; NaN and infinities are written as null (JSON has no such numbers). */
    Json value(final double v)
    {
        separate();
        if (Double.isNaN(v) || Double.isInfinite(v))
        {
            out.append("null");
        }
        else
        {
            out.append(v);
        }
        return this;
    }

    /** A string, or null. */
    Json value(final String v)
    {
        separate();
        if (v == null)
        {
            out.append("null");
        }
        else
        {
            string(v);
        }
        return this;
    }

    /** An integer, or null. */
    Json value(final Integer v)
    {
        separate();
        out.append(v == null ? "null" : v.toString());
        return this;
    }

    /** An array of integers, on one line. */
    Json values(final long[] vs)
    {
        beginArray();
        for (final long v : vs)
        {
            value(v);
        }
        return endArray();
    }

    Json field(final String name, final long v)
    {
        return name(name).value(v);
    }

    Json field(final String name, final String v)
    {
        return name(name).value(v);
    }

    Json field(final String name, final boolean v)
    {
        return name(name).value(v);
    }

    Json field(final String name, final double v)
    {
        return name(name).value(v);
    }

    /** The document; every container must be closed. */
    String text()
    {
        if (depth != 0)
        {
            throw new IllegalStateException("open containers: depth=" + depth);
        }
        return out.toString() + "\n";
    }

    /** {@code s} as a JSON string literal, quotes included. */
    static String quote(final String s)
    {
        final Json j = new Json();
        j.string(s);
        return j.out.toString();
    }

    private Json open(final char c)
    {
        separate();
        if (depth == MAX_DEPTH)
        {
            throw new IllegalStateException("too deep: depth=" + depth);
        }
        out.append(c);
        hasElement[depth++] = false;
        return this;
    }

    private Json close(final char c)
    {
        if (depth == 0)
        {
            throw new IllegalStateException("nothing to close with " + c);
        }
        depth--;
        if (hasElement[depth] && depth < PRETTY_DEPTH)
        {
            newline(depth);
        }
        out.append(c);
        return this;
    }

    /** Before a name, or a value that has no name: the comma and the line break. */
    private void separate()
    {
        if (afterName)
        {
            afterName = false;
            return;
        }
        if (depth == 0)
        {
            return;
        }
        if (hasElement[depth - 1])
        {
            out.append(',');
            if (depth > PRETTY_DEPTH)
            {
                out.append(' ');
            }
        }
        hasElement[depth - 1] = true;
        if (depth <= PRETTY_DEPTH)
        {
            newline(depth);
        }
    }

    private void newline(final int indent)
    {
        out.append('\n');
        for (int i = 0; i < indent; i++)
        {
            out.append("  ");
        }
    }

    private void string(final String s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20 || c == '\u2028' || c == '\u2029')
                    {
                        out.append(String.format("\\u%04x", (int) c));
                    }
                    else
                    {
                        out.append(c);
                    }
                    break;
            }
        }
        out.append('"');
    }
}
