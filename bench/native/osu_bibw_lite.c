/*
 * Bidirectional bandwidth between ranks 0 and 1 in the style of osu_bibw; the C twin of
 * org.shmpi.bench.OsuBibw (same options, defaults and output). Per window both ranks post -W
 * MPI_Irecv, then -W MPI_Isend, then one MPI_Waitall on all 2W requests. Bandwidth counts both
 * directions, in MB/s (10^6 bytes/s).
 * Build: mpicc -O2 -o osu_bibw_lite osu_bibw_lite.c
 * Run:   mpirun -np 2 ./osu_bibw_lite [-m [MIN:]MAX] [-i N] [-x N] [-W N] [-j N] [-J S]
 */
#include "osu_lite.h"

#define TAG 102

struct ctx {
    int peer;
    const struct osu_options *o;
    char *sbuf, *rbuf;
    MPI_Request *reqs;
};

static double windows(const struct ctx *c, long size, long warmup, long iterations)
{
    double start = MPI_Wtime();
    long i, w, total = warmup + iterations, window = c->o->window;
    for (i = 0; i < total; i++) {
        if (i == warmup) start = MPI_Wtime();
        for (w = 0; w < window; w++)
            MPI_Irecv(c->rbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, &c->reqs[w]);
        for (w = 0; w < window; w++)
            MPI_Isend(c->sbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, &c->reqs[window + w]);
        MPI_Waitall((int)(2 * window), c->reqs, MPI_STATUSES_IGNORE);
    }
    return MPI_Wtime() - start;
}

static void chunk(void *p)
{
    const struct ctx *c = p;
    windows(c, osu_prelude_size(c->o), 0, osu_jit_chunk(c->o));
}

int main(int argc, char **argv)
{
    struct osu_options o;
    struct ctx c;
    int rank, nranks, rc;
    long size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    rc = osu_start(argc, argv, OSU_BANDWIDTH, &o, rank, nranks);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    c.peer = 1 - rank;
    c.o = &o;
    c.sbuf = osu_alloc(o.max_size, 'a');
    c.rbuf = osu_alloc(o.max_size, 'b');
    c.reqs = malloc(sizeof(MPI_Request) * (size_t)(2 * o.window));
    if (rank == 0) {
        printf("# OSU MPI-style Bi-Directional Bandwidth Test (osu_bibw_lite, window %ld)\n", o.window);
        printf("# Method: osu_bibw's: both ranks post the window's MPI_Irecv, then its MPI_Isend, then "
               "MPI_Waitall; both directions counted\n");
        osu_library();
        osu_describe(&o);
        printf("# Size      Bandwidth (MB/s)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    osu_jit_warmup(rank, &o, chunk, &c);
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations = osu_iterations(&o, size);
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = windows(&c, size, osu_warmup(&o, size), iterations);
        if (rank == 0) {
            printf("%-10ld%18.2f\n", size, 2.0 * (double)size / 1e6 * (double)iterations * (double)o.window / t);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(c.sbuf);
    free(c.rbuf);
    free(c.reqs);
    MPI_Finalize();
    return 0;
}
