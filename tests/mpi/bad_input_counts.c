/*
 * --counts vred: a bcast whose ranks pass different counts (erroneous: MPI-4.1 6.2.2, the
 * signatures must match) between valid ones, under MPI_ERRORS_RETURN, bcast forced to vred's
 * pipeline. The root's 16 KiB take a rotating place in the bank, the others' 4 KiB would take
 * the bank's start (shm/small.c): the receivers must read at the root's place (their buffers
 * are short: MPI_ERR_TRUNCATE) and keep the places of every later call in step with the root's.
 * The erroneous call must return MPI_SUCCESS at the root and MPI_ERR_TRUNCATE elsewhere, and
 * every valid 16 KiB bcast after it must deliver the root's bytes on every rank.
 *
 * Then the same mismatch in the pipeline (root 64 KiB, the others 32 KiB, after valid 64 KiB
 * calls so that vred's region is made): its agreement carries the bytes (shm/bcast_pipe.c), so
 * the call goes to the MPI on every rank (vred_mpi_last_alg), whose answer it is (Open MPI and
 * MPICH report an error on the short receivers, Intel MPI 2021 returns MPI_SUCCESS); before,
 * the ranks ran different numbers of slices and waited forever. The valid 64 KiB calls after it
 * must be right on every rank.
 *
 * Then allgathers forced to vred's pipeline and to cross-memory attach whose ranks pass
 * different block sizes (rank 0 `big`, the others half of it), each between valid calls of
 * `big`: every rank's agreement carries its block's bytes (coll_front.c, shm/small.c), so the
 * call goes to the MPI on every rank, and the valid calls after it must be right on every rank.
 * Before, the pipeline served it, its rounds moved the ranks' banks apart, and later valid calls
 * read the wrong places. bad_input.sh runs this with VRED_SHM_SLICE=32768, so that at 2 ranks
 * the blocks of 2 KiB take the one-step path, those of 24 KiB one round of the pipeline (12 KiB
 * on the other rank: the pipeline too), those of 128 KiB four rounds (two on the other rank), at
 * sizes every MPI answers without aborting (MPICH 5.0 aborts the job on a 4 MiB mismatch, with
 * MPI_ERRORS_RETURN set). Both ranks must take the same path for the agreement to meet:
 * mismatched blocks on either side of the one-step path's limit are not caught
 * (docs/reliability.md). Then allreduces and reduces forced to MA and to the DPML-like path
 * whose ranks pass different counts (mismatched_reduction): MPI_ERR_COUNT where a rank can
 * know it, every valid call after it right; and forced to cross-memory attach, where every rank
 * compares every rank's arguments: MPI_ERR_COUNT everywhere. Prints "counts: N bad" on rank 0; exit status 1 if
 * any call went wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bad_input.h"
#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { BIG = 16 << 10, SMALL = 4 << 10, ROUNDS = 40, PIPE_BIG = 64 << 10, PIPE_SHORT = 32 << 10 };

/* `calls` valid bcasts of n bytes from rank 0 (call k's bytes i * 7 + tag + k): this rank's
 * failed calls and wrong results. */
static int valid_bcasts(const bi_api *vred, unsigned char *b, int n, int rank, int calls, int tag)
{
    int bad = 0;
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < n; i++) b[i] = rank == 0 ? (unsigned char)(i * 7 + tag + k) : 0;
        if (vred->bcast(b, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) bad++;
        for (int i = 0; i < n; i++)
            if (b[i] != (unsigned char)(i * 7 + tag + k)) {
                bad++;
                break;
            }
    }
    return bad;
}

/* 1 if vred passed this rank's last call (a mismatched `coll`, `bytes` on rank 0) to the MPI.
 * This job is vred's (--counts vred): without vred's extension API nothing could be checked. */
static int passed_on(const char *coll, int bytes, int rank)
{
    const char *by = vred_mpi_last_alg ? vred_mpi_last_alg() : "(no vred_mpi_last_alg)";
    if (!strcmp(by, "mpi")) return 1;
    printf("FAIL: rank %d: %s of mismatched counts (%d bytes on rank 0) served by vred's %s\n",
           rank, coll, bytes, by);
    return 0;
}

/* `calls` valid allgathers of `block` bytes per rank into r (rank q's block: bytes i * 5 + q +
 * tag + k): this rank's failed calls and wrong results. */
