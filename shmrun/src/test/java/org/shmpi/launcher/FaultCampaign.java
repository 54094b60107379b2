package org.shmpi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The fault driver: runs a workload ({@code progs.Faulty}) at 4 ranks under {@code shmrun}, waits
 * until every rank is in its loop, then at a random moment delivers one fault to a random rank:
 * {@code kill -9}, {@code SIGSTOP} (never resumed), {@code SIGTERM}, an exception thrown inside an
 * MPI call, or a heap exhausted inside one. Each run must end within its bound after the fault,
 * with a non-zero exit and the rank named in shmrun's message, with nothing of the job left in
 * {@code /dev/shm} when shmrun returns, no process of it left running, and (for the I/O workload)
 * the data synced before the fault intact. {@code FaultCampaignIT} runs a sample; {@code
 * bench/faults N} runs N and prints the report.
 */
final class FaultCampaign
{
    static final String[] WORKLOADS = {"p2p-large", "coll-small", "coll-large", "coll-split", "rma", "io", "nbc"};
    static final String[] FAULTS = {"kill9", "stop", "term", "throw", "oom"};
    /** shmpi.rank.timeout.ms in the runs: a stopped rank is found this long after it stopped. */
    static final long RANK_TIMEOUT_MS = 3_000;
    /** How long after the fault the job must have ended (SIGSTOP: after the rank timeout too). */
    static final long BOUND_MS = 5_000;

    /** One run. */
    record Outcome(String workload, String fault, int rank, long endMs, int exit, List<String> problems)
    {
        boolean ok()
        {
            return problems.isEmpty();
        }
    }

    private FaultCampaign()
    {
    }

    static Outcome run(final Random rnd, final Path work, final int index, final String workload, final String fault)
        throws Exception
    {
        final Path dir = work.resolve("run-" + index);
        Files.createDirectories(dir);
        final ShmrunHarness.Running job = ShmrunHarness.start("fault-" + index + "-" + workload + "-" + fault,
            List.of(), null, "--mca", "rank.timeout.ms", Long.toString(RANK_TIMEOUT_MS), "-np", "4", "-cp",
            ShmrunHarness.TEST_CLASSES.toString(), "-Xmx192m", "org.shmpi.launcher.progs.Faulty", workload,
            dir.toString());
        final List<String> ready = job.awaitLines("READY ", 4, 90_000);
        final long[] pids = new long[4];
        for (final String l : ready)
        {
            final String[] f = l.split(" ");
            pids[Integer.parseInt(f[1])] = Long.parseLong(f[2]);
        }
        Thread.sleep(rnd.nextInt(1_500));
        final int rank = rnd.nextInt(4);
        final long faultNs = System.nanoTime();
        switch (fault)
        {
            case "kill9":
                signal("KILL", pids[rank]);
                break;
            case "stop":
                signal("STOP", pids[rank]);
                break;
            case "term":
                signal("TERM", pids[rank]);
                break;
            case "throw":
                Files.createFile(dir.resolve("throw-" + rank));
                break;
            case "oom":
                Files.createFile(dir.resolve("oom-" + rank));
                break;
            default:
                throw new IllegalArgumentException(fault);
        }
        final long bound = BOUND_MS + (fault.equals("stop") ? RANK_TIMEOUT_MS : 0);
        final ShmrunHarness.Result r = job.finish(bound / 1000 + 60);
        final long endMs = (r.exitMillis - System.currentTimeMillis()) + (System.nanoTime() - faultNs) / 1_000_000;
        // Checked at once: nothing may be left when shmrun has returned.
        final List<Path> left = ShmrunHarness.jobDirectoriesOf(r.pid);
        final List<String> problems = new ArrayList<>();
        if (endMs > bound)
        {
            problems.add("ended " + endMs + " ms after the fault (bound " + bound + ")");
        }
        if (r.exit == 0)
        {
            problems.add("exit 0");
        }
        final String named = fault.equals("throw") || fault.equals("oom") ? "rank " + rank + " " :
            "rank " + rank + " (pid " + pids[rank] + ")";
        if (!r.err.contains(named))
        {
            problems.add("shmrun did not name " + named.trim());
        }
        if (!left.isEmpty())
        {
            problems.add("left in /dev/shm when shmrun returned: " + left);
        }
        for (final long pid : pids)
        {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
            {
                problems.add("rank process " + pid + " still runs");
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
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
        if (!problems.isEmpty())
        {
            ShmrunHarness.preserveJobDirectories("fault-" + index, r.pid);
            problems.add("output: " + r);
        }
        ShmrunHarness.deleteTree(dir);
        return new Outcome(workload, fault, rank, endMs, r.exit, problems);
    }

    private static void signal(final String name, final long pid) throws IOException, InterruptedException
    {
        new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
    }

    /** {@code n} randomized runs: every workload and fault in turn, random rank and moment. */
    static List<Outcome> campaign(final long seed, final int n, final Path work) throws Exception
    {
        final Random rnd = new Random(seed);
        final List<Outcome> out = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final String workload = WORKLOADS[(i + rnd.nextInt(2)) % WORKLOADS.length];
            final String fault = FAULTS[(i / WORKLOADS.length + i) % FAULTS.length];
            out.add(run(rnd, work, i, workload, fault));
        }
        return out;
    }

    /** Combinations, outcomes and times to end (min / median / max), one line each. */
    static String report(final long seed, final List<Outcome> outcomes)
    {
        final Map<String, List<Outcome>> by = new TreeMap<>();
        for (final Outcome o : outcomes)
        {
            by.computeIfAbsent(o.workload() + " / " + o.fault(), k -> new ArrayList<>()).add(o);
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
                b.append("FAILED ").append(o.workload()).append(" / ").append(o.fault()).append(" rank ")
                    .append(o.rank()).append(": ").append(String.join("; ", o.problems())).append('\n');
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
        final List<Outcome> outcomes = campaign(seed, n, work);
        System.out.print(report(seed, outcomes));
        ShmrunHarness.deleteTree(work);
        System.exit(outcomes.stream().allMatch(Outcome::ok) ? 0 : 1);
    }
}
