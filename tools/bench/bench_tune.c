/*
 * vred-bench tune: measures vred's cost-model parameters on MPI_COMM_WORLD and writes the file the
 * library reads (VRED_TUNE_FILE; src/coll/model.c): lines `name value`, '#' comments.
 *
 *   alpha, beta   ping-pong PMPI_Send/PMPI_Recv between ranks 0 and 1: alpha = half the round trip
 *                 of 8-byte messages, beta = the slope of the one-way time between 1 MiB and 16 MiB.
 *                 Written into the net pair (alpha_net, beta_net) if VRED_NODE_SIZE is set or ranks
 *                 0 and 1 are on different hosts (vred then treats the ranks as separate nodes),
 *                 else into the node pair; the other pair keeps the built-in values.
 *   gamma         seconds per byte of one operand of MPI_Reduce_local (vred's kernel: libvred-mpi
 *                 is linked before the MPI) for float SUM on 16 MiB buffers, cycling through 8
 *                 buffer pairs so the operands come from memory; all ranks at once (as in a
 *                 collective), the slowest rank counts.
 *   mpi_min_bytes_<coll>  the smallest size, 64 B .. 1 MiB in powers of 2, from which vred's best
 *                 algorithm is at least as fast as the MPI library's own (PMPI_X) on every larger
 *                 size measured; 0 if vred wins everywhere, 2 MiB if it loses even at 1 MiB. A
 *                 loss is measured twice (both must lose): the machines are shared and noisy.
 *                 Timed as `vred-bench coll` times (bc_measure): by default calls back to back on
 *                 malloc'd buffers, the way applications call; --sync barrier, --align A and
 *                 --offset N[/R] as in coll.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_coll.h"
#include "bench_common.h"

/* Built-in values of src/coll/model.c, kept for the pair not measured. */
#define BUILTIN_ALPHA_NODE 1.0e-6
#define BUILTIN_BETA_NODE 1.25e-10
#define BUILTIN_ALPHA_NET 15e-6
#define BUILTIN_BETA_NET 2.94e-10

/* Half the round trip of `bytes` between ranks 0 and 1, averaged over iters (the same on all ranks). */
static double pingpong(MPI_Comm comm, int rank, char *buf, int bytes, int iters)
{
    PMPI_Barrier(comm);
    double t0 = bc_now();
    if (rank == 0)
        for (int i = 0; i < iters; i++) {
            PMPI_Send(buf, bytes, MPI_BYTE, 1, 77, comm);
            PMPI_Recv(buf, bytes, MPI_BYTE, 1, 77, comm, MPI_STATUS_IGNORE);
        }
    else if (rank == 1)
        for (int i = 0; i < iters; i++) {
            PMPI_Recv(buf, bytes, MPI_BYTE, 0, 77, comm, MPI_STATUS_IGNORE);
            PMPI_Send(buf, bytes, MPI_BYTE, 0, 77, comm);
        }
    double t = (bc_now() - t0) / (2.0 * iters);
    PMPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm);
    return t;
}

static void tune_usage(FILE *f)
{
    fprintf(f, "vred-bench tune [--out FILE] [--budget S]   (run on every rank: mpirun -np P vred-bench tune)\n"
               "  --out FILE    the tune file to write (default: print only); use it with VRED_TUNE_FILE=FILE\n"
               "  --budget S    seconds per (collective, size) of the crossover search (default 0.12)\n"
               "  --sync barrier | --align A | --offset N[/R]\n"
               "                the crossover search's mode, as in vred-bench coll (default: calls back to\n"
               "                back, buffers from malloc)\n");
}

