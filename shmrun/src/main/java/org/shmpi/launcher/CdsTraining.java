package org.shmpi.launcher;

import java.io.File;
import java.io.IOException;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import org.shmpi.affinity.Topology;

/**
 * What the class-data archive of shmpi is made from ({@link ClassDataArchive}): run once with
 * {@code -XX:ArchiveClassesAtExit} as rank 0 of a job of two ranks, it goes through what a short
 * job does (start-up, point-to-point in every common form, the common collectives, a file,
 * shut-down), so that the classes, lambdas and method handles on that path are archived, and it
 * loads every other class of shmpi's jars without initializing them. It also runs as a job of
 * one rank, or of more.
 */
public final class CdsTraining
{
    private CdsTraining()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        MPI.Init(args);
        final Intracomm world = MPI.COMM_WORLD;
        final int rank = world.getRank();
        final int size = world.getSize();
        final int to = (rank + 1) % size;
        final int from = (rank + size - 1) % size;
        final int[] out = {42};
        final int[] in = new int[1];
        for (int i = 0; i < 1_000; i++)
        {
            // Every message here is small, so every send completes eagerly: no order can deadlock.
            final Request r = world.iRecv(in, 1, MPI.INT, from, 1);
            world.send(out, 1, MPI.INT, to, 1);
            r.waitFor();
            world.iSend(out, 1, MPI.INT, to, 2).waitFor();
            world.probe(MPI.ANY_SOURCE, MPI.ANY_TAG);
            world.recv(in, 1, MPI.INT, MPI.ANY_SOURCE, 2);
            world.sendRecv(out, 1, MPI.INT, to, 3, in, 1, MPI.INT, from, 3);
        }
        world.barrier();
        collectives(world);
        // Rank 0 makes the directory of the file all ranks open; "" when it cannot.
        final char[] dir = new char[4096];
        final int[] length = new int[1];
        if (rank == 0)
        {
            try
            {
                final String path = java.nio.file.Files.createTempDirectory("shmpi-cds-").toString();
                path.getChars(0, path.length(), dir, 0);
                length[0] = path.length();
            }
            catch (final IOException | RuntimeException ex)
            {
                // No writable temporary directory: the archive goes without the file path.
            }
        }
        world.bcast(length, 1, MPI.INT, 0);
        world.bcast(dir, length[0], MPI.CHAR, 0);
        if (length[0] > 0)
        {
            try
            {
                filePath(new File(new String(dir, 0, length[0])));
            }
            catch (final RuntimeException ex)
            {
                // The file system refused (full, read-only): the archive goes without the rest.
            }
            world.barrier();
            if (rank == 0)
            {
                new File(new String(dir, 0, length[0])).delete();
            }
        }
        MPI.Finalize();
        if (rank == 0)
        {
            launcherPath();
            loadShmpiClasses();
        }
    }

    /**
     * The collectives a short job calls, on the world and on a communicator split from it. They
     * are built from lambdas and method references (one per step of each algorithm), which only
     * a job of more than one rank links: the archive build runs this class as rank 0 of a job of
     * two ({@link ClassDataArchive#DUMP_PROP}).
     */
    private static void collectives(final Intracomm world)
    {
        final int size = world.getSize();
        final Intracomm half = world.split(world.getRank() % 2, 0);
        final Intracomm copy = world.dup();
        // Only rank 0 writes the archive, and some steps run on one side only (a tree's sender
        // or receiver, the root or not): in this one, rank 0 is last.
        final Intracomm reversed = world.split(0, size - world.getRank());
        final int[] one = new int[8];
        final double[] d = new double[8];
        final double[] dsum = new double[8];
        final int[] all = new int[8 * size];
        for (int i = 0; i < 100; i++)
        {
            for (final Intracomm c : new Intracomm[] {world, half, copy, reversed})
            {
                c.barrier();
                c.bcast(one, one.length, MPI.INT, 0);
                c.allReduce(d, dsum, d.length, MPI.DOUBLE, MPI.SUM);
                c.allReduce(one, all, one.length, MPI.INT, MPI.MAX);
                c.reduce(d, dsum, d.length, MPI.DOUBLE, MPI.SUM, 0);
                c.gather(one, one.length, MPI.INT, all, one.length, MPI.INT, 0);
                c.allGather(one, one.length, MPI.INT, all, one.length, MPI.INT);
                c.scatter(all, one.length, MPI.INT, one, one.length, MPI.INT, 0);
                c.allToAll(all, 8, MPI.INT, all.clone(), 8, MPI.INT);
                c.iBarrier().waitFor();
            }
        }
        reversed.free();
        copy.free();
        half.free();
    }

    /**
     * MPI-IO as a short job does it: a file opened, written and read through each kind of
     * pointer, synced and closed. Its lambdas and method handles are linked here, so a job that
     * writes a file does not spin their classes at run time, where each one also queues work
     * for the JIT compiler on the rank's core.
     */
    private static void filePath(final File dir)
    {
        final int rank = MPI.COMM_WORLD.getRank();
        final String name = new File(dir, "training.dat").getPath();
        final mpi.File f =
            new mpi.File(MPI.COMM_WORLD, name, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE);
        final byte[] b = new byte[4096];
        final int[] ints = new int[1024];
        for (int i = 0; i < 300; i++)
        {
            final long at = 4096L * (rank * 8 + i % 8);
            f.writeAt(at, b, b.length, MPI.BYTE);
            f.readAt(at, b, b.length, MPI.BYTE);
            f.writeAt(at, ints, ints.length, MPI.INT);
            f.readAtAll(at, ints, ints.length, MPI.INT);
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
        // A file that stays: appends, then close gives back the blocks reserved ahead.
        final mpi.File g = new mpi.File(MPI.COMM_WORLD, name, MPI.MODE_CREATE | MPI.MODE_WRONLY);
        for (int i = 0; i < 20; i++)
        {
            g.writeShared(b, b.length, MPI.BYTE);
        }
        g.close();
        MPI.COMM_WORLD.barrier();
        if (rank == 0)
        {
            mpi.File.delete(name);
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
