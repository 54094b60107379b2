package org.shmpi.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A CSV table as RFC 4180 has it: comma separated, CRLF line ends, fields quoted where needed. */
final class Csv
{
    private final StringBuilder out = new StringBuilder(4096);

    /** A table with this header line. */
    Csv(final String... header)
    {
        row((Object[]) header);
    }

    /** One row; null is an empty field. */
    Csv row(final Object... fields)
    {
        for (int i = 0; i < fields.length; i++)
        {
            if (i > 0)
            {
                out.append(',');
            }
            out.append(field(fields[i] == null ? "" : String.valueOf(fields[i])));
        }
        out.append("\r\n");
        return this;
    }

    String text()
    {
        return out.toString();
    }

    void writeTo(final Path file) throws IOException
    {
        Files.writeString(file, out, StandardCharsets.UTF_8);
    }

    /** {@code s} as one field: quoted (quotes doubled) when it holds a comma, quote or line break. */
    static String field(final String s)
    {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0)
        {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
