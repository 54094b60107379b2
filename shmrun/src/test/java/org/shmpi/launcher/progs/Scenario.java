package org.shmpi.launcher.progs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import mpi.MPI;
import mpi.MPIException;
import org.shmpi.shm.JobDirectory;
import org.shmpi.shm.Processes;

/**
 * One rank program with many behaviours, chosen by the first argument, so that the lifecycle
 * tests launch real jobs without a class per case. Lines it prints are parsed by the tests.
 */
public final class Scenario
{
    private Scenario()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String mode = args[0];
        final int target = args.length > 1 ? Integer.parseInt(args[1]) : -1;
        final int code = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        final int myRank = Integer.parseInt(System.getenv().getOrDefault("SHMPI_RANK", "0"));

        if (mode.equals("kill-before-init") && myRank == target)
        {
            killSelf();
        }
        if (mode.equals("never-init") && myRank == target)
        {
            Thread.sleep(120_000);
            return;
        }

        if (mode.equals("inbox-taken") && myRank == target)
        {
            // Something already sits where this rank's inbox goes: Init cannot create it.
            Files.createDirectory(Path.of(System.getenv("SHMPI_JOB_DIR"), "inbox-" + myRank));
        }
        if (mode.equals("kill-in-init") && myRank == code)
        {
            Thread.sleep(120_000);
            return;
        }
        if (mode.equals("kill-in-init") && myRank == target)
        {
            killSelfOnceInboxExists(Path.of(System.getenv("SHMPI_JOB_DIR"), "inbox-" + myRank));
        }
        if (mode.equals("init-fails-caught"))
        {
            initFailsCaught(args);
            return;
        }

