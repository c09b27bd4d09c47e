/*
 * Reduce-scatter by recursive halving (the paper's "RedScat"), then a binomial gather (reduce),
 * a recursive-doubling allgather (allreduce, i.e. Rabenseifner's algorithm), or nothing more
 * (reduce_scatter). Halving: log p2 steps; at each, a rank keeps half of its current range of
 * blocks, sends the other half to its partner and folds the partner's copy of the kept half in.
 * Cost 2 alpha log p + 2 (p-1)/p N beta + (p-1)/p N gamma (with the gather).
 *
 * p not a power of two: the paper's pairing. In each pair (2j, 2j+1) the two ranks swap halves
 * and each folds one half (2 alpha + N beta + N/2 gamma); the odd one then hands its folded half
 * to the even one and sits out until the result comes back.
 *
 * Blocks: the vector is cut into p blocks by virtual rank (rotated so that the root is virtual
 * rank 0 and never sits out); new rank j owns the blocks of the virtual ranks it stands for,
 * which are contiguous. Reduce_scatter uses the caller's counts, unrotated.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/p2p/p2p.h"

typedef struct {
    const vred_coll_args *a;
    int base;           /* rank of virtual rank 0 */
    vred_pairing q;
    int v;              /* this rank's virtual rank */
    const size_t *disp; /* p + 1 element offsets of the virtual ranks' blocks */
} rs_plan;

static int real_rank(const rs_plan *s, int v) { return (v + s->base) % s->a->size; }
static int real_of_new(const rs_plan *s, int j) { return real_rank(s, vred_pair_virtual(&s->q, j)); }

/* First element of new rank j's blocks; nd(p2) = the end of the vector. New ranks [j0, j1) own
 * the elements [nd(j0), nd(j1)). */
static size_t nd(const rs_plan *s, int j)
{
    return j >= s->q.p2 ? s->disp[s->a->size] : s->disp[vred_pair_virtual(&s->q, j)];
}

/*
 * The reduce-scatter phase. On return a taking-part rank holds in acc the reduced elements
 * [nd(nr), nd(nr + 1)); a rank sitting out has done its share.
 */
static int halving(const rs_plan *s, void *acc)
{
    const vred_coll_args *a = s->a;
    size_t es = a->esize, n = s->disp[a->size];
    const char *cur = a->sbuf;
    if (s->q.partner >= 0) {
        /* The pair: the even member folds the low half, the odd one the high half. */
        size_t mid = n / 2;
        int odd = s->v & 1, peer = real_rank(s, s->q.partner);
        size_t keep_lo = odd ? mid : 0, keep_n = odd ? n - mid : mid;
        size_t give_lo = odd ? 0 : mid, give_n = odd ? mid : n - mid;
        int rc = vred_msg_sendrecv_reduce(a, vred_at(cur, give_lo, es), give_n, peer, peer,
                                          vred_at(cur, keep_lo, es), vred_at(acc, keep_lo, es),
                                          keep_n, odd);
        if (rc != MPI_SUCCESS) return rc;
        if (odd) return vred_msg_send(a, vred_at(acc, mid, es), n - mid, peer);
        rc = vred_msg_recv(a, vred_at(acc, mid, es), n - mid, peer);
        if (rc != MPI_SUCCESS) return rc;
        cur = acc;
    }
    int nr = s->q.nr, lo = 0, hi = s->q.p2;
    for (int mask = s->q.p2 / 2; mask > 0; mask /= 2) {
        int partner = nr ^ mask, mid = lo + mask, upper = nr & mask;
        int k0 = upper ? mid : lo, k1 = upper ? hi : mid;
        int g0 = upper ? lo : mid, g1 = upper ? mid : hi;
        int peer = real_of_new(s, partner);
        int rc = vred_msg_sendrecv_reduce(a, vred_at(cur, nd(s, g0), es), nd(s, g1) - nd(s, g0),
                                          peer, peer, vred_at(cur, nd(s, k0), es),
                                          vred_at(acc, nd(s, k0), es), nd(s, k1) - nd(s, k0),
                                          partner < nr);
        if (rc != MPI_SUCCESS) return rc;
        cur = acc;
        lo = k0;
        hi = k1;
    }
    return MPI_SUCCESS;
}

