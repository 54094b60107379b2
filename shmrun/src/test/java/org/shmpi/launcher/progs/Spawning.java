package org.shmpi.launcher.progs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Spawn cases (SpawnIT). A process whose {@code Intercomm.getParent()} is null is a parent and
 * runs the mode in {@code args[0]}; a spawned one runs the child side of the mode its parents
 * gave it as its first argument.
 * <ul>
 * <li>{@code basic}: COMM_WORLD spawns 3 children with arguments that hold spaces; each child
 *     checks its world, its parent and its arguments; point-to-point both ways, an inter-
 *     communicator bcast, merge with an allReduce, disconnect.</li>
 * <li>{@code bad}: spawns a class that does not exist, then one that exits at once: ERR_SPAWN
 *     with a code per child, and the parents go on.</li>
 * <li>{@code multiple}: spawnMultiple of two commands (1 and 2 processes), with info wdir and env:
 *     one child world, APPNUM 0, 1, 1.</li>
 * <li>{@code loop N}: N spawns of one child each from COMM_WORLD, each merged, disconnected and
 *     followed by a bcast among the parents; rank 0 prints the time per spawn and what this
 *     process holds (descriptors, threads, mappings of shared memory) after the first and the
 *     last, and the files of the job directory.</li>
 * <li>{@code tree DEPTH}: every process spawns one child from COMM_SELF until DEPTH levels.</li>
 * <li>{@code limited DIR}: the parents print READY and wait for {@code DIR/limit} (the test has
 *     put a process limit on the job meanwhile); a spawn of 2 children must fail with ERR_SPAWN;
 *     rank 0 writes {@code DIR/failed} and waits for {@code DIR/lifted}; then the same spawn
 *     works (children connect, a bcast, disconnect).</li>
 * <li>{@code child-dies}, {@code child-stops}: 2 children; child 0 exits with 7, or stops itself
 *     (SIGSTOP), while parent 0 waits for a message from it.</li>
 * </ul>
 */
public final class Spawning
{
    private static final String SELF = Spawning.class.getName();

