/*
 * DPML-like reduction for small messages (the second paper's small-message algorithm, after
 * DPML): every rank copies its whole input into its own part of one bank and publishes it, a
 * single synchronisation, then every rank that needs a result reduces it itself from the p
 * copies. Data access s (7p - 1) for allreduce against MA's s (5p - 1), but one
 * synchronisation instead of p per chunk: the right trade while the message is small.
 *
 * Buffers are always read in the fixed order 0, 1, ..., p-1 (out = buf0 op buf1, then
 * out = out op buf2, ...), so every rank computing the same elements gets identical bits. The
 * copy-in comes first, so in place needs no care: the input is safe in the bank before rbuf
 * is written.
 */
#include "coll/shm/shm.h"
#include "local/copy.h"

/* The one place that decides whether a message fits DPML: every rank's whole buffer in one
 * bank. entry.c asks before it runs DPML and runs MA instead when not (the same answer on every
 * rank: it depends only on the arguments); select.c only prefers DPML below the measured switch
 * point, before any region exists. */
int vred_shm_dpml_fits(const vred_shm *s, size_t bytes)
{
    return s->size > 0 && bytes <= s->slices_bytes / (size_t)s->size / 64 * 64;
}

/* Each rank's part of the bank starts on a cache line of its own. */
static size_t dpml_stride(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* out = buf_0 op buf_1 op ... op buf_{p-1} over elements [lo, lo + n) of the p copies. */
static void reduce_all(const vred_shm_args *a, const char *bank, size_t stride, size_t lo,
                       size_t n, void *out)
{
    int p = a->n->size;
    const char *x = vred_at(bank, lo, a->esize);
    vred_par_reduce3(a->e, a->esize, x, x + stride, out, n);
    for (int q = 2; q < p; q++)
        vred_par_reduce3(a->e, a->esize, out, x + (size_t)q * stride, out, n);
}

/* One round: publish this rank's input, then (if out) reduce elements [lo, lo + n) into out. */
static void dpml_round(const vred_shm_args *a, size_t lo, size_t n, void *out)
{
    vred_shm *s = a->n->shm;
    size_t bytes = a->count * a->esize, stride = dpml_stride(bytes);
    char *bank = vred_shm_round_begin(s, (size_t)a->n->size * stride);
    /* Temporal: every rank reads it right after the synchronisation. */
    vred_copy(bank + (size_t)a->n->rank * stride, a->sbuf, bytes, 0);
    vred_shm_post(s);
    if (out && n) {
        vred_shm_wait_all(s, s->seq);
        reduce_all(a, bank, stride, lo, n, out);
    }
    /* A rank with nothing to compute leaves at once; its input stays in the bank until the
     * others are done, because the bank is not rewritten before they end this round. */
    vred_shm_round_end(s);
}

/* The callers (entry.c, hier.c) have checked vred_shm_dpml_fits and the one-rank case. */
int vred_shm_allreduce_dpml(const vred_shm_args *a)
{
    if (a->count) dpml_round(a, 0, a->count, a->rbuf);
    return MPI_SUCCESS;
}

int vred_shm_reduce_dpml(const vred_shm_args *a)
{
    if (a->count) dpml_round(a, 0, a->count, a->n->rank == a->root ? a->rbuf : NULL);
    return MPI_SUCCESS;
}

int vred_shm_reduce_scatter_dpml(const vred_shm_args *a)
{
    if (a->count == 0) return MPI_SUCCESS;
    size_t lo = 0;
    for (int q = 0; q < a->n->rank; q++) lo += a->counts[q];
    dpml_round(a, lo, a->counts[a->n->rank], a->rbuf);
    return MPI_SUCCESS;
}
