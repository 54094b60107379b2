package org.shmpi.launcher;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The fault driver: runs a workload ({@code progs.Faulty}) at 4 ranks under {@code shmrun} (the
 * {@code connect} workload: two jobs of 2 ranks joined through a port), waits until every rank is
 * in its loop, then at a random moment delivers one fault to a random rank: {@code kill -9},
 * {@code SIGSTOP} (never resumed), {@code SIGTERM}, an exception thrown inside an MPI call, or a
 * heap exhausted inside one. In the {@code spawn} workload half the faults go to a spawned child
 * instead: the next child to print {@code CHILD <pid>} after the random moment, a random time
 * into its life (starting, connecting to its parents, or exchanging with them). Each run must
 * end within its bound after the fault (every job of it), with a non-zero exit and the process
 * named in shmrun's message (rank and pid; a child by its pid; the job connected to the faulted
 * one names the process of it that ended), with nothing of the job left in {@code /dev/shm} when
 * shmrun returns, no process of it (ranks, spawned children) left running, and (for the I/O
 * workload) the data synced before the fault intact. {@code FaultCampaignIT} runs a sample;
 * {@code bench/faults N} runs N and prints the report.
 */
final class FaultCampaign
{
    static final String[] WORKLOADS = {"p2p-large", "coll-small", "coll-large", "coll-split", "rma", "io", "nbc",
        "spawn", "connect"};
    static final String[] FAULTS = {"kill9", "stop", "term", "throw", "oom"};
    /** shmpi.rank.timeout.ms in the runs: a stopped rank is found this long after it stopped. */
    static final long RANK_TIMEOUT_MS = 3_000;
    /** How long after the fault the job must have ended (SIGSTOP: after the rank timeout too). */
    static final long BOUND_MS = 5_000;
    /**
     * How far into a spawned child's life its fault comes, at most: it prints its pid before
     * {@code MPI.Init}, and lives on for its start, its connection and {@code CHILD_EXCHANGE_MS}.
     */
    static final int CHILD_WINDOW_MS = 1_200;
    private static final String PROG = "org.shmpi.launcher.progs.Faulty";

    /** One run; {@code target} names the process that got the fault. */
    record Outcome(String workload, String fault, String target, boolean child, long endMs, int exit,
        List<String> problems)
    {
        boolean ok()
        {
            return problems.isEmpty();
        }
    }

    /** One shmrun of a run, and the pids of its ranks (from their READY lines). */
    private record Launched(String role, ShmrunHarness.Running job, long[] pids)
    {
    }

    private FaultCampaign()
    {
    }

