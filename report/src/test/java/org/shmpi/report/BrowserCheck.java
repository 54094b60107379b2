package org.shmpi.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders an HTML page in headless Chromium through {@code tests/browser/chromium-render} and
 * hands back what a test checks: the screenshot, the DOM after the page's scripts ran and the
 * page's errors. Where Chromium cannot be had (the script exits 77) the result is skipped with
 * the script's SKIP line; a test turns that into a skipped test with {@link Rendering#assumeRendered()}.
 * For tests in other modules too (the report module's test jar).
 */
public final class BrowserCheck
{
    /** The script, relative to the repository's root. */
    public static final String SCRIPT = "tests/browser/chromium-render";
    /** Longest a rendering may take, installing Chromium included. */
    private static final long TIMEOUT_SECONDS = 300;

    private BrowserCheck()
    {
    }

    /** What one rendering gave. */
    public static final class Rendering
    {
        private final String skipped;
        private final Path screenshot;
        private final String dom;
        private final List<String> consoleErrors;
        private final String output;

        Rendering(final String skipped, final Path screenshot, final String dom, final List<String> consoleErrors,
            final String output)
        {
            this.skipped = skipped;
            this.screenshot = screenshot;
            this.dom = dom;
            this.consoleErrors = consoleErrors;
            this.output = output;
        }

        /** The script's SKIP line when Chromium could not be had, else null. */
        public String skipped()
        {
            return skipped;
        }

        /** Skips the calling test (JUnit assumption) with the SKIP line when nothing was rendered. */
        public Rendering assumeRendered()
        {
            org.junit.jupiter.api.Assumptions.assumeTrue(skipped == null, skipped);
            return this;
        }

        /** The screenshot (PNG), 1280 by 2000 pixels. */
        public Path screenshot()
        {
            return screenshot;
        }

        /** The DOM after the page's scripts ran, as HTML. */
        public String dom()
        {
            return dom;
        }

        /**
         * Every error the page made: console errors and uncaught exceptions in Chromium's log, and
         * the count the page's own script keeps in {@code data-errors} when it is not 0.
         */
        public List<String> errors()
        {
            final List<String> all = new ArrayList<>(consoleErrors);
            final Matcher m = Pattern.compile("<html[^>]*\\sdata-errors=\"(\\d+)\"").matcher(dom);
            if (m.find() && !"0".equals(m.group(1)))
            {
                final Matcher last = Pattern.compile("<html[^>]*\\sdata-last-error=\"([^\"]*)\"").matcher(dom);
                all.add("the page counted " + m.group(1) + " errors" + (last.find() ? ", the last: " + last.group(1)
                    : ""));
            }
            return all;
        }

        /** What the script printed (for failure messages). */
        public String output()
        {
            return output;
        }
    }

    /** The repository's root: the nearest folder at or above the working directory that holds {@link #SCRIPT}. */
    public static Path repositoryRoot()
    {
        Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (p != null)
        {
            if (Files.isExecutable(p.resolve(SCRIPT)))
            {
                return p;
            }
            p = p.getParent();
        }
        throw new IllegalStateException("no " + SCRIPT + " at or above " + System.getProperty("user.dir"));
    }

    /** Renders {@code page} into {@code outDir} (screenshot.png, dom.html, console.log). */
    public static Rendering render(final Path page, final Path outDir) throws IOException, InterruptedException
    {
        final Path script = repositoryRoot().resolve(SCRIPT);
        final Process p = new ProcessBuilder(script.toString(), page.toAbsolutePath().toString(),
            outDir.toAbsolutePath().toString()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        final CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError(SCRIPT + " took longer than " + TIMEOUT_SECONDS + " s");
        }
        final String output = out.join();
        if (p.exitValue() == 77)
        {
            for (final String l : output.split("\n"))
            {
                if (l.startsWith("SKIP:"))
                {
                    return new Rendering(l, null, "", List.of(), output);
                }
            }
            return new Rendering("SKIP: " + SCRIPT + " exited 77: " + output.strip(), null, "", List.of(), output);
        }
        if (p.exitValue() != 0)
        {
            throw new AssertionError(SCRIPT + " exited " + p.exitValue() + ":\n" + output);
        }
        final List<String> errors = new ArrayList<>();
        for (final String l : output.split("\n"))
        {
            if (l.startsWith("console error: "))
            {
                errors.add(l.substring("console error: ".length()));
            }
        }
        final String dom = Files.readString(outDir.resolve("dom.html"), StandardCharsets.UTF_8);
        return new Rendering(null, outDir.resolve("screenshot.png"), dom, errors, output);
    }

    private static String read(final InputStream in)
    {
        try (in)
        {
            final ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
