/*
 * Options, defaults and output shared by the *_lite.c benchmarks: the same
 * options, defaults and format as the Java benchmarks (org.shmpi.bench.OsuOptions), so that
 * every system runs the very same iterations.
 *   -m [MIN:]MAX  -i N  -x N  -W N  -j N  -J SECONDS  -b array|buffer (accepted; C has one kind)  -h
 *   -m A,B,...    exactly these sizes (a shmpi extension, as the Java side)
 *   --vary        collectives only: new send data every call
 */
#ifndef OSU_LITE_H
#define OSU_LITE_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSU_LARGE_MESSAGE_SIZE 8192
#define OSU_DEFAULT_MAX_SIZE (1 << 22)
#define OSU_PRELUDE_SIZE 8
#define OSU_JIT_CONTROL_TAG 7777

enum osu_kind { OSU_LATENCY, OSU_BANDWIDTH, OSU_BARRIER /* no sizes: -i/-x count barriers */,
                OSU_COLLECTIVE /* sizes per rank-block, one timed call per iteration */ };

#define OSU_DEFAULT_MAX_COLLECTIVE_SIZE (1 << 20)
#define OSU_MAX_SIZE_LIST 64

/* What osu_start_ranks accepts: exactly two ranks, an even number, or any number. */
enum osu_ranks { OSU_RANKS_TWO, OSU_RANKS_EVEN, OSU_RANKS_ANY };

/* Only rank 0 reports bad options. */
static int osu_verbose = 1;
#define OSU_ERR(...) do { if (osu_verbose) fprintf(stderr, __VA_ARGS__); } while (0)

struct osu_options {
    enum osu_kind kind;
    long min_size, max_size;
    long iterations; /* -1: by size */
    long warmup;     /* -1: by size */
    long window;
    long jit_prelude;
    double jit_seconds;
    int blocking;    /* osu_bw_lite -B */
    int vary;        /* collectives --vary */
    const char *buffer;
    int size_count;  /* -m A,B,...: that many sizes in size_list; 0: the ladder */
    long size_list[OSU_MAX_SIZE_LIST];
};

static int osu_compare_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static inline long osu_number(const char *s, const char *opt, long least)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < least) {
        OSU_ERR("%s: expected a number >= %ld, got '%s'\n", opt, least, s);
        return -2;
    }
    return v;
}

static inline void osu_usage(const char *prog, enum osu_kind kind)
{
    fprintf(stderr, "Usage: %s [options]\n", prog);
    fprintf(stderr, "  -m [MIN:]MAX        sizes MIN, 2*MIN, ... up to MAX bytes, or a list A,B,... (default %d:%d)\n",
            kind == OSU_LATENCY ? 0 : 1, kind == OSU_COLLECTIVE ? OSU_DEFAULT_MAX_COLLECTIVE_SIZE : OSU_DEFAULT_MAX_SIZE);
    fprintf(stderr, "  -i N                timed iterations per size (default: by size)\n");
    fprintf(stderr, "  -x N                untimed iterations per size (default: by size)\n");
    if (kind == OSU_BANDWIDTH) {
        fprintf(stderr, "  -W N                messages per window (default 64)\n");
        fprintf(stderr, "  -B                  blocking MPI_Send/MPI_Recv pipeline instead of MPI_Isend/MPI_Irecv\n");
    }
    fprintf(stderr, "  -j N                warm-up before the first size, as the Java twin (default 20000)\n");
    fprintf(stderr, "  -J S                ... and for at least S seconds (default 1.0)\n");
    fprintf(stderr, "  -b array|buffer     accepted for symmetry with Java; C has one buffer kind\n");
    if (kind == OSU_COLLECTIVE)
        fprintf(stderr, "  --vary              new send data every call (iteration number in the first and last 8 bytes of each block)\n");
}

