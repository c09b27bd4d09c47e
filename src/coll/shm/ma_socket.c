/*
 * Socket-aware two-level MA (the second paper, sec. 3.3, fig. 7). With m socket groups, the
 * engine (ma.c) first runs the MA steps inside each group only, so that a step waits on a
 * neighbour of the same socket and the slices it reduces never cross the socket link; each
 * group leaves its partial sum of the whole chunk in its own area of the bank. Then, after one
 * node-wide synchronisation, rank r combines the m partials of its slot r. Synchronisations per
 * chunk: the largest group's size plus one (flat: p), for m - 1 extra slice reductions per slot.
 *
 * Groups are the contiguous runs of a->n->socket[] (node.h guarantees a socket's ranks are
 * contiguous); they may have any sizes, e.g. 2 + 3. A group of one rank just copies the chunk
 * into its area.
 */
#include "coll/shm/ma.h"

void vred_ma_groups(vred_ma *ma)
{
    const vred_node *n = ma->a->n;
    int p = ma->p, r = ma->r;
    ma->m = 1, ma->k = 0, ma->base = 0, ma->g = p, ma->t = r, ma->gmax = p;
    if (n->sockets <= 1 || !n->socket) return;
    /* Groups are numbered by run, not by socket id, so that the bank areas 0 .. m-1 are dense
     * whatever the ids are. */
    int m = 0, gmax = 0;
    for (int i = 0; i < p;) {
        int j = i;
        while (j < p && n->socket[j] == n->socket[i]) j++;
        if (i <= r && r < j) ma->k = m, ma->base = i, ma->g = j - i, ma->t = r - i;
        if (j - i > gmax) gmax = j - i;
        m++;
        i = j;
    }
    if (m == 1) return; /* one socket after all: the flat algorithm */
    ma->m = m, ma->gmax = gmax;
}

void vred_ma_combine(const vred_ma *ma)
{
    size_t n = vred_ma_slot_n(ma, ma->r);
    if (!n) return;
    char *out = vred_ma_own_out(ma);
    /* Fixed order, group 0 first: only this rank computes slot r, so every rank that copies
     * it out gets these very bits. */
    const char *acc = vred_ma_slot(ma, 0, ma->r);
    for (int k = 1; k < ma->m; k++) {
        vred_par_reduce3(ma->a->e, ma->es, acc, vred_ma_slot(ma, k, ma->r), out, n);
        acc = out;
    }
}
