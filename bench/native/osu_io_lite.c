/*
 * MPI-IO bandwidth in the OSU style; the C twin of org.shmpi.bench.OsuIo (same first argument,
 * options, defaults, calls and output). Every rank moves SIZE bytes per call; MB/s (10^6 bytes)
 * of all ranks together, timed between two barriers.
 *   coll_write / coll_read: a 1-D block-cyclic view (blocks of -b bytes, default 4096, at most
 *     SIZE, dealt round-robin to the ranks: displacement rank*BLOCK, filetype BLOCK bytes resized
 *     to np*BLOCK), MPI_File_write_at_all / MPI_File_read_at_all at offset 0;
 *   ind_write / ind_read: the default view, MPI_File_write_at / MPI_File_read_at at rank*SIZE;
 *   shared_append: MPI_File_write_shared, the file growing (iterations and warm-up bounded to
 *     256 MiB / (np*SIZE) each).
 * Per size: a fresh file DIR/osu_io_TEST.<pid of rank 0>.dat (MPI_MODE_CREATE | MPI_MODE_RDWR |
 * MPI_MODE_DELETE_ON_CLOSE); a read test writes it once first (untimed); -x untimed calls; a barrier;
 * -i timed calls; a barrier; then the file is closed, which deletes it.
 * Defaults: -m 4096:4194304, -i max(10, min(5000, 256 MiB / SIZE)), -x max(2, ITER / 10), -d /dev/shm.
 * Build: mpicc -O2 -o osu_io_lite osu_io_lite.c
 * Run:   mpirun -np 2 ./osu_io_lite TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP] [-b BLOCK] [-d DIR]
 *        TEST: coll_write coll_read ind_write ind_read shared_append
 */
#include <limits.h>
#include <unistd.h>

#include "osu_lite.h"

enum test { COLL_WRITE, COLL_READ, IND_WRITE, IND_READ, SHARED_APPEND, NTEST };
static const char *const tests[NTEST] = { "coll_write", "coll_read", "ind_write", "ind_read", "shared_append" };

