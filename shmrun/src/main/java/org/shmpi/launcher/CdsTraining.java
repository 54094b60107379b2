package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import mpi.MPI;
import mpi.Request;
import org.shmpi.affinity.Topology;

/**
 * What the class-data archive of shmpi is made from ({@link ClassDataArchive}): run once with
 * {@code -XX:ArchiveClassesAtExit}, as a job of one rank, it goes through what a short job does
 * (start-up, point-to-point in every common form, a barrier, shut-down), so that the classes,
 * lambdas and method handles on that path are archived, and it loads every other class of
 * shmpi's jars without initializing them.
 */
public final class CdsTraining
{
    private CdsTraining()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        MPI.Init(args);
        final int[] out = {42};
        final int[] in = new int[1];
        for (int i = 0; i < 1_000; i++)
        {
            final Request r = MPI.COMM_WORLD.iRecv(in, 1, MPI.INT, 0, 1);
            MPI.COMM_WORLD.send(out, 1, MPI.INT, 0, 1);
            r.waitFor();
            MPI.COMM_WORLD.iSend(out, 1, MPI.INT, 0, 2).waitFor();
            MPI.COMM_WORLD.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
            MPI.COMM_WORLD.recv(in, 1, MPI.INT, MPI.ANY_SOURCE, 2);
            MPI.COMM_WORLD.sendRecv(out, 1, MPI.INT, 0, 3, in, 1, MPI.INT, 0, 3);
        }
        MPI.COMM_WORLD.barrier();
        try
        {
            filePath();
        }
        catch (final IOException | RuntimeException ex)
        {
            // No writable temporary directory: the archive goes without the file path.
        }
        MPI.Finalize();
        launcherPath();
        loadShmpiClasses();
    }

    /**
     * MPI-IO as a short job does it: a file opened, written and read through each kind of
     * pointer, synced and closed. Its lambdas and method handles are linked here, so a job that
     * writes a file does not spin their classes at run time, where each one also queues work
     * for the JIT compiler on the rank's core.
     */
    private static void filePath() throws IOException
    {
        final File dir = java.nio.file.Files.createTempDirectory("shmpi-cds-").toFile();
        try
        {
            final mpi.File f = new mpi.File(MPI.COMM_WORLD, new File(dir, "training.dat").getPath(),
                MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
            final byte[] b = new byte[4096];
            final int[] ints = new int[1024];
            for (int i = 0; i < 300; i++)
            {
                f.writeAt(4096L * (i % 8), b, b.length, MPI.BYTE);
                f.readAt(4096L * (i % 8), b, b.length, MPI.BYTE);
                f.writeAt(4096L * (i % 8), ints, ints.length, MPI.INT);
                f.readAtAll(4096L * (i % 8), ints, ints.length, MPI.INT);
            }
            f.writeShared(b, b.length, MPI.BYTE);
            f.writeOrdered(b, b.length, MPI.BYTE);
            f.seek(0, MPI.SEEK_SET);
            f.read(b, b.length, MPI.BYTE);
            f.write(b, b.length, MPI.BYTE);
            f.setView(0, MPI.INT, MPI.INT, "native");
            f.writeAll(ints, ints.length, MPI.INT);
            f.getSize();
            f.sync();
            f.close();
        }
        finally
        {
            dir.delete();
        }
    }

    /** What the launcher itself runs before its first rank starts (it uses the archive too). */
    private static void launcherPath() throws IOException
    {
        LaunchOptions.parse(new String[] {"-np", "2", "--report-bindings", "-cp", ".", "Main", "arg"}, System.getenv());
        RankPlacement.decide(null, Topology.detect(System.getProperties()), 2);
        final Process p = new ProcessBuilder("/bin/sh", "-c", "exit 0")
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try
        {
            p.waitFor();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void loadShmpiClasses() throws IOException
    {
        final ClassLoader loader = CdsTraining.class.getClassLoader();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (!new File(entry).getName().startsWith("shmpi-") || !entry.endsWith(".jar"))
            {
                continue;
            }
            try (JarFile jar = new JarFile(entry))
            {
                final Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements())
                {
                    final String name = entries.nextElement().getName();
                    if (name.endsWith(".class") && !name.contains("-"))
                    {
                        try
                        {
                            Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                        }
                        catch (final ClassNotFoundException | LinkageError ignore)
                        {
                            // Not loadable here (an optional dependency): not archived.
                        }
                    }
                }
            }
        }
    }
}
