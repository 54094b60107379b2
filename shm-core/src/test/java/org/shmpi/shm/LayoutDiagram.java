package org.shmpi.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the bit-ruler diagram out of a layout class's Javadoc, so a test can compare it with the
 * constants. Rows look like {@code |   Label   |  12  notes}; slot rows like {@code +8  label  notes}.
 */
public final class LayoutDiagram
{
    private static final Pattern ROW = Pattern.compile("^\\s*\\*\\s+\\|\\s+(\\S.*?)\\s+\\|\\s+(\\d+)(?:\\s.*)?$");
    private static final Pattern RELATIVE_ROW = Pattern.compile("^\\s*\\*\\s+\\+(\\d+)\\s+(\\S.*?)(?:\\s{2,}.*)?$");

    /** One labelled row of a diagram. */
    public record Row(String label, int offset)
    {
    }

    /** A field as the code defines it: where it starts and how many bytes it takes. */
    public record Field(String name, int offset, int size)
    {
        public int end()
        {
            return offset + size;
        }
    }

    private LayoutDiagram()
    {
    }

    /** The class Javadoc (everything before the class declaration) of a main source file. */
    public static List<String> javadocOf(final String relativeSource) throws IOException
    {
        final Path base = Path.of(System.getProperty("basedir", "."));
        final Path source = base.resolve("src/main/java").resolve(relativeSource);
        final List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
        final List<String> doc = new ArrayList<>();
        for (final String line : lines)
        {
            if (line.startsWith("public final class") || line.startsWith("final class"))
            {
                break;
            }
            doc.add(line);
        }
        return doc;
    }

    /**
     * Fails unless the fields, in the given order, are ascending, do not overlap, and each is
     * naturally aligned (a 4-byte field on 4, an 8-byte field on 8: atomic access needs it).
     */
    public static void checkDisjointAndAligned(final List<Field> fields)
    {
        for (int i = 0; i < fields.size(); i++)
        {
            final Field f = fields.get(i);
            if (f.offset() % f.size() != 0)
            {
                throw new AssertionError("field not naturally aligned: " + f);
            }
            if (i > 0 && fields.get(i - 1).end() > f.offset())
            {
                throw new AssertionError("fields overlap: " + fields.get(i - 1) + " and " + f);
            }
        }
    }

    /** Rows of the form {@code | label | offset}, in document order. */
    public static List<Row> absoluteRows(final List<String> doc)
    {
        final List<Row> rows = new ArrayList<>();
        for (final String line : doc)
        {
            final Matcher m = ROW.matcher(line);
            if (m.matches())
            {
                rows.add(new Row(m.group(1), Integer.parseInt(m.group(2))));
            }
        }
        return rows;
    }

    /** Rows of the form {@code +offset label}, in document order. */
    public static List<Row> relativeRows(final List<String> doc)
    {
        final List<Row> rows = new ArrayList<>();
        for (final String line : doc)
        {
            final Matcher m = RELATIVE_ROW.matcher(line);
            if (m.matches())
            {
                rows.add(new Row(m.group(2), Integer.parseInt(m.group(1))));
            }
        }
        return rows;
    }
}