static int valid_allgathers(const bi_api *vred, unsigned char *sb, unsigned char *r, int block,
                            int rank, int calls, int tag)
{
    int bad = 0, p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < block; i++) sb[i] = (unsigned char)(i * 5 + rank + tag + k);
        memset(r, 0, (size_t)block * (size_t)p);
        if (vred->allgather(sb, block, MPI_BYTE, r, block, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS)
            bad++;
        for (int q = 0; q < p; q++)
            for (int i = 0; i < block; i++)
                if (r[(size_t)q * (size_t)block + (size_t)i] != (unsigned char)(i * 5 + q + tag + k)) {
                    bad++;
                    q = p;
                    break;
                }
    }
    return bad;
}

/* Valid allgathers of `big` bytes per rank around one whose ranks but 0 pass half of it, with
 * vred's `alg` forced: this rank's wrong calls, and 1 if vred served the erroneous one. */
static int mismatched_allgather(const bi_api *vred, const char *alg, int big, int rank, int tag)
{
    int p, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    unsigned char *sb = malloc((size_t)big), *r = malloc((size_t)big * (size_t)p);
    if (!sb || !r || (vred_mpi_force && vred_mpi_force("allgather", alg))) {
        printf("FAIL: no memory or vred_mpi_force(allgather, %s) refused\n", alg);
        free(sb);
        free(r);
        return 1;
    }
    int before = valid_allgathers(vred, sb, r, big, rank, 3, tag);
    int n = rank == 0 ? big : big / 2;
    memset(sb, rank + 1, (size_t)big);
    (void)vred->allgather(sb, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD); /* the MPI's answer */
    if (!passed_on("allgather", big, rank)) bad++;
    int after = valid_allgathers(vred, sb, r, big, rank, 3, tag + 1);
    if (before || after)
        printf("FAIL: rank %d: valid allgathers of %d bytes (%s) around a mismatched one: %d "
               "wrong before it, %d after\n", rank, big, alg, before, after);
    bad += before + after;
    free(sb);
    free(r);
    return bad;
}

/* `calls` valid reductions (`reduce`: to rank 0, else allreduces) of n floats (rank q's
 * element i: (q + 1) * 0.1 * (i % 97) + tag + k / 8, sums that round): this rank's failed calls
 * and wrong results (2 ranks: one addition per element, the same bits in either order). */
static int valid_reductions(const bi_api *vred, int reduce, float *s, float *r, int n, int rank,
                            int calls, int tag)
{
    int bad = 0, p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < n; i++) s[i] = (float)(rank + 1) * 0.1f * (float)(i % 97) + (float)tag + (float)k / 8;
        int rc = reduce ? vred->reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD)
                        : vred->allreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) bad++;
        if (reduce && rank != 0) continue;
        for (int i = 0; i < n; i++) {
            float want = 0;
            for (int q = 0; q < p; q++)
                want += (float)(q + 1) * 0.1f * (float)(i % 97) + (float)tag + (float)k / 8;
            if (r[i] != want) {
                bad++;
                break;
            }
        }
    }
    return bad;
}

/* Valid reductions of `big` floats around one whose ranks pass different counts, with vred's
 * `alg` forced: rank 0 passes `big` and the others half of it, or (`root_short`) the reverse.
 * allreduce: MA (shm/ma.c) and the DPML-like path (shm/dpml.c) compare the ranks' counts in
 * the round, so every rank must get MPI_ERR_COUNT. reduce (root 0): the chain's and DPML's
 * non-roots never wait for the root and cannot know; the root must get MPI_ERR_COUNT, having
 * run the others' rounds (shm/ma_reduce.c, shm/dpml.c), and the others MPI_SUCCESS. Every
 * valid call after it must be right. Before, the ranks ran different numbers of rounds or took
 * places of different sizes in a bank, and valid calls after it went wrong. This rank's wrong
 * calls. */