static int plan(rs_plan *s, const vred_coll_args *a, int base, const size_t *counts)
{
    int p = a->size;
    size_t *disp = malloc((size_t)(p + 1) * sizeof *disp);
    if (!disp) return MPI_ERR_NO_MEM;
    for (int i = 0; i <= p; i++)
        disp[i] = counts ? (i ? disp[i - 1] + counts[i - 1] : 0) : vred_block_lo(a->count, p, i);
    s->a = a;
    s->base = base;
    s->v = (a->rank - base + p) % p;
    s->q = vred_pair(s->v, p);
    s->disp = disp;
    return MPI_SUCCESS;
}

int vred_reduce_redscat(const vred_coll_args *a)
{
    rs_plan s;
    int rc = plan(&s, a, a->root, NULL);
    if (rc != MPI_SUCCESS) return rc;
    size_t es = a->esize;
    char *acc = a->rank == a->root ? a->rbuf
                                   : vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, a->count * es);
    if (!acc) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = halving(&s, acc);
    /* Binomial gather of the blocks to new rank 0, the root. */
    int nr = s.q.nr;
    for (int mask = 1; rc == MPI_SUCCESS && nr >= 0 && mask < s.q.p2; mask <<= 1) {
        if (nr & mask) {
            rc = vred_msg_send(a, acc + nd(&s, nr) * es, nd(&s, nr + mask) - nd(&s, nr),
                               real_of_new(&s, nr - mask));
            break;
        }
        rc = vred_msg_recv(a, acc + nd(&s, nr + mask) * es,
                           nd(&s, nr + 2 * mask) - nd(&s, nr + mask), real_of_new(&s, nr + mask));
    }
    free((void *)s.disp);
    return rc;
}

int vred_allreduce_redscat(const vred_coll_args *a)
{
    rs_plan s;
    int rc = plan(&s, a, 0, NULL);
    if (rc != MPI_SUCCESS) return rc;
    size_t es = a->esize;
    char *acc = a->rbuf;
    rc = halving(&s, acc);
    /* Recursive-doubling allgather among the new ranks. */
    int nr = s.q.nr;
    for (int mask = 1; rc == MPI_SUCCESS && nr >= 0 && mask < s.q.p2; mask <<= 1) {
        int partner = nr ^ mask, mine = nr & ~(mask - 1), theirs = partner & ~(mask - 1);
        rc = vred_msg_sendrecv(a, acc + nd(&s, mine) * es, nd(&s, mine + mask) - nd(&s, mine),
                               real_of_new(&s, partner), acc + nd(&s, theirs) * es,
                               nd(&s, theirs + mask) - nd(&s, theirs), real_of_new(&s, partner));
    }
    /* The pairs: the even member hands the result to the odd one. */
    if (rc == MPI_SUCCESS && s.q.partner >= 0) {
        int peer = real_rank(&s, s.q.partner);
        rc = s.v & 1 ? vred_msg_recv(a, acc, a->count, peer) : vred_msg_send(a, acc, a->count, peer);
    }
    free((void *)s.disp);
    return rc;
}

int vred_reduce_scatter_redscat(const vred_coll_args *a)
{
    rs_plan s;
    int rc = plan(&s, a, 0, a->counts);
    if (rc != MPI_SUCCESS) return rc;
    size_t es = a->esize, mine = a->counts[a->rank];
    char *acc = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, a->count * es);
    if (!acc) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = halving(&s, acc);
    if (rc == MPI_SUCCESS) {
        if (s.q.nr < 0) /* sat out: the block comes from the pair's even member */
            rc = vred_msg_recv(a, a->rbuf, mine, real_rank(&s, s.q.partner));
        else {
            if (s.q.partner >= 0) {
                int odd = s.q.partner;
                rc = vred_msg_send(a, acc + s.disp[odd] * es, a->counts[odd], real_rank(&s, odd));
            }
            /* The input is all consumed by now: in place, the result may overwrite it. */
            if (mine) memmove(a->rbuf, acc + s.disp[s.v] * es, mine * es);
        }
    }
    free((void *)s.disp);
    return rc;
}
