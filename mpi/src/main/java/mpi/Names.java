package mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.shmpi.shm.ErrorClass;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.Processes;

/**
 * The name service ({@code publishName}, {@code lookupName}, {@code unpublishName}): one file per
 * published service in {@code names/} of the user's shmpi directory (0700, so other users see
 * nothing), named by the SHA-256 of the service name and holding four lines: the service, the
 * port, and the pid and start time of the process that published it. Every job of the user on the
 * machine sees the same directory. A name is published by creating its file with a hard link (it
 * fails when the file exists: two publishers of one name never both win); it is removed by
 * {@code unpublishName}, at the publisher's {@code MPI.Finalize}, or by the first lookup or
 * publish that finds its publisher gone (a job that died).
 */
final class Names
{
    /**
     * Services this process published and has not unpublished (removed at Finalize), with who
     * asked: {@link #HERE} for this process, else the world rank on another node it serves.
     */
    private static final Map<Path, Integer> MINE = new ConcurrentHashMap<>();
    static final int HERE = -1;
    private static volatile Path directory;

    private Names()
    {
    }

    /** Where the names live for jobs of this user under {@code shmDir} (Init). */
    static void start(final String shmDir)
    {
        directory = JobDirectory.userRoot(shmDir).resolve("names");
    }

    /** Removes what this process published (Finalize). */
    static void stop()
    {
        for (final Path p : MINE.keySet())
        {
            try
            {
                Files.deleteIfExists(p);
            }
            catch (final IOException ignored)
            {
                // the next lookup finds the publisher gone and removes it
            }
        }
        MINE.clear();
        // The directory goes when it is empty (another job may publish into it right now: then it stays).
        final Path d = directory;
        if (d != null)
        {
            try
            {
                Files.deleteIfExists(d);
            }
            catch (final IOException notEmpty)
            {
                // names of other jobs are in it
            }
        }
    }

    /**
     * Whether this rank's names are served by world rank 0 (a job over several nodes, this rank
     * on another node than rank 0): the names of a job are those of its first node's machine.
     */
    private static boolean served()
    {
        final org.shmpi.shm.JobFile job = MPI.context().job();
        return !job.singleNode() && job.node(MPI.COMM_WORLD.myRank) != job.node(0);
    }

    static void publish(final String service, final String port)
    {
        checkService(service);
        if (served())
        {
            Ports.askNames(Ports.KIND_PUBLISH, service, port);
            return;
        }
        publish(service, port, HERE);
    }

    static void unpublish(final String service, final String port)
    {
        checkService(service);
        if (served())
        {
            Ports.askNames(Ports.KIND_UNPUBLISH, service, port);
            return;
        }
        unpublish(service, port, HERE);
    }

    static String lookup(final String service)
    {
        checkService(service);
        return served() ? Ports.askNames(Ports.KIND_LOOKUP, service, "") : lookupHere(service);
    }

    /** Publishes for {@code owner} ({@link #HERE}, or the rank on another node this process serves). */
    static void publish(final String service, final String port, final int owner)
    {
        if (port == null || port.isEmpty() || port.indexOf('\n') >= 0)
        {
            throw new MPIException(ErrorClass.ERR_PORT, "publishName: not a port name: " + port);
        }
        final Path file = file(service);
        final String content = service + "\n" + port + "\n" + ProcessHandle.current().pid() + "\n" +
            Processes.selfStartMillis() + "\n";
        try
        {
            final Path tmp = temporary();
            try
            {
                Files.writeString(tmp, content, StandardCharsets.UTF_8);
                for (int attempt = 0; ; attempt++)
                {
                    try
                    {
                        Files.createLink(file, tmp);
                        MINE.put(file, owner);
                        return;
                    }
                    catch (final FileAlreadyExistsException ex)
                    {
                        final String[] held = read(file);
                        if (held != null && held[0].equals(service) && alive(held) || attempt > 0)
                        {
                            throw new MPIException(ErrorClass.ERR_SERVICE, "publishName: '" + service +
                                "' is published already" + (held != null ? " (port " + held[1] + ", process " +
                                held[2] + ")" : ""));
                        }
                        // Its publisher is gone: the name is free.
                        Files.deleteIfExists(file);
                    }
                }
            }
            finally
            {
                Files.deleteIfExists(tmp);
            }
        }
        catch (final IOException ex)
        {
            throw new MPIException(ErrorClass.ERR_SERVICE, "publishName: cannot write " + file + ": " +
                ex.getMessage());
        }
    }

    /**
     * A temporary file in the names directory, made first if need be (another job's Finalize may
     * remove the directory, empty, between the two steps: then again).
     */
    private static Path temporary() throws IOException
    {
        for (int attempt = 0; ; attempt++)
        {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
            try
            {
                return Files.createTempFile(directory, ".publish-", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            catch (final NoSuchFileException ex)
            {
                if (attempt >= 10)
                {
                    throw ex;
                }
            }
        }
    }

    static void unpublish(final String service, final String port, final int owner)
    {
        final Path file = file(service);
        final String[] held = read(file);
        if (held == null || !held[0].equals(service) || !alive(held))
        {
            throw new MPIException(ErrorClass.ERR_SERVICE, "unpublishName: '" + service + "' is not published");
        }
        if (!held[1].equals(port) || !Integer.valueOf(owner).equals(MINE.get(file)))
        {
            throw new MPIException(ErrorClass.ERR_SERVICE, "unpublishName: '" + service + "' is published by " +
                "another process or for another port (" + held[1] + ")");
        }
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            throw new MPIException(ErrorClass.ERR_SERVICE, "unpublishName: cannot remove " + file + ": " +
                ex.getMessage());
        }
        MINE.remove(file);
    }

    static String lookupHere(final String service)
    {
        final Path file = file(service);
        final String[] held = read(file);
        if (held != null && held[0].equals(service) && !alive(held))
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignored)
            {
                // another lookup removed it
            }
        }
        else if (held != null && held[0].equals(service))
        {
            return held[1];
        }
        throw new MPIException(ErrorClass.ERR_NAME, "lookupName: no service '" + service + "' is published");
    }

    private static void checkService(final String service)
    {
        if (service == null || service.isEmpty())
        {
            throw new MPIException(ErrorClass.ERR_ARG, "a service name must not be null or empty");
        }
        if (directory == null)
        {
            throw new MPIException(ErrorClass.ERR_OTHER, "the name service starts with MPI.Init");
        }
    }

    private static Path file(final String service)
    {
        try
        {
            final byte[] d = MessageDigest.getInstance("SHA-256").digest(service.getBytes(StandardCharsets.UTF_8));
            final StringBuilder b = new StringBuilder("service-");
            for (final byte x : d)
            {
                b.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
            }
            return directory.resolve(b.toString());
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is part of every JDK", ex);
        }
    }

    /** {service, port, pid, start} of a name's file, or null when there is none (or it is torn). */
    private static String[] read(final Path file)
    {
        try
        {
            final List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
            return lines.size() >= 4 ? lines.subList(0, 4).toArray(new String[0]) : null;
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new MPIException(ErrorClass.ERR_NAME, "cannot read " + file + ": " + ex.getMessage());
        }
    }

    private static boolean alive(final String[] held)
    {
        try
        {
            return Processes.isAlive(Long.parseLong(held[2]), Long.parseLong(held[3]));
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }
}