        MPI.Init(args);
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final long pid = ProcessHandle.current().pid();
        switch (mode)
        {
            case "ok":
            {
                final int[] token = {rank};
                final int[] in = new int[1];
                final int next = (rank + 1) % size;
                final int prev = (rank + size - 1) % size;
                if (rank % 2 == 0)
                {
                    MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 1);
                    MPI.COMM_WORLD.recv(in, 1, MPI.INT, prev, 1);
                }
                else
                {
                    MPI.COMM_WORLD.recv(in, 1, MPI.INT, prev, 1);
                    MPI.COMM_WORLD.send(token, 1, MPI.INT, next, 1);
                }
                if (in[0] != prev)
                {
                    throw new IllegalStateException("rank " + rank + " got " + in[0] + " expected " + prev);
                }
                MPI.COMM_WORLD.barrier();
                System.out.println("OK rank=" + rank + " size=" + size + " pid=" + pid + " jobdir=" +
                    System.getenv("SHMPI_JOB_DIR"));
                break;
            }
            case "exit-code":
            case "throw":
            case "abort":
            case "kill-in-recv":
            {
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    System.out.println("FAIL_AT " + System.currentTimeMillis() + " pid=" + pid);
                    System.out.flush();
                    if (mode.equals("exit-code"))
                    {
                        System.exit(code);
                    }
                    if (mode.equals("throw"))
                    {
                        throw new IllegalStateException("boom from rank " + rank);
                    }
                    if (mode.equals("abort"))
                    {
                        MPI.COMM_WORLD.abort(code);
                    }
                    killSelf();
                }
                // Every other rank blocks in a receive from the failing rank.
                System.out.println("BLOCKED rank=" + rank + " pid=" + pid);
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, target, 99);
                System.out.println("UNEXPECTED rank " + rank + " returned from recv");
                break;
            }
            case "kill-in-allreduce":
            case "kill-in-iallgather":
            {
                // The others wait inside a collective for the rank that dies: in the shared-memory
                // allreduce (flags in the segment) or in a nonblocking allgather's schedule.
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    System.out.println("FAIL_AT " + System.currentTimeMillis() + " pid=" + pid);
                    System.out.flush();
                    killSelf();
                }
                System.out.println("BLOCKED rank=" + rank + " pid=" + pid);
                if (mode.equals("kill-in-allreduce"))
                {
                    MPI.COMM_WORLD.allReduce(new int[] {rank}, new int[1], 1, MPI.INT, MPI.SUM);
                }
                else
                {
                    final int n = MPI.COMM_WORLD.getSize();
                    MPI.COMM_WORLD.iAllGather(new int[] {rank}, 1, MPI.INT, new int[n], 1, MPI.INT).waitFor();
                }
                System.out.println("UNEXPECTED rank " + rank + " returned from the collective");
                break;
            }
            case "kill-holding-lock":
            case "kill-in-window-wait":
            {
                // The others wait on the window for the rank that dies: for the exclusive lock it
                // holds on rank 0's memory, or in wait for its complete (post/start/complete/wait).
                final mpi.Win win = new mpi.Win(8, 1, MPI.INFO_NULL, MPI.COMM_WORLD, MPI.newLongBuffer(1),
                    mpi.Win.FLAVOR_PRIVATE);
                final boolean lock = mode.equals("kill-holding-lock");
                if (rank == target && lock)
                {
                    win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
                }
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    System.out.println("FAIL_AT " + System.currentTimeMillis() + " pid=" + pid);
                    System.out.flush();
                    killSelf();
                }
                System.out.println("BLOCKED rank=" + rank + " pid=" + pid);
                if (lock)
                {
                    win.lock(MPI.LOCK_EXCLUSIVE, 0, 0);
                }
                else
                {
                    win.post(MPI.COMM_WORLD.getGroup().incl(new int[] {target}), 0);
                    win.waitFor();
                }
                System.out.println("UNEXPECTED rank " + rank + " returned from the window wait");
                break;
            }
            case "kill-after-file-sync":
            {
                // Every rank writes 1 MiB of its own into one file and syncs it; then one dies.
                final mpi.File f = new mpi.File(MPI.COMM_WORLD, args[3], MPI.MODE_CREATE | MPI.MODE_RDWR);
                final byte[] block = new byte[1 << 20];
                java.util.Arrays.fill(block, (byte)(rank + 1));
                f.writeAt((long)rank << 20, block, block.length, MPI.BYTE);
                f.sync();
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    System.out.println("FAIL_AT " + System.currentTimeMillis() + " pid=" + pid);
                    System.out.flush();
                    killSelf();
                }
                System.out.println("BLOCKED rank=" + rank + " pid=" + pid);
                MPI.COMM_WORLD.barrier();
                System.out.println("UNEXPECTED rank " + rank + " returned from the barrier");
                break;
            }
            case "kill-after-finalize":
                MPI.Finalize();
                if (rank == target)
                {
                    killSelf();
                }
                return;
            case "no-finalize":
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    System.exit(0);
                }
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, target, 99);
                break;
            case "block":
                System.out.println("READY rank=" + rank + " pid=" + pid + " jobdir=" + System.getenv("SHMPI_JOB_DIR"));
                System.out.flush();
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, (rank + 1) % size, 99);
                break;
            case "env":
                System.out.println("ENV rank=" + rank + " var=" + System.getenv("SHMPI_TEST_VAR") + " prop=" +
                    System.getProperty("shmpi.test.prop") + " ompi=" + System.getenv("OMPI_COMM_WORLD_RANK"));
                break;
            case "stdin":
                if (rank == 0)
                {
                    final BufferedReader in =
                        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    System.out.println("STDIN rank=0 line=" + in.readLine());
                }
                else
                {
                    System.out.println("STDIN rank=" + rank + " eof=" + (System.in.read() == -1));
                }
                break;
            case "lines":
            {
                final StringBuilder pad = new StringBuilder();
                for (int i = 0; i < 3000; i++)
                {
                    pad.append((char)('a' + rank));
                }
                for (int i = 0; i < 200; i++)
                {
                    System.out.println("rank " + rank + " line " + i + " " + pad);
                }
                break;
            }
            case "fatal-error":
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, 7, 0);
                    System.out.println("UNEXPECTED: the bad send returned");
                }
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, target, 99);
                break;
            case "call-errhandler":
                // Under the default ERRORS_ARE_FATAL, callErrhandler aborts the job with the code's class.
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    MPI.COMM_WORLD.callErrhandler(code);
                    System.out.println("UNEXPECTED: callErrhandler returned under ERRORS_ARE_FATAL");
                }
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, target, 99);
                break;
            case "file-call-errhandler":
            {
                // A file's handler set to ERRORS_ARE_FATAL: callErrhandler on it aborts the job with
                // the code's class. args[3]: the file, on rank target only.
                MPI.COMM_WORLD.barrier();
                if (rank == target)
                {
                    final mpi.File f = new mpi.File(MPI.COMM_SELF, args[3], MPI.MODE_CREATE | MPI.MODE_RDWR);
                    f.setErrhandler(MPI.ERRORS_ARE_FATAL);
                    f.callErrhandler(code);
                    System.out.println("UNEXPECTED: File.callErrhandler returned under ERRORS_ARE_FATAL");
                }
                MPI.COMM_WORLD.recv(new int[1], 1, MPI.INT, target, 99);
                break;
            }
            case "start-and-finalize":
                // What a rank sees before anything has set its error handler, and after Finalize.
                System.out.println("START rank=" + rank + " errhandler-fatal=" +
                    (MPI.COMM_WORLD.getErrhandler() == MPI.ERRORS_ARE_FATAL));
                MPI.Finalize();
                System.out.println("FINALIZED rank=" + rank + " isFinalized=" + MPI.isFinalized());
                return;
            case "size":
                System.out.println("SIZE rank=" + rank + " size=" + size + " jobdir=" + System.getenv("SHMPI_JOB_DIR"));
                break;
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
        MPI.Finalize();
    }

    /**
     * A singleton whose Init fails (the test makes it fail after the job directory exists)
     * catches the error and goes on: its job directory must be gone already, not at exit.
     */
    private static void initFailsCaught(final String[] args) throws IOException
    {
        final Path dir = JobDirectory.userRoot(System.getProperty("shmpi.shm.dir", "/dev/shm"))
            .resolve(ProcessHandle.current().pid() + "-" + Processes.selfStartMillis());
        try
        {
            MPI.Init(args);
            System.out.println("UNEXPECTED: Init succeeded");
        }
        catch (final MPIException ex)
        {
            System.out.println("INIT FAILED class=" + ex.getErrorClass() + " message=" + ex.getMessage());
        }
        System.out.println("AFTER INIT FAILURE initialized=" + MPI.isInitialized() + " left=" + Files.exists(dir));
    }

    /**
     * Kills this rank from a helper thread as soon as its inbox file exists: the main thread is
     * then inside MPI.Init (the test keeps another rank from ever initializing, so Init cannot
     * have returned).
     */
    private static void killSelfOnceInboxExists(final Path inbox)
    {
        final Thread killer = new Thread(() ->
        {
            try
            {
                while (!Files.exists(inbox))
                {
                    Thread.sleep(1);
                }
                killSelf();
            }
            catch (final IOException | InterruptedException ex)
            {
                System.out.println("UNEXPECTED killer failed: " + ex);
            }
        }, "killer");
        killer.setDaemon(true);
        killer.start();
    }

    private static void killSelf() throws IOException, InterruptedException
    {
        final long pid = ProcessHandle.current().pid();
        new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
        Thread.sleep(60_000);
    }
}
