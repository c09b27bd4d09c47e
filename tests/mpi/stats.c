/*
 * VRED_STATS (src/mpi/stats.c): a known mix of calls, and exactly what vred must count for it.
 * Every rank makes the calls below, records for each one the line vred must count it under
 * (collective, size class, algorithm or "mpi" and the reason, bytes), then
 *   - compares vred_mpi_stats() with its record, row for row, counts and bytes exact;
 *   - prints its record as `expect vred-stats rank=R coll=... calls=N bytes=B` lines on stdout,
 *     which tests/mpi/stats.sh compares with the `vred-stats` lines MPI_Finalize prints.
 *
 * The mix (MPI_COMM_WORLD, 2+ ranks): allreduce forced ring (1 MiB; one call through
 * MPI_Allreduce_c with MPI-4), ma (256 KiB) and recdbl (4 KiB); reduce forced binomial and
 * forced "mpi"; scan and exscan forced recdbl; reduce_scatter_block and reduce_scatter forced
 * ring; bcast and allgather forced pipe; a bcast of MPI_DOUBLE_INT (padded: unsupported-type) and
 * one where rank 0 names MPI_INT and the others a vector type (served, or other-rank /
 * derived-type over several nodes); a
 * user-defined op; a derived datatype; small calls below the threshold of the tune file
 * tests/mpi/stats.tune (VRED_TUNE_FILE); an allreduce on an intercommunicator;
 * MPI_Reduce_local served (under the ISA's name), with a user op, a derived type, and complex
 * PROD (served or unsupported-pair, as vred_mpi_lookup says). Before the mix, a few calls and
 * vred_mpi_stats_reset(): nothing may remain of them.
 *
 * Options (the same on every rank):
 *   --off                  VRED_STATS unset: vred_mpi_stats() must return -1, nothing expected
 *   --disabled             VRED_DISABLE=1: every call counted as mpi, reason disabled
 *   --bcast-reason=R       bcast's pipe cannot run here (R: shm-off, one-per-node): the forced
 *                          bcasts go to the MPI for R; the allreduce forced to ma is served by
 *                          another of vred's algorithms
 *   --allgather-reason=R   the same for allgather (R: shm-off, one-per-node, multi-node)
 *   --multi-node           the ranks span several nodes (VRED_NODE_SIZE): a bcast agrees
 *                          before it is served, by allreduce
 * Exits 1 (after MPI_Finalize) if a check failed on any rank.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vred_mpi.h"

static int wrank, wsize, failures, disabled, multi_node;
static const char *bcast_reason, *allgather_reason;

static void fail(const char *fmt, const char *a, const char *b)
{
    printf("FAIL rank %d: ", wrank);
    printf(fmt, a, b);
    printf("\n");
    fflush(stdout);
    failures++;
}

/* ---- the record ---------------------------------------------------------------------------- */

typedef struct {
    char coll[32], size[16], alg[32], reason[32];
    unsigned long long calls, bytes;
    int seen;
} row;

enum { MAXROWS = 64 };
static row rows[MAXROWS];
static int nrows;

/* Size classes as documented (README: powers of 16 from 4 KiB). */
static const char *size_class(unsigned long long b)
{
    return b < 4096 ? "<4K" : b < 65536 ? "4K-64K" : b < (1 << 20) ? "64K-1M"
           : b < (16 << 20) ? "1M-16M" : ">=16M";
}

/* One call that vred must count under (coll, alg or "mpi" with reason) with bytes. */
static void expect(const char *coll, const char *alg, const char *reason, unsigned long long bytes)
{
    if (disabled) alg = "mpi", reason = "disabled";
    const char *size = size_class(bytes);
    if (!reason) reason = "";
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        if (!strcmp(r->coll, coll) && !strcmp(r->size, size) && !strcmp(r->alg, alg) &&
            !strcmp(r->reason, reason)) {
            r->calls++;
            r->bytes += bytes;
            return;
        }
    }
    if (nrows == MAXROWS) {
        fail("%s%s", "too many rows", "");
        return;
    }
    row *r = &rows[nrows++];
    snprintf(r->coll, sizeof r->coll, "%s", coll);
    snprintf(r->size, sizeof r->size, "%s", size);
    snprintf(r->alg, sizeof r->alg, "%s", alg);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    r->calls = 1;
    r->bytes = bytes;
}

