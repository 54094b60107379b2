/*
 * Multiple-pair bandwidth and message rate in the style of osu_mbw_mr; the C twin of
 * org.shmpi.bench.OsuMbwMr (same options, defaults and output). With N ranks, rank i < N/2 sends
 * to rank i + N/2, every pair as osu_bw (-W MPI_Isend / MPI_Irecv, MPI_Waitall, a 4-byte ack).
 * Reported: aggregate MB/s and messages/s of all pairs over the slowest sender's time (sent to
 * rank 0 point-to-point, as the Java twin does).
 * Build: mpicc -O2 -o osu_mbw_mr_lite osu_mbw_mr_lite.c
 * Run:   mpirun -np 2 ./osu_mbw_mr_lite [-m [MIN:]MAX] [-i N] [-x N] [-W N] [-j N] [-J S]
 */
#include "osu_lite.h"

#define TAG 103
#define ACK_TAG 104
#define TIME_TAG 105
#define ACK_BYTES 4

struct ctx {
    int sender, peer;
    const struct osu_options *o;
    char *buf, *ack;
    MPI_Request *reqs;
};

static double windows(const struct ctx *c, long size, long warmup, long iterations)
{
    double start = MPI_Wtime();
    long i, w, total = warmup + iterations, window = c->o->window;
    for (i = 0; i < total; i++) {
        if (i == warmup) start = MPI_Wtime();
        if (c->sender) {
            for (w = 0; w < window; w++)
                MPI_Isend(c->buf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, &c->reqs[w]);
            MPI_Waitall((int)window, c->reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(c->ack, ACK_BYTES, MPI_BYTE, c->peer, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (w = 0; w < window; w++)
                MPI_Irecv(c->buf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, &c->reqs[w]);
            MPI_Waitall((int)window, c->reqs, MPI_STATUSES_IGNORE);
            MPI_Send(c->ack, ACK_BYTES, MPI_BYTE, c->peer, ACK_TAG, MPI_COMM_WORLD);
        }
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
    int rank, nranks, rc, pairs, r;
    long size;
    double *all;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    rc = osu_start_ranks(argc, argv, OSU_BANDWIDTH, &o, rank, nranks, OSU_RANKS_EVEN);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    pairs = nranks / 2;
    c.sender = rank < pairs;
    c.peer = c.sender ? rank + pairs : rank - pairs;
    c.o = &o;
    c.buf = osu_alloc(o.max_size, c.sender ? 'a' : 'b');
    c.ack = osu_alloc(ACK_BYTES, 'c');
    c.reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
    all = malloc(sizeof(double) * (size_t)nranks);
    if (rank == 0) {
        printf("# OSU MPI-style Multiple Bandwidth / Message Rate Test (osu_mbw_mr_lite, window %ld)\n", o.window);
        printf("# %d pair(s): rank i sends to rank i + %d; osu_bw's windows in every pair\n", pairs, pairs);
        printf("# Aggregate of all pairs over the slowest sender's time\n");
        osu_library();
        osu_describe(&o);
        printf("# Size                  MB/s        Messages/s\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    osu_jit_warmup(rank, &o, chunk, &c);
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations = osu_iterations(&o, size);
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = windows(&c, size, osu_warmup(&o, size), iterations);
        osu_gather_to_zero(rank, nranks, c.sender ? t : 0.0, all, TIME_TAG);
        if (rank == 0) {
            double slowest = 0, messages = (double)pairs * (double)iterations * (double)o.window;
            for (r = 0; r < nranks; r++)
                if (all[r] > slowest) slowest = all[r];
            printf("%-10ld%20.2f%20.2f\n", size, messages * (double)size / 1e6 / slowest, messages / slowest);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(c.buf);
    free(c.ack);
    free(c.reqs);
    free(all);
    MPI_Finalize();
    return 0;
}
