/*
 * Recursive doubling (small allreduce, and scan): log p2 steps, at each of which a rank swaps
 * everything it holds with the rank whose bit differs and folds it in. Latency log p alpha, but
 * N beta + N gamma per step: for small messages only.
 *
 * Both members of a swap fold lower-ranked data as the left operand, so they compute the same
 * bits (for NaN payloads, signed zeros under MAX/MIN) and every rank ends with one result.
 * p not a power of two: the odd member of each pair (2j, 2j+1), j < p - p2, sends its vector to
 * the even one first and gets the result at the end.
 */
#include <string.h>
#include "coll/p2p/p2p.h"

int vred_allreduce_recdbl(const vred_coll_args *a)
{
    int p = a->size;
    size_t n = a->count;
    vred_pairing q = vred_pair(a->rank, p);
    const void *cur = a->sbuf;
    int rc = MPI_SUCCESS;
    if (q.partner >= 0) {
        if (q.nr < 0) {
            rc = vred_msg_send(a, a->sbuf, n, q.partner);
            return rc != MPI_SUCCESS ? rc : vred_msg_recv(a, a->rbuf, n, q.partner);
        }
        rc = vred_msg_recv_reduce(a, q.partner, a->sbuf, a->rbuf, n, 0);
        cur = a->rbuf;
    }
    for (int mask = 1; rc == MPI_SUCCESS && mask < q.p2; mask <<= 1) {
        int partner = q.nr ^ mask, peer = vred_pair_virtual(&q, partner);
        rc = vred_msg_sendrecv_reduce(a, cur, n, peer, peer, cur, a->rbuf, n, partner < q.nr);
        cur = a->rbuf;
    }
    if (rc == MPI_SUCCESS && cur != a->rbuf) memcpy(a->rbuf, cur, n * a->esize); /* p2 == 1 */
    if (rc == MPI_SUCCESS && q.partner >= 0) rc = vred_msg_send(a, a->rbuf, n, q.partner);
    return rc;
}
