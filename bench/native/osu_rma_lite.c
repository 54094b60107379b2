/*
 * One-sided benchmarks in the style of osu_put_latency, osu_get_latency, osu_put_bw, osu_get_bw,
 * osu_acc_latency, osu_fop_latency and osu_cas_latency; the C twin of org.shmpi.bench.OsuRma (same
 * first argument, options, defaults, loops and output). Rank 0 is the origin, rank 1 the target;
 * other ranks only create and free the window (and join the fences).
 * Loops per synchronisation (-s), timed on rank 0 around the whole loop, then a barrier:
 *   lock: MPI_Win_lock(EXCLUSIVE, 1), the operation, MPI_Win_unlock(1);
 *   flush (default): one shared lock around the loop; the operation, MPI_Win_flush(1);
 *   fence: fence, the operation (rank 0 only), fence, on every rank;
 *   pscw: rank 0 start({1}), operation, complete; rank 1 post({0}), wait.
 * Bandwidth tests issue -W operations (default 64) per synchronisation. Latency: us per iteration;
 * bandwidth: MB/s (10^6 bytes). Put/get move size MPI_BYTEs; accumulate sums size/4 MPI_INTs;
 * fetch-and-op adds one MPI_LONG; compare-and-swap swaps one MPI_LONG. Windows (-w), disp unit 1:
 * allocate (MPI_Win_allocate), create (MPI_Win_create over malloc'd memory) or dynamic
 * (MPI_Win_create_dynamic + MPI_Win_attach; rank 1 broadcasts the address).
 * Before the first size, as the Java twin's JIT warm-up: chunks of 200 iterations of the smallest
 * size, at least one, until -J seconds (default 1.0) have passed; rank 0 broadcasts whether more follow.
 * Build: mpicc -O2 -o osu_rma_lite osu_rma_lite.c
 * Run:   mpirun -np 2 ./osu_rma_lite TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP] [-W WINDOW]
 *            [-s lock|flush|fence|pscw] [-w allocate|create|dynamic] [-J SECONDS]
 *        TEST: put_latency get_latency put_bw get_bw acc_latency fop_latency cas_latency
 */
#include "osu_lite.h"

enum test { PUT_LAT, GET_LAT, PUT_BW, GET_BW, ACC_LAT, FOP_LAT, CAS_LAT, NTEST };
static const char *const tests[NTEST] = { "put_latency", "get_latency", "put_bw", "get_bw", "acc_latency",
                                          "fop_latency", "cas_latency" };
enum sync { LOCK, FLUSH, FENCE, PSCW, NSYNC };
static const char *const syncs[NSYNC] = { "lock", "flush", "fence", "pscw" };
enum wintype { ALLOCATE, CREATE, DYNAMIC, NWIN };
static const char *const wintypes[NWIN] = { "allocate", "create", "dynamic" };

struct bench {
    enum test test;
    enum sync sync;
    MPI_Win win;
    int rank;
    MPI_Aint disp;
    char *origin, *result;
    MPI_Group target, origin_group;
    long window;
    long one, compare, fetched;
};

