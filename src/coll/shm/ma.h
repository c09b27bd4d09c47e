/*
 * The movement-avoiding (MA) chunk engine shared by ma_reduce_scatter.c, ma_allreduce.c,
 * ma_reduce.c and ma_socket.c (private to src/coll/shm/).
 *
 * Geometry. The input is cut into p blocks, one per node rank q: elements
 * [disp[q], disp[q+1]) of sbuf (the even split for allreduce/reduce, a->counts for
 * reduce_scatter). Chunk c takes, from each block, the piece [disp[q] + c I, + I) clipped to the
 * block ("slot" q of the chunk), and one round of the engine reduces that chunk. In the round's
 * bank, group k's copy of slot q lives at bank + (k p + q) I esize: every slot starts on a
 * 64-byte boundary when I esize is a multiple of 64 (vred_shm_slice makes it so where it can).
 *
 * Groups. The flat algorithm (paper fig. 6) is one group of all p ranks, each owning one slot.
 * The socket-aware one (fig. 7) runs the same steps inside each socket group of g ranks, where
 * group rank t owns the slot range [vred_block_lo(p, g, t), vred_block_lo(p, g, t + 1)) and the
 * result is each group's partial sum of every slot; a second level then combines the m partials
 * of slot r on rank r.
 */
#ifndef VRED_SHM_MA_H
#define VRED_SHM_MA_H

#include <stdint.h>
#include "coll/shm/shm.h"

typedef enum { VRED_MA_REDUCE_SCATTER, VRED_MA_ALLREDUCE, VRED_MA_REDUCE } vred_ma_kind;

typedef struct {
    const vred_shm_args *a;
    vred_shm *s;
    vred_ma_kind kind;
    int p, r;             /* node ranks */
    size_t es;            /* bytes per element */
    size_t I;             /* slice, elements */
    size_t chunks;
    const size_t *disp;   /* p + 1 block boundaries in sbuf, elements */
    /* Groups: m of them (1 = flat); this rank is index t among the g ranks base .. base+g-1 of
     * group k; gmax = the largest group (every rank posts gmax times in the group phase). */
    int m, k, base, g, t, gmax;
    int shifted;          /* reduce_scatter in place with disp[r] != 0: own result via the bank */
    int nt;               /* copies to the receive buffer with streaming stores */
    vred_stores_call in;  /* the first steps' copies into the bank (stores.h) */
    /* The current round. */
    size_t c;
    char *bank;
} vred_ma;

/* Runs the MA algorithm of `kind` (shared by the three collectives): blocks a->counts for
 * reduce_scatter, the even split of a->count otherwise. Every node rank calls it with the same
 * arguments except buffers. */
int vred_ma_run(const vred_shm_args *a, vred_ma_kind kind);

/* The geometry of the current round, inline here so that ma_socket.c needs only this header
 * (ma.c calls ma_socket.c, never the other way round). */

/* Elements of slot q in the current chunk (0 if block q is exhausted). */
static inline size_t vred_ma_slot_n(const vred_ma *ma, int q)
{
    size_t first = ma->disp[q] + ma->c * ma->I, end = ma->disp[q + 1];
    if (first >= end) return 0;
    return end - first < ma->I ? end - first : ma->I;
}

/* Group `group`'s copy of slot q in the current round's bank. */
static inline char *vred_ma_slot(const vred_ma *ma, int group, int q)
{
    return ma->bank + ((size_t)group * (size_t)ma->p + (size_t)q) * ma->I * ma->es;
}

/* Where this rank's own slot gets its final sum: straight into the receive buffer for
 * reduce_scatter (unless shifted in place), else group 0's copy of slot r in the bank, from
 * which it is copied out. Call only when slot r is not empty. */
static inline char *vred_ma_own_out(const vred_ma *ma)
{
    if (ma->kind == VRED_MA_REDUCE_SCATTER && !ma->shifted)
        return vred_at(ma->a->rbuf, ma->c * ma->I, ma->es);
    return vred_ma_slot(ma, 0, ma->r);
}

/* ma_socket.c: the groups of a->n (one group unless a->n->sockets > 1), and the second level of
 * the socket-aware algorithm: slot r's m group partials combined, in group order, into
 * vred_ma_own_out. */
void vred_ma_groups(vred_ma *ma);
void vred_ma_combine(const vred_ma *ma);

/* slice.c: vred_shm_slice with an explicit I_max in bytes. */
size_t vred_shm_slice_within(size_t count, size_t esize, int p, size_t imax);

#endif
