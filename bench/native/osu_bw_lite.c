/*
 * Unidirectional bandwidth from rank 0 to rank 1 in the style of osu_bw; the C twin of
 * org.shmpi.bench.OsuBw (same options, defaults and output). By default the method of osu_bw:
 * per window, rank 0 posts -W MPI_Isend and rank 1 -W MPI_Irecv, both MPI_Waitall, then rank 1
 * sends a 4-byte ack. With -B: a blocking MPI_Send/MPI_Recv pipeline, the method the Java
 * OsuBw uses until the mpi API has nonblocking calls. Bandwidth in MB/s (10^6 bytes/s).
 * Build: mpicc -O2 -o osu_bw_lite osu_bw_lite.c
 * Run:   mpirun -np 2 ./osu_bw_lite [-m [MIN:]MAX] [-i N] [-x N] [-W N] [-j N] [-J S] [-B]
 */
#include "osu_lite.h"

#define TAG 100
#define ACK_TAG 101
#define ACK_BYTES 4

static double windows(int rank, const struct osu_options *o, char *sbuf, char *rbuf, char *ack,
                      MPI_Request *reqs, long size, long warmup, long iterations)
{
    double start = MPI_Wtime();
    long i, w, total = warmup + iterations, window = o->window;
    for (i = 0; i < total; i++) {
        if (i == warmup) start = MPI_Wtime();
        if (rank == 0) {
            if (o->blocking) {
                for (w = 0; w < window; w++)
                    MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            } else {
                for (w = 0; w < window; w++)
                    MPI_Isend(sbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall((int)window, reqs, MPI_STATUSES_IGNORE);
            }
            MPI_Recv(ack, ACK_BYTES, MPI_BYTE, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            if (o->blocking) {
                for (w = 0; w < window; w++)
                    MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (w = 0; w < window; w++)
                    MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall((int)window, reqs, MPI_STATUSES_IGNORE);
            }
            MPI_Send(ack, ACK_BYTES, MPI_BYTE, 0, ACK_TAG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - start;
}

struct chunk_ctx {
    int rank;
    const struct osu_options *o;
    char *sbuf, *rbuf, *ack;
    MPI_Request *reqs;
};

static void chunk(void *p)
{
    struct chunk_ctx *c = p;
    windows(c->rank, c->o, c->sbuf, c->rbuf, c->ack, c->reqs, osu_prelude_size(c->o), 0, osu_jit_chunk(c->o));
}

int main(int argc, char **argv)
{
    struct osu_options o;
    int rank, nranks, rc;
    long size;
    char *sbuf, *rbuf, *ack;
    MPI_Request *reqs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    rc = osu_start(argc, argv, OSU_BANDWIDTH, &o, rank, nranks);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    sbuf = osu_alloc(o.max_size, 'a');
    rbuf = osu_alloc(o.max_size, 'b');
    ack = osu_alloc(ACK_BYTES, 'c');
    reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
    if (rank == 0) {
        if (o.blocking)
            printf("# OSU MPI-style Bandwidth Test (osu_bw_lite -B, blocking send/recv pipeline, window %ld)\n",
                   o.window);
        else
            printf("# OSU MPI-style Bandwidth Test (osu_bw_lite, windowed MPI_Isend/MPI_Irecv + MPI_Waitall as "
                   "osu_bw, window %ld)\n", o.window);
        osu_library();
        osu_describe(&o);
        printf("# Size      Bandwidth (MB/s)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
        struct chunk_ctx c = { rank, &o, sbuf, rbuf, ack, reqs };
        osu_jit_warmup(rank, &o, chunk, &c);
    }
    for (size = o.min_size; size <= o.max_size; size = osu_next_size_in(&o, size)) {
        long iterations = osu_iterations(&o, size);
        double t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = windows(rank, &o, sbuf, rbuf, ack, reqs, size, osu_warmup(&o, size), iterations);
        if (rank == 0) {
            printf("%-10ld%18.2f\n", size, (double)size / 1e6 * (double)iterations * (double)o.window / t);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(ack);
    free(reqs);
    MPI_Finalize();
    return 0;
}