    private static Launched launch(final String name, final String role, final int np, final String... progArgs)
        throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("--mca", "rank.timeout.ms", Long.toString(RANK_TIMEOUT_MS),
            "-np", Integer.toString(np), "-cp", ShmrunHarness.TEST_CLASSES.toString(), "-Xmx192m", PROG));
        args.addAll(List.of(progArgs));
        return new Launched(role, ShmrunHarness.start(name + (role.isEmpty() ? "" : "-" + role), List.of(), null,
            args.toArray(new String[0])), new long[np]);
    }

    static Outcome run(final Random rnd, final Path work, final int index, final String workload, final String fault)
        throws Exception
    {
        final Path dir = work.resolve("run-" + index);
        Files.createDirectories(dir);
        final String name = "fault-" + index + "-" + workload + "-" + fault;
        final List<Launched> jobs = new ArrayList<>();
        if (workload.equals("connect"))
        {
            jobs.add(launch(name, "server", 2, workload, dir.toString(), "server"));
            jobs.add(launch(name, "client", 2, workload, dir.toString(), "client"));
        }
        else
        {
            jobs.add(launch(name, "", 4, workload, dir.toString()));
        }
        for (final Launched l : jobs)
        {
            for (final String line : l.job().awaitLines("READY ", l.pids().length, 90_000))
            {
                final String[] f = line.split(" ");
                l.pids()[Integer.parseInt(f[1])] = Long.parseLong(f[2]);
            }
        }
        Thread.sleep(rnd.nextInt(1_500));
        final boolean toChild = workload.equals("spawn") && rnd.nextBoolean();
        final int pick = rnd.nextInt(4);
        final int faulted = pick * jobs.size() / 4;
        final int rank = pick % jobs.get(faulted).pids().length;
        final long pid = toChild ? pickChild(rnd, jobs.get(0).job(), fault.equals("stop")) :
            jobs.get(faulted).pids()[rank];
        final String role = jobs.get(faulted).role();
        final String target = toChild ? "spawned child (pid " + pid + ")" :
            (role.isEmpty() ? "" : role + " ") + "rank " + rank + " (pid " + pid + ")";
        final long faultNs = System.nanoTime();
        final long faultMs = System.currentTimeMillis();
        switch (fault)
        {
            case "kill9":
                signal("KILL", pid);
                break;
            case "stop":
                signal("STOP", pid);
                break;
            case "term":
                signal("TERM", pid);
                break;
            case "throw":
                Files.createFile(dir.resolve("throw-" + pid));
                break;
            case "oom":
                Files.createFile(dir.resolve("oom-" + pid));
                break;
            default:
                throw new IllegalArgumentException(fault);
        }
        final long bound = BOUND_MS + (fault.equals("stop") ? RANK_TIMEOUT_MS : 0);
        final List<String> problems = new ArrayList<>();
        long endMs = 0;
        int exit = 0;
        final List<Long> processes = new ArrayList<>();
        // Each job is looked at as soon as its shmrun has returned (the connected one may end first).
        final long deadlineNs = faultNs + (bound + 60_000) * 1_000_000;
        final boolean[] done = new boolean[jobs.size()];
        int pending = jobs.size();
        while (pending > 0)
        {
            for (int j = 0; j < jobs.size(); j++)
            {
                final Launched l = jobs.get(j);
                if (done[j] || (l.job().process.isAlive() && System.nanoTime() - deadlineNs < 0))
                {
                    continue;
                }
                done[j] = true;
                pending--;
                final String which = l.role().isEmpty() ? "" : l.role() + " job: ";
                final ShmrunHarness.Result r;
                try
                {
                    r = l.job().finish(1);
                }
                catch (final AssertionError ex)
                {
                    // Preserved and killed by the harness.
                    problems.add(which + ex.getMessage());
                    if (toChild && ex.getMessage().contains("CHILD-END " + pid + "\n"))
                    {
                        problems.add("the fault may have missed the child: it had printed CHILD-END");
                    }
                    endMs = Math.max(endMs, (System.nanoTime() - faultNs) / 1_000_000);
                    continue;
                }
                final long jobEndMs = r.exitMillis - firedAt(dir, pid, faultMs);
                endMs = Math.max(endMs, jobEndMs);
                // Checked at once: nothing may be left when shmrun has returned.
                final List<Path> left = ShmrunHarness.jobDirectoriesOf(r.pid);
                if (j == faulted)
                {
                    exit = r.exit;
                }
                if (jobEndMs > bound)
                {
                    problems.add(which + "ended " + jobEndMs + " ms after the fault (bound " + bound + ")");
                }
                if (r.exit == 0)
                {
                    problems.add(which + "exit 0");
                }
                final String named;
                if (toChild)
                {
                    named = "pid " + pid + "\\b";
                }
                else if (j != faulted)
                {
                    // The connected job names the other job's process that ended (faulted, or ended by its abort).
                    named = "connected to this one, ended without MPI_Finalize";
                }
                else if (fault.equals("throw") || fault.equals("oom"))
                {
                    named = "rank " + rank + " ";
                }
                else
                {
                    // As shmrun saw it, or as a connected process (a spawned child) saw it first.
                    named = "rank " + rank + "( of job \\S+)? \\(pid " + pid + "\\)";
                }
                if (!Pattern.compile(named).matcher(r.err).find())
                {
                    problems.add(which + "shmrun did not name " + named.trim());
                }
                if (!left.isEmpty())
                {
                    problems.add(which + "left in /dev/shm when shmrun returned: " + left);
                }
                if (toChild && r.out.contains("CHILD-END " + pid + "\n"))
                {
                    problems.add("the fault may have missed the child: it had printed CHILD-END");
                }
                for (final long p : l.pids())
                {
                    processes.add(p);
                }
                processes.addAll(childPids(r.out));
                if (!problems.isEmpty())
                {
                    ShmrunHarness.preserveJobDirectories(name, r.pid);
                    problems.add(which + "output: " + r);
                }
                if (Boolean.getBoolean("shmpi.faults.verbose"))
                {
                    System.out.printf("run %d %s / %s -> %s: %s%d ms, exit %d, %s%n", index, workload, fault, target,
                        which, jobEndMs, r.exit, r.err.lines().filter(e -> e.startsWith("shmrun: ") &&
                        !e.contains("removed stale")).findFirst().orElse("(shmrun said nothing)"));
                }
            }
            Thread.sleep(5);
        }
        for (final long p : processes)
        {
            if (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false))
            {
                problems.add("process " + p + " still runs");
                ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        if (workload.equals("io"))
        {
            final byte[] data = Files.readAllBytes(dir.resolve("io.dat"));
            for (int rk = 0; rk < 4 && problems.stream().noneMatch(p -> p.startsWith("synced")); rk++)
            {
                for (int i = 0; i < 4096; i++)
                {
                    if (data.length < 4 * 4096 || data[rk * 4096 + i] != (byte)(rk * 7 + i))
                    {
                        problems.add("synced data of rank " + rk + " damaged at byte " + i);
                        break;
                    }
                }
            }
        }
        ShmrunHarness.deleteTree(dir);
        return new Outcome(workload, fault, target, toChild, endMs, exit, problems);
    }

    /**
     * When the fault happened: for a throw or a heap exhausted, when the process's reduction found
     * the trap file (it writes the time into {@code fired-<pid>}; a process between MPI calls, e.g.
     * a spawned child still starting, comes to it later); for a signal, when it was sent.
     */
    private static long firedAt(final Path dir, final long pid, final long sentMs) throws IOException
    {
        final Path fired = dir.resolve("fired-" + pid);
        return Files.exists(fired) ? Long.parseLong(Files.readString(fired).trim()) : sentMs;
    }

    /**
     * The spawned child to fault: the next to print {@code CHILD <pid>}, after a random part of
     * {@code CHILD_WINDOW_MS}; when that one has already ended, the newest that still runs (or the
     * next to start). To be stopped, a child must have begun its {@code MPI.Init} (mapped its job
     * file, so it has a heartbeat): a process stopped before that is found only by the spawn's
     * deadline ({@code shmpi.connect.timeout.ms} + 30 s), as a child that never starts.
     */
    private static long pickChild(final Random rnd, final ShmrunHarness.Running job, final boolean initBegun)
        throws Exception
    {
        final int seen = childPids(job.out.text()).size();
        final List<Long> next = childPids(String.join("\n", job.awaitLines("CHILD ", seen + 1, 60_000)));
        long pid = next.get(next.size() - 1);
        Thread.sleep(rnd.nextInt(CHILD_WINDOW_MS));
        while (true)
        {
            while (initBegun && isRunning(job, pid) && !mapsItsJobFile(pid))
            {
                Thread.sleep(1);
            }
            if (isRunning(job, pid))
            {
                return pid;
            }
            // Ended already: the newest child, or the next to start.
            final List<Long> all = childPids(job.out.text());
            pid = all.get(all.size() - 1);
            if (!isRunning(job, pid))
            {
                final List<Long> later = childPids(String.join("\n", job.awaitLines("CHILD ", all.size() + 1,
                    60_000)));
                pid = later.get(later.size() - 1);
            }
        }
    }

    /** A spawned child runs and has not printed {@code CHILD-END} (it would be gone by the fault). */
    private static boolean isRunning(final ShmrunHarness.Running job, final long pid)
    {
        return ShmrunHarness.isRunning(pid) && !job.out.text().contains("CHILD-END " + pid + "\n");
    }

    /** Whether process {@code pid} has mapped a spawned job's job file (its MPI.Init has begun). */
    private static boolean mapsItsJobFile(final long pid)
    {
        try
        {
            return Files.readAllLines(Path.of("/proc/" + pid + "/maps")).stream()
                .anyMatch(l -> l.matches(".*/spawn-[0-9]+/job"));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** The pids of the spawned children in a job's output ({@code CHILD <pid>} lines), in order. */
    private static List<Long> childPids(final String out)
    {
        final List<Long> pids = new ArrayList<>();
        for (final String l : out.split("\n"))
        {
            if (l.startsWith("CHILD "))
            {
                pids.add(Long.parseLong(l.substring(6).trim()));
            }
        }
        return pids;
    }

    private static void signal(final String name, final long pid) throws IOException, InterruptedException
    {
        new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
    }

    /** {@code n} randomized runs of the given workloads and faults, each in turn, random rank and moment. */
    static List<Outcome> campaign(final long seed, final int n, final Path work, final String[] workloads,
        final String[] faults) throws Exception
    {
        final Random rnd = new Random(seed);
        final List<Outcome> out = new ArrayList<>();
        // Run i = q * workloads + w gets fault (i + step * q): every pair within workloads * faults runs
        // when workloads + step and faults share no factor (9 workloads and step 1 would pair each with one fault).
        int step = 1;
        while (BigInteger.valueOf(workloads.length + step).gcd(BigInteger.valueOf(faults.length)).intValue() != 1)
        {
            step++;
        }
        for (int i = 0; i < n; i++)
        {
            final String workload = workloads[(i + rnd.nextInt(2)) % workloads.length];
            final String fault = faults[(i + step * (i / workloads.length)) % faults.length];
            out.add(run(rnd, work, i, workload, fault));
        }
        return out;
    }

    /** A comma-separated selection (e.g. {@code -Dshmpi.faults.workloads=spawn,connect}), or all. */
    static String[] selected(final String property, final String[] all)
    {
        final String v = System.getProperty(property, "");
        return v.isBlank() ? all : v.split(",");
    }

    /** Combinations, outcomes and times to end (min / median / max), one line each. */
    static String report(final long seed, final List<Outcome> outcomes)
    {
        final Map<String, List<Outcome>> by = new TreeMap<>();
        for (final Outcome o : outcomes)
        {
            by.computeIfAbsent(o.workload() + " / " + o.fault() + (o.child() ? " child" : ""),
                k -> new ArrayList<>()).add(o);
        }
        final StringBuilder b = new StringBuilder("fault campaign: seed " + seed + ", " + outcomes.size() + " runs, " +
            outcomes.stream().filter(Outcome::ok).count() + " as required\n");
        b.append(String.format("%-26s %5s %5s %8s %8s %8s%n", "workload / fault", "runs", "ok", "min ms", "med ms",
            "max ms"));
        for (final Map.Entry<String, List<Outcome>> e : by.entrySet())
        {
            final long[] t = e.getValue().stream().mapToLong(Outcome::endMs).sorted().toArray();
            b.append(String.format("%-26s %5d %5d %8d %8d %8d%n", e.getKey(), t.length,
                e.getValue().stream().filter(Outcome::ok).count(), t[0], t[t.length / 2], t[t.length - 1]));
        }
        final long[] all = outcomes.stream().mapToLong(Outcome::endMs).sorted().toArray();
        if (all.length > 0)
        {
            b.append(String.format("%-26s %5d %5d %8d %8d %8d%n", "all", all.length,
                outcomes.stream().filter(Outcome::ok).count(), all[0], all[all.length / 2], all[all.length - 1]));
        }
        for (final Outcome o : outcomes)
        {
            if (!o.ok())
            {
                b.append("FAILED ").append(o.workload()).append(" / ").append(o.fault()).append(' ')
                    .append(o.target()).append(": ").append(String.join("; ", o.problems())).append('\n');
            }
        }
        return b.toString();
    }

    /** {@code bench/faults}: N runs (default 200), seed (default the time); exit 1 when a run failed. */
    public static void main(final String[] args) throws Exception
    {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        final long seed = args.length > 1 ? Long.parseLong(args[1]) : System.currentTimeMillis();
        final Path work = Files.createTempDirectory("shmpi-faults-");
        final List<Outcome> outcomes = campaign(seed, n, work, selected("shmpi.faults.workloads", WORKLOADS),
            selected("shmpi.faults.kinds", FAULTS));
        System.out.print(report(seed, outcomes));
        ShmrunHarness.deleteTree(work);
        System.exit(outcomes.stream().allMatch(Outcome::ok) ? 0 : 1);
    }
}