static int lookup(const char *s, const char *const *names, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static int is_bw(enum test t)
{
    return t == PUT_BW || t == GET_BW;
}

static void operate(struct bench *b, long size, long count)
{
    int n = (int)size;
    long k;
    for (k = 0; k < count; k++) {
        switch (b->test) {
        case PUT_LAT: case PUT_BW: MPI_Put(b->origin, n, MPI_BYTE, 1, b->disp, n, MPI_BYTE, b->win); break;
        case GET_LAT: case GET_BW: MPI_Get(b->result, n, MPI_BYTE, 1, b->disp, n, MPI_BYTE, b->win); break;
        case ACC_LAT: MPI_Accumulate(b->origin, n / 4, MPI_INT, 1, b->disp, n / 4, MPI_INT, MPI_SUM, b->win); break;
        case FOP_LAT: MPI_Fetch_and_op(&b->one, &b->fetched, MPI_LONG, 1, b->disp, MPI_SUM, b->win); break;
        case CAS_LAT:
            MPI_Compare_and_swap(&b->one, &b->compare, &b->fetched, MPI_LONG, 1, b->disp, b->win);
            break;
        default: break;
        }
    }
}

/* iterations iterations at size; the seconds they took (on rank 0), then a barrier. */
static double loop(struct bench *b, long size, long iterations)
{
    long count = is_bw(b->test) ? b->window : 1, i;
    double t0 = MPI_Wtime(), seconds;
    switch (b->sync) {
    case LOCK:
        if (b->rank == 0)
            for (i = 0; i < iterations; i++) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, b->win);
                operate(b, size, count);
                MPI_Win_unlock(1, b->win);
            }
        break;
    case FLUSH:
        if (b->rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, b->win);
            for (i = 0; i < iterations; i++) {
                operate(b, size, count);
                MPI_Win_flush(1, b->win);
            }
            MPI_Win_unlock(1, b->win);
        }
        break;
    case FENCE:
        for (i = 0; i < iterations; i++) {
            MPI_Win_fence(0, b->win);
            if (b->rank == 0) operate(b, size, count);
            MPI_Win_fence(0, b->win);
        }
        break;
    case PSCW:
        for (i = 0; i < iterations; i++) {
            if (b->rank == 0) {
                MPI_Win_start(b->target, 0, b->win);
                operate(b, size, count);
                MPI_Win_complete(b->win);
            } else if (b->rank == 1) {
                MPI_Win_post(b->origin_group, 0, b->win);
                MPI_Win_wait(b->win);
            }
        }
        break;
    default: break;
    }
    seconds = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return seconds;
}

static void usage(const char *prog)
{
    fprintf(stderr, "Usage: %s TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP] [-W WINDOW] [-s lock|flush|fence|pscw]\n"
                    "       [-w allocate|create|dynamic] [-J SECONDS]\n"
                    "  TEST: put_latency get_latency put_bw get_bw acc_latency fop_latency cas_latency\n", prog);
}