/* Returns 0 on success, 1 on help, -1 on error. */
static inline int osu_parse(int argc, char **argv, enum osu_kind kind, struct osu_options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->min_size = kind == OSU_LATENCY ? 0 : 1;
    o->max_size = kind == OSU_COLLECTIVE ? OSU_DEFAULT_MAX_COLLECTIVE_SIZE : OSU_DEFAULT_MAX_SIZE;
    o->iterations = -1;
    o->warmup = -1;
    o->window = 64;
    o->jit_prelude = 20000;
    o->jit_seconds = 1.0;
    o->buffer = "array";
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            return 1;
        } else if (!strcmp(a, "-B") && kind == OSU_BANDWIDTH) {
            o->blocking = 1;
            continue;
        } else if (!strcmp(a, "--vary") && kind == OSU_COLLECTIVE) {
            o->vary = 1;
            continue;
        }
        if (v == NULL) {
            OSU_ERR("%s: unknown option or missing value\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "-m")) {
            const char *colon = strchr(v, ':');
            o->size_count = 0;
            if (strchr(v, ',')) {
                char list[1024], *tok, *save = NULL;
                if (strlen(v) >= sizeof list) return -1;
                strcpy(list, v);
                for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                    if (o->size_count == OSU_MAX_SIZE_LIST) {
                        OSU_ERR("-m: at most %d sizes\n", OSU_MAX_SIZE_LIST);
                        return -1;
                    }
                    if ((o->size_list[o->size_count++] = osu_number(tok, "-m SIZE", 0)) < 0) return -1;
                }
                qsort(o->size_list, (size_t)o->size_count, sizeof o->size_list[0], osu_compare_long);
                o->min_size = o->size_list[0];
                o->max_size = o->size_list[o->size_count - 1];
            } else if (colon) {
                char min[32];
                size_t n = (size_t)(colon - v);
                if (n >= sizeof min) return -1;
                memcpy(min, v, n);
                min[n] = '\0';
                o->min_size = osu_number(min, "-m MIN", 0);
                o->max_size = osu_number(colon + 1, "-m MAX", 0);
            } else {
                o->max_size = osu_number(v, "-m MAX", 0);
            }
            if (o->min_size < 0 || o->max_size < 0) return -1;
            if (o->min_size > o->max_size) {
                OSU_ERR("-m: MIN is larger than MAX\n");
                return -1;
            }
        } else if (!strcmp(a, "-i")) {
            if ((o->iterations = osu_number(v, a, 1)) < 0) return -1;
        } else if (!strcmp(a, "-x")) {
            if ((o->warmup = osu_number(v, a, 0)) < 0) return -1;
        } else if (!strcmp(a, "-W") && kind == OSU_BANDWIDTH) {
            if ((o->window = osu_number(v, a, 1)) < 0) return -1;
        } else if (!strcmp(a, "-j")) {
            if ((o->jit_prelude = osu_number(v, a, 0)) < 0) return -1;
        } else if (!strcmp(a, "-J")) {
            char *end;
            o->jit_seconds = strtod(v, &end);
            if (*v == '\0' || *end != '\0' || !(o->jit_seconds >= 0 && o->jit_seconds <= 3600)) {
                OSU_ERR("-J: expected seconds within [0, 3600], got '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "-b")) {
            if (strcmp(v, "array") && strcmp(v, "buffer") && strcmp(v, "direct")) {
                OSU_ERR("-b takes array or buffer\n");
                return -1;
            }
            o->buffer = v;
        } else {
            OSU_ERR("unknown option: %s\n", a);
            return -1;
        }
    }
    return 0;
}

static inline long osu_default_iterations(const struct osu_options *o, long size)
{
    long v;
    if (o->kind == OSU_BARRIER) return 1000;
    if (o->kind == OSU_BANDWIDTH) return size <= OSU_LARGE_MESSAGE_SIZE ? 100 : 20;
    if (o->kind == OSU_COLLECTIVE) return size <= OSU_LARGE_MESSAGE_SIZE ? 1000 : 100;
    if (size <= OSU_LARGE_MESSAGE_SIZE) return 10000;
    v = (1L << 26) / size;
    if (v > 1000) v = 1000;
    if (v < 200) v = 200;
    return v;
}

