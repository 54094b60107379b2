/*
 * Multi-pair latency in the style of osu_multi_lat; the C twin of org.shmpi.bench.OsuMultiLat
 * (same options, defaults and output). With N ranks, rank i < N/2 ping-pongs with rank i + N/2
 * (MPI_Send/MPI_Recv), all pairs at once; reported is the one-way latency averaged over the
 * pairs, in us (sent to rank 0 point-to-point, as the Java twin does).
 * Build: mpicc -O2 -o osu_multi_lat_lite osu_multi_lat_lite.c
 * Run:   mpirun -np 4 ./osu_multi_lat_lite [-m [MIN:]MAX] [-i N] [-x N] [-j N] [-J S]
 */
#include "osu_lite.h"

#define TAG 106
#define TIME_TAG 107

struct ctx {
    int first, peer;
    const struct osu_options *o;
    char *sbuf, *rbuf;
};

static double ping_pong(const struct ctx *c, long size, long warmup, long iterations)
{
    double start = MPI_Wtime();
    long i, total = warmup + iterations;
    for (i = 0; i < total; i++) {
        if (i == warmup) start = MPI_Wtime();
        if (c->first) {
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD);
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->rbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, (int)size, MPI_BYTE, c->peer, TAG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - start;
}

static void chunk(void *p)
{
    const struct ctx *c = p;
    ping_pong(c, osu_prelude_size(c->o), 0, osu_jit_chunk(c->o));
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
    rc = osu_start_ranks(argc, argv, OSU_LATENCY, &o, rank, nranks, OSU_RANKS_EVEN);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    pairs = nranks / 2;
    c.first = rank < pairs;
    c.peer = c.first ? rank + pairs : rank - pairs;
    c.o = &o;
    c.sbuf = osu_alloc(o.max_size, 'a');
    c.rbuf = osu_alloc(o.max_size, 'b');
    all = malloc(sizeof(double) * (size_t)nranks);
    if (rank == 0) {
        printf("# OSU MPI-style Multi Latency Test (osu_multi_lat_lite, MPI_Send/MPI_Recv ping-pong)\n");
        printf("# %d pair(s): rank i with rank i + %d; one-way latency averaged over the pairs\n", pairs, pairs);
        osu_library();
        osu_describe(&o);
        printf("# Size          Latency (us)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    osu_jit_warmup(rank, &o, chunk, &c);
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations = osu_iterations(&o, size);
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = ping_pong(&c, size, osu_warmup(&o, size), iterations);
        osu_gather_to_zero(rank, nranks, c.first ? t * 1e6 / (2.0 * (double)iterations) : 0.0, all, TIME_TAG);
        if (rank == 0) {
            double sum = 0;
            for (r = 0; r < pairs; r++) sum += all[r];
            printf("%-10ld%18.2f\n", size, sum / pairs);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(c.sbuf);
    free(c.rbuf);
    free(all);
    MPI_Finalize();
    return 0;
}