    private Spawning()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args[0].equals("exit-at-once"))
        {
            // A child that fails before MPI_Init.
            System.exit(3);
        }
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        final Intercomm parent = Intercomm.getParent();
        if (parent.isNull())
        {
            parent(args);
        }
        else
        {
            child(parent, args);
        }
        MPI.Finalize();
    }

    private static void parent(final String[] args) throws Exception
    {
        final int rank = MPI.COMM_WORLD.getRank();
        switch (args[0])
        {
            case "basic":
            {
                final int[] codes = new int[3];
                final Intercomm ic = MPI.COMM_WORLD.spawn("java", new String[] {SELF, "basic", "an arg with spaces",
                    "", "x\"y'z"}, 3, MPI.INFO_NULL, 0, codes);
                check(Arrays.equals(codes, new int[3]), "errcodes " + Arrays.toString(codes));
                check(ic.getRemoteSize() == 3, "remote size " + ic.getRemoteSize());
                if (rank == 0)
                {
                    for (int c = 0; c < 3; c++)
                    {
                        ic.send(new int[] {1000 + c}, 1, MPI.INT, c, 1);
                    }
                    for (int c = 0; c < 3; c++)
                    {
                        final int[] back = new int[1];
                        ic.recv(back, 1, MPI.INT, c, 2);
                        check(back[0] == 2000 + c, "child " + c + " answered " + back[0]);
                    }
                }
                ic.bcast(new int[] {77}, 1, MPI.INT, rank == 0 ? MPI.ROOT : MPI.PROC_NULL);
                final Intracomm merged = ic.merge(false);
                final int[] sum = new int[1];
                merged.allReduce(new int[] {merged.getRank()}, sum, 1, MPI.INT, MPI.SUM);
                final int n = merged.getSize();
                check(n == MPI.COMM_WORLD.getSize() + 3 && sum[0] == n * (n - 1) / 2, "merged " + n + " " + sum[0]);
                merged.free();
                ic.disconnect();
                System.out.println("PARENT " + rank + " OK");
                break;
            }
            case "limited":
            {
                final Path dir = Path.of(args[1]);
                System.out.println("READY " + rank + " " + ProcessHandle.current().pid());
                System.out.flush();
                awaitFile(dir.resolve("limit"));
                final int[] codes = new int[2];
                try
                {
                    MPI.COMM_WORLD.spawn("java", new String[] {SELF, "limited"}, 2, MPI.INFO_NULL, 0, codes)
                        .disconnect();
                    System.out.println("SPAWN UNDER THE LIMIT WORKED " + rank);
                }
                catch (final MPIException ex)
                {
                    System.out.println("SPAWN LIMITED " + rank + " class " + ex.getErrorClass() + " codes " +
                        Arrays.toString(codes) + ": " + ex.getMessage());
                }
                final int[] sum = new int[1];
                MPI.COMM_WORLD.allReduce(new int[] {1}, sum, 1, MPI.INT, MPI.SUM);
                check(sum[0] == MPI.COMM_WORLD.getSize(), "sum " + sum[0]);
                if (rank == 0)
                {
                    Files.write(dir.resolve("failed"), new byte[0]);
                }
                awaitFile(dir.resolve("lifted"));
                final Intercomm ic = MPI.COMM_WORLD.spawn("java", new String[] {SELF, "limited"}, 2, MPI.INFO_NULL, 0,
                    codes);
                ic.bcast(new int[] {5}, 1, MPI.INT, rank == 0 ? MPI.ROOT : MPI.PROC_NULL);
                ic.disconnect();
                System.out.println("SPAWN AGAIN OK " + rank);
                break;
            }
            case "bad":
            {
                for (final String[] argv : new String[][] {{"org.shmpi.NoSuchClass"}, {SELF, "exit-at-once"}})
                {
                    final int[] codes = new int[2];
                    final long start = System.nanoTime();
                    try
                    {
                        MPI.COMM_WORLD.spawn("java", argv, 2, MPI.INFO_NULL, 0, codes);
                        throw new AssertionError("spawn of " + argv[0] + " succeeded");
                    }
                    catch (final MPIException ex)
                    {
                        check(ex.getErrorClass() == MPI.ERR_SPAWN, "error class " + ex.getErrorClass() + ": " + ex);
                        check(codes[0] == MPI.ERR_SPAWN && codes[1] == MPI.ERR_SPAWN,
                            "codes " + Arrays.toString(codes));
                        System.out.println("SPAWN FAILED " + rank + " after " +
                            (System.nanoTime() - start) / 1_000_000 + " ms: " + ex.getMessage());
                    }
                }
                MPI.COMM_WORLD.barrier();
                System.out.println("PARENT " + rank + " OK");
                break;
            }
            case "multiple":
            {
                final Info i0 = new Info();
                i0.set("env", "SPAWN_TEST_VAR=first one\nOTHER=2");
                final Info i1 = new Info();
                i1.set("wdir", args[1]);
                final int[] codes = new int[3];
                final Intercomm ic = MPI.COMM_WORLD.spawnMultiple(new String[] {"java", "java"},
                    new String[][] {{SELF, "multiple", "a"}, {SELF, "multiple", "b"}}, new int[] {1, 2},
                    new Info[] {i0, i1}, 0, codes);
                check(Arrays.equals(codes, new int[3]), "errcodes " + Arrays.toString(codes));
                check(ic.getRemoteSize() == 3, "remote size " + ic.getRemoteSize());
                ic.barrier();
                ic.disconnect();
                System.out.println("PARENT " + rank + " OK");
                break;
            }
            case "no-disconnect":
            case "child-dies":
            case "child-stops":
            case "parent-aborts":
            {
                final Intercomm ic = MPI.COMM_WORLD.spawn("java", new String[] {SELF, args[0]}, 2, MPI.INFO_NULL, 0,
                    null);
                System.out.println("SPAWNED " + rank);
                System.out.flush();
                if (args[0].equals("parent-aborts"))
                {
                    if (rank == 0)
                    {
                        MPI.COMM_WORLD.abort(5);
                    }
                    ic.recv(new int[1], 1, MPI.INT, 0, 9);
                }
                // child-dies, child-stops: child 0 never sends; no-disconnect: it does.
                final int[] v = new int[1];
                ic.recv(v, 1, MPI.INT, rank % 2, 9);
                check(v[0] == 9, "got " + v[0]);
                System.out.println("PARENT " + rank + " OK");
                break;
            }
            case "loop":
                loop(Integer.parseInt(args[1]));
                break;
            case "tree":
                tree(Integer.parseInt(args[1]), 0);
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }

    private static void child(final Intercomm parent, final String[] args) throws Exception
    {
        final int rank = MPI.COMM_WORLD.getRank();
        final int size = MPI.COMM_WORLD.getSize();
        final int appnum = (Integer)MPI.COMM_WORLD.getAttr(MPI.APPNUM);
        switch (args[0])
        {
            case "limited":
            {
                final int[] b = new int[1];
                parent.bcast(b, 1, MPI.INT, 0);
                check(b[0] == 5, "bcast " + b[0]);
                parent.disconnect();
                System.out.println("CHILD " + rank + " of " + size + " OK");
                break;
            }
            case "basic":
            {
                check(size == 3, "child world " + size);
                check(args.length == 4 && args[1].equals("an arg with spaces") && args[2].isEmpty() &&
                    args[3].equals("x\"y'z"), "arguments " + Arrays.toString(args));
                final int[] v = new int[1];
                parent.recv(v, 1, MPI.INT, 0, 1);
                check(v[0] == 1000 + rank, "got " + v[0]);
                parent.send(new int[] {2000 + rank}, 1, MPI.INT, 0, 2);
                final int[] b = new int[1];
                parent.bcast(b, 1, MPI.INT, 0);
                check(b[0] == 77, "bcast " + b[0]);
                final Intracomm merged = parent.merge(true);
                final int[] sum = new int[1];
                merged.allReduce(new int[] {merged.getRank()}, sum, 1, MPI.INT, MPI.SUM);
                merged.free();
                parent.disconnect();
                System.out.println("CHILD " + rank + " of " + size + " OK args=" + Arrays.toString(args));
                break;
            }
            case "multiple":
            {
                final String expected = appnum == 0 ? "a" : "b";
                check(args[1].equals(expected), "appnum " + appnum + " with argument " + args[1]);
                if (appnum == 0)
                {
                    check("first one".equals(System.getenv("SPAWN_TEST_VAR")),
                        "env " + System.getenv("SPAWN_TEST_VAR"));
                }
                System.out.println("CHILD " + rank + " APPNUM " + appnum + " WDIR " + System.getProperty("user.dir"));
                parent.barrier();
                parent.disconnect();
                break;
            }
            case "no-disconnect":
            case "parent-aborts":
                for (int p = rank; p < parent.getRemoteSize(); p += size)
                {
                    if (args[0].equals("parent-aborts"))
                    {
                        // Waits for a message that never comes: the job's end must end it.
                        parent.recv(new int[1], 1, MPI.INT, 0, 9);
                    }
                    parent.send(new int[] {9}, 1, MPI.INT, p, 9);
                }
                System.out.println("CHILD " + rank + " OK");
                break;
            case "child-dies":
                if (rank == 0)
                {
                    System.out.println("CHILD 0 EXITS");
                    System.out.flush();
                    System.exit(7);
                }
                parent.send(new int[] {9}, 1, MPI.INT, 1, 9);
                break;
            case "child-stops":
                if (rank == 0)
                {
                    System.out.println("CHILD 0 STOPS " + ProcessHandle.current().pid());
                    System.out.flush();
                    // SIGSTOP to itself: never resumed, its heartbeat stops.
                    new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).start()
                        .waitFor();
                }
                parent.send(new int[] {9}, 1, MPI.INT, 1, 9);
                break;
            case "loop":
            {
                final Intracomm merged = parent.merge(true);
                final int[] v = new int[1];
                merged.bcast(v, 1, MPI.INT, 0);
                merged.free();
                parent.disconnect();
                break;
            }
            case "tree":
            {
                final int left = Integer.parseInt(args[1]);
                final int[] level = new int[1];
                parent.recv(level, 1, MPI.INT, 0, 3);
                tree(left, level[0]);
                break;
            }
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }

    private static void loop(final int n) throws IOException
    {
        final int rank = MPI.COMM_WORLD.getRank();
        long firstNs = 0;
        String after1 = "";
        final long start = System.nanoTime();
        for (int i = 0; i < n; i++)
        {
            final long t0 = System.nanoTime();
            final Intercomm ic = MPI.COMM_WORLD.spawn("java", new String[] {SELF, "loop"}, 1, MPI.INFO_NULL, 0, null);
            final Intracomm merged = ic.merge(false);
            final int[] v = {i};
            merged.bcast(v, 1, MPI.INT, 0);
            merged.free();
            ic.disconnect();
            final int[] w = {rank == 0 ? i : -1};
            MPI.COMM_WORLD.bcast(w, 1, MPI.INT, 0);
            check(w[0] == i, "parents' bcast " + w[0]);
            if (i == 0)
            {
                firstNs = System.nanoTime() - t0;
                after1 = holdings();
            }
        }
        final long totalNs = System.nanoTime() - start;
        if (rank == 0)
        {
            System.out.println("LOOP " + n + " spawns, first " + firstNs / 1_000_000 + " ms, mean " +
                totalNs / n / 1_000_000 + " ms per spawn");
            System.out.println("HOLDINGS AFTER 1 " + after1);
            System.out.println("HOLDINGS AFTER " + n + " " + holdings());
        }
    }

    /**
     * Descriptors, threads and shared-memory mappings of this process, files in the job directory
     * once the launcher has removed the directories of children that have ended (at most 10 s).
     */
    private static String holdings() throws IOException
    {
        final Path jobDir = Path.of(System.getenv("SHMPI_JOB_DIR"));
        final long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline)
        {
            try (Stream<Path> s = Files.list(jobDir))
            {
                if (s.noneMatch(f -> f.getFileName().toString().startsWith("spawn-")))
                {
                    break;
                }
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        final long fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd")))
        {
            fds = s.count();
        }
        final long maps = Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("/dev/shm"))
            .count();
        final long files;
        try (Stream<Path> s = Files.walk(jobDir))
        {
            files = s.count();
        }
        return "fds=" + fds + " threads=" + Thread.activeCount() + " shm-maps=" + maps + " job-files=" + files;
    }

    /** Spawns one child from COMM_SELF, which does the same, until {@code depth} levels; each waits for its child. */
    private static void tree(final int depth, final int level)
    {
        if (level + 1 < depth)
        {
            final Intercomm ic = MPI.COMM_SELF.spawn("java", new String[] {SELF, "tree", Integer.toString(depth)}, 1,
                MPI.INFO_NULL, 0, null);
            ic.send(new int[] {level + 1}, 1, MPI.INT, 0, 3);
            final int[] done = new int[1];
            ic.recv(done, 1, MPI.INT, 0, 4);
            check(done[0] == depth - level - 1, "subtree of level " + level + " answered " + done[0]);
            ic.disconnect();
        }
        final Intercomm up = Intercomm.getParent();
        if (!up.isNull())
        {
            up.send(new int[] {depth - level}, 1, MPI.INT, 0, 4);
            up.disconnect();
        }
        System.out.println("TREE LEVEL " + level + " OK");
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            throw new AssertionError(what);
        }
    }

    private static void awaitFile(final Path file) throws InterruptedException
    {
        while (!Files.exists(file))
        {
            Thread.sleep(20);
        }
    }
}
