/*
 * The shared region's safety properties, checked from inside a job (run on 2-4 ranks):
 *   --segment  after a shared-memory collective the region is mapped, without a name in /dev/shm
 *              ("(deleted)" in /proc/self/maps: a memfd, or the named segment once unlinked;
 *              --named: it must be the named one, --memfd: the memfd), and the mapped object is
 *              this user's with mode 0600
 *   --soak N   N small allreduces (every rank checks the result): no growth in resident memory,
 *              mappings or open files after the first 1,000
 *   --cycles N N communicators created, used with a shared-memory allreduce, and freed: no growth
 *              in mappings, open files or resident memory
 *   --kill     rank 1 is killed with SIGKILL by a thread of its own while the ranks run large
 *              shared-memory allreduces; the job must end (the driver, shm_kill.sh, checks that
 *              it ends in time and that /dev/shm holds no vred segment afterwards)
 * Exits 1 on a failed check (rank 0 prints the summary).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "proc_usage.h"

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

static int rank, size, failed;

/* The MPI's own pools may grow a few times when messages arrive before their receives are
 * posted (UCX's unexpected-message mpool adds a 148 KiB chunk now and then, measured under
 * MPICH 4.0.2); a leak per call or per communicator shows hundreds of new mappings. */
enum { MPI_POOL_MAPS = 4 };

static void fail(const char *what)
{
    fprintf(stderr, "shm_safety: rank %d: %s\n", rank, what);
    failed = 1;
}

/* What a vred segment's mapping is called in /proc/self/maps: the named segment's file, or the
 * memfd vred makes (coll/shm/region.c). */
static const char *const SEGMENT_NAMES[] = {"/dev/shm/vred-", "/memfd:vred "};
static int want_kind = -1; /* --named: 0, --memfd: 1, else either */

/* Lines of /proc/self/maps naming a vred segment (of want_kind); *deleted = how many say
 * "(deleted)". */
static int vred_mappings(int *deleted, char *range, size_t range_len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    *deleted = 0;
    while (f && fgets(line, sizeof line, f)) {
        int named = strstr(line, SEGMENT_NAMES[0]) != NULL, memfd = strstr(line, SEGMENT_NAMES[1]) != NULL;
        if (!(want_kind == 0 ? named : want_kind == 1 ? memfd : named || memfd)) continue;
        n++;
        if (strstr(line, "(deleted)")) (*deleted)++;
        if (range) snprintf(range, range_len, "%.*s", (int)strcspn(line, " "), line);
    }
    if (f) fclose(f);
    return n;
}

static void allreduce_check(MPI_Comm c, int n)
{
    int csize;
    MPI_Comm_size(c, &csize);
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    int *all = malloc((size_t)csize * sizeof(int));
    for (int i = 0; i < n; i++) in[i] = i + rank;
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, c);
    PMPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c);
    long want0 = 0;
    for (int i = 0; i < csize; i++) want0 += all[i];
    for (int i = 0; i < n; i++)
        if (out[i] != (int)(want0 + (long)csize * i)) {
            fail("allreduce result wrong");
            break;
        }
    free(all);
    free(in);
    free(out);
}

static void check_segment(void)
{
    if (vred_mpi_force) vred_mpi_force("allreduce", "ma");
    allreduce_check(MPI_COMM_WORLD, 100000);
    const char *la = vred_mpi_last_alg ? vred_mpi_last_alg() : "?";
    if (strcmp(la, "ma")) fail("the allreduce was not served by the shared-memory algorithm");
    int deleted;
    char range[128] = "";
    int n = vred_mappings(&deleted, range, sizeof range);
    if (n < 1) fail("no vred segment mapped");
    if (deleted != n) fail("a vred segment still has a name in /dev/shm");
    if (rank == 0 && n >= 1)
        printf("segment: %s\n", want_kind == 1 ? "a memfd" : want_kind == 0 ? "named" : "either");
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/map_files/%s", range);
    if (n >= 1 && stat(path, &st) == 0) {
        if ((st.st_mode & 0777) != 0600) fail("the segment's mode is not 0600");
        if (st.st_uid != getuid()) fail("the segment is not owned by this user");
        if (rank == 0) printf("segment: mapped, unlinked, mode %03o, owner uid %d\n",
                              (unsigned)(st.st_mode & 0777), (int)st.st_uid);
    } else if (n >= 1 && rank == 0) {
        printf("note: %s cannot be read here; the mode is checked at creation only\n", path);
    }
    if (vred_mpi_force) vred_mpi_force("allreduce", "auto");
}

static void soak(long iters)
{
    long rss0 = 0, maps0 = 0, fds0 = 0;
    int v = rank + 1, out;
    for (long i = 0; i < iters; i++) {
        if (i == 1000) rss0 = usage_rss_kib(), maps0 = usage_maps(), fds0 = usage_fds();
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (out != size * (size + 1) / 2) {
            fail("small allreduce result wrong");
            break;
        }
    }
    long drss = usage_rss_kib() - rss0;
    if (usage_maps() > maps0 + MPI_POOL_MAPS) fail("mappings grew during the soak");
    if (usage_fds() != fds0) fail("open files grew during the soak");
    if (drss > 1024) fail("resident memory grew by more than 1 MiB during the soak");
    if (rank == 0) printf("soak: %ld allreduces, rss %+ld KiB\n", iters, drss);
}

static void cycles(long n)
{
    long rss0 = 0, maps0 = 0, fds0 = 0;
    for (long i = 0; i < n; i++) {
        if (i == 20) rss0 = usage_rss_kib(), maps0 = usage_maps(), fds0 = usage_fds();
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (vred_mpi_force) vred_mpi_force("allreduce", i % 2 ? "ma" : "dpml");
        allreduce_check(c, 1000 + (int)(i % 7));
        MPI_Comm_free(&c);
    }
    if (vred_mpi_force) vred_mpi_force("allreduce", "auto");
    long drss = usage_rss_kib() - rss0;
    int deleted;
    if (vred_mappings(&deleted, NULL, 0) != 0) fail("a freed communicator's segment is still mapped");
    if (usage_maps() > maps0 + MPI_POOL_MAPS) fail("mappings grew over the cycles");
    if (usage_fds() > fds0) fail("open files grew over the cycles");
    if (drss > 2048) fail("resident memory grew by more than 2 MiB over the cycles");
    if (rank == 0) printf("cycles: %ld communicators, rss %+ld KiB\n", n, drss);
}

static void *killer(void *arg)
{
    (void)arg;
    struct timespec t = {0, 300 * 1000 * 1000};
    nanosleep(&t, NULL);
    kill(getpid(), SIGKILL);
    return NULL;
}

static void kill_run(void)
{
    size_t n = 8 << 20;
    float *in = calloc(n, sizeof *in), *out = calloc(n, sizeof *out);
    if (vred_mpi_force) vred_mpi_force("allreduce", "ma");
    MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* region made */
    pthread_t th;
    if (rank == 1) pthread_create(&th, NULL, killer, NULL);
    for (;;) MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--named")) want_kind = 0;
        else if (!strcmp(argv[i], "--memfd")) want_kind = 1;
        else if (!strcmp(argv[i], "--segment")) check_segment();
        else if (!strcmp(argv[i], "--soak") && i + 1 < argc) soak(atol(argv[++i]));
        else if (!strcmp(argv[i], "--cycles") && i + 1 < argc) cycles(atol(argv[++i]));
        else if (!strcmp(argv[i], "--kill")) kill_run();
    }
    int any = 0;
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("shm_safety: %s\n", any ? "FAILED" : "ok");
    MPI_Finalize();
    return any;
}