static int mismatched_reduction(const bi_api *vred, int reduce, const char *alg, int big,
                                int root_short, int rank)
{
    const char *coll = reduce ? "reduce" : "allreduce";
    float *s = malloc((size_t)big * sizeof *s), *r = malloc((size_t)big * sizeof *r);
    if (!s || !r || (vred_mpi_force && vred_mpi_force(coll, alg))) {
        printf("FAIL: no memory or vred_mpi_force(%s, %s) refused\n", coll, alg);
        free(s);
        free(r);
        return 1;
    }
    int before = valid_reductions(vred, reduce, s, r, big, rank, 3, 0);
    /* Cross-memory attach: where the kernel refuses it here, the forced cma is served otherwise */
    int cma = !strcmp(alg, "cma");
    if (cma && vred_mpi_last_alg && strcmp(vred_mpi_last_alg(), "cma")) {
        if (rank == 0) printf("NOTE: %s by cma not available here: not checked\n", coll);
        free(s);
        free(r);
        return before;
    }
    int n = (rank == 0) != root_short ? big : big / 2;
    int rc = reduce ? vred->reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD)
                    : vred->allreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int cls = rc, bad = 0, want = reduce && rank != 0 && !cma ? MPI_SUCCESS : MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (cls != want) {
        printf("FAIL: rank %d: %s (%s) of mismatched counts (%d floats on rank 0): error class "
               "%d, expected %d\n", rank, coll, alg, n, cls, want);
        bad++;
    }
    int after = valid_reductions(vred, reduce, s, r, big, rank, 3, 1);
    if (before || after)
        printf("FAIL: rank %d: valid %ss of %d floats (%s) around a mismatched one: %d wrong "
               "before it, %d after\n", rank, coll, big, alg, before, after);
    free(s);
    free(r);
    return bad + before + after;
}