/* A call served by vred: it must say so (vred_mpi_last_alg), with `alg` unless alg is NULL
 * (then any of vred's, recorded as the one that served it). */
static void served(const char *coll, const char *alg, unsigned long long bytes)
{
    const char *last = vred_mpi_last_alg();
    if (!disabled && (!strcmp(last, "mpi") || (alg && strcmp(last, alg))))
        fail("%s: served by %s", coll, last);
    expect(coll, alg ? alg : last, NULL, bytes);
}

static void passed(const char *coll, const char *reason, unsigned long long bytes)
{
    expect(coll, "mpi", reason, bytes);
}

static void force(const char *coll, const char *alg)
{
    if (vred_mpi_force(coll, alg)) fail("vred_mpi_force(%s, %s) refused", coll, alg);
}

/* ---- comparing with vred_mpi_stats() ------------------------------------------------------- */

static void check_row(const vred_mpi_stat *s, void *arg)
{
    (void)arg;
    const char *reason = s->reason ? s->reason : "";
    char what[160];
    snprintf(what, sizeof what, "coll=%s size=%s alg=%s reason=%s calls=%llu bytes=%llu", s->coll,
             s->size, s->alg, reason, s->calls, s->bytes);
    if (!strcmp(reason, "unknown")) fail("a pass no front explained: %s%s", what, "");
    if (!strcmp(s->alg, "mpi") != !!s->reason) fail("reason and alg disagree: %s%s", what, "");
    if (!(s->seconds >= 0)) fail("negative time: %s%s", what, "");
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        if (strcmp(r->coll, s->coll) || strcmp(r->size, s->size) || strcmp(r->alg, s->alg) ||
            strcmp(r->reason, reason))
            continue;
        r->seen++;
        if (r->calls != s->calls || r->bytes != s->bytes) {
            char want[64];
            snprintf(want, sizeof want, "calls=%llu bytes=%llu", r->calls, r->bytes);
            fail("vred_mpi_stats: %s, expected %s", what, want);
        }
        return;
    }
    fail("vred_mpi_stats: unexpected %s%s", what, "");
}

static void check_api(void)
{
    int n = vred_mpi_stats(check_row, NULL);
    if (n != nrows) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%d", n);
        snprintf(b, sizeof b, "%d", nrows);
        fail("vred_mpi_stats gave %s rows, expected %s", a, b);
    }
    for (int i = 0; i < nrows; i++)
        if (rows[i].seen != 1)
            fail("vred_mpi_stats: no row coll=%s alg=%s", rows[i].coll, rows[i].alg);
}

/* The record as the lines vred prints (without time_s), every rank's printed by rank 0: the
 * launcher forwards each rank's output apart and may cut a line of one rank with another's. */
static void print_expected(void)
{
    char *text = NULL, *all = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (int i = 0; i < nrows; i++) {
        fprintf(f, "expect vred-stats rank=%d coll=%s size=%s alg=%s", wrank, rows[i].coll,
                rows[i].size, rows[i].alg);
        if (rows[i].reason[0]) fprintf(f, " reason=%s", rows[i].reason);
        fprintf(f, " calls=%llu bytes=%llu\n", rows[i].calls, rows[i].bytes);
    }
    fclose(f);
    int mine = (int)len, *lens = calloc((size_t)wsize, sizeof *lens);
    int *displs = calloc((size_t)wsize, sizeof *displs), total = 0;
    PMPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; r < wsize; r++) displs[r] = total, total += lens[r];
    if (!wrank) all = malloc((size_t)total + 1);
    PMPI_Gatherv(text, mine, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!wrank) fwrite(all, 1, (size_t)total, stdout);
    fflush(stdout);
    free(all);
    free(text);
    free(lens);
    free(displs);
}