static inline long osu_iterations(const struct osu_options *o, long size)
{
    return o->iterations >= 0 ? o->iterations : osu_default_iterations(o, size);
}

static inline long osu_warmup(const struct osu_options *o, long size)
{
    long v;
    if (o->warmup >= 0) return o->warmup;
    if (o->kind == OSU_BARRIER) return 100;
    if (o->kind == OSU_BANDWIDTH) return size <= OSU_LARGE_MESSAGE_SIZE ? 10 : 2;
    if (o->kind == OSU_COLLECTIVE) return size <= OSU_LARGE_MESSAGE_SIZE ? 200 : 10;
    if (size <= OSU_LARGE_MESSAGE_SIZE) return 1000;
    v = osu_default_iterations(o, size) / 10;
    return v < 20 ? 20 : v;
}

static inline long osu_prelude_size(const struct osu_options *o)
{
    return o->max_size < OSU_PRELUDE_SIZE ? o->max_size : OSU_PRELUDE_SIZE;
}

/* Iterations of one warm-up chunk: 1000 round trips, or windows of about 1000 messages. */
static inline long osu_jit_chunk(const struct osu_options *o)
{
    long n;
    if (o->kind != OSU_BANDWIDTH) return 1000;
    n = 1000 / o->window;
    return n < 1 ? 1 : n;
}

typedef void (*osu_chunk_fn)(void *ctx);

/*
 * The warm-up before the first size, as the Java benchmarks do it: chunks of the benchmark's
 * loop until at least -j messages and -J seconds; after each chunk rank 0 tells the others whether
 * another one follows, then both enter a barrier.
 */
