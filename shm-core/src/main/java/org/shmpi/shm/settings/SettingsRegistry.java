package org.shmpi.shm.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every {@code shmpi.*} setting, declared once: name, default, meaning and validation. The
 * engines read their values from a {@link org.shmpi.shm.ShmpiConfig} resolved against this list
 * at {@code MPI.Init} (a bad value fails Init with one line naming it); {@code shminfo} prints
 * them all, and {@link #markdown()} writes {@code docs/settings.md}, which a test compares with
 * the file in the repository, so the table cannot drift from the code.
 */
public final class SettingsRegistry
{
    static final String JOB = "Job and shared memory";
    static final String IDLE = "Waiting and waking";
    static final String PLACEMENT = "Placement";
    static final String COLL = "Collectives";
    static final String IO = "MPI-IO";
    static final String LAUNCHER = "Launcher (shmrun)";
    static final String TESTS = "JUnit extension (@MpiTest)";
    static final String REPORT = "Job report (shmrun --report)";

    private static final List<Setting> ALL = new ArrayList<>();

    public static final Setting SHM_DIR = add(Setting.text("shmpi.shm.dir", JOB, "/dev/shm",
        "Directory under which job directories (inboxes, heaps, collective and window segments) are created."));
    public static final Setting RING_CAPACITY = add(Setting.powerOfTwo("shmpi.ring.capacity", JOB, 1 << 20,
        64 * 1024, 1 << 30, "Bytes of each rank's inbox ring."));
    public static final Setting EAGER_LIMIT = add(Setting.number("shmpi.eager.limit", JOB, 64 * 1024, 0, 1 << 30,
        "Largest message sent eagerly (copied through the receiver's ring); larger ones take the rendezvous."));
    public static final Setting CMA_ENABLED = add(Setting.bool("shmpi.cma.enabled", JOB, true,
        "A large message from a direct buffer (not MPI.newByteBuffer memory) is read by the receiver straight "
            + "out of the sender's process with process_vm_readv (cross-memory attach, one copy); false: through "
            + "the receiver's ring (two copies). Falls back by itself where the kernel or a container forbids it."));
    public static final Setting INIT_TIMEOUT_MS = add(Setting.number("shmpi.init.timeout.ms", JOB, 60_000, 1,
        Long.MAX_VALUE, "How long MPI.Init waits for every rank of the job to attach."));
    public static final Setting HEARTBEAT_INTERVAL_MS = add(Setting.number("shmpi.heartbeat.interval.ms", JOB, 100,
        1, 60_000, "Period of the ranks' and the launcher's heartbeats and of the watchdog."));
    public static final Setting LAUNCHER_TIMEOUT_MS = add(Setting.number("shmpi.launcher.timeout.ms", JOB, 3_000,
        10, Long.MAX_VALUE, "A rank exits when its launcher's heartbeat is older than this: the launcher is gone."));
    public static final Setting RANK_TIMEOUT_MS = add(Setting.number("shmpi.rank.timeout.ms", JOB, 10_000, 0,
        Long.MAX_VALUE, "The launcher ends the job when a rank's heartbeat is older than this: the rank is "
        + "unresponsive (stopped, or starved of CPU that long); 0: never."));
    public static final Setting ABORT_GRACE_MS = add(Setting.number("shmpi.abort.grace.ms", JOB, 1_000, 0, 60_000,
        "After an abort, how long the launcher lets ranks exit before it kills them."));
    public static final Setting CONNECT_TIMEOUT_MS = add(Setting.number("shmpi.connect.timeout.ms", JOB, 60_000, 1,
        Long.MAX_VALUE, "How long Intracomm.connect waits for the port's owner to accept before MPI.ERR_PORT (a closed "
        + "or unknown port fails at once)."));
    public static final Setting PORT_ADDRESS = add(Setting.text("shmpi.port.address", JOB, "",
        "The address a port's name offers to jobs on other machines (its owner listens there once it opens a "
        + "port); empty: the first non-loopback IPv4 address of the machine, else 127.0.0.1."));
    public static final Setting BRIDGE_INLINE = add(Setting.bool("shmpi.bridge.inline", JOB, false,
        "Across nodes: the rank that runs a node's bridge writes and reads the node's sockets in its own thread "
        + "while in MPI calls (half the small-message latency; less small-message bandwidth with few CPUs)."));
    public static final Setting SHM_KEEP = add(Setting.bool("shmpi.shm.keep", JOB, false,
        "Ranks keep their segment files when they close, for inspection (shmrun --keep-shm sets it); a freed "
        + "communicator's file is replaced when its name is used again."));

    public static final Setting OVERSUBSCRIBED = add(Setting.bool("shmpi.oversubscribed", IDLE, false,
        "Set by shmrun when the job has more ranks than CPUs: waiting ranks do not spin, and the idle defaults "
            + "below become 0 spins and 1000 yields."));
    public static final Setting IDLE_SPINS = add(Setting.multipleOf("shmpi.idle.spins", IDLE, null, 1, 0,
        Integer.MAX_VALUE, "Busy polls before a waiting rank starts to yield (default 200, 0 when oversubscribed)."));
    public static final Setting IDLE_YIELDS = add(Setting.multipleOf("shmpi.idle.yields", IDLE, null, 1, 0,
        Integer.MAX_VALUE,
        "Yields before a waiting rank sleeps on its wake word (default 20, 1000 when oversubscribed)."));
    public static final Setting IDLE_SLEEP_MAX_US = add(Setting.number("shmpi.idle.sleep.max.us", IDLE, 50_000, 1,
        10_000_000, "Longest single sleep of a waiting rank; bounds what a lost wake-up can cost."));
    public static final Setting FUTEX_ENABLED = add(Setting.bool("shmpi.futex.enabled", IDLE, true,
        "Sleep and wake with futex wait/wake (through JNA); false falls back to timed naps."));

    public static final Setting TOPOLOGY_FILE = add(Setting.text(
        org.shmpi.affinity.Topology.TOPOLOGY_FILE_PROP_NAME, PLACEMENT, null,
        "Read the machine's topology from this file instead of /sys (give it to shmrun as -D: the launcher "
            + "places ranks with it too)."));
    public static final Setting RANK_CPUS = add(Setting.text(
        org.shmpi.affinity.Binding.RANK_CPUS_PROP_NAME, PLACEMENT, null,
        "Set by shmrun: the CPUs a rank was placed on; splitType and reorder use it, else the real affinity."));

    public static final Setting COLL_ALGORITHM = add(Setting.choice("shmpi.coll.algorithm", COLL,
        "Algorithm family of every collective: auto and shm take shared memory for barrier, bcast, reduce, "
            + "allreduce, gather, scatter, allgather, alltoall and reducescatter on intra-communicators of 2 "
            + "or more ranks; p2p always takes the point-to-point schedules.", "auto", "shm", "p2p"));
    /** The operations that have a {@code shmpi.coll.<op>.algorithm} of their own. */
    public static final List<String> COLL_OPS = List.of(
        "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall", "reducescatter");
    private static final Map<String, Setting> COLL_OP_ALGORITHM = new LinkedHashMap<>();

    static
    {
        for (final String op : COLL_OPS)
        {
            COLL_OP_ALGORITHM.put(op, add(Setting.choice("shmpi.coll." + op + ".algorithm", COLL,
                "As shmpi.coll.algorithm, for " + op + " alone (unset: shmpi.coll.algorithm).", "auto", "shm",
                "p2p")));
        }
    }

    public static final Setting COLL_DATA_BYTES = add(Setting.multipleOf("shmpi.coll.shm.data.bytes", COLL, 8192L,
        128, 128, 1 << 24, "Per-rank data slot of the small-message shared-memory collectives: larger messages "
            + "take the pipelined large-message algorithms."));
    public static final Setting COLL_CHUNK_BYTES = add(Setting.multipleOf("shmpi.coll.shm.chunk.bytes", COLL, null,
        128, 4096, 1 << 26, "Bytes per rank and round of the large-message collectives (default 256 KiB up to "
            + "16 ranks, less above so that the slots fit in 8 MiB, at least 64 KiB)."));
    public static final Setting COLL_HIERARCHY = add(Setting.choice("shmpi.coll.shm.hierarchy", COLL,
        "Shared-memory barrier, bcast, reduce and allreduce in stages by NUMA node (else L3 domain): auto when "
            + "the ranks span 2 or more groups and number at least shmpi.coll.shm.hierarchy.ranks, on whenever "
            + "they span 2 or more groups, off never.", "auto", "on", "off"));
    public static final Setting COLL_HIERARCHY_RANKS = add(Setting.number("shmpi.coll.shm.hierarchy.ranks", COLL, 16,
        2, Integer.MAX_VALUE, "The rank count from which shmpi.coll.shm.hierarchy=auto goes hierarchical."));
    public static final Setting COLL_BARRIER = add(Setting.choice("shmpi.coll.shm.barrier", COLL,
        "The flat shared-memory barrier: flat (every rank waits for every rank), release (rank 0 waits for all, "
            + "then releases the others) or auto (release when the job has more ranks than cores, else flat).",
        "auto", "flat", "release"));

    public static final Setting IO_CHUNK = add(Setting.powerOfTwo("shmpi.io.chunk", IO, 64L << 20, 4096, 1L << 30,
        "Bytes of each window an open file is mapped in."));
    public static final Setting IO_MAPPED = add(Setting.number("shmpi.io.mapped", IO, 64, 2, 1 << 20,
        "Windows of one file mapped at once per process; the least recently used is unmapped first."));

    public static final Setting LAUNCHER_JVM_DEFAULTS = add(Setting.text("shmpi.launcher.jvm.defaults", LAUNCHER,
        "default", "The rank JVMs' default flags: default, none, or flags that replace them (also shmrun "
            + "--jvm-defaults)."));
    public static final Setting LAUNCHER_CDS_DIR = add(Setting.text("shmpi.launcher.cds.dir", LAUNCHER, null,
        "Where class-data archives of shmpi's classes are kept, one per JVM (default <shmpi home>/lib/cds, else "
            + "~/.cache/shmpi/cds); none: no archive."));
    public static final Setting LAUNCHER_CDS_DUMP = add(Setting.text("shmpi.launcher.cds.dump", LAUNCHER, null,
        "Set by shmrun on the training job that writes a class-data archive: the archive file."));
    public static final Setting LAUNCHER_IDENTITY = add(Setting.text("shmpi.launcher.identity", LAUNCHER, null,
        "parent: the job is named after, and watched through, the launcher's parent process (a wrapper script)."));
    public static final Setting HOME = add(Setting.text("shmpi.home", LAUNCHER, null,
        "Set by the shmrun script: the installation directory."));
    public static final Setting RANK_JVM_FLAGS = add(Setting.text("shmpi.rank.jvm.flags", LAUNCHER, null,
        "Set by shmrun on each rank: the JVM flags it started the rank with."));

    public static final Setting REPORT_DIR = add(Setting.text("shmpi.report.dir", REPORT, null,
        "Record what every rank does in MPI and write the job report (index.html, report.json, CSV) into this "
        + "directory (shmrun --report DIR sets it); unset: nothing is recorded."));
    public static final Setting REPORT_SAMPLE = add(Setting.powerOfTwo("shmpi.report.sample", REPORT, 128, 1, 1 << 20,
        "With the report on: of the calls of one kind, the first 16 and then on average one in this many (at random "
        + "intervals) are timed with the clock (waits that idle are always timed); counts and bytes are exact. 1: "
        + "time every call."));
    public static final Setting REPORT_SITES = add(Setting.bool("shmpi.report.sites", REPORT, false,
        "With the report on: also record each call's call site (the calling method and line); walks the stack on "
        + "every call and times every call."));
    public static final Setting REPORT_FLUSH_MS = add(Setting.number("shmpi.report.flush.ms", REPORT, 1_000, 10,
        3_600_000, "With the report on: how often each rank writes what it recorded so far (what a killed rank "
        + "leaves)."));

    public static final Setting TEST_MAX_NP = add(Setting.number("shmpi.test.max.np", TESTS, 0, 0, 1 << 20,
        "@MpiTest rank counts above this are skipped; 0: no cap."));
    public static final Setting TEST_TIMEOUT = add(Setting.number("shmpi.test.timeout", TESTS, 60, 1, 1 << 20,
        "Default seconds before an @MpiTest run fails as hung."));
    public static final Setting TEST_START_TIMEOUT = add(Setting.number("shmpi.test.start.timeout", TESTS, 120, 1,
        1 << 20, "Seconds a test job may take to start (every rank's JVM up and MPI.Init done)."));
    public static final Setting TEST_GRACE_MS = add(Setting.number("shmpi.test.grace.ms", TESTS, 2_000, 0, 1 << 30,
        "Milliseconds the other ranks get to finish once one rank failed, before the job is stopped."));
    public static final Setting TEST_KEEP = add(Setting.bool("shmpi.test.keep", TESTS, false,
        "Keep a test job's directory in shared memory, and name it in failures."));
    public static final Setting TEST_JVM_ARGS = add(Setting.text("shmpi.test.jvm.args", TESTS, null,
        "Extra JVM options for every rank of a test job, separated by spaces."));
    public static final Setting TEST_SHMRUN_ARGS = add(Setting.text("shmpi.test.shmrun.args", TESTS, null,
        "Extra shmrun options for every test job, separated by spaces."));

    private SettingsRegistry()
    {
    }

    private static Setting add(final Setting s)
    {
        ALL.add(s);
        return s;
    }

    /** Every setting, in declaration order (grouped by area). */
    public static List<Setting> all()
    {
        return Collections.unmodifiableList(ALL);
    }

    /** The setting named {@code name}, or null. */
    public static Setting find(final String name)
    {
        for (final Setting s : ALL)
        {
            if (s.name().equals(name))
            {
                return s;
            }
        }
        return null;
    }

    /** {@code shmpi.coll.<op>.algorithm}; {@code op} one of {@link #COLL_OPS}. */
    public static Setting collAlgorithm(final String op)
    {
        final Setting s = COLL_OP_ALGORITHM.get(op);
        if (s == null)
        {
            throw new IllegalArgumentException("no collective operation " + op);
        }
        return s;
    }

    /** docs/settings.md: one table per area. */
    public static String markdown()
    {
        final StringBuilder out = new StringBuilder();
        out.append("# Settings\n\n")
            .append("Generated from `shm-core/src/main/java/org/shmpi/shm/settings/SettingsRegistry.java` by\n")
            .append("`SettingsDocTest` (which fails when this file differs from the code): do not edit by hand.\n\n")
            .append("Each setting is a system property (`-Dshmpi.a.b=v`, or `shmrun --mca a.b v`), else the\n")
            .append("environment variable `SHMPI_A_B`, else the default. Values are checked when MPI starts (a\n")
            .append("bad one fails `MPI.Init` with `MPI_ERR_ARG` naming it); `shminfo` prints every setting with\n")
            .append("its effective value.\n");
        String area = null;
        for (final Setting s : ALL)
        {
            if (!s.area().equals(area))
            {
                area = s.area();
                out.append("\n## ").append(area).append("\n\n")
                    .append("| setting | environment | default | values | meaning |\n")
                    .append("| --- | --- | --- | --- | --- |\n");
            }
            out.append("| `").append(s.name()).append("` | `").append(s.envName()).append("` | ")
                .append(s.defaultValue() == null ? "(unset)" : "`" + s.defaultValue() + "`").append(" | ")
                .append(s.allowed()).append(" | ").append(s.meaning().replace("|", "\\|")).append(" |\n");
        }
        return out.toString();
    }
}
