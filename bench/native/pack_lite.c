/*
 * pack_lite: MPI_Pack / MPI_Unpack of the three derived types of
 * org.shmpi.bench.jmh.PackBenchmark, with the same sizes and memory layout, timed the way that
 * benchmark is (warm-up iterations, then measured iterations of about one second each; the
 * figure is the mean time of one call over the measured iterations).
 *   column : MPI_Type_vector(2048, 1, 64, MPI_DOUBLE), one column of a 2048 x 64 matrix
 *   indexed: MPI_Type_indexed of 1024 blocks of ints, block i of 1 + i % 8 ints, 4 ints apart
 *   struct : 512 x {int id at 0; double x, y, z at 8; float mass at 32}, extent 40
 * Output, one line per type and operation: "type op packed_bytes ns_per_op".
 * Usage: mpirun -np 1 pack_lite [-w warmup_iterations] [-i iterations] [-t seconds_each]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 2048
#define COLUMNS 64
#define BLOCKS 1024
#define PARTICLES 512

static double run(int unpack, void *data, int count, MPI_Datatype type, char *packed, int bytes, double seconds)
{
    long calls = 0;
    long batch = 16;
    double start = MPI_Wtime();
    double now = start;
    while (now - start < seconds) {
        for (long i = 0; i < batch; i++) {
            int position = 0;
            if (unpack) {
                MPI_Unpack(packed, bytes, &position, data, count, type, MPI_COMM_WORLD);
            } else {
                MPI_Pack(data, count, type, packed, bytes, &position, MPI_COMM_WORLD);
            }
        }
        calls += batch;
        now = MPI_Wtime();
    }
    return (now - start) * 1e9 / (double)calls;
}

int main(int argc, char **argv)
{
    int warmup = 3, iterations = 3;
    double seconds = 1.0;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-w") == 0) warmup = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-i") == 0) iterations = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0) seconds = atof(argv[i + 1]);
        else { fprintf(stderr, "unknown option %s\n", argv[i]); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
    const char *names[3] = {"column", "indexed", "struct"};
    for (int t = 0; t < 3; t++) {
        MPI_Datatype type;
        void *data;
        int count = 1;
        size_t span;
        if (t == 0) {
            MPI_Type_vector(ROWS, 1, COLUMNS, MPI_DOUBLE, &type);
            span = (size_t)ROWS * COLUMNS * sizeof(double);
            data = malloc(span);
        } else if (t == 1) {
            int lengths[BLOCKS], displacements[BLOCKS], at = 0;
            for (int i = 0; i < BLOCKS; i++) {
                lengths[i] = 1 + i % 8;
                displacements[i] = at;
                at += lengths[i] + 4;
            }
            MPI_Type_indexed(BLOCKS, lengths, displacements, MPI_INT, &type);
            span = (size_t)at * sizeof(int);
            data = malloc(span);
        } else {
            int lengths[3] = {1, 3, 1};
            MPI_Aint displacements[3] = {0, 8, 32};
            MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT};
            MPI_Datatype particle;
            MPI_Type_create_struct(3, lengths, displacements, types, &particle);
            MPI_Type_create_resized(particle, 0, 40, &type);
            MPI_Type_free(&particle);
            count = PARTICLES;
            span = (size_t)PARTICLES * 40;
            data = malloc(span);
        }
        MPI_Type_commit(&type);
        int bytes;
        MPI_Pack_size(count, type, MPI_COMM_WORLD, &bytes);
        char *packed = malloc(bytes);
        for (int i = 0; i < bytes; i++) packed[i] = (char)(i * 7 + 3);
        /* Written pages with data in them, as on the Java side (calloc'd pages never written all
           map the one zero page: packing from them would read a single 4 KiB page). */
        memset(data, 0x11, span);
        int position = 0;
        MPI_Unpack(packed, bytes, &position, data, count, type, MPI_COMM_WORLD);

        for (int op = 0; op < 2; op++) {
            for (int w = 0; w < warmup; w++) run(op, data, count, type, packed, bytes, seconds);
            double sum = 0;
            for (int i = 0; i < iterations; i++) sum += run(op, data, count, type, packed, bytes, seconds);
            printf("%s %s %d %.1f\n", names[t], op ? "unpack" : "pack", bytes, sum / iterations);
            fflush(stdout);
        }
        MPI_Type_free(&type);
        free(packed);
        free(data);
    }
    MPI_Finalize();
    return 0;
}
