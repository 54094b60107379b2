/*
 * Collective latency in the style of osu_allreduce, osu_bcast, ...; the C twin of
 * org.shmpi.bench.OsuCollective (same first argument, options, defaults and output):
 *   allreduce | bcast | reduce | gather | scatter | allgather | alltoall
 * Per size, -x untimed then -i timed calls, each timed on its own and followed by an untimed
 * MPI_Barrier; reported is the mean us per call of every rank averaged over the ranks, and its
 * minimum and maximum over the ranks. Size = bytes per rank-block; allreduce and reduce sum
 * size/8 doubles (MPI_DOUBLE, MPI_SUM; sizes below 8 skipped), the others move MPI_BYTEs; root 0.
 * --vary writes the iteration number into the first and last 8 bytes of every send block.
 * Build: mpicc -O2 -o osu_coll_lite osu_coll_lite.c
 * Run:   mpirun -np 4 ./osu_coll_lite allreduce [-m [MIN:]MAX | -m A,B,...] [-i N] [-x N] [-j N] [-J S] [--vary]
 */
#include "osu_lite.h"

#define TIME_TAG 109
#define ROOT 0

enum coll { ALLREDUCE, BCAST, REDUCE, GATHER, SCATTER, ALLGATHER, ALLTOALL, NCOLL };
static const char *const names[NCOLL] = { "allreduce", "bcast", "reduce", "gather", "scatter", "allgather", "alltoall" };
static const char *const titles[NCOLL] = { "Allreduce", "Broadcast", "Reduce", "Gather", "Scatter", "Allgather",
                                           "All-to-All" };

struct bench {
    enum coll op;
    const struct osu_options *o;
    int rank, nranks;
    char *sendbuf, *recvbuf;
    int send_blocks;
};

static int reduces(enum coll op)
{
    return op == ALLREDUCE || op == REDUCE;
}

