package org.shmpi.junit;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The class path the ranks of a test job get: this JVM's, with manifest-only jars (surefire's
 * booter jar, IDE short-classpath jars) opened into the entries they name, since such a jar may
 * be deleted while the job still runs.
 */
final class ClassPaths
{
    private ClassPaths()
    {
    }

    static List<String> ofThisJvm()
    {
        final Set<String> out = new LinkedHashSet<>();
        for (final String e : System.getProperty("java.class.path", "").split(File.pathSeparator))
        {
            if (!e.isEmpty())
            {
                expand(Path.of(e).toAbsolutePath(), out, 0);
            }
        }
        return new ArrayList<>(out);
    }

    private static void expand(final Path entry, final Set<String> out, final int depth)
    {
        if (!out.add(entry.toString()) || depth > 4 || !entry.toString().endsWith(".jar") ||
            !Files.isRegularFile(entry))
        {
            return;
        }
        try (JarFile jar = new JarFile(entry.toFile()))
        {
            final Manifest mf = jar.getManifest();
            final String cp = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
            if (cp == null || cp.isBlank())
            {
                return;
            }
            for (final String ref : cp.trim().split("\\s+"))
            {
                final Path p = resolve(entry, ref);
                if (p != null)
                {
                    expand(p, out, depth + 1);
                }
            }
        }
        catch (final IOException ex)
        {
            // Not a readable jar: the entry stays as it is.
        }
    }

    private static Path resolve(final Path jar, final String ref)
    {
        try
        {
            final URI base = jar.toUri();
            final URI u = base.resolve(ref);
            return "file".equals(u.getScheme()) ? Path.of(u).toAbsolutePath() : null;
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }
}
