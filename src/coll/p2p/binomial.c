/*
 * Binomial tree (the paper's first algorithm): log p steps; at each, a rank whose bit is set
 * (relative to the root) sends all it holds to the rank with that bit cleared and leaves, and
 * that rank folds it in. Cost log p (alpha + N beta + N gamma). The first fold is
 * acc = own op received straight from the send buffer (3-buffer kernel): the send buffer is
 * never copied into the receive buffer.
 *
 * Allreduce = reduce to rank 0 + binomial broadcast; reduce_scatter = reduce to rank 0 + each
 * block sent to its rank.
 */
#include <string.h>
#include "coll/p2p/p2p.h"

int vred_p2p_reduce_tree(const vred_coll_args *a, int root, void *rbuf, void *acc)
{
    int p = a->size, v = (a->rank - root + p) % p;
    size_t n = a->count;
    const void *cur = a->sbuf; /* what this rank holds so far */
    for (int mask = 1; mask < p; mask <<= 1) {
        if (v & mask) /* hand everything to the parent and leave */
            return vred_msg_send(a, cur, n, (v - mask + root) % p);
        if (v + mask >= p) continue;
        void *out = v == 0 ? rbuf : acc;
        if (!out && !(out = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, n * a->esize)))
            return MPI_ERR_NO_MEM;
        acc = out;
        /* The child holds higher virtual ranks: own data is the left operand. */
        int rc = vred_msg_recv_reduce(a, (v + mask + root) % p, cur, out, n, 0);
        if (rc != MPI_SUCCESS) return rc;
        cur = out;
    }
    return MPI_SUCCESS;
}

int vred_p2p_bcast_tree(const vred_coll_args *a, void *buf, size_t n, int root)
{
    int p = a->size, v = (a->rank - root + p) % p, mask = 1;
    for (; mask < p; mask <<= 1)
        if (v & mask) {
            int rc = vred_msg_recv(a, buf, n, (v - mask + root) % p);
            if (rc != MPI_SUCCESS) return rc;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < p) {
            int rc = vred_msg_send(a, buf, n, (v + mask + root) % p);
            if (rc != MPI_SUCCESS) return rc;
        }
    return MPI_SUCCESS;
}

int vred_reduce_binomial(const vred_coll_args *a)
{
    return vred_p2p_reduce_tree(a, a->root, a->rbuf, NULL);
}

int vred_allreduce_binomial(const vred_coll_args *a)
{
    /* Every rank has a full receive buffer: accumulate there, no scratch. */
    int rc = vred_p2p_reduce_tree(a, 0, a->rbuf, a->rbuf);
    return rc != MPI_SUCCESS ? rc : vred_p2p_bcast_tree(a, a->rbuf, a->count, 0);
}

int vred_reduce_scatter_binomial(const vred_coll_args *a)
{
    size_t n = a->count, es = a->esize;
    char *all = NULL;
    if (a->rank == 0 && !(all = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC2, n * es)))
        return MPI_ERR_NO_MEM;
    int rc = vred_p2p_reduce_tree(a, 0, all, NULL);
    if (rc != MPI_SUCCESS) return rc;
    if (a->rank != 0) return vred_msg_recv(a, a->rbuf, a->counts[a->rank], 0);
    size_t off = a->counts[0];
    for (int i = 1; i < a->size; off += a->counts[i], i++)
        if ((rc = vred_msg_send(a, all + off * es, a->counts[i], i)) != MPI_SUCCESS) return rc;
    if (a->counts[0]) memcpy(a->rbuf, all, a->counts[0] * es);
    return MPI_SUCCESS;
}