int bi_counts(const bi_api *vred)
{
    int rank, bad = 0, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *b = malloc(BIG);
    if (!b) return 2;
    for (int it = 0; it < ROUNDS; it++) {
        /* Three valid calls: both banks, more than one place in each. */
        bad += valid_bcasts(vred, b, BIG, rank, 3, it);
        if (it % 5 == 2) {
            /* The root returns at once; a receiver's buffer is short: MPI_ERR_TRUNCATE. */
            int rc = vred->bcast(b, rank == 0 ? BIG : SMALL, MPI_BYTE, 0, MPI_COMM_WORLD), cls = rc;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (cls != (rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE)) bad++;
        }
    }
    free(b);
    /* The pipeline's mismatch: passed to the MPI, whose answer it is. */
    unsigned char *l = malloc(PIPE_BIG);
    if (!l) return 2;
    bad += valid_bcasts(vred, l, PIPE_BIG, rank, 3, 1);
    (void)vred->bcast(l, rank == 0 ? PIPE_BIG : PIPE_SHORT, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (!passed_on("bcast", PIPE_BIG, rank)) bad++;
    bad += valid_bcasts(vred, l, PIPE_BIG, rank, 3, 2);
    free(l);
    /* Blocks for the one-step path, one round and four (VRED_SHM_SLICE=32768, 2 ranks). */
    static const char *const algs[] = {"pipe", "cma"};
    static const int blocks[] = {2 << 10, 24 << 10, 128 << 10};
    for (int g = 0; g < 2; g++)
        for (int b = 0; b < 3; b++) bad += mismatched_allgather(vred, algs[g], blocks[b], rank, 10 * b);
    /* MA: one round and several (VRED_SHM_SLICE=32768) on the rank with fewer. DPML: places of
     * 16 and 8 KiB, where rounds of 8 KiB and more take rotating places (shm/sync.c), and of 1
     * KiB. The reduce's chain (ma at one socket): one round and several, the root's count the
     * larger and the smaller. */
    static const struct { int reduce; const char *alg; int big, root_short; } cases[] = {
        {0, "ma", 2048, 0},   {0, "ma", 65536, 0},  {0, "dpml", 2048, 0}, {0, "dpml", 256, 0},
        {1, "ma", 2048, 0},   {1, "ma", 65536, 0},  {1, "ma", 65536, 1},  {1, "dpml", 2048, 0},
        {1, "dpml", 2048, 1}, {1, "dpml", 256, 0},
        /* cross-memory attach: every rank reads every rank's arguments before a byte moves
         * (a short rank's buffer was written past its end), so all get MPI_ERR_COUNT */
        {0, "cma", 65536, 0}, {1, "cma", 65536, 0}, {1, "cma", 65536, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        bad += mismatched_reduction(vred, cases[c].reduce, cases[c].alg, cases[c].big,
                                    cases[c].root_short, rank);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("counts: %d bad\n", all);
    MPI_Finalize();
    return all ? 1 : 0;
}

/*
 * --deadlock: two ranks that would wait for each other for ever, which vred must end with its
 * message (shm/sync.c) rather than hang. "steps": a reduce forced to vred's MA whose ranks each
 * name themselves the root (vred checks a reduce's roots only over socket groups: shm/ma.c), so
 * that each waits in the region for the other's part (the 2 s limit). "mpi": an allreduce that
 * rank 0 runs by vred's MA and rank 1, whose vred is told to pass allreduces on, through the MPI
 * (the 10 s limit); the same as a rank measuring a size class the others do not (counts in
 * different classes, docs/reliability.md). Returns only if the job was not ended. "slow": no
 * deadlock but a rank that computes for longer than both limits, after a call passed to the MPI,
 * before it joins an allreduce the other waits in: the job must not be ended, and the sum must
 * be right (exit status 0).
 */
static int slow_peer(const bi_api *vred, float *f, int n, int rank)
{
    for (int i = 0; i < n; i++) f[i] = (float)(rank + 1) * 0.1f * (float)(i % 97);
    /* A call passed to the MPI first: its mark must be gone once the MPI has returned. */
    if (vred_mpi_force("allreduce", "ma")) return 1;
    vred->allreduce(f, f + n, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* the region made */
    if (vred_mpi_force("allreduce", "mpi")) return 1;
    vred->allreduce(f, f + n, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (vred_mpi_force("allreduce", "ma")) return 1;
    if (rank == 1) sleep(12); /* computing: not inside the MPI, not waiting */
    int rc = vred->allreduce(f, f + n, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), bad = rc != 0;
    for (int i = 0; i < n && !bad; i++)
        bad = f[n + i] != 0.1f * (float)(i % 97) + 2 * 0.1f * (float)(i % 97);
    printf("%s: rank %d: allreduce after a slow peer: rc %d, %s\n", bad ? "FAIL" : "ok", rank, rc,
           bad ? "wrong" : "right");
    free(f);
    MPI_Finalize();
    return bad;
}

/* "apart": a reduce whose ranks run different algorithms (rank 0 vred's DPML-like path, the
 * others its chain; as counts on either side of the switch point would choose), after a valid
 * one: the root sees the others' word and cannot keep them in step (shm/dpml.c), so the job must
 * end with vred's message naming every rank's arguments. Returns only if it did not. */
static int ranks_apart(const bi_api *vred, float *f, int rank)
{
    enum { N = 2048 };
    if (vred_mpi_force("reduce", "ma")) return 1;
    vred->reduce(f, f + N, N, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); /* the region made */
    if (vred_mpi_force("reduce", rank == 0 ? "dpml" : "ma")) return 1;
    vred->reduce(f, f + N, N, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* the non-roots wait here for the root's end */
    printf("FAIL: rank %d: the reduce of ranks in different algorithms returned\n", rank);
    free(f);
    MPI_Finalize();
    return 1;
}

int bi_deadlock(const char *how, const bi_api *vred)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { FLOATS = 1 << 16 };
    float *f = calloc(FLOATS, 2 * sizeof *f);
    if (!f || !vred_mpi_force) {
        printf("FAIL: no memory, or vred's extension API missing\n");
        return 1;
    }
    if (!strcmp(how, "slow")) return slow_peer(vred, f, FLOATS, rank);
    if (!strcmp(how, "apart")) return ranks_apart(vred, f, rank);
    int steps = !strcmp(how, "steps");
    if (vred_mpi_force(steps ? "reduce" : "allreduce", "ma")) return 1;
    if (steps) {
        vred->reduce(f, f + FLOATS, FLOATS, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
        vred->reduce(f, f + FLOATS, FLOATS, MPI_FLOAT, MPI_SUM, rank, MPI_COMM_WORLD);
    } else {
        vred->allreduce(f, f + FLOATS, FLOATS, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 1 && vred_mpi_force("allreduce", "mpi")) return 1;
        vred->allreduce(f, f + FLOATS, FLOATS, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("FAIL: rank %d: the deadlocked call returned\n", rank);
    free(f);
    MPI_Finalize();
    return 1;
}