/* MPI-IO returns its errors (MPI_ERRORS_RETURN is the default handler of files): stop on any. */
static void check(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS) return;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "osu_io_lite: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call of TEST (a read test's write counterpart for the untimed first write). */
static void step(MPI_File fh, enum test test, char *buf, long size, int rank)
{
    int n = (int)size;
    switch (test) {
    case COLL_WRITE: check(MPI_File_write_at_all(fh, 0, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_write_at_all"); break;
    case COLL_READ: check(MPI_File_read_at_all(fh, 0, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_read_at_all"); break;
    case IND_WRITE:
        check(MPI_File_write_at(fh, (MPI_Offset)rank * size, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_write_at");
        break;
    case IND_READ:
        check(MPI_File_read_at(fh, (MPI_Offset)rank * size, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_read_at");
        break;
    case SHARED_APPEND: check(MPI_File_write_shared(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_write_shared"); break;
    default: break;
    }
}

static void usage(const char *prog)
{
    fprintf(stderr, "Usage: %s TEST [-m [MIN:]MAX] [-i ITER] [-x WARMUP] [-b BLOCK] [-d DIR]\n"
                    "  TEST: coll_write coll_read ind_write ind_read shared_append\n"
                    "  -m [MIN:]MAX  bytes per rank per call, MIN doubling up to MAX (default 4096:4194304)\n"
                    "  -i ITER       timed calls per size (default max(10, min(5000, 256 MiB / size)))\n"
                    "  -x WARMUP     untimed calls per size (default max(2, ITER / 10))\n"
                    "  -b BLOCK      block of the coll_* block-cyclic view, bytes (default 4096, at most the size)\n"
                    "  -d DIR        directory of the file (default /dev/shm)\n", prog);
}

/* Returns 0 to run, else the exit status. */
static int parse(int argc, char **argv, enum test *test, long *min, long *max, long *iterations, long *warmup,
                 long *block, const char **dir)
{
    int i, k;
    for (k = 0; k < NTEST; k++)
        if (argc > 1 && !strcmp(argv[1], tests[k])) break;
    if (k == NTEST) {
        OSU_ERR("%s: the first argument names the test, got %s\n", argv[0], argc > 1 ? argv[1] : "nothing");
        return 1;
    }
    *test = (enum test)k;
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
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
                *min = osu_number(low, "-m MIN", 1);
                *max = osu_number(colon + 1, "-m MAX", 1);
            } else {
                *max = osu_number(v, "-m MAX", 1);
            }
            if (*min < 0 || *max < 0) return 1;
            if (*max > INT_MAX) {
                OSU_ERR("-m: at most %d bytes per call\n", INT_MAX);
                return 1;
            }
        } else if (!strcmp(a, "-i")) {
            if ((*iterations = osu_number(v, a, 1)) < 0) return 1;
        } else if (!strcmp(a, "-x")) {
            if ((*warmup = osu_number(v, a, 0)) < 0) return 1;
        } else if (!strcmp(a, "-b")) {
            if ((*block = osu_number(v, a, 1)) < 0) return 1;
        } else if (!strcmp(a, "-d")) {
            *dir = v;
        } else {
            OSU_ERR("unknown option: %s\n", a);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    enum test test = COLL_WRITE;
    int rank, np, rc;
    long min = 4096, max = 4L << 20, iterations = -1, warmup = -1, block = 4096, size, i;
    long jobtag;
    const char *dir = "/dev/shm";
    char *name;
    size_t name_len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    osu_verbose = rank == 0;
    rc = parse(argc, argv, &test, &min, &max, &iterations, &warmup, &block, &dir);
    if (rc != 0) {
        if (rank == 0) usage(argv[0]);
        MPI_Finalize();
        return rc;
    }
    /* One file name on every rank: rank 0's pid. */
    jobtag = (long)getpid();
    MPI_Bcast(&jobtag, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    name_len = strlen(dir) + strlen(tests[test]) + 64;
    name = malloc(name_len);
    if (name == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(name, name_len, "%s/osu_io_%s.%ld.dat", dir, tests[test], jobtag);
    if (rank == 0) {
        printf("# OsuIo %s, np %d, dir %s, block %ld\n", tests[test], np, dir, block);
        osu_library();
        printf("# Size          MB/s\n");
        fflush(stdout);
    }

    for (size = min; size <= max; size *= 2) {
        long iters = iterations > 0 ? iterations : (1L << 28) / size;
        long warm, b = block < size ? block : size;
        double t0, t1;
        char *buf;
        MPI_File fh;
        MPI_Datatype filetype = MPI_DATATYPE_NULL, contig;

        if (iterations <= 0) {
            if (iters > 5000) iters = 5000;
            if (iters < 10) iters = 10;
        }
        warm = warmup >= 0 ? warmup : (iters / 10 < 2 ? 2 : iters / 10);
        if (test == SHARED_APPEND) {
            long bound = (256L << 20) / ((long)np * size);
            if (bound < 1) bound = 1;
            if (iters > bound) iters = bound;
            if (warm > bound) warm = bound;
        }
        buf = osu_alloc(size, 0);
        for (i = 0; i < size; i++) buf[i] = (char)(rank + i);

        check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh), "MPI_File_open");
        if (test == COLL_WRITE || test == COLL_READ) {
            MPI_Type_contiguous((int)b, MPI_BYTE, &contig);
            MPI_Type_create_resized(contig, 0, (MPI_Aint)np * b, &filetype);
            MPI_Type_free(&contig);
            MPI_Type_commit(&filetype);
            check(MPI_File_set_view(fh, (MPI_Offset)rank * b, MPI_BYTE, filetype, "native", MPI_INFO_NULL),
                  "MPI_File_set_view");
        }
        if (test == COLL_READ) step(fh, COLL_WRITE, buf, size, rank);
        if (test == IND_READ) step(fh, IND_WRITE, buf, size, rank);
        for (i = 0; i < warm; i++) step(fh, test, buf, size, rank);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; i++) step(fh, test, buf, size, rank);
        MPI_Barrier(MPI_COMM_WORLD);
        t1 = MPI_Wtime();
        if (rank == 0) {
            printf("%-10ld%18.2f\n", size, (double)size * np * iters / (t1 - t0) / 1e6);
            fflush(stdout);
        }
        check(MPI_File_close(&fh), "MPI_File_close");
        if (filetype != MPI_DATATYPE_NULL) MPI_Type_free(&filetype);
        free(buf);
        if (size > INT_MAX / 2) break;
    }
    free(name);
    MPI_Finalize();
    return 0;
}
