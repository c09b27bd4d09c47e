/* Pieces shared by the point-to-point algorithms. */
#ifndef VRED_P2P_H
#define VRED_P2P_H

#include "coll/p2p/msg.h"

/* Binomial tree reduction of a->count elements to `root`: non-roots accumulate in `acc` (a
 * buffer of count elements, or NULL for the communicator's scratch), the root in `rbuf`. */
int vred_p2p_reduce_tree(const vred_coll_args *a, int root, void *rbuf, void *acc);
/* Binomial broadcast of n elements of buf from root. */
int vred_p2p_bcast_tree(const vred_coll_args *a, void *buf, size_t n, int root);

/* The non-power-of-two pairing of the paper: with p2 = the largest power of two <= p and
 * r = p - p2, ranks (virtual) 2j and 2j+1 for j < r form a pair whose even member takes part
 * as new rank j and whose odd member sits out; virtual rank v >= 2r takes part as v - r. */
typedef struct {
    int p2, r;
    int nr;      /* new rank, or -1 when sitting out */
    int partner; /* the pair's other virtual rank, or -1 when not paired */
} vred_pairing;

static inline vred_pairing vred_pair(int v, int p)
{
    vred_pairing q;
    q.p2 = 1;
    while (q.p2 * 2 <= p) q.p2 *= 2;
    q.r = p - q.p2;
    if (v < 2 * q.r) {
        q.nr = v % 2 ? -1 : v / 2;
        q.partner = v ^ 1;
    } else {
        q.nr = v - q.r;
        q.partner = -1;
    }
    return q;
}

/* The virtual rank of new rank j (inverse of vred_pair). */
static inline int vred_pair_virtual(const vred_pairing *q, int j)
{
    return j < q->r ? 2 * j : j + q->r;
}

static inline int vred_ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p) l++;
    return l;
}

#endif