int cmd_tune(int argc, char **argv)
{
    const char *out = NULL;
    double budget = 0.12;
    bench_mode mode = {0};
    int rank, p;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int m = bench_mode_arg(&mode, a, v, !rank);
        if (m < 0) {
            if (!rank) tune_usage(stderr);
            return 2;
        } else if (m > 0) i++;
        else if (!strcmp(a, "--out") && v) out = v, i++;
        else if (!strcmp(a, "--budget") && v) budget = atof(v), i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (!rank) tune_usage(stdout);
            return 0;
        } else {
            if (!rank) fprintf(stderr, "vred-bench tune: bad argument '%s'\n", a), tune_usage(stderr);
            return 2;
        }
    }
    double t_start = bc_now();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    char host[MPI_MAX_PROCESSOR_NAME] = {0}, host0[MPI_MAX_PROCESSOR_NAME] = {0};
    MPI_Get_processor_name(host, &len);
    memcpy(host0, host, sizeof host);
    PMPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    int differ = strcmp(host, host0) != 0, any_differ = 0;
    /* rank 1's host against rank 0's */
    int d1 = rank == 1 ? differ : 0;
    PMPI_Allreduce(&d1, &any_differ, 1, MPI_INT, MPI_MAX, comm);
    const char *ns = getenv("VRED_NODE_SIZE");
    int net = (ns && *ns) || any_differ;
    if (!rank) {
        printf("# vred-bench tune: %s; %d ranks; VRED_NODE_SIZE=%s; ranks 0 and 1 on %s host(s)\n", lib, p,
               ns ? ns : "(unset)", any_differ ? "different" : "the same");
        fflush(stdout);
    }

    /* ---- link: alpha and beta ---- */
    double alpha = -1, beta = -1, t1m = 0, t16m = 0;
    if (p >= 2) {
        const int big = 16 << 20, small = 1 << 20;
        char *buf = aligned_alloc(64, (size_t)big);
        memset(buf, 1, (size_t)big);
        pingpong(comm, rank, buf, 8, 200);
        double a[11], s1[9], s16[9];
        for (int r = 0; r < 11; r++) a[r] = pingpong(comm, rank, buf, 8, 500);
        alpha = bench_median(a, 11);
        pingpong(comm, rank, buf, big, 1);
        for (int r = 0; r < 9; r++) {
            s1[r] = pingpong(comm, rank, buf, small, 16);
            s16[r] = pingpong(comm, rank, buf, big, 2);
        }
        t1m = bench_median(s1, 9), t16m = bench_median(s16, 9);
        beta = (t16m - t1m) / (double)(big - small);
        if (beta <= 0) beta = t16m / big; /* noise: fall back to the average */
        free(buf);
    }

    /* ---- gamma: vred's MPI_Reduce_local, float SUM, 16 MiB, from memory ---- */
    enum { NPAIR = 8 };
    const size_t gbytes = (size_t)16 << 20, gn = gbytes / sizeof(float);
    float *gin[NPAIR], *gio[NPAIR];
    for (int j = 0; j < NPAIR; j++) {
        gin[j] = aligned_alloc(64, gbytes), gio[j] = aligned_alloc(64, gbytes);
        bc_fill(gin[j], MPI_FLOAT, MPI_SUM, gn, 10u * (unsigned)j + 1, 0);
        bc_fill(gio[j], MPI_FLOAT, MPI_SUM, gn, 10u * (unsigned)j + 2, 0);
    }
    for (int j = 0; j < NPAIR; j++) MPI_Reduce_local(gin[j], gio[j], (int)gn, MPI_FLOAT, MPI_SUM);
    double g[7];
    for (int r = 0; r < 7; r++) {
        PMPI_Barrier(comm);
        double t0 = bc_now();
        for (int j = 0; j < NPAIR; j++) MPI_Reduce_local(gin[j], gio[j], (int)gn, MPI_FLOAT, MPI_SUM);
        double t = (bc_now() - t0) / NPAIR, tm;
        PMPI_Allreduce(&t, &tm, 1, MPI_DOUBLE, MPI_MAX, comm);
        g[r] = tm;
    }
    double gamma = bench_median(g, 7) / (double)gbytes;
    for (int j = 0; j < NPAIR; j++) free(gin[j]), free(gio[j]);

    if (!rank) {
        if (p >= 2)
            printf("# link (ranks 0-1, %s pair): alpha %.3f us (8 B half round trip); one way 1 MiB %.1f us, "
                   "16 MiB %.1f us -> beta %.4g s/B (%.2f GB/s)\n",
                   net ? "net" : "node", alpha * 1e6, t1m * 1e6, t16m * 1e6, beta, 1e-9 / beta);
        else printf("# one rank: no link to measure; alpha/beta keep the built-in values\n");
        printf("# gamma: MPI_Reduce_local f32 sum, 16 MiB from memory: %.4g s/B (%.2f GB/s of one operand)\n",
               gamma, 1e-9 / gamma);
        fflush(stdout);
    }

    /* ---- crossovers: vred's best algorithm against the MPI library's own ---- */
    static const bc_coll tc[4] = {BC_REDUCE, BC_ALLREDUCE, BC_RSB, BC_SCAN};
    static const char *const tname[4] = {"reduce", "allreduce", "reduce_scatter", "scan"};
    static const char *const algs[4] = {"binomial", "redscat", "ring", "recdbl"};
    double minb[4] = {0, 0, 0, 0};
    size_t sizes[16];
    int nsizes = 0;
    for (size_t s = 64; s <= ((size_t)1 << 20); s *= 2) sizes[nsizes++] = s;
    size_t maxcount = sizes[nsizes - 1] / sizeof(float);
    void *sbase = NULL, *rbase = NULL;
    float *sbuf = bench_buf_alloc(&mode, 0, maxcount * sizeof(float), &sbase),
          *rbuf = bench_buf_alloc(&mode, 1, maxcount * sizeof(float), &rbase);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "vred-bench tune: out of memory\n");
        return 1;
    }
    if (!rank) {
        char desc[160];
        bench_buffers_desc(&mode, sbuf, rbuf, desc, sizeof desc);
        printf("# crossovers: mode: sync %s; %s\n", bench_sync_name(&mode), desc);
    }
    bc_fill(sbuf, MPI_FLOAT, MPI_SUM, maxcount, 1000u + (unsigned)rank, 0);
    memset(rbuf, 0, maxcount * sizeof(float));
    for (int k = 0; k < 4 && p >= 2 && vred_mpi_force; k++) {
        bc_run r = {.coll = tc[k], .comm = comm, .dt = MPI_FLOAT, .op = MPI_SUM, .esize = sizeof(float),
                    .reps = 9, .budget = budget, .sbuf = sbuf, .rbuf = rbuf, .nimpl = 1,
                    .barrier_each = mode.barrier_each};
        for (int a = 0; a < 4; a++)
            if (vred_mpi_force(bc_vnames[tc[k]], algs[a]) == 0) r.alg[r.nimpl++] = algs[a];
        vred_mpi_force(bc_vnames[tc[k]], "auto");
        if (r.nimpl < 2) continue;
        int win[16], measured[16];
        if (!rank) printf("# %s: %-9s %11s %11s  %-9s %s\n", tname[k], "size", "MPI(us)", "vred(us)", "best", "vred wins");
        for (int si = 0; si < nsizes; si++) {
            r.count = sizes[si] / sizeof(float);
            if (tc[k] == BC_RSB) r.count = r.count / (size_t)p * (size_t)p;
            measured[si] = bc_measure(&r) == 0;
            win[si] = 0;
            if (!measured[si]) continue;
            /* A loss counts only if a second, independent measurement confirms it: one stall
             * on this shared machine must not move the crossover to the end of the range. */
            for (int attempt = 0; attempt < 2 && !win[si]; attempt++) {
                if (attempt) bc_measure(&r);
                int best = 1;
                for (int i = 2; i < r.nimpl; i++)
                    if (r.med[i] < r.med[best]) best = i;
                win[si] = r.med[best] <= r.med[0];
                if (!rank)
                    printf("#   %-9zu %11.2f %11.2f  %-9s %s\n", sizes[si], r.med[0] * 1e6, r.med[best] * 1e6,
                           r.alg[best], win[si] ? "yes" : attempt ? "no (confirmed)" : "no (measuring again)");
            }
        }
        int last_loss = -1, last_measured = -1;
        for (int si = 0; si < nsizes; si++)
            if (measured[si]) {
                last_measured = si;
                if (!win[si]) last_loss = si;
            }
        if (last_loss < 0) minb[k] = 0;
        else if (last_loss == last_measured) minb[k] = 2.0 * (double)sizes[last_measured];
        else {
            int nx = last_loss + 1;
            while (!measured[nx]) nx++;
            minb[k] = (double)sizes[nx];
        }
        if (!rank) {
            printf("# -> mpi_min_bytes_%s %.0f\n", tname[k], minb[k]);
            fflush(stdout);
        }
    }
    free(sbase), free(rbase);

    if (rank) return 0;
    char bufname[32];
    bench_buffers_name(&mode, bufname, sizeof bufname);
    double an = BUILTIN_ALPHA_NODE, bn = BUILTIN_BETA_NODE, at = BUILTIN_ALPHA_NET, bt = BUILTIN_BETA_NET;
    if (p >= 2) {
        if (net) at = alpha, bt = beta;
        else an = alpha, bn = beta;
    }
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    char txt[4096];
    int o = snprintf(txt, sizeof txt,
                     "# vred cost model, written by vred-bench tune (%s, %.0f s)\n"
                     "# %s; %d ranks; VRED_NODE_SIZE=%s; ranks 0-1 on %s host(s)\n"
                     "# alpha: s per message (8 B ping-pong), beta: s per byte (slope 1 MiB -> 16 MiB);\n"
                     "# the link measured is the %s pair, the %s pair keeps the built-in values\n"
                     "# gamma: s per byte of one operand, MPI_Reduce_local f32 sum on 16 MiB from memory\n"
                     "# mpi_min_bytes_<coll>: below it the MPI library's own algorithm serves the call\n"
                     "#   (timed with sync %s, buffers %s)\n",
                     when, bc_now() - t_start, lib, p, ns ? ns : "(unset)", any_differ ? "different" : "the same",
                     p < 2 ? "no" : net ? "net" : "node", p < 2 ? "either" : net ? "node" : "net",
                     bench_sync_name(&mode), bufname);
    o += snprintf(txt + o, sizeof txt - (size_t)o,
                  "alpha_node %.6g\nbeta_node %.6g\nalpha_net %.6g\nbeta_net %.6g\ngamma %.6g\n"
                  "mpi_min_bytes_reduce %.0f\nmpi_min_bytes_allreduce %.0f\nmpi_min_bytes_reduce_scatter %.0f\n"
                  "mpi_min_bytes_scan %.0f\n",
                  an, bn, at, bt, gamma, minb[0], minb[1], minb[2], minb[3]);
    printf("%s", txt);
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fputs(txt, f) < 0 || fclose(f)) {
            perror(out);
            return 1;
        }
        printf("# wrote %s (use it with VRED_TUNE_FILE=%s)\n", out, out);
    }
    return 0;
}