/* ---- the mix ------------------------------------------------------------------------------- */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void mix(void)
{
    enum { BIG = 1 << 18 }; /* floats: 1 MiB */
    float *f = malloc(BIG * sizeof *f), *g = malloc(BIG * sizeof *g);
    int *x = malloc(BIG * sizeof *x), *y = malloc((size_t)BIG * wsize * sizeof *y);
    for (int i = 0; i < BIG; i++) f[i] = (float)(i % 7), x[i] = i % 5;
    MPI_Op usum;
    MPI_Op_create(user_sum, 1, &usum);
    /* 4 ints under a derived type that vred never serves (a contiguous one would be vred's in
     * bcast and allgather) */
    MPI_Datatype int4;
    MPI_Type_vector(1, 4, 4, MPI_INT, &int4);
    MPI_Type_commit(&int4);

    /* allreduce: ring (1 MiB), ma (256 KiB), recdbl (4 KiB) */
    force("allreduce", "ring");
    for (int k = 0; k < 3; k++) {
#if MPI_VERSION >= 4
        if (k == 2) MPI_Allreduce_c(f, g, (MPI_Count)BIG, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else
#endif
            MPI_Allreduce(f, g, BIG, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        served("allreduce", "ring", BIG * 4ull);
    }
    force("allreduce", "ma");
    for (int k = 0; k < 2; k++) {
        MPI_Allreduce(f, g, 1 << 16, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        served("allreduce", bcast_reason ? NULL : "ma", 1ull << 18);
    }
    force("allreduce", "recdbl");
    MPI_Allreduce(x, y, 1024, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    served("allreduce", "recdbl", 4096);

    /* reduce: binomial (64 KiB, the non-roots' receive buffer null), then forced "mpi" */
    force("reduce", "binomial");
    for (int k = 0; k < 2; k++) {
        MPI_Reduce(x, wrank == 1 ? y : NULL, 1 << 14, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
        served("reduce", "binomial", 1ull << 16);
    }
    force("reduce", "mpi");
    MPI_Reduce(x, y, 1 << 14, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    passed("reduce", "forced", 1ull << 16);
    force("reduce", "auto");

    /* scan, exscan: recdbl (4 KiB) */
    force("scan", "recdbl");
    MPI_Scan(x, y, 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    served("scan", "recdbl", 4096);
    MPI_Exscan(x, y, 1024, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    served("exscan", "recdbl", 4096);

    /* reduce_scatter(_block): ring; bytes are the whole input */
    force("reduce_scatter", "ring");
    MPI_Reduce_scatter_block(x, y, 2048, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    served("reduce_scatter", "ring", 8192ull * wsize);
    int *counts = malloc((size_t)wsize * sizeof *counts);
    for (int r = 0; r < wsize; r++) counts[r] = 1024;
    MPI_Reduce_scatter(x, y, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    served("reduce_scatter", "ring", 4096ull * wsize);

    /* bcast: pipe (128 KiB); a padded pair type; ranks with different (matching) types */
    force("bcast", "pipe");
    MPI_Bcast(x, 1 << 17, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (bcast_reason) passed("bcast", bcast_reason, 1ull << 17);
    else served("bcast", "pipe", 1ull << 17);
    MPI_Bcast(y, 1024, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD);
    passed("bcast", bcast_reason ? bcast_reason : "unsupported-type", 1024ull * 12);
    if (wrank == 0) MPI_Bcast(x, 1024, MPI_INT, 0, MPI_COMM_WORLD);
    else MPI_Bcast(x, 256, int4, 0, MPI_COMM_WORLD);
    /* One node: the one-step path serves it, the others unpacking the root's bytes (the root
     * does not wait for them, shm/small.c); several: the ranks agree, and pass it on. */
    if (bcast_reason) passed("bcast", bcast_reason, 4096);
    else if (multi_node) passed("bcast", wrank ? "derived-type" : "other-rank", 4096);
    else served("bcast", "pipe", 4096);

    /* allgather: pipe (8 KiB blocks) */
    force("allgather", "pipe");
    MPI_Allgather(x, 2048, MPI_INT, y, 2048, MPI_INT, MPI_COMM_WORLD);
    if (allgather_reason) passed("allgather", allgather_reason, 8192);
    else served("allgather", "pipe", 8192);

    /* vred's automatic choice below stats.tune's thresholds (allreduce 8 KiB, bcast 16 MiB) */
    force("allreduce", "auto");
    force("bcast", "auto");
    force("allgather", "auto");
    MPI_Allreduce(x, y, 16, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    passed("allreduce", "below-threshold", 64);
    MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    passed("bcast", "below-threshold", 4);

    /* a user-defined op; a derived datatype (MPICH 4.0 refuses SUM on it: then no bytes) */
    MPI_Allreduce(x, y, 1000, MPI_INT, usum, MPI_COMM_WORLD);
    passed("allreduce", "user-op", 4000);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Allreduce(x, y, 16, int4, MPI_SUM, MPI_COMM_WORLD);
    passed("allreduce", "derived-type", rc == MPI_SUCCESS ? 256 : 0);

    /* an intercommunicator (even ranks against odd ones) */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wrank % 2 ? 0 : 1, 7, &inter);
    MPI_Allreduce(x, y, 16, MPI_INT, MPI_SUM, inter);
    passed("allreduce", "intercomm", 64);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* MPI_Reduce_local: served (4 KiB, counted under the ISA), user op, derived type, and
     * complex PROD, which vred serves only where the MPI computes it as vred does */
    const char *isa = vred_isa_name(vred_isa_active());
    for (int k = 0; k < 10; k++) {
        MPI_Reduce_local(f, g, 1024, MPI_FLOAT, MPI_SUM);
        expect("reduce_local", isa, NULL, 4096);
    }
    MPI_Reduce_local(x, y, 16, MPI_INT, usum);
    passed("reduce_local", "user-op", 64);
    rc = MPI_Reduce_local(x, y, 4, int4, MPI_SUM);
    passed("reduce_local", "derived-type", rc == MPI_SUCCESS ? 64 : 0);
    double z[8] = {1, 2, 3, 4, 5, 6, 7, 8}, w[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    MPI_Reduce_local(z, w, 4, MPI_C_DOUBLE_COMPLEX, MPI_PROD);
    if (vred_mpi_lookup(MPI_C_DOUBLE_COMPLEX, MPI_PROD, NULL, NULL))
        expect("reduce_local", isa, NULL, 64);
    else
        passed("reduce_local", "unsupported-pair", 64);
    /* long double SUM: only the scalar reference has a kernel (x87, or aarch64's quad), which
     * is what the line names, whatever the active ISA (it said the active one) */
    long double la[4] = {1, 2, 3, 4}, lb[4] = {1, 1, 1, 1};
    MPI_Reduce_local(la, lb, 4, MPI_LONG_DOUBLE, MPI_SUM);
    if (vred_mpi_lookup(MPI_LONG_DOUBLE, MPI_SUM, NULL, NULL))
        expect("reduce_local", "scalar", NULL, sizeof la);
    else
        passed("reduce_local", "unsupported-pair", sizeof la);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Type_free(&int4);
    MPI_Op_free(&usum);
    free(counts);
    free(f);
    free(g);
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    int off = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--off")) off = 1;
        else if (!strcmp(argv[i], "--disabled")) disabled = 1;
        else if (!strcmp(argv[i], "--multi-node")) multi_node = 1;
        else if (!strncmp(argv[i], "--bcast-reason=", 15)) bcast_reason = argv[i] + 15;
        else if (!strncmp(argv[i], "--allgather-reason=", 19)) allgather_reason = argv[i] + 19;
        else {
            fprintf(stderr, "stats: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (!wrank) printf("stats: needs 2+ ranks\n");
        MPI_Finalize();
        return 77;
    }

    /* Calls before a reset leave nothing. */
    int a = 1, b = 0;
    MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_SUM);
    int before = vred_mpi_stats(NULL, NULL);
    vred_mpi_stats_reset();
    int after = vred_mpi_stats(NULL, NULL);
    if (off ? before != -1 || after != -1 : before != 2 || after != 0) {
        char s[64];
        snprintf(s, sizeof s, "%d then %d", before, after);
        fail("vred_mpi_stats() rows before and after vred_mpi_stats_reset(): %s%s", s, "");
    }

    mix();
    if (!off) {
        check_api();
        print_expected();
    }

    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!wrank) printf("stats: %d ranks, %d rows, %d failures\n", wsize, nrows, all);
    fflush(stdout);
    /* VRED_STATS=1: each rank prints its lines in MPI_Finalize; one after the other, so that
     * the launcher does not forward two ranks' text at once (it may cut lines then). */
    usleep(300000u * (unsigned)wrank);
    MPI_Finalize();
    return all ? 1 : 0;
}
