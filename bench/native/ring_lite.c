/* Token ring: rank 0 sends an int to rank 1, ... back to rank 0, for -l laps; prints the mean
 * time per hop in microseconds. The C twin of org.shmpi.bench.RingBench. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, laps = 20000, warm = 2000, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-l")) laps = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "-x")) warm = atoi(argv[i + 1]);
    }
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double start = 0;
    for (int lap = 0; lap < warm + laps; lap++) {
        if (lap == warm) { MPI_Barrier(MPI_COMM_WORLD); start = MPI_Wtime(); }
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, next, 1, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 1, MPI_COMM_WORLD);
        }
    }
    double elapsed = MPI_Wtime() - start;
    if (rank == 0) printf("ring np=%d laps=%d us_per_hop=%.3f\n", size, laps, elapsed * 1e6 / ((double)laps * size));
    MPI_Finalize();
    return 0;
}
