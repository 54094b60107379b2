/*
 * append_paths: which way of appending to one file from two processes is fastest on this
 * machine, without MPI. Two forked processes take turns at a shared pointer (an atomic add in
 * shared anonymous memory) and append SIZE bytes each, COUNT times, by one of these paths:
 *
 *   0  pwrite at the reserved offset (what Open MPI C's write_shared does after its lock)
 *   1  as 0, with blocks reserved ahead (fallocate KEEP_SIZE, 16 appends or 4-64 MiB at a time):
 *      what shmpi's writeShared does
 *   2  as 1, then fallocate (mode 0: grows the size, never shrinks it) and a memcpy into a
 *      MAP_SHARED mapping of the file: no copy under the inode's lock
 *   3  as 2, with MADV_POPULATE_WRITE over each process's new part of the mapping
 *   4  memcpy into the mapping of a file grown to its final size up front (an upper bound for any
 *      mapped append: no size change per call)
 *   5  as 1, but the processes write in the order of their offsets (a user-space turn), so that
 *      the file grows at its end only
 *   6  as 1, the data first copied to a staging buffer (as a Java byte[] is before its pwrite)
 *
 * Prints the MB/s of both processes together (bytes over the slower one's time) and whether the
 * file's final size is right. Build: cc -O2 -o append_paths append_paths.c
 * Usage: append_paths FILE MODE SIZE COUNT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

struct shared
{
    _Atomic long written;   /* mode 5: bytes appended in order so far */
    char pad[120];
    _Atomic long pointer;   /* the shared file pointer */
    _Atomic long reserved;  /* how far blocks were reserved ahead */
    _Atomic int ready;
    _Atomic int go;
    double seconds[2];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Raises the reserved end past end, unless the other process does. */
static void reserve_ahead(struct shared *sh, int fd, long end, long ahead)
{
    long have;
    while (end > (have = atomic_load(&sh->reserved)))
    {
        long want = (end + ahead + 4095) & ~4095L;
        if (atomic_compare_exchange_strong(&sh->reserved, &have, want))
        {
            fallocate(fd, FALLOC_FL_KEEP_SIZE, have, want - have);
            return;
        }
    }
}

static void appender(struct shared *sh, const char *path, int rank, int mode, long size, int count, long total)
{
    long ahead = size * 16 < (4L << 20) ? (4L << 20) : size * 16;
    if (ahead > (64L << 20))
    {
        ahead = 64L << 20;
    }
    int fd = open(path, O_RDWR);
    char *buf = malloc(size);
    memset(buf, rank + 1, size);
    char *stage = malloc(size);
    memset(stage, 0, size);
    char *map = NULL;
    if (mode >= 2 && mode <= 4)
    {
        map = mmap(NULL, total + 2 * ahead, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    long populated = 0;
    atomic_fetch_add(&sh->ready, 1);
    while (!atomic_load(&sh->go))
    {
    }
    double t0 = now();
    for (int i = 0; i < count; i++)
    {
        long at = atomic_fetch_add(&sh->pointer, size);
        long end = at + size;
        if (mode != 0 && mode != 4)
        {
            reserve_ahead(sh, fd, end, ahead);
        }
        switch (mode)
        {
            case 0:
            case 1:
                pwrite(fd, buf, size, at);
                break;
            case 6:
                memcpy(stage, buf, size);
                __asm__ volatile("" : : "r"(stage) : "memory");
                pwrite(fd, stage, size, at);
                break;
            case 5:
                while (atomic_load_explicit(&sh->written, memory_order_acquire) != at)
                {
                    __builtin_ia32_pause();
                }
                pwrite(fd, buf, size, at);
                atomic_store_explicit(&sh->written, end, memory_order_release);
                break;
            default:
                if (mode != 4)
                {
                    fallocate(fd, 0, at, size);
                }
                if (mode == 3 && end > populated)
                {
                    long from = populated > at ? populated : (at & ~4095L);
                    long to = end;
                    madvise(map + from, to - from, MADV_POPULATE_WRITE);
                    populated = to;
                }
                memcpy(map + at, buf, size);
        }
    }
    sh->seconds[rank] = now() - t0;
    exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 5)
    {
        fprintf(stderr, "usage: %s FILE MODE SIZE COUNT\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int mode = atoi(argv[2]);
    long size = atol(argv[3]);
    int count = atoi(argv[4]);
    long total = size * count * 2;
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (mode == 4)
    {
        ftruncate(fd, total);
    }
    for (int r = 0; r < 2; r++)
    {
        if (fork() == 0)
        {
            appender(sh, path, r, mode, size, count, total);
        }
    }
    while (atomic_load(&sh->ready) < 2)
    {
    }
    atomic_store(&sh->go, 1);
    wait(NULL);
    wait(NULL);
    double t = sh->seconds[0] > sh->seconds[1] ? sh->seconds[0] : sh->seconds[1];
    struct stat st;
    fstat(fd, &st);
    printf("mode %d size %ld: %.0f MB/s, final size %s\n", mode, size, total / t / 1e6,
        st.st_size == total ? "right" : "WRONG");
    close(fd);
    unlink(path);
    return 0;
}