/* Returns 0 to run, else the exit status. */
static int parse(int argc, char **argv, struct bench *b, long *min, long *max, long *iterations, long *warmup,
                 int *wintype, double *jit_seconds)
{
    int i, k;
    if (argc < 2 || (k = lookup(argv[1], tests, NTEST)) < 0) {
        OSU_ERR("%s: the first argument names the test, got %s\n", argv[0], argc > 1 ? argv[1] : "nothing");
        return 1;
    }
    b->test = (enum test)k;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return 1;
        if (v == NULL) {
            OSU_ERR("%s: unknown option or missing value\n", a);
            return 1;
        }
        i++;
        if (!strcmp(a, "-m")) {
            const char *colon = strchr(v, ':');
            if (colon) {
                char low[32];
                size_t n = (size_t)(colon - v);
                if (n >= sizeof low) return 1;
                memcpy(low, v, n);
                low[n] = '\0';
                *min = osu_number(low, "-m MIN", 0);
                *max = osu_number(colon + 1, "-m MAX", 0);
            } else {
                *max = osu_number(v, "-m MAX", 0);
            }
            if (*min < -1 || *max < 0) return 1;
        } else if (!strcmp(a, "-i")) {
            if ((*iterations = osu_number(v, a, 0)) < 0) return 1;
        } else if (!strcmp(a, "-x")) {
            if ((*warmup = osu_number(v, a, 0)) < 0) return 1;
        } else if (!strcmp(a, "-W")) {
            if ((b->window = osu_number(v, a, 1)) < 0) return 1;
        } else if (!strcmp(a, "-s")) {
            if ((k = lookup(v, syncs, NSYNC)) < 0) {
                OSU_ERR("not a synchronisation: %s\n", v);
                return 1;
            }
            b->sync = (enum sync)k;
        } else if (!strcmp(a, "-w")) {
            if ((*wintype = lookup(v, wintypes, NWIN)) < 0) {
                OSU_ERR("not a window type: %s\n", v);
                return 1;
            }
        } else if (!strcmp(a, "-J")) {
            *jit_seconds = strtod(v, &end);
            if (*v == '\0' || *end != '\0' || !(*jit_seconds >= 0 && *jit_seconds <= 3600)) {
                OSU_ERR("-J: expected seconds within [0, 3600], got '%s'\n", v);
                return 1;
            }
        } else {
            OSU_ERR("unknown option: %s\n", a);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct bench b;
    int nranks, rc, wintype = ALLOCATE, go, atomic, ranks[2] = { 0, 1 };
    long min = -1, max = 1L << 22, iterations = -1, warmup = -1, size, bytes;
    double jit_seconds = 1.0, until, t;
    char *memory;
    void *base;
    MPI_Group world_group;

    MPI_Init(&argc, &argv);
    memset(&b, 0, sizeof b);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    osu_verbose = b.rank == 0;
    b.sync = FLUSH;
    b.window = 64;
    rc = parse(argc, argv, &b, &min, &max, &iterations, &warmup, &wintype, &jit_seconds);
    if (rc == 0 && nranks < 2) {
        OSU_ERR("%s: needs 2 ranks or more\n", argv[0]);
        rc = 1;
    }
    if (rc != 0) {
        if (b.rank == 0) usage(argv[0]);
        MPI_Finalize();
        return rc;
    }
    atomic = b.test == FOP_LAT || b.test == CAS_LAT;
    if (atomic) min = max = 8;
    if (min < 0) min = b.test == ACC_LAT ? 4 : 1;
    if (min < 1) min = 1;
    bytes = max < 8 ? 8 : max;
    b.origin = osu_alloc(bytes, 'a');
    b.result = osu_alloc(bytes, 'b');
    memory = osu_alloc(bytes, 'c');
    b.one = 1;
    switch (wintype) {
    case ALLOCATE: MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &b.win); break;
    case CREATE: MPI_Win_create(memory, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b.win); break;
    default:
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &b.win);
        MPI_Win_attach(b.win, memory, bytes);
        MPI_Get_address(memory, &b.disp);
        MPI_Bcast(&b.disp, 1, MPI_AINT, 1, MPI_COMM_WORLD);
        break;
    }
    if (b.rank == 0) {
        printf("# OSU MPI-style %s (osu_rma_lite, %d ranks)\n", tests[b.test], nranks);
        osu_library();
        printf("# window: %s, synchronisation: %s", wintypes[wintype], syncs[b.sync]);
        if (is_bw(b.test)) printf(", window of %ld operations", b.window);
        printf("\n%s\n", is_bw(b.test) ? "# Size      Bandwidth (MB/s)" : "# Size          Latency (us)");
        fflush(stdout);
    }
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &ranks[1], &b.target);
    MPI_Group_incl(world_group, 1, &ranks[0], &b.origin_group);

    /* The Java twin's JIT warm-up on the smallest size, then the run. */
    until = MPI_Wtime() + jit_seconds;
    for (go = 1; go == 1;) {
        loop(&b, min, 200);
        go = MPI_Wtime() < until;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    for (size = min; size <= max; size *= 2) {
        int large = size > OSU_LARGE_MESSAGE_SIZE;
        long iters = iterations > 0 ? iterations : atomic || !large ? (is_bw(b.test) ? 1000 : 10000)
                                                                     : (is_bw(b.test) ? 100 : 1000);
        loop(&b, size, warmup >= 0 ? warmup : large ? 10 : 100);
        MPI_Barrier(MPI_COMM_WORLD);
        t = loop(&b, size, iters);
        if (b.rank == 0) {
            if (is_bw(b.test)) printf("%-10ld%18.2f\n", size, (double)size * b.window * iters / t / 1e6);
            else printf("%-10ld%18.3f\n", size, t * 1e6 / iters);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (wintype == DYNAMIC) MPI_Win_detach(b.win, memory);
    MPI_Group_free(&b.target);
    MPI_Group_free(&b.origin_group);
    MPI_Group_free(&world_group);
    MPI_Win_free(&b.win);
    free(memory);
    free(b.origin);
    free(b.result);
    MPI_Finalize();
    return 0;
}
