/*
 * One-way latency by blocking ping-pong between ranks 0 and 1, in the style of osu_latency;
 * the C twin of org.shmpi.bench.OsuLatency (same options, defaults and output).
 * Build: mpicc -O2 -o osu_latency_lite osu_latency_lite.c
 * Run:   mpirun -np 2 ./osu_latency_lite [-m [MIN:]MAX] [-i N] [-x N] [-j N] [-J S]
 */
#include "osu_lite.h"

#define TAG 1

static double ping_pong(int rank, char *sbuf, char *rbuf, long size, long warmup, long iterations)
{
    double start = MPI_Wtime();
    long i, total = warmup + iterations;
    for (i = 0; i < total; i++) {
        if (i == warmup) start = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - start;
}

struct chunk_ctx {
    int rank;
    const struct osu_options *o;
    char *sbuf, *rbuf;
};

static void chunk(void *p)
{
    struct chunk_ctx *c = p;
    ping_pong(c->rank, c->sbuf, c->rbuf, osu_prelude_size(c->o), 0, osu_jit_chunk(c->o));
}

int main(int argc, char **argv)
{
    struct osu_options o;
    int rank, nranks, rc;
    long size;
    char *sbuf, *rbuf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    rc = osu_start(argc, argv, OSU_LATENCY, &o, rank, nranks);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    sbuf = osu_alloc(o.max_size, 'a');
    rbuf = osu_alloc(o.max_size, 'b');
    if (rank == 0) {
        printf("# OSU MPI-style Latency Test (osu_latency_lite, blocking MPI_Send/MPI_Recv ping-pong)\n");
        osu_library();
        osu_describe(&o);
        printf("# Size          Latency (us)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
        struct chunk_ctx c = { rank, &o, sbuf, rbuf };
        osu_jit_warmup(rank, &o, chunk, &c);
    }
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations = osu_iterations(&o, size);
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = ping_pong(rank, sbuf, rbuf, size, osu_warmup(&o, size), iterations);
        if (rank == 0) {
            printf("%-10ld%18.2f\n", size, t * 1e6 / (2.0 * (double)iterations));
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