static inline void osu_jit_warmup(int rank, const struct osu_options *o, osu_chunk_fn chunk, void *ctx)
{
    long messages = 0;
    long per_chunk = o->kind == OSU_BANDWIDTH ? osu_jit_chunk(o) * o->window : osu_jit_chunk(o);
    double end;
    int more, r, nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (o->jit_prelude <= 0 && o->jit_seconds <= 0) return;
    end = MPI_Wtime() + o->jit_seconds;
    do {
        chunk(ctx);
        messages += per_chunk;
        if (rank == 0) {
            more = messages < o->jit_prelude || MPI_Wtime() < end;
            for (r = 1; r < nranks; r++)
                MPI_Send(&more, 1, MPI_INT, r, OSU_JIT_CONTROL_TAG, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&more, 1, MPI_INT, 0, OSU_JIT_CONTROL_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* as the Java twins, which warm their barrier up too */
    } while (more);
}

static inline long osu_next_size(long s)
{
    return s == 0 ? 1 : s * 2;
}

/* The size after s: the next of -m A,B,... (past the last: max_size + 1), else doubling. */
static inline long osu_next_size_in(const struct osu_options *o, long s)
{
    int i;
    if (o->size_count == 0) return osu_next_size(s);
    for (i = 0; i < o->size_count; i++)
        if (o->size_list[i] > s) return o->size_list[i];
    return o->max_size + 1;
}

static inline void osu_describe(const struct osu_options *o)
{
    const char *unit = o->kind == OSU_LATENCY ? "round trips" : "windows";
    if (o->kind == OSU_BARRIER) {
        printf("# Warm-up (as the Java twins' JIT warm-up): at least %ld barriers and at least %.1f s (-j, -J)\n",
               o->jit_prelude, o->jit_seconds);
        printf("# Warm-up: %ld barriers (-x); iterations: %ld barriers (-i)\n", osu_warmup(o, 0), osu_iterations(o, 0));
        return;
    }
    if (o->kind == OSU_COLLECTIVE) {
        printf("# Buffers: malloc'd, page aligned (-b %s accepted, no difference in C)\n", o->buffer);
        printf("# Warm-up before the first size (as the Java twins' JIT warm-up): at least %ld calls of %ld B "
               "and at least %.1f s (-j, -J)\n", o->jit_prelude, osu_prelude_size(o), o->jit_seconds);
        if (o->warmup >= 0) printf("# Warm-up per size: %ld calls (-x)\n", o->warmup);
        else printf("# Warm-up per size: 200 calls up to 8 KiB, then 10 (-x)\n");
        if (o->iterations >= 0) printf("# Iterations per size: %ld calls (-i)\n", o->iterations);
        else printf("# Iterations per size: 1000 calls up to 8 KiB, then 100 (-i)\n");
        printf(o->vary ? "# Send data: changed before every call (--vary: iteration number in the first and "
                         "last 8 bytes of each block)\n"
                       : "# Send data: the same every call (--vary changes it)\n");
        return;
    }
    printf("# Buffers: malloc'd, page aligned (-b %s accepted, no difference in C)\n", o->buffer);
    printf("# Warm-up before the first size (as the Java twins' JIT warm-up): at least %ld %s of %ld B "
           "and at least %.1f s (-j, -J)\n", o->jit_prelude, o->kind == OSU_LATENCY ? "round trips" : "messages",
           osu_prelude_size(o), o->jit_seconds);
    if (o->warmup >= 0)
        printf("# Warm-up per size: %ld %s (-x)\n", o->warmup, unit);
    else if (o->kind == OSU_LATENCY)
        printf("# Warm-up per size: 1000 round trips up to 8 KiB, then 1/10 of the iterations, at least 20 (-x)\n");
    else
        printf("# Warm-up per size: 10 windows up to 8 KiB, then 2 (-x)\n");
    if (o->iterations >= 0)
        printf("# Iterations per size: %ld %s (-i)\n", o->iterations, unit);
    else if (o->kind == OSU_LATENCY)
        printf("# Iterations per size: 10000 up to 8 KiB, then 2^26/size within [200, 1000] (-i)\n");
    else
        printf("# Iterations per size: 100 windows up to 8 KiB, then 20 (-i)\n");
}

static inline void osu_library(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    char *nl;
    MPI_Get_library_version(version, &len);
    nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    nl = strchr(version, ',');
    if (nl) *nl = '\0';
    printf("# C, %s\n", version);
}

static inline void *osu_alloc(long bytes, int fill)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, (size_t)(bytes < 4 ? 4 : bytes)) != 0) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, fill, (size_t)(bytes < 4 ? 4 : bytes));
    return p;
}

/* Common start: parse, check the rank count. Returns -1 to run, else the exit status (after Finalize). */
static inline int osu_start_ranks(int argc, char **argv, enum osu_kind kind, struct osu_options *o, int rank, int size,
                           enum osu_ranks need)
{
    int rc;
    osu_verbose = rank == 0;
    rc = osu_parse(argc, argv, kind, o);
    if (rc != 0) {
        if (rank == 0) osu_usage(argv[0], kind);
        return rc == 1 ? 0 : 1;
    }
    if (need == OSU_RANKS_TWO && size != 2) {
        if (rank == 0) fprintf(stderr, "%s: this test requires exactly two processes, got %d\n", argv[0], size);
        return 1;
    }
    if (need == OSU_RANKS_EVEN && (size < 2 || size % 2 != 0)) {
        if (rank == 0) fprintf(stderr, "%s: this test requires an even number of processes, got %d\n", argv[0], size);
        return 1;
    }
    return -1;
}

static inline int osu_start(int argc, char **argv, enum osu_kind kind, struct osu_options *o, int rank, int size)
{
    return osu_start_ranks(argc, argv, kind, o, rank, size, OSU_RANKS_TWO);
}

/* One double from every rank to rank 0 by point-to-point (as the Java twins: no collectives). */
static inline void osu_gather_to_zero(int rank, int nranks, double value, double *all, int tag)
{
    int r;
    if (rank != 0) {
        MPI_Send(&value, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
        return;
    }
    all[0] = value;
    for (r = 1; r < nranks; r++)
        MPI_Recv(&all[r], 1, MPI_DOUBLE, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

#endif
