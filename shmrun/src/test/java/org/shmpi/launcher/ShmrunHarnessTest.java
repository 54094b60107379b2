package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The harness's own checks, which every multi-process test relies on to say "nothing left". */
class ShmrunHarnessTest
{
    @TempDir
    Path tmp;

    @Test
    void aMissingUserRootMeansNothingIsLeft() throws IOException
    {
        assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(tmp.resolve("shmpi-nobody"), 42));
    }

    @Test
    void findsOnlyTheDirectoriesOfThatLauncher() throws IOException
    {
        final Path root = Files.createDirectory(tmp.resolve("shmpi-someone"));
        final Path mine = Files.createDirectory(root.resolve("42-1000"));
        Files.createDirectory(root.resolve("420-1000"));
        Files.createDirectory(root.resolve("7-42"));
        assertEquals(List.of(mine), ShmrunHarness.jobDirectoriesOf(root, 42));
    }

    /**
     * Another job (of another build) removes the empty user root while the harness looks for
     * leftovers. FORBIDDEN: the look failing (it did: NoSuchFileException in PointToPointApiIT).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aUserRootRemovedWhileListingMeansNothingIsLeft() throws Exception
    {
        final Path root = tmp.resolve("shmpi-racing");
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread toggler = new Thread(() ->
        {
            while (!done.get())
            {
                try
                {
                    Files.createDirectory(root);
                    Files.delete(root);
                }
                catch (final IOException ex)
                {
                    failure.compareAndSet(null, ex);
                    return;
                }
            }
        }, "root-toggler");
        toggler.start();
        try
        {
            for (int i = 0; i < 20_000; i++)
            {
                assertEquals(List.of(), ShmrunHarness.jobDirectoriesOf(root, 42));
            }
        }
        finally
        {
            done.set(true);
            toggler.join();
        }
        assertNull(failure.get());
        assertTrue(Files.notExists(root));
    }
}