static void call(const struct bench *b, long size)
{
    int n = (int)size;
    switch (b->op) {
    case ALLREDUCE: MPI_Allreduce(b->sendbuf, b->recvbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case REDUCE: MPI_Reduce(b->sendbuf, b->recvbuf, n / 8, MPI_DOUBLE, MPI_SUM, ROOT, MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(b->recvbuf, n, MPI_BYTE, ROOT, MPI_COMM_WORLD); break;
    case GATHER: MPI_Gather(b->sendbuf, n, MPI_BYTE, b->recvbuf, n, MPI_BYTE, ROOT, MPI_COMM_WORLD); break;
    case SCATTER: MPI_Scatter(b->sendbuf, n, MPI_BYTE, b->recvbuf, n, MPI_BYTE, ROOT, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(b->sendbuf, n, MPI_BYTE, b->recvbuf, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case ALLTOALL: MPI_Alltoall(b->sendbuf, n, MPI_BYTE, b->recvbuf, n, MPI_BYTE, MPI_COMM_WORLD); break;
    default: break;
    }
}

/* The iteration number (little-endian long) at the start and the end of [p, p + size). */
static void stamp_bytes(char *p, long size, long value)
{
    int k;
    for (k = 0; k < 8 && k < size; k++) p[k] = (char)(value >> (8 * k));
    if (size > 8)
        for (k = 0; k < 8; k++) p[size - 8 + k] = (char)(value >> (8 * k));
}

/* --vary, as the Java twin: every block this rank sends; reductions: the first and last double. */
static void stamp(const struct bench *b, long size, long iteration)
{
    int block;
    if (b->op == BCAST) {
        if (b->rank == ROOT) stamp_bytes(b->recvbuf, size, iteration);
        return;
    }
    if (b->op == SCATTER && b->rank != ROOT) return;
    if (reduces(b->op)) {
        double *d = (double *)b->sendbuf;
        d[0] = (double)iteration;
        d[size / 8 - 1] = (double)iteration;
        return;
    }
    for (block = 0; block < b->send_blocks; block++) stamp_bytes(b->sendbuf + (long)block * size, size, iteration);
}

static double calls(const struct bench *b, long size, long warmup, long iterations)
{
    double seconds = 0, start, end;
    long i;
    for (i = 0; i < warmup + iterations; i++) {
        if (b->o->vary) stamp(b, size, i);
        start = MPI_Wtime();
        call(b, size);
        end = MPI_Wtime();
        if (i >= warmup) seconds += end - start;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return seconds;
}

static void chunk(void *p)
{
    const struct bench *b = p;
    long prelude = osu_prelude_size(b->o);
    if (reduces(b->op) && prelude < 8) prelude = 8;
    calls(b, prelude, 0, osu_jit_chunk(b->o));
}

/* Doubles of 1.0 for the reductions, else bytes of fill. */
static char *alloc_for(enum coll op, long bytes, int fill)
{
    char *p = osu_alloc(bytes, fill);
    long i;
    if (reduces(op))
        for (i = 0; i + 8 <= bytes; i += 8) ((double *)p)[i / 8] = 1.0;
    return p;
}

int main(int argc, char **argv)
{
    struct osu_options o;
    struct bench b;
    int rank, nranks, rc, r, op = -1, root;
    long size, max, send_bytes, recv_bytes;
    double t, sum, mn, mx, *all;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1)
        for (r = 0; r < NCOLL; r++)
            if (!strcmp(argv[1], names[r])) op = r;
    if (op < 0) {
        if (rank == 0) {
            fprintf(stderr, "%s: the first argument names the collective "
                    "(allreduce|bcast|reduce|gather|scatter|allgather|alltoall), got %s\n",
                    argv[0], argc > 1 ? argv[1] : "nothing");
            osu_usage(argv[0], OSU_COLLECTIVE);
        }
        MPI_Finalize();
        return 1;
    }
    argv[1] = argv[0]; /* the options follow the collective's name */
    rc = osu_start_ranks(argc - 1, argv + 1, OSU_COLLECTIVE, &o, rank, nranks, OSU_RANKS_ANY);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    root = rank == ROOT;
    max = o.max_size < 8 ? 8 : o.max_size;
    switch (op) {
    /* As the Java twin: buffers that only the root reads or writes are a token elsewhere. */
    case GATHER: send_bytes = max; recv_bytes = root ? max * nranks : 8; break;
    case SCATTER: send_bytes = root ? max * nranks : 8; recv_bytes = max; break;
    case ALLGATHER: send_bytes = max; recv_bytes = max * nranks; break;
    case ALLTOALL: send_bytes = max * nranks; recv_bytes = send_bytes; break;
    case BCAST: send_bytes = 8; recv_bytes = max; break;
    default: send_bytes = max; recv_bytes = max; break;
    }
    b.op = (enum coll)op;
    b.o = &o;
    b.rank = rank;
    b.nranks = nranks;
    b.sendbuf = alloc_for(b.op, send_bytes, 'a');
    b.recvbuf = alloc_for(b.op, recv_bytes, 'b');
    b.send_blocks = op == ALLTOALL || (op == SCATTER && root) ? nranks : 1;
    all = malloc(sizeof(double) * (size_t)nranks);
    if (rank == 0) {
        printf("# OSU MPI-style %s Latency Test (osu_coll_lite %s, %d ranks)\n", titles[op], names[op], nranks);
        printf("# %s\n", reduces(b.op) ? "MPI_DOUBLE, MPI_SUM: size/8 doubles per rank; sizes below 8 B skipped"
                                       : "MPI_BYTE; size = bytes per rank-block; root 0");
        printf("# Each call timed on its own, then an untimed barrier; mean us per call of every rank, "
               "averaged over the ranks (Avg), and its least and largest rank (Min, Max)\n");
        osu_library();
        osu_describe(&o);
        printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    osu_jit_warmup(rank, &o, chunk, &b);
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations;
        if (reduces(b.op) && size < 8) continue;
        MPI_Barrier(MPI_COMM_WORLD);
        iterations = osu_iterations(&o, size);
        t = calls(&b, size, osu_warmup(&o, size), iterations);
        osu_gather_to_zero(rank, nranks, t * 1e6 / (double)iterations, all, TIME_TAG);
        if (rank == 0) {
            sum = 0;
            mn = all[0];
            mx = all[0];
            for (r = 0; r < nranks; r++) {
                sum += all[r];
                if (all[r] < mn) mn = all[r];
                if (all[r] > mx) mx = all[r];
            }
            printf("%-10ld%18.2f%18.2f%18.2f\n", size, sum / nranks, mn, mx);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
    free(b.sendbuf);
    free(b.recvbuf);
    MPI_Finalize();
    return 0;
}
