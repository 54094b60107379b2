/*
 * Barrier latency in the style of osu_barrier; the C twin of org.shmpi.bench.OsuBarrier (same
 * options, defaults and output): -x untimed then -i timed MPI_Barrier on all ranks; reported is
 * the mean us per barrier of every rank, averaged over the ranks. The row's first column is the
 * number of ranks.
 * Build: mpicc -O2 -o osu_barrier_lite osu_barrier_lite.c
 * Run:   mpirun -np 4 ./osu_barrier_lite [-i N] [-x N] [-j N] [-J S]
 */
#include "osu_lite.h"

#define TIME_TAG 108

static double barriers(long warmup, long iterations)
{
    double start;
    long i;
    for (i = 0; i < warmup; i++) MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    for (i = 0; i < iterations; i++) MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - start;
}

static void chunk(void *p)
{
    const struct osu_options *o = p;
    barriers(0, osu_jit_chunk(o));
}

int main(int argc, char **argv)
{
    struct osu_options o;
    int rank, nranks, rc, r;
    long iterations;
    double t, sum = 0, *all;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    rc = osu_start_ranks(argc, argv, OSU_BARRIER, &o, rank, nranks, OSU_RANKS_ANY);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    all = malloc(sizeof(double) * (size_t)nranks);
    if (rank == 0) {
        printf("# OSU MPI-style Barrier Latency Test (osu_barrier_lite, %d ranks)\n", nranks);
        printf("# Mean time per barrier of every rank, averaged over the ranks\n");
        osu_library();
        osu_describe(&o);
        printf("# Ranks         Latency (us)\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (nranks > 1) osu_jit_warmup(rank, &o, chunk, &o);
    MPI_Barrier(MPI_COMM_WORLD);
    iterations = osu_iterations(&o, 0);
    t = barriers(osu_warmup(&o, 0), iterations);
    osu_gather_to_zero(rank, nranks, t * 1e6 / (double)iterations, all, TIME_TAG);
    if (rank == 0) {
        for (r = 0; r < nranks; r++) sum += all[r];
        printf("%-10d%18.2f\n", nranks, sum / nranks);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(all);
    MPI_Finalize();
    return 0;
}
